#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "vantage/bit_cast.hpp"
#include "vantage/random.hpp"
#include "vantage/vec.hpp"

namespace vantage {
namespace {

TEST(Vec2, ArithmeticIsComponentWise) {
    const Vec2 a{1.0f, 2.0f}, b{3.0f, -4.0f};
    EXPECT_EQ(a + b, (Vec2{4.0f, -2.0f}));
    EXPECT_EQ(a - b, (Vec2{-2.0f, 6.0f}));
    EXPECT_EQ(a * 2.0f, (Vec2{2.0f, 4.0f}));
    EXPECT_EQ(2.0f * a, (Vec2{2.0f, 4.0f}));
    EXPECT_EQ(b / 2.0f, (Vec2{1.5f, -2.0f}));
    EXPECT_FLOAT_EQ(a.dot(b), -5.0f);
    EXPECT_FLOAT_EQ(b.length(), 5.0f);
    EXPECT_FLOAT_EQ(distance(a, b), std::sqrt(40.0f));
}

TEST(Vec2, NormalizeOfZeroIsZeroNotNaN) {
    EXPECT_EQ(Vec2::zero().normalize(), Vec2::zero());
    EXPECT_FLOAT_EQ((Vec2{3.0f, 4.0f}).normalize().length(), 1.0f);
}

TEST(Vec2, FinitenessIsReported) {
    EXPECT_TRUE((Vec2{1.0f, 2.0f}).is_finite());
    EXPECT_FALSE((Vec2{std::numeric_limits<float>::quiet_NaN(), 0.0f}).is_finite());
    EXPECT_FALSE((Vec2{0.0f, std::numeric_limits<float>::infinity()}).is_finite());
}

TEST(AllFinite, AgreesWithStdIsfiniteOnEveryKindOfFloat) {
    // The one-comparison test (v - v summed) against the definition: special values in every
    // position of pairs and triples, then random bit patterns (every exponent, NaN payloads
    // and denormals included).
    constexpr float inf = std::numeric_limits<float>::infinity();
    const std::vector<float> specials{0.0f,
                                      -0.0f,
                                      1.0f,
                                      -3.5f,
                                      std::numeric_limits<float>::max(),
                                      std::numeric_limits<float>::lowest(),
                                      std::numeric_limits<float>::min(),
                                      std::numeric_limits<float>::denorm_min(),
                                      -std::numeric_limits<float>::denorm_min(),
                                      inf,
                                      -inf,
                                      std::numeric_limits<float>::quiet_NaN(),
                                      -std::numeric_limits<float>::quiet_NaN(),
                                      std::numeric_limits<float>::signaling_NaN()};
    const auto finite = [](float v) { return std::isfinite(v); };
    for (const float a : specials) {
        EXPECT_EQ(all_finite(a), finite(a)) << a;
        for (const float b : specials) {
            EXPECT_EQ(all_finite(a, b), finite(a) && finite(b)) << a << " " << b;
            for (const float c : specials) EXPECT_EQ(all_finite(a, b, c), finite(a) && finite(b) && finite(c));
        }
    }
    XorShift rng(0xF1417E);
    for (int i = 0; i < 200000; ++i) {
        const float a = bit_cast<float>(static_cast<std::uint32_t>(rng.next()));
        const float b = bit_cast<float>(static_cast<std::uint32_t>(rng.next() >> 32));
        ASSERT_EQ(all_finite(a, b), finite(a) && finite(b)) << i;
    }
}

TEST(Vec3, ArithmeticIsComponentWise) {
    const Vec3 a{1.0f, 2.0f, 3.0f}, b{-1.0f, 0.5f, 2.0f};
    EXPECT_EQ(a + b, (Vec3{0.0f, 2.5f, 5.0f}));
    EXPECT_EQ(a - b, (Vec3{2.0f, 1.5f, 1.0f}));
    EXPECT_EQ(a * 2.0f, (Vec3{2.0f, 4.0f, 6.0f}));
    EXPECT_EQ(a / 2.0f, (Vec3{0.5f, 1.0f, 1.5f}));
    EXPECT_FLOAT_EQ(a.dot(b), 6.0f);
    EXPECT_FLOAT_EQ((Vec3{2.0f, 3.0f, 6.0f}).length(), 7.0f);
    EXPECT_EQ(Vec3::zero().normalize(), Vec3::zero());
    EXPECT_FALSE((Vec3{0.0f, 0.0f, std::numeric_limits<float>::infinity()}).is_finite());
}

}  // namespace
}  // namespace vantage
