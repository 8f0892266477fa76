// HashGrid: the proximity chapter's bolt-on hash grid, the baseline the dense bin is measured
// against. Cell key (column << 16 | row) -> one heap vector of ids per cell; a query looks up
// the 3x3 block of cells around its centre, hashing each key, and follows each cell's pointer
// to its separately allocated vector.
//
// One change from the chapter, for the playgrounds' allocation promise (an idle or steady tick
// allocates nothing): the map is filled with every cell of the bounded world at reset and a
// build only clears the vectors (keeping their capacity), so a steady tick pays the hashing
// and the pointer chasing, not malloc. The chapter's version also allocates per occupied cell
// each build, so this baseline understates its gap to the dense bin.
//
// Queries are exact with a radius of at most the cell size (within_radius, as every lane).
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "vantage/vec.hpp"

namespace vantage::play {

class HashGrid {
public:
    // A world [0, side)^2 cut into cells of `cell` units (at most 65535 per axis, asserted).
    void reset(float side, float cell);
    // Clears every cell and inserts point i as id i. Returns the operations: one hash per insert.
    std::uint64_t build(std::span<const Vec2> positions);
    // Calls visit(id) for every point within_radius(center, radius); radius <= cell. Returns
    // the operations: one hash look-up per cell of the 3x3 block plus one per candidate.
    template <class Visit>
    std::uint64_t for_each_in_radius(std::span<const Vec2> positions, Vec2 center, float radius, Visit&& visit) const;

    std::size_t cell_count() const { return cells_.size(); }

private:
    std::int32_t cell_of(float v) const;
    static std::uint32_t key(std::int32_t column, std::int32_t row) {
        return (static_cast<std::uint32_t>(column) << 16) | static_cast<std::uint32_t>(row);
    }

    float cell_ = 1.0f;
    std::int32_t per_axis_ = 1;
    std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> cells_;
};

}  // namespace vantage::play

#include "vantage/proximity.hpp"

namespace vantage::play {

template <class Visit>
std::uint64_t HashGrid::for_each_in_radius(std::span<const Vec2> positions, Vec2 center, float radius,
                                           Visit&& visit) const {
    std::uint64_t ops = 0;
    const std::int32_t cx = cell_of(center.x);
    const std::int32_t cy = cell_of(center.y);
    for (std::int32_t dy = -1; dy <= 1; ++dy) {
        for (std::int32_t dx = -1; dx <= 1; ++dx) {
            const std::int32_t x = cx + dx;
            const std::int32_t y = cy + dy;
            if (x < 0 || y < 0 || x >= per_axis_ || y >= per_axis_) continue;
            ++ops;
            const auto it = cells_.find(key(x, y));
            if (it == cells_.end()) continue;
            for (const std::uint32_t id : it->second) {
                ++ops;
                if (within_radius(positions[id], center, radius)) visit(id);
            }
        }
    }
    return ops;
}

}  // namespace vantage::play
