// Hot paths of the time-and-state module: what a server pays per entity per tick to keep
// rewind history and answer a lag-compensated query, and what a client pays per remote per
// frame to sample, per reconcile to replay, and per seat per tick to schedule inputs.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "vantage/correction_smoother.hpp"
#include "vantage/historical_state_buffer.hpp"
#include "vantage/input_schedule.hpp"
#include "vantage/predicted_entity.hpp"
#include "vantage/random.hpp"
#include "vantage/seat_table.hpp"
#include "vantage/snapshot_buffer.hpp"
#include "vantage/vec.hpp"

namespace vantage {
namespace {

constexpr double kTickMs = 1000.0 / 60.0;

// One server tick of recording: every entity's position into a full 64-record history.
void BM_HistoryRecordTick(benchmark::State& state) {
    const auto entities = static_cast<std::uint32_t>(state.range(0));
    HistoricalStateBuffer<std::uint32_t, Vec2> history(
        HistoryOptions{.max_records_per_entity = 64, .max_age_ms = 1000.0});
    XorShift rng(1);
    double now = 0.0;
    for (int warm = 0; warm < 64; ++warm, now += kTickMs) {
        for (std::uint32_t id = 0; id < entities; ++id) history.record_state(id, now, {rng.unit(), rng.unit()});
    }
    for (auto _ : state) {
        for (std::uint32_t id = 0; id < entities; ++id) history.record_state(id, now, {static_cast<float>(id), 1.0f});
        now += kTickMs;
    }
    state.SetItemsProcessed(state.iterations() * entities);
}
BENCHMARK(BM_HistoryRecordTick)->Arg(64)->Arg(1024);

// A lag-compensated lookup: a random entity at a random instant inside its 64-record history.
void BM_HistoryRewindQuery(benchmark::State& state) {
    constexpr std::uint32_t kEntities = 1024;
    HistoricalStateBuffer<std::uint32_t, Vec2> history(
        HistoryOptions{.max_records_per_entity = 64, .max_age_ms = 2000.0});
    XorShift rng(2);
    double now = 0.0;
    for (int t = 0; t < 64; ++t, now += kTickMs) {
        for (std::uint32_t id = 0; id < kEntities; ++id) history.record_state(id, now, {rng.unit(), rng.unit()});
    }
    const double span = 63.0 * kTickMs;
    for (auto _ : state) {
        const auto id = static_cast<std::uint32_t>(rng.below(kEntities));
        const double t = span * static_cast<double>(rng.unit());
        benchmark::DoNotOptimize(history.get_interpolated_state(id, t));
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HistoryRewindQuery);

// One remote, one frame: sample a 32-snapshot buffer, interpolating (arg 0), or past the
// newest with a second-order fit (arg 1).
void BM_SnapshotSample(benchmark::State& state) {
    SnapshotBuffer<Vec2> buffer(32);
    for (int i = 0; i < 32; ++i) buffer.add_snapshot(i * 50.0, {static_cast<float>(i), static_cast<float>(i * i)});
    const bool extrapolate = state.range(0) == 1;
    const ExtrapolationOptions options{.max_extrapolation_ms = 500.0, .second_order = true};
    XorShift rng(3);
    for (auto _ : state) {
        const double u = static_cast<double>(rng.unit());
        if (extrapolate) {
            benchmark::DoNotOptimize(buffer.sample(31 * 50.0 + 200.0 * u, options));
        } else {
            benchmark::DoNotOptimize(buffer.sample(31 * 50.0 * u));
        }
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SnapshotSample)->Arg(0)->Arg(1);

// Accepting a snapshot into a full buffer (the per-arrival cost).
void BM_SnapshotAdd(benchmark::State& state) {
    SnapshotBuffer<Vec2> buffer(32);
    double t = 0.0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(buffer.add_snapshot(t, {1.0f, 2.0f}));
        t += 50.0;
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SnapshotAdd);

struct Mover {
    Vec2 p;
    Vec2 v;
};
void step_mover(Mover& m, const Vec2& dir) {
    m.v = (m.v + dir * 0.5f) * 0.9f;
    m.p += m.v * 0.016f;
}

// One reconcile with `pending` inputs to replay (a round trip of 60 Hz input is ~12-20).
void BM_Reconcile(benchmark::State& state) {
    const auto pending = static_cast<int>(state.range(0));
    PredictedEntity<Mover, Vec2> entity(Mover{}, PredictionOptions{.max_pending_inputs = 256});
    for (int i = 0; i < pending; ++i) entity.apply_input({1.0f, 0.0f}, step_mover);
    for (auto _ : state) {
        // Acknowledge one and send one: the pending count stays level.
        entity.apply_input({1.0f, 0.5f}, step_mover);
        benchmark::DoNotOptimize(entity.reconcile(entity.authoritative(), entity.acked_seq() + 1, step_mover));
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Reconcile)->Arg(16)->Arg(64);

// One server tick for `seats` seats: each submits an input 3 ticks ahead and executes what is due.
void BM_InputScheduleTick(benchmark::State& state) {
    const auto seats = static_cast<std::size_t>(state.range(0));
    std::vector<InputSchedule<Vec2>> schedules(seats);
    Tick tick = 0;
    for (auto _ : state) {
        for (auto& s : schedules) {
            s.submit(tick + 3, {1.0f, 0.0f}, tick);
            benchmark::DoNotOptimize(s.execute_due(tick));
        }
        ++tick;
    }
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(seats));
}
BENCHMARK(BM_InputScheduleTick)->Arg(64);

// A join and a leave on a table of `capacity` seats kept half full.
void BM_SeatChurn(benchmark::State& state) {
    const auto capacity = static_cast<std::uint32_t>(state.range(0));
    SeatTable<std::uint64_t> table(capacity);
    for (std::uint64_t k = 0; k < capacity / 2; ++k) table.seat(k);
    std::uint64_t next = capacity / 2;
    std::uint64_t oldest = 0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(table.seat(next++));
        table.unseat(oldest++);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SeatChurn)->Arg(64)->Arg(256);

// One frame of correction smoothing for one entity.
void BM_CorrectionSmootherFrame(benchmark::State& state) {
    CorrectionSmoother<Vec2> smoother;
    Vec2 logical{};
    int frame = 0;
    for (auto _ : state) {
        if (++frame % 3 == 0) smoother.add_correction(logical, logical + Vec2{-6.0f, 1.0f});
        smoother.advance(kTickMs);
        benchmark::DoNotOptimize(smoother.render(logical));
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CorrectionSmootherFrame);

}  // namespace
}  // namespace vantage
