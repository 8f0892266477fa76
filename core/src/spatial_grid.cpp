#include "vantage/spatial_grid.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>

#include "simd.hpp"
#include "vantage/assert.hpp"

namespace vantage {

namespace {

// floor(extent / cell) + 1 cells cover the closed interval [0, extent] along one axis.
std::uint64_t cells_along(float extent, float cell_size) {
    return static_cast<std::uint64_t>(std::floor(static_cast<double>(extent) / static_cast<double>(cell_size))) + 1;
}

}  // namespace

std::string_view SpatialGridOptions::validate() const {
    if (!origin.is_finite()) return "origin must be finite";
    if (!extent.is_finite() || !(extent.x > 0.0f) || !(extent.y > 0.0f))
        return "extent must be finite and > 0 on both axes";
    if (!std::isfinite(cell_size) || !(cell_size > 0.0f)) return "cell_size must be finite and > 0";
    const double cols = std::floor(static_cast<double>(extent.x) / static_cast<double>(cell_size)) + 1.0;
    const double rows = std::floor(static_cast<double>(extent.y) / static_cast<double>(cell_size)) + 1.0;
    if (cols * rows > static_cast<double>(kMaxCells)) return "extent / cell_size gives more than kMaxCells cells";
    return {};
}

namespace {

const SpatialGridOptions& checked(const SpatialGridOptions& options) {
    VANTAGE_ASSERT_VALID(options, "SpatialGrid: invalid SpatialGridOptions");
    return options;
}

}  // namespace

SpatialGrid::SpatialGrid(const SpatialGridOptions& options)
    : options_(checked(options)), quantizer_(options.origin, options.cell_size) {
    columns_ = static_cast<std::uint32_t>(cells_along(options.extent.x, options.cell_size));
    rows_ = static_cast<std::uint32_t>(cells_along(options.extent.y, options.cell_size));
    slice_columns_ = columns_ * kSlices;
    origin_x_ = static_cast<double>(options.origin.x);
    origin_y_ = static_cast<double>(options.origin.y);
    inverse_cell_ = 1.0 / static_cast<double>(options.cell_size);
    inverse_slice_ = inverse_cell_ * kSlices;  // exact: kSlices is a power of two
    last_slice_ = static_cast<double>(slice_columns_ - 1);
    last_row_ = static_cast<double>(rows_ - 1);
    offsets_.assign(std::size_t{cell_count()} * kSlices + 1, 0);
    representatives_.assign(cell_count(), Representative{});
}

SpatialGridBuild SpatialGrid::build(std::span<const Vec2> positions) {
    return build_impl(positions, [](std::size_t i) { return static_cast<std::uint32_t>(i); });
}

SpatialGridBuild SpatialGrid::build(std::span<const std::uint32_t> ids, std::span<const Vec2> positions) {
    VANTAGE_ASSERT(ids.size() == positions.size(), "SpatialGrid::build: ids and positions differ in length");
    const std::size_t n = std::min(ids.size(), positions.size());
    return build_impl(positions.first(n), [ids](std::size_t i) { return ids[i]; });
}

template <class IdAt>
SpatialGridBuild SpatialGrid::build_impl(std::span<const Vec2> positions, IdAt id_at) {
    VANTAGE_ASSERT(positions.size() < kNoCell, "SpatialGrid::build: too many points for 32-bit offsets");
    SpatialGridBuild result;
    const std::size_t n = positions.size();
    slice_of_input_.resize(n);
    rejected_.clear();
    std::fill(offsets_.begin(), offsets_.end(), 0u);

    // Pass 1: each point's slice, and the count per slice. One comparison chain decides the
    // common case: inside the area (which a NaN never is), the truncated coordinates are the
    // slice and row. Everything else, clamped or rejected, takes the second branch.
    static_assert((kSlices & (kSlices - 1)) == 0, "a slice coordinate is a column coordinate times kSlices, exactly");
    const double slices_d = static_cast<double>(slice_columns_);
    const double rows_d = static_cast<double>(rows_);
#if VANTAGE_SIMD_WASM
    // In wasm with SIMD both axes go at once: one subtract, multiply and pair of comparisons,
    // and the cell comes out of exact double arithmetic instead of two conversions (V8 turns
    // each scalar double-to-integer conversion into six to ten instructions with branches;
    // pass 1 alone, 100k points, ran 1.7x faster). trunc(row) * slice columns + trunc(slice)
    // is an integer below 2^32, so adding 2^52 leaves it, unrounded, in the double's low 32 bits. The
    // continuous coordinates and the comparisons are the scalar path's, bit for bit. A
    // clamped point stays in the vector too (a max and a min before the truncation), and no
    // coordinate is taken out to a scalar: the build at 20k 97.5 to 89.5 us, and a crowd half
    // of it against an edge of the area 105.7 to 91.1 us, against the two extracted
    // coordinates and row_at and column_at's scalar conversions.
    static_assert(sizeof(Vec2) == 8, "a Vec2 is loaded as one 64-bit lane");
    const v128_t origin = wasm_f64x2_make(origin_x_, origin_y_);
    const v128_t inverse = wasm_f64x2_make(inverse_slice_, inverse_cell_);
    const v128_t zero = wasm_f64x2_splat(0.0);
    const v128_t dimensions = wasm_f64x2_make(slices_d, rows_d);
    const v128_t last = wasm_f64x2_make(last_slice_, last_row_);
    const v128_t stride = wasm_f64x2_make(1.0, slices_d);
    const v128_t low_bits = wasm_f64x2_splat(0x1p52);
#endif
    for (std::size_t i = 0; i < n; ++i) {
#if VANTAGE_SIMD_WASM
        const v128_t c = wasm_f64x2_mul(
            wasm_f64x2_sub(wasm_f64x2_promote_low_f32x4(wasm_v128_load64_zero(&positions[i])), origin), inverse);
        const bool inside =
            wasm_i64x2_bitmask(wasm_v128_and(wasm_f64x2_ge(c, zero), wasm_f64x2_lt(c, dimensions))) == 3;
        const auto cell_of = [&](v128_t in_grid) {
            const v128_t k = wasm_f64x2_add(wasm_f64x2_mul(wasm_f64x2_trunc(in_grid), stride), low_bits);
            return static_cast<std::uint32_t>(wasm_i32x4_extract_lane(k, 0)) +
                   static_cast<std::uint32_t>(wasm_i32x4_extract_lane(k, 2));
        };
        const auto cell_inside = [&] { return cell_of(c); };
        // Clamped into [0, last] on both axes (pmax(0, c) is c > 0 ? c : 0, pmin(last, x) is
        // x < last ? x : last): row_at and slice_at without their two scalar conversions.
        const auto cell_clamped = [&] { return cell_of(wasm_f64x2_pmin(last, wasm_f64x2_pmax(zero, c))); };
        const auto finite = [&] { return wasm_i64x2_bitmask(wasm_f64x2_eq(wasm_f64x2_sub(c, c), zero)) == 3; };
#else
        const Vec2 p = positions[i];
        const double cx = slice_coordinate(static_cast<double>(p.x));
        const double cy = row_coordinate(static_cast<double>(p.y));
        const bool inside = cx >= 0.0 && cx < slices_d && cy >= 0.0 && cy < rows_d;
        const auto cell_inside = [&] {
            return static_cast<std::uint32_t>(cy) * slice_columns_ + static_cast<std::uint32_t>(cx);
        };
        const auto cell_clamped = [&] { return row_at(cy) * slice_columns_ + slice_at(cx); };
        const auto finite = [&] { return p.is_finite(); };
#endif
        std::uint32_t cell = 0;
        if (inside) {
            cell = cell_inside();
        } else if (finite()) {
            cell = cell_clamped();
            ++result.clamped;
        } else {
            slice_of_input_[i] = kNoCell;
            rejected_.push_back(id_at(i));
            continue;
        }
        slice_of_input_[i] = cell;
        ++offsets_[cell];
    }
    result.rejected = static_cast<std::uint32_t>(rejected_.size());
    result.binned = static_cast<std::uint32_t>(n) - result.rejected;

    // Pass 2: inclusive prefix sum, so offsets_[s] is where slice s ends.
    const std::uint32_t cells = cell_count();
    const std::uint32_t slices = cells * kSlices;
    std::uint32_t running = 0;
    for (std::uint32_t s = 0; s < slices; ++s) {
        running += offsets_[s];
        offsets_[s] = running;
    }
    offsets_[slices] = running;

    // Pass 3: scatter back to front, decrementing each end; afterwards offsets_[s] is where
    // slice s starts, and walking backwards keeps input order inside each slice.
    ids_.resize(result.binned);
    positions_.resize(result.binned);
    for (std::size_t i = n; i-- > 0;) {
        const std::uint32_t slice = slice_of_input_[i];
        if (slice == kNoCell) continue;
        const std::uint32_t slot = --offsets_[slice];
        ids_[slot] = id_at(i);
        positions_[slot] = positions[i];
    }

    // Pass 4: the representative table, one sequential sweep over the cells.
    for (std::uint32_t c = 0; c < cells; ++c) {
        const std::uint32_t first = cell_begin(c);
        if (first != cell_end(c)) representatives_[c] = {positions_[first], ids_[first]};
    }
    return result;
}

SpatialGrid::SliceWindow SpatialGrid::slice_window(Vec2 center, float radius) const {
    if (!queryable(center, radius)) return {};
    const double x = static_cast<double>(center.x);
    const double y = static_cast<double>(center.y);
    return box_window(x, y, x, y, static_cast<double>(search_reach(radius)));
}

SpatialGrid::SliceWindow SpatialGrid::box_window(double x_min, double y_min, double x_max, double y_max,
                                                 double reach) const {
#if VANTAGE_SIMD_SSE2
    // Both axes in one vector, the same operations in the same order as window_of_box, so the
    // same cells bit for bit: maxpd(c, 0) is c > 0 ? c : 0 (a NaN gives 0), minpd(low, last)
    // is low < last ? low : last, and the truncation of [0, last] is exact either way. g++ 12
    // compiles each scalar clamp as a compare and a jump, eight per window.
    SliceWindow w;
    const __m128d origin = _mm_set_pd(origin_y_, origin_x_);
    const __m128d inverse = _mm_set_pd(inverse_cell_, inverse_slice_);
    const __m128d last = _mm_set_pd(last_row_, last_slice_);
    const __m128d r = _mm_set1_pd(reach);
    auto cells = [&](__m128d v) {
        const __m128d c = _mm_mul_pd(_mm_sub_pd(v, origin), inverse);
        return _mm_cvttpd_epi32(_mm_min_pd(_mm_max_pd(c, _mm_setzero_pd()), last));
    };
    const __m128i low = cells(_mm_sub_pd(_mm_set_pd(y_min, x_min), r));
    const __m128i high = cells(_mm_add_pd(_mm_set_pd(y_max, x_max), r));
    w.slice_min = static_cast<std::uint32_t>(_mm_cvtsi128_si32(low));
    w.row_min = static_cast<std::uint32_t>(_mm_cvtsi128_si32(_mm_srli_si128(low, 4)));
    w.slice_max = static_cast<std::uint32_t>(_mm_cvtsi128_si32(high));
    w.row_max = static_cast<std::uint32_t>(_mm_cvtsi128_si32(_mm_srli_si128(high, 4)));
    w.valid = true;
    return w;
#else
    return window_of_box(x_min, y_min, x_max, y_max, reach);
#endif
}

CellWindow SpatialGrid::window(Vec2 center, float radius) const {
    const SliceWindow s = window_of_query(center, radius);
    CellWindow w;
    if (s.empty()) return w;
    w.column_min = s.slice_min / kSlices;
    w.column_max = s.slice_max / kSlices;
    w.row_min = s.row_min;
    w.row_max = s.row_max;
    w.valid = true;
    return w;
}

std::size_t SpatialGrid::candidate_count(Vec2 center, float radius) const {
    return candidates_in(window_of_query(center, radius));
}

#if VANTAGE_SIMD_WASM
namespace {

// For each four-bit mask of matching lanes, the swizzle that moves those lanes' 32-bit ids
// to the front, in order (the slots after them are written but not kept).
struct KeptLanes {
    std::uint8_t bytes[16];
};

constexpr std::array<KeptLanes, 16> kept_lanes_table() {
    std::array<KeptLanes, 16> table{};
    for (unsigned mask = 0; mask < 16; ++mask) {
        unsigned n = 0;
        for (unsigned lane = 0; lane < 4; ++lane) {
            if (((mask >> lane) & 1u) == 0) continue;
            for (unsigned b = 0; b < 4; ++b) table[mask].bytes[4 * n + b] = static_cast<std::uint8_t>(4 * lane + b);
            ++n;
        }
    }
    return table;
}

constexpr std::array<KeptLanes, 16> kKeptLanes = kept_lanes_table();

// Bit j set when p[j] (j < 4) is within sqrt(r_sq) of the centre: the squared distance of
// within_radius() in four lanes, the same operations in the same order, so the same answer.
VANTAGE_ALWAYS_INLINE unsigned within_mask4(const Vec2* p, v128_t center_x, v128_t center_y, v128_t r_sq) {
    const v128_t a = wasm_v128_load(p);
    const v128_t b = wasm_v128_load(p + 2);
    const v128_t dx = wasm_f32x4_sub(wasm_i32x4_shuffle(a, b, 0, 2, 4, 6), center_x);
    const v128_t dy = wasm_f32x4_sub(wasm_i32x4_shuffle(a, b, 1, 3, 5, 7), center_y);
    const v128_t d = wasm_f32x4_add(wasm_f32x4_mul(dx, dx), wasm_f32x4_mul(dy, dy));
    return wasm_i32x4_bitmask(wasm_f32x4_le(d, r_sq));
}

}  // namespace
#endif

std::size_t SpatialGrid::query_radius(Vec2 center, float radius, std::vector<std::uint32_t>& out) const {
    // Every candidate is written and kept only if it matches, so the distance test sets the
    // count instead of steering a branch: for the candidates near the rim a match is close
    // to a coin flip, which no predictor learns (a push_back per match ran 3.5x slower in
    // wasm than natively). `out` first grows to the window's candidate count, plus the three
    // slots a group of four may write past the last match.
    out.clear();
    const SliceWindow w = slice_window(center, radius);
    if (w.empty()) return 0;
    out.resize(candidates_in(w) + 3);
    std::uint32_t* const kept_ids = out.data();
    const std::uint32_t* const ids = ids_.data();
    const float r_sq = radius * radius;
    std::size_t kept = 0;
#if VANTAGE_SIMD_WASM
    // In wasm, four candidates at a time: one mask, and the matching ids moved to the front
    // of one 16-byte store by a swizzle, 1.3x to 2x faster than one at a time. Natively SSE2
    // has no such byte shuffle; four table-driven stores per group were 11% slower than
    // for_each_candidate (core/docs/relevance.md).
    const Vec2* const positions = positions_.data();
    const v128_t center_x = wasm_f32x4_splat(center.x);
    const v128_t center_y = wasm_f32x4_splat(center.y);
    const v128_t radius_sq = wasm_f32x4_splat(r_sq);
    prefetch_rows(w);
    for (std::uint32_t row = w.row_min; row <= w.row_max; ++row) {
        const std::uint32_t end = row_end(w, row);
        std::uint32_t k = row_begin(w, row);
        for (; k + 4 <= end; k += 4) {
            const unsigned mask = within_mask4(positions + k, center_x, center_y, radius_sq);
            const v128_t front = wasm_i8x16_swizzle(wasm_v128_load(ids + k), wasm_v128_load(kKeptLanes[mask].bytes));
            wasm_v128_store(kept_ids + kept, front);
            kept += static_cast<std::size_t>(std::popcount(mask));
        }
        for (; k < end; ++k) {
            const Vec2 p = positions[k];
            const float dx = p.x - center.x;
            const float dy = p.y - center.y;
            kept_ids[kept] = ids[k];
            kept += dx * dx + dy * dy <= r_sq ? 1 : 0;
        }
    }
#else
    prefetch_rows(w);
    for_each_candidate(w, center, r_sq, [&](std::uint32_t k, bool within) {
        kept_ids[kept] = ids[k];
        kept += within ? 1 : 0;
    });
#endif
    out.resize(kept);
    return kept;
}

std::optional<NearestHit> SpatialGrid::nearest(Vec2 center, float radius) const {
    std::optional<NearestHit> best;
    float best_sq = 0.0f;
    for_each_in_radius(center, radius, [&](std::uint32_t id, Vec2 p) {
        const float d_sq = (p - center).length_squared();
        if (!best || d_sq < best_sq || (d_sq == best_sq && id < best->id)) {
            best = NearestHit{id, 0.0f};
            best_sq = d_sq;
        }
    });
    if (best) best->distance = std::sqrt(best_sq);
    return best;
}

std::optional<NearestHit> SpatialGrid::nearest_representative(Vec2 center, float radius) const {
    std::optional<NearestHit> best;
    const CellWindow w = window(center, radius);
    if (w.empty()) return best;
    float best_sq = 0.0f;
    for (std::uint32_t row = w.row_min; row <= w.row_max; ++row) {
        for (std::uint32_t col = w.column_min; col <= w.column_max; ++col) {
            const std::uint32_t cell = cell_index(col, row);
            if (cell_begin(cell) == cell_end(cell)) continue;
            const Representative& rep = representatives_[cell];
            const float d_sq = (rep.position - center).length_squared();
            if (!best || d_sq < best_sq) {
                best = NearestHit{rep.id, 0.0f};
                best_sq = d_sq;
            }
        }
    }
    if (best) best->distance = std::sqrt(best_sq);
    return best;
}

std::optional<std::uint32_t> SpatialGrid::cell_index_of(Vec2 p) const {
    if (!p.is_finite()) return std::nullopt;
    return cell_index(slice_at(slice_coordinate(static_cast<double>(p.x))) / kSlices,
                      row_at(row_coordinate(static_cast<double>(p.y))));
}

std::span<const std::uint32_t> SpatialGrid::cell_ids(std::uint32_t cell) const {
    VANTAGE_ASSERT(cell < cell_count(), "SpatialGrid::cell_ids: cell out of range");
    return std::span<const std::uint32_t>(ids_).subspan(cell_begin(cell), cell_end(cell) - cell_begin(cell));
}

std::span<const Vec2> SpatialGrid::cell_positions(std::uint32_t cell) const {
    VANTAGE_ASSERT(cell < cell_count(), "SpatialGrid::cell_positions: cell out of range");
    return std::span<const Vec2>(positions_).subspan(cell_begin(cell), cell_end(cell) - cell_begin(cell));
}

}  // namespace vantage
