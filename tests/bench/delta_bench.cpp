// Delta streaming: the loss table in core/docs/delta.md, the oracle sweep over thousands of
// seeds, and the hot steps (plan, encode, decode, apply, link). Run with e.g.
//   ./build/native-release/tests/vantage_bench --benchmark_filter=Delta
// The scenario is tests/support/delta_scenario.hpp, the same one the oracle test asserts on.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "../support/delta_scenario.hpp"

namespace vantage {
namespace {

using scenario::ChurnWorld;
using scenario::DeltaLane;

// About 1,000 relevant of 3,000 churning entities, at horde's defaults: 16 Hz entity frames,
// 30 ms one-way latency with 20 ms jitter, history 24 with flow control (3000, 1000) ms.
// Loss applies to both directions. 3 s of warm-up, then 30 s measured.
void BM_DeltaLossTable(benchmark::State& state) {
    const float loss = static_cast<float>(state.range(0)) / 100.0f;
    // 0: Naive, 1: Acked with the contiguous frontier, 2: Acked with AnyReceived.
    const auto policy = state.range(1) == 0 ? RecoveryPolicy::Naive : RecoveryPolicy::Acked;
    const auto frontier = state.range(1) == 2 ? AckFrontier::AnyReceived : AckFrontier::Contiguous;
    constexpr double kFrameMs = 62.5;
    constexpr int kWarmFrames = 48;
    constexpr int kMeasuredFrames = 480;
    double bytes_down = 0, bytes_up = 0, phantoms = 0, missing = 0, held_sum = 0, relevant_sum = 0;
    double mismatches = 0, rebuilds = 0, entered = 0, largest = 0, spread = 0, resent = 0, failures = 0;
    for (auto _ : state) {
        ChurnWorld world({.seed = 7,
                          .entities = 3000,
                          .world_size = 2000.0f,
                          .relevant_fraction = 1.0f / 3.0f,
                          .deaths_per_sec = 0.2f,
                          .speed = 60.0f});
        // Positions stay within the 2,000-unit world (plus a step's overshoot before a bounce).
        DeltaLane lane({.stream = {.policy = policy,
                                   .frontier = frontier,
                                   .history = 24,
                                   .stalled_after_ms = 3000.0,
                                   .keepalive_every_ms = 1000.0,
                                   .position_max_abs = 2000.0f},
                        .down = {.seed = 11, .latency_ms = 30.0, .jitter_ms = 20.0, .loss = loss},
                        .up = {.seed = 12, .latency_ms = 30.0, .jitter_ms = 20.0, .loss = loss}});
        std::vector<std::uint64_t> keys, held;
        std::uint64_t down0 = 0, up0 = 0, frames0 = 0, mismatches0 = 0, rebuilds0 = 0;
        for (int f = 0; f < kWarmFrames + kMeasuredFrames; ++f) {
            const double now = f * kFrameMs;
            if (f == kWarmFrames) {
                down0 = lane.bytes_down();
                up0 = lane.bytes_up();
                frames0 = lane.frames_sent();
                mismatches0 = lane.mirror().counters().divergences;
                rebuilds0 = lane.baseline().counters().full_rebuilds;
            }
            world.step(static_cast<float>(kFrameMs / 1000.0));
            world.relevant(keys);
            lane.server_send(now, keys, [&](std::uint64_t k) { return world.position(k); });
            lane.client_receive(now);
            if (f < kWarmFrames) continue;
            lane.held(held);
            const scenario::Stray s = scenario::count_stray(world, keys, held);
            phantoms += static_cast<double>(s.phantoms);
            missing += static_cast<double>(s.missing);
            held_sum += static_cast<double>(held.size());
            relevant_sum += static_cast<double>(keys.size());
        }
        const double frames = static_cast<double>(lane.frames_sent() - frames0);
        bytes_down += static_cast<double>(lane.bytes_down() - down0) / frames;
        bytes_up += static_cast<double>(lane.bytes_up() - up0) / frames;
        mismatches += static_cast<double>(lane.mirror().counters().divergences - mismatches0);
        rebuilds += static_cast<double>(lane.baseline().counters().full_rebuilds - rebuilds0);
        entered += frames;
        largest = std::max(largest, static_cast<double>(lane.largest_frame()));
        spread += static_cast<double>(lane.baseline().counters().spread_frames);
        resent +=
            static_cast<double>(lane.baseline().counters().resent_lost + lane.baseline().counters().resent_timeout);
        failures += static_cast<double>(lane.encode_failures());
    }
    const double runs = static_cast<double>(state.iterations());
    const double samples = runs * kMeasuredFrames;
    state.counters["bytes_per_frame"] = bytes_down / runs;
    state.counters["ack_bytes_per_frame"] = bytes_up / runs;
    state.counters["KiB_per_s"] = bytes_down / runs * (1000.0 / kFrameMs) / 1024.0;
    state.counters["phantoms"] = phantoms / samples;
    state.counters["missing"] = missing / samples;
    state.counters["held"] = held_sum / samples;
    state.counters["relevant"] = relevant_sum / samples;
    state.counters["digest_mismatches"] = mismatches / runs;
    state.counters["full_rebuilds"] = rebuilds / runs;
    state.counters["frames"] = entered / runs;
    state.counters["largest_frame"] = largest;
    state.counters["spread_frames"] = spread / runs;
    state.counters["resent"] = resent / runs;
    state.counters["encode_failures"] = failures / runs;
}
BENCHMARK(BM_DeltaLossTable)
    ->ArgsProduct({{0, 2, 5, 10, 25, 50}, {0, 1, 2}})
    ->ArgNames({"loss_pct", "policy"})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

// The oracle property over thousands of seeds and both frontiers (the unit test runs 200
// each): counts violations, which must be zero, and the worst number of frames to converge
// after the heal; a quarter of the seeds also run Naive to count how often it diverges.
// The second argument is the frame limit and the links' MTU: 1,200 (the default, which this
// world's frames never reach) and 64, which spreads the cold start and large diffs over frames.
void BM_DeltaOracleSweep(benchmark::State& state) {
    const auto seeds = static_cast<std::uint64_t>(state.range(0));
    const auto max_frame_bytes = static_cast<std::size_t>(state.range(1));
    double violations = 0, worst = 0, naive_diverged = 0, naive_lossy = 0, largest = 0, spread = 0;
    for (auto _ : state) {
        for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
            for (const AckFrontier frontier : {AckFrontier::Contiguous, AckFrontier::AnyReceived}) {
                const scenario::OracleOutcome o =
                    scenario::run_oracle(seed, RecoveryPolicy::Acked, true, frontier, max_frame_bytes);
                if (!o.converged || o.end_phantoms > 0 || o.lagging || o.stalled || o.decode_errors > 0 ||
                    o.largest_frame > max_frame_bytes || o.encode_failures > 0 || o.oversize_packets > 0)
                    violations += 1;
                worst = std::max(worst, static_cast<double>(o.converged_after));
                largest = std::max(largest, static_cast<double>(o.largest_frame));
                spread += static_cast<double>(o.spread_frames);
            }
            if (seed <= seeds / 4 && scenario::draw_oracle_conditions(seed).link.loss >= 0.2f) {
                naive_lossy += 1;
                if (!scenario::run_oracle(seed, RecoveryPolicy::Naive, false).converged) naive_diverged += 1;
            }
        }
    }
    state.counters["seeds"] = static_cast<double>(seeds);
    state.counters["violations"] = violations;
    state.counters["worst_frames_to_converge"] = worst;
    state.counters["naive_lossy_seeds"] = naive_lossy;
    state.counters["naive_diverged"] = naive_diverged;
    state.counters["largest_frame"] = largest;
    state.counters["spread_frames"] = spread;
}
BENCHMARK(BM_DeltaOracleSweep)
    ->Args({4000, 1200})
    ->Args({4000, 64})
    ->ArgNames({"seeds", "max_frame_bytes"})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

// --- hot steps ---------------------------------------------------------------------------------

// A steady subscriber: 1,000 relevant keys, ~25 changes per frame, acks two frames behind.
void BM_DeltaBaselinePlan(benchmark::State& state) {
    ChurnWorld world({.seed = 3, .entities = 3000, .deaths_per_sec = 0.2f});
    std::vector<std::vector<std::uint64_t>> frames(64);
    for (auto& f : frames) {
        world.step(0.0625f);
        world.relevant(f);
    }
    DeltaBaseline baseline;
    DeltaMirror<int> mirror;
    DeltaPlan plan;
    std::vector<DeltaPlan> in_flight(3);
    std::size_t i = 0;
    for (auto _ : state) {
        baseline.plan(frames[i % frames.size()], plan);
        in_flight[i % 3] = plan;
        if (i >= 2) {
            mirror.apply(in_flight[(i - 2) % 3], [](std::size_t, SlotKey) { return 0; });
            baseline.observe_ack(*mirror.ack_report(), 0.0);
        }
        ++i;
    }
    state.counters["keys"] = static_cast<double>(frames[0].size());
}
BENCHMARK(BM_DeltaBaselinePlan);

// The same steady subscriber through the library's pair: DeltaStream::frame (plan, positions,
// encode) and DeltaReceiver::apply (decode, apply, events) per frame, acks two frames behind
// as encoded bytes. The difference from BM_DeltaBaselinePlan is the wire and the events.
void BM_DeltaStreamFrameAndApply(benchmark::State& state) {
    ChurnWorld world({.seed = 3, .entities = 3000, .deaths_per_sec = 0.2f});
    std::vector<std::vector<std::uint64_t>> frames(64);
    for (auto& f : frames) {
        world.step(0.0625f);
        world.relevant(f);
    }
    const DeltaStreamOptions options{.position_max_abs = 2000.0f};
    DeltaStream stream(options);
    DeltaReceiver<Vec2> receiver(options);
    std::vector<ByteWriter> in_flight(3);
    ByteWriter ack;
    std::size_t i = 0;
    std::uint64_t bytes = 0;
    for (auto _ : state) {
        ByteWriter& out = in_flight[i % 3];
        stream.frame(
            frames[i % frames.size()], [&](SlotKey k) { return world.position(k.encode()); }, 0.0, out);
        bytes += out.size();
        if (i >= 2) {
            receiver.apply(in_flight[(i - 2) % 3].bytes());
            if (receiver.write_ack(ack)) stream.receive_ack(ack.bytes(), 0.0);
        }
        ++i;
    }
    state.counters["keys"] = static_cast<double>(frames[0].size());
    state.counters["bytes_per_frame"] = i > 0 ? static_cast<double>(bytes) / static_cast<double>(i) : 0.0;
}
BENCHMARK(BM_DeltaStreamFrameAndApply);

DeltaPlan sample_frame(std::vector<Vec2>& positions) {
    DeltaPlan p;
    p.seq = 100000;
    p.baseline_seq = 99998;
    p.digest = 0x123456789ABCDEFULL;
    XorShift rng(9);
    std::uint32_t index = 0;
    for (int i = 0; i < 25; ++i) {
        index += 1 + static_cast<std::uint32_t>(rng.below(100));
        p.entered.push_back(SlotKey{index, static_cast<std::uint16_t>(rng.below(50))}.encode());
        positions.push_back({rng.range(-1000, 1000), rng.range(-1000, 1000)});
    }
    index = 0;
    for (int i = 0; i < 15; ++i) {
        index += 1 + static_cast<std::uint32_t>(rng.below(100));
        p.left.push_back(SlotKey{index, static_cast<std::uint16_t>(rng.below(50))}.encode());
    }
    return p;
}

void BM_DeltaFrameEncode(benchmark::State& state) {
    std::vector<Vec2> positions;
    const DeltaPlan p = sample_frame(positions);
    ByteWriter w;
    for (auto _ : state) {
        w.clear();
        encode_delta_frame(w, p, positions);
        benchmark::DoNotOptimize(w.bytes().data());
    }
    state.counters["bytes"] = static_cast<double>(w.size());
}
BENCHMARK(BM_DeltaFrameEncode);

void BM_DeltaFrameDecode(benchmark::State& state) {
    std::vector<Vec2> positions;
    const DeltaPlan p = sample_frame(positions);
    ByteWriter w;
    encode_delta_frame(w, p, positions);
    DeltaFrame f;
    for (auto _ : state) {
        benchmark::DoNotOptimize(decode_delta_frame(w.bytes(), f));
    }
}
BENCHMARK(BM_DeltaFrameDecode);

void BM_DeltaMirrorApply(benchmark::State& state) {
    // A recorded stream of 1,024 frames over ~1,000 relevant keys, replayed in order; at the
    // end the mirror restarts from the first (full) frame outside the timing.
    ChurnWorld world({.seed = 5, .entities = 3000, .deaths_per_sec = 0.2f});
    std::vector<DeltaPlan> plans(1024);
    DeltaBaseline baseline({.policy = RecoveryPolicy::Naive});
    std::vector<std::uint64_t> keys;
    for (auto& p : plans) {
        world.step(0.0625f);
        world.relevant(keys);
        baseline.plan(keys, p);
    }
    auto value = [](std::size_t, SlotKey) { return Vec2{}; };
    DeltaMirror<Vec2> mirror;
    mirror.apply(plans[0], value);
    std::size_t i = 1;
    double changes = 0;
    for (auto _ : state) {
        if (i == plans.size()) {
            state.PauseTiming();
            mirror = DeltaMirror<Vec2>{};
            mirror.apply(plans[0], value);
            i = 1;
            state.ResumeTiming();
        }
        mirror.apply(plans[i], value);
        changes += static_cast<double>(plans[i].entered.size() + plans[i].left.size());
        ++i;
    }
    state.counters["held"] = static_cast<double>(mirror.size());
    state.counters["changes_per_frame"] = changes / static_cast<double>(state.iterations());
}
BENCHMARK(BM_DeltaMirrorApply);

void BM_LossyLinkSendPoll(benchmark::State& state) {
    LossyLink link(
        {.seed = 1, .latency_ms = 30.0, .jitter_ms = 20.0, .loss = 0.05f, .reorder = 0.02f, .duplicate = 0.01f});
    const std::vector<std::uint8_t> payload(300, 7);
    std::vector<std::uint8_t> out;
    double now = 0.0;
    for (auto _ : state) {
        link.send(now, payload);
        while (link.poll(now, out)) benchmark::DoNotOptimize(out.data());
        now += 1.0;
    }
}
BENCHMARK(BM_LossyLinkSendPoll);

}  // namespace
}  // namespace vantage
