#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "vantage/historical_state_buffer.hpp"
#include "vantage/interpolatable.hpp"
#include "vantage/snapshot_buffer.hpp"
#include "vantage/vec.hpp"

namespace game {

// A game's own state: it opts in by declaring interpolate() beside it (found by ADL).
struct Kinematic {
    vantage::Vec2 position;
    vantage::Vec2 velocity;
    bool is_finite() const { return position.is_finite() && velocity.is_finite(); }
};
inline Kinematic interpolate(const Kinematic& a, const Kinematic& b, float t) {
    return {vantage::interpolate(a.position, b.position, t), vantage::interpolate(a.velocity, b.velocity, t)};
}

// Blendable but not a vector: can be rewound, cannot be extrapolated or smoothed.
struct Flag {
    bool on = false;
};

}  // namespace game

namespace vantage {
namespace {

static_assert(Interpolatable<float> && Interpolatable<double> && Interpolatable<Vec2> && Interpolatable<Vec3>);
static_assert(LinearState<float> && LinearState<Vec2> && LinearState<Vec3>);
static_assert(Interpolatable<game::Kinematic> && !LinearState<game::Kinematic>);
static_assert(!Interpolatable<game::Flag> && !Interpolatable<std::string>);

TEST(Interpolatable, TheEndpointsArePinned) {
    EXPECT_EQ(interpolate(Vec2{1.0f, 2.0f}, Vec2{5.0f, -2.0f}, 0.0f), (Vec2{1.0f, 2.0f}));
    EXPECT_EQ(interpolate(Vec2{1.0f, 2.0f}, Vec2{5.0f, -2.0f}, 1.0f), (Vec2{5.0f, -2.0f}));
    EXPECT_EQ(interpolate(Vec3{0.0f, 0.0f, 0.0f}, Vec3{2.0f, 4.0f, 8.0f}, 0.5f), (Vec3{1.0f, 2.0f, 4.0f}));
    EXPECT_DOUBLE_EQ(interpolate(1.0, 3.0, 0.25f), 1.5);
}

TEST(Interpolatable, AGameStateIsRewoundThroughItsOwnInterpolate) {
    HistoricalStateBuffer<int, game::Kinematic> history;
    history.record_state(1, 0.0, {{0.0f, 0.0f}, {1.0f, 0.0f}});
    history.record_state(1, 100.0, {{10.0f, 0.0f}, {3.0f, 0.0f}});
    const auto s = history.get_interpolated_state(1, 50.0);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->state.position, (Vec2{5.0f, 0.0f}));
    EXPECT_EQ(s->state.velocity, (Vec2{2.0f, 0.0f}));
}

TEST(Interpolatable, AStateThatCanSayItIsNotFiniteIsRefused) {
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_FALSE(state_is_finite(std::numeric_limits<float>::quiet_NaN()));
    EXPECT_FALSE(state_is_finite(Vec3{0.0f, inf, 0.0f}));
    EXPECT_TRUE(state_is_finite(game::Flag{}));  // cannot tell: trusted
    SnapshotBuffer<game::Kinematic> buffer(4);
    EXPECT_EQ(buffer.add_snapshot(0.0, {{0.0f, 0.0f}, {inf, 0.0f}}), SnapshotAdd::NonFinite);
}

}  // namespace
}  // namespace vantage
