#include "vantage/grid_quantizer.hpp"

#include <cmath>
#include <limits>

#include "vantage/assert.hpp"
#include "vantage/morton.hpp"

namespace vantage {

namespace {

std::int32_t saturate_floor(double v) {
    constexpr double lo = static_cast<double>(std::numeric_limits<std::int32_t>::min());
    constexpr double hi = static_cast<double>(std::numeric_limits<std::int32_t>::max());
    const double f = std::floor(v);
    if (f <= lo) return std::numeric_limits<std::int32_t>::min();
    if (f >= hi) return std::numeric_limits<std::int32_t>::max();
    return static_cast<std::int32_t>(f);
}

}  // namespace

GridQuantizer::GridQuantizer(Vec2 origin, float cell_size)
    : origin_(origin), cell_size_(cell_size), cell_size_d_(static_cast<double>(cell_size)) {
    VANTAGE_ASSERT(origin.is_finite(), "GridQuantizer: origin must be finite");
    VANTAGE_ASSERT(std::isfinite(cell_size) && cell_size > 0.0f, "GridQuantizer: cell_size must be finite and > 0");
}

std::optional<CellCoord> GridQuantizer::cell_of(Vec2 p) const {
    if (!p.is_finite()) return std::nullopt;
    return CellCoord{saturate_floor(cell_coordinate_x(p.x)), saturate_floor(cell_coordinate_y(p.y))};
}

Vec2 GridQuantizer::cell_min(CellCoord c) const {
    return {static_cast<float>(static_cast<double>(origin_.x) + c.x * cell_size_d_),
            static_cast<float>(static_cast<double>(origin_.y) + c.y * cell_size_d_)};
}

Vec2 GridQuantizer::cell_center(CellCoord c) const {
    return {static_cast<float>(static_cast<double>(origin_.x) + (c.x + 0.5) * cell_size_d_),
            static_cast<float>(static_cast<double>(origin_.y) + (c.y + 0.5) * cell_size_d_)};
}

std::int32_t GridQuantizer::cells_for_radius(float radius) const {
    if (!(radius > 0.0f)) return 0;
    const double cells = std::ceil(static_cast<double>(radius) / cell_size_d_);
    return cells >= 2147483647.0 ? std::numeric_limits<std::int32_t>::max() : static_cast<std::int32_t>(cells);
}

std::uint64_t GridQuantizer::morton_key(CellCoord c) {
    const auto bias = [](std::int32_t v) { return static_cast<std::uint32_t>(v) ^ 0x80000000u; };
    return morton2_encode64(bias(c.x), bias(c.y));
}

}  // namespace vantage
