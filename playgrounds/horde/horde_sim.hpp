// Horde playground: thousands of enemies streamed to a few clients over a lossy link.
//
// One authoritative HordeWorld, and several lanes serving it in lockstep. A lane is one way
// of telling every client what is near it: per client, relevance (SpatialGrid, view radius)
// picks the enemies, DeltaBaseline streams that set as entered/left over a LossyLink (naive:
// diff against what was sent; acked: diff against what the client acknowledged), the
// client rebuilds it in a DeltaMirror, round-robin corrections (small differences from the
// values the client acknowledged, carried forward by the enemy rule) keep the positions honest,
// an optional per-client byte budget fills each frame by priority instead,
// and optionally an AggregateTree (weight = headcount) sends crowd summaries of the world
// outside the view. Every lane of a client shares the same loss pattern (same link seed),
// so the lanes differ only in strategy.
//
// The client draws what it holds by running the enemies' rule itself (chase the nearest
// player it knows of), catching each correction up by its age. Readouts are measured, not
// modelled: bytes are what the encoder produced; phantoms are held enemies that are dead on
// the server; missing are relevant enemies not held; render error is the distance between
// where a client draws an enemy and where it is (for a phantom: where it died), at the
// instant drawn. Per-client readouts are means over the lane's clients.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/catalog.hpp"
#include "common/reading.hpp"
#include "common/simulation.hpp"
#include "horde/horde_client.hpp"
#include "horde/horde_server.hpp"
#include "horde/horde_wire.hpp"
#include "horde/horde_world.hpp"
#include "vantage/aggregate_tree.hpp"
#include "vantage/delta_baseline.hpp"
#include "vantage/delta_mirror.hpp"
#include "vantage/lossy_link.hpp"

namespace vantage::play {

struct HordeSettings {
    int enemies = 3000;          // alive target, [200, 8000] (restart)
    int players = 4;             // [1, 128] (restart)
    bool spread = true;          // players spread over the arena; off: clustered at the centre (restart)
    bool combat = true;          // shots, novas, deaths and respawn waves
    double view_radius = 420.0;  // relevance radius around each client's player, units, [100, 1500]
    double send_hz = 16.0;       // frames per second to each client, [1, 60]
    double sample_hz = 4.0;      // corrections per second per held enemy (round-robin), [1, 60]
    double latency_ms = 30.0;    // one way, both directions, [0, 400]
    double jitter_ms = 20.0;     // extra one-way delay, uniform, [0, 150]
    double loss_pct = 0.0;       // per packet, both directions, %, [0, 40]
    double theta = 1.5;          // opening angle of the crowd lane's summaries, [0, 2]; 0 = none
    bool any_received = true;    // acked lanes adopt the newest received frame (off: contiguous) (restart)
    double budget_kib_s = 0.0;   // downstream budget per client, KiB/s, [0, 64]; 0 = unlimited
};

struct HordeLaneConfig {
    std::string name;            // meter prefix and URL key prefix
    bool recovery = true;        // Acked (true) or Naive delta recovery
    bool relevance = true;       // false: every alive enemy is relevant (the broadcast)
    bool follows_theta = false;  // this lane's theta is the "theta" setting
    float theta = 0.0f;          // fixed theta when it does not follow the setting; 0 = none
    // nullopt: the "any_received" setting decides.
    std::optional<AckFrontier> frontier;
    CorrectionCoding coding = CorrectionCoding::Predicted;  // Absolute: the first wire, to compare
    std::optional<double> budget_kib_s;                     // nullopt: the "budget" setting decides
};

// Averages since the last restart_measurement() (the report's columns).
struct HordeLaneTotals {
    double seconds = 0;
    double kib_s = 0;             // downstream, all clients
    double uuid_kib_s = 0;        // the same packets with 16-byte ids and f32 positions
    double up_kib_s = 0;          // acknowledgements, all clients
    double crowd_kib_s = 0;       // the crowd part of kib_s
    double samples_share = 0;     // share of downstream bytes that are corrections
    double membership_share = 0;  // share that is the delta frame (entered/left/digest)
    // Downstream bytes per second of each part, all clients (they sum to kib_s * 1024).
    double header_b_s = 0, membership_b_s = 0, players_b_s = 0, samples_b_s = 0, crowd_b_s = 0;
    double corrections_per_s = 0;  // per client
    double predicted_share = 0;    // of the corrections, those sent against an acknowledged value
    std::uint64_t unresolved = 0;  // predicted corrections the clients could not resolve
    double phantoms = 0;           // per client, mean over ticks
    double missing = 0;            // per client, mean over send ticks (awaiting included)
    double awaiting = 0;           // of the missing, members awaiting their position (a lost entry's repeat)
    double held = 0;               // per client
    double relevant = 0;           // per client
    double err_mean_px = 0;        // over every held enemy drawn
    double err_worst_px = 0;
    std::uint64_t mismatches = 0;    // digest disagreements, all clients
    std::uint64_t frames_lost = 0;   // sequence gaps, all clients
    std::uint64_t resyncs = 0;       // full rebuilds after the first, all clients
    double entities_per_packet = 0;  // entered + left + corrections
    double spawns_per_packet = 0;    // entered
    double despawns_per_packet = 0;  // left
    double summaries = 0;            // crowd blobs per frame
    double coverage = 0;             // share of the enemies outside the view the blobs stand for
};

// One client of a lane: its two links, the server's half for it and its own half.
struct HordeSeat {
    HordeSeat(const DeltaBaselineOptions& baseline, const LossyLinkOptions& down, const LossyLinkOptions& up)
        : link(down, up), server(baseline) {}
    LinkPair link;
    HordeServerHalf server;
    HordeClientHalf client;
};

class HordeLane {
public:
    HordeLane(HordeLaneConfig config, int clients, const DeltaBaselineOptions& baseline, const LossyLinkOptions& link,
              std::uint64_t seed);

    const HordeLaneConfig& config() const { return config_; }
    HordeLaneConfig& config() { return config_; }
    std::size_t client_count() const { return seats_.size(); }
    const HordeSeat& seat(std::size_t i) const { return *seats_[i]; }
    HordeSeat& seat(std::size_t i) { return *seats_[i]; }

private:
    friend class HordeSim;

    // The run's render error pooled over every enemy drawn since restart_measurement(): a
    // sum and a count, not the mean of per-tick means that err_ windows for the page.
    struct PooledError {
        double sum = 0, n = 0, worst = 0;  // px, enemies drawn, px
    };
    // The mirrors' and baselines' counters when the run began (totals() reports the growth).
    struct CountersAtStart {
        std::uint64_t mismatches = 0, lost = 0, rebuilds = 0, unresolved = 0;
    };

    // Every lane metric, recorded once: the window (the page's meters) and the run since
    // restart_measurement() (totals(), the checksum) both come from one Reading.
    std::array<Reading*, 21> readings() {
        return {&bytes_,        &uuid_bytes_,   &up_bytes_, &crowd_bytes_, &sample_bytes_, &membership_bytes_,
                &header_bytes_, &player_bytes_, &ids_,      &spawns_,      &despawns_,     &blobs_,
                &coverage_,     &phantoms_,     &held_,     &missing_,     &relevant_,     &err_,
                &corrections_,  &predicted_,    &awaiting_};
    }

    HordeLaneConfig config_;
    std::vector<std::unique_ptr<HordeSeat>> seats_;
    // Per packet sent, all clients: bytes (the encoder's), the 16-byte-id counterfactual, and
    // the crowd, correction and membership parts; the acknowledgements' bytes per ack.
    Reading bytes_, uuid_bytes_, up_bytes_, crowd_bytes_, sample_bytes_, membership_bytes_;
    Reading header_bytes_, player_bytes_;  // per packet: type, time and frame length; players
    Reading corrections_, predicted_;      // per packet: corrections, those predicted
    Reading ids_, spawns_, despawns_;      // per packet: entered + left + corrections, entered, left
    Reading blobs_, coverage_;             // per summarised packet: crowd blobs, share covered
    Reading phantoms_, held_;              // per tick, per client (mean over the lane's clients)
    Reading missing_, relevant_;           // per send tick, per client
    Reading awaiting_;                     // per send tick, per client: of the missing, awaiting a position
    Reading err_;                          // per tick: mean px over the enemies drawn that tick
    PooledError err_run_;
    double err_worst_recent_ = 0;  // worst px over the last second
    double err_worst_acc_ = 0;
    double err_worst_until_ms_ = 0;
    double run_start_ms_ = 0;  // when restart_measurement() last ran
    CountersAtStart at_start_;
};

class HordeSim final : public Simulation {
public:
    HordeSim();
    // A simulation with its own lanes (the report's sweeps); names must be unique.
    explicit HordeSim(std::vector<HordeLaneConfig> lanes);
    std::string_view name() const override { return "horde"; }
    std::string_view title() const override { return "Horde"; }
    void reset(std::uint64_t seed) override;
    void step(double dt_s) override;
    void meters(std::vector<Meter>& out) const override;
    std::span<const MeterInfo> glossary() const override;
    std::uint64_t checksum() const override;
    double time_s() const override { return world_ ? world_->time_s() : 0.0; }

    HordeSettings& settings() { return settings_; }
    const HordeSettings& settings() const { return settings_; }
    // Applies link, recovery and combat settings to the running lanes (after editing settings()).
    void apply_settings();
    const HordeWorld& world() const { return *world_; }
    void steer(Vec2 direction) { world_->steer(direction); }
    std::size_t lane_count() const { return lanes_.size(); }
    const HordeLane& lane(std::size_t i) const { return *lanes_[i]; }
    // Starts the averages of totals() afresh (the report's warm-up ends here).
    void restart_measurement();
    void begin_measurement() override { restart_measurement(); }
    HordeLaneTotals totals(std::size_t lane) const;
    // Enemies relevant to a client at the last send (ascending packed keys).
    const std::vector<std::uint64_t>& relevant(std::size_t client) const { return round_.relevant(client); }

private:
    void add_params();
    float lane_theta(const HordeLaneConfig& c) const;
    HordeServeOptions serve_options(const HordeLaneConfig& c) const;
    LossyLinkOptions link_options(std::uint64_t seed) const;
    void send_round(double now_ms);
    void count_sent(HordeLane& lane, const HordeSent& sent);
    void measure(HordeLane& lane, double now_ms, bool send_tick);

    HordeSettings settings_;
    std::vector<HordeLaneConfig> lane_configs_;
    std::unique_ptr<HordeWorld> world_;
    std::vector<std::unique_ptr<HordeLane>> lanes_;
    double next_send_ms_ = 0;
    std::uint64_t send_rounds_ = 0;
    HordeRoundBuilder round_;  // per send round, shared by every lane
    HordeServeScratch scratch_;
    HordeClientScratch client_scratch_;
};

// `./vantage report horde`: relevance savings, the loss table, the crowd table, where the bytes
// go (first wire against the predicted one), the two wires under loss and the budget table.
void horde_report(const ReportOptions& options, std::FILE* out);

}  // namespace vantage::play
