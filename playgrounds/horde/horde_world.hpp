// HordeWorld: the authoritative server world of the horde playground.
//
// A Vampire-Survivors-style arena: thousands of enemies chase the nearest of a few players,
// the players auto-fire at the nearest enemy and pulse a nova that kills everything around
// them, and the dead come back in waves every 500 ms. That is the churn the delta stream has
// to carry: a steady trickle of spawns and kills, and bursts of hundreds in one tick when a
// nova goes off inside a horde.
//
// Enemies are named by SlotKeys (SlotAllocator, LIFO reuse, so a slot is recycled within a
// wave or two and generations are load-bearing). The enemy movement rule (chase_step) is a
// pure function of the enemy's position, its key and the player it chases, so a client that
// knows the players runs the same rule to draw what it holds between corrections.
//
// Deterministic: seeded XorShift streams, time only through step(dt). Costs per tick:
// O(enemies) for motion and the grid rebuild, O(projectiles) small radius queries, one
// radius query per nova. Retargeting (nearest player) is staggered over kRetargetTicks, so it
// costs O(enemies * players / kRetargetTicks) per tick.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "vantage/random.hpp"
#include "vantage/slot_allocator.hpp"
#include "vantage/spatial_grid.hpp"
#include "vantage/vec.hpp"

namespace vantage::play {

// The reference game's constants (core/docs/background.md, "Horde"), world units and seconds.
namespace horde {
inline constexpr float kArena = 3000.0f;       // side of the square arena, from (0, 0)
inline constexpr float kCellSize = 256.0f;     // relevance grid cell
inline constexpr float kEnemySpeed = 62.0f;    // units/s
inline constexpr float kPlayerSpeed = 190.0f;  // units/s
inline constexpr double kFireInterval = 0.22;  // s between auto-fire shots
inline constexpr float kFireRange = 450.0f;    // a shot is aimed at the nearest enemy within this
inline constexpr float kShotSpeed = 620.0f;    // units/s
inline constexpr double kShotTtl = 1.4;        // s
inline constexpr float kShotHitRadius = 14.0f;
inline constexpr double kNovaInterval = 4.5;  // s
inline constexpr float kNovaRadius = 190.0f;
inline constexpr double kNovaRing = 0.45;     // s the ring is drawn
inline constexpr double kWaveInterval = 0.5;  // s between respawn waves
inline constexpr float kContactRadius = 22.0f;
inline constexpr int kContactDamage = 9;
inline constexpr double kHitInvulnerable = 0.6;    // s after a hit
inline constexpr double kDeathInvulnerable = 2.0;  // s after a death
inline constexpr int kPlayerHealth = 100;
inline constexpr int kEnemyHealth = 2;     // a shot does 1, a nova 3
inline constexpr int kRetargetTicks = 15;  // nearest-player search, staggered by slot
}  // namespace horde

struct HordeWorldOptions {
    std::uint64_t seed = 1;
    int enemies = 3000;  // alive target, [200, 8000]
    int players = 4;     // [1, 128]
    bool spread = true;  // players' home regions spread over the arena; false: all at the centre
    bool combat = true;  // shots, novas, deaths and waves; off: a static horde that only chases

    const char* validate() const;
};

struct Player {
    Vec2 position;
    Vec2 waypoint;
    Vec2 home;
    int health = horde::kPlayerHealth;
    double invulnerable_until = 0.0;
    double next_fire = 0.0;
    double next_nova = 0.0;
    double nova_at = -1.0;  // when the last nova went off (for drawing the ring)
    std::uint32_t deaths = 0;
};

struct Shot {
    Vec2 position;
    Vec2 velocity;
    double expires = 0.0;
};

// Where an enemy with this key heads relative to the player it chases: a fixed offset in a
// ring around the player, so a horde surrounds its target instead of collapsing to a point.
// A pure function of the key, shared by the server and every client.
Vec2 chase_offset(std::uint64_t packed_key);
// One step of the enemy rule: toward target + chase_offset(key) at kEnemySpeed, never
// overshooting. dt_s may be any non-negative duration (a client catches a correction up by
// its age in one call).
Vec2 chase_step(Vec2 position, std::uint64_t packed_key, Vec2 target, float dt_s);
// chase_step with the goal (target + chase_offset(key)) already added up: what a holder of
// many enemies calls each tick with each one's offset worked out once (a hash, a square root
// and a division it would otherwise redo per enemy per tick). The same result, bit for bit.
// Inline: a call passes each Vec2 through memory in wasm (structs go by pointer there), and
// every held enemy of every client takes this step every tick.
inline Vec2 chase_toward(Vec2 position, Vec2 goal, float dt_s) {
    const Vec2 d = goal - position;
    const float dist = d.length();
    const float step = horde::kEnemySpeed * dt_s;
    if (dist <= step) return goal;
    return position + d * (step / dist);
}
// Index of the player nearest to p (lowest index on ties); 0 for an empty list.
std::uint32_t nearest_player(Vec2 p, std::span<const Vec2> players);

class HordeWorld {
public:
    explicit HordeWorld(const HordeWorldOptions& options);

    void step(double dt_s);
    // The player 0 steering input: a direction (zero: the bot drives it). Held until changed.
    void steer(Vec2 direction) { steer(0, direction, direction.length_squared() == 0.0f); }
    // Any player's input (a room seat): with autopilot the bot drives it, otherwise it moves
    // along `direction` (zero: it stands still). Held until changed; ignored out of range.
    void steer(std::size_t player, Vec2 direction, bool autopilot);
    void set_combat(bool on) { options_.combat = on; }

    double time_s() const { return time_s_; }
    std::uint64_t tick() const { return tick_; }
    const HordeWorldOptions& options() const { return options_; }
    std::span<const Player> players() const { return players_; }
    std::span<const Vec2> player_positions() const { return player_positions_; }
    std::span<const Shot> shots() const { return shots_; }

    // Whether the occupant named by packed_key is alive (a stale generation is not).
    bool alive(std::uint64_t packed_key) const {
        const std::optional<SlotKey> key = SlotKey::decode(packed_key);
        return key && alive_position(*key) != nullptr;
    }
    // Slot-indexed reads (index < the allocator's high-water mark, unchecked): the current or
    // last occupant of the slot.
    std::uint64_t key_at(std::uint32_t index) const { return enemies_[index].key; }
    Vec2 position_at(std::uint32_t index) const { return enemies_[index].position; }
    // The position of the occupant named by key if it is alive, else null. Inline: the
    // truth-side readouts ask it for every enemy every client holds.
    const Vec2* alive_position(SlotKey key) const {
        if (key.index >= enemies_.size()) return nullptr;
        const Enemy& e = enemies_[key.index];
        return e.alive && e.key == key.encode() ? &e.position : nullptr;
    }
    // Where the occupant named by packed_key died, if it is the slot's most recent death.
    bool death_position(std::uint64_t packed_key, Vec2& out) const;
    std::size_t alive_count() const { return slots_.live_count(); }

    // The grid over alive enemies (ids are slot indices), rebuilt at the end of every step.
    const SpatialGrid& grid() const { return grid_; }
    // Alive enemies' slot indices and positions, parallel, ascending slot (what the grid holds).
    std::span<const std::uint32_t> alive_ids() const { return alive_ids_; }
    std::span<const Vec2> alive_positions() const { return alive_positions_; }

    std::uint64_t kills() const { return kills_; }
    std::uint64_t spawns() const { return spawns_; }
    std::uint32_t last_nova_kills() const { return last_nova_kills_; }
    std::uint32_t biggest_nova_kills() const { return biggest_nova_kills_; }
    std::uint64_t checksum() const;

private:
    struct Enemy {
        std::uint64_t key = 0;  // packed SlotKey of the current (or last) occupant
        Vec2 offset;            // chase_offset(key)
        Vec2 position;
        std::uint32_t target = 0;
        int health = 0;
        bool alive = false;
        std::uint64_t death_key = 0;  // packed key of the slot's most recent death
        Vec2 death_position;
        bool has_death = false;
    };

    void place_players();
    Vec2 spawn_point();
    void spawn();
    void kill(std::uint32_t index);
    void move_players(float dt);
    void move_enemies(float dt);
    void fight(float dt);
    void rebuild_grid();

    HordeWorldOptions options_;
    XorShift rng_;
    XorShift bot_rng_;
    SlotAllocator slots_;
    std::vector<Enemy> enemies_;
    std::vector<Player> players_;
    std::vector<Vec2> player_positions_;
    std::vector<Shot> shots_;
    SpatialGrid grid_;
    std::vector<std::uint32_t> alive_ids_;
    std::vector<Vec2> alive_positions_;
    std::vector<std::uint32_t> scratch_ids_;
    struct Steering {
        Vec2 direction;
        bool autopilot = true;
    };
    std::vector<Steering> steering_;  // per player
    double time_s_ = 0.0;
    double next_wave_ = 0.0;
    std::uint64_t tick_ = 0;
    std::uint64_t kills_ = 0;
    std::uint64_t spawns_ = 0;
    std::uint32_t last_nova_kills_ = 0;
    std::uint32_t biggest_nova_kills_ = 0;
};

}  // namespace vantage::play
