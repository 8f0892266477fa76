// BlackholeWorld: the black-hole arena itself, apart from anyone watching it.
//
// Holes move along their input plus a pull from the other holes, drain each other on
// contact and respawn; thousands of pellets fall in under the holes' field and respawn when
// swallowed or when they leave the arena, so the pellet count stays constant. Every hole has
// a control: a seeded waypoint script (the default), the circling script the page's player
// hole uses on autopilot, or a steered direction (a player). The page's lanes
// (BlackholeSim) and a room's seats (BlackholeRoom) read the same world; one seed gives one
// run on every platform (log, sin and cos are snapped to a binary grid).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "blackhole/field_packet.hpp"
#include "vantage/aggregate_tree.hpp"
#include "vantage/gravity_field.hpp"
#include "vantage/random.hpp"
#include "vantage/vec.hpp"

namespace vantage::play {

struct BlackholeWorldOptions {
    std::uint64_t seed = 1;
    int holes = 8;       // [2, kMaxHoles]
    int pellets = 2000;  // [1, 65536]

    const char* validate() const;  // nullptr when fine
};

class BlackholeWorld {
public:
    static constexpr float kG = 90000.0f;        // pellet field strength
    static constexpr float kSoftening = 120.0f;  // added to r^2
    static constexpr float kHolePull = 9000.0f;  // hole-hole field strength (a velocity)
    static constexpr float kHolePullCap = 430.0f;
    static constexpr float kHoleSpeed = 210.0f;
    static constexpr float kStartMass = 120.0f;
    static constexpr float kMassPerPellet = 3.0f;
    static constexpr float kContactDrain = 55.0f;  // mass per second each side of a contact
    static constexpr double kRespawnS = 2.5;

    struct Hole {
        Vec2 position;
        Vec2 velocity;  // what it moved last tick, units/s
        float mass = kStartMass;
        bool alive = true;
        double respawn_at_s = 0.0;
        Vec2 target;  // the script's waypoint
        double retarget_at_s = 0.0;
    };

    enum class Control : std::uint8_t {
        Waypoints,  // heads for seeded waypoints (every hole nobody plays)
        Circle,     // circles by script (the page's player hole on autopilot)
        Steered,    // moves along the direction given (a player)
    };

    explicit BlackholeWorld(const BlackholeWorldOptions& options = {});

    // One fixed step: holes (inputs, pull, contacts, respawns), then pellets.
    void step(double dt_s);
    // Sets hole `hole`'s control; `direction` (length clamped to 1) is used while Steered.
    // Out-of-range holes and non-finite directions are ignored.
    void control(std::size_t hole, Control control, Vec2 direction = {});

    double time_s() const { return time_s_; }
    const std::vector<Hole>& holes() const { return holes_; }
    // The alive holes as the field's sources (weight = effective mass) and their hole indices.
    const std::vector<WeightedPoint>& sources() const { return sources_; }
    const std::vector<std::uint8_t>& source_ids() const { return source_ids_; }
    const std::vector<Vec2>& pellet_positions() const { return pellet_pos_; }
    const std::vector<Vec2>& pellet_velocities() const { return pellet_vel_; }
    // Pellets respawned since the last clear_respawned() (each once).
    const std::vector<std::uint16_t>& respawned() const { return respawn_list_; }
    void clear_respawned();
    std::uint64_t swallowed() const { return swallowed_; }
    std::uint64_t rng_state() const { return rng_.state(); }
    const GravityField& pellet_field() const { return pellet_field_; }

    static float effective_mass(float mass);
    static float hole_radius(const Hole& h);

private:
    void step_holes(float dt);
    void step_pellets(float dt);
    void respawn_pellet(std::size_t i);

    struct HoleControl {
        Control control = Control::Waypoints;
        Vec2 direction;
    };

    XorShift rng_;
    double time_s_ = 0.0;
    double script_angle_ = 0.0;
    std::uint64_t swallowed_ = 0;
    GravityField pellet_field_{kG, kSoftening};
    GravityField hole_field_{kHolePull, kSoftening};
    std::vector<Hole> holes_;
    std::vector<HoleControl> controls_;
    std::vector<WeightedPoint> sources_;
    std::vector<std::uint8_t> source_ids_;
    std::vector<Vec2> pellet_pos_;
    std::vector<Vec2> pellet_vel_;
    std::vector<Vec2> pellet_pull_;        // step_pellets() scratch: the field at every pellet
    std::vector<std::uint8_t> respawned_;  // flag per pellet since the last clear
    std::vector<std::uint16_t> respawn_list_;
};

}  // namespace vantage::play
