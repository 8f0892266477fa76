#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "vantage/grid_quantizer.hpp"

namespace vantage {
namespace {

TEST(GridQuantizer, MapsPointsToFlooredCells) {
    const GridQuantizer q({0.0f, 0.0f}, 10.0f);
    EXPECT_EQ(q.cell_of({15.0f, 25.0f}), (CellCoord{1, 2}));
    EXPECT_EQ(q.cell_of({0.0f, 0.0f}), (CellCoord{0, 0}));
    EXPECT_EQ(q.cell_of({10.0f, 9.999f}), (CellCoord{1, 0}));  // a boundary belongs to the cell above
    EXPECT_EQ(q.cell_of({-0.5f, -10.0f}), (CellCoord{-1, -1}));
    EXPECT_EQ(q.cell_of({-10.5f, 30.0f}), (CellCoord{-2, 3}));
}

TEST(GridQuantizer, HonoursTheOrigin) {
    const GridQuantizer q({-100.0f, 50.0f}, 20.0f);
    EXPECT_EQ(q.cell_of({-100.0f, 50.0f}), (CellCoord{0, 0}));
    EXPECT_EQ(q.cell_of({-61.0f, 89.0f}), (CellCoord{1, 1}));
    EXPECT_EQ(q.cell_min({2, 3}), (Vec2{-60.0f, 110.0f}));
    EXPECT_EQ(q.cell_center({0, 0}), (Vec2{-90.0f, 60.0f}));
}

TEST(GridQuantizer, NonFinitePointsHaveNoCell) {
    const GridQuantizer q({0.0f, 0.0f}, 10.0f);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_FALSE(q.cell_of({nan, 0.0f}).has_value());
    EXPECT_FALSE(q.cell_of({0.0f, inf}).has_value());
    EXPECT_FALSE(q.cell_of({-inf, -inf}).has_value());
}

TEST(GridQuantizer, HugeCoordinatesSaturateInsteadOfOverflowing) {
    const GridQuantizer q({0.0f, 0.0f}, 0.001f);
    const float big = std::numeric_limits<float>::max();
    EXPECT_EQ(q.cell_of({big, -big}),
              (CellCoord{std::numeric_limits<std::int32_t>::max(), std::numeric_limits<std::int32_t>::min()}));
}

TEST(GridQuantizer, CellsForRadiusRoundsUp) {
    const GridQuantizer q({0.0f, 0.0f}, 10.0f);
    EXPECT_EQ(q.cells_for_radius(25.0f), 3);
    EXPECT_EQ(q.cells_for_radius(20.0f), 2);
    EXPECT_EQ(q.cells_for_radius(0.0f), 0);
    EXPECT_EQ(q.cells_for_radius(-3.0f), 0);
    EXPECT_EQ(q.cells_for_radius(std::numeric_limits<float>::quiet_NaN()), 0);
}

}  // namespace
}  // namespace vantage
