// Proximity: what "within r" means, and the brute-force answer every structure is held to.
//
// SpatialGrid, CrossLink and the tests all decide membership with within_radius(), so a
// grid, a cross-list and an all-pairs scan return bit-identical sets: the test is inclusive
// (a point exactly r away is inside) and computed in float as dx*dx + dy*dy <= r*r.
// Structures that prune candidates by coordinate first (a cell window, a sorted-list band)
// prune with search_reach(r), a hair wider than r, so float rounding in the exact test can
// never admit a point the pruning step threw away.
//
// The brute-force functions are O(n) per query (O(n^2) for all pairs). They exist as the
// oracle for tests and the baseline for benchmarks; a server should not call them per tick.
// Non-finite positions never match anything, and a non-finite or negative radius matches
// nothing, so bad input cannot poison a comparison.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "vantage/vec.hpp"

namespace vantage {

// Inclusive distance test shared by every relevance structure. False for a NaN anywhere and
// for a negative or non-finite radius. Callers keep non-finite positions out (the structures
// reject them on entry; the brute-force functions skip them).
constexpr bool within_radius(Vec2 a, Vec2 b, float radius) {
    const float dx = a.x - b.x;
    const float dy = a.y - b.y;
    return radius >= 0.0f && radius <= std::numeric_limits<float>::max() && dx * dx + dy * dy <= radius * radius;
}

// How far along one axis a candidate may lie and still pass within_radius(): r plus a
// relative and an absolute slack that cover rounding in the squared test (including
// underflow of tiny squares). A band or window of this half-width never misses a match.
constexpr float search_reach(float radius) {
    return radius * (1.0f + 1.0f / 65536.0f) + 1e-18f;
}

// A query's nearest answer: the id and its Euclidean distance (world units).
struct NearestHit {
    std::uint32_t id = 0;
    float distance = 0.0f;
};

// Replaces `out` with every index i with within_radius(positions[i], center, radius),
// ascending. Returns how many there are.
std::size_t brute_force_in_radius(std::span<const Vec2> positions, Vec2 center, float radius,
                                  std::vector<std::uint32_t>& out);

// The index nearest to `center` among those within `radius` (ties: the lowest index), or
// nothing when none is within reach.
std::optional<NearestHit> brute_force_nearest(std::span<const Vec2> positions, Vec2 center, float radius);

// Ordered pairs (i, j), i != j, with positions j within radius of i: the all-pairs wall.
std::uint64_t brute_force_count_pairs(std::span<const Vec2> positions, float radius);

}  // namespace vantage
