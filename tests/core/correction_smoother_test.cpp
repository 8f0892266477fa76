#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "vantage/correction_smoother.hpp"
#include "vantage/vec.hpp"

namespace vantage {
namespace {

TEST(CorrectionSmoother, WithoutACorrectionItDrawsTheLogicalStateUnchanged) {
    CorrectionSmoother<Vec2> s;
    s.advance(16.0);
    EXPECT_EQ(s.render({3.0f, 4.0f}), (Vec2{3.0f, 4.0f}));
    EXPECT_FALSE(s.is_easing());
}

TEST(CorrectionSmoother, AnEaseStartsAtTheOldDrawnPositionAndReachesTheLogicalOne) {
    CorrectionSmoother<Vec2> s;
    const Vec2 before{100.0f, 0.0f};
    const Vec2 after{80.0f, 0.0f};
    s.add_correction(before, after);
    EXPECT_EQ(s.render(after), before);  // no visible jump at the correction
    float previous = s.error();
    for (int frame = 0; frame < 200; ++frame) {
        s.advance(1000.0 / 60.0);
        EXPECT_LE(s.error(), previous);
        previous = s.error();
    }
    EXPECT_EQ(s.render(after), after);
    EXPECT_FALSE(s.is_easing());
    EXPECT_EQ(s.counters().corrections, 1u);
}

TEST(CorrectionSmoother, TheEaseTracksALogicalStateThatKeepsMoving) {
    CorrectionSmoother<float> s;
    s.add_correction(10.0f, 0.0f);
    float logical = 0.0f;
    for (int frame = 0; frame < 10; ++frame) {
        logical += 1.0f;
        s.advance(16.0);
    }
    EXPECT_FLOAT_EQ(s.render(logical), logical + s.offset());
    EXPECT_GT(s.render(logical), logical);
}

TEST(CorrectionSmoother, ACorrectionMidEaseAddsToWhatIsStillBeingDrawn) {
    CorrectionSmoother<float> s;
    s.add_correction(10.0f, 0.0f);
    s.advance(50.0);
    const float drawn = s.render(0.0f);
    s.add_correction(0.0f, -5.0f);  // the logical state jumps again
    EXPECT_FLOAT_EQ(s.render(-5.0f), drawn);
}

TEST(CorrectionSmoother, TheSameWallTimeShedsTheSameErrorAtAnyFramerate) {
    float remaining[3];
    const double fps[3] = {30.0, 60.0, 144.0};
    for (int i = 0; i < 3; ++i) {
        // One band so the retained fraction does not depend on how the error was sampled.
        CorrectionSmoother<float> s(CorrectionSmoothingOptions{.retain_small = 0.9f, .retain_large = 0.9f});
        s.add_correction(10.0f, 0.0f);
        const int frames = static_cast<int>(std::lround(fps[i] / 2.0));  // half a second
        for (int f = 0; f < frames; ++f) s.advance(1000.0 / fps[i]);
        remaining[i] = s.error();
    }
    EXPECT_NEAR(remaining[0], remaining[1], 1e-4f);
    EXPECT_NEAR(remaining[1], remaining[2], 1e-4f);
}

TEST(CorrectionSmoother, ALargeErrorClearsSoonerThanASmallOne) {
    CorrectionSmoother<float> s;
    EXPECT_FLOAT_EQ(s.retain_for(0.0f), 0.95f);
    EXPECT_FLOAT_EQ(s.retain_for(1000.0f), 0.85f);  // magnitudes outside the band clamp
    EXPECT_LT(s.retain_for(20.0f), s.retain_for(5.0f));
}

TEST(CorrectionSmoother, AnErrorBeyondTheSnapDistanceIsATeleportNotAnEase) {
    CorrectionSmoother<Vec2> s(CorrectionSmoothingOptions{.snap_error = 100.0f});
    s.add_correction({0.0f, 0.0f}, {500.0f, 0.0f});
    EXPECT_FALSE(s.is_easing());
    EXPECT_EQ(s.counters().snaps, 1u);
}

TEST(CorrectionSmoother, AKeptErrorNeverMoves) {
    CorrectionSmoother<float> s(CorrectionSmoothingOptions{.retain_small = 1.0f, .retain_large = 1.0f});
    s.add_correction(3.0f, 0.0f);
    for (int f = 0; f < 100; ++f) s.advance(16.0);
    EXPECT_FLOAT_EQ(s.offset(), 3.0f);
}

TEST(CorrectionSmoother, ANonFiniteOrZeroCorrectionIsIgnored) {
    CorrectionSmoother<Vec2> s;
    s.add_correction({std::numeric_limits<float>::quiet_NaN(), 0.0f}, {});
    s.add_correction({1.0f, 1.0f}, {1.0f, 1.0f});
    EXPECT_FALSE(s.is_easing());
    EXPECT_EQ(s.counters().corrections, 0u);
}

}  // namespace
}  // namespace vantage
