// Vec2 and Vec3: plain float vectors for positions and velocities.
//
// Deliberately small: value types, component-wise arithmetic, length and a zero-safe
// normalize. `dot` is provided because every consumer here needs it (the reference toolkit
// omitted it on vectors; core/docs/background.md). Units are whatever the caller's world uses
// (px or world units).
#pragma once

#include <cmath>

namespace vantage {

// True when every argument is finite (neither NaN nor infinite), with one comparison: v - v
// is +0 for every finite v and NaN for an infinity or a NaN, so the sum is 0 exactly when
// all are finite. std::isfinite costs two comparisons per value in wasm, and V8 lowers each
// float comparison to several instructions (core/docs/aggregate.md measured the field sum).
template <class... Floats>
constexpr bool all_finite(float first, Floats... rest) {
    return ((first - first) + ... + (rest - rest)) == 0.0f;
}

struct Vec2 {
    float x = 0.0f;
    float y = 0.0f;

    constexpr Vec2() = default;
    constexpr Vec2(float x_, float y_) : x(x_), y(y_) {}

    static constexpr Vec2 zero() { return {0.0f, 0.0f}; }
    static constexpr Vec2 one() { return {1.0f, 1.0f}; }

    constexpr Vec2 operator+(Vec2 o) const { return {x + o.x, y + o.y}; }
    constexpr Vec2 operator-(Vec2 o) const { return {x - o.x, y - o.y}; }
    constexpr Vec2 operator-() const { return {-x, -y}; }
    constexpr Vec2 operator*(float s) const { return {x * s, y * s}; }
    constexpr Vec2 operator/(float s) const { return {x / s, y / s}; }
    constexpr Vec2& operator+=(Vec2 o) {
        x += o.x;
        y += o.y;
        return *this;
    }
    constexpr Vec2& operator-=(Vec2 o) {
        x -= o.x;
        y -= o.y;
        return *this;
    }
    constexpr Vec2& operator*=(float s) {
        x *= s;
        y *= s;
        return *this;
    }
    constexpr bool operator==(const Vec2&) const = default;

    constexpr float dot(Vec2 o) const { return x * o.x + y * o.y; }
    constexpr float length_squared() const { return x * x + y * y; }
    float length() const { return std::sqrt(length_squared()); }
    // A zero vector stays zero instead of becoming NaN.
    Vec2 normalize() const {
        const float len = length();
        return len > 0.0f ? Vec2{x / len, y / len} : Vec2{};
    }
    constexpr bool is_finite() const { return all_finite(x, y); }
};

constexpr Vec2 operator*(float s, Vec2 v) {
    return v * s;
}
inline float distance(Vec2 a, Vec2 b) {
    return (a - b).length();
}

struct Vec3 {
    float x = 0.0f;
    float y = 0.0f;
    float z = 0.0f;

    constexpr Vec3() = default;
    constexpr Vec3(float x_, float y_, float z_) : x(x_), y(y_), z(z_) {}

    static constexpr Vec3 zero() { return {0.0f, 0.0f, 0.0f}; }
    static constexpr Vec3 one() { return {1.0f, 1.0f, 1.0f}; }

    constexpr Vec3 operator+(Vec3 o) const { return {x + o.x, y + o.y, z + o.z}; }
    constexpr Vec3 operator-(Vec3 o) const { return {x - o.x, y - o.y, z - o.z}; }
    constexpr Vec3 operator-() const { return {-x, -y, -z}; }
    constexpr Vec3 operator*(float s) const { return {x * s, y * s, z * s}; }
    constexpr Vec3 operator/(float s) const { return {x / s, y / s, z / s}; }
    constexpr Vec3& operator+=(Vec3 o) {
        x += o.x;
        y += o.y;
        z += o.z;
        return *this;
    }
    constexpr Vec3& operator-=(Vec3 o) {
        x -= o.x;
        y -= o.y;
        z -= o.z;
        return *this;
    }
    constexpr Vec3& operator*=(float s) {
        x *= s;
        y *= s;
        z *= s;
        return *this;
    }
    constexpr bool operator==(const Vec3&) const = default;

    constexpr float dot(Vec3 o) const { return x * o.x + y * o.y + z * o.z; }
    constexpr float length_squared() const { return x * x + y * y + z * z; }
    float length() const { return std::sqrt(length_squared()); }
    Vec3 normalize() const {
        const float len = length();
        return len > 0.0f ? Vec3{x / len, y / len, z / len} : Vec3{};
    }
    constexpr bool is_finite() const { return all_finite(x, y, z); }
};

constexpr Vec3 operator*(float s, Vec3 v) {
    return v * s;
}
inline float distance(Vec3 a, Vec3 b) {
    return (a - b).length();
}

}  // namespace vantage
