#include <gtest/gtest.h>

#include "vantage/random.hpp"

namespace vantage {
namespace {

TEST(Mix64, PinnedValuesMatchTheReferenceToolkit) {
    EXPECT_EQ(mix64(0), 0u);
    EXPECT_EQ(mix64(1), 0x5f4931e51b588313ULL);
    EXPECT_EQ(mix64(0xDEADBEEFULL), 0xa3769b68a0c40fccULL);
}

TEST(XorShift, PinnedStreamMatchesTheReferenceToolkit) {
    XorShift rng(0x5EED);
    EXPECT_EQ(rng.next(), 0x0000179481ea4510ULL);
    EXPECT_EQ(rng.next(), 0xc7ba571331eed59aULL);
}

TEST(XorShift, ZeroSeedStillProducesAStream) {
    XorShift rng(0);
    const auto a = rng.next();
    const auto b = rng.next();
    EXPECT_NE(a, 0u);
    EXPECT_NE(a, b);
}

TEST(XorShift, SameSeedSameStream) {
    XorShift a(42), b(42);
    for (int i = 0; i < 1000; ++i) ASSERT_EQ(a.next(), b.next()) << "draw " << i;
}

TEST(XorShift, DrawsStayInsideTheirBounds) {
    XorShift rng(7);
    for (int i = 0; i < 100000; ++i) {
        EXPECT_LT(rng.below(13), 13u);
        const float u = rng.unit();
        ASSERT_GE(u, 0.0f);
        ASSERT_LT(u, 1.0f);
        const float r = rng.range(-5.0f, 5.0f);
        ASSERT_GE(r, -5.0f);
        ASSERT_LT(r, 5.0f);
    }
    EXPECT_EQ(rng.below(0), 0u);
}

TEST(XorShift, ChanceRespectsItsExtremes) {
    XorShift rng(9);
    int hits = 0;
    for (int i = 0; i < 10000; ++i) {
        EXPECT_FALSE(rng.chance(0.0f));
        EXPECT_TRUE(rng.chance(1.0f));
        hits += rng.chance(0.25f) ? 1 : 0;
    }
    EXPECT_NEAR(hits, 2500, 200);
}

}  // namespace
}  // namespace vantage
