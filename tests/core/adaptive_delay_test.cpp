#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "test_delay_queue.hpp"
#include "vantage/adaptive_delay.hpp"

namespace vantage {
namespace {

// Sends a stamp every `interval_ms` through `link` for `duration_ms`, observing arrivals.
void stream(AdaptiveDelay& d, test_support::TestDelayQueue<double>& link, double from_ms, double duration_ms,
            double interval_ms) {
    for (double now = from_ms; now < from_ms + duration_ms; now += 1.0) {
        if (std::fmod(now, interval_ms) == 0.0) link.send(now, now);
        link.deliver(now, [&](const double& sent) { d.observe(sent, now); });
        d.advance(1.0);
    }
}

TEST(AdaptiveDelay, BeforeTwoArrivalsTheInitialDelayIsProposed) {
    AdaptiveDelay d(AdaptiveDelayOptions{.initial_delay_ms = 150.0});
    EXPECT_EQ(d.delay_ms(), 150.0);
    d.observe(0.0, 80.0);
    EXPECT_EQ(d.delay_ms(), 150.0);
}

TEST(AdaptiveDelay, AConstantLatencyHasNoJitterWhateverTheLatency) {
    AdaptiveDelay d;
    for (int i = 0; i < 100; ++i) d.observe(i * 50.0, i * 50.0 + 300.0);
    EXPECT_NEAR(d.jitter_ms(), 0.0, 1e-9);
    EXPECT_NEAR(d.interval_ms(), 50.0, 1e-9);
    EXPECT_NEAR(d.target_delay_ms(), 75.0, 1e-9);  // 1.5 x interval
}

TEST(AdaptiveDelay, ALowServerRateLengthensTheDelayToSpanItsGaps) {
    AdaptiveDelay d;
    for (int i = 0; i < 100; ++i) d.observe(i * 250.0, i * 250.0 + 120.0);  // 4 Hz
    EXPECT_NEAR(d.interval_ms(), 250.0, 1e-9);
    EXPECT_NEAR(d.target_delay_ms(), 375.0, 1e-9);  // always a snapshot beyond the render time
}

TEST(AdaptiveDelay, TheDelayGrowsUnderJitter) {
    for (std::uint64_t seed : {5u, 6u, 7u}) {
        AdaptiveDelay d;
        test_support::TestDelayQueue<double> calm({.latency_ms = 100.0, .jitter_ms = 2.0}, seed);
        stream(d, calm, 0.0, 3000.0, 50.0);
        const double calm_delay = d.delay_ms();
        test_support::TestDelayQueue<double> rough({.latency_ms = 100.0, .jitter_ms = 120.0, .ordered = false}, seed);
        stream(d, rough, 3000.0, 3000.0, 50.0);
        EXPECT_LT(calm_delay, 85.0) << "seed " << seed;
        EXPECT_GT(d.jitter_ms(), 20.0) << "seed " << seed;
        EXPECT_GT(d.delay_ms(), calm_delay + 40.0) << "seed " << seed;
    }
}

TEST(AdaptiveDelay, TheDelayIsCappedAndFloored) {
    AdaptiveDelay d(AdaptiveDelayOptions{.min_delay_ms = 100.0, .max_delay_ms = 200.0});
    for (int i = 0; i < 50; ++i) d.observe(i * 10.0, i * 10.0);
    EXPECT_EQ(d.target_delay_ms(), 100.0);  // 1.5 x 10 ms would be 15
    for (int i = 50; i < 200; ++i) d.observe(i * 10.0, i * 10.0 + (i % 2 == 0 ? 0.0 : 400.0));
    EXPECT_EQ(d.target_delay_ms(), 200.0);
}

TEST(AdaptiveDelay, TheDelayInUseFollowsItsTargetAtABoundedSlew) {
    AdaptiveDelay d(AdaptiveDelayOptions{.initial_delay_ms = 150.0, .max_slew = 0.1});
    for (int i = 0; i < 100; ++i) d.observe(i * 50.0, i * 50.0 + 100.0);
    EXPECT_NEAR(d.target_delay_ms(), 75.0, 1e-9);
    EXPECT_EQ(d.delay_ms(), 150.0);  // no local time has passed yet
    d.advance(100.0);
    EXPECT_NEAR(d.delay_ms(), 140.0, 1e-9);  // 10 ms of delay per 100 ms
    d.advance(10000.0);
    EXPECT_NEAR(d.delay_ms(), 75.0, 1e-9);  // and it settles on the target, not past it
}

TEST(AdaptiveDelay, NonFiniteStampsAreIgnored) {
    AdaptiveDelay d;
    d.observe(0.0, 100.0);
    d.observe(std::numeric_limits<double>::quiet_NaN(), 150.0);
    d.observe(50.0, std::numeric_limits<double>::infinity());
    EXPECT_EQ(d.counters().arrivals, 1u);
}

TEST(AdaptiveDelayOptions, ValidateNamesTheBadField) {
    EXPECT_TRUE(AdaptiveDelayOptions{}.validate().empty());
    EXPECT_FALSE(AdaptiveDelayOptions{.jitter_gain = 0.0}.validate().empty());
    EXPECT_FALSE((AdaptiveDelayOptions{.min_delay_ms = 300.0, .max_delay_ms = 200.0}.validate().empty()));
}

}  // namespace
}  // namespace vantage
