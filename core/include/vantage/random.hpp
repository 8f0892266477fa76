// Seeded, deterministic randomness: XorShift and mix64.
//
// Every simulation draws from a seeded XorShift object passed to it; there is no global
// generator. Values are pinned by golden tests against the reference toolkit's conformance
// vectors (core/docs/background.md) so that the same seed gives the same stream natively, in
// wasm and in the report.
#pragma once

#include <cstdint>

namespace vantage {

// A 64-bit finalizer (shifts 33, 29, 32). Use it to derive independent seeds and hashes.
// Note: not murmur3's 33/33/33 and not the splitmix finalizer inside SetDigest.
constexpr std::uint64_t mix64(std::uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 29;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 32;
    return x;
}

// Marsaglia xorshift64 (13, 7, 17). The seed is forced odd so a zero seed still produces a
// stream. Not cryptographic; not for anything but simulations and tests.
class XorShift {
public:
    constexpr explicit XorShift(std::uint64_t seed) : state_(seed | 1u) {}

    constexpr std::uint64_t next() {
        state_ ^= state_ << 13;
        state_ ^= state_ >> 7;
        state_ ^= state_ << 17;
        return state_;
    }
    // Uniform in [0, bound); 0 when bound is 0. (Modulo bias is below 2^-40 for the
    // bounds a simulation uses.)
    constexpr std::uint64_t below(std::uint64_t bound) { return bound == 0 ? 0 : next() % bound; }
    // Uniform in [0, 1) with 24 bits of resolution: exact in a float.
    // (The 24 bits go through a signed 32-bit integer, the same value: wasm has no cheap
    // unsigned 64-bit conversion.)
    constexpr float unit() { return static_cast<float>(static_cast<std::int32_t>(next() >> 40)) / 16777216.0f; }
    // Uniform in [lo, hi).
    constexpr float range(float lo, float hi) { return lo + (hi - lo) * unit(); }
    // True with probability p (p <= 0 never, p >= 1 always).
    constexpr bool chance(float p) { return unit() < p; }

    constexpr std::uint64_t state() const { return state_; }

private:
    std::uint64_t state_;
};

}  // namespace vantage
