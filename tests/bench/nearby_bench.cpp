// NearbyDetector against two ways of getting the same start/stop-being-nearby events:
//   - brute force: each move tests the moved box against every other box, O(n) per move;
//   - grid rebuild: each tick bins every box into a uniform grid (count, prefix sum,
//     scatter), finds every pair within leave_margin, and diffs the pair set against last
//     tick's. Written here rather than on the core SpatialGrid, which is being written in
//     parallel; it is the same dense binning.
// The moves come from the shared nearby scenarios: every box takes a small random-walk step
// each tick. Sparse: about one box per 64 square units (few pairs); crowded: one per 4 (a
// dozen or so neighbours each). Huge: sparse small boxes plus ten that are each 15-30% of
// the world wide, moving like the rest.
// items_per_second is moves per second; the "events" counter is events per second.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "../core/nearby_scenario.hpp"
#include "../support/nearby_sink.hpp"
#include "vantage/nearby_detector.hpp"
#include "vantage/random.hpp"

namespace vantage {
namespace {

using nearby_test::Op;
using nearby_test::OpKind;
using nearby_test::Scenario;
using nearby_test::ScenarioConfig;
using nearby_test::ScenarioKind;
using Box = NearbyDetector::Box;
using nearby_test::NearbySink;
using nearby_test::NullNearbySink;

constexpr float kEnter = 1.0f;
constexpr float kLeave = 2.0f;
constexpr int kTicks = 16;        // ticks generated up front, then played forwards and backwards
constexpr float kMinCell = 2.0f;  // NearbyDetector level-0 cell: about the largest small box

enum class Density { Sparse, Crowded, Huge };

// Snapshots of every box at ticks 0..kTicks and which ids moved into each tick. Benchmarks
// walk the ticks forwards and backwards so motion stays small for as long as they run.
struct Workload {
    std::vector<std::vector<Box>> snapshots;        // tick -> id -> box
    std::vector<std::vector<std::uint32_t>> moved;  // tick -> ids whose box changed from tick - 1
    float world = 0.0f;
};

// `moving_pct`: percentage of boxes that move each tick.
const Workload& workload(std::uint32_t n, Density density, int moving_pct) {
    static std::vector<std::pair<std::uint64_t, Workload>> cache;
    const std::uint64_t key =
        (std::uint64_t{n} << 16) | (static_cast<std::uint64_t>(density) << 8) | static_cast<std::uint64_t>(moving_pct);
    for (const auto& [k, w] : cache) {
        if (k == key) return w;
    }
    const float pitch = density == Density::Crowded ? 2.0f : 8.0f;
    ScenarioConfig config{
        .kind = density == Density::Huge ? ScenarioKind::HugeBoxes : ScenarioKind::Uniform,
        .count = n,
        .world = pitch * std::sqrt(static_cast<float>(n)),
        .step = 0.1f,
        .moving = static_cast<float>(moving_pct) / 100.0f,
        .huge_every = std::max<std::uint32_t>(1, n / 10),
        .seed = 7,
    };
    Scenario scenario(config);
    Workload w;
    w.world = config.world;
    std::vector<Box> boxes(n);
    for (const Op& op : scenario.initial()) boxes[op.id] = op.box;
    w.snapshots.push_back(boxes);
    w.moved.emplace_back();
    std::vector<Op> ops;
    for (int t = 1; t <= kTicks; ++t) {
        scenario.tick(ops);
        std::vector<std::uint32_t> ids;
        for (const Op& op : ops) {
            boxes[op.id] = op.box;
            ids.push_back(op.id);
        }
        w.snapshots.push_back(boxes);
        w.moved.push_back(std::move(ids));
    }
    cache.emplace_back(key, std::move(w));
    return cache.back().second;
}

// Position after s steps of a forwards-backwards walk over ticks 0..kTicks.
int tick_of(std::int64_t s) {
    const std::int64_t period = 2 * kTicks;
    const std::int64_t p = s % period;
    return static_cast<int>(p <= kTicks ? p : period - p);
}

// Step s of the walk: which ids move, and the snapshot holding their new boxes.
struct Transition {
    const std::vector<std::uint32_t>* ids;
    const std::vector<Box>* boxes;
};
Transition transition(const Workload& w, std::int64_t s) {
    const int from = tick_of(s);
    const int to = tick_of(s + 1);
    return {&w.moved[static_cast<std::size_t>(std::max(from, to))], &w.snapshots[static_cast<std::size_t>(to)]};
}

class CountingSink final : public NearbySink {
public:
    void became_nearby(std::uint32_t, std::uint32_t) override { ++events; }
    void stopped_being_nearby(std::uint32_t, std::uint32_t) override { ++events; }
    std::uint64_t events = 0;
};

// ---- NearbyDetector -------------------------------------------------------------------

void BM_NearbyDetector(benchmark::State& state, Density density) {
    const auto n = static_cast<std::uint32_t>(state.range(0));
    const Workload& w = workload(n, density, static_cast<int>(state.range(1)));
    NearbyDetector detector(NearbyOptions{.enter_margin = kEnter, .leave_margin = kLeave, .min_cell = kMinCell});
    CountingSink sink;
    for (std::uint32_t id = 0; id < n; ++id) nearby_test::insert(detector, id, w.snapshots[0][id], sink);
    sink.events = 0;
    const std::uint64_t ops_before = detector.counters().operations;
    std::int64_t step = 0;
    std::uint64_t moves = 0;
    for (auto _ : state) {
        const Transition tr = transition(w, step++);
        for (const std::uint32_t id : *tr.ids) nearby_test::update(detector, id, (*tr.boxes)[id], sink);
        moves += tr.ids->size();
    }
    state.counters["ops_per_move"] = static_cast<double>(detector.counters().operations - ops_before) /
                                     static_cast<double>(std::max<std::uint64_t>(1, moves));
    state.SetItemsProcessed(static_cast<std::int64_t>(moves));
    state.counters["events"] = benchmark::Counter(static_cast<double>(sink.events), benchmark::Counter::kIsRate);
    state.counters["pairs"] = static_cast<double>(detector.pair_count());
}

// ---- brute force ----------------------------------------------------------------------

// Partners with back indices (O(1) erase) and a stamp to skip partners in the O(n) scan:
// the honest best a brute force can do per move.
class BruteForceNearby {
public:
    // The starting pairs come from a sort on min.x and a sweep, so that set-up at 100k boxes
    // is not itself O(n^2).
    explicit BruteForceNearby(const std::vector<Box>& boxes)
        : boxes_(boxes), partners_(boxes.size()), mark_(boxes.size(), 0) {
        std::vector<std::uint32_t> order(boxes_.size());
        for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
        std::sort(order.begin(), order.end(),
                  [&](std::uint32_t a, std::uint32_t b) { return boxes_[a].min.x < boxes_[b].min.x; });
        for (std::size_t i = 0; i < order.size(); ++i) {
            const std::uint32_t a = order[i];
            for (std::size_t j = i + 1; j < order.size() && boxes_[order[j]].min.x - boxes_[a].max.x <= kEnter; ++j) {
                const std::uint32_t b = order[j];
                if (NearbyDetector::within(boxes_[a], boxes_[b], kEnter)) {
                    partners_[a].push_back(b);
                    partners_[b].push_back(a);
                }
            }
        }
    }

    void move(std::uint32_t id, const Box& box, NearbySink& sink) {
        boxes_[id] = box;
        ++epoch_;
        std::vector<std::uint32_t>& mine = partners_[id];
        for (std::size_t k = mine.size(); k-- > 0;) {
            const std::uint32_t other = mine[k];
            if (!NearbyDetector::within(box, boxes_[other], kLeave)) {
                erase(partners_[other], id);
                mine[k] = mine.back();
                mine.pop_back();
                sink.stopped_being_nearby(std::min(id, other), std::max(id, other));
            } else {
                mark_[other] = epoch_;
            }
        }
        // The scan tests a block of 32 boxes into a bit mask with no branch (which clang
        // vectorises for wasm SIMD) and then visits the few hits: per box, four compares
        // instead of a load of the stamp and two branches.
        const auto n = static_cast<std::uint32_t>(boxes_.size());
        const Box* const boxes = boxes_.data();
        // Bit j: boxes[base + j] within kEnter of box, for j < count (at most kBlock).
        const auto hits_in = [&](std::uint32_t base, std::uint32_t count) {
            std::uint32_t hits = 0;
            for (std::uint32_t j = 0; j < count; ++j) {
                hits |= static_cast<std::uint32_t>(NearbyDetector::within(box, boxes[base + j], kEnter)) << j;
            }
            return hits;
        };
        std::uint32_t base = 0;
        for (; base + kBlock <= n; base += kBlock) enter_hits(id, base, hits_in(base, kBlock), sink);
        enter_hits(id, base, hits_in(base, n - base), sink);
    }

private:
    static constexpr std::uint32_t kBlock = 32;

    // The boxes base + j for each set bit j of hits that are not id and not already partners.
    void enter_hits(std::uint32_t id, std::uint32_t base, std::uint32_t hits, NearbySink& sink) {
        while (hits != 0) {
            const std::uint32_t other = base + static_cast<std::uint32_t>(std::countr_zero(hits));
            hits &= hits - 1;
            if (other == id || mark_[other] == epoch_) continue;
            partners_[id].push_back(other);
            partners_[other].push_back(id);
            sink.became_nearby(std::min(id, other), std::max(id, other));
        }
    }

    static void erase(std::vector<std::uint32_t>& v, std::uint32_t x) {
        const auto it = std::find(v.begin(), v.end(), x);
        *it = v.back();
        v.pop_back();
    }

    std::vector<Box> boxes_;
    std::vector<std::vector<std::uint32_t>> partners_;
    std::vector<std::uint32_t> mark_;
    std::uint32_t epoch_ = 0;
};

void BM_BruteForce(benchmark::State& state, Density density) {
    const auto n = static_cast<std::uint32_t>(state.range(0));
    const Workload& w = workload(n, density, static_cast<int>(state.range(1)));
    BruteForceNearby brute(w.snapshots[0]);
    CountingSink sink;
    // One iteration moves a batch of boxes (a whole tick at 100k would take seconds); the
    // batches walk through the ticks in order.
    const std::uint32_t batch = std::max<std::uint32_t>(1, 4000000u / n);
    std::int64_t step = 0;
    std::size_t next = 0;
    std::uint64_t moves = 0;
    for (auto _ : state) {
        for (std::uint32_t i = 0; i < batch; ++i) {
            Transition tr = transition(w, step);
            while (next == tr.ids->size()) {
                next = 0;
                tr = transition(w, ++step);
            }
            const std::uint32_t id = (*tr.ids)[next++];
            brute.move(id, (*tr.boxes)[id], sink);
        }
        moves += batch;
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(moves));
    state.counters["events"] = benchmark::Counter(static_cast<double>(sink.events), benchmark::Counter::kIsRate);
}

// ---- per-tick uniform grid rebuild plus pair diff --------------------------------------

class GridRebuildNearby {
public:
    GridRebuildNearby(float world, float cell) : origin_(-0.5f * world - kLeave), cell_(cell) {
        side_ = static_cast<std::int32_t>(std::ceil((world + 2.0f * kLeave) / cell)) + 1;
        start_.assign(static_cast<std::size_t>(side_) * static_cast<std::size_t>(side_) + 1, 0);
    }

    // Replaces every box, then reports the transitions since the previous call.
    void tick(const std::vector<Box>& boxes, NearbySink& sink) {
        bin(boxes);
        current_.clear();
        const float half = 0.5f * kLeave;
        for (std::int32_t cy = 0; cy < side_; ++cy) {
            for (std::int32_t cx = 0; cx < side_; ++cx) {
                const std::size_t c =
                    static_cast<std::size_t>(cy) * static_cast<std::size_t>(side_) + static_cast<std::size_t>(cx);
                for (std::uint32_t i = start_[c]; i < start_[c + 1]; ++i) {
                    const std::uint32_t a = items_[i];
                    for (std::uint32_t j = i + 1; j < start_[c + 1]; ++j) {
                        const std::uint32_t b = items_[j];
                        if (!NearbyDetector::within(boxes[a], boxes[b], kLeave)) continue;
                        // Report the pair only in the cell holding the low corner of the overlap
                        // of the two boxes grown by half the leave margin: exactly one cell.
                        const float ox = std::max(boxes[a].min.x, boxes[b].min.x) - half;
                        const float oy = std::max(boxes[a].min.y, boxes[b].min.y) - half;
                        if (cell_x(ox) != cx || cell_x(oy) != cy) continue;
                        const std::uint64_t key = pair_key(a, b);
                        const bool was = std::binary_search(previous_.begin(), previous_.end(), key);
                        if (was || NearbyDetector::within(boxes[a], boxes[b], kEnter)) current_.push_back(key);
                    }
                }
            }
        }
        std::sort(current_.begin(), current_.end());
        // Merge the sorted sets: keys only in current became nearby, only in previous stopped.
        std::size_t p = 0;
        std::size_t q = 0;
        while (p < previous_.size() || q < current_.size()) {
            if (q == current_.size() || (p < previous_.size() && previous_[p] < current_[q])) {
                sink.stopped_being_nearby(static_cast<std::uint32_t>(previous_[p] >> 32),
                                          static_cast<std::uint32_t>(previous_[p]));
                ++p;
            } else if (p == previous_.size() || current_[q] < previous_[p]) {
                sink.became_nearby(static_cast<std::uint32_t>(current_[q] >> 32),
                                   static_cast<std::uint32_t>(current_[q]));
                ++q;
            } else {
                ++p;
                ++q;
            }
        }
        previous_.swap(current_);
    }

    std::size_t pair_count() const { return previous_.size(); }

private:
    static std::uint64_t pair_key(std::uint32_t a, std::uint32_t b) {
        return (std::uint64_t{std::min(a, b)} << 32) | std::max(a, b);
    }
    std::int32_t cell_x(float v) const {
        return std::clamp(static_cast<std::int32_t>(std::floor((v - origin_) / cell_)), 0, side_ - 1);
    }

    // Count, prefix sum, scatter: each box into every cell its grown box covers.
    void bin(const std::vector<Box>& boxes) {
        const float half = 0.5f * kLeave;
        std::fill(start_.begin(), start_.end(), 0u);
        auto cover = [&](const Box& b, auto&& visit) {
            const std::int32_t x0 = cell_x(b.min.x - half), x1 = cell_x(b.max.x + half);
            const std::int32_t y0 = cell_x(b.min.y - half), y1 = cell_x(b.max.y + half);
            for (std::int32_t y = y0; y <= y1; ++y) {
                for (std::int32_t x = x0; x <= x1; ++x)
                    visit(static_cast<std::size_t>(y) * static_cast<std::size_t>(side_) + static_cast<std::size_t>(x));
            }
        };
        for (const Box& b : boxes) cover(b, [&](std::size_t c) { ++start_[c + 1]; });
        for (std::size_t c = 1; c < start_.size(); ++c) start_[c] += start_[c - 1];
        items_.resize(start_.back());
        fill_ = start_;
        for (std::uint32_t id = 0; id < boxes.size(); ++id)
            cover(boxes[id], [&](std::size_t c) { items_[fill_[c]++] = id; });
    }

    float origin_;
    float cell_;
    std::int32_t side_ = 0;
    std::vector<std::uint32_t> start_;  // cell -> first item; one extra entry at the end
    std::vector<std::uint32_t> fill_;
    std::vector<std::uint32_t> items_;
    std::vector<std::uint64_t> previous_;
    std::vector<std::uint64_t> current_;
};

void BM_GridRebuild(benchmark::State& state, Density density) {
    const auto n = static_cast<std::uint32_t>(state.range(0));
    const Workload& w = workload(n, density, static_cast<int>(state.range(1)));
    // Cell side: the typical small box (up to 2 wide) plus the leave margin.
    GridRebuildNearby grid(w.world, 4.0f);
    CountingSink sink;
    grid.tick(w.snapshots[0], sink);
    sink.events = 0;
    std::int64_t step = 0;
    std::uint64_t moves = 0;
    for (auto _ : state) {
        const Transition tr = transition(w, step++);
        grid.tick(*tr.boxes, sink);
        moves += tr.ids->size();
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(moves));
    state.counters["events"] = benchmark::Counter(static_cast<double>(sink.events), benchmark::Counter::kIsRate);
    state.counters["pairs"] = static_cast<double>(grid.pair_count());
}

// ---- moves to the neighbouring node -----------------------------------------------------

// The unit test's world (NodeChangeWorld): one probe walks one cell per move past a row of
// clusters, every move a node change, with one box per level up to the world's size far
// away. Times one move; ops_per_move is the detector's counters().operations per move.
void BM_NearbyNodeChangeProbe(benchmark::State& state) {
    const auto n = static_cast<std::uint32_t>(state.range(0));
    const nearby_test::NodeChangeWorld world(n);
    NearbyDetector detector(nearby_test::NodeChangeWorld::options());
    NullNearbySink sink;
    for (std::uint32_t id = 0; id < world.boxes().size(); ++id)
        nearby_test::insert(detector, id, world.boxes()[id], sink);
    const std::uint32_t probe = world.probe_id();
    nearby_test::insert(detector, probe, nearby_test::NodeChangeWorld::probe_at(0), sink);
    const std::uint64_t ops_before = detector.counters().operations;
    std::int64_t step = 0;
    for (auto _ : state) nearby_test::update(detector, probe, nearby_test::NodeChangeWorld::probe_at(++step), sink);
    state.counters["ops_per_move"] = static_cast<double>(detector.counters().operations - ops_before) /
                                     static_cast<double>(std::max<std::int64_t>(1, step));
    state.counters["levels"] = world.levels() + 1;
    state.SetItemsProcessed(step);
}
BENCHMARK(BM_NearbyNodeChangeProbe)->ArgName("n")->Arg(1000)->Arg(100000)->Arg(1000000)->Unit(benchmark::kNanosecond);

// A sparse crowd (one box per 64 square units, 0.4-1 units wide, detector min_cell 2) where
// every move is a hop of one level-0 cell to one of the eight neighbouring cells, so every
// move changes node; plus one box per level up to the world's size in the negative quadrant,
// away from the crowd. Each iteration moves the next 1024 boxes (round robin). Directions
// come from a hash of (id, round), so no move list is stored even at 1M boxes.
class HopCrowd {
public:
    static constexpr float kCell = 2.0f;

    explicit HopCrowd(std::uint32_t n) : side_(static_cast<std::int32_t>(4.0 * std::sqrt(static_cast<double>(n)))) {
        XorShift rng(mix64(n));
        cells_.resize(n);
        half_.resize(n);
        for (std::uint32_t id = 0; id < n; ++id) {
            cells_[id] = {static_cast<std::int32_t>(rng.below(static_cast<std::uint64_t>(side_))),
                          static_cast<std::int32_t>(rng.below(static_cast<std::uint64_t>(side_)))};
            half_[id] = rng.range(0.2f, 0.5f);
        }
        const float span = kCell * static_cast<float>(side_);
        for (int level = 1; kCell * std::ldexp(1.0f, level - 1) < span; ++level) {
            const float c = kCell * std::ldexp(1.0f, level);
            levels_.push_back({{-2.875f * c, -2.875f * c}, {-2.125f * c, -2.125f * c}});
        }
    }

    std::uint32_t size() const { return static_cast<std::uint32_t>(cells_.size()); }
    const std::vector<Box>& level_boxes() const { return levels_; }
    Box box(std::uint32_t id) const {
        const float x = kCell * (static_cast<float>(cells_[id].first) + 0.5f);
        const float y = kCell * (static_cast<float>(cells_[id].second) + 0.5f);
        return {{x - half_[id], y - half_[id]}, {x + half_[id], y + half_[id]}};
    }
    // Hops box `id` to a neighbouring cell, turning back at the world's edge.
    void hop(std::uint32_t id, std::uint64_t round) {
        static constexpr std::int32_t kDx[8] = {-1, 0, 1, -1, 1, -1, 0, 1};
        static constexpr std::int32_t kDy[8] = {-1, -1, -1, 0, 0, 1, 1, 1};
        const auto d = static_cast<std::size_t>(mix64((std::uint64_t{id} << 32) ^ round) & 7u);
        auto& [x, y] = cells_[id];
        x = (x + kDx[d] < 0 || x + kDx[d] >= side_) ? x - kDx[d] : x + kDx[d];
        y = (y + kDy[d] < 0 || y + kDy[d] >= side_) ? y - kDy[d] : y + kDy[d];
    }

private:
    std::int32_t side_;
    std::vector<std::pair<std::int32_t, std::int32_t>> cells_;
    std::vector<float> half_;
    std::vector<Box> levels_;
};

void BM_NearbyNodeChangeCrowd(benchmark::State& state) {
    const auto n = static_cast<std::uint32_t>(state.range(0));
    HopCrowd crowd(n);
    NearbyDetector detector(NearbyOptions{.enter_margin = kEnter, .leave_margin = kLeave, .min_cell = HopCrowd::kCell});
    CountingSink sink;
    for (std::uint32_t id = 0; id < n; ++id) nearby_test::insert(detector, id, crowd.box(id), sink);
    for (std::uint32_t k = 0; k < crowd.level_boxes().size(); ++k)
        nearby_test::insert(detector, n + k, crowd.level_boxes()[k], sink);
    sink.events = 0;
    const std::uint64_t ops_before = detector.counters().operations;
    std::uint64_t moves = 0;
    std::uint32_t next = 0;
    for (auto _ : state) {
        for (int i = 0; i < 1024; ++i) {
            crowd.hop(next, moves / n);
            nearby_test::update(detector, next, crowd.box(next), sink);
            next = next + 1 == n ? 0 : next + 1;
            ++moves;
        }
    }
    state.counters["ops_per_move"] = static_cast<double>(detector.counters().operations - ops_before) /
                                     static_cast<double>(std::max<std::uint64_t>(1, moves));
    state.counters["levels"] = static_cast<double>(crowd.level_boxes().size() + 1);
    state.counters["events"] = benchmark::Counter(static_cast<double>(sink.events), benchmark::Counter::kIsRate);
    state.SetItemsProcessed(static_cast<std::int64_t>(moves));
}
BENCHMARK(BM_NearbyNodeChangeCrowd)->ArgName("n")->Arg(1000)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMicrosecond);

// Args: box count, percentage of boxes moving per tick. Brute force costs the same per move
// whatever share moves, so it runs at 100% only.
#define VANTAGE_NEARBY_BENCH(fn, density, name, ...)          \
    BENCHMARK_CAPTURE(fn, name, Density::density)             \
        ->ArgNames({"n", "moving_pct"})                       \
        ->ArgsProduct({{1000, 10000, 100000}, {__VA_ARGS__}}) \
        ->Unit(benchmark::kMicrosecond)

VANTAGE_NEARBY_BENCH(BM_NearbyDetector, Sparse, sparse, 100, 5);
VANTAGE_NEARBY_BENCH(BM_GridRebuild, Sparse, sparse, 100, 5);
VANTAGE_NEARBY_BENCH(BM_BruteForce, Sparse, sparse, 100);
VANTAGE_NEARBY_BENCH(BM_NearbyDetector, Crowded, crowded, 100, 5);
VANTAGE_NEARBY_BENCH(BM_GridRebuild, Crowded, crowded, 100, 5);
VANTAGE_NEARBY_BENCH(BM_BruteForce, Crowded, crowded, 100);
VANTAGE_NEARBY_BENCH(BM_NearbyDetector, Huge, huge, 100, 5);
VANTAGE_NEARBY_BENCH(BM_GridRebuild, Huge, huge, 100, 5);
VANTAGE_NEARBY_BENCH(BM_BruteForce, Huge, huge, 100);

}  // namespace
}  // namespace vantage
