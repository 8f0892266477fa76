#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/relevance_scenarios.hpp"
#include "vantage/proximity.hpp"
#include "vantage/spatial_grid.hpp"

namespace vantage {
namespace {

using scenario::Layout;

SpatialGridOptions options_for(const scenario::World& w) {
    return {.origin = w.origin, .extent = {w.extent, w.extent}, .cell_size = w.cell_size};
}

std::vector<std::uint32_t> sorted(std::vector<std::uint32_t> v) {
    std::sort(v.begin(), v.end());
    return v;
}

std::vector<std::uint32_t> grid_query(const SpatialGrid& grid, Vec2 c, float r) {
    std::vector<std::uint32_t> out;
    grid.query_radius(c, r, out);
    return sorted(std::move(out));
}

std::vector<std::uint32_t> oracle_query(const std::vector<Vec2>& points, Vec2 c, float r) {
    std::vector<std::uint32_t> out;
    brute_force_in_radius(points, c, r, out);
    return out;
}

TEST(SpatialGrid, FindsNearIdsAndOmitsDistantOnes) {
    SpatialGrid grid({.origin = {0.0f, 0.0f}, .extent = {1000.0f, 1000.0f}, .cell_size = 32.0f});
    const std::vector<Vec2> points = {{100.0f, 100.0f}, {120.0f, 100.0f}, {600.0f, 600.0f}, {100.0f, 149.0f}};
    grid.build(points);
    EXPECT_EQ(grid_query(grid, {100.0f, 100.0f}, 50.0f), (std::vector<std::uint32_t>{0, 1, 3}));
    EXPECT_EQ(grid_query(grid, {600.0f, 600.0f}, 1.0f), (std::vector<std::uint32_t>{2}));
}

TEST(SpatialGrid, TheRadiusIsInclusive) {
    SpatialGrid grid({.origin = {0.0f, 0.0f}, .extent = {100.0f, 100.0f}, .cell_size = 5.0f});
    const std::vector<Vec2> points = {{10.0f, 10.0f}, {13.0f, 14.0f}, {13.0f, 14.001f}};
    grid.build(points);
    EXPECT_EQ(grid_query(grid, {10.0f, 10.0f}, 5.0f), (std::vector<std::uint32_t>{0, 1}));
    EXPECT_EQ(grid_query(grid, {10.0f, 10.0f}, 0.0f), (std::vector<std::uint32_t>{0}));
}

TEST(SpatialGrid, CallerIdsAreReturnedInsteadOfIndices) {
    SpatialGrid grid({.origin = {0.0f, 0.0f}, .extent = {100.0f, 100.0f}, .cell_size = 10.0f});
    const std::vector<std::uint32_t> ids = {70, 9, 4000};
    const std::vector<Vec2> points = {{5.0f, 5.0f}, {50.0f, 50.0f}, {6.0f, 5.0f}};
    grid.build(ids, points);
    EXPECT_EQ(grid_query(grid, {5.0f, 5.0f}, 2.0f), (std::vector<std::uint32_t>{70, 4000}));
}

TEST(SpatialGrid, QueryReplacesWhatTheOutputHeld) {
    SpatialGrid grid({.origin = {0.0f, 0.0f}, .extent = {100.0f, 100.0f}, .cell_size = 10.0f});
    const std::vector<Vec2> points = {{5.0f, 5.0f}};
    grid.build(points);
    std::vector<std::uint32_t> out = {42};
    EXPECT_EQ(grid.query_radius({5.0f, 5.0f}, 1.0f, out), 1u);
    EXPECT_EQ(out, (std::vector<std::uint32_t>{0}));
}

// The core property: for every layout, many seeds, every entity and several radii, the grid
// returns exactly the brute-force set.
TEST(SpatialGrid, MatchesBruteForceForEveryLayoutSeedAndRadius) {
    for (const Layout layout : scenario::kAllLayouts) {
        for (std::uint64_t seed = 1; seed <= 8; ++seed) {
            XorShift rng(seed * 7919 + static_cast<std::uint64_t>(layout));
            const float cell = 10.0f + static_cast<float>(rng.below(60));
            const scenario::World w = scenario::world_for(layout, 500.0f, cell);
            const auto n = static_cast<std::size_t>(40 + rng.below(160));
            const std::vector<Vec2> points = scenario::make_points(layout, w, n, rng);
            SpatialGrid grid(options_for(w));
            grid.build(points);
            for (std::size_t i = 0; i < points.size(); ++i) {
                const float other = distance(points[i], points[static_cast<std::size_t>(rng.below(points.size()))]);
                const float radii[] = {0.0f, cell * 0.5f, cell * 1.7f, other, rng.range(0.0f, 4.0f * cell)};
                for (const float r : radii) {
                    const std::vector<std::uint32_t> expected = oracle_query(points, points[i], r);
                    ASSERT_EQ(grid_query(grid, points[i], r), expected)
                        << "layout " << scenario::layout_name(layout) << " seed " << seed << " entity " << i
                        << " radius " << r;
                    ASSERT_GE(grid.candidate_count(points[i], r), expected.size());
                }
            }
            // Centers that are not entities, including outside the area.
            for (int q = 0; q < 50; ++q) {
                const Vec2 c =
                    w.origin + Vec2{rng.range(-100.0f, w.extent + 100.0f), rng.range(-100.0f, w.extent + 100.0f)};
                const float r = rng.range(0.0f, 3.0f * cell);
                ASSERT_EQ(grid_query(grid, c, r), oracle_query(points, c, r))
                    << "layout " << scenario::layout_name(layout) << " seed " << seed << " query " << q;
            }
        }
    }
}

// query_radius keeps the candidates that match in the order for_each_in_radius visits them,
// whatever the number of candidates in a row of the window (in wasm it tests four at a time
// and finishes each row one by one): windows of 0 to 41 points, most of them piled on the
// centre or on the rim, some NaN, the rest scattered around.
TEST(SpatialGrid, QueryRadiusKeepsTheVisitOrderForEveryRowLength) {
    XorShift rng(20261203);
    for (int round = 0; round < 200; ++round) {
        SpatialGrid grid({.origin = {0.0f, 0.0f}, .extent = {40.0f, 40.0f}, .cell_size = 4.0f});
        std::vector<Vec2> points;
        const Vec2 center{rng.range(8.0f, 32.0f), rng.range(8.0f, 32.0f)};
        const float radius = rng.range(0.0f, 6.0f);
        const auto n = static_cast<std::size_t>(rng.below(14 * 3));
        for (std::size_t i = 0; i < n; ++i) {
            switch (rng.below(4)) {
                case 0:
                    points.push_back(center);
                    break;
                case 1:
                    points.push_back(center + Vec2{radius, 0.0f});
                    break;  // on the rim
                case 2:
                    points.push_back({std::numeric_limits<float>::quiet_NaN(), center.y});
                    break;
                default:
                    points.push_back(center + Vec2{rng.range(-8.0f, 8.0f), rng.range(-8.0f, 8.0f)});
                    break;
            }
        }
        grid.build(points);
        std::vector<std::uint32_t> visited;
        grid.for_each_in_radius(center, radius, [&](std::uint32_t id, Vec2) { visited.push_back(id); });
        std::vector<std::uint32_t> out = {7, 7, 7};
        ASSERT_EQ(grid.query_radius(center, radius, out), visited.size()) << "round " << round;
        ASSERT_EQ(out, visited) << "round " << round;
        ASSERT_EQ(sorted(out), oracle_query(points, center, radius)) << "round " << round;
    }
}

// The cell-order query answers every binned point's query at once: for each layout, seed and
// radius, point a's visits are exactly the brute-force set around a (non-finite points left
// out, points outside the area included).
TEST(SpatialGrid, TheCellOrderQueryOfAllMatchesBruteForceForEveryLayoutSeedAndRadius) {
    for (const Layout layout : scenario::kAllLayouts) {
        for (std::uint64_t seed = 1; seed <= 6; ++seed) {
            XorShift rng(seed * 104729 + static_cast<std::uint64_t>(layout));
            const float cell = 10.0f + static_cast<float>(rng.below(60));
            const scenario::World w = scenario::world_for(layout, 500.0f, cell);
            const auto n = static_cast<std::size_t>(40 + rng.below(160));
            std::vector<Vec2> points = scenario::make_points(layout, w, n, rng);
            points.push_back({std::numeric_limits<float>::quiet_NaN(), w.origin.y});
            SpatialGrid grid(options_for(w));
            grid.build(points);
            const float radii[] = {0.0f, cell * 0.5f, cell, cell * 1.7f, rng.range(0.0f, 4.0f * cell)};
            for (const float r : radii) {
                std::vector<std::vector<std::uint32_t>> found(grid.size());
                grid.for_each_in_radius_of_all(r, [&](std::uint32_t a, std::uint32_t id, Vec2 p) {
                    ASSERT_LT(a, found.size());
                    ASSERT_EQ(points[id], p);
                    found[a].push_back(id);
                });
                for (std::size_t a = 0; a < grid.size(); ++a) {
                    ASSERT_EQ(sorted(found[a]), oracle_query(points, grid.positions_by_cell()[a], r))
                        << "layout " << scenario::layout_name(layout) << " seed " << seed << " point "
                        << grid.ids_by_cell()[a] << " radius " << r;
                }
            }
        }
    }
}

TEST(SpatialGrid, TheCellOrderQueryOfAllMatchesNothingForABadRadius) {
    SpatialGrid grid({.origin = {0.0f, 0.0f}, .extent = {100.0f, 100.0f}, .cell_size = 10.0f});
    const std::vector<Vec2> points = {{5.0f, 5.0f}, {6.0f, 5.0f}};
    grid.build(points);
    std::size_t visits = 0;
    const auto count = [&visits](std::uint32_t, std::uint32_t, Vec2) { ++visits; };
    for (const float r : {-1.0f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()})
        grid.for_each_in_radius_of_all(r, count);
    EXPECT_EQ(visits, 0u);
    grid.for_each_in_radius_of_all(2.0f, count);
    EXPECT_EQ(visits, 4u);  // each point sees itself and the other
}

TEST(SpatialGrid, ExactNearestMatchesBruteForce) {
    for (const Layout layout : scenario::kAllLayouts) {
        for (std::uint64_t seed = 1; seed <= 8; ++seed) {
            XorShift rng(seed * 104729 + static_cast<std::uint64_t>(layout));
            const scenario::World w = scenario::world_for(layout, 400.0f, 25.0f);
            const std::vector<Vec2> points = scenario::make_points(layout, w, 200, rng);
            SpatialGrid grid(options_for(w));
            grid.build(points);
            for (int q = 0; q < 100; ++q) {
                const Vec2 c = w.origin + Vec2{rng.range(0.0f, w.extent), rng.range(0.0f, w.extent)};
                const float r = rng.range(0.0f, 80.0f);
                const auto want = brute_force_nearest(points, c, r);
                const auto got = grid.nearest(c, r);
                ASSERT_EQ(got.has_value(), want.has_value())
                    << "layout " << scenario::layout_name(layout) << " seed " << seed;
                if (!want) continue;
                ASSERT_EQ(got->id, want->id) << "layout " << scenario::layout_name(layout) << " seed " << seed;
                ASSERT_EQ(got->distance, want->distance);
            }
        }
    }
}

TEST(SpatialGrid, TheRepresentativeIsWithinOneCellDiagonalOfTheTrueNearest) {
    const Layout inside[] = {Layout::Uniform, Layout::Clustered, Layout::OneSpot, Layout::CellBoundaries};
    int differed = 0;
    for (const Layout layout : inside) {
        for (std::uint64_t seed = 1; seed <= 10; ++seed) {
            XorShift rng(seed * 15485863 + static_cast<std::uint64_t>(layout));
            const float cell = 20.0f;
            const scenario::World w = scenario::world_for(layout, 300.0f, cell);
            std::vector<Vec2> points = scenario::make_points(layout, w, 400, rng);
            for (Vec2& p : points) p = {std::clamp(p.x, 0.0f, w.extent), std::clamp(p.y, 0.0f, w.extent)};
            SpatialGrid grid(options_for(w));
            grid.build(points);
            const float diagonal = cell * std::sqrt(2.0f);
            for (int q = 0; q < 100; ++q) {
                const Vec2 c{rng.range(0.0f, w.extent), rng.range(0.0f, w.extent)};
                const float r = rng.range(0.0f, 2.0f * cell);
                const auto exact = brute_force_nearest(points, c, r);
                const auto rep = grid.nearest_representative(c, r);
                if (!exact) continue;
                ASSERT_TRUE(rep.has_value()) << "layout " << scenario::layout_name(layout) << " seed " << seed;
                ASSERT_LE(rep->distance, exact->distance + diagonal * 1.0001f)
                    << "layout " << scenario::layout_name(layout) << " seed " << seed << " query " << q;
                ASSERT_GE(rep->distance, exact->distance * 0.9999f);
                differed += rep->id != exact->id ? 1 : 0;
            }
        }
    }
    EXPECT_GT(differed, 0) << "the representative never differed: the test is not exercising crowding";
}

TEST(SpatialGrid, CellIterationReachesWhatTheQueryReads) {
    XorShift rng(5);
    const scenario::World w = scenario::world_for(Layout::Clustered, 500.0f, 25.0f);
    const std::vector<Vec2> points = scenario::make_points(Layout::Clustered, w, 300, rng);
    SpatialGrid grid(options_for(w));
    grid.build(points);
    std::vector<std::uint32_t> seen;
    std::uint32_t last_cell = 0;
    bool first = true;
    grid.for_each_occupied_cell([&](std::uint32_t cell, std::span<const std::uint32_t> ids, std::span<const Vec2> pos) {
        EXPECT_TRUE(first || cell > last_cell);
        EXPECT_FALSE(ids.empty());
        EXPECT_EQ(ids.size(), pos.size());
        for (std::size_t k = 0; k < ids.size(); ++k) {
            EXPECT_EQ(grid.cell_index_of(pos[k]), cell);
            EXPECT_EQ(points[ids[k]], pos[k]);
            seen.push_back(ids[k]);
        }
        first = false;
        last_cell = cell;
    });
    EXPECT_EQ(sorted(seen).size(), points.size());

    // A window's cells, read one by one with an exact test, give the query's answer.
    const Vec2 c = points[17];
    const float r = 60.0f;
    const CellWindow win = grid.window(c, r);
    ASSERT_FALSE(win.empty());
    std::vector<std::uint32_t> by_cells;
    for (std::uint32_t row = win.row_min; row <= win.row_max; ++row) {
        for (std::uint32_t col = win.column_min; col <= win.column_max; ++col) {
            const std::uint32_t cell = grid.cell_index(col, row);
            const auto ids = grid.cell_ids(cell);
            const auto pos = grid.cell_positions(cell);
            for (std::size_t k = 0; k < ids.size(); ++k)
                if (within_radius(pos[k], c, r)) by_cells.push_back(ids[k]);
        }
    }
    EXPECT_EQ(sorted(by_cells), grid_query(grid, c, r));
}

// A cell's members come ordered by slice (kSlices columns side by side, left to right) and
// keep their input order within a slice, so the representative is the first occupant of the
// leftmost occupied slice.
TEST(SpatialGrid, CellsOrderMembersBySliceThenInputOrderSoTheRepresentativeIsDeterministic) {
    const float cell = 10.0f;
    SpatialGrid grid({.origin = {0.0f, 0.0f}, .extent = {100.0f, 100.0f}, .cell_size = cell});
    const std::vector<std::uint32_t> ids = {8, 3, 5, 1, 9, 4};
    const std::vector<Vec2> points = {{5.0f, 5.0f}, {9.0f, 1.0f}, {50.0f, 50.0f},
                                      {1.0f, 9.0f}, {7.5f, 2.0f}, {0.0f, 0.0f}};
    grid.build(ids, points);
    const auto cell_of_origin = grid.cell_index_of({5.0f, 5.0f});
    ASSERT_TRUE(cell_of_origin.has_value());
    // Expected: the members of cell 0, stably sorted by slice.
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < points.size(); ++i)
        if (grid.cell_index_of(points[i]) == cell_of_origin) order.push_back(i);
    const auto slice = [&](std::size_t i) { return static_cast<int>(points[i].x / (cell / SpatialGrid::kSlices)); };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return slice(a) < slice(b); });
    std::vector<std::uint32_t> expected;
    for (const std::size_t i : order) expected.push_back(ids[i]);
    ASSERT_EQ(expected.size(), 5u);
    ASSERT_NE(expected.front(), 8u);  // input order alone would put 8 first
    const auto members = grid.cell_ids(*cell_of_origin);
    EXPECT_EQ(std::vector<std::uint32_t>(members.begin(), members.end()), expected);
    const auto rep = grid.nearest_representative({5.0f, 5.0f}, 1.0f);
    ASSERT_TRUE(rep.has_value());
    EXPECT_EQ(rep->id, expected.front());  // the first occupant, although id 8 sits exactly on the center
}

// A query tests the members of the slices its bounding square touches, not of whole cells:
// with cells of 10 and slices of 5, a query over x in [8, 14] reads slices [5, 10) and
// [10, 15), and leaves out the points of the same two cells in [0, 5) and [15, 20).
TEST(SpatialGrid, AQueryTestsTheSlicesItsSquareTouchesNotWholeCells) {
    static_assert(SpatialGrid::kSlices == 2, "the layout below assumes slices half a cell wide");
    SpatialGrid grid({.origin = {0.0f, 0.0f}, .extent = {100.0f, 100.0f}, .cell_size = 10.0f});
    const std::vector<Vec2> points = {{6.0f, 15.0f}, {2.0f, 15.0f}, {16.0f, 15.0f}, {12.0f, 15.0f}, {11.0f, 17.0f}};
    grid.build(points);
    const Vec2 c{11.0f, 15.0f};
    EXPECT_EQ(grid.candidate_count(c, 3.0f), 3u);  // 6, 12 and 11 in x; not 2 or 16
    const CellWindow cells = grid.window(c, 3.0f);
    EXPECT_EQ(cells.column_min, 0u);
    EXPECT_EQ(cells.column_max, 1u);
    EXPECT_EQ(grid_query(grid, c, 3.0f), (std::vector<std::uint32_t>{3, 4}));
    EXPECT_EQ(grid.candidate_count(c, -1.0f), 0u);
    EXPECT_EQ(grid.candidate_count({std::numeric_limits<float>::quiet_NaN(), 1.0f}, 3.0f), 0u);
}

TEST(SpatialGrid, NonFinitePointsAreRejectedAndNeverReturned) {
    SpatialGrid grid({.origin = {0.0f, 0.0f}, .extent = {100.0f, 100.0f}, .cell_size = 10.0f});
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    const std::vector<Vec2> points = {{5.0f, 5.0f}, {nan, 5.0f}, {5.0f, inf}, {-inf, nan}, {6.0f, 5.0f}};
    const SpatialGridBuild built = grid.build(points);
    EXPECT_EQ(built.binned, 2u);
    EXPECT_EQ(built.rejected, 3u);
    EXPECT_EQ(built.clamped, 0u);
    EXPECT_EQ(std::vector<std::uint32_t>(grid.rejected_ids().begin(), grid.rejected_ids().end()),
              (std::vector<std::uint32_t>{1, 2, 3}));
    EXPECT_EQ(grid.size(), 2u);
    EXPECT_EQ(grid_query(grid, {5.0f, 5.0f}, 1000.0f), (std::vector<std::uint32_t>{0, 4}));
    EXPECT_FALSE(grid.cell_index_of({nan, 0.0f}).has_value());
}

TEST(SpatialGrid, PointsOutsideTheAreaAreClampedToEdgeCellsAndStillFoundExactly) {
    SpatialGrid grid({.origin = {0.0f, 0.0f}, .extent = {100.0f, 100.0f}, .cell_size = 10.0f});
    const std::vector<Vec2> points = {
        {-50.0f, 5.0f}, {150.0f, 150.0f}, {50.0f, 50.0f}, {100.0f, 100.0f}, {-1e30f, 1e30f}};
    const SpatialGridBuild built = grid.build(points);
    EXPECT_EQ(built.binned, 5u);
    EXPECT_EQ(built.clamped, 3u);  // (100, 100) is on the closed edge, not outside
    EXPECT_EQ(grid.cell_index_of({-50.0f, 5.0f}), grid.cell_index(0, 0));
    EXPECT_EQ(grid.cell_index_of({150.0f, 150.0f}), grid.cell_index(grid.columns() - 1, grid.rows() - 1));
    EXPECT_EQ(grid_query(grid, {-45.0f, 5.0f}, 6.0f), (std::vector<std::uint32_t>{0}));
    EXPECT_EQ(grid_query(grid, {0.0f, 5.0f}, 6.0f), (std::vector<std::uint32_t>{}));
    EXPECT_EQ(grid_query(grid, {150.0f, 149.0f}, 1.0f), (std::vector<std::uint32_t>{1}));
    EXPECT_EQ(grid_query(grid, {-1e30f, 1e30f}, 1.0f), (std::vector<std::uint32_t>{4}));
}

// The build's fast path (two truncations natively; in wasm with SIMD, both axes in one
// vector and the cell read out of a double's bits) must file every point in the cell that
// cell_index_of() gives it, the clamping path's answer, and count as clamped exactly the points whose
// continuous coordinates fall outside [0, columns) x [0, rows). Points sit on and one ulp
// either side of every cell edge, with an origin and a cell size that are not round in
// binary, plus random points inside and around the area.
TEST(SpatialGrid, EveryPointIsFiledInTheCellItsCoordinatesGive) {
    const SpatialGridOptions options{.origin = {-17.3f, 4.1f}, .extent = {29.0f, 12.7f}, .cell_size = 0.7f};
    SpatialGrid grid(options);
    std::vector<Vec2> points;
    const auto edge = [&](float origin, std::uint32_t k) { return origin + static_cast<float>(k) * options.cell_size; };
    const float inf = std::numeric_limits<float>::infinity();
    for (std::uint32_t k = 0; k <= std::max(grid.columns(), grid.rows()) + 1; ++k) {
        const float x = edge(options.origin.x, std::min(k, grid.columns() + 1));
        const float y = edge(options.origin.y, std::min(k, grid.rows() + 1));
        for (const float dx : {std::nextafter(x, -inf), x, std::nextafter(x, inf)}) {
            for (const float dy : {std::nextafter(y, -inf), y, std::nextafter(y, inf)}) points.push_back({dx, dy});
        }
    }
    std::uint64_t state = 7;
    const auto next_unit = [&state] {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<float>(state >> 40) / static_cast<float>(1u << 24);
    };
    for (int i = 0; i < 5000; ++i) {
        points.push_back({options.origin.x - 5.0f + next_unit() * (options.extent.x + 10.0f),
                          options.origin.y - 5.0f + next_unit() * (options.extent.y + 10.0f)});
    }
    points.push_back({-0.0f, -0.0f});
    points.push_back({options.origin.x, -3e38f});
    points.push_back({3e38f, options.origin.y});

    const SpatialGridBuild built = grid.build(points);
    ASSERT_EQ(built.binned, points.size());
    const double inverse = 1.0 / static_cast<double>(options.cell_size);
    std::uint32_t outside = 0;
    for (const Vec2 p : points) {
        const double cx = (static_cast<double>(p.x) - static_cast<double>(options.origin.x)) * inverse;
        const double cy = (static_cast<double>(p.y) - static_cast<double>(options.origin.y)) * inverse;
        if (!(cx >= 0.0 && cx < grid.columns() && cy >= 0.0 && cy < grid.rows())) ++outside;
    }
    EXPECT_EQ(built.clamped, outside);
    EXPECT_GT(outside, 0u);
    std::size_t filed = 0;
    grid.for_each_occupied_cell([&](std::uint32_t cell, std::span<const std::uint32_t> ids, std::span<const Vec2>) {
        for (const std::uint32_t id : ids) {
            EXPECT_EQ(grid.cell_index_of(points[id]), cell)
                << "point " << id << " at (" << points[id].x << ", " << points[id].y << ")";
            ++filed;
        }
    });
    EXPECT_EQ(filed, points.size());
}

TEST(SpatialGrid, BadQueriesMatchNothing) {
    SpatialGrid grid({.origin = {0.0f, 0.0f}, .extent = {100.0f, 100.0f}, .cell_size = 10.0f});
    const std::vector<Vec2> points = {{5.0f, 5.0f}};
    grid.build(points);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_TRUE(grid_query(grid, {nan, 5.0f}, 10.0f).empty());
    EXPECT_TRUE(grid_query(grid, {5.0f, inf}, 10.0f).empty());
    EXPECT_TRUE(grid_query(grid, {5.0f, 5.0f}, -1.0f).empty());
    EXPECT_TRUE(grid_query(grid, {5.0f, 5.0f}, nan).empty());
    EXPECT_TRUE(grid_query(grid, {5.0f, 5.0f}, inf).empty());
    EXPECT_FALSE(grid.nearest({nan, 0.0f}, 10.0f).has_value());
    EXPECT_FALSE(grid.nearest_representative({5.0f, 5.0f}, -1.0f).has_value());
    EXPECT_TRUE(grid.window({5.0f, 5.0f}, nan).empty());
}

TEST(SpatialGrid, AnEmptyGridAnswersNothing) {
    SpatialGrid grid({});
    EXPECT_TRUE(grid_query(grid, {5.0f, 5.0f}, 100.0f).empty());
    grid.build(std::span<const Vec2>{});
    EXPECT_EQ(grid.size(), 0u);
    EXPECT_FALSE(grid.nearest({5.0f, 5.0f}, 100.0f).has_value());
}

TEST(SpatialGrid, RebuildingASteadyPopulationKeepsItsBuffers) {
    SpatialGrid grid({.origin = {0.0f, 0.0f}, .extent = {1000.0f, 1000.0f}, .cell_size = 50.0f});
    XorShift rng(3);
    std::vector<Vec2> points = scenario::make_points(Layout::Uniform, {{0.0f, 0.0f}, 1000.0f, 50.0f}, 500, rng);
    grid.build(points);
    const std::uint32_t* ids = grid.ids_by_cell().data();
    const Vec2* pos = grid.positions_by_cell().data();
    for (int tick = 0; tick < 20; ++tick) {
        for (Vec2& p : points) p += Vec2{rng.range(-5.0f, 5.0f), rng.range(-5.0f, 5.0f)};
        const std::size_t count = tick % 2 == 0 ? points.size() : points.size() - 100;  // shrinking is fine too
        grid.build(std::span<const Vec2>(points).first(count));
        ASSERT_EQ(grid.ids_by_cell().data(), ids) << "tick " << tick;
        ASSERT_EQ(grid.positions_by_cell().data(), pos) << "tick " << tick;
        ASSERT_EQ(grid.size(), count);
    }
}

TEST(SpatialGrid, RebuildForgetsThePreviousTick) {
    SpatialGrid grid({.origin = {0.0f, 0.0f}, .extent = {100.0f, 100.0f}, .cell_size = 10.0f});
    const std::vector<Vec2> first = {{5.0f, 5.0f}, {50.0f, 50.0f}};
    const std::vector<Vec2> second = {{90.0f, 90.0f}};
    grid.build(first);
    grid.build(second);
    EXPECT_TRUE(grid_query(grid, {5.0f, 5.0f}, 10.0f).empty());
    EXPECT_EQ(grid_query(grid, {90.0f, 90.0f}, 1.0f), (std::vector<std::uint32_t>{0}));
}

TEST(SpatialGridOptions, ValidateNamesTheProblem) {
    EXPECT_EQ(SpatialGridOptions{}.validate(), "");
    EXPECT_NE((SpatialGridOptions{.cell_size = 0.0f}.validate()), "");
    EXPECT_NE((SpatialGridOptions{.cell_size = std::numeric_limits<float>::quiet_NaN()}.validate()), "");
    EXPECT_NE((SpatialGridOptions{.extent = {-1.0f, 10.0f}}.validate()), "");
    EXPECT_NE((SpatialGridOptions{.origin = {std::numeric_limits<float>::infinity(), 0.0f}}.validate()), "");
    EXPECT_NE((SpatialGridOptions{.extent = {1e6f, 1e6f}, .cell_size = 1.0f}.validate()), "");  // 10^12 cells
}

TEST(SpatialGrid, CoversTheClosedArea) {
    SpatialGrid grid({.origin = {0.0f, 0.0f}, .extent = {100.0f, 50.0f}, .cell_size = 10.0f});
    EXPECT_EQ(grid.columns(), 11u);
    EXPECT_EQ(grid.rows(), 6u);
    EXPECT_EQ(grid.cell_index_of({100.0f, 50.0f}), grid.cell_index(10, 5));
}

#if GTEST_HAS_DEATH_TEST
TEST(SpatialGridDeathTest, MismatchedArraysAndBadCellsAreRejected) {
    SpatialGrid grid(SpatialGridOptions{});
    const std::vector<std::uint32_t> ids{1, 2};
    const std::vector<Vec2> positions{{1.0f, 1.0f}};
    EXPECT_DEATH(grid.build(ids, positions), "SpatialGrid::build: ids and positions differ in length");
    EXPECT_DEATH(grid.cell_ids(grid.cell_count()), "SpatialGrid::cell_ids: cell out of range");
    EXPECT_DEATH({ SpatialGrid bad({.cell_size = 0.0f}); }, "SpatialGrid: invalid SpatialGridOptions");
}
#endif

}  // namespace
}  // namespace vantage
