#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "test_delay_queue.hpp"
#include "vantage/historical_state_buffer.hpp"
#include "vantage/random.hpp"
#include "vantage/smooth_clock.hpp"
#include "vantage/snapshot_buffer.hpp"
#include "vantage/vec.hpp"

namespace vantage {
namespace {

using Buffer = HistoricalStateBuffer<std::uint32_t, float>;

Buffer make(std::size_t count, double max_age_ms = std::numeric_limits<double>::infinity()) {
    return Buffer(HistoryOptions{.max_records_per_entity = count, .max_age_ms = max_age_ms});
}

TEST(HistoricalStateBuffer, AnExactTimeReturnsThatState) {
    Buffer h = make(8);
    h.record_state(1, 100.0, 10.0f);
    h.record_state(1, 200.0, 20.0f);
    const auto s = h.get_state_at_or_before(1, 200.0);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->state, 20.0f);
    EXPECT_EQ(s->coverage, HistoryCoverage::Exact);
    EXPECT_TRUE(s->inside());
}

TEST(HistoricalStateBuffer, AtOrBeforeReturnsTheEarlierRecordBetweenTwo) {
    Buffer h = make(8);
    h.record_state(1, 100.0, 10.0f);
    h.record_state(1, 200.0, 20.0f);
    const auto s = h.get_state_at_or_before(1, 199.0);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->state, 10.0f);
    EXPECT_EQ(s->time_ms, 100.0);
    EXPECT_EQ(s->coverage, HistoryCoverage::Between);
}

TEST(HistoricalStateBuffer, ATimeBetweenRecordsInterpolates) {
    Buffer h = make(8);
    h.record_state(1, 100.0, 10.0f);
    h.record_state(1, 200.0, 20.0f);
    const auto s = h.get_interpolated_state(1, 150.0);
    ASSERT_TRUE(s);
    EXPECT_FLOAT_EQ(s->state, 15.0f);
    EXPECT_EQ(s->time_ms, 150.0);
    EXPECT_EQ(s->coverage, HistoryCoverage::Between);
}

TEST(HistoricalStateBuffer, AQueryBeforeTheHistoryIsReportedNotSilentlyClamped) {
    Buffer h = make(8);
    h.record_state(1, 300.0, 30.0f);
    h.record_state(1, 400.0, 40.0f);
    const auto s = h.get_interpolated_state(1, 50.0);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->coverage, HistoryCoverage::BeforeOldest);
    EXPECT_FALSE(s->inside());
    EXPECT_EQ(s->outside_by_ms, 250.0);
    EXPECT_EQ(s->state, 30.0f);  // the edge is offered, labelled; the caller decides
    EXPECT_EQ(h.get_state_at_or_before(1, 50.0)->coverage, HistoryCoverage::BeforeOldest);
}

TEST(HistoricalStateBuffer, AQueryAfterTheNewestIsReportedNotSilentlyClamped) {
    Buffer h = make(8);
    h.record_state(1, 300.0, 30.0f);
    h.record_state(1, 400.0, 40.0f);
    for (const auto& s : {h.get_interpolated_state(1, 460.0), h.get_state_at_or_before(1, 460.0)}) {
        ASSERT_TRUE(s);
        EXPECT_EQ(s->coverage, HistoryCoverage::AfterNewest);
        EXPECT_EQ(s->outside_by_ms, 60.0);
        EXPECT_EQ(s->state, 40.0f);
    }
}

TEST(HistoricalStateBuffer, CapacityEvictsTheOldestAndAQueryThereIsReported) {
    Buffer h = make(2);
    h.record_state(1, 100.0, 10.0f);
    h.record_state(1, 200.0, 20.0f);
    h.record_state(1, 300.0, 30.0f);
    EXPECT_EQ(h.record_count(1), 2u);
    const auto s = h.get_interpolated_state(1, 150.0);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->coverage, HistoryCoverage::BeforeOldest);
    EXPECT_EQ(s->state, 20.0f);  // never the evicted record
}

TEST(HistoricalStateBuffer, AgeEvictsRecordsOlderThanTheNewestMinusTheBound) {
    Buffer h = make(64, 250.0);
    for (int i = 0; i <= 10; ++i) h.record_state(1, i * 100.0, static_cast<float>(i));
    EXPECT_EQ(h.oldest_time_ms(1), 800.0);
    EXPECT_EQ(h.newest_time_ms(1), 1000.0);
    EXPECT_EQ(h.record_count(1), 3u);
}

TEST(HistoricalStateBuffer, ExpireForgetsAnEntityThatStoppedBeingRecorded) {
    Buffer h = make(64, 250.0);
    h.record_state(1, 100.0, 1.0f);
    h.record_state(2, 900.0, 2.0f);
    h.record_state(2, 1000.0, 2.0f);
    EXPECT_EQ(h.expire(1200.0), 2u);  // entity 1's record and entity 2's at 900
    EXPECT_FALSE(h.get_state_at_or_before(1, 1000.0));
    EXPECT_EQ(h.record_count(2), 1u);
    EXPECT_EQ(h.entity_count(), 1u);
}

TEST(HistoricalStateBuffer, AStaleRecordIsIgnoredAndCounted) {
    Buffer h = make(8);
    EXPECT_EQ(h.record_state(1, 200.0, 20.0f), RecordResult::Ok);
    EXPECT_EQ(h.record_state(1, 200.0, 99.0f), RecordResult::Stale);
    EXPECT_EQ(h.record_state(1, 100.0, 99.0f), RecordResult::Stale);
    EXPECT_EQ(h.get_state_at_or_before(1, 200.0)->state, 20.0f);
    EXPECT_EQ(h.counters().stale_records, 2u);
}

TEST(HistoricalStateBuffer, NonFiniteTimesAndStatesAreRefusedAsBadData) {
    Buffer h = make(8);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    EXPECT_EQ(h.record_state(1, std::numeric_limits<double>::quiet_NaN(), 1.0f), RecordResult::NonFinite);
    EXPECT_EQ(h.record_state(1, 100.0, nan), RecordResult::NonFinite);
    EXPECT_EQ(h.entity_count(), 0u);
    h.record_state(1, 100.0, 1.0f);
    EXPECT_FALSE(h.get_interpolated_state(1, std::numeric_limits<double>::infinity()));
    EXPECT_EQ(h.counters().nonfinite_records, 2u);
}

TEST(HistoricalStateBuffer, AnUnknownEntityHasNoState) {
    Buffer h = make(8);
    h.record_state(1, 100.0, 1.0f);
    EXPECT_FALSE(h.get_state_at_or_before(7, 100.0));
    EXPECT_FALSE(h.get_interpolated_state(7, 100.0));
}

TEST(HistoricalStateBuffer, RemovingOneEntityLeavesTheOthersAlone) {
    Buffer h = make(8);
    h.record_state(1, 100.0, 1.0f);
    h.record_state(2, 100.0, 2.0f);
    EXPECT_TRUE(h.remove_entity_history(1));
    EXPECT_FALSE(h.remove_entity_history(1));  // never an error
    EXPECT_FALSE(h.remove_entity_history(42));
    EXPECT_FALSE(h.get_state_at_or_before(1, 100.0));
    EXPECT_EQ(h.get_state_at_or_before(2, 100.0)->state, 2.0f);
}

TEST(HistoricalStateBuffer, ClearingLeavesABufferThatStillWorks) {
    Buffer h = make(8);
    h.record_state(1, 100.0, 1.0f);
    h.clear_all_history();
    EXPECT_EQ(h.entity_count(), 0u);
    EXPECT_EQ(h.record_state(1, 50.0, 5.0f), RecordResult::Ok);  // earlier than before: a fresh track
    EXPECT_EQ(h.get_state_at_or_before(1, 50.0)->state, 5.0f);
}

TEST(HistoricalStateBuffer, EntitiesAreRewoundIndependently) {
    Buffer h = make(8);
    for (int i = 0; i < 5; ++i) {
        h.record_state(1, i * 100.0, static_cast<float>(i));
        h.record_state(2, i * 100.0 + 50.0, static_cast<float>(-i));
    }
    EXPECT_FLOAT_EQ(h.get_interpolated_state(1, 250.0)->state, 2.5f);
    EXPECT_FLOAT_EQ(h.get_interpolated_state(2, 250.0)->state, -2.0f);
    EXPECT_EQ(h.get_interpolated_state(2, 10.0)->coverage, HistoryCoverage::BeforeOldest);
    EXPECT_EQ(h.get_interpolated_state(1, 10.0)->coverage, HistoryCoverage::Between);
}

TEST(ClampRewind, ACapLikeSourcesOneSecondPullsAnOldRequestForwardAndSaysBy) {
    const RewindTarget old = clamp_rewind(5000.0, 3500.0, 1000.0);
    EXPECT_EQ(old.time_ms, 4000.0);
    EXPECT_EQ(old.adjusted_by_ms, 500.0);
    EXPECT_TRUE(old.clamped());
    const RewindTarget future = clamp_rewind(5000.0, 5100.0, 1000.0);
    EXPECT_EQ(future.time_ms, 5000.0);
    EXPECT_EQ(future.adjusted_by_ms, -100.0);
    const RewindTarget fine = clamp_rewind(5000.0, 4800.0, 1000.0);
    EXPECT_FALSE(fine.clamped());
    EXPECT_EQ(fine.time_ms, 4800.0);
    EXPECT_EQ(clamp_rewind(5000.0, std::numeric_limits<double>::quiet_NaN(), 1000.0).time_ms, 5000.0);
}

// Brute force: every record kept in a list, the bounds applied by filtering.
struct OracleRecord {
    double t;
    float v;
};

TEST(HistoricalStateBuffer, MatchesABruteForceOracleOverManySeeds) {
    for (std::uint64_t seed = 1; seed <= 150; ++seed) {
        XorShift rng(seed);
        const std::size_t cap = 1 + static_cast<std::size_t>(rng.below(12));
        const double max_age = rng.chance(0.5f) ? std::numeric_limits<double>::infinity() : rng.range(50.0f, 450.0f);
        Buffer h = make(cap, max_age);
        std::vector<OracleRecord> all;
        double t = static_cast<double>(rng.below(100));
        for (int step = 0; step < 60; ++step) {
            const bool stale = !all.empty() && rng.chance(0.1f);
            const double when = stale ? all.back().t - static_cast<double>(rng.below(50)) : t;
            const float v = rng.range(-100.0f, 100.0f);
            const RecordResult r = h.record_state(3, when, v);
            ASSERT_EQ(r, stale ? RecordResult::Stale : RecordResult::Ok) << "seed " << seed;
            if (!stale) {
                all.push_back({when, v});
                t += 1.0 + static_cast<double>(rng.below(60));
            }
            // What the bounds should have kept: within max_age of the newest, then the last cap.
            std::vector<OracleRecord> kept;
            for (const OracleRecord& o : all) {
                if (o.t >= all.back().t - max_age) kept.push_back(o);
            }
            if (kept.size() > cap) kept.erase(kept.begin(), kept.end() - static_cast<std::ptrdiff_t>(cap));
            ASSERT_EQ(h.record_count(3), kept.size()) << "seed " << seed;

            // A query from a little before the oldest to a little after the newest.
            const double q = static_cast<double>(interpolate(static_cast<float>(kept.front().t) - 30.0f,
                                                             static_cast<float>(kept.back().t) + 30.0f, rng.unit()));
            const auto got = h.get_interpolated_state(3, q);
            const auto got_before = h.get_state_at_or_before(3, q);
            ASSERT_TRUE(got && got_before) << "seed " << seed;
            if (q < kept.front().t) {
                EXPECT_EQ(got->coverage, HistoryCoverage::BeforeOldest) << "seed " << seed;
                EXPECT_EQ(got->state, kept.front().v) << "seed " << seed;
            } else if (q > kept.back().t) {
                EXPECT_EQ(got->coverage, HistoryCoverage::AfterNewest) << "seed " << seed;
                EXPECT_EQ(got_before->state, kept.back().v) << "seed " << seed;
            } else {
                std::size_t i = 0;
                while (i + 1 < kept.size() && kept[i + 1].t <= q) ++i;
                EXPECT_EQ(got_before->state, kept[i].v) << "seed " << seed;
                const float expect =
                    kept[i].t == q ? kept[i].v
                                   : kept[i].v + (kept[i + 1].v - kept[i].v) *
                                                     static_cast<float>((q - kept[i].t) / (kept[i + 1].t - kept[i].t));
                EXPECT_NEAR(got->state, expect, 1e-3f) << "seed " << seed;
                EXPECT_TRUE(got->inside()) << "seed " << seed;
            }
        }
    }
}

// The lag-compensation scenario: a bot orbits on the server at 240 px/s; the client sees it
// through a 120 ms, jittery, lossy link, draws it 150 ms in the past and fires at exactly
// what it draws. The server judges each shot at the instant the shooter saw (rewound) or at
// the present.
struct Shot {
    double aim_time_ms;
    Vec2 aim;
};
struct Snapshot {
    double server_ms;
    Vec2 bot;
};

Vec2 bot_at(double t_ms) {
    const double angle = 2.4 * t_ms / 1000.0;  // rad; 2.4 rad/s on radius 100 = 240 px/s
    return {400.0f + 100.0f * static_cast<float>(std::cos(angle)),
            300.0f + 100.0f * static_cast<float>(std::sin(angle))};
}

struct ShotTally {
    int fired = 0;
    int judged = 0;
    int hits_rewound = 0;
    int hits_present = 0;
    int outside_history = 0;
};

ShotTally run_shooting_range(std::uint64_t seed) {
    constexpr double kFrameMs = 16.0;
    constexpr double kTickMs = 50.0;
    constexpr double kRenderDelayMs = 150.0;
    constexpr float kHitRadius = 18.0f;
    using Link = test_support::TestDelayQueue<Snapshot>;
    using Uplink = test_support::TestDelayQueue<Shot>;
    Link down({.latency_ms = 120.0, .jitter_ms = 20.0, .loss = 0.1f}, seed);
    Uplink up({.latency_ms = 120.0, .jitter_ms = 20.0, .loss = 0.0f}, mix64(seed));
    HistoricalStateBuffer<std::uint32_t, Vec2> history(
        HistoryOptions{.max_records_per_entity = 128, .max_age_ms = 1000.0});
    SnapshotBuffer<Vec2> remote(32);
    SmoothClock clock;
    ShotTally tally;
    double next_tick = 0.0;
    for (double now = 0.0; now < 6000.0; now += kFrameMs) {
        while (next_tick <= now) {  // server ticks: record truth, send a snapshot
            history.record_state(7, next_tick, bot_at(next_tick));
            down.send(next_tick, {next_tick, bot_at(next_tick)});
            next_tick += kTickMs;
        }
        down.deliver(now, [&](const Snapshot& s) {
            remote.add_snapshot(s.server_ms, s.bot);
            clock.observe(s.server_ms);
        });
        up.deliver(now, [&](const Shot& shot) {
            const RewindTarget target = clamp_rewind(now, shot.aim_time_ms, 1000.0);
            const auto past = history.get_interpolated_state(7, target.time_ms);
            ++tally.judged;
            if (!past->inside()) ++tally.outside_history;
            if (distance(past->state, shot.aim) <= kHitRadius) ++tally.hits_rewound;
            if (distance(bot_at(now), shot.aim) <= kHitRadius) ++tally.hits_present;
        });
        if (clock.started() && now > 1000.0 && static_cast<int>(now / kFrameMs) % 20 == 0) {
            const double render_ms = clock.render_time_ms(kRenderDelayMs);
            const auto drawn = remote.sample(render_ms);
            if (drawn && drawn->kind == SampleKind::Interpolated) {
                up.send(now, {render_ms, drawn->state});
                ++tally.fired;
            }
        }
        clock.advance(kFrameMs);
    }
    return tally;
}

TEST(LagCompensation, RewindLandsAShotThatThePresentWouldMiss) {
    for (std::uint64_t seed : {11u, 12u, 13u}) {
        const ShotTally t = run_shooting_range(seed);
        ASSERT_GT(t.fired, 10) << "seed " << seed << ": the scenario must actually shoot";
        ASSERT_GE(t.judged, t.fired - 1) << "seed " << seed;  // the last may still be in flight
        EXPECT_EQ(t.hits_rewound, t.judged) << "seed " << seed;
        EXPECT_EQ(t.hits_present, 0) << "seed " << seed;
        EXPECT_EQ(t.outside_history, 0) << "seed " << seed;
    }
}

TEST(LagCompensation, AShotFromBeyondTheHistoryIsReportedRatherThanJudgedAtTheOldestRecord) {
    HistoricalStateBuffer<std::uint32_t, Vec2> history(
        HistoryOptions{.max_records_per_entity = 8, .max_age_ms = 1000.0});
    for (int i = 0; i <= 40; ++i) history.record_state(7, i * 50.0, bot_at(i * 50.0));
    // An eight-record history covers 350 ms; a shot aimed 600 ms ago is outside it.
    const auto past = history.get_interpolated_state(7, 2000.0 - 600.0);
    ASSERT_TRUE(past);
    EXPECT_EQ(past->coverage, HistoryCoverage::BeforeOldest);
    EXPECT_EQ(past->outside_by_ms, 250.0);
}

}  // namespace
}  // namespace vantage
