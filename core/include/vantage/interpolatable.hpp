// Interpolatable and LinearState: what a state type must offer to be rewound, interpolated,
// extrapolated or smoothed.
//
// One state type serves the server's rewind (HistoricalStateBuffer), the client's entity
// interpolation (SnapshotBuffer) and correction smoothing (CorrectionSmoother). The hooks are
// free functions found by argument-dependent lookup, so a game's own struct opts in by
// declaring `interpolate(a, b, t)` (and, for extrapolation and smoothing, the vector
// operators plus `magnitude`) in its own namespace. Overloads for float, double, Vec2 and
// Vec3 live here.
//
// interpolate(a, b, t): t = 0 gives a, t = 1 gives b. The buffers only ever pass t in
// [0, 1]; extrapolation goes through LinearState arithmetic instead, so a state that can be
// blended but not extended (an angle with wrap-around, a discrete flag) can still be rewound.
#pragma once

#include <cmath>
#include <concepts>

#include "vantage/vec.hpp"

namespace vantage {

inline float interpolate(float a, float b, float t) {
    return a + (b - a) * t;
}
inline Vec2 interpolate(Vec2 a, Vec2 b, float t) {
    return a + (b - a) * t;
}
inline Vec3 interpolate(Vec3 a, Vec3 b, float t) {
    return a + (b - a) * t;
}

inline float magnitude(float v) {
    return std::fabs(v);
}
inline float magnitude(Vec2 v) {
    return v.length();
}
inline float magnitude(Vec3 v) {
    return v.length();
}

// A state that can be blended between two recorded samples.
template <class S>
concept Interpolatable = std::copyable<S> && requires(const S& a, const S& b, float t) {
    { interpolate(a, b, t) } -> std::convertible_to<S>;
};

// A state that is a vector: differences, sums and scaling are meaningful, so it can be
// extrapolated from a velocity or a fitted curve and carry a visual error offset.
template <class S>
concept LinearState = Interpolatable<S> && requires(const S& a, const S& b, float s) {
    { a + b } -> std::convertible_to<S>;
    { a - b } -> std::convertible_to<S>;
    { a* s } -> std::convertible_to<S>;
    { magnitude(a) } -> std::convertible_to<float>;
};

// True unless the state can say it holds NaN or infinity (float, Vec2, Vec3 and any type with
// an `is_finite()` member). Buffers reject such samples as bad data instead of storing them,
// because one NaN poisons every interpolation that touches it.
template <class S>
bool state_is_finite(const S& s) {
    if constexpr (std::floating_point<S>) {
        return std::isfinite(s);
    } else if constexpr (requires {
                             { s.is_finite() } -> std::convertible_to<bool>;
                         }) {
        return s.is_finite();
    } else {
        return true;
    }
}

}  // namespace vantage
