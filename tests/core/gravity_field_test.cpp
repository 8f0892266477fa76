#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "vantage/aggregate_tree.hpp"
#include "vantage/gravity_field.hpp"
#include "vantage/random.hpp"

namespace vantage {
namespace {

// The black-hole arena in miniature: attractors scattered over a 3000-unit square with
// masses like the game's, and probes (pellets) within `spread` of one viewer, which is where
// the summaries are walked from (as a server walks once per recipient).
struct Arena {
    std::vector<WeightedPoint> holes;
    std::vector<Vec2> pellets;
    Vec2 viewer;
};

Arena arena(std::uint64_t seed, std::size_t holes, std::size_t pellets, float spread = 300.0f) {
    XorShift rng(mix64(seed));
    Arena a;
    for (std::size_t i = 0; i < holes; ++i) {
        a.holes.push_back({rng.range(0.0f, 3000.0f), rng.range(0.0f, 3000.0f), rng.range(100.0f, 600.0f)});
    }
    a.viewer = a.holes[0].position();
    for (std::size_t i = 0; i < pellets; ++i) {
        a.pellets.push_back(a.viewer + Vec2{rng.range(-spread, spread), rng.range(-spread, spread)});
    }
    return a;
}

constexpr GravityField kGame{.strength = 90000.0f, .softening_sq = 120.0f};

TEST(GravityField, OneSourcePullsTowardItWithInverseSquareStrength) {
    const GravityField field{.strength = 2.0f, .softening_sq = 0.0f};
    const std::vector<WeightedPoint> sources{{10.0f, 0.0f, 5.0f}};
    const Vec2 f = field.at({0.0f, 0.0f}, std::span<const WeightedPoint>(sources));
    EXPECT_NEAR(f.x, 2.0f * 5.0f / 100.0f, 1e-7f);
    EXPECT_EQ(f.y, 0.0f);
}

TEST(GravityField, SofteningKeepsTheFieldFiniteAndSmoothAtASource) {
    const std::vector<WeightedPoint> sources{{0.0f, 0.0f, 1000.0f}};
    const std::span<const WeightedPoint> view(sources);
    const Vec2 on_top = kGame.at({0.0f, 0.0f}, view);
    EXPECT_EQ(on_top.x, 0.0f);
    EXPECT_EQ(on_top.y, 0.0f);
    // Plummer: the pull peaks at r = sqrt(softening / 2) and is bounded there.
    const float peak_r = std::sqrt(kGame.softening_sq / 2.0f);
    const float peak = kGame.at({peak_r, 0.0f}, view).length();
    const float expected = kGame.strength * 1000.0f * peak_r / std::pow(peak_r * peak_r + kGame.softening_sq, 1.5f);
    EXPECT_NEAR(peak, expected, expected * 1e-5f);
    EXPECT_LT(kGame.at({peak_r * 0.5f, 0.0f}, view).length(), peak);
    EXPECT_LT(kGame.at({peak_r * 2.0f, 0.0f}, view).length(), peak);
}

TEST(GravityField, AnUnsoftenedSourceOnTheProbeContributesNothing) {
    const GravityField field{.strength = 1.0f, .softening_sq = 0.0f};
    const std::vector<WeightedPoint> sources{{3.0f, 4.0f, 10.0f}, {0.0f, 0.0f, 10.0f}};
    const Vec2 f = field.at({3.0f, 4.0f}, std::span<const WeightedPoint>(sources));
    EXPECT_TRUE(f.is_finite());
    EXPECT_NEAR(f.length(), 10.0f / 25.0f, 1e-6f) << "only the other source pulls";
}

TEST(GravityField, NonFiniteSourcesAreSkipped) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    const std::vector<WeightedPoint> clean{{100.0f, 0.0f, 5.0f}};
    const std::vector<WeightedPoint> dirty{
        {nan, 0.0f, 1.0f}, {100.0f, 0.0f, 5.0f}, {0.0f, inf, 1.0f}, {50.0f, 0.0f, nan}};
    const Vec2 a = kGame.at({0.0f, 0.0f}, std::span<const WeightedPoint>(clean));
    const Vec2 b = kGame.at({0.0f, 0.0f}, std::span<const WeightedPoint>(dirty));
    EXPECT_EQ(a, b);
}

TEST(GravityField, AtEachIsAtForEveryPointBitForBit) {
    // The batch form a client integrates with: the same field, point by point, from real
    // sources (non-finite ones among them) and from summaries, at finite and NaN probes.
    const float nan = std::numeric_limits<float>::quiet_NaN();
    Arena a = arena(7, 64, 200);
    a.holes.push_back({nan, 0.0f, 1.0f});
    a.holes.push_back({0.0f, 0.0f, std::numeric_limits<float>::infinity()});
    a.pellets.push_back({nan, 5.0f});
    a.pellets.push_back(a.holes[3].position());
    AggregateTree tree;
    std::vector<Summary> summaries;
    tree.build_in(a.holes, {1500.0f, 1500.0f}, 3000.0f, 10);
    tree.summarize(a.viewer, 0.7f, summaries);
    ASSERT_GT(summaries.size(), 1u);
    std::vector<Vec2> exact(a.pellets.size());
    std::vector<Vec2> summarized(a.pellets.size());
    kGame.at_each(a.pellets, std::span<const WeightedPoint>(a.holes), exact);
    kGame.at_each(a.pellets, std::span<const Summary>(summaries), summarized);
    for (std::size_t i = 0; i < a.pellets.size(); ++i) {
        const Vec2 one = kGame.at(a.pellets[i], std::span<const WeightedPoint>(a.holes));
        const Vec2 one_summarized = kGame.at(a.pellets[i], std::span<const Summary>(summaries));
        EXPECT_EQ(std::memcmp(&exact[i], &one, sizeof(Vec2)), 0) << "pellet " << i;
        EXPECT_EQ(std::memcmp(&summarized[i], &one_summarized, sizeof(Vec2)), 0) << "pellet " << i;
    }
    EXPECT_TRUE(exact.back().is_finite());
    EXPECT_EQ(exact[exact.size() - 2], Vec2{}) << "a NaN probe feels nothing, as from at()";
}

TEST(GravityField, ValidateRejectsNegativeOrNonFiniteSettings) {
    EXPECT_EQ(kGame.validate(), "");
    EXPECT_EQ((GravityField{.strength = -1.0f, .softening_sq = 0.0f}).validate(), "") << "repulsion is allowed";
    EXPECT_NE((GravityField{.strength = 1.0f, .softening_sq = -1.0f}).validate(), "");
    EXPECT_NE((GravityField{.strength = std::numeric_limits<float>::quiet_NaN(), .softening_sq = 0.0f}).validate(), "");
    EXPECT_NE((GravityField{.strength = 1.0f, .softening_sq = std::numeric_limits<float>::infinity()}).validate(), "");
}

TEST(GravityField, SummariesAtThetaZeroGiveTheExactFieldExactly) {
    // Theta 0 is the off switch end to end: the summarized field is the exact field, not an
    // approximation of it.
    AggregateTree tree;
    std::vector<Summary> summaries;
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
        const Arena a = arena(seed, 64, 100);
        tree.build_in(a.holes, {1500.0f, 1500.0f}, 3000.0f, 10);
        tree.summarize(a.viewer, 0.0f, summaries);
        const FieldError e = measure_field_error(kGame, a.holes, summaries, a.pellets);
        EXPECT_LT(e.relative_error, 1e-12) << "seed " << seed;
        EXPECT_LT(e.worst_relative_error, 1e-12) << "seed " << seed;
        EXPECT_EQ(e.approx_evaluations, e.exact_evaluations) << "seed " << seed;
        for (const Vec2 p : a.pellets) {
            EXPECT_EQ(kGame.at(p, std::span<const Summary>(summaries)),
                      kGame.at(p, std::span<const WeightedPoint>(a.holes)))
                << "seed " << seed;
        }
    }
}

TEST(GravityField, FieldErrorShrinksAsThetaShrinks) {
    const float thetas[] = {1.2f, 0.8f, 0.5f, 0.3f, 0.1f, 0.0f};
    double error[6] = {};
    std::uint64_t evaluations[6] = {};
    AggregateTree tree;
    std::vector<Summary> summaries;
    for (std::uint64_t seed = 1; seed <= 12; ++seed) {
        const Arena a = arena(seed, 64, 50);
        tree.build_in(a.holes, {1500.0f, 1500.0f}, 3000.0f, 10);
        for (int i = 0; i < 6; ++i) {
            tree.summarize(a.viewer, thetas[i], summaries);
            const FieldError e = measure_field_error(kGame, a.holes, summaries, a.pellets);
            error[i] += e.relative_error;
            evaluations[i] += e.approx_evaluations;
        }
    }
    for (int i = 1; i < 6; ++i) {
        EXPECT_LT(error[i], error[i - 1]) << "theta " << thetas[i] << " against " << thetas[i - 1];
        EXPECT_GE(evaluations[i], evaluations[i - 1]) << "finer costs at least as many evaluations";
    }
    EXPECT_LT(error[5], 1e-12);
    EXPECT_LT(error[2] / 12.0, 0.05) << "theta 0.5 keeps the mean field within 5%";
}

// Culls by the game's view radius: what "the mistake" sends.
std::vector<WeightedPoint> culled(const Arena& a) {
    std::vector<WeightedPoint> kept;
    for (const WeightedPoint& h : a.holes) {
        if (distance(h.position(), a.viewer) <= 620.0f) kept.push_back(h);
    }
    return kept;
}

TEST(GravityField, AggregationKeepsTheWeightCullingThrowsAway) {
    // The reason to aggregate rather than cull: every attractor's weight is still there,
    // and at a sound angle the field is far closer to the truth.
    AggregateTree tree;
    std::vector<Summary> summaries;
    double aggregated_error = 0.0;
    double culled_error = 0.0;
    for (std::uint64_t seed = 1; seed <= 12; ++seed) {
        const Arena a = arena(seed, 64, 50);
        tree.build_in(a.holes, {1500.0f, 1500.0f}, 3000.0f, 10);
        tree.summarize(a.viewer, 0.5f, summaries);
        const FieldError aggregated = measure_field_error(kGame, a.holes, summaries, a.pellets);
        const FieldError cut = measure_field_error(kGame, a.holes, culled(a), a.pellets);
        EXPECT_NEAR(aggregated.weight_kept, 1.0, 1e-6) << "seed " << seed;
        EXPECT_LT(cut.weight_kept, 0.5) << "seed " << seed;
        EXPECT_LT(aggregated.approx_evaluations, aggregated.exact_evaluations) << "seed " << seed;
        aggregated_error += aggregated.relative_error;
        culled_error += cut.relative_error;
    }
    EXPECT_LT(aggregated_error * 3.0, culled_error);
}

TEST(GravityField, AWideAngleIsWorseThanCullingAwayFromTheViewer) {
    // The limit of the criterion: measured to the centroid, a wide angle accepts cells the
    // viewer stands beside and drops a quadrant's weight on one point, which for probes
    // spread around the viewer is worse than leaving the far field out entirely.
    AggregateTree tree;
    std::vector<Summary> summaries;
    double wide_error = 0.0;
    double culled_error = 0.0;
    for (std::uint64_t seed = 1; seed <= 12; ++seed) {
        const Arena a = arena(seed, 64, 50, 600.0f);
        tree.build_in(a.holes, {1500.0f, 1500.0f}, 3000.0f, 10);
        tree.summarize(a.viewer, 1.2f, summaries);
        wide_error += measure_field_error(kGame, a.holes, summaries, a.pellets).relative_error;
        culled_error += measure_field_error(kGame, a.holes, culled(a), a.pellets).relative_error;
    }
    EXPECT_GT(wide_error, culled_error);
}

TEST(GravityField, ADiscWalkBuysFarMoreAccuracyPerEvaluationThanAPointWalk) {
    // Pellets fill the view around a client's hole, but a point walk only guarantees the
    // criterion at the hole. Walking for the whole view disc at theta 1.0 costs about what
    // a point walk at 0.5 does and is an order of magnitude closer to the truth.
    AggregateTree tree;
    std::vector<Summary> summaries;
    double point_error = 0.0;
    double disc_error = 0.0;
    std::uint64_t point_evals = 0;
    std::uint64_t disc_evals = 0;
    for (std::uint64_t seed = 1; seed <= 12; ++seed) {
        const Arena a = arena(seed, 64, 50, 440.0f);
        tree.build_in(a.holes, {1500.0f, 1500.0f}, 3000.0f, 10);
        tree.summarize(a.viewer, 0.5f, summaries);
        const FieldError point = measure_field_error(kGame, a.holes, summaries, a.pellets);
        tree.summarize_around(a.viewer, 620.0f, 1.0f, summaries);
        const FieldError disc = measure_field_error(kGame, a.holes, summaries, a.pellets);
        point_error += point.relative_error;
        disc_error += disc.relative_error;
        point_evals += point.approx_evaluations;
        disc_evals += disc.approx_evaluations;
    }
    EXPECT_LT(disc_error * 10.0, point_error);
    EXPECT_LT(static_cast<double>(disc_evals), static_cast<double>(point_evals) * 1.2);
}

TEST(GravityField, EvaluationsCountProbesTimesSources) {
    const Arena a = arena(3, 20, 30);
    std::vector<WeightedPoint> some(a.holes.begin(), a.holes.begin() + 5);
    const FieldError e = measure_field_error(kGame, a.holes, some, a.pellets);
    EXPECT_EQ(e.exact_evaluations, 20u * 30u);
    EXPECT_EQ(e.approx_evaluations, 5u * 30u);
}

TEST(GravityField, NoProbesAndNoSourcesMeasureNoError) {
    const FieldError e = measure_field_error(kGame, std::span<const WeightedPoint>{}, std::span<const Summary>{},
                                             std::span<const Vec2>{});
    EXPECT_EQ(e.relative_error, 0.0);
    EXPECT_EQ(e.worst_relative_error, 0.0);
    EXPECT_EQ(e.weight_kept, 1.0);
    EXPECT_EQ(e.exact_evaluations, 0u);
}

TEST(GravityField, AFieldFromNothingAgainstARealFieldIsAFullError) {
    const std::vector<WeightedPoint> sources{{100.0f, 0.0f, 5.0f}};
    const std::vector<Vec2> probes{{0.0f, 0.0f}};
    const FieldError e = measure_field_error(kGame, sources, std::span<const WeightedPoint>{}, probes);
    EXPECT_DOUBLE_EQ(e.relative_error, 1.0);
    EXPECT_DOUBLE_EQ(e.worst_relative_error, 1.0);
    EXPECT_EQ(e.weight_kept, 0.0);
}

}  // namespace
}  // namespace vantage
