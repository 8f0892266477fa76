// AggregateTree and GravityField: the hot steps of an aggregated field, per tick.
//
//   build:     one tree per tick over every point (build_in, fixed 3000-unit arena, reused
//              storage), 1k to 1M uniformly scattered points.
//   summarize: one walk per viewer at theta 0.3 / 0.5 / 1.0; counter `summaries` is the mean
//              output size, i.e. what one viewer is told.
//   field:     one client's tick in the black-hole setting (64 attractors, 2000 pellets):
//              exact field against build + walk + field from summaries at theta 0.3 to
//              1.2, walked from the client's hole (disc:0) or for its view disc (disc:1);
//              `rel_error_in_view` is the field error at the pellets within view.
//              `evals_per_tick` is pellets x sources; `evals_at_60Hz` is the reference
//              toolkit's "force evaluations per second" readout (7.6 M exact, 3.7 M at 0.5;
//              core/docs/background.md);
//              items_per_second is how many evaluations this machine actually performs.
//
// Results are recorded in core/docs/aggregate.md.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "vantage/aggregate_tree.hpp"
#include "vantage/gravity_field.hpp"
#include "vantage/random.hpp"

namespace vantage {
namespace {

constexpr Vec2 kArenaCenter{1500.0f, 1500.0f};
constexpr float kArenaSize = 3000.0f;
constexpr int kMaxDepth = 16;

std::vector<WeightedPoint> scatter(std::size_t n, std::uint64_t seed) {
    XorShift rng(seed);
    std::vector<WeightedPoint> points(n);
    for (WeightedPoint& p : points) {
        p = {rng.range(0.0f, kArenaSize), rng.range(0.0f, kArenaSize), rng.range(1.0f, 10.0f)};
    }
    return points;
}

void BM_AggregateBuild(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const auto points = scatter(n, 0xB0117);
    AggregateTree tree;
    tree.build_in(points, kArenaCenter, kArenaSize, kMaxDepth);  // warm: storage is reused per tick
    for (auto _ : state) {
        tree.build_in(points, kArenaCenter, kArenaSize, kMaxDepth);
        benchmark::DoNotOptimize(tree.node_count());
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
    state.SetComplexityN(state.range(0));
    state.counters["nodes_per_point"] = static_cast<double>(tree.node_count()) / static_cast<double>(n);
    state.counters["MiB"] = static_cast<double>(tree.capacity_bytes()) / (1024.0 * 1024.0);
}
BENCHMARK(BM_AggregateBuild)
    ->RangeMultiplier(10)
    ->Range(1000, 1000000)
    ->Unit(benchmark::kMicrosecond)
    ->Complexity(benchmark::oNLogN);

void BM_AggregateSummarize(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const float theta = static_cast<float>(state.range(1)) / 10.0f;
    const auto points = scatter(n, 0x5A11);
    AggregateTree tree;
    tree.build_in(points, kArenaCenter, kArenaSize, kMaxDepth);
    // Viewers stand among the points, as players do; cycle through a fixed set.
    XorShift rng(0x71E3);
    std::vector<Vec2> viewers(64);
    for (Vec2& v : viewers) v = {rng.range(0.0f, kArenaSize), rng.range(0.0f, kArenaSize)};
    std::vector<Summary> out;
    std::size_t next = 0;
    std::uint64_t emitted = 0;
    for (auto _ : state) {
        tree.summarize(viewers[next], theta, out);
        next = (next + 1) % viewers.size();
        emitted += out.size();
        benchmark::DoNotOptimize(out.data());
    }
    state.counters["summaries"] = static_cast<double>(emitted) / static_cast<double>(std::max<std::int64_t>(
                                                                     1, static_cast<std::int64_t>(state.iterations())));
}
BENCHMARK(BM_AggregateSummarize)
    ->ArgsProduct({{1000, 10000, 100000, 1000000}, {3, 5, 10}})
    ->ArgNames({"n", "theta_x10"})
    ->Unit(benchmark::kMicrosecond);

// The black-hole setting: 64 holes with game-like masses over the arena, 2000 pellets, the
// game's G and softening. Each iteration is one client's field for one tick.
struct BlackHoleTick {
    std::vector<WeightedPoint> holes;
    std::vector<Vec2> pellets;
    GravityField field{.strength = 90000.0f, .softening_sq = 120.0f};

    BlackHoleTick() {
        XorShift rng(0x81ACC0DE);
        for (int i = 0; i < 64; ++i)
            holes.push_back({rng.range(0.0f, kArenaSize), rng.range(0.0f, kArenaSize), rng.range(120.0f, 600.0f)});
        for (int i = 0; i < 2000; ++i) pellets.push_back({rng.range(0.0f, kArenaSize), rng.range(0.0f, kArenaSize)});
    }
};

void report_evaluations(benchmark::State& state, std::uint64_t evaluations) {
    const double per_tick = static_cast<double>(evaluations) / static_cast<double>(state.iterations());
    state.counters["evals_per_tick"] = per_tick;
    state.counters["evals_at_60Hz"] = per_tick * 60.0;
    state.SetItemsProcessed(static_cast<std::int64_t>(evaluations));
}

// The exact field at every pellet from the first `sources` holes: one at() call per pellet,
// and the same through at_each() (one call for all of them; the per-call cost is what
// differs, most of all in wasm, with few sources per call).
void BM_FieldExact(benchmark::State& state) {
    const BlackHoleTick tick;
    const std::span<const WeightedPoint> sources =
        std::span<const WeightedPoint>(tick.holes).first(static_cast<std::size_t>(state.range(0)));
    std::uint64_t evaluations = 0;
    for (auto _ : state) {
        Vec2 sum{};
        for (const Vec2 p : tick.pellets) sum += tick.field.at(p, sources);
        benchmark::DoNotOptimize(sum);
        evaluations += tick.pellets.size() * sources.size();
    }
    report_evaluations(state, evaluations);
}
BENCHMARK(BM_FieldExact)->ArgName("sources")->Arg(8)->Arg(64)->Unit(benchmark::kMicrosecond);

void BM_FieldExactEach(benchmark::State& state) {
    const BlackHoleTick tick;
    const std::span<const WeightedPoint> sources =
        std::span<const WeightedPoint>(tick.holes).first(static_cast<std::size_t>(state.range(0)));
    std::vector<Vec2> field(tick.pellets.size());
    std::uint64_t evaluations = 0;
    for (auto _ : state) {
        tick.field.at_each(tick.pellets, sources, field);
        benchmark::DoNotOptimize(field.data());
        evaluations += tick.pellets.size() * sources.size();
    }
    report_evaluations(state, evaluations);
}
BENCHMARK(BM_FieldExactEach)->ArgName("sources")->Arg(8)->Arg(64)->Unit(benchmark::kMicrosecond);

// Build (once per send round, shared by every client: charged here to one client, the worst
// case), walk from the client's hole, then the field from the summaries. disc:0 is the
// seed's point walk; disc:1 walks for the whole view disc (summarize_around, radius 620).
constexpr float kViewRadius = 620.0f;

void BM_FieldAggregated(benchmark::State& state) {
    const float theta = static_cast<float>(state.range(0)) / 10.0f;
    const float radius = state.range(1) != 0 ? kViewRadius : 0.0f;
    const BlackHoleTick tick;
    AggregateTree tree;
    std::vector<Summary> summaries;
    std::uint64_t evaluations = 0;
    std::size_t viewer = 0;
    double relative_error = 0.0;
    for (auto _ : state) {
        tree.build_in(tick.holes, kArenaCenter, kArenaSize, 10);
        tree.summarize_around(tick.holes[viewer].position(), radius, theta, summaries);
        viewer = (viewer + 1) % tick.holes.size();
        const std::span<const Summary> sources(summaries);
        Vec2 sum{};
        for (const Vec2 p : tick.pellets) sum += tick.field.at(p, sources);
        benchmark::DoNotOptimize(sum);
        evaluations += tick.pellets.size() * summaries.size();
    }
    report_evaluations(state, evaluations);
    // Accuracy beside the cost, outside the timed loop: field error at the pellets within
    // the game's view radius (620) of each hole, walked from that hole.
    std::uint64_t probes_seen = 0;
    for (const WeightedPoint& hole : tick.holes) {
        std::vector<Vec2> near;
        for (const Vec2 p : tick.pellets) {
            if (distance(p, hole.position()) <= kViewRadius) near.push_back(p);
        }
        tree.summarize_around(hole.position(), radius, theta, summaries);
        const FieldError e = measure_field_error(tick.field, tick.holes, summaries, near);
        relative_error += e.relative_error * static_cast<double>(near.size());
        probes_seen += near.size();
    }
    state.counters["rel_error_in_view"] = relative_error / static_cast<double>(std::max<std::uint64_t>(1, probes_seen));
}
BENCHMARK(BM_FieldAggregated)
    ->ArgsProduct({{3, 5, 8, 10, 12}, {0, 1}})
    ->ArgNames({"theta_x10", "disc"})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace vantage
