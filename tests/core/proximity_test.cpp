#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "vantage/proximity.hpp"

namespace vantage {
namespace {

TEST(Proximity, WithinRadiusIsInclusive) {
    EXPECT_TRUE(within_radius({0.0f, 0.0f}, {3.0f, 4.0f}, 5.0f));
    EXPECT_FALSE(within_radius({0.0f, 0.0f}, {3.0f, 4.0f}, 4.999f));
    EXPECT_TRUE(within_radius({1.0f, 1.0f}, {1.0f, 1.0f}, 0.0f));
}

TEST(Proximity, BadRadiiAndNaNMatchNothing) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_FALSE(within_radius({0.0f, 0.0f}, {0.0f, 0.0f}, -1.0f));
    EXPECT_FALSE(within_radius({0.0f, 0.0f}, {0.0f, 0.0f}, nan));
    EXPECT_FALSE(within_radius({0.0f, 0.0f}, {0.0f, 0.0f}, inf));
    EXPECT_FALSE(within_radius({nan, 0.0f}, {0.0f, 0.0f}, 10.0f));
}

TEST(Proximity, BruteForceSkipsNonFinitePositions) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    const std::vector<Vec2> points = {{0.0f, 0.0f}, {nan, 0.0f}, {inf, inf}, {1.0f, 0.0f}};
    std::vector<std::uint32_t> out;
    EXPECT_EQ(brute_force_in_radius(points, {0.0f, 0.0f}, 1e30f, out), 2u);
    EXPECT_EQ(out, (std::vector<std::uint32_t>{0, 3}));
    EXPECT_EQ(brute_force_count_pairs(points, 1e30f), 2u);
    EXPECT_EQ(brute_force_in_radius(points, {nan, 0.0f}, 10.0f, out), 0u);
}

TEST(Proximity, BruteForceNearestPrefersTheLowestIndexOnTies) {
    const std::vector<Vec2> points = {{5.0f, 0.0f}, {-3.0f, 0.0f}, {0.0f, 3.0f}};
    const auto hit = brute_force_nearest(points, {0.0f, 0.0f}, 10.0f);
    ASSERT_TRUE(hit.has_value());
    EXPECT_EQ(hit->id, 1u);
    EXPECT_EQ(hit->distance, 3.0f);
    EXPECT_FALSE(brute_force_nearest(points, {0.0f, 0.0f}, 2.0f).has_value());
}

TEST(Proximity, CountPairsCountsOrderedPairs) {
    const std::vector<Vec2> points = {{0.0f, 0.0f}, {1.0f, 0.0f}, {10.0f, 0.0f}};
    EXPECT_EQ(brute_force_count_pairs(points, 1.0f), 2u);
    EXPECT_EQ(brute_force_count_pairs(points, 100.0f), 6u);
}

}  // namespace
}  // namespace vantage
