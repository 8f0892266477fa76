// NearbyDetector: axis-aligned boxes that report when they start and stop being nearby.
//
// Each box lives in one node of a per-level partition of space: level L is a grid of square
// cells of side min_cell * 2^L, and a box goes to the smallest level whose cell is at least
// as wide as the box, in the cell holding its centre. A node's reach is its cell grown by
// half a cell on every side (the "double tree" of the design discussion: nodes doubled
// around their centres), so the box always fits inside its node's reach, and it stays in
// that node while it still fits and has not shrunk below a quarter of the cell: a box
// wandering over a cell boundary does not hop between nodes. Nodes that hold at
// least one box are live, and every live node keeps two-way links to every other live node,
// on any level, whose reach comes within enter_margin of its own (rounded up to 1/512 of
// min_cell, so the rule is exact in integers). A box therefore finds every
// box that could have become nearby in its own node and the linked nodes, and every box that
// could have stopped being nearby in its own partner list, without walking the levels.
//
// Cost. A move that stays in its node examines its partners, its node and its linked nodes:
// with nothing nearby that is a constant, whatever the number of boxes (counters().operations counts
// it so tests can pin it). A move to a neighbouring node of the same level (the usual node
// change) also unlinks the old node if it emptied and, if the new node was not live, links it
// starting from the old node's links: the double tree puts every reach edge at exactly one
// level, so one step of one cell brings new cells into reach on at most two levels per axis at
// or above the node's own (the seed's split levels), plus the strip of cells it newly reaches
// on each occupied level below it. That is O(links + new cells), whatever the number of boxes
// and of occupied levels above the box. Inserts, teleports and size changes that move a box
// to another level link a new node by looking up cells on every occupied level instead (see
// core/docs/nearby.md). A large box near many small ones pays for every one of them, as the
// design accepts.
//
// Nearby, with hysteresis. The gap between two boxes on an axis is how far apart their
// intervals are (zero or negative when they overlap). A pair becomes nearby when the gap is at
// most enter_margin on both axes, and stops being nearby only when the gap exceeds
// leave_margin (>= enter_margin) on either axis, so a box jittering on the enter boundary does
// not flicker. Each transition is queued once, by the call that caused it, for events();
// remove() queues "stopped" for every partner the box had. Pairs are reported as (a, b) with
// a < b. Event order within one call is deterministic but otherwise unspecified.
//
// Bad data (non-finite or inverted boxes, coordinates beyond max_coordinate, unknown ids,
// inserting an id twice, ids at or above max_ids) returns a status and changes nothing.
// Ids are small caller-chosen integers (entity slots): storage grows to the largest id seen.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "vantage/vec.hpp"

namespace vantage {

struct NearbyOptions {
    float enter_margin = 1.0f;         // world units, finite, >= 0: largest gap at which a pair becomes nearby
    float leave_margin = 2.0f;         // world units, finite, >= enter_margin: smallest gap beyond which it stops
    float min_cell = 1.0f;             // world units, > 0: cell side of level 0; anything smaller shares level 0
    float max_coordinate = 1.0e6f;     // world units, > 0: boxes must lie within [-max, max] on both axes;
                                       // max_coordinate / min_cell must be at most 2^27
    std::uint32_t max_ids = 1u << 24;  // ids accepted are [0, max_ids); 1 .. 2^31

    std::string_view validate() const;
};

enum class NearbyStatus {
    Ok,
    NonFiniteBox,    // a coordinate is NaN or infinite
    InvertedBox,     // min > max on some axis
    OutOfRange,      // a coordinate lies beyond max_coordinate
    IdOutOfRange,    // id >= max_ids
    UnknownId,       // update/remove of an id that is not inserted
    AlreadyPresent,  // insert of an id that is already inserted
};

const char* to_string(NearbyStatus status);

// Counters since construction.
struct NearbyDetectorCounters {
    // Work done: one per call, plus one per partner checked, node visited, candidate box
    // tested, level searched, cell looked up and link made or broken. Tests read differences
    // of it to pin the cost of a move.
    std::uint64_t operations = 0;
    // Updates that moved a box to another node (the rest stayed put).
    std::uint64_t node_changes = 0;
};

enum class NearbyEventKind : std::uint8_t { BecameNearby, StoppedBeingNearby };

constexpr const char* to_string(NearbyEventKind kind) {
    switch (kind) {
        case NearbyEventKind::BecameNearby:
            return "became nearby";
        case NearbyEventKind::StoppedBeingNearby:
            return "stopped being nearby";
    }
    return "unknown nearby event kind";
}

// One transition of the pair (a, b), a < b.
struct NearbyEvent {
    std::uint32_t a = 0;
    std::uint32_t b = 0;
    NearbyEventKind kind = NearbyEventKind::BecameNearby;
    constexpr bool operator==(const NearbyEvent&) const = default;
};

class NearbyDetector {
public:
    // An axis-aligned box, closed on both ends; min == max is a point and is fine.
    struct Box {
        Vec2 min;
        Vec2 max;
    };

    // The largest gap between a and b over the two axes (negative when they overlap). The
    // one predicate both the detector and any oracle must use: a pair is "within m" when
    // gap(a, b) <= m. Symmetric in a and b, computed in float.
    static float gap(const Box& a, const Box& b);
    // gap(a, b) <= margin for finite boxes, without gap's float maxes: all four differences
    // are at most the margin, tested without a branch. For a loop over many pairs, as a
    // brute-force oracle has: in wasm V8 turns each float max into a branch, and gap() per
    // pair ran several times slower than natively.
    static bool within(const Box& a, const Box& b, float margin) {
        const int x = static_cast<int>(b.min.x - a.max.x <= margin) & static_cast<int>(a.min.x - b.max.x <= margin);
        const int y = static_cast<int>(b.min.y - a.max.y <= margin) & static_cast<int>(a.min.y - b.max.y <= margin);
        return (x & y) != 0;
    }

    // Asserts that options validate().
    explicit NearbyDetector(const NearbyOptions& options = {});
    ~NearbyDetector();
    NearbyDetector(NearbyDetector&&) noexcept;
    NearbyDetector& operator=(NearbyDetector&&) noexcept;
    NearbyDetector(const NearbyDetector&) = delete;
    NearbyDetector& operator=(const NearbyDetector&) = delete;

    // Adds a box; queues BecameNearby for every box within enter_margin.
    NearbyStatus insert(std::uint32_t id, const Box& box);
    // Moves a box (any distance, any new size) and queues the transitions it causes.
    NearbyStatus update(std::uint32_t id, const Box& box);
    // Removes a box; queues StoppedBeingNearby for each of its partners.
    NearbyStatus remove(std::uint32_t id);

    // Transitions since the last clear_events(), in the order the calls made them
    // (core/docs/conventions.md, rule 3). They accumulate until cleared: a caller that only
    // reads neighbors() clears them once per tick.
    std::span<const NearbyEvent> events() const;
    void clear_events();

    bool contains(std::uint32_t id) const;
    // The ids currently nearby `id`, in no particular order; empty for an unknown id. Valid
    // until the next insert/update/remove.
    std::span<const std::uint32_t> neighbors(std::uint32_t id) const;
    // The stored box of `id`; asserts contains(id).
    const Box& box(std::uint32_t id) const;

    std::uint32_t size() const;
    std::uint64_t pair_count() const;
    std::uint32_t live_node_count() const;
    const NearbyDetectorCounters& counters() const;
    const NearbyOptions& options() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace vantage
