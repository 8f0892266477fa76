// GravityField: the pull of weighted sources at a point, exact or from summaries.
//
// The consumer of an AggregateTree that *computes* with what it was told: a client
// integrating pellets sums the pull of every attractor it holds, and whether those are the
// real sources or Summary stand-ins is invisible to it, so there is one evaluation for both
// (no second physics path). measure_field_error() prices an approximation: how far its field
// is from the exact one at a set of probe points, and how many source-probe evaluations
// ("force evaluations") each side spent, which is often the resource aggregation actually
// buys back rather than bandwidth.
//
// The field is Plummer-softened inverse-square attraction toward each source:
//
//     field(p) = sum_i  strength * w_i * (q_i - p) / (|q_i - p|^2 + softening_sq)^(3/2)
//
// which is strength * w / r^2 toward the source far away and goes smoothly to zero at the
// source instead of diverging. Units: positions in world units, the result is acceleration in
// world units / s^2 when strength is in world units^3 / (s^2 * weight).
//
// Bad input policy: sources with a non-finite position or weight are skipped, matching
// AggregateTree, so an exact field and a summarized one see the same set. A source exactly
// at the probe with softening_sq == 0 has no direction and contributes nothing. Options that
// fail validate() are misuse (asserted).
//
// Cost: one evaluation (a reciprocal square root and a few multiplies) per source per probe;
// terms are computed in float and accumulated in double, so the result does not depend
// noticeably on the order of the sources.
#pragma once

#include <cmath>
#include <cstdint>
#include <span>
#include <string_view>

#include "vantage/aggregate_tree.hpp"
#include "vantage/assert.hpp"
#include "vantage/vec.hpp"

namespace vantage {

struct GravityField {
    // Field per unit weight at unit distance (the G of the game), world units^3/(s^2 weight);
    // finite, any sign (negative repels).
    float strength = 1.0f;
    // Added to r^2 before the 3/2 power, world units^2; >= 0 and finite. 0 is exact
    // inverse-square gravity, which spikes without bound near a source.
    float softening_sq = 0.0f;

    std::string_view validate() const {
        if (!std::isfinite(strength)) return "strength must be finite";
        if (!std::isfinite(softening_sq) || !(softening_sq >= 0.0f)) return "softening_sq must be finite and >= 0";
        return {};
    }

    // Exact field at `point` from every source. Inline, as at_each's loop is: with a few
    // sources, a call per point cost wasm more than the evaluation (core/docs/aggregate.md).
    Vec2 at(Vec2 point, std::span<const WeightedPoint> sources) const;
    // Field at `point` from a summary list (exact summaries and stand-ins alike).
    Vec2 at(Vec2 point, std::span<const Summary> sources) const;
    // The field at many points in one call: out[i] = at(points[i], sources), bit for bit.
    // For a per-tick integration over every pellet: one call instead of one per point, which
    // in wasm passes the point and the result through memory each time (with a few sources
    // that was most of the cost; core/docs/aggregate.md). Asserts out.size() ==
    // points.size().
    void at_each(std::span<const Vec2> points, std::span<const WeightedPoint> sources, std::span<Vec2> out) const;
    void at_each(std::span<const Vec2> points, std::span<const Summary> sources, std::span<Vec2> out) const;
};

namespace detail {

struct FieldSum {
    double x = 0.0;
    double y = 0.0;
    std::uint64_t evaluations = 0;
};

// The tree's rule (WeightedPoint::is_finite), for real sources and summaries alike.
template <class Source>
inline bool finite_source(const Source& s) {
    return WeightedPoint{s.x, s.y, s.weight}.is_finite();
}

// The one evaluation both source kinds share. Terms in float (what a game steps with), the
// running sum in double (so the exact and the summarized field of identical sources agree
// regardless of their order). Sources failing finite_source are skipped.
template <class Source>
inline FieldSum field_sum(const GravityField& field, Vec2 point, std::span<const Source> sources) {
    FieldSum sum;
    for (const Source& s : sources) {
        if (!finite_source(s)) continue;
        ++sum.evaluations;
        const float dx = s.x - point.x;
        const float dy = s.y - point.y;
        const float r2 = dx * dx + dy * dy + field.softening_sq;
        // r2 == 0: a source on the probe without softening has no direction. r2 == inf: too
        // far to matter, and 1/inf is 0 anyway.
        if (!(r2 > 0.0f)) continue;
        const float k = field.strength * s.weight / (r2 * std::sqrt(r2));
        sum.x += static_cast<double>(k * dx);
        sum.y += static_cast<double>(k * dy);
    }
    return sum;
}

template <class Source>
inline Vec2 field_at(const GravityField& field, Vec2 point, std::span<const Source> sources) {
    VANTAGE_ASSERT_VALID(field, "GravityField::at");
    const FieldSum sum = field_sum(field, point, sources);
    return {static_cast<float>(sum.x), static_cast<float>(sum.y)};
}

}  // namespace detail

inline Vec2 GravityField::at(Vec2 point, std::span<const WeightedPoint> sources) const {
    return detail::field_at(*this, point, sources);
}

inline Vec2 GravityField::at(Vec2 point, std::span<const Summary> sources) const {
    return detail::field_at(*this, point, sources);
}

// How far an approximate source list's field is from the exact field, over probe points.
struct FieldError {
    // sum over probes of |approx - exact| / sum over probes of |exact|. 0 when both sums are
    // 0; +inf when only the exact field is 0 everywhere.
    double relative_error = 0.0;
    // The worst single probe's |approx - exact| / |exact| (+inf if a probe with an exact
    // field of zero got a nonzero approximate one).
    double worst_relative_error = 0.0;
    // Total approximate weight over total exact weight: 1 (to float rounding) for any
    // summary list of the whole set, since aggregation keeps the weight; below 1 for a
    // culled list. 1 when both are equal, including both 0.
    double weight_kept = 1.0;
    // probes x finite exact sources: the force evaluations the exact field costs.
    std::uint64_t exact_evaluations = 0;
    // probes x approximate sources: the force evaluations the approximation costs.
    std::uint64_t approx_evaluations = 0;
};

// Compares the field of `approx` (summaries from a walk) against the exact field of
// `sources` at every probe.
FieldError measure_field_error(const GravityField& field, std::span<const WeightedPoint> sources,
                               std::span<const Summary> approx, std::span<const Vec2> probes);
// The same for an approximation that is a plain source list, e.g. the sources left after
// culling by view distance.
FieldError measure_field_error(const GravityField& field, std::span<const WeightedPoint> sources,
                               std::span<const WeightedPoint> approx, std::span<const Vec2> probes);

}  // namespace vantage
