// The delta stream at the MTU: sets and changes larger than a frame, spread over frames of a
// datagram's size, under churn, latency, loss and a varying limit.
//
// The run: a world of `keys` slots whose occupants are replaced at `churn` per frame (a new
// generation, as a SlotAllocator reuses a slot), one DeltaBaseline planning frames of at most
// `frame_bytes` (or a limit drawn per frame), a DeltaMirror applying whatever arrives after
// `latency_frames`, and reports travelling back as long. Every frame is checked to fit and
// every report's drift check to agree; what the client misses and holds in excess is measured
// after warm-up. The latency floor is the same run at 65,507-byte frames: no spreading at all.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "vantage/delta_baseline.hpp"
#include "vantage/delta_mirror.hpp"
#include "vantage/delta_wire.hpp"
#include "vantage/random.hpp"
#include "vantage/slot_key.hpp"

namespace vantage {
namespace {

using Keys = std::vector<std::uint64_t>;

constexpr std::size_t kPositionBytes = 6;  // entered keys carry a position of this bound

struct MtuScenario {
    std::uint64_t seed = 1;
    std::uint32_t keys = 1000;
    float churn = 0.02f;               // share of slots replaced per frame
    int latency_frames = 18;           // each way (300 ms at 60 Hz)
    float loss = 0.0f;                 // each way
    std::size_t frame_bytes = 1200;    // the limit
    float tight_share = 0.0f;          // share of frames limited to [tight_min, frame_bytes]
    std::size_t tight_min = 600;       // bytes
    std::size_t history = 64;          // frames
    int frames = 1200;                 // in all
    int warmup = 200;                  // frames before measuring
    std::optional<int> stop_churn_at;  // frames: the world stands still from here
};

struct MtuOutcome {
    std::size_t max_missing = 0;  // after warm-up: relevant keys the client does not hold
    double mean_missing = 0.0;
    std::size_t max_extra = 0;  // after warm-up: held keys not relevant (phantoms)
    std::size_t min_held = 0;   // after warm-up
    int exact_from = -1;        // first frame from which the client held the set exactly
    std::uint64_t drifts = 0;
    std::uint64_t rebuilds = 0;
    std::size_t largest_frame = 0;
    std::uint64_t spread_frames = 0;
    std::uint64_t resent = 0;
};

MtuOutcome run(const MtuScenario& sc) {
    DeltaBaseline server(
        {.history = sc.history, .max_frame_bytes = sc.frame_bytes, .entered_value_bytes = kPositionBytes});
    DeltaMirror<int> client;
    XorShift rng(mix64(sc.seed));
    std::vector<std::uint16_t> generation(sc.keys, 0);
    std::deque<std::pair<int, DeltaPlan>> down;
    std::deque<std::pair<int, AckReport>> up;
    Keys world, held;
    MtuOutcome out;
    std::size_t missing_sum = 0;
    int measured = 0;
    out.min_held = sc.keys;
    for (int f = 0; f < sc.frames; ++f) {
        if (!sc.stop_churn_at || f < *sc.stop_churn_at) {
            for (std::uint32_t i = 0; i < sc.keys; ++i) {
                if (rng.chance(sc.churn)) ++generation[i];  // wraps at 65,536 like a SlotAllocator
            }
        }
        world.clear();
        for (std::uint32_t i = 0; i < sc.keys; ++i) world.push_back(SlotKey{i, generation[i]}.encode());

        while (!up.empty() && up.front().first <= f) {
            if (server.observe_ack(up.front().second, f) == AckOutcome::Drift) ++out.drifts;
            up.pop_front();
        }
        std::size_t limit = sc.frame_bytes;
        if (sc.tight_share > 0.0f && rng.chance(sc.tight_share)) {
            limit = sc.tight_min +
                    static_cast<std::size_t>(rng.below(static_cast<std::uint32_t>(sc.frame_bytes - sc.tight_min + 1)));
        }
        DeltaPlan plan;
        server.plan(world, plan, limit);
        const std::size_t bytes = delta_frame_bytes(plan, kPositionBytes);
        EXPECT_LE(bytes, limit) << "seed " << sc.seed << " frame " << f;
        out.largest_frame = std::max(out.largest_frame, bytes);
        if (!rng.chance(sc.loss)) down.emplace_back(f + sc.latency_frames, plan);

        bool arrived = false;
        while (!down.empty() && down.front().first <= f) {
            client.apply(down.front().second, [](std::size_t, SlotKey) { return 0; });
            down.pop_front();
            arrived = true;
        }
        if (arrived && !rng.chance(sc.loss)) up.emplace_back(f + sc.latency_frames, *client.ack_report());

        client.keys(held);
        std::size_t missing = 0, extra = 0;
        for (std::uint64_t k : world) missing += std::binary_search(held.begin(), held.end(), k) ? 0 : 1;
        for (std::uint64_t k : held) extra += std::binary_search(world.begin(), world.end(), k) ? 0 : 1;
        if (missing == 0 && extra == 0) {
            if (out.exact_from < 0) out.exact_from = f;
        } else {
            out.exact_from = -1;
        }
        if (f >= sc.warmup) {
            out.max_missing = std::max(out.max_missing, missing);
            out.max_extra = std::max(out.max_extra, extra);
            out.min_held = std::min(out.min_held, held.size());
            missing_sum += missing;
            ++measured;
        }
    }
    out.mean_missing = measured > 0 ? static_cast<double>(missing_sum) / measured : 0.0;
    out.rebuilds = server.counters().full_rebuilds;
    out.spread_frames = server.counters().spread_frames;
    out.resent = server.counters().resent_lost + server.counters().resent_timeout;
    return out;
}

// How many entered keys (with positions) one frame of this size carries at worst.
std::size_t keys_per_frame(std::size_t frame_bytes) {
    return (frame_bytes - 24) / (5 + kPositionBytes);
}

void record(const char* name, const MtuOutcome& o) {
    ::testing::Test::RecordProperty(std::string(name) + "_max_missing", static_cast<int>(o.max_missing));
    ::testing::Test::RecordProperty(std::string(name) + "_min_held", static_cast<int>(o.min_held));
    ::testing::Test::RecordProperty(std::string(name) + "_exact_from", o.exact_from);
}

// The deterministic case: 200 keys, 64-byte frames, immediate delivery, slot 49's occupant
// replaced while the set is still being spread. Every split point and a generation wrap: the
// client never holds two occupants of a slot, its digest never disagrees, no rebuild.
TEST(DeltaMtu, ASlotsOldAndNewOccupantAreNeverSplitAcrossFrames) {
    for (std::uint32_t replaced = 0; replaced < 200; replaced += 7) {
        for (int at = 1; at < 12; ++at) {
            for (const std::uint16_t from : {std::uint16_t{0}, std::uint16_t{65535}}) {
                DeltaBaseline server({.max_frame_bytes = 64});
                DeltaMirror<int> client;
                Keys world;
                for (std::uint32_t i = 0; i < 200; ++i)
                    world.push_back(SlotKey{i, i == replaced ? from : std::uint16_t{0}}.encode());
                DeltaPlan plan;
                for (int f = 0; f < 60; ++f) {
                    if (f == at) {
                        world[replaced] = SlotKey{replaced, static_cast<std::uint16_t>(from + 1)}.encode();
                        std::sort(world.begin(), world.end());
                    }
                    server.plan(world, plan);
                    ASSERT_LE(delta_frame_bytes(plan, 0), 64u);
                    client.apply(plan, [](std::size_t, SlotKey) { return 0; });
                    ASSERT_NE(server.observe_ack(*client.ack_report(), f), AckOutcome::Drift)
                        << "slot " << replaced << " replaced at frame " << at << " from generation " << from;
                }
                Keys held;
                client.keys(held);
                ASSERT_EQ(held, world) << "slot " << replaced << " at " << at << " from " << from;
                ASSERT_EQ(server.counters().full_rebuilds, 1u);
            }
        }
    }
}

// 1,000 keys, 2% replaced every frame, 300 ms each way, the default 1,200-byte frames: the
// whole set arrives (no rebuild loop), and the client misses no more than the changes of the
// last round trip that cannot have arrived yet.
TEST(DeltaMtu, ChurnAtTheMtuDeliversTheWholeSetWithoutRebuilding) {
    const MtuOutcome at_mtu = run({});
    MtuScenario floor_run;
    floor_run.frame_bytes = kMaxFrameBytesLimit;
    const MtuOutcome floor = run(floor_run);
    record("mtu", at_mtu);
    record("floor", floor);
    EXPECT_EQ(at_mtu.rebuilds, 1u);
    EXPECT_EQ(at_mtu.drifts, 0u);
    EXPECT_LE(at_mtu.largest_frame, 1200u);
    EXPECT_EQ(at_mtu.min_held, 1000u) << "every slot held (some by an occupant the server replaced since)";
    EXPECT_LE(at_mtu.max_missing, floor.max_missing + keys_per_frame(1200));
    EXPECT_EQ(at_mtu.max_extra, at_mtu.max_missing) << "a missing key is a replaced occupant still held";
}

// The same churn with the world then standing still: the client holds the set exactly within
// three round trips of the last change.
TEST(DeltaMtu, OnceTheChurnStopsTheClientHoldsTheSetWithinThreeRoundTrips) {
    MtuScenario sc;
    sc.stop_churn_at = 800;
    sc.frames = 1000;
    const MtuOutcome o = run(sc);
    ASSERT_GE(o.exact_from, 800);
    EXPECT_LE(o.exact_from - 800, 3 * 2 * sc.latency_frames);
    EXPECT_EQ(o.rebuilds, 1u);
}

// 2,000 static keys with positions, 100 ms each way, a perfect link, 30% of frames limited to
// 600-1,200 bytes (a byte budget, or a wrapping packet's other parts): delivered in about the
// time its bytes take, not never.
TEST(DeltaMtu, AVaryingLimitDeliversAStaticSet) {
    MtuScenario sc;
    sc.keys = 2000;
    sc.churn = 0.0f;
    sc.latency_frames = 6;
    sc.tight_share = 0.3f;
    sc.frames = 300;
    sc.warmup = 0;
    const MtuOutcome o = run(sc);
    ASSERT_GE(o.exact_from, 0);
    // 2,000 keys at about 9 bytes in frames of 600-1,200 bytes: 17-30 frames, plus the trip.
    EXPECT_LE(o.exact_from, 40 + sc.latency_frames);
    EXPECT_EQ(o.rebuilds, 1u);
    EXPECT_GT(o.spread_frames, 10u);
}

// A history (retransmission timeout) of 24 frames against a 36-frame round trip: every change
// is sent twice, and the client still holds the set as well as with a long enough history.
TEST(DeltaMtu, AHistoryShorterThanTheRoundTripCostsBytesNotTheSet) {
    MtuScenario sc;
    sc.history = 24;
    const MtuOutcome short_history = run(sc);
    const MtuOutcome enough = run({});
    EXPECT_EQ(short_history.rebuilds, 1u);
    EXPECT_EQ(short_history.drifts, 0u);
    EXPECT_EQ(short_history.min_held, 1000u);
    EXPECT_LE(short_history.max_missing, enough.max_missing + keys_per_frame(1200));
    EXPECT_GT(short_history.resent, enough.resent);
}

// Throughput: 1,000 keys, 3% churn, 150 ms each way, 1,200-byte frames miss no more than the
// latency floor (the same at 65,507 bytes) plus one frame's worth of changes, at 0% and 20% loss.
TEST(DeltaMtu, ChangesFlowAtMoreThanOneFramePerRoundTrip) {
    for (const float loss : {0.0f, 0.2f}) {
        MtuScenario sc;
        sc.churn = 0.03f;
        sc.latency_frames = 9;
        sc.loss = loss;
        const MtuOutcome at_mtu = run(sc);
        sc.frame_bytes = kMaxFrameBytesLimit;
        const MtuOutcome floor = run(sc);
        EXPECT_LE(at_mtu.max_missing, floor.max_missing + keys_per_frame(1200)) << "loss " << loss;
        EXPECT_LE(at_mtu.mean_missing, floor.mean_missing + static_cast<double>(keys_per_frame(1200)))
            << "loss " << loss;
        EXPECT_EQ(at_mtu.drifts, 0u) << "loss " << loss;
        EXPECT_EQ(at_mtu.rebuilds, 1u) << "loss " << loss;
        ::testing::Test::RecordProperty(loss > 0.0f ? "lossy_mean_missing" : "clean_mean_missing",
                                        static_cast<int>(at_mtu.mean_missing));
    }
}

// Loss (up to 40% each way), churn and latency up to 300 ms each way at 64-byte frames
// (everything is split): once the world stands still, the client comes to hold the set exactly.
TEST(DeltaMtu, EverythingSplitStillConvergesUnderLossChurnAndLatency) {
    for (std::uint64_t seed = 1; seed <= 12; ++seed) {
        XorShift draw(mix64(seed * 977));
        MtuScenario sc;
        sc.seed = seed;
        sc.keys = 60;
        sc.churn = draw.range(0.0f, 0.05f);
        sc.latency_frames = static_cast<int>(draw.below(19));
        sc.loss = static_cast<float>(draw.below(5)) * 0.1f;
        sc.frame_bytes = 64;
        sc.history = DeltaBaselineOptions::history_for(2.0 * sc.latency_frames * 16.7, 0.0, 16.7);
        sc.stop_churn_at = 400;
        sc.frames = 700;
        sc.warmup = 0;
        // The loss goes on after the churn stops: resends still get through.
        const MtuOutcome o = run(sc);
        EXPECT_GE(o.exact_from, 0) << "seed " << seed << " loss " << sc.loss << " latency " << sc.latency_frames;
        EXPECT_EQ(o.drifts, 0u) << "seed " << seed;
        EXPECT_EQ(o.rebuilds, 1u) << "seed " << seed;
        EXPECT_LE(o.largest_frame, 64u) << "seed " << seed;
    }
}

// max_keys is the receiver's limit per list: the planner honours it, so a small value spreads
// the set over frames instead of getting every frame refused.
TEST(DeltaMtu, MaxKeysIsHonouredByThePlanner) {
    DeltaBaseline server({.max_frame_bytes = kMaxFrameBytesLimit, .max_keys = 10});
    DeltaMirror<int> client;
    Keys world;
    for (std::uint32_t i = 0; i < 95; ++i) world.push_back(SlotKey{i, 0}.encode());
    DeltaPlan plan;
    int frames = 0;
    Keys held;
    for (; frames < 30; ++frames) {
        server.plan(world, plan);
        ASSERT_LE(plan.entered.size(), 10u) << "frame " << frames;
        ASSERT_LE(plan.left.size(), 10u) << "frame " << frames;
        client.apply(plan, [](std::size_t, SlotKey) { return 0; });
        server.observe_ack(*client.ack_report(), frames);
        client.keys(held);
        if (held == world) break;
    }
    EXPECT_EQ(held, world);
    EXPECT_EQ(frames, 9) << "ten keys a frame";
}

}  // namespace
}  // namespace vantage
