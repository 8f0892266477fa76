// Corpus helpers for the seeded fuzz tests (every decoder's, on every platform): a mutator
// in the spirit of libFuzzer's (flip, overwrite, cut, extend, duplicate, scramble) and noise
// with a plausible type byte. Seeded XorShift only, so a failing seed replays.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "vantage/random.hpp"

namespace vantage {

using Bytes = std::vector<std::uint8_t>;

// One of: flip bits, overwrite a byte, cut, extend, duplicate a span, or replace with noise.
inline void mutate(Bytes& b, XorShift& rng) {
    const int edits = 1 + static_cast<int>(rng.below(3));
    for (int e = 0; e < edits; ++e) {
        switch (rng.below(6)) {
            case 0:
                if (!b.empty())
                    b[static_cast<std::size_t>(rng.below(b.size()))] ^= static_cast<std::uint8_t>(1u << rng.below(8));
                break;
            case 1:
                if (!b.empty())
                    b[static_cast<std::size_t>(rng.below(b.size()))] = static_cast<std::uint8_t>(rng.next());
                break;
            case 2:
                b.resize(static_cast<std::size_t>(rng.below(b.size() + 1)));
                break;
            case 3:
                for (std::uint64_t i = 0, n = 1 + rng.below(8); i < n; ++i)
                    b.push_back(static_cast<std::uint8_t>(rng.next()));
                break;
            case 4:
                if (b.size() > 2) {
                    const std::size_t from = static_cast<std::size_t>(rng.below(b.size()));
                    const std::size_t len = static_cast<std::size_t>(rng.below(b.size() - from));
                    const Bytes span(b.begin() + static_cast<std::ptrdiff_t>(from),
                                     b.begin() + static_cast<std::ptrdiff_t>(from + len));
                    b.insert(b.begin() + static_cast<std::ptrdiff_t>(rng.below(b.size())), span.begin(), span.end());
                }
                break;
            default:
                for (auto& byte : b) {
                    if (rng.chance(0.2f)) byte = static_cast<std::uint8_t>(rng.next());
                }
                break;
        }
    }
}

inline Bytes noise(XorShift& rng, std::uint8_t type) {
    Bytes b(static_cast<std::size_t>(rng.below(40)));
    for (auto& byte : b) byte = static_cast<std::uint8_t>(rng.next());
    if (!b.empty() && rng.chance(0.7f)) b[0] = type;
    return b;
}

}  // namespace vantage
