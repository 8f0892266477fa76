// SetDigest: an order-independent, O(1)-incremental fingerprint of a set of u64 keys.
//
// Both halves of a delta stream keep one: the client sends its mirror's digest with every
// acknowledgement, and the server compares it with the digest of the state it believes the
// client holds. A mismatch is drift that no acknowledgement reveals, and forces a full
// baseline. Because both sides must agree bit for bit (and with the reference toolkit,
// core/docs/background.md), the arithmetic is fixed and pinned by golden tests:
//
//   acc    = sum over keys of splitmix64_finalizer(key), wrapping mod 2^64
//   digest = acc XOR splitmix64_finalizer(count)
//
// where splitmix64_finalizer(k) adds 0x9E3779B97F4A7C15 and then applies Vigna's splitmix64
// mix (xor-shift 30, * 0xBF58476D1CE4E5B9, xor-shift 27, * 0x94D049BB133111EB, xor-shift
// 31). The empty set's digest is therefore finalizer(0) = 0xE220A8397B1DCDAF, not 0. A sum
// (unlike XOR) does not let a duplicated key cancel itself. This finalizer is not mix64.
//
// Removing a key that was never inserted is not detected; the digest then matches no real
// set. Collisions are possible in principle (64 bits); the digest detects drift, it does not
// prove equality.
#pragma once

#include <cstdint>
#include <span>

namespace vantage {

constexpr std::uint64_t splitmix64_finalizer(std::uint64_t k) {
    std::uint64_t z = k + 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

class SetDigest {
public:
    constexpr SetDigest() = default;
    static constexpr SetDigest from_keys(std::span<const std::uint64_t> keys) {
        SetDigest d;
        for (std::uint64_t k : keys) d.insert(k);
        return d;
    }

    constexpr void insert(std::uint64_t key) {
        acc_ += splitmix64_finalizer(key);
        count_ += 1u;
    }
    constexpr void remove(std::uint64_t key) {
        acc_ -= splitmix64_finalizer(key);
        count_ -= 1u;
    }
    constexpr void clear() {
        acc_ = 0;
        count_ = 0;
    }
    constexpr std::uint32_t size() const { return count_; }
    constexpr bool empty() const { return count_ == 0; }
    constexpr std::uint64_t digest() const { return acc_ ^ splitmix64_finalizer(count_); }

    constexpr bool operator==(const SetDigest&) const = default;

private:
    std::uint64_t acc_ = 0;
    std::uint32_t count_ = 0;
};

}  // namespace vantage
