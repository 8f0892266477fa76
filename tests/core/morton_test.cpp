#include <gtest/gtest.h>

#include <cstdint>

#include "vantage/grid_quantizer.hpp"
#include "vantage/morton.hpp"
#include "vantage/random.hpp"

namespace vantage {
namespace {

// The definition, one bit at a time: bit i of axis a goes to bit i * dims + a.
std::uint64_t naive_interleave(const std::uint32_t* axes, int dims, int bits) {
    std::uint64_t key = 0;
    for (int i = 0; i < bits; ++i) {
        for (int a = 0; a < dims; ++a) key |= std::uint64_t{(axes[a] >> i) & 1u} << (i * dims + a);
    }
    return key;
}

TEST(Morton, TwoDimensional32MatchesTheBitByBitDefinition) {
    XorShift rng(0xA11CE);
    for (int i = 0; i < 2000; ++i) {
        const auto x = static_cast<std::uint16_t>(rng.next());
        const auto y = static_cast<std::uint16_t>(rng.next());
        const std::uint32_t axes[] = {x, y};
        ASSERT_EQ(morton2_encode32(x, y), naive_interleave(axes, 2, 16)) << "x=" << x << " y=" << y;
    }
}

TEST(Morton, TwoDimensional64MatchesTheBitByBitDefinition) {
    XorShift rng(0xB0B);
    for (int i = 0; i < 2000; ++i) {
        const auto x = static_cast<std::uint32_t>(rng.next());
        const auto y = static_cast<std::uint32_t>(rng.next());
        const std::uint32_t axes[] = {x, y};
        ASSERT_EQ(morton2_encode64(x, y), naive_interleave(axes, 2, 32)) << "x=" << x << " y=" << y;
    }
}

TEST(Morton, ThreeDimensionalKeysMatchTheBitByBitDefinition) {
    XorShift rng(0xC0FFEE);
    for (int i = 0; i < 2000; ++i) {
        const std::uint32_t a32[] = {static_cast<std::uint32_t>(rng.below(1u << 10)),
                                     static_cast<std::uint32_t>(rng.below(1u << 10)),
                                     static_cast<std::uint32_t>(rng.below(1u << 10))};
        ASSERT_EQ(morton3_encode32(a32[0], a32[1], a32[2]), naive_interleave(a32, 3, 10));
        const std::uint32_t a64[] = {static_cast<std::uint32_t>(rng.below(1u << 21)),
                                     static_cast<std::uint32_t>(rng.below(1u << 21)),
                                     static_cast<std::uint32_t>(rng.below(1u << 21))};
        ASSERT_EQ(morton3_encode64(a64[0], a64[1], a64[2]), naive_interleave(a64, 3, 21));
    }
}

TEST(Morton, EveryWidthRoundTripsIncludingTheExtremes) {
    XorShift rng(0x5EED);
    const std::uint32_t extremes[] = {0u, 1u, 0xdeadbeefu, 0xffffffffu, 0x80000000u, 0x7fffffffu};
    for (const std::uint32_t a : extremes) {
        for (const std::uint32_t b : extremes) {
            EXPECT_EQ(morton2_decode64(morton2_encode64(a, b)), (MortonCell2{a, b}));
            const auto a16 = static_cast<std::uint16_t>(a);
            const auto b16 = static_cast<std::uint16_t>(b);
            EXPECT_EQ(morton2_decode32(morton2_encode32(a16, b16)), (MortonCell2{a16, b16}));
            EXPECT_EQ(morton3_decode64(morton3_encode64(a, b, a ^ b)),
                      (MortonCell3{a & 0x1fffffu, b & 0x1fffffu, (a ^ b) & 0x1fffffu}));
            EXPECT_EQ(morton3_decode32(morton3_encode32(a, b, a ^ b)),
                      (MortonCell3{a & 0x3ffu, b & 0x3ffu, (a ^ b) & 0x3ffu}));
        }
    }
    for (int i = 0; i < 5000; ++i) {
        const auto x = static_cast<std::uint32_t>(rng.next());
        const auto y = static_cast<std::uint32_t>(rng.next());
        const auto z = static_cast<std::uint32_t>(rng.next());
        ASSERT_EQ(morton2_decode64(morton2_encode64(x, y)), (MortonCell2{x, y})) << "draw " << i;
        ASSERT_EQ(morton3_decode64(morton3_encode64(x, y, z)),
                  (MortonCell3{x & 0x1fffffu, y & 0x1fffffu, z & 0x1fffffu}))
            << "draw " << i;
    }
}

TEST(Morton, ThreeDimensionalKeysLeaveTheirTopBitsClear) {
    EXPECT_EQ(morton3_encode32(0xffffffffu, 0xffffffffu, 0xffffffffu), 0x3fffffffu);
    EXPECT_EQ(morton3_encode64(0xffffffffu, 0xffffffffu, 0xffffffffu), 0x7fffffffffffffffull);
}

TEST(Morton, KeysAreMonotoneInEachAxis) {
    XorShift rng(77);
    for (int i = 0; i < 5000; ++i) {
        const auto x = static_cast<std::uint16_t>(rng.below(0xffff));
        const auto y = static_cast<std::uint16_t>(rng.below(0xffff));
        const auto dx = static_cast<std::uint16_t>(rng.below(static_cast<std::uint64_t>(0xffff - x) + 1));
        const auto dy = static_cast<std::uint16_t>(rng.below(static_cast<std::uint64_t>(0xffff - y) + 1));
        ASSERT_LE(morton2_encode32(x, y),
                  morton2_encode32(static_cast<std::uint16_t>(x + dx), static_cast<std::uint16_t>(y + dy)))
            << "x=" << x << " y=" << y << " dx=" << dx << " dy=" << dy;
    }
}

TEST(Morton, AnAlignedBlockIsOneContiguousKeyRange) {
    XorShift rng(91);
    for (int trial = 0; trial < 50; ++trial) {
        const int k = static_cast<int>(rng.below(5));  // blocks of 1, 2, 4, 8, 16 cells a side
        const std::uint32_t side = 1u << k;
        const auto bx = static_cast<std::uint32_t>(rng.below(1000)) * side;
        const auto by = static_cast<std::uint32_t>(rng.below(1000)) * side;
        const std::uint64_t base = morton2_encode64(bx, by);
        for (std::uint32_t y = 0; y < side; ++y) {
            for (std::uint32_t x = 0; x < side; ++x) {
                const std::uint64_t key = morton2_encode64(bx + x, by + y);
                ASSERT_GE(key, base) << "trial " << trial;
                ASSERT_LT(key, base + std::uint64_t{side} * side) << "trial " << trial;
            }
        }
    }
}

TEST(Morton, ANeighbourInXIsCloserThanAFarCellInY) {
    EXPECT_LT(morton2_encode64(11, 10) - morton2_encode64(10, 10),
              morton2_encode64(10, 1000) - morton2_encode64(10, 10));
}

TEST(Morton, GridKeysStayMonotoneAcrossZero) {
    EXPECT_LT(GridQuantizer::morton_key({-1, 0}), GridQuantizer::morton_key({0, 0}));
    EXPECT_LT(GridQuantizer::morton_key({0, -1}), GridQuantizer::morton_key({0, 0}));
    EXPECT_LT(GridQuantizer::morton_key({-5, -5}), GridQuantizer::morton_key({3, 2}));
}

}  // namespace
}  // namespace vantage
