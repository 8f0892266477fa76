#include "vantage/gravity_field.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "vantage/assert.hpp"

namespace vantage {
namespace {

template <class Source>
void accumulate_each(const GravityField& field, std::span<const Vec2> points, std::span<const Source> sources,
                     std::span<Vec2> out) {
    VANTAGE_ASSERT_VALID(field, "GravityField::at_each");
    VANTAGE_ASSERT(out.size() == points.size(), "GravityField::at_each: out and points differ in length");
    const std::size_t n = std::min(out.size(), points.size());
    for (std::size_t i = 0; i < n; ++i) {
        const detail::FieldSum sum = detail::field_sum(field, points[i], sources);
        out[i] = {static_cast<float>(sum.x), static_cast<float>(sum.y)};
    }
}

template <class Source>
double total_weight(std::span<const Source> sources) {
    double w = 0.0;
    for (const Source& s : sources) {
        if (detail::finite_source(s)) w += s.weight;
    }
    return w;
}

template <class Approx>
FieldError compare(const GravityField& field, std::span<const WeightedPoint> sources, std::span<const Approx> approx,
                   std::span<const Vec2> probes) {
    VANTAGE_ASSERT_VALID(field,
                         "measure_field_error: invalid GravityField (strength finite, softening_sq finite and >= 0)");
    FieldError result;
    double diff_sum = 0.0;
    double exact_sum = 0.0;
    for (const Vec2 probe : probes) {
        const detail::FieldSum exact = detail::field_sum(field, probe, sources);
        const detail::FieldSum guess = detail::field_sum(field, probe, approx);
        result.exact_evaluations += exact.evaluations;
        result.approx_evaluations += guess.evaluations;
        const double exact_len = std::hypot(exact.x, exact.y);
        const double diff_len = std::hypot(guess.x - exact.x, guess.y - exact.y);
        diff_sum += diff_len;
        exact_sum += exact_len;
        if (diff_len > 0.0) {
            const double relative = exact_len > 0.0 ? diff_len / exact_len : std::numeric_limits<double>::infinity();
            if (relative > result.worst_relative_error) result.worst_relative_error = relative;
        }
    }
    if (diff_sum > 0.0) {
        result.relative_error = exact_sum > 0.0 ? diff_sum / exact_sum : std::numeric_limits<double>::infinity();
    }
    const double exact_weight = total_weight(sources);
    const double approx_weight = total_weight(approx);
    if (exact_weight != approx_weight) {
        result.weight_kept =
            exact_weight != 0.0 ? approx_weight / exact_weight : std::numeric_limits<double>::infinity();
    }
    return result;
}

}  // namespace

void GravityField::at_each(std::span<const Vec2> points, std::span<const WeightedPoint> sources,
                           std::span<Vec2> out) const {
    accumulate_each(*this, points, sources, out);
}

void GravityField::at_each(std::span<const Vec2> points, std::span<const Summary> sources, std::span<Vec2> out) const {
    accumulate_each(*this, points, sources, out);
}

FieldError measure_field_error(const GravityField& field, std::span<const WeightedPoint> sources,
                               std::span<const Summary> approx, std::span<const Vec2> probes) {
    return compare(field, sources, approx, probes);
}

FieldError measure_field_error(const GravityField& field, std::span<const WeightedPoint> sources,
                               std::span<const WeightedPoint> approx, std::span<const Vec2> probes) {
    return compare(field, sources, approx, probes);
}

}  // namespace vantage
