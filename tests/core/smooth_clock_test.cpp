#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "test_delay_queue.hpp"
#include "vantage/smooth_clock.hpp"

namespace vantage {
namespace {

TEST(SmoothClock, ItHasNoTimeUntilTheFirstObservation) {
    SmoothClock c;
    c.advance(100.0);
    EXPECT_FALSE(c.started());
    EXPECT_EQ(c.server_time_ms(), 0.0);
    c.observe(5000.0);
    EXPECT_TRUE(c.started());
    EXPECT_EQ(c.server_time_ms(), 5000.0);
    EXPECT_EQ(c.render_time_ms(150.0), 4850.0);
}

TEST(SmoothClock, ASteadyStreamRunsAtRealTime) {
    SmoothClock c;
    for (int i = 0; i < 200; ++i) {
        c.observe(1000.0 + i * 50.0);
        for (int f = 0; f < 5; ++f) c.advance(10.0);
    }
    EXPECT_NEAR(c.rate(), 1.0, 1e-9);
    EXPECT_NEAR(c.server_time_ms(), 1000.0 + 200 * 50.0, 1e-6);
    EXPECT_EQ(c.counters().snaps, 0u);
}

TEST(SmoothClock, ReorderedAndDuplicatedStampsAreIgnored) {
    SmoothClock c;
    c.observe(1000.0);
    c.advance(50.0);
    c.observe(900.0);
    c.observe(1000.0);
    c.observe(std::numeric_limits<double>::quiet_NaN());
    EXPECT_EQ(c.rate(), 1.0);
    EXPECT_EQ(c.server_time_ms(), 1050.0);
}

TEST(SmoothClock, TheRateAdjustmentIsBounded) {
    SmoothClock c(SmoothClockOptions{.max_rate_adjust = 0.1, .error_gain = 1.0});
    c.observe(0.0);
    c.observe(900.0);  // far ahead, below the snap threshold
    EXPECT_NEAR(c.rate(), 1.1, 1e-12);
    c.advance(100.0);
    EXPECT_NEAR(c.server_time_ms(), 110.0, 1e-9);
}

TEST(SmoothClock, AnErrorBeyondTheSnapThresholdSnapsEvenInRateMode) {
    SmoothClock c;
    c.observe(0.0);
    c.observe(5000.0);  // a resumed tab
    EXPECT_EQ(c.server_time_ms(), 5000.0);
    EXPECT_EQ(c.counters().snaps, 1u);
    EXPECT_EQ(c.rate(), 1.0);
}

struct JumpRun {
    double min_rate = 1.0;
    double max_rate = 1.0;
    bool went_backwards = false;
    double final_error_ms = 0.0;
    double final_rate = 1.0;
    std::uint64_t snaps = 0;
};

// A 20 Hz stream over a 100 ms link with a little jitter; at 3 s the latency jumps to 250 ms,
// so the stream arrives 150 ms later than the clock expects for as long as it lasts.
JumpRun run_latency_jump(SmoothClockOptions options, std::uint64_t seed) {
    test_support::TestDelayQueue<double> link({.latency_ms = 100.0, .jitter_ms = 5.0}, seed);
    SmoothClock c(options);
    JumpRun run;
    double newest = 0.0;
    double previous = 0.0;
    for (double now = 0.0; now < 12000.0; now += 16.0) {
        if (now >= 3000.0) link.set_latency(250.0);
        if (std::fmod(now, 48.0) == 0.0) link.send(now, now);
        link.deliver(now, [&](const double& stamp) {
            c.observe(stamp);
            newest = std::max(newest, stamp);
        });
        if (c.started()) {
            if (c.server_time_ms() < previous) run.went_backwards = true;
            previous = c.server_time_ms();
            if (now > 3000.0) {
                run.min_rate = std::min(run.min_rate, c.rate());
                run.max_rate = std::max(run.max_rate, c.rate());
            }
        }
        c.advance(16.0);
    }
    run.final_error_ms = c.error_ms();
    run.final_rate = c.rate();
    run.snaps = c.counters().snaps;
    return run;
}

TEST(SmoothClock, ALatencyJumpIsAbsorbedByDilatingTheRate) {
    for (std::uint64_t seed : {21u, 22u, 23u}) {
        const JumpRun r = run_latency_jump(SmoothClockOptions{}, seed);
        EXPECT_LT(r.min_rate, 0.95) << "seed " << seed << ": the clock slowed to let the stream catch up";
        EXPECT_GE(r.min_rate, 0.9 - 1e-12) << "seed " << seed;
        EXPECT_FALSE(r.went_backwards) << "seed " << seed;
        EXPECT_EQ(r.snaps, 0u) << "seed " << seed;
        EXPECT_LT(std::fabs(r.final_error_ms), 10.0) << "seed " << seed;
        EXPECT_NEAR(r.final_rate, 1.0, 0.01) << "seed " << seed;
    }
}

TEST(SmoothClock, SnapModeAbsorbsTheSameJumpBySteppingBackwards) {
    const JumpRun r = run_latency_jump(SmoothClockOptions{.mode = ClockMode::Snap}, 21);
    EXPECT_TRUE(r.went_backwards);
    EXPECT_GT(r.snaps, 0u);
    EXPECT_EQ(r.min_rate, 1.0);
}

}  // namespace
}  // namespace vantage
