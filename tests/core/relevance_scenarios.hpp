// Point layouts shared by the relevance tests and benchmarks (tests/bench includes this
// file too), so a property test and a benchmark exercise the same worlds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "vantage/random.hpp"
#include "vantage/vec.hpp"

namespace vantage::scenario {

enum class Layout {
    Uniform,         // spread evenly over the area
    Clustered,       // a few dense blobs a couple of cells wide
    OneSpot,         // everyone on the same point (the cross-list's collapse case)
    CellBoundaries,  // coordinates on exact multiples of half a cell, many duplicates
    Negative,        // an area entirely at negative coordinates, 10% of points outside it
};

inline const char* layout_name(Layout layout) {
    switch (layout) {
        case Layout::Uniform:
            return "uniform";
        case Layout::Clustered:
            return "clustered";
        case Layout::OneSpot:
            return "one-spot";
        case Layout::CellBoundaries:
            return "cell-boundaries";
        case Layout::Negative:
            return "negative";
    }
    return "?";
}

inline constexpr Layout kAllLayouts[] = {Layout::Uniform, Layout::Clustered, Layout::OneSpot, Layout::CellBoundaries,
                                         Layout::Negative};

// A square world [origin, origin + extent]^2 binned with cells of cell_size.
struct World {
    Vec2 origin{0.0f, 0.0f};
    float extent = 1000.0f;
    float cell_size = 50.0f;
};

// The world a layout uses: Negative moves the origin well below zero.
inline World world_for(Layout layout, float extent, float cell_size) {
    World w{{0.0f, 0.0f}, extent, cell_size};
    if (layout == Layout::Negative) w.origin = {-3.0f * extent, -2.0f * extent};
    return w;
}

inline std::vector<Vec2> make_points(Layout layout, const World& w, std::size_t n, XorShift& rng) {
    std::vector<Vec2> points;
    points.reserve(n);
    const Vec2 lo = w.origin;
    const Vec2 hi = w.origin + Vec2{w.extent, w.extent};
    switch (layout) {
        case Layout::Uniform:
            for (std::size_t i = 0; i < n; ++i) points.push_back({rng.range(lo.x, hi.x), rng.range(lo.y, hi.y)});
            break;
        case Layout::Clustered: {
            const std::size_t clusters = 1 + n / 250;
            std::vector<Vec2> centres;
            for (std::size_t c = 0; c < clusters; ++c)
                centres.push_back({rng.range(lo.x, hi.x), rng.range(lo.y, hi.y)});
            const float spread = 2.0f * w.cell_size;
            for (std::size_t i = 0; i < n; ++i) {
                const Vec2 c = centres[static_cast<std::size_t>(rng.below(clusters))];
                // A sum of two uniforms: denser in the middle, bounded at the edge.
                const float dx = (rng.unit() + rng.unit() - 1.0f) * spread;
                const float dy = (rng.unit() + rng.unit() - 1.0f) * spread;
                points.push_back({c.x + dx, c.y + dy});
            }
            break;
        }
        case Layout::OneSpot: {
            const Vec2 spot{rng.range(lo.x, hi.x), rng.range(lo.y, hi.y)};
            for (std::size_t i = 0; i < n; ++i) points.push_back(spot);
            break;
        }
        case Layout::CellBoundaries: {
            const auto steps = static_cast<std::uint64_t>(2.0f * w.extent / w.cell_size) + 1;
            const float half = 0.5f * w.cell_size;
            for (std::size_t i = 0; i < n; ++i) {
                points.push_back({lo.x + static_cast<float>(rng.below(steps)) * half,
                                  lo.y + static_cast<float>(rng.below(steps)) * half});
            }
            break;
        }
        case Layout::Negative: {
            const float margin = 0.25f * w.extent;
            for (std::size_t i = 0; i < n; ++i) {
                if (rng.chance(0.1f)) {
                    points.push_back(
                        {rng.range(lo.x - margin, hi.x + margin), rng.range(lo.y - margin, hi.y + margin)});
                } else {
                    points.push_back({rng.range(lo.x, hi.x), rng.range(lo.y, hi.y)});
                }
            }
            break;
        }
    }
    return points;
}

}  // namespace vantage::scenario
