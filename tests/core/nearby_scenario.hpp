// Seeded scenarios of moving boxes for NearbyDetector, shared by its tests and benchmarks,
// and a brute-force oracle that applies the same nearby rule to every pair.
//
// A scenario owns boxes (centre, half size, velocity) in a square world and emits, tick by
// tick, the operations a game server would send: inserts first, then moves (small random-walk
// steps, bouncing off the world's edge), and for some kinds teleports or insert/remove churn.
// UI-free and deterministic: everything comes from one XorShift.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "vantage/nearby_detector.hpp"
#include "vantage/random.hpp"

namespace vantage::nearby_test {

using Box = NearbyDetector::Box;

enum class ScenarioKind {
    Uniform,     // small boxes spread evenly, a few neighbours each
    Clustered,   // small boxes packed around a few centres: many pairs, many events
    MixedSizes,  // sizes spread log-uniformly over three orders of magnitude
    HugeBoxes,   // small boxes plus a few moving boxes up to a quarter of the world wide
    Teleports,   // uniform, and a share of boxes jump anywhere each tick
    Churn,       // uniform, and a share of boxes are removed and fresh ones inserted each tick
    CellHops,    // uniform sizes, and each move is a jump of exactly `hop` along x, y or both
};

inline const char* to_string(ScenarioKind kind) {
    switch (kind) {
        case ScenarioKind::Uniform:
            return "uniform";
        case ScenarioKind::Clustered:
            return "clustered";
        case ScenarioKind::MixedSizes:
            return "mixed";
        case ScenarioKind::HugeBoxes:
            return "huge";
        case ScenarioKind::Teleports:
            return "teleports";
        case ScenarioKind::Churn:
            return "churn";
        case ScenarioKind::CellHops:
            return "hops";
    }
    return "?";
}

enum class OpKind { Insert, Update, Remove };

struct Op {
    OpKind kind = OpKind::Update;
    std::uint32_t id = 0;
    Box box{};
};

struct ScenarioConfig {
    ScenarioKind kind = ScenarioKind::Uniform;
    std::uint32_t count = 100;      // boxes alive at any time
    float world = 100.0f;           // world side, world units; the world is [-world/2, world/2]^2
    float step = 0.3f;              // largest per-tick speed change, world units per tick
    float moving = 1.0f;            // share of live boxes that move each tick, 0..1
    std::uint32_t huge_every = 50;  // HugeBoxes: every this many slots is huge, >= 1
    float hop = 0.5f;               // CellHops: world units per axis per move (a detector's min_cell)
    std::uint64_t seed = 1;
};

class Scenario {
public:
    explicit Scenario(const ScenarioConfig& config) : config_(config), rng_(mix64(config.seed)) {
        clusters_.resize(5);
        for (auto& c : clusters_)
            c = {rng_.range(-0.4f, 0.4f) * config_.world, rng_.range(-0.4f, 0.4f) * config_.world};
        bodies_.resize(config_.count);
        ids_.resize(config_.count);
        for (std::uint32_t id = 0; id < config_.count; ++id) {
            ids_[id] = id;
            spawn(id);
        }
        next_id_ = config_.count;
    }

    // The inserts that populate the world.
    std::vector<Op> initial() const {
        std::vector<Op> ops;
        for (std::uint32_t id = 0; id < bodies_.size(); ++id) ops.push_back({OpKind::Insert, ids_[id], box_of(id)});
        return ops;
    }

    // One tick of operations, appended to `ops` (cleared first).
    void tick(std::vector<Op>& ops) {
        ops.clear();
        const auto n = static_cast<std::uint32_t>(bodies_.size());
        for (std::uint32_t id = 0; id < n; ++id) {
            Body& b = bodies_[id];
            if (config_.kind == ScenarioKind::Churn && rng_.chance(0.05f)) {
                ops.push_back({OpKind::Remove, ids_[id], {}});
                // Half the time a fresh id, half the time the same id again at once.
                if (rng_.chance(0.5f)) ids_[id] = next_id_++;
                spawn(id);
                ops.push_back({OpKind::Insert, ids_[id], box_of(id)});
                continue;
            }
            if (!rng_.chance(config_.moving)) continue;
            if (config_.kind == ScenarioKind::CellHops) {
                // One of the eight neighbouring offsets (or none): -1, 0 or +1 hop per axis.
                b.x += config_.hop * static_cast<float>(static_cast<int>(rng_.below(3)) - 1);
                b.y += config_.hop * static_cast<float>(static_cast<int>(rng_.below(3)) - 1);
                const float lim_x = 0.5f * config_.world - b.hx;
                const float lim_y = 0.5f * config_.world - b.hy;
                b.x = std::clamp(b.x, -lim_x, lim_x);
                b.y = std::clamp(b.y, -lim_y, lim_y);
            } else if (config_.kind == ScenarioKind::Teleports && rng_.chance(0.05f)) {
                b.x = rng_.range(-0.5f, 0.5f) * (config_.world - 2.0f * b.hx);
                b.y = rng_.range(-0.5f, 0.5f) * (config_.world - 2.0f * b.hy);
            } else {
                b.vx = std::clamp(b.vx + rng_.range(-config_.step, config_.step), -2.0f * config_.step,
                                  2.0f * config_.step);
                b.vy = std::clamp(b.vy + rng_.range(-config_.step, config_.step), -2.0f * config_.step,
                                  2.0f * config_.step);
                b.x += b.vx;
                b.y += b.vy;
                bounce(b);
            }
            ops.push_back({OpKind::Update, ids_[id], box_of(id)});
        }
    }

    const ScenarioConfig& config() const { return config_; }
    // The largest id any operation so far has used, plus one.
    std::uint32_t id_bound() const { return next_id_; }

private:
    struct Body {
        float x = 0.0f, y = 0.0f;    // centre
        float hx = 0.5f, hy = 0.5f;  // half size
        float vx = 0.0f, vy = 0.0f;  // world units per tick
    };

    void spawn(std::uint32_t slot) {
        Body& b = bodies_[slot];
        const float w = config_.world;
        switch (config_.kind) {
            case ScenarioKind::MixedSizes: {
                b.hx = 0.05f * std::pow(2.0f, rng_.range(0.0f, 9.0f));
                b.hy = b.hx * rng_.range(0.3f, 1.0f);
                break;
            }
            case ScenarioKind::HugeBoxes: {
                const bool huge = slot % config_.huge_every == 0;
                b.hx = huge ? w * rng_.range(0.08f, 0.14f) : rng_.range(0.2f, 1.0f);
                b.hy = huge ? w * rng_.range(0.04f, 0.14f) : rng_.range(0.2f, 1.0f);
                break;
            }
            default: {
                b.hx = rng_.range(0.2f, 1.0f);
                b.hy = rng_.range(0.2f, 1.0f);
                break;
            }
        }
        b.hx = std::min(b.hx, 0.25f * w);
        b.hy = std::min(b.hy, 0.25f * w);
        if (config_.kind == ScenarioKind::Clustered) {
            const auto& c = clusters_[static_cast<std::size_t>(rng_.below(clusters_.size()))];
            const float spread = 0.03f * w;
            b.x = c.first + rng_.range(-spread, spread);
            b.y = c.second + rng_.range(-spread, spread);
        } else {
            b.x = rng_.range(-0.5f, 0.5f) * (w - 2.0f * b.hx);
            b.y = rng_.range(-0.5f, 0.5f) * (w - 2.0f * b.hy);
        }
        b.vx = rng_.range(-config_.step, config_.step);
        b.vy = rng_.range(-config_.step, config_.step);
        bounce(b);
    }

    void bounce(Body& b) const {
        const float lim_x = 0.5f * config_.world - b.hx;
        const float lim_y = 0.5f * config_.world - b.hy;
        if (b.x < -lim_x || b.x > lim_x) b.vx = -b.vx;
        if (b.y < -lim_y || b.y > lim_y) b.vy = -b.vy;
        b.x = std::clamp(b.x, -lim_x, lim_x);
        b.y = std::clamp(b.y, -lim_y, lim_y);
    }

    Box box_of(std::uint32_t slot) const {
        const Body& b = bodies_[slot];
        return {{b.x - b.hx, b.y - b.hy}, {b.x + b.hx, b.y + b.hy}};
    }

    ScenarioConfig config_;
    XorShift rng_;
    std::vector<Body> bodies_;
    std::vector<std::uint32_t> ids_;  // slot -> id it currently carries
    std::vector<std::pair<float, float>> clusters_;
    std::uint32_t next_id_ = 0;
};

// A world for pinning what a move to a neighbouring node costs, with the same neighbourhood
// around the walk at every size. `count` tiny boxes in clusters of sixteen (a 4 x 4 pattern
// inside one level-0 cell, none nearby another), one cluster in every fourth cell along each
// axis, filled column by column, so n boxes cover a square about 8 sqrt(n) units wide; and
// one box per level from 1 up to the first level whose cell spans that square, in the
// negative quadrant where no node's reach comes near the crowd's. So the occupied levels grow
// with the world, as they do when box sizes span the world. A probe then walks one cell per
// move along the row next to the third row of clusters, there and back: every move changes
// node, the probe's nodes are linked with those clusters' nodes, and none of their boxes
// comes nearby it.
class NodeChangeWorld {
public:
    static constexpr float kMinCell = 8.0f;
    static constexpr int kWalk = 16;  // cells walked before turning back

    static NearbyOptions options() {
        return NearbyOptions{.enter_margin = 0.5f, .leave_margin = 1.0f, .min_cell = kMinCell};
    }

    explicit NodeChangeWorld(std::uint32_t count) {
        const auto clusters = static_cast<std::uint32_t>((count + 15) / 16);
        const auto side = static_cast<std::uint32_t>(std::ceil(std::sqrt(static_cast<double>(clusters))));
        for (std::uint32_t gx = 0; gx < side && boxes_.size() < count; ++gx) {
            for (std::uint32_t gy = 0; gy < side && boxes_.size() < count; ++gy) {
                const float x0 = 32.0f * static_cast<float>(gx);
                const float y0 = 32.0f * static_cast<float>(gy);
                for (int k = 0; k < 16 && boxes_.size() < count; ++k) {
                    const float x = x0 + 0.8f + 2.0f * static_cast<float>(k % 4);
                    const float y = y0 + 0.8f + 2.0f * static_cast<float>(k / 4);
                    boxes_.push_back({{x - 0.1f, y - 0.1f}, {x + 0.1f, y + 0.1f}});
                }
            }
        }
        // Level L's box, 0.75 cells wide, sits in cell (-3, -3) of its level: its node's reach
        // ends a cell and a half below zero on both axes, far from the crowd, and the level
        // boxes are disjoint from each other.
        const float span = 32.0f * static_cast<float>(side);
        for (int level = 1; kMinCell * std::ldexp(1.0f, level - 1) < span; ++level) {
            const float c = kMinCell * std::ldexp(1.0f, level);
            boxes_.push_back({{-2.875f * c, -2.875f * c}, {-2.125f * c, -2.125f * c}});
            ++levels_;
        }
    }

    // id -> box: the crowd first, then the level boxes.
    const std::vector<Box>& boxes() const { return boxes_; }
    // How many levels above 0 hold a level box.
    int levels() const { return levels_; }
    // The probe's id (the first one free) and its box after `step` moves: the centre of cell
    // (4 + k, 9), where k walks 0 .. kWalk and back.
    std::uint32_t probe_id() const { return static_cast<std::uint32_t>(boxes_.size()); }
    static Box probe_at(std::int64_t step) {
        const std::int64_t p = step % (2 * kWalk);
        const std::int64_t k = p <= kWalk ? p : 2 * kWalk - p;
        const float x = kMinCell * (static_cast<float>(4 + k) + 0.5f);
        const float y = kMinCell * 9.5f;
        return {{x - 0.2f, y - 0.2f}, {x + 0.2f, y + 0.2f}};
    }

private:
    std::vector<Box> boxes_;
    int levels_ = 0;
};

// The rule, applied to every pair on every operation: O(n) per call over a dense matrix of
// pair states, obviously right.
class NearbyOracle {
public:
    using Pair = std::pair<std::uint32_t, std::uint32_t>;

    NearbyOracle(float enter_margin, float leave_margin) : enter_(enter_margin), leave_(leave_margin) {}

    // Each fills `became` and `stopped` with the transitions the call causes, in pair order.
    void insert(std::uint32_t id, const Box& box, std::vector<Pair>& became, std::vector<Pair>& stopped) {
        if (boxes_.size() <= id) grow(id + 1);
        boxes_[id] = box;
        alive_[id] = 1;
        settle(id, became, stopped);
    }
    void update(std::uint32_t id, const Box& box, std::vector<Pair>& became, std::vector<Pair>& stopped) {
        boxes_[id] = box;
        settle(id, became, stopped);
    }
    void remove(std::uint32_t id, std::vector<Pair>& stopped) {
        stopped.clear();
        for (std::uint32_t other = 0; other < boxes_.size(); ++other) {
            if (at(id, other)) {
                set(id, other, 0);
                stopped.push_back({std::min(id, other), std::max(id, other)});
            }
        }
        alive_[id] = 0;
    }

    std::set<Pair> pairs() const {
        std::set<Pair> out;
        for (std::uint32_t a = 0; a < boxes_.size(); ++a) {
            for (std::uint32_t b = a + 1; b < boxes_.size(); ++b) {
                if (at(a, b)) out.insert({a, b});
            }
        }
        return out;
    }

private:
    void settle(std::uint32_t id, std::vector<Pair>& became, std::vector<Pair>& stopped) {
        became.clear();
        stopped.clear();
        for (std::uint32_t other = 0; other < boxes_.size(); ++other) {
            if (other == id || !alive_[other]) continue;
            const Pair p{std::min(id, other), std::max(id, other)};
            const float g = NearbyDetector::gap(boxes_[id], boxes_[other]);
            const bool was = at(id, other);
            if (was && g > leave_) {
                set(id, other, 0);
                stopped.push_back(p);
            } else if (!was && g <= enter_) {
                set(id, other, 1);
                became.push_back(p);
            }
        }
    }

    void grow(std::size_t n) {
        std::vector<std::uint8_t> bigger(n * n, 0);
        for (std::size_t a = 0; a < stride_; ++a) {
            for (std::size_t b = 0; b < stride_; ++b) bigger[a * n + b] = near_[a * stride_ + b];
        }
        near_.swap(bigger);
        stride_ = n;
        boxes_.resize(n);
        alive_.resize(n, 0);
    }
    bool at(std::uint32_t a, std::uint32_t b) const { return near_[a * stride_ + b] != 0; }
    void set(std::uint32_t a, std::uint32_t b, std::uint8_t v) {
        near_[a * stride_ + b] = v;
        near_[b * stride_ + a] = v;
    }

    float enter_;
    float leave_;
    std::vector<Box> boxes_;
    std::vector<std::uint8_t> alive_;
    std::vector<std::uint8_t> near_;  // stride_ x stride_, symmetric
    std::size_t stride_ = 0;
};

}  // namespace vantage::nearby_test
