// SpatialGrid: dense binning of points into a bounded uniform grid, rebuilt every tick.
//
// build() is a counting sort by cell: count the points per cell, prefix-sum the counts into
// offsets, scatter ids and positions into cell order (then one sweep over the cells fills
// the representative table). The sort's key is finer than the cell: each cell is binned as
// kSlices slices side by side (columns half a cell wide), so the members of a row come out
// ordered by x to within half a cell. Linear passes, no per-cell allocation, and cheaper to
// redo from scratch each tick than to maintain: the build is a few percent of the queries it
// serves (core/docs/relevance.md). The grid keeps its buffers across builds, so a steady or
// shrinking population allocates nothing.
//
// Cells are numbered row-major (index = row * columns + column), so the cells of one row of
// a query window are adjacent and their members form ONE contiguous range: a radius query
// reads one range per row, and the positions it tests sit next to each other in memory.
// Because a row is ordered by slice, that range runs from the slice holding center.x - r to
// the one holding center.x + r rather than across whole cells: with cells of side r, a row
// tests a strip 2.5 r wide on average instead of 3 r, a sixth fewer candidates than a bin
// of whole cells (a quarter with four slices, whose table no longer stayed in cache for many
// points; core/docs/relevance.md). Inside a cell, points are ordered by slice, left to
// right, and keep their input order within a slice (the sort is stable), which makes the
// first occupant (the cell's representative) deterministic.
//
// Policy for bad input, fixed rather than configurable:
//   - A finite point outside [origin, origin + extent] is clamped into the nearest edge
//     cell. Queries stay exact (the distance test reads the true position), only slower if
//     many points pile up at an edge; build() reports how many were clamped.
//   - A non-finite point (NaN or inf in either coordinate) is rejected: it is in no cell and
//     no query returns it. build() reports the count and rejected_ids() lists them.
//   - A query with a non-finite center, or a negative, NaN or infinite radius, matches
//     nothing (see within_radius).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "vantage/always_inline.hpp"
#include "vantage/grid_quantizer.hpp"
#include "vantage/proximity.hpp"
#include "vantage/vec.hpp"

namespace vantage {

struct SpatialGridOptions {
    Vec2 origin{0.0f, 0.0f};        // world units: minimum corner of the binned area
    Vec2 extent{1024.0f, 1024.0f};  // world units, each > 0: width and height of the area
    float cell_size = 64.0f;        // world units, > 0: about the usual query radius works well
                                    // (a query reads at most (2 * ceil(r / cell) + 1)^2 cells)

    static constexpr std::uint64_t kMaxCells = std::uint64_t{1} << 26;  // 20 bytes each

    // Empty when usable, otherwise why not (non-finite or non-positive values, or more
    // than kMaxCells cells).
    std::string_view validate() const;
};

// What one build() did with its input.
struct SpatialGridBuild {
    std::uint32_t binned = 0;    // points placed in a cell, clamped ones included
    std::uint32_t clamped = 0;   // finite points outside the area, filed in an edge cell
    std::uint32_t rejected = 0;  // non-finite points, left out of every query
};

// A rectangle of cells, inclusive on both ends; empty() when a query matches nothing.
struct CellWindow {
    std::uint32_t column_min = 0;
    std::uint32_t row_min = 0;
    std::uint32_t column_max = 0;
    std::uint32_t row_max = 0;
    bool valid = false;
    bool empty() const { return !valid; }
};

class SpatialGrid {
public:
    // The slices a cell is binned as, side by side along x (see the top of this file).
    static constexpr std::uint32_t kSlices = 2;

    // Asserts options.validate() (a configuration error).
    explicit SpatialGrid(const SpatialGridOptions& options);

    // Rebuilds from scratch: point i gets id i.
    SpatialGridBuild build(std::span<const Vec2> positions);
    // Rebuilds from scratch with caller ids (parallel arrays; sizes must match, asserted).
    // Ids are opaque: duplicates are binned twice.
    SpatialGridBuild build(std::span<const std::uint32_t> ids, std::span<const Vec2> positions);

    // Replaces out with every id whose position is within_radius(center, radius), cell order
    // (not id order). Exact: the same set brute_force_in_radius returns. Returns how many.
    std::size_t query_radius(Vec2 center, float radius, std::vector<std::uint32_t>& out) const;
    // The same query without an output vector: calls visit(id, position) per match. Always
    // inlined (see VANTAGE_ALWAYS_INLINE), so the visitor inlines into the candidate loop
    // wherever it is called from (a member function, a free function, another translation
    // unit) instead of wherever the compiler's size budget happens to allow.
    template <class Visit>
    VANTAGE_ALWAYS_INLINE void for_each_in_radius(Vec2 center, float radius, Visit&& visit) const;
    // Every binned point's query at once, issued in cell order: for each point a, in
    // ids_by_cell() order, calls visit(a_index, b_id, b_position) for every binned point b
    // with within_radius(b, a, radius), a itself included; a_index indexes ids_by_cell() and
    // positions_by_cell(). The same pairs as one for_each_in_radius per point, cheaper: the
    // window is worked out once per slice of a cell (from its members' extremes) and
    // neighbouring queries read neighbouring memory. Visits in no guaranteed order within
    // one a.
    template <class Visit>
    void for_each_in_radius_of_all(float radius, Visit&& visit) const;

    // The exact nearest id within radius (ties: the lowest id), or nothing.
    std::optional<NearestHit> nearest(Vec2 center, float radius) const;
    // The proximity chapter's density-wall escape: reads only each cell's representative
    // (its first occupant) across the window of `radius`, so the cost is bounded by the cell
    // count, not by how crowded the cells are. When some point lies within radius at
    // distance d, the answer exists and is at most d + one cell diagonal away (so it may lie
    // beyond radius); the bound assumes the points are inside the area, since a clamped
    // point can represent an edge cell it is not in. Ties: the lowest cell index.
    std::optional<NearestHit> nearest_representative(Vec2 center, float radius) const;

    // Cells. Indices run row-major over columns() x rows().
    std::uint32_t columns() const { return columns_; }
    std::uint32_t rows() const { return rows_; }
    std::uint32_t cell_count() const { return columns_ * rows_; }
    std::uint32_t cell_index(std::uint32_t column, std::uint32_t row) const { return row * columns_ + column; }
    // The (clamped) cell a point is filed in; nothing for a non-finite point.
    std::optional<std::uint32_t> cell_index_of(Vec2 p) const;
    // The cells a query of this radius reads (its bounding square, clamped to the grid).
    CellWindow window(Vec2 center, float radius) const;
    // How many points a query of this radius tests: the members of the slices its bounding
    // square touches (0 when it matches nothing).
    std::size_t candidate_count(Vec2 center, float radius) const;
    // The members of one cell, ordered by slice and then input order. Asserts
    // cell < cell_count().
    std::span<const std::uint32_t> cell_ids(std::uint32_t cell) const;
    std::span<const Vec2> cell_positions(std::uint32_t cell) const;
    // Calls visit(cell, ids, positions) for every non-empty cell, ascending cell index.
    // Costs O(cell_count()).
    template <class Visit>
    void for_each_occupied_cell(Visit&& visit) const;

    // Every binned id and position, in cell order (what the queries read).
    std::span<const std::uint32_t> ids_by_cell() const { return ids_; }
    std::span<const Vec2> positions_by_cell() const { return positions_; }
    // The ids the last build rejected as non-finite, in input order.
    std::span<const std::uint32_t> rejected_ids() const { return rejected_; }
    std::size_t size() const { return ids_.size(); }

    const GridQuantizer& quantizer() const { return quantizer_; }
    const SpatialGridOptions& options() const { return options_; }

private:
    static constexpr std::uint32_t kNoCell = 0xffffffffu;

    // A query's window in slices along x and rows along y, inclusive; cells are slices
    // divided by kSlices.
    struct SliceWindow {
        std::uint32_t slice_min = 0;
        std::uint32_t row_min = 0;
        std::uint32_t slice_max = 0;
        std::uint32_t row_max = 0;
        bool valid = false;
        bool empty() const { return !valid; }
    };

    template <class IdAt>
    SpatialGridBuild build_impl(std::span<const Vec2> positions, IdAt id_at);
    // Continuous slice and row coordinates: (v - origin) times the inverse slice width or
    // cell size, in double. Points and windows go through these same monotone functions, so
    // a point's slice always lies in the window of any query that can see it (see window()).
    // kSlices is a power of two, so a slice coordinate is exactly kSlices times the column
    // coordinate and its slice divided by kSlices is the point's column.
    double slice_coordinate(double x) const { return (x - origin_x_) * inverse_slice_; }
    double row_coordinate(double y) const { return (y - origin_y_) * inverse_cell_; }
    // The slice or row a continuous coordinate falls in, clamped into the grid: truncation
    // (= floor once non-negative) of the coordinate clamped into [0, last]. A NaN lands on
    // 0. Natively a max, a min and a conversion, no branch. In wasm built with saturating
    // conversions (-mnontrapping-fptoint, as ./vantage builds it) the conversion itself
    // clamps below and maps NaN to 0, leaving one integer min: without the feature every
    // conversion carries a range check and a branch, and a window has four of them.
    std::uint32_t slice_at(double coordinate) const { return clamp_cell(coordinate, last_slice_, slice_columns_ - 1); }
    std::uint32_t row_at(double coordinate) const { return clamp_cell(coordinate, last_row_, rows_ - 1); }
    static std::uint32_t clamp_cell(double coordinate, double last, std::uint32_t last_index) {
#if defined(__wasm_nontrapping_fptoint__) && !VANTAGE_PORTABLE
        static_cast<void>(last);
        const std::uint32_t cell = __builtin_wasm_trunc_saturate_u_i32_f64(coordinate);
        return cell < last_index ? cell : last_index;
#else
        static_cast<void>(last_index);
        const double low = coordinate > 0.0 ? coordinate : 0.0;
        return static_cast<std::uint32_t>(low < last ? low : last);
#endif
    }
    // Calls each(k, within) for every candidate of window w, k indexing ids_ and positions_,
    // within the squared-distance test against center (the bare comparison of
    // within_radius(): callers reject bad centres and radii first). One contiguous range per
    // row of the window. Every radius query is this loop with a different `each`.
    template <class Each>
    VANTAGE_ALWAYS_INLINE void for_each_candidate(const SliceWindow& w, Vec2 center, float r_sq, Each&& each) const;
    // The members of row `row` between slices w.slice_min and w.slice_max: [begin, end).
    std::uint32_t row_begin(const SliceWindow& w, std::uint32_t row) const {
        return offsets_[row * slice_columns_ + w.slice_min];
    }
    std::uint32_t row_end(const SliceWindow& w, std::uint32_t row) const {
        return offsets_[row * slice_columns_ + w.slice_max + 1];
    }
    // How many members the rows of w hold: the candidates a query over w tests.
    std::size_t candidates_in(const SliceWindow& w) const {
        std::size_t candidates = 0;
        for (std::uint32_t row = w.row_min; w.valid && row <= w.row_max; ++row)
            candidates += row_end(w, row) - row_begin(w, row);
        return candidates;
    }
    // Cell c's members: [cell_begin(c), cell_end(c)), its kSlices slices together.
    std::uint32_t cell_begin(std::uint32_t cell) const {
        return offsets_[cell * kSlices];
    }
    std::uint32_t cell_end(std::uint32_t cell) const {
        return offsets_[(cell + 1) * kSlices];
    }
    // Starts reading the first candidate of every row of w before the walk reaches any of
    // them, so that the rows' cache misses overlap instead of following one another:
    // natively a prefetch, in wasm (which has none) a load kept alive by VANTAGE_KEEP; in the
    // portable build, nothing. It pays most where rows miss the cache (many points, random
    // query order; core/docs/relevance.md has the measurements).
    VANTAGE_ALWAYS_INLINE void prefetch_rows(const SliceWindow& w) const {
#if !defined(__wasm__)
        for (std::uint32_t row = w.row_min; row <= w.row_max; ++row)
            VANTAGE_PREFETCH(positions_.data() + row_begin(w, row));
#else
        if (positions_.empty()) return;
        const std::uint32_t last = static_cast<std::uint32_t>(positions_.size() - 1);
        for (std::uint32_t row = w.row_min; row <= w.row_max; ++row) {
            const std::uint32_t k = row_begin(w, row);  // up to size() for an empty last row
            const float touched = positions_[k < last ? k : last].x;
            VANTAGE_KEEP(touched);
        }
#endif
    }
    // Whether a query can match anything: a radius in [0, max float] (not NaN), and a
    // finite centre.
    static bool queryable(float radius) {
        return radius >= 0.0f && radius <= std::numeric_limits<float>::max();
    }
    static bool queryable(Vec2 center, float radius) {
        return center.is_finite() && queryable(radius);
    }
    // window_of_query out of line (natively for_each_in_radius calls it; see there), where
    // the private SIMD layer computes both axes at once (core/src/spatial_grid.cpp).
    SliceWindow slice_window(Vec2 center, float radius) const;
    // The slices and rows a query reads, always inlined: for_each_in_radius inlines it in
    // wasm (see there).
    VANTAGE_ALWAYS_INLINE SliceWindow window_of_query(Vec2 center, float radius) const {
        if (!queryable(center, radius)) return {};
        const double x = static_cast<double>(center.x);
        const double y = static_cast<double>(center.y);
        return window_of_box(x, y, x, y, static_cast<double>(search_reach(radius)));
    }
    // The window covering [x_min - reach, x_max + reach] x [y_min - reach, y_max + reach]:
    // standard C++, inline. box_window is the same window out of line, computed by the
    // private SIMD layer where the target has one (the same cells bit for bit).
    SliceWindow window_of_box(double x_min, double y_min, double x_max, double y_max, double reach) const {
        SliceWindow w;
        w.slice_min = slice_at(slice_coordinate(x_min - reach));
        w.slice_max = slice_at(slice_coordinate(x_max + reach));
        w.row_min = row_at(row_coordinate(y_min - reach));
        w.row_max = row_at(row_coordinate(y_max + reach));
        w.valid = true;
        return w;
    }
    SliceWindow box_window(double x_min, double y_min, double x_max, double y_max, double reach) const;

    SpatialGridOptions options_;
    GridQuantizer quantizer_;
    std::uint32_t columns_ = 0;
    std::uint32_t rows_ = 0;
    std::uint32_t slice_columns_ = 0;  // columns_ * kSlices
    double origin_x_ = 0.0;
    double origin_y_ = 0.0;
    double inverse_cell_ = 1.0;   // 1 / cell_size
    double inverse_slice_ = 1.0;  // kSlices / cell_size
    double last_slice_ = 0.0;     // slice_columns_ - 1, the clamp bound
    double last_row_ = 0.0;       // rows_ - 1
    // offsets_[s] .. offsets_[s + 1] is slice s's range in ids_/positions_, slices numbered
    // row * slice_columns_ + slice (cell_count() * kSlices + 1 entries), so cell c's range
    // is offsets_[c * kSlices] .. offsets_[(c + 1) * kSlices].
    std::vector<std::uint32_t> offsets_;
    std::vector<std::uint32_t> slice_of_input_;  // build scratch: each input's slice or kNoCell
    std::vector<std::uint32_t> ids_;
    std::vector<Vec2> positions_;
    // Each cell's first occupant, indexed by cell (stale for empty cells), so a
    // representative query reads a few adjacent entries instead of scattered ones.
    struct Representative {
        Vec2 position;
        std::uint32_t id = 0;
    };
    std::vector<Representative> representatives_;
    std::vector<std::uint32_t> rejected_;
};

template <class Visit>
inline void SpatialGrid::for_each_in_radius(Vec2 center, float radius, Visit&& visit) const {
    // Bad centres and radii are rejected once here, so the candidate test in
    // for_each_candidate is the bare squared-distance comparison of within_radius() (same
    // operands, same float rounding). Where the window is worked out depends on the target,
    // measured both ways against the bare bin (paired; core/docs/relevance.md, "Tried and
    // rejected"):
    //   - natively it is a call to slice_window() on purpose: inlined, its loop-invariant
    //     doubles were hoisted out of the caller's loop and crowded the candidate loop's
    //     registers, and g++ 12 spent an extra move per candidate;
    //   - in wasm the call is what costs: without multi-value returns the window comes back
    //     through memory, with the centre spilled on the way in.
#if defined(__wasm__)
    const SliceWindow w = window_of_query(center, radius);
#else
    const SliceWindow w = slice_window(center, radius);
#endif
    if (w.empty()) return;
    prefetch_rows(w);
    const Vec2* const positions = positions_.data();
    const std::uint32_t* const ids = ids_.data();
    for_each_candidate(w, center, radius * radius, [&](std::uint32_t k, bool within) {
        if (within) visit(ids[k], positions[k]);
    });
}

template <class Each>
inline void SpatialGrid::for_each_candidate(const SliceWindow& w, Vec2 center, float r_sq, Each&& each) const {
    const float center_x = center.x;
    const float center_y = center.y;
    const Vec2* const positions = positions_.data();
    for (std::uint32_t row = w.row_min; row <= w.row_max; ++row) {
        // The window's slices in one row are adjacent, so their members are one range.
        const std::uint32_t end = row_end(w, row);
        for (std::uint32_t k = row_begin(w, row); k < end; ++k) {
            const Vec2 p = positions[k];
            const float dx = p.x - center_x;
            const float dy = p.y - center_y;
            each(k, dx * dx + dy * dy <= r_sq);
        }
    }
}

template <class Visit>
inline void SpatialGrid::for_each_in_radius_of_all(float radius, Visit&& visit) const {
    if (!queryable(radius)) return;
    const double reach = static_cast<double>(search_reach(radius));
    const float r_sq = radius * radius;
    const Vec2* const positions = positions_.data();
    const std::uint32_t* const ids = ids_.data();
    const std::uint32_t* const offsets = offsets_.data();
    // One window per slice rather than per cell: a slice's members span half a cell in x,
    // so their window is narrower (fewer candidates than one window per cell).
    const std::uint32_t slices = cell_count() * kSlices;
    for (std::uint32_t slice = 0; slice < slices; ++slice) {
        const std::uint32_t begin = offsets[slice];
        const std::uint32_t stop = offsets[slice + 1];
        if (begin == stop) continue;
        // The union of the members' own windows: windows grow monotonically with the
        // centre, so the one of the members' bounding box covers each of them.
        float x_min = positions[begin].x, x_max = x_min, y_min = positions[begin].y, y_max = y_min;
        for (std::uint32_t a = begin + 1; a < stop; ++a) {
            x_min = positions[a].x < x_min ? positions[a].x : x_min;
            x_max = positions[a].x > x_max ? positions[a].x : x_max;
            y_min = positions[a].y < y_min ? positions[a].y : y_min;
            y_max = positions[a].y > y_max ? positions[a].y : y_max;
        }
        // Natively the SIMD layer's window, out of line (one call per slice, not per member);
        // in wasm the inline one (a call returns the window through memory there).
#if defined(__wasm__)
        const SliceWindow w = window_of_box(x_min, y_min, x_max, y_max, reach);
#else
        const SliceWindow w = box_window(x_min, y_min, x_max, y_max, reach);
#endif
        prefetch_rows(w);
        for (std::uint32_t a = begin; a < stop; ++a) {
            for_each_candidate(w, positions[a], r_sq, [&](std::uint32_t k, bool within) {
                if (within) visit(a, ids[k], positions[k]);
            });
        }
    }
}

template <class Visit>
inline void SpatialGrid::for_each_occupied_cell(Visit&& visit) const {
    const std::uint32_t cells = cell_count();
    for (std::uint32_t c = 0; c < cells; ++c) {
        if (cell_begin(c) != cell_end(c)) visit(c, cell_ids(c), cell_positions(c));
    }
}

}  // namespace vantage
