// Black-hole playground: send the field, not the particles; culling vs aggregation.
//
// Gravity is the hard case for relevance. Every client integrates the pellets itself from the
// attractors it was sent, so a hole it was not told about still bends every pellet it holds:
// culling the field by view distance drops an *input* of the client's physics, and its
// pellets drift from the server's. Aggregation keeps the distant pull and drops only its
// resolution: an AggregateTree built once per send round over the arena, walked from each
// client's hole, turns far groups of holes into one stand-in each at their weighted centroid.
//
// One authoritative world (holes steered by seeded scripts, one by the player; thousands of
// pellets falling in and respawning) is served through three lanes in lockstep: the full
// field, the field culled by view distance, and the aggregated field. Each lane has its own
// seats, one per client: a BlackholeServerHalf (what the server sends that client) and a
// BlackholeClientHalf (its own decoding and local integration) exchanging only encoded bytes
// over a LinkPair. The meters are measured: the bytes the encoder produced, the distance
// between the client half's pellets and the server's within the view (computed here, where
// the truth is), and the force evaluations the client spent.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "blackhole/blackhole_client.hpp"
#include "blackhole/blackhole_server.hpp"
#include "blackhole/blackhole_world.hpp"
#include "blackhole/field_packet.hpp"
#include "common/catalog.hpp"
#include "common/packet_log.hpp"
#include "common/reading.hpp"
#include "common/simulation.hpp"
#include "common/transport.hpp"
#include "vantage/aggregate_tree.hpp"
#include "vantage/gravity_field.hpp"
#include "vantage/lossy_link.hpp"
#include "vantage/random.hpp"

namespace vantage::play {

struct BlackholeSettings {
    int holes = 8;               // black holes in the arena, 2..64 (rebuilds the world)
    int pellets = 2000;          // pellets, 200..6000 (rebuilds the world)
    int clients = 4;             // clients per lane, playing holes 0..clients-1; 1..8 (rebuilds)
    double theta = 0.5;          // the aggregated lane's opening angle, 0..1.5 (0 = the full field)
    bool disc_walk = true;       // walk for the whole view disc (summarize_around) instead of the hole
    double view_radius = 620.0;  // world units, 200..1500: culling distance and error window
    int corrections = 40;        // pellet corrections per packet, round-robin, 0..300
    double send_hz = 16.0;       // packets per second to each client, 1..60
    double latency_ms = 80.0;    // one-way link latency, ms, 0..400
    double jitter_ms = 15.0;     // extra delay uniform in [0, jitter], ms, 0..150
    double loss_pct = 0.0;       // packet loss, %, 0..40
    bool autopilot = true;       // the player's hole circles by script; off: steered from the view

    // Empty when every field is in range, otherwise a message naming the first bad field
    // (derived from the settings' declarations in blackhole_sim.cpp, the sliders' ranges).
    std::string validate() const;
};

// Reads of one lane's recent pellet error, in world units (px at zoom 1).
struct ErrorStats {
    double median = 0.0;
    double p90 = 0.0;
    double worst = 0.0;
    std::size_t samples = 0;
};

class BlackholeSim final : public Simulation {
public:
    using World = BlackholeWorld;
    using Hole = BlackholeWorld::Hole;
    static constexpr float kG = World::kG;
    static constexpr float kSoftening = World::kSoftening;
    static constexpr float kHoleSpeed = World::kHoleSpeed;
    static constexpr float kStartMass = World::kStartMass;
    static constexpr double kMeasureEveryS = 0.25;
    static constexpr int kErrorWindow = 8;  // measurements pooled for the error meters (2 s)

    // One client of one lane: the hole it plays, its two links, the server's half for it
    // and its own half.
    struct Seat {
        Seat(int played, const LossyLinkOptions& down, const LossyLinkOptions& up, const BlackholeClientHalf& welcome)
            : hole(played), link(down, up), client(welcome) {}
        int hole = 0;
        LinkPair link;
        BlackholeServerHalf server;
        BlackholeClientHalf client;
    };

    // Sums over one send round's packets of a lane (see probe_field).
    struct FieldProbe {
        double true_pull = 0.0;      // sum over probes of |true field|
        double believed_pull = 0.0;  // sum over probes of |field of what was sent|
        double error_pull = 0.0;     // sum over probes of |sent - true|
        double true_weight = 0.0;
        double sent_weight = 0.0;
    };

    struct Lane {
        LaneKind kind = LaneKind::Full;
        std::string name;
        std::vector<std::unique_ptr<Seat>> seats;
        Reading bytes;                        // per packet, every client of the lane
        Reading field_bytes;                  // the field part of those packets
        Reading evaluations;                  // force evaluations per client per tick
        std::uint64_t decode_errors() const;  // packets the lane's clients refused
        // pooled error samples of the last kErrorWindow measurements
        std::array<std::vector<float>, kErrorWindow> error_window;
        int error_next = 0;
        ErrorStats error;
        std::vector<float> error_lifetime;  // the run's samples, kept after begin_measurement()
        // The field each packet carried against the truth at send time, at the pellets in view
        // (probed once per measurement): sum of |field| over probes (P% of the real pull),
        // weight kept, and sum |sent - true| / sum |true|. One sample per probe round.
        FieldProbe probe;
        Reading pull_pct;
        Reading weight_pct;
        Reading field_error_pct;
        Reading attractors;  // mean over clients, one sample per measurement
        // The newest packets to the lane's first client (the one drawn), by sequence, for the
        // packet strip and inspector; not part of the checksum.
        PacketLog packets{96, kMaxFieldPacketBytes};

        std::array<Reading*, 7> readings() {
            return {&bytes, &field_bytes, &evaluations, &pull_pct, &weight_pct, &field_error_pct, &attractors};
        }
    };

    BlackholeSim();
    std::string_view name() const override { return "blackhole"; }
    std::string_view title() const override { return "Black holes"; }
    void reset(std::uint64_t seed) override;
    void step(double dt_s) override;
    void meters(std::vector<Meter>& out) const override;
    std::span<const MeterInfo> glossary() const override;
    std::uint64_t checksum() const override;
    double time_s() const override { return world_.time_s(); }

    BlackholeSettings& settings() { return settings_; }
    const BlackholeSettings& settings() const { return settings_; }
    // The player's input while autopilot is off (a direction, length <= 1).
    void steer(Vec2 direction);

    const BlackholeWorld& world() const { return world_; }
    const std::vector<Hole>& holes() const { return world_.holes(); }
    const std::vector<Vec2>& pellet_positions() const { return world_.pellet_positions(); }
    const std::vector<Lane>& lanes() const { return lanes_; }
    const Lane& lane(LaneKind kind) const { return lanes_[static_cast<std::size_t>(kind)]; }
    float hole_radius(const Hole& h) const { return World::hole_radius(h); }
    static float effective_mass(float mass) { return World::effective_mass(mass); }
    std::uint64_t swallowed() const { return world_.swallowed(); }
    // Pooled over every measurement since the last begin_measurement(). Samples are kept only
    // once a run has begun (the report and the tests), so a page left open does not grow
    // without bound; before that it is empty.
    ErrorStats lifetime_error(LaneKind kind) const;
    // Starts every lane's run readings afresh and starts keeping error samples.
    void begin_measurement() override;

private:
    void apply_link_options();
    void send_round();
    BlackholeServeOptions serve_options(LaneKind kind) const;
    void receive_and_integrate(Lane& lane, float dt);
    void measure();
    void probe_field(Lane& lane, Vec2 eye, const FieldPacket& packet);

    BlackholeSettings settings_;
    BlackholeWorld world_;
    double next_send_s_ = 0.0;
    double next_measure_s_ = 0.0;
    bool field_probe_due_ = false;
    Vec2 steer_{};
    bool keep_samples_ = false;

    std::vector<Lane> lanes_;
    AggregateTree tree_;
    BlackholeServeScratch serve_scratch_;    // shared by every server half
    BlackholeClientScratch client_scratch_;  // shared by every client half
    std::vector<Vec2> probes_;
    std::vector<WeightedPoint> sent_;
    std::vector<float> pooled_;
};

// The tables behind the README's findings (`./vantage report blackhole`).
void blackhole_report(const ReportOptions& options, std::FILE* out);

}  // namespace vantage::play
