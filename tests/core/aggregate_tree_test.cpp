#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "vantage/aggregate_tree.hpp"
#include "vantage/bit_cast.hpp"
#include "vantage/random.hpp"

namespace vantage {
namespace {

std::vector<WeightedPoint> grid(std::uint32_t n, float spacing, float origin) {
    std::vector<WeightedPoint> points;
    for (std::uint32_t i = 0; i < n * n; ++i) {
        points.push_back(
            {origin + static_cast<float>(i % n) * spacing, origin + static_cast<float>(i / n) * spacing, 1.0f});
    }
    return points;
}

// A mixed scene: a uniform scatter, a few tight clumps, some exact duplicates and some
// weightless points, so every branch of the build is exercised.
std::vector<WeightedPoint> scene(std::uint64_t seed, std::size_t n, float extent) {
    XorShift rng(seed);
    std::vector<WeightedPoint> points;
    const float cx = rng.range(0.0f, extent);
    const float cy = rng.range(0.0f, extent);
    for (std::size_t i = 0; i < n; ++i) {
        const float w = rng.chance(0.1f) ? 0.0f : rng.range(0.5f, 20.0f);
        if (i > 0 && rng.chance(0.05f)) {
            const WeightedPoint copy = points[static_cast<std::size_t>(rng.below(points.size()))];
            points.push_back({copy.x, copy.y, w});
        } else if (rng.chance(0.3f)) {
            points.push_back({cx + rng.range(-8.0f, 8.0f), cy + rng.range(-8.0f, 8.0f), w});
        } else {
            points.push_back({rng.range(0.0f, extent), rng.range(0.0f, extent), w});
        }
    }
    return points;
}

std::uint64_t bits(float f) {
    return bit_cast<std::uint32_t>(f);
}

double total_weight(const std::vector<WeightedPoint>& points) {
    double w = 0.0;
    for (const WeightedPoint& p : points) w += p.weight;
    return w;
}

// ---- The brute-force oracle: the seed's semantics, written the obvious way ----------------
// (seed 000, summarised in core/docs/background.md)
// Recursion over index lists, a fresh filter per quadrant, the criterion with a square root.

struct OracleSummary {
    double x;
    double y;
    double weight;
    std::uint32_t count;
    float size;
    std::vector<std::uint32_t> members;  // sorted
};

void oracle_walk(const std::vector<WeightedPoint>& points, const std::vector<std::uint32_t>& idx, float cx, float cy,
                 float size, int depth, int max_depth, float vx, float vy, float radius, float theta,
                 std::vector<OracleSummary>& out) {
    double w = 0.0, wx = 0.0, wy = 0.0, px = 0.0, py = 0.0;
    for (const std::uint32_t i : idx) {
        const WeightedPoint& p = points[i];
        w += p.weight;
        wx += static_cast<double>(p.x) * p.weight;
        wy += static_cast<double>(p.y) * p.weight;
        px += p.x;
        py += p.y;
    }
    const double n = static_cast<double>(idx.size());
    const bool weighted = std::abs(w) > static_cast<double>(std::numeric_limits<float>::epsilon());
    const double x = weighted ? wx / w : px / n;
    const double y = weighted ? wy / w : py / n;
    const bool leaf = idx.size() <= 1 || depth >= max_depth;
    const double dist = std::hypot(x - vx, y - vy);
    if (leaf || (theta > 0.0f && static_cast<double>(size) < static_cast<double>(theta) * (dist - radius))) {
        std::vector<std::uint32_t> members = idx;
        std::sort(members.begin(), members.end());
        out.push_back({x, y, w, static_cast<std::uint32_t>(idx.size()), size, members});
        return;
    }
    for (unsigned q = 0; q < 4; ++q) {
        std::vector<std::uint32_t> sub;
        for (const std::uint32_t i : idx) {
            const unsigned code = (points[i].x >= cx ? 1u : 0u) | (points[i].y >= cy ? 2u : 0u);
            if (code == q) sub.push_back(i);
        }
        if (sub.empty()) continue;
        const float quarter = size * 0.25f;
        oracle_walk(points, sub, (q & 1u) != 0 ? cx + quarter : cx - quarter,
                    (q & 2u) != 0 ? cy + quarter : cy - quarter, size * 0.5f, depth + 1, max_depth, vx, vy, radius,
                    theta, out);
    }
}

std::vector<std::vector<std::uint32_t>> member_sets(const AggregateTree& tree, const std::vector<Summary>& out) {
    std::vector<std::vector<std::uint32_t>> sets;
    for (const Summary& s : out) {
        const auto m = tree.members(s);
        std::vector<std::uint32_t> v(m.begin(), m.end());
        std::sort(v.begin(), v.end());
        sets.push_back(v);
    }
    std::sort(sets.begin(), sets.end());
    return sets;
}

// ---- The seed's eight properties ---------------------------------------------------------

TEST(AggregateTree, AZeroAngleReturnsEveryPointExactly) {
    // The off switch has to be the same code path, or "aggregation disabled" is a second
    // implementation with its own bugs.
    const auto points = grid(8, 10.0f, 100.0f);
    AggregateTree tree;
    tree.build(points, 10);
    std::vector<Summary> out;
    tree.summarize({0.0f, 0.0f}, 0.0f, out);
    ASSERT_EQ(out.size(), points.size());
    for (const Summary& s : out) {
        EXPECT_EQ(s.count, 1u);
        EXPECT_TRUE(s.exact());
    }
}

TEST(AggregateTree, TotalWeightIsConservedAtEveryAngle) {
    // Aggregating rather than culling: the distant contribution is kept, only its
    // resolution is dropped.
    const auto points = grid(8, 10.0f, 500.0f);
    AggregateTree tree;
    tree.build(points, 10);
    std::vector<Summary> out;
    for (const float theta : {0.0f, 0.2f, 0.5f, 1.0f, 4.0f}) {
        tree.summarize({-2000.0f, -2000.0f}, theta, out);
        float sum = 0.0f;
        std::uint32_t counted = 0;
        for (const Summary& s : out) {
            sum += s.weight;
            counted += s.count;
        }
        EXPECT_NEAR(sum, 64.0f, 0.01f) << "theta " << theta;
        EXPECT_EQ(counted, points.size()) << "theta " << theta << ": every point accounted for exactly once";
    }
}

TEST(AggregateTree, DistanceDecidesTheDetail) {
    // The same tree gives a distant viewer a small set and a close one a detailed set, so the
    // per-recipient cost tracks what each can resolve.
    const auto points = grid(8, 12.0f, 1000.0f);
    AggregateTree tree;
    tree.build(points, 10);
    std::vector<Summary> near;
    std::vector<Summary> far;
    tree.summarize({1040.0f, 1040.0f}, 0.6f, near);
    tree.summarize({-5000.0f, -5000.0f}, 0.6f, far);
    EXPECT_LT(far.size(), near.size());
    EXPECT_EQ(far.size(), 1u) << "from far enough away the whole crowd is one body";
}

TEST(AggregateTree, ASummarySitsAtTheWeightedCentroid) {
    // Not the geometric centre: the heavy member pulls the stand-in toward itself.
    const std::vector<WeightedPoint> points{{0.0f, 0.0f, 1.0f}, {100.0f, 0.0f, 9.0f}};
    AggregateTree tree;
    tree.build(points, 10);
    std::vector<Summary> out;
    tree.summarize({0.0f, 100000.0f}, 2.0f, out);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_NEAR(out[0].x, 90.0f, 0.01f);
    EXPECT_NEAR(out[0].weight, 10.0f, 0.01f);
}

TEST(AggregateTree, MembersRecoverTheInputsASummaryStandsFor) {
    const auto points = grid(4, 20.0f, 0.0f);
    AggregateTree tree;
    tree.build(points, 10);
    std::vector<Summary> out;
    tree.summarize({-10000.0f, -10000.0f}, 0.5f, out);
    std::vector<std::uint32_t> seen;
    for (const Summary& s : out) {
        const auto m = tree.members(s);
        ASSERT_EQ(m.size(), s.count);
        seen.insert(seen.end(), m.begin(), m.end());
    }
    std::sort(seen.begin(), seen.end());
    std::vector<std::uint32_t> all(points.size());
    std::iota(all.begin(), all.end(), 0u);
    EXPECT_EQ(seen, all);
}

TEST(AggregateTree, CoincidentPointsTerminateAtTheDepthLimit) {
    // Subdivision cannot separate identical positions; the depth bound ends it and they come
    // back as one group.
    const std::vector<WeightedPoint> points(32, WeightedPoint{5.0f, 5.0f, 1.0f});
    AggregateTree tree;
    tree.build(points, 6);
    std::vector<Summary> out;
    tree.summarize({0.0f, 0.0f}, 0.0f, out);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].count, 32u);
    EXPECT_FLOAT_EQ(out[0].weight, 32.0f);
}

TEST(AggregateTree, AnEmptySetSummarizesToNothing) {
    AggregateTree tree;
    tree.build({}, 8);
    EXPECT_TRUE(tree.empty());
    EXPECT_EQ(tree.size(), 0u);
    std::vector<Summary> out(1);
    out[0].count = 1;
    tree.summarize({0.0f, 0.0f}, 0.5f, out);
    EXPECT_TRUE(out.empty()) << "the output is cleared even when there is nothing to walk";
}

TEST(AggregateTree, TheSummaryCountGrowsSlowlyWithTheCrowd) {
    // Doubling the crowd must not double what a viewer is told about it.
    std::vector<std::size_t> counts;
    std::vector<Summary> out;
    AggregateTree tree;
    for (const std::uint32_t n : {4u, 8u, 16u}) {
        tree.build(grid(n, 30.0f, 0.0f), 12);
        tree.summarize({-1500.0f, -1500.0f}, 0.5f, out);
        counts.push_back(out.size());
    }
    EXPECT_LT(counts[2], counts[0] * 4) << "summaries " << counts[0] << " to " << counts[2] << " for a 16x crowd";
}

// ---- Beyond the seed ---------------------------------------------------------------------

TEST(AggregateTree, MatchesTheBruteForceOracleOverManySeeds) {
    // Exactly the seed's semantics: same acceptances, same centroids, same members, for
    // scattered, clumped, duplicated and weightless points, fitted and fixed cells; and the
    // disc walk's criterion size < theta * (d - r) the same way.
    std::vector<Summary> out;
    AggregateTree tree;
    for (std::uint64_t seed = 1; seed <= 60; ++seed) {
        XorShift rng(mix64(seed));
        const auto points = scene(seed, 1 + static_cast<std::size_t>(rng.below(200)), 3000.0f);
        const int max_depth = 1 + static_cast<int>(rng.below(12));
        const bool fixed = seed % 2 == 0;
        if (fixed) {
            tree.build_in(points, {1500.0f, 1500.0f}, 3000.0f, max_depth);
        } else {
            tree.build(points, max_depth);
        }
        const Vec2 center = tree.root_center();
        std::vector<std::uint32_t> all(points.size());
        std::iota(all.begin(), all.end(), 0u);
        for (int view = 0; view < 4; ++view) {
            const float vx = rng.range(-1000.0f, 4000.0f);
            const float vy = rng.range(-1000.0f, 4000.0f);
            const float theta = rng.range(0.0f, 1.6f);
            const float radius = view % 2 == 0 ? 0.0f : rng.range(0.0f, 800.0f);
            std::vector<OracleSummary> expected;
            oracle_walk(points, all, center.x, center.y, tree.root_size(), 0, max_depth, vx, vy, radius, theta,
                        expected);
            if (radius == 0.0f) {
                tree.summarize({vx, vy}, theta, out);
            } else {
                tree.summarize_around({vx, vy}, radius, theta, out);
            }
            ASSERT_EQ(out.size(), expected.size()) << "seed " << seed << " view " << view << " theta " << theta;
            // Both are in preorder, quadrants 0..3: compare in sequence.
            for (std::size_t i = 0; i < out.size(); ++i) {
                const auto m = tree.members(out[i]);
                std::vector<std::uint32_t> got(m.begin(), m.end());
                std::sort(got.begin(), got.end());
                ASSERT_EQ(got, expected[i].members) << "seed " << seed << " summary " << i;
                EXPECT_EQ(out[i].count, expected[i].count) << "seed " << seed;
                EXPECT_EQ(out[i].size, expected[i].size) << "seed " << seed;
                EXPECT_NEAR(out[i].x, expected[i].x, 1e-3) << "seed " << seed;
                EXPECT_NEAR(out[i].y, expected[i].y, 1e-3) << "seed " << seed;
                EXPECT_NEAR(out[i].weight, expected[i].weight, 1e-3) << "seed " << seed;
            }
        }
    }
}

TEST(AggregateTree, WeightAndCountAreConservedFromAnyViewpointAndAngle) {
    std::vector<Summary> out;
    AggregateTree tree;
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
        const auto points = scene(seed, 300, 3000.0f);
        const double expected = total_weight(points);
        tree.build_in(points, {1500.0f, 1500.0f}, 3000.0f, 10);
        XorShift rng(seed);
        for (int view = 0; view < 10; ++view) {
            const float theta = rng.range(0.0f, 3.0f);
            const Vec2 at{rng.range(-2000.0f, 5000.0f), rng.range(-2000.0f, 5000.0f)};
            if (view % 2 == 0) {
                tree.summarize(at, theta, out);
            } else {
                tree.summarize_around(at, rng.range(0.0f, 1000.0f), theta, out);
            }
            double weight = 0.0;
            std::uint64_t count = 0;
            for (const Summary& s : out) {
                weight += s.weight;
                count += s.count;
            }
            ASSERT_EQ(count, points.size()) << "seed " << seed << " theta " << theta;
            ASSERT_NEAR(weight, expected, 1e-5 * expected) << "seed " << seed << " theta " << theta;
        }
    }
}

TEST(AggregateTree, MembersOfAllSummariesPartitionTheInputs) {
    std::vector<Summary> out;
    AggregateTree tree;
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
        const auto points = scene(seed, 250, 1000.0f);
        tree.build(points, 8);
        XorShift rng(seed * 7);
        for (int view = 0; view < 5; ++view) {
            const Vec2 at{rng.range(0.0f, 1000.0f), rng.range(0.0f, 1000.0f)};
            if (view % 2 == 0) {
                tree.summarize(at, rng.range(0.0f, 2.0f), out);
            } else {
                tree.summarize_around(at, rng.range(0.0f, 300.0f), rng.range(0.0f, 2.0f), out);
            }
            std::vector<std::uint32_t> seen;
            for (const Summary& s : out) {
                const auto m = tree.members(s);
                ASSERT_EQ(m.size(), s.count) << "seed " << seed;
                seen.insert(seen.end(), m.begin(), m.end());
            }
            std::sort(seen.begin(), seen.end());
            std::vector<std::uint32_t> all(points.size());
            std::iota(all.begin(), all.end(), 0u);
            ASSERT_EQ(seen, all) << "seed " << seed << ": each input in exactly one summary";
        }
    }
}

TEST(AggregateTree, AnExactSummaryIsItsMemberExactly) {
    // count == 1 lets a caller send the real entity; its position and weight must be the
    // entity's, bit for bit, not a centroid computed back from it.
    const auto points = scene(99, 200, 3000.0f);
    AggregateTree tree;
    tree.build_in(points, {1500.0f, 1500.0f}, 3000.0f, 16);
    std::vector<Summary> out;
    tree.summarize({1500.0f, 1500.0f}, 0.0f, out);
    for (const Summary& s : out) {
        if (!s.exact()) continue;
        const WeightedPoint& p = points[tree.members(s)[0]];
        EXPECT_EQ(s.x, p.x);
        EXPECT_EQ(s.y, p.y);
        EXPECT_EQ(s.weight, p.weight);
    }
}

TEST(AggregateTree, AFixedCellKeepsDistantClustersWhenOnePointMoves) {
    // build_in's reason to exist: a point wandering elsewhere changes nothing about clusters
    // it is not part of.
    auto points = scene(5, 400, 1400.0f);  // all in the lower-left quarter of the arena
    const auto wanderer = static_cast<std::uint32_t>(points.size());
    points.push_back({2000.0f, 2000.0f, 5.0f});
    AggregateTree tree;
    std::vector<Summary> before;
    std::vector<Summary> after;
    tree.build_in(points, {1500.0f, 1500.0f}, 3000.0f, 10);
    tree.summarize({2900.0f, 2900.0f}, 0.5f, before);
    auto sets_before = member_sets(tree, before);
    points[wanderer] = {2950.0f, 1700.0f, 5.0f};
    tree.build_in(points, {1500.0f, 1500.0f}, 3000.0f, 10);
    tree.summarize({2900.0f, 2900.0f}, 0.5f, after);
    auto sets_after = member_sets(tree, after);
    const auto without_wanderer = [&](std::vector<std::vector<std::uint32_t>>& sets) {
        sets.erase(std::remove_if(sets.begin(), sets.end(),
                                  [&](const auto& s) { return std::find(s.begin(), s.end(), wanderer) != s.end(); }),
                   sets.end());
    };
    without_wanderer(sets_before);
    without_wanderer(sets_after);
    EXPECT_EQ(sets_before, sets_after);
}

TEST(AggregateTree, AFittedCellReformsClustersWhenOnePointMoves) {
    // The same move under build: the root cell follows the extent and clusters far from the
    // wanderer re-form. This is the twitch build_in exists to prevent.
    auto points = scene(5, 400, 1400.0f);
    const auto wanderer = static_cast<std::uint32_t>(points.size());
    points.push_back({2000.0f, 2000.0f, 5.0f});
    AggregateTree tree;
    std::vector<Summary> before;
    std::vector<Summary> after;
    tree.build(points, 10);
    tree.summarize({2900.0f, 2900.0f}, 0.5f, before);
    auto sets_before = member_sets(tree, before);
    points[wanderer] = {2950.0f, 1700.0f, 5.0f};
    tree.build(points, 10);
    tree.summarize({2900.0f, 2900.0f}, 0.5f, after);
    auto sets_after = member_sets(tree, after);
    EXPECT_NE(sets_before, sets_after);
}

TEST(AggregateTree, SummaryCountGrowsLogarithmicallyInARandomCrowd) {
    // The scaling claim from inside the crowd: a 16x crowd gives far less than 16x the
    // summaries (the near field stays exact, every farther ring is a few stand-ins).
    std::vector<Summary> out;
    AggregateTree tree;
    std::vector<double> mean_counts;
    for (const std::size_t n : {256u, 1024u, 4096u}) {
        double total = 0.0;
        for (std::uint64_t seed = 1; seed <= 4; ++seed) {
            XorShift rng(seed);
            std::vector<WeightedPoint> points;
            for (std::size_t i = 0; i < n; ++i)
                points.push_back({rng.range(0.0f, 3000.0f), rng.range(0.0f, 3000.0f), 1.0f});
            tree.build_in(points, {1500.0f, 1500.0f}, 3000.0f, 12);
            tree.summarize({rng.range(0.0f, 3000.0f), rng.range(0.0f, 3000.0f)}, 0.5f, out);
            total += static_cast<double>(out.size());
        }
        mean_counts.push_back(total / 4.0);
    }
    EXPECT_LT(mean_counts[1], mean_counts[0] * 2.0) << mean_counts[0] << " -> " << mean_counts[1];
    EXPECT_LT(mean_counts[2], mean_counts[0] * 3.0) << mean_counts[0] << " -> " << mean_counts[2];
}

TEST(AggregateTree, ANegativeOrNanAngleIsTheOffSwitchToo) {
    const auto points = scene(3, 100, 500.0f);
    AggregateTree tree;
    tree.build(points, 16);
    std::vector<Summary> exact;
    std::vector<Summary> out;
    tree.summarize({0.0f, 0.0f}, 0.0f, exact);
    for (const float theta : {-1.0f, std::numeric_limits<float>::quiet_NaN()}) {
        tree.summarize({0.0f, 0.0f}, theta, out);
        EXPECT_EQ(member_sets(tree, out), member_sets(tree, exact)) << "theta " << theta;
    }
}

TEST(AggregateTree, ADiscWalkOfRadiusZeroIsThePointWalk) {
    std::vector<Summary> point;
    std::vector<Summary> disc;
    AggregateTree tree;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        const auto points = scene(seed, 300, 3000.0f);
        tree.build_in(points, {1500.0f, 1500.0f}, 3000.0f, 12);
        XorShift rng(seed);
        const Vec2 at{rng.range(0.0f, 3000.0f), rng.range(0.0f, 3000.0f)};
        const float theta = rng.range(0.0f, 1.5f);
        tree.summarize(at, theta, point);
        tree.summarize_around(at, 0.0f, theta, disc);
        ASSERT_EQ(member_sets(tree, point), member_sets(tree, disc)) << "seed " << seed;
    }
}

TEST(AggregateTree, ADiscWalkHoldsTheCriterionFromEveryPointOfTheDisc) {
    // What summarize_around promises: every stand-in satisfies size < theta * distance as
    // seen from anywhere within the radius, not only from the centre.
    std::vector<Summary> out;
    AggregateTree tree;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        XorShift rng(seed);
        std::vector<WeightedPoint> points;
        for (int i = 0; i < 300; ++i)
            points.push_back({rng.range(0.0f, 3000.0f), rng.range(0.0f, 3000.0f), rng.range(1.0f, 5.0f)});
        tree.build_in(points, {1500.0f, 1500.0f}, 3000.0f, 24);  // deep enough that leaves hold one point
        const Vec2 at{rng.range(0.0f, 3000.0f), rng.range(0.0f, 3000.0f)};
        const float radius = rng.range(100.0f, 700.0f);
        const float theta = rng.range(0.3f, 1.5f);
        tree.summarize_around(at, radius, theta, out);
        for (const Summary& s : out) {
            if (s.exact()) continue;
            for (int k = 0; k < 16; ++k) {
                const float angle = static_cast<float>(k) * 0.3927f;
                const Vec2 edge = at + Vec2{std::cos(angle), std::sin(angle)} * radius;
                ASSERT_LT(s.size, theta * distance(edge, s.position())) << "seed " << seed;
            }
        }
    }
}

TEST(AggregateTree, ANanRadiusGetsFullDetail) {
    const auto points = scene(6, 100, 500.0f);
    AggregateTree tree;
    tree.build(points, 16);
    std::vector<Summary> exact;
    std::vector<Summary> out;
    tree.summarize({0.0f, 0.0f}, 0.0f, exact);
    tree.summarize_around({0.0f, 0.0f}, std::numeric_limits<float>::quiet_NaN(), 0.7f, out);
    EXPECT_EQ(member_sets(tree, out), member_sets(tree, exact));
}

TEST(AggregateTree, ANonFiniteViewpointGetsFullDetail) {
    const auto points = scene(4, 100, 500.0f);
    AggregateTree tree;
    tree.build(points, 16);
    std::vector<Summary> exact;
    std::vector<Summary> out;
    tree.summarize({0.0f, 0.0f}, 0.0f, exact);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    tree.summarize({nan, 10.0f}, 0.7f, out);
    EXPECT_EQ(member_sets(tree, out), member_sets(tree, exact));
}

TEST(AggregateTree, NonFinitePointsAreLeftOutAndCounted) {
    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<WeightedPoint> points{{10.0f, 10.0f, 1.0f}, {nan, 5.0f, 1.0f}, {20.0f, 30.0f, 2.0f},
                                            {inf, 0.0f, 1.0f},    {5.0f, 5.0f, nan}, {40.0f, -inf, 1.0f},
                                            {30.0f, 20.0f, 3.0f}};
    AggregateTree tree;
    tree.build(points, 8);
    EXPECT_EQ(tree.size(), 3u);
    EXPECT_EQ(tree.skipped(), 4u);
    EXPECT_TRUE(std::isfinite(tree.root_size()));
    std::vector<Summary> out;
    tree.summarize({-1.0e6f, 0.0f}, 1.0f, out);
    ASSERT_EQ(out.size(), 1u) << "the finite points still form one sound group";
    EXPECT_FLOAT_EQ(out[0].weight, 6.0f);
    EXPECT_TRUE(std::isfinite(out[0].x) && std::isfinite(out[0].y));
    const auto m = tree.members(out[0]);
    std::vector<std::uint32_t> got(m.begin(), m.end());
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, (std::vector<std::uint32_t>{0, 2, 6}));
}

TEST(AggregateTree, OnlyNonFinitePointsMakeAnEmptyTree) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<WeightedPoint> points{{nan, 0.0f, 1.0f}, {0.0f, nan, 1.0f}};
    AggregateTree tree;
    tree.build(points, 8);
    EXPECT_TRUE(tree.empty());
    EXPECT_EQ(tree.skipped(), 2u);
    std::vector<Summary> out;
    tree.summarize({0.0f, 0.0f}, 0.5f, out);
    EXPECT_TRUE(out.empty());
}

TEST(AggregateTree, AWeightlessGroupSitsAtItsPlainCentroid) {
    const std::vector<WeightedPoint> points{{0.0f, 0.0f, 0.0f}, {100.0f, 0.0f, 0.0f}, {50.0f, 90.0f, 0.0f}};
    AggregateTree tree;
    tree.build(points, 8);
    std::vector<Summary> out;
    tree.summarize({0.0f, 1.0e6f}, 1.0f, out);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_NEAR(out[0].x, 50.0f, 1e-4f);
    EXPECT_NEAR(out[0].y, 30.0f, 1e-4f);
    EXPECT_EQ(out[0].weight, 0.0f);
}

TEST(AggregateTree, CancellingWeightsNeverProduceANonFiniteCentroid) {
    // +1 and -1 cancel exactly; a near-cancelling pair at the float limit would put the
    // weighted centroid beyond a float. Both fall back to a finite position.
    const std::vector<WeightedPoint> points{{0.0f, 0.0f, 1.0f}, {3.0e38f, 0.0f, -1.0f}, {1.0e38f, 0.0f, 1.0e-7f}};
    AggregateTree tree;
    tree.build(points, 4);
    std::vector<Summary> out;
    tree.summarize({0.0f, 0.0f}, 0.0f, out);
    tree.summarize({-3.0e38f, -3.0e38f}, 1.0f, out);
    for (const Summary& s : out) EXPECT_TRUE(std::isfinite(s.x) && std::isfinite(s.y));
}

TEST(AggregateTree, PointsOutsideAFixedCellAreStillIncluded) {
    const std::vector<WeightedPoint> points{{-500.0f, 50.0f, 1.0f}, {50.0f, 50.0f, 1.0f}, {5000.0f, 9000.0f, 2.0f}};
    AggregateTree tree;
    tree.build_in(points, {50.0f, 50.0f}, 100.0f, 10);
    EXPECT_EQ(tree.size(), 3u);
    std::vector<Summary> out;
    tree.summarize({50.0f, 50.0f}, 0.0f, out);
    EXPECT_EQ(out.size(), 3u);
    std::uint32_t count = 0;
    for (const Summary& s : out) count += s.count;
    EXPECT_EQ(count, 3u);
}

TEST(AggregateTree, ATinyFixedCellIsRaisedToUnitSize) {
    const std::vector<WeightedPoint> points{{0.0f, 0.0f, 1.0f}};
    AggregateTree tree;
    tree.build_in(points, {0.0f, 0.0f}, 0.0f, 4);
    EXPECT_EQ(tree.root_size(), 1.0f);
    tree.build_in(points, {0.0f, 0.0f}, -50.0f, 4);
    EXPECT_EQ(tree.root_size(), 1.0f);
}

TEST(AggregateTree, ASummaryFromElsewhereHasNoMembers) {
    const auto points = grid(4, 10.0f, 0.0f);
    AggregateTree big;
    big.build(points, 8);
    std::vector<Summary> out;
    big.summarize({0.0f, 0.0f}, 0.0f, out);
    AggregateTree small;
    small.build(std::span(points).first(2), 8);
    EXPECT_TRUE(small.members(out.back()).empty());
    Summary forged;
    forged.count = 100;
    EXPECT_TRUE(small.members(forged).empty());
}

TEST(AggregateTree, SummarizeReusesTheOutputBuffer) {
    // A per-frame walk allocates nothing once `out` has grown: the walk itself holds no
    // storage, and clear() keeps the capacity.
    const auto points = scene(8, 500, 3000.0f);
    AggregateTree tree;
    tree.build(points, 10);
    std::vector<Summary> out;
    tree.summarize({0.0f, 0.0f}, 0.0f, out);  // the largest possible output
    const Summary* data = out.data();
    const std::size_t capacity = out.capacity();
    XorShift rng(8);
    for (int i = 0; i < 50; ++i) {
        tree.summarize({rng.range(0.0f, 3000.0f), rng.range(0.0f, 3000.0f)}, rng.range(0.0f, 1.5f), out);
        ASSERT_EQ(out.data(), data);
        ASSERT_EQ(out.capacity(), capacity);
    }
}

TEST(AggregateTree, RebuildingEachTickReusesTheTreeStorage) {
    // The per-tick pattern: one tree kept across ticks, rebuilt over the same (moving)
    // points. After the first build nothing reallocates (a vector's capacity changes only
    // when it does).
    AggregateTree tree;
    std::vector<WeightedPoint> points = scene(11, 600, 3000.0f);
    tree.build_in(points, {1500.0f, 1500.0f}, 3000.0f, 10);
    const std::size_t first = tree.capacity_bytes();
    XorShift rng(11);
    for (int tick = 0; tick < 20; ++tick) {
        for (WeightedPoint& p : points) {
            p.x = std::clamp(p.x + rng.range(-20.0f, 20.0f), 0.0f, 3000.0f);
            p.y = std::clamp(p.y + rng.range(-20.0f, 20.0f), 0.0f, 3000.0f);
        }
        tree.build_in(points, {1500.0f, 1500.0f}, 3000.0f, 10);
        ASSERT_EQ(tree.capacity_bytes(), first) << "tick " << tick;
    }
}

TEST(AggregateTree, TheSameInputGivesTheSameTreeEverywhere) {
    // Golden checksum over a seeded scene: identical natively, at -O2, under ASan and in
    // wasm. Printed on failure so a deliberate change can re-pin it.
    std::uint64_t h = 0;
    AggregateTree tree;
    std::vector<Summary> out;
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
        const auto points = scene(seed, 500, 3000.0f);
        tree.build_in(points, {1500.0f, 1500.0f}, 3000.0f, 10);
        tree.summarize({static_cast<float>(seed) * 300.0f, 1000.0f}, 0.5f, out);
        for (const Summary& s : out) {
            h = mix64(h ^ bits(s.x) ^ (bits(s.y) << 32));
            h = mix64(h ^ bits(s.weight) ^ (std::uint64_t{s.count} << 32));
            h = mix64(h ^ tree.members(s)[0]);
        }
    }
    constexpr std::uint64_t kGolden = 0xf095991d5822eed6ULL;
    EXPECT_EQ(h, kGolden) << "actual checksum: 0x" << std::hex << h;
}

}  // namespace
}  // namespace vantage
