// Relevance benchmarks: the proximity chapter's comparisons reproduced on this machine, and
// the cross-link against the grid under churn. Results and the machine are recorded in
// core/docs/relevance.md. Every pair of contenders answers the same question; where a
// count can be compared it is checked, and a mismatch fails the benchmark.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../core/relevance_scenarios.hpp"
#include "vantage/cross_link.hpp"
#include "vantage/grid_quantizer.hpp"
#include "vantage/proximity.hpp"
#include "vantage/spatial_grid.hpp"
#include "vantage/visibility_set.hpp"

namespace vantage {
namespace {

using scenario::Layout;

// A square world holding n points at a given mean spacing (constant density as n grows).
scenario::World world_with_spacing(std::size_t n, float spacing, float cell) {
    return {{0.0f, 0.0f}, std::sqrt(static_cast<float>(n)) * spacing, cell};
}

SpatialGridOptions grid_options(const scenario::World& w) {
    return {.origin = w.origin, .extent = {w.extent, w.extent}, .cell_size = w.cell_size};
}

std::vector<Vec2> uniform_points(const scenario::World& w, std::size_t n, std::uint64_t seed) {
    XorShift rng(seed);
    return scenario::make_points(Layout::Uniform, w, n, rng);
}

// Ordered neighbour pairs through the grid: each point's query, minus itself.
std::uint64_t grid_pair_count(const SpatialGrid& grid, std::span<const Vec2> queries, float r) {
    std::uint64_t total = 0;
    for (const Vec2 p : queries) {
        std::uint64_t found = 0;
        grid.for_each_in_radius(p, r, [&found](std::uint32_t, Vec2) { ++found; });
        total += found - 1;
    }
    return total;
}

// ---------------------------------------------------------------------------------------
// 1. The all-pairs wall at N = 20,000 against the dense bin (build + every point's query).

constexpr std::size_t kWallN = 20000;
constexpr float kWallRadius = 10.0f;
const scenario::World kWallWorld = world_with_spacing(kWallN, 10.0f, kWallRadius);

std::uint64_t wall_reference_pairs() {
    static const std::uint64_t pairs = brute_force_count_pairs(uniform_points(kWallWorld, kWallN, 1), kWallRadius);
    return pairs;
}

void BM_AllPairs20k(benchmark::State& state) {
    const std::vector<Vec2> points = uniform_points(kWallWorld, kWallN, 1);
    std::uint64_t pairs = 0;
    for (auto _ : state) {
        pairs = brute_force_count_pairs(points, kWallRadius);
        benchmark::DoNotOptimize(pairs);
    }
    if (pairs != wall_reference_pairs()) state.SkipWithError("all-pairs count changed between runs");
    state.counters["pairs"] = static_cast<double>(pairs);
}
BENCHMARK(BM_AllPairs20k)->Unit(benchmark::kMillisecond);

void BM_DenseBin20k(benchmark::State& state) {
    const std::vector<Vec2> points = uniform_points(kWallWorld, kWallN, 1);
    SpatialGrid grid(grid_options(kWallWorld));
    std::uint64_t pairs = 0;
    for (auto _ : state) {
        grid.build(points);
        pairs = grid_pair_count(grid, points, kWallRadius);
        benchmark::DoNotOptimize(pairs);
    }
    if (pairs != wall_reference_pairs()) state.SkipWithError("dense bin and all-pairs counts differ");
    state.counters["pairs"] = static_cast<double>(pairs);
}
BENCHMARK(BM_DenseBin20k)->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------------------------------
// 2. N = 1,000,000: the dense bin against a bolt-on hash grid, build and query separately.
// Both use cells of side r, so a query reads the 3 x 3 block around the point's cell.

constexpr std::size_t kMillion = 1000000;
constexpr float kMillionRadius = 10.0f;
const scenario::World kMillionWorld = world_with_spacing(kMillion, 5.0f, kMillionRadius);

const std::vector<Vec2>& million_points() {
    static const std::vector<Vec2> points = uniform_points(kMillionWorld, kMillion, 2);
    return points;
}

// The chapter's hash grid: cell key x << 16 | y, one heap vector per occupied cell.
using HashGrid = std::unordered_map<std::uint32_t, std::vector<std::uint32_t>>;

std::uint32_t hash_cell_key(std::int32_t x, std::int32_t y) {
    return (static_cast<std::uint32_t>(x) & 0xffffu) << 16 | (static_cast<std::uint32_t>(y) & 0xffffu);
}

std::int32_t hash_cell(float v) {
    return static_cast<std::int32_t>(std::floor(v / kMillionRadius));
}

HashGrid build_hash_grid(const std::vector<Vec2>& points) {
    HashGrid grid;
    for (std::size_t i = 0; i < points.size(); ++i) {
        grid[hash_cell_key(hash_cell(points[i].x), hash_cell(points[i].y))].push_back(static_cast<std::uint32_t>(i));
    }
    return grid;
}

std::uint64_t hash_pair_count(const HashGrid& grid, const std::vector<Vec2>& points) {
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < points.size(); ++i) {
        const Vec2 p = points[i];
        const std::int32_t cx = hash_cell(p.x);
        const std::int32_t cy = hash_cell(p.y);
        for (std::int32_t dy = -1; dy <= 1; ++dy) {
            for (std::int32_t dx = -1; dx <= 1; ++dx) {
                const auto it = grid.find(hash_cell_key(cx + dx, cy + dy));
                if (it == grid.end()) continue;
                for (const std::uint32_t j : it->second) {
                    if (j != i && within_radius(points[j], p, kMillionRadius)) ++total;
                }
            }
        }
    }
    return total;
}

std::uint64_t million_reference_pairs() {
    static const std::uint64_t pairs = hash_pair_count(build_hash_grid(million_points()), million_points());
    return pairs;
}

void BM_HashGridBuild1M(benchmark::State& state) {
    const std::vector<Vec2>& points = million_points();
    for (auto _ : state) {
        HashGrid grid = build_hash_grid(points);
        benchmark::DoNotOptimize(grid.size());
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * points.size()));
}
BENCHMARK(BM_HashGridBuild1M)->Unit(benchmark::kMillisecond);

void BM_DenseBinBuild1M(benchmark::State& state) {
    const std::vector<Vec2>& points = million_points();
    SpatialGrid grid(grid_options(kMillionWorld));
    for (auto _ : state) {
        const SpatialGridBuild built = grid.build(points);
        benchmark::DoNotOptimize(built.binned);
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * points.size()));
}
BENCHMARK(BM_DenseBinBuild1M)->Unit(benchmark::kMillisecond);

void BM_HashGridQuery1M(benchmark::State& state) {
    const std::vector<Vec2>& points = million_points();
    const HashGrid grid = build_hash_grid(points);
    std::uint64_t pairs = 0;
    for (auto _ : state) {
        pairs = hash_pair_count(grid, points);
        benchmark::DoNotOptimize(pairs);
    }
    state.counters["pairs"] = static_cast<double>(pairs);
}
BENCHMARK(BM_HashGridQuery1M)->Unit(benchmark::kMillisecond);

// Queries issued in the points' own (random) order, as the chapter's loop does.
void BM_DenseBinQuery1M(benchmark::State& state) {
    const std::vector<Vec2>& points = million_points();
    SpatialGrid grid(grid_options(kMillionWorld));
    grid.build(points);
    std::uint64_t pairs = 0;
    for (auto _ : state) {
        pairs = grid_pair_count(grid, points, kMillionRadius);
        benchmark::DoNotOptimize(pairs);
    }
    if (pairs != million_reference_pairs()) state.SkipWithError("dense bin and hash grid counts differ");
    state.counters["pairs"] = static_cast<double>(pairs);
}
BENCHMARK(BM_DenseBinQuery1M)->Unit(benchmark::kMillisecond);

// The same queries issued in cell order (walking positions_by_cell): neighbouring queries
// then read neighbouring memory. Same answer, different memory behaviour.
void BM_DenseBinQueryCellOrder1M(benchmark::State& state) {
    const std::vector<Vec2>& points = million_points();
    SpatialGrid grid(grid_options(kMillionWorld));
    grid.build(points);
    std::uint64_t pairs = 0;
    for (auto _ : state) {
        pairs = grid_pair_count(grid, grid.positions_by_cell(), kMillionRadius);
        benchmark::DoNotOptimize(pairs);
    }
    if (pairs != million_reference_pairs()) state.SkipWithError("dense bin and hash grid counts differ");
    state.counters["pairs"] = static_cast<double>(pairs);
}
BENCHMARK(BM_DenseBinQueryCellOrder1M)->Unit(benchmark::kMillisecond);

void BM_HashGridEndToEnd1M(benchmark::State& state) {
    const std::vector<Vec2>& points = million_points();
    for (auto _ : state) {
        const HashGrid grid = build_hash_grid(points);
        benchmark::DoNotOptimize(hash_pair_count(grid, points));
    }
}
BENCHMARK(BM_HashGridEndToEnd1M)->Unit(benchmark::kMillisecond);

void BM_DenseBinEndToEnd1M(benchmark::State& state) {
    const std::vector<Vec2>& points = million_points();
    SpatialGrid grid(grid_options(kMillionWorld));
    for (auto _ : state) {
        grid.build(points);
        benchmark::DoNotOptimize(grid_pair_count(grid, points, kMillionRadius));
    }
}
BENCHMARK(BM_DenseBinEndToEnd1M)->Unit(benchmark::kMillisecond);

void BM_DenseBinEndToEndCellOrder1M(benchmark::State& state) {
    const std::vector<Vec2>& points = million_points();
    SpatialGrid grid(grid_options(kMillionWorld));
    for (auto _ : state) {
        grid.build(points);
        benchmark::DoNotOptimize(grid_pair_count(grid, grid.positions_by_cell(), kMillionRadius));
    }
}
BENCHMARK(BM_DenseBinEndToEndCellOrder1M)->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------------------------------
// 3. The density wall: a fixed world filling up (100k, 300k, 1M creatures). As many
// seekers, at their own random places, each ask for the nearest creature within one cell:
// exact reads every occupant of the 3 x 3 block, the representative reads one per cell.

const scenario::World kWallFixedWorld{{0.0f, 0.0f}, 2000.0f, 10.0f};

// The creatures binned once, and as many seekers at their own random places.
struct DensityWall {
    std::vector<Vec2> seekers;
    SpatialGrid grid{grid_options(kWallFixedWorld)};
    float radius = kWallFixedWorld.cell_size;

    explicit DensityWall(std::size_t n) : seekers(uniform_points(kWallFixedWorld, n, 33)) {
        grid.build(uniform_points(kWallFixedWorld, n, 3));
    }
    // Sums the answers' distances over every seeker (keeps the work observable).
    template <class Query>
    double sweep(Query query) const {
        double sum = 0.0;
        for (const Vec2 p : seekers) {
            if (const auto hit = query(grid, p, radius)) sum += hit->distance;
        }
        return sum;
    }
};

void set_per_query(benchmark::State& state, std::size_t queries) {
    state.counters["per_query"] = benchmark::Counter(
        static_cast<double>(queries), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_DensityWallExact(benchmark::State& state) {
    const DensityWall wall(static_cast<std::size_t>(state.range(0)));
    const auto exact = [](const SpatialGrid& g, Vec2 p, float r) { return g.nearest(p, r); };
    for (auto _ : state) benchmark::DoNotOptimize(wall.sweep(exact));
    set_per_query(state, wall.seekers.size());
}
BENCHMARK(BM_DensityWallExact)->Arg(100000)->Arg(300000)->Arg(1000000)->Unit(benchmark::kMillisecond);

void BM_DensityWallRepresentative(benchmark::State& state) {
    const DensityWall wall(static_cast<std::size_t>(state.range(0)));
    const auto representative = [](const SpatialGrid& g, Vec2 p, float r) { return g.nearest_representative(p, r); };
    for (auto _ : state) benchmark::DoNotOptimize(wall.sweep(representative));
    set_per_query(state, wall.seekers.size());
    // How different the answers are (measured once, outside the timing): the share of
    // queries whose representative is not the exact nearest, and the worst extra distance
    // in cell diagonals (bounded by 1).
    std::size_t differ = 0;
    std::size_t sampled = 0;
    double worst = 0.0;
    const double diagonal = static_cast<double>(wall.radius) * std::sqrt(2.0);
    for (std::size_t i = 0; i < wall.seekers.size(); i += 97) {
        const auto exact = wall.grid.nearest(wall.seekers[i], wall.radius);
        const auto rep = wall.grid.nearest_representative(wall.seekers[i], wall.radius);
        ++sampled;
        if (!exact || !rep) continue;
        differ += rep->id != exact->id ? 1 : 0;
        worst = std::max(worst, static_cast<double>(rep->distance - exact->distance) / diagonal);
    }
    state.counters["differ_share"] = static_cast<double>(differ) / static_cast<double>(sampled);
    state.counters["worst_excess_diagonals"] = worst;
    if (worst > 1.0001) state.SkipWithError("representative beyond one cell diagonal of the exact nearest");
}
BENCHMARK(BM_DensityWallRepresentative)->Arg(100000)->Arg(300000)->Arg(1000000)->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------------------------------
// 4. Cross-link against grid under churn: every entity moves a little each tick (constant
// density: mean spacing 10, AOI radius 30), then a batch of radius queries. The grid's
// "move" is its rebuild. Arg 0 = N; the clustered collapse puts N entities inside a disc
// of radius 2 that everyone's AOI covers.

constexpr float kChurnRadius = 30.0f;
constexpr float kChurnSpacing = 10.0f;
constexpr std::size_t kChurnQueries = 1000;

struct Churn {
    scenario::World world;
    bool collapsed = false;
    Vec2 lo, hi;  // the box everyone bounces inside
    std::vector<Vec2> positions;
    std::vector<Vec2> velocities;  // world units per tick

    // moving_percent of the entities (the lowest ids) move; the rest stand still.
    Churn(std::size_t n, bool collapse, std::uint64_t seed, std::int64_t moving_percent = 100)
        : world(world_with_spacing(n, kChurnSpacing, kChurnRadius)), collapsed(collapse) {
        XorShift rng(seed);
        positions = scenario::make_points(collapsed ? Layout::OneSpot : Layout::Uniform, world, n, rng);
        const Vec2 spot = positions.empty() ? Vec2{} : positions[0];
        lo = collapsed ? spot - Vec2{1.4f, 1.4f} : world.origin;
        hi = collapsed ? spot + Vec2{1.4f, 1.4f} : world.origin + Vec2{world.extent, world.extent};
        for (Vec2& p : positions) {
            if (collapsed) p += Vec2{rng.range(-1.4f, 1.4f), rng.range(-1.4f, 1.4f)};
            velocities.push_back(Vec2{rng.range(-1.0f, 1.0f), rng.range(-1.0f, 1.0f)} * (collapsed ? 0.05f : 1.0f));
        }
        const auto movers =
            static_cast<std::size_t>(static_cast<double>(n) * static_cast<double>(moving_percent) / 100.0);
        for (std::size_t i = movers; i < n; ++i) velocities[i] = Vec2{};
    }
    // One tick of motion, bouncing off the box.
    void step() {
        for (std::size_t i = 0; i < positions.size(); ++i) {
            Vec2& p = positions[i];
            Vec2& v = velocities[i];
            p += v;
            if (p.x < lo.x || p.x > hi.x) {
                v.x = -v.x;
                p.x = std::clamp(p.x, lo.x, hi.x);
            }
            if (p.y < lo.y || p.y > hi.y) {
                v.y = -v.y;
                p.y = std::clamp(p.y, lo.y, hi.y);
            }
        }
    }
};

// Fills a cross-list without its O(n) add: entities go in Morton order of their cell, each
// walked in from the one before it, so every insertion is a short walk.
void fill_cross_link(CrossLink& cl, const scenario::World& world, const std::vector<Vec2>& positions) {
    const GridQuantizer q(world.origin, world.cell_size);
    std::vector<std::pair<std::uint64_t, std::uint32_t>> order;
    for (std::uint32_t i = 0; i < positions.size(); ++i) {
        order.emplace_back(GridQuantizer::morton_key(q.cell_of(positions[i]).value_or(CellCoord{})), i);
    }
    std::sort(order.begin(), order.end());
    for (std::size_t k = 0; k < order.size(); ++k) {
        const std::uint32_t id = order[k].second;
        if (k == 0)
            cl.add(id, positions[id]);
        else
            cl.add_near(id, positions[id], order[k - 1].second);
    }
}

void BM_ChurnCrossLinkMoves(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    Churn churn(n, state.range(1) != 0, 4);
    CrossLink cl({.id_limit = static_cast<std::uint32_t>(n)});
    fill_cross_link(cl, churn.world, churn.positions);
    for (auto _ : state) {
        state.PauseTiming();
        churn.step();
        state.ResumeTiming();
        for (std::uint32_t i = 0; i < n; ++i) cl.move(i, churn.positions[i]);
    }
    state.counters["moves_per_s"] =
        benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate);
}

void BM_ChurnGridRebuild(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    Churn churn(n, state.range(1) != 0, 4);
    SpatialGrid grid(grid_options(churn.world));
    for (auto _ : state) {
        state.PauseTiming();
        churn.step();
        state.ResumeTiming();
        grid.build(churn.positions);
    }
    state.counters["moves_per_s"] =
        benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate);
}

void BM_ChurnCrossLinkQueries(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    Churn churn(n, state.range(1) != 0, 4);
    CrossLink cl({.id_limit = static_cast<std::uint32_t>(n)});
    fill_cross_link(cl, churn.world, churn.positions);
    const std::size_t q = std::min(n, kChurnQueries);
    std::vector<std::uint32_t> out;
    std::uint64_t found = 0;
    for (auto _ : state) {
        found = 0;
        for (std::size_t k = 0; k < q; ++k) {
            out.clear();
            cl.neighbors_in_radius(static_cast<std::uint32_t>(k * (n / q)), kChurnRadius, out);
            found += out.size();
        }
        benchmark::DoNotOptimize(found);
    }
    state.counters["queries_per_s"] =
        benchmark::Counter(static_cast<double>(q), benchmark::Counter::kIsIterationInvariantRate);
    state.counters["mean_found"] = static_cast<double>(found) / static_cast<double>(q);
}

void BM_ChurnGridQueries(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    Churn churn(n, state.range(1) != 0, 4);
    SpatialGrid grid(grid_options(churn.world));
    grid.build(churn.positions);
    const std::size_t q = std::min(n, kChurnQueries);
    std::vector<std::uint32_t> out;
    std::uint64_t found = 0;
    for (auto _ : state) {
        found = 0;
        for (std::size_t k = 0; k < q; ++k) {
            out.clear();
            grid.query_radius(churn.positions[k * (n / q)], kChurnRadius, out);
            found += out.size() - 1;  // the grid's answer includes the entity itself
        }
        benchmark::DoNotOptimize(found);
    }
    state.counters["queries_per_s"] =
        benchmark::Counter(static_cast<double>(q), benchmark::Counter::kIsIterationInvariantRate);
    state.counters["mean_found"] = static_cast<double>(found) / static_cast<double>(q);
}

// Views under churn, the horde's question: 64 watchers (players) each keep the set of
// entities within 30 (leaving beyond 35), and every tick everyone moves. The cross-list
// maintains the views incrementally and queues enter/leave events; the grid rebuilds, and
// each watcher re-queries and diffs a VisibilitySet with the same hysteresis rule.
constexpr std::size_t kWatchers = 64;
constexpr float kWatchEnter = 30.0f;
constexpr float kWatchMargin = 5.0f;

void BM_ChurnCrossLinkWatchers(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    Churn churn(n, state.range(1) != 0, 4, state.range(2));
    const auto movers = static_cast<std::uint32_t>(n * static_cast<std::size_t>(state.range(2)) / 100);
    CrossLink cl({.id_limit = static_cast<std::uint32_t>(n)});
    fill_cross_link(cl, churn.world, churn.positions);
    for (std::size_t k = 0; k < kWatchers; ++k)
        cl.watch(static_cast<std::uint32_t>(k * (n / kWatchers)), kWatchEnter, kWatchMargin);
    std::size_t events = 0;
    for (auto _ : state) {
        state.PauseTiming();
        churn.step();
        cl.clear_events();
        state.ResumeTiming();
        for (std::uint32_t i = 0; i < movers; ++i) cl.move(i, churn.positions[i]);  // only movers report
        events += cl.events().size();
    }
    state.counters["ticks_per_s"] = benchmark::Counter(1.0, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["events_per_tick"] = static_cast<double>(events) / static_cast<double>(state.iterations());
}

void BM_ChurnGridViews(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    Churn churn(n, state.range(1) != 0, 4, state.range(2));
    SpatialGrid grid(grid_options(churn.world));
    std::vector<VisibilitySet> current(kWatchers), previous(kWatchers);
    std::vector<std::uint32_t> entered, left;
    const float leave = kWatchEnter + kWatchMargin;
    std::size_t events = 0;
    bool warm = false;  // the first pass fills the views (the cross-list's watch() does that)
    for (auto _ : state) {
        if (warm) {
            state.PauseTiming();
            churn.step();
            state.ResumeTiming();
        }
        grid.build(churn.positions);
        for (std::size_t k = 0; k < kWatchers; ++k) {
            const auto w = static_cast<std::uint32_t>(k * (n / kWatchers));
            const Vec2 eye = churn.positions[w];
            VisibilitySet& now = current[k];
            VisibilitySet& before = previous[k];
            now.swap(before);
            now.clear();
            grid.for_each_in_radius(eye, leave, [&](std::uint32_t id, Vec2 p) {
                if (id != w && (before.contains(id) || within_radius(p, eye, kWatchEnter))) now.insert(id);
            });
            entered.clear();
            left.clear();
            now.diff(before, entered, left);
            if (warm) events += entered.size() + left.size();
        }
        warm = true;
    }
    state.counters["ticks_per_s"] = benchmark::Counter(1.0, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["events_per_tick"] =
        static_cast<double>(events) / static_cast<double>(std::max<std::int64_t>(1, state.iterations() - 1));
}

void churn_args(benchmark::internal::Benchmark* b) {
    b->Args({1000, 0})->Args({10000, 0})->Args({100000, 0})->Args({10000, 1})->ArgNames({"n", "collapsed"});
    b->Unit(benchmark::kMillisecond);
}
BENCHMARK(BM_ChurnCrossLinkMoves)->Apply(churn_args);
BENCHMARK(BM_ChurnGridRebuild)->Apply(churn_args);
BENCHMARK(BM_ChurnCrossLinkQueries)->Apply(churn_args);
BENCHMARK(BM_ChurnGridQueries)->Apply(churn_args);
void watcher_args(benchmark::internal::Benchmark* b) {
    b->Args({1000, 0, 100})->Args({10000, 0, 100})->Args({100000, 0, 100})->Args({10000, 1, 100});
    b->Args({10000, 0, 1})->Args({100000, 0, 1})->ArgNames({"n", "collapsed", "moving_pct"});
    b->Unit(benchmark::kMillisecond);
}
BENCHMARK(BM_ChurnCrossLinkWatchers)->Apply(watcher_args);
BENCHMARK(BM_ChurnGridViews)->Apply(watcher_args);

}  // namespace
}  // namespace vantage
