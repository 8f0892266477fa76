#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "vantage/rate_meter.hpp"

namespace vantage {
namespace {

// Feeds `per_sec` units per second in 100 ms steps from `from_ms` to `to_ms`.
void feed(RateMeter& m, double from_ms, double to_ms, double per_sec) {
    for (double t = from_ms + 100.0; t <= to_ms + 1e-9; t += 100.0) {
        m.elapsed(t);
        m.add(per_sec / 10.0);
    }
}

TEST(RateMeter, ARateIsTheTotalOverTheElapsedTime) {
    RateMeter m;
    m.elapsed(0.0);
    feed(m, 0.0, 5000.0, 1000.0);
    EXPECT_DOUBLE_EQ(m.total(), 5000.0);
    EXPECT_NEAR(m.per_sec(), 1000.0, 1e-9);
    EXPECT_NEAR(m.lifetime_per_sec(), 1000.0, 1e-9);
    EXPECT_EQ(m.samples(), 50u);
}

TEST(RateMeter, NothingMeasuredYetReadsAsZero) {
    RateMeter m;
    EXPECT_EQ(m.per_sec(), 0.0);
    EXPECT_EQ(m.mean(), 0.0);
    EXPECT_EQ(m.lifetime_per_sec(), 0.0);
    m.elapsed(123.0);
    EXPECT_EQ(m.per_sec(), 0.0);
    EXPECT_EQ(m.lifetime_per_sec(), 0.0);
    EXPECT_FALSE(std::isnan(m.share_of(RateMeter{})));
}

TEST(RateMeter, AnEmptySampleStillCountsAgainstTheAverage) {
    RateMeter m;
    m.elapsed(0.0);
    m.add(10.0);
    m.add_empty();
    EXPECT_DOUBLE_EQ(m.mean(), 5.0);
    EXPECT_EQ(m.samples(), 2u);
}

TEST(RateMeter, AShareIsAFractionOfAnotherTotal) {
    RateMeter part, whole;
    part.add(25.0);
    whole.add(100.0);
    EXPECT_DOUBLE_EQ(part.share_of(whole), 0.25);
}

TEST(RateMeter, ARateSettlesInsteadOfCreepingTowardARisenSteadyState) {
    RateMeter m;
    m.elapsed(0.0);
    feed(m, 0.0, 60000.0, 100.0);
    feed(m, 60000.0, 120000.0, 1000.0);
    EXPECT_NEAR(m.per_sec(), 1000.0, 50.0);
    EXPECT_LT(m.lifetime_per_sec(), 0.95 * m.per_sec());
}

TEST(RateMeter, AMeterResetPartwayMeasuresOnlyWhatItSaw) {
    RateMeter m;
    m.elapsed(0.0);
    feed(m, 0.0, 100.0, 5000.0);
    m.reset();
    m.elapsed(100.0);
    feed(m, 100.0, 10000.0, 1000.0);
    EXPECT_NEAR(m.running_ms(), 9900.0, 1e-6);
    EXPECT_NEAR(m.lifetime_per_sec(), 1000.0, 1e-6);
}

TEST(RateMeter, SilenceDecaysOutOfTheWindow) {
    RateMeter m;
    m.elapsed(0.0);
    feed(m, 0.0, 4000.0, 1000.0);
    m.elapsed(4000.0 + RateMeter::kWindowMs + RateMeter::kBucketMs);
    EXPECT_EQ(m.per_sec(), 0.0);
    EXPECT_GT(m.lifetime_per_sec(), 0.0);
}

TEST(RateMeter, APartFilledNewestBucketDoesNotUnderstateTheRate) {
    RateMeter m;
    m.elapsed(0.0);
    feed(m, 0.0, 20000.0, 800.0);
    m.elapsed(20050.0);  // 50 ms into a fresh bucket
    m.add(40.0);
    EXPECT_NEAR(m.per_sec(), 800.0, 15.0);  // a full-window divisor would read 765
}

TEST(RateMeter, NonFiniteInputIsIgnored) {
    RateMeter m;
    m.elapsed(0.0);
    m.add(std::numeric_limits<double>::quiet_NaN());
    m.add(std::numeric_limits<double>::infinity());
    m.elapsed(std::numeric_limits<double>::quiet_NaN());
    m.elapsed(1000.0);
    m.add(10.0);
    EXPECT_DOUBLE_EQ(m.total(), 10.0);
    EXPECT_DOUBLE_EQ(m.per_sec(), 10.0);
}

// A clock that leaps (a finite but absurd reading, the widest span a double holds) empties
// the window like any long silence, without overflowing the bucket arithmetic.
TEST(RateMeter, AnAbsurdLeapOfTheClockIsALongSilence) {
    for (const double leap : {1e300, std::numeric_limits<double>::max()}) {
        RateMeter m;
        m.elapsed(-std::numeric_limits<double>::max());
        m.add(10.0);
        m.elapsed(leap);
        EXPECT_EQ(m.per_sec(), 0.0) << leap;
        m.add(5.0);
        m.elapsed(leap);
        EXPECT_DOUBLE_EQ(m.total(), 15.0) << leap;
        EXPECT_EQ(m.window_total(), 5.0) << leap;
        EXPECT_TRUE(std::isfinite(m.per_sec())) << leap;
        EXPECT_TRUE(std::isfinite(m.mean())) << leap;
    }
}

TEST(RateMeter, AResetMeterDescribesOnlyTheWorldAfterIt) {
    RateMeter m;
    m.elapsed(0.0);
    feed(m, 0.0, 30000.0, 9000.0);
    m.reset();
    m.elapsed(30000.0);
    feed(m, 30000.0, 32000.0, 100.0);
    EXPECT_NEAR(m.per_sec(), 100.0, 1e-6);
    EXPECT_NEAR(m.total(), 200.0, 1e-6);
}

}  // namespace
}  // namespace vantage
