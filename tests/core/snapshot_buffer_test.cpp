#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "test_delay_queue.hpp"
#include "vantage/random.hpp"
#include "vantage/smooth_clock.hpp"
#include "vantage/snapshot_buffer.hpp"
#include "vantage/vec.hpp"

namespace vantage {
namespace {

TEST(SnapshotBuffer, AnEmptyBufferHasNothingToDraw) {
    SnapshotBuffer<float> b(4);
    EXPECT_TRUE(b.empty());
    EXPECT_EQ(b.capacity(), 4u);
    EXPECT_FALSE(b.sample(0.0));
    EXPECT_FALSE(b.sample(0.0, ExtrapolationOptions{}));
    EXPECT_FALSE(b.oldest_time_ms());
}

TEST(SnapshotBuffer, SnapshotsStayInOrderAndTheOldestLeavesAtCapacity) {
    SnapshotBuffer<float> b(3);
    for (int i = 1; i <= 5; ++i) EXPECT_EQ(b.add_snapshot(i * 100.0, static_cast<float>(i)), SnapshotAdd::Appended);
    EXPECT_EQ(b.size(), 3u);
    EXPECT_EQ(b.oldest_time_ms(), 300.0);
    EXPECT_EQ(b.newest_time_ms(), 500.0);
}

// Any capacity, any arrival order: the buffer holds what a sorted list of the newest
// `capacity` distinct times would, and says which of the five things happened to each add.
TEST(SnapshotBuffer, EveryCapacityKeepsTheNewestDistinctTimesInOrder) {
    for (const std::size_t capacity : {2u, 3u, 5u, 7u, 8u, 9u, 31u, 33u}) {
        SnapshotBuffer<float> b(capacity);
        std::vector<double> model;  // ascending
        XorShift rng(capacity);
        for (int i = 0; i < 3000; ++i) {
            const double t = static_cast<double>(i / 2 + static_cast<int>(rng.below(8)));  // mostly forward
            const SnapshotAdd added = b.add_snapshot(t, static_cast<float>(t));
            const auto at = std::lower_bound(model.begin(), model.end(), t);
            SnapshotAdd expected = SnapshotAdd::Appended;
            if (at != model.end() && *at == t) {
                expected = SnapshotAdd::Duplicate;
            } else if (at == model.begin() && model.size() == capacity) {
                expected = SnapshotAdd::TooOld;
            } else {
                expected = at == model.end() ? SnapshotAdd::Appended : SnapshotAdd::Inserted;
                model.insert(at, t);
                if (model.size() > capacity) model.erase(model.begin());
            }
            ASSERT_EQ(added, expected) << "capacity " << capacity << " add " << i;
            ASSERT_EQ(b.size(), model.size());
            ASSERT_EQ(b.oldest_time_ms(), model.front());
            ASSERT_EQ(b.newest_time_ms(), model.back());
            for (const double m : model) {
                const auto s = b.sample(m);
                ASSERT_TRUE(s && s->kind == SampleKind::Exact && s->state == static_cast<float>(m)) << "time " << m;
            }
        }
    }
}

TEST(SnapshotBuffer, AnOutOfOrderSnapshotIsPlacedByItsTimestamp) {
    SnapshotBuffer<float> b(4);
    b.add_snapshot(100.0, 1.0f);
    b.add_snapshot(300.0, 3.0f);
    EXPECT_EQ(b.add_snapshot(200.0, 2.0f), SnapshotAdd::Inserted);
    EXPECT_FLOAT_EQ(b.sample(150.0)->state, 1.5f);
    EXPECT_FLOAT_EQ(b.sample(250.0)->state, 2.5f);
}

TEST(SnapshotBuffer, ADuplicatedSnapshotIsIgnored) {
    SnapshotBuffer<float> b(4);
    b.add_snapshot(100.0, 1.0f);
    b.add_snapshot(200.0, 2.0f);
    EXPECT_EQ(b.add_snapshot(100.0, 9.0f), SnapshotAdd::Duplicate);
    EXPECT_EQ(b.add_snapshot(200.0, 9.0f), SnapshotAdd::Duplicate);
    EXPECT_EQ(b.size(), 2u);
    EXPECT_EQ(b.sample(100.0)->state, 1.0f);
}

TEST(SnapshotBuffer, ASnapshotOlderThanAFullBufferIsIgnored) {
    SnapshotBuffer<float> b(2);
    b.add_snapshot(100.0, 1.0f);
    b.add_snapshot(200.0, 2.0f);
    EXPECT_EQ(b.add_snapshot(50.0, 0.5f), SnapshotAdd::TooOld);
    EXPECT_EQ(b.oldest_time_ms(), 100.0);
}

TEST(SnapshotBuffer, NonFiniteSnapshotsAndRenderTimesAreRefused) {
    SnapshotBuffer<Vec2> b(4);
    EXPECT_EQ(b.add_snapshot(100.0, {std::numeric_limits<float>::infinity(), 0.0f}), SnapshotAdd::NonFinite);
    EXPECT_EQ(b.add_snapshot(std::numeric_limits<double>::quiet_NaN(), {}), SnapshotAdd::NonFinite);
    EXPECT_TRUE(b.empty());
    b.add_snapshot(100.0, {1.0f, 1.0f});
    EXPECT_FALSE(b.sample(std::numeric_limits<double>::quiet_NaN()));
}

TEST(SnapshotBuffer, ARenderTimeBetweenSnapshotsInterpolatesTheBracketingPair) {
    SnapshotBuffer<Vec2> b(8);
    b.add_snapshot(0.0, {0.0f, 0.0f});
    b.add_snapshot(100.0, {10.0f, 0.0f});
    b.add_snapshot(200.0, {10.0f, 20.0f});
    const auto s = b.sample(175.0);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->kind, SampleKind::Interpolated);
    EXPECT_FLOAT_EQ(s->state.x, 10.0f);
    EXPECT_FLOAT_EQ(s->state.y, 15.0f);
    EXPECT_EQ(b.sample(100.0)->kind, SampleKind::Exact);
}

TEST(SnapshotBuffer, OutsideTheSnapshotsInterpolationHoldsTheEdgeAndSaysSo) {
    SnapshotBuffer<float> b(4);
    b.add_snapshot(100.0, 1.0f);
    b.add_snapshot(200.0, 2.0f);
    EXPECT_EQ(b.sample(50.0)->kind, SampleKind::HeldOldest);
    EXPECT_EQ(b.sample(50.0)->state, 1.0f);
    const auto late = b.sample(260.0);
    EXPECT_EQ(late->kind, SampleKind::HeldNewest);
    EXPECT_EQ(late->state, 2.0f);
    EXPECT_EQ(late->past_newest_ms, 60.0);
    EXPECT_TRUE(late->starved());
}

TEST(SnapshotBuffer, ExtrapolationContinuesTheNewestVelocity) {
    SnapshotBuffer<Vec2> b(4);
    b.add_snapshot(0.0, {0.0f, 0.0f});
    b.add_snapshot(100.0, {24.0f, 0.0f});  // 240 px/s
    const auto s = b.sample(150.0, ExtrapolationOptions{.max_extrapolation_ms = 500.0});
    ASSERT_TRUE(s);
    EXPECT_EQ(s->kind, SampleKind::Extrapolated);
    EXPECT_FLOAT_EQ(s->state.x, 36.0f);
    EXPECT_EQ(s->extrapolated_ms, 50.0);
}

TEST(SnapshotBuffer, ExtrapolationStopsAtItsCapAndHolds) {
    SnapshotBuffer<Vec2> b(4);
    b.add_snapshot(0.0, {0.0f, 0.0f});
    b.add_snapshot(100.0, {24.0f, 0.0f});
    const ExtrapolationOptions cap{.max_extrapolation_ms = 200.0};
    const auto at_cap = b.sample(300.0, cap);
    const auto far_past = b.sample(2000.0, cap);
    EXPECT_EQ(at_cap->kind, SampleKind::Extrapolated);
    EXPECT_EQ(far_past->kind, SampleKind::Capped);
    EXPECT_FLOAT_EQ(far_past->state.x, at_cap->state.x);  // coasted to the cap, then held
    EXPECT_FLOAT_EQ(far_past->state.x, 72.0f);
    EXPECT_EQ(far_past->extrapolated_ms, 200.0);
    EXPECT_EQ(far_past->past_newest_ms, 1900.0);
}

TEST(SnapshotBuffer, ExtrapolationWithOneSnapshotHolds) {
    SnapshotBuffer<Vec2> b(4);
    b.add_snapshot(100.0, {5.0f, 5.0f});
    const auto s = b.sample(150.0, ExtrapolationOptions{});
    EXPECT_EQ(s->kind, SampleKind::HeldNewest);
    EXPECT_EQ(s->state, (Vec2{5.0f, 5.0f}));
}

Vec2 on_circle(double t_ms) {
    const double a = 2.4 * t_ms / 1000.0;
    return {100.0f * static_cast<float>(std::cos(a)), 100.0f * static_cast<float>(std::sin(a))};
}

TEST(SnapshotBuffer, ASecondOrderFitFollowsACurveBetterThanALine) {
    SnapshotBuffer<Vec2> b(4);
    for (int i = 0; i < 4; ++i) b.add_snapshot(i * 100.0, on_circle(i * 100.0));
    const double t = 300.0 + 100.0;
    const ExtrapolationOptions line{.max_extrapolation_ms = 500.0};
    const ExtrapolationOptions curve{.max_extrapolation_ms = 500.0, .second_order = true};
    const float line_error = distance(b.sample(t, line)->state, on_circle(t));
    const float curve_error = distance(b.sample(t, curve)->state, on_circle(t));
    EXPECT_LT(curve_error, 0.7f * line_error) << "line " << line_error << " curve " << curve_error;
}

TEST(SnapshotBuffer, ZeroCurveTrustIsTheLine) {
    SnapshotBuffer<Vec2> b(4);
    for (int i = 0; i < 4; ++i) b.add_snapshot(i * 100.0, on_circle(i * 100.0));
    const ExtrapolationOptions line{.max_extrapolation_ms = 500.0};
    const ExtrapolationOptions untrusted{.max_extrapolation_ms = 500.0, .second_order = true, .curve_trust = 0.0f};
    EXPECT_EQ(b.sample(380.0, line)->state, b.sample(380.0, untrusted)->state);
}

// A remote orbiting at 240 px/s, snapshots at 20 Hz over a 100 ms link with 30 ms of jitter
// and 5% loss, drawn 150 ms behind a rate-adjusted clock.
TEST(SnapshotBuffer, InterpolationPlacesRemotesBetweenSnapshots) {
    for (std::uint64_t seed : {1u, 2u, 3u, 4u}) {
        struct Packet {
            double server_ms;
            Vec2 p;
        };
        test_support::TestDelayQueue<Packet> link({.latency_ms = 100.0, .jitter_ms = 30.0, .loss = 0.05f}, seed);
        SnapshotBuffer<Vec2> remote(32);
        SmoothClock clock;
        int interpolated = 0, frames = 0;
        float worst = 0.0f;
        for (double now = 0.0; now < 4000.0; now += 16.0) {
            if (std::fmod(now, 48.0) == 0.0) link.send(now, {now, on_circle(now)});
            link.deliver(now, [&](const Packet& p) {
                remote.add_snapshot(p.server_ms, p.p);
                clock.observe(p.server_ms);
            });
            if (now > 1000.0) {
                const double render = clock.render_time_ms(150.0);
                const auto s = remote.sample(render);
                ++frames;
                if (s->kind == SampleKind::Interpolated) {
                    ++interpolated;
                    // A chord of a 48 ms arc at 240 px/s sits within 0.4 px of the circle.
                    worst = std::max(worst, distance(s->state, on_circle(render)));
                }
            }
            clock.advance(16.0);
        }
        EXPECT_GE(interpolated, frames * 95 / 100) << "seed " << seed;
        EXPECT_LT(worst, 1.0f) << "seed " << seed;
    }
}

}  // namespace
}  // namespace vantage
