#include "proximity/hash_grid.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace vantage::play {

void HashGrid::reset(float side, float cell) {
    assert(cell > 0.0f && side > 0.0f && "HashGrid: side and cell must be positive");
    cell_ = cell;
    per_axis_ = std::max(1, static_cast<std::int32_t>(std::ceil(side / cell)));
    assert(per_axis_ <= 65535 && "HashGrid: more than 65535 cells per axis");
    cells_.clear();
    cells_.reserve(static_cast<std::size_t>(per_axis_) * static_cast<std::size_t>(per_axis_));
    for (std::int32_t y = 0; y < per_axis_; ++y) {
        for (std::int32_t x = 0; x < per_axis_; ++x) cells_[key(x, y)].reserve(8);
    }
}

std::int32_t HashGrid::cell_of(float v) const {
    return std::clamp(static_cast<std::int32_t>(std::floor(v / cell_)), 0, per_axis_ - 1);
}

std::uint64_t HashGrid::build(std::span<const Vec2> positions) {
    for (auto& [k, ids] : cells_) ids.clear();
    for (std::size_t i = 0; i < positions.size(); ++i) {
        cells_[key(cell_of(positions[i].x), cell_of(positions[i].y))].push_back(static_cast<std::uint32_t>(i));
    }
    return positions.size();
}

}  // namespace vantage::play
