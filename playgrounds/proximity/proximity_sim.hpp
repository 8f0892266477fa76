// Proximity playground: the relevance structures themselves, side by side over one motion.
//
// Thousands of creatures wander a square world (clustered around drifting centres if asked,
// steering toward their pack if asked); every tick each lane answers the same question, "who
// is within r of each creature?", with its own structure: the dense bin (SpatialGrid, rebuilt
// from scratch), the chapter's bolt-on hash grid, CrossLink (maintained sorted lists), the
// NearbyDetector (maintained boxes) and brute force (all pairs, below a cap). A sixth lane
// asks the chapter's other question, "the nearest creature to each food point", exactly and
// through one representative per cell.
//
// What a lane measures, deterministically: operations per tick (candidates tested, cells
// hashed, detector work), enter/leave events of a few watcher creatures' views, and its
// disagreement with the dense bin (creatures whose neighbour set differs, plus watcher views
// that differ): zero for every exact lane, and for the representative its error in cell
// widths. Time per lane is not a simulation reading: each lane's work runs inside a
// PhaseScope named after it, so whoever installed a profiler (the page, the benchmarks)
// times it with its own clock.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/catalog.hpp"
#include "common/reading.hpp"
#include "common/simulation.hpp"
#include "proximity/hash_grid.hpp"
#include "vantage/cross_link.hpp"
#include "vantage/nearby_detector.hpp"
#include "vantage/random.hpp"
#include "vantage/spatial_grid.hpp"
#include "vantage/visibility_set.hpp"

namespace vantage::play {

struct ProximitySettings {
    int creatures = 1500;        // creatures in the world, 200..1,000,000 (rebuilds the world)
    double world = 2100.0;       // world side, units, 200..40000 (at 1000 creatures when grow_world; rebuilds)
    bool grow_world = false;     // the side grows with sqrt(creatures / 1000): density held (rebuilds)
    double radius = 24.0;        // query radius = cell size, units, 4..128 (rebuilds the world)
    double speed = 40.0;         // creature speed, units/s, 0..400
    double moving_pct = 100.0;   // share of creatures that move at all, %, 0..100
    bool clustered = false;      // creatures crowd around drifting centres
    int clusters = 6;            // cluster centres, 1..32 (clustered motion only)
    double spread = 120.0;       // how far a creature strays from its centre, units, 5..2000
    bool cohesion = false;       // every creature also steers toward the pack's centre
    bool pack_leader = true;     // the pack's centre as one centroid pass (O(N)), not all pairs (O(N^2))
    bool hash = true;            // run the hash grid lane
    bool crosslink = true;       // run the CrossLink lane (rebuilds)
    bool nearby = true;          // run the NearbyDetector lane (rebuilds)
    bool brute = true;           // run brute force (only while creatures <= brute_cap)
    int brute_cap = 1500;        // brute force and all-pairs cohesion run up to this many creatures, 100..20000
    bool representative = true;  // run the nearest-creature lane (exact and one-per-cell)

    // Empty when every field is in range, otherwise a message naming the first bad field.
    std::string validate() const;
    // The side of the world these settings give, units.
    float world_side() const;
};

enum class ProximityLaneKind { Dense, Hash, CrossLink, Nearby, Brute };

class ProximitySim final : public Simulation {
public:
    static constexpr std::uint32_t kWatchers = 16;  // creatures 0..15 watch; their views give the events

    struct Lane {
        ProximityLaneKind kind = ProximityLaneKind::Dense;
        std::string name;
        bool active = false;                // runs this tick (setting on, and below the cap for brute force)
        std::vector<std::uint32_t> count;   // per creature: neighbours within r (itself excluded)
        std::vector<std::uint64_t> digest;  // per creature: order-free digest of those neighbours
        std::array<VisibilitySet, kWatchers> view{};
        std::array<VisibilitySet, kWatchers> previous{};
        Reading ops;                   // operations this tick (see the README's definitions)
        Reading build_ops;             // of which building or maintaining the structure
        Reading events;                // watcher view enters + leaves this tick
        Reading disagree;              // creatures + watcher views that differ from the dense bin
        Reading pairs;                 // ordered pairs within r
        std::uint64_t raw_events = 0;  // the detector's own (square, whole world) transitions, this tick
        // Nearby lane only: updates this tick that moved a creature to another detector node,
        // and the operations those updates cost (part of build_ops).
        Reading node_changes;
        Reading node_change_ops;

        std::array<Reading*, 7> readings() {
            return {&ops, &build_ops, &events, &disagree, &pairs, &node_changes, &node_change_ops};
        }
    };

    // The nearest-creature question, answered exactly and by one representative per cell.
    struct Nearest {
        Reading exact_ops;     // candidates the exact query tested, per tick
        Reading rep_ops;       // cells the representative query read, per tick
        Reading mismatch_pct;  // queries whose representative is not the exact nearest, %
        Reading error_cells;   // mean extra distance of the representative, cell widths, per tick
        Reading worst_cells;   // the worst extra distance this tick, cell widths
        Reading answered;      // queries with a creature within r
        std::array<Reading*, 6> readings() {
            return {&exact_ops, &rep_ops, &mismatch_pct, &error_cells, &worst_cells, &answered};
        }
    };

    ProximitySim();
    std::string_view name() const override { return "proximity"; }
    std::string_view title() const override { return "Proximity"; }
    void reset(std::uint64_t seed) override;
    void step(double dt_s) override;
    void meters(std::vector<Meter>& out) const override;
    std::span<const MeterInfo> glossary() const override;
    std::uint64_t checksum() const override;
    double time_s() const override { return time_s_; }
    void begin_measurement() override;
    bool param_enabled(std::string_view name) const override;

    ProximitySettings& settings() { return settings_; }
    const ProximitySettings& settings() const { return settings_; }

    float side() const { return side_; }
    float radius() const { return radius_; }
    const std::vector<Vec2>& positions() const { return pos_; }
    const std::vector<Vec2>& food() const { return food_; }
    const std::vector<Vec2>& centres() const { return centres_; }
    const std::vector<Lane>& lanes() const { return lanes_; }
    const Lane& lane(ProximityLaneKind kind) const { return lanes_[static_cast<std::size_t>(kind)]; }
    const Nearest& nearest() const { return nearest_; }
    const SpatialGrid& grid() const { return *grid_; }
    Vec2 pack_centre() const { return pack_centre_; }
    // Operations of the pack's centre this tick, and what the other method would have cost.
    const Reading& pack_ops() const { return pack_ops_; }

private:
    void build_world();
    void step_motion(float dt);
    void pack_centre_pass();
    void run_dense(Lane& lane);
    void run_hash(Lane& lane);
    void run_crosslink(Lane& lane);
    void run_nearby(Lane& lane);
    void run_brute(Lane& lane);
    void run_nearest();
    void finish_lane(Lane& lane);
    std::uint64_t band_ops(std::uint32_t i) const;

    ProximitySettings settings_;
    XorShift rng_{1};
    double time_s_ = 0.0;
    float side_ = 0.0f;
    float radius_ = 0.0f;

    std::vector<Vec2> pos_;
    std::vector<Vec2> vel_;
    std::vector<std::uint8_t> moves_;  // 1: this creature moves at all
    std::vector<Vec2> centres_;
    std::vector<Vec2> centre_vel_;
    std::vector<Vec2> food_;
    Vec2 pack_centre_{};
    Reading pack_ops_;
    Reading pack_other_ops_;
    Reading pack_diff_;  // distance between the all-pairs answer and the centroid, units

    std::vector<Lane> lanes_;
    Nearest nearest_;
    std::unique_ptr<SpatialGrid> grid_;
    HashGrid hash_;
    std::unique_ptr<CrossLink> crosslink_;
    std::unique_ptr<NearbyDetector> detector_;
    std::vector<std::uint32_t> scratch_;
    std::vector<float> sorted_x_;  // CrossLink's band sizes, from the creatures' sorted coordinates
    std::vector<float> sorted_y_;
    std::vector<NearestHit> exact_hits_;  // per food point, this tick
    std::vector<std::uint8_t> exact_found_;
    std::vector<NearestHit> rep_hits_;
    std::vector<std::uint32_t> entered_;
    std::vector<std::uint32_t> left_;
};

// The tables behind the README's findings (`./vantage report proximity`).
void proximity_report(const ReportOptions& options, std::FILE* out);

}  // namespace vantage::play
