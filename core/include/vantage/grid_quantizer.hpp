// GridQuantizer: world positions to integer cell coordinates, for a uniform square grid.
//
// A cell is the half-open square [origin + c * cell_size, origin + (c + 1) * cell_size) on
// each axis, so cell (0, 0) starts at the origin and points below the origin get negative
// cells. The quantizer itself is unbounded; SpatialGrid adds bounds (and clamping). The
// continuous cell coordinate is computed in double so that a point's cell and a query's
// window of cells are derived by the same monotone arithmetic and never disagree at a
// boundary. Non-finite points have no cell.
#pragma once

#include <cstdint>
#include <optional>

#include "vantage/vec.hpp"

namespace vantage {

struct CellCoord {
    std::int32_t x = 0;
    std::int32_t y = 0;
    constexpr bool operator==(const CellCoord&) const = default;
};

class GridQuantizer {
public:
    // Asserts that origin is finite and cell_size is finite and positive (a configuration
    // error, not data).
    GridQuantizer(Vec2 origin, float cell_size);

    Vec2 origin() const { return origin_; }
    float cell_size() const { return cell_size_; }

    // floor((p - origin) / cell_size) per axis, saturated to the int32 range; nothing for a
    // non-finite point.
    std::optional<CellCoord> cell_of(Vec2 p) const;
    // The continuous cell coordinate along x or y ((v - origin) / cell_size, unfloored).
    double cell_coordinate_x(double x) const { return (x - static_cast<double>(origin_.x)) / cell_size_d_; }
    double cell_coordinate_y(double y) const { return (y - static_cast<double>(origin_.y)) / cell_size_d_; }
    // The minimum corner and the centre of a cell, in world units.
    Vec2 cell_min(CellCoord c) const;
    Vec2 cell_center(CellCoord c) const;
    // How many cells a radius spans along one axis: ceil(r / cell_size); 0 for r <= 0 or NaN.
    std::int32_t cells_for_radius(float radius) const;
    // A 64-bit Morton key for a cell. Signed coordinates are biased by 2^31 first, so the
    // key order stays monotone in each axis across zero.
    static std::uint64_t morton_key(CellCoord c);

private:
    Vec2 origin_;
    float cell_size_;
    double cell_size_d_;
};

}  // namespace vantage
