// Morton (Z-order) keys: interleave the bits of integer cell coordinates into one integer.
//
// Cells that are close in 2D or 3D get keys that are close in the 1D order, which is what a
// locality sort, a broadphase or a cache-friendly compaction wants. The layout is fixed and
// part of the contract: bit 0 of x goes to bit 0 of the key, bit 0 of y to bit 1 (and z to
// bit 2 in 3D), and so on upward. Two consequences the tests pin:
//   - the key is monotone in each axis: x1 <= x2 and y1 <= y2 imply key1 <= key2;
//   - an aligned 2^k block of cells (each coordinate's low k bits free) occupies one
//     contiguous key range of length 4^k (8^k in 3D): the quadtree/octree property.
// Widths: 2D packs 16 bits per axis into 32 or 32 bits per axis into 64; 3D packs 10 bits
// per axis into 32 (bits 30 and 31 stay zero) or 21 into 64 (bit 63 stays zero). The 3D
// encoders ignore coordinate bits above their width (they are masked, not an error).
// Coordinates are unsigned: map signed cells into range first (GridQuantizer does).
#pragma once

#include <cstdint>

namespace vantage {

struct MortonCell2 {
    std::uint32_t x = 0;
    std::uint32_t y = 0;
    constexpr bool operator==(const MortonCell2&) const = default;
};

struct MortonCell3 {
    std::uint32_t x = 0;
    std::uint32_t y = 0;
    std::uint32_t z = 0;
    constexpr bool operator==(const MortonCell3&) const = default;
};

namespace morton_detail {

// Spreads the low 16 bits of v so bit i lands on bit 2i.
constexpr std::uint32_t spread_by_1(std::uint32_t v) {
    v &= 0x0000ffffu;
    v = (v | (v << 8)) & 0x00ff00ffu;
    v = (v | (v << 4)) & 0x0f0f0f0fu;
    v = (v | (v << 2)) & 0x33333333u;
    v = (v | (v << 1)) & 0x55555555u;
    return v;
}
constexpr std::uint32_t compact_by_1(std::uint32_t v) {
    v &= 0x55555555u;
    v = (v | (v >> 1)) & 0x33333333u;
    v = (v | (v >> 2)) & 0x0f0f0f0fu;
    v = (v | (v >> 4)) & 0x00ff00ffu;
    v = (v | (v >> 8)) & 0x0000ffffu;
    return v;
}
constexpr std::uint64_t spread_by_1(std::uint64_t v) {
    v &= 0x00000000ffffffffull;
    v = (v | (v << 16)) & 0x0000ffff0000ffffull;
    v = (v | (v << 8)) & 0x00ff00ff00ff00ffull;
    v = (v | (v << 4)) & 0x0f0f0f0f0f0f0f0full;
    v = (v | (v << 2)) & 0x3333333333333333ull;
    v = (v | (v << 1)) & 0x5555555555555555ull;
    return v;
}
constexpr std::uint64_t compact_by_1(std::uint64_t v) {
    v &= 0x5555555555555555ull;
    v = (v | (v >> 1)) & 0x3333333333333333ull;
    v = (v | (v >> 2)) & 0x0f0f0f0f0f0f0f0full;
    v = (v | (v >> 4)) & 0x00ff00ff00ff00ffull;
    v = (v | (v >> 8)) & 0x0000ffff0000ffffull;
    v = (v | (v >> 16)) & 0x00000000ffffffffull;
    return v;
}
// Spreads the low 10 bits of v so bit i lands on bit 3i.
constexpr std::uint32_t spread_by_2(std::uint32_t v) {
    v &= 0x000003ffu;
    v = (v | (v << 16)) & 0xff0000ffu;
    v = (v | (v << 8)) & 0x0300f00fu;
    v = (v | (v << 4)) & 0x030c30c3u;
    v = (v | (v << 2)) & 0x09249249u;
    return v;
}
constexpr std::uint32_t compact_by_2(std::uint32_t v) {
    v &= 0x09249249u;
    v = (v | (v >> 2)) & 0x030c30c3u;
    v = (v | (v >> 4)) & 0x0300f00fu;
    v = (v | (v >> 8)) & 0xff0000ffu;
    v = (v | (v >> 16)) & 0x000003ffu;
    return v;
}
// Spreads the low 21 bits of v so bit i lands on bit 3i.
constexpr std::uint64_t spread_by_2(std::uint64_t v) {
    v &= 0x00000000001fffffull;
    v = (v | (v << 32)) & 0x001f00000000ffffull;
    v = (v | (v << 16)) & 0x001f0000ff0000ffull;
    v = (v | (v << 8)) & 0x100f00f00f00f00full;
    v = (v | (v << 4)) & 0x10c30c30c30c30c3ull;
    v = (v | (v << 2)) & 0x1249249249249249ull;
    return v;
}
constexpr std::uint64_t compact_by_2(std::uint64_t v) {
    v &= 0x1249249249249249ull;
    v = (v | (v >> 2)) & 0x10c30c30c30c30c3ull;
    v = (v | (v >> 4)) & 0x100f00f00f00f00full;
    v = (v | (v >> 8)) & 0x001f0000ff0000ffull;
    v = (v | (v >> 16)) & 0x001f00000000ffffull;
    v = (v | (v >> 32)) & 0x00000000001fffffull;
    return v;
}

}  // namespace morton_detail

inline constexpr int kMorton3Bits32 = 10;  // bits per axis in a 32-bit 3D key
inline constexpr int kMorton3Bits64 = 21;  // bits per axis in a 64-bit 3D key

// 2D, 16 bits per axis, 32-bit key.
constexpr std::uint32_t morton2_encode32(std::uint16_t x, std::uint16_t y) {
    return morton_detail::spread_by_1(std::uint32_t{x}) | (morton_detail::spread_by_1(std::uint32_t{y}) << 1);
}
constexpr MortonCell2 morton2_decode32(std::uint32_t key) {
    return {morton_detail::compact_by_1(key), morton_detail::compact_by_1(key >> 1)};
}

// 2D, 32 bits per axis, 64-bit key.
constexpr std::uint64_t morton2_encode64(std::uint32_t x, std::uint32_t y) {
    return morton_detail::spread_by_1(std::uint64_t{x}) | (morton_detail::spread_by_1(std::uint64_t{y}) << 1);
}
constexpr MortonCell2 morton2_decode64(std::uint64_t key) {
    return {static_cast<std::uint32_t>(morton_detail::compact_by_1(key)),
            static_cast<std::uint32_t>(morton_detail::compact_by_1(key >> 1))};
}

// 3D, low 10 bits per axis, 32-bit key.
constexpr std::uint32_t morton3_encode32(std::uint32_t x, std::uint32_t y, std::uint32_t z) {
    return morton_detail::spread_by_2(x) | (morton_detail::spread_by_2(y) << 1) | (morton_detail::spread_by_2(z) << 2);
}
constexpr MortonCell3 morton3_decode32(std::uint32_t key) {
    return {morton_detail::compact_by_2(key), morton_detail::compact_by_2(key >> 1),
            morton_detail::compact_by_2(key >> 2)};
}

// 3D, low 21 bits per axis, 64-bit key.
constexpr std::uint64_t morton3_encode64(std::uint32_t x, std::uint32_t y, std::uint32_t z) {
    return morton_detail::spread_by_2(std::uint64_t{x}) | (morton_detail::spread_by_2(std::uint64_t{y}) << 1) |
           (morton_detail::spread_by_2(std::uint64_t{z}) << 2);
}
constexpr MortonCell3 morton3_decode64(std::uint64_t key) {
    return {static_cast<std::uint32_t>(morton_detail::compact_by_2(key)),
            static_cast<std::uint32_t>(morton_detail::compact_by_2(key >> 1)),
            static_cast<std::uint32_t>(morton_detail::compact_by_2(key >> 2))};
}

}  // namespace vantage
