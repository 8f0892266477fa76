// DeltaPlan and AckReport: the two things that cross the wire on a delta stream.
//
// A DeltaPlan is what one subscriber is told this frame: which keys to add (entered) and
// which to drop (left), relative to a baseline the server chose. DeltaBaseline produces it,
// the wire codec (delta_wire.hpp) carries it, DeltaMirror applies it. An AckReport is what
// the client says back: its AckWindow and the digest of what it holds.
//
// Keys are packed SlotKeys (SlotKey::encode), ascending and unique within each list.
// Sequence numbers are the subscriber's own and consecutive (DeltaBaseline assigns them), so
// "every frame from a to b arrived" is a question an AckWindow can answer.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace vantage {

struct DeltaPlan {
    std::uint64_t seq = 0;
    // The client must clear its mirror before applying entered (left is then empty).
    bool full_baseline = false;
    // The acknowledged frame this diff is relative to; nullopt for a diff from nothing (a
    // full baseline) or a Naive diff (relative to the last frame sent, whatever arrived).
    std::optional<std::uint64_t> baseline_seq;
    // SetDigest of the subscriber's whole current set after this frame.
    std::uint64_t digest = 0;
    std::vector<std::uint64_t> entered;  // ascending
    std::vector<std::uint64_t> left;     // ascending

    void clear() {
        seq = 0;
        full_baseline = false;
        baseline_seq.reset();
        digest = 0;
        entered.clear();
        left.clear();
    }
};

struct AckReport {
    std::uint64_t newest = 0;  // the newest sequence the client received
    std::uint64_t mask = 0;    // AckWindow mask: bit i means newest - 1 - i arrived
    std::uint64_t digest = 0;  // SetDigest of the client's mirror when it sent this

    bool operator==(const AckReport&) const = default;
};

}  // namespace vantage
