// PriorityAccumulator and ByteBudget: what to send first when not everything fits.
//
// A client's link carries so many bytes per second (ByteBudget, a token bucket: time is an
// argument). When the relevant entities' updates do not all fit, send the most important
// first, and never starve the rest: each entity's priority grows every tick by its weight
// (relevance: closeness to the viewer, say, in (0, 1]) times the time passed, and sending it
// resets it to zero. An entity that waits keeps growing, linearly in time, so under any budget
// that sends at least one entity per tick every relevant entity is eventually sent, and the
// close ones more often. The caller fills a frame with membership changes first (they carry
// correctness: DeltaBaseline plans them into the budget, see plan(current, out, bytes)) and
// then with the highest priorities while bytes remain.
//
// Keys are packed SlotKeys, ascending in every call. Storage is one vector ordered by key,
// reused, so after warm-up accumulate() and ranked() allocate nothing. Cost: O(n) per
// accumulate, O(n log n) per ranked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace vantage {

struct ByteBudgetOptions {
    double bytes_per_sec = 16384.0;  // refill rate, bytes/s, > 0
    double burst_bytes = 2400.0;     // bucket depth, bytes, >= 1 (what an idle link may send at once)

    std::string_view validate() const;
};

class ByteBudget {
public:
    explicit ByteBudget(const ByteBudgetOptions& options = {});

    // Adds what the rate earned since the last call (the first call starts the clock with a
    // full bucket). now_ms must not go backwards (asserted).
    void refill(double now_ms);
    // Whole bytes that may be spent now.
    std::size_t available() const;
    // Spends bytes (at most available(); asserted).
    void spend(std::size_t bytes);
    // A new rate or depth, live; the bucket keeps its fill up to the new depth.
    void set_options(const ByteBudgetOptions& options);
    const ByteBudgetOptions& options() const { return options_; }

private:
    ByteBudgetOptions options_;
    double tokens_ = 0.0;
    double last_ms_ = 0.0;
    bool started_ = false;
};

class PriorityAccumulator {
public:
    // Grows the priority of every key in `keys` (ascending) by weights[i] * dt_s (weights >= 0,
    // one per key, or empty for weight 1 each) and forgets keys that are no longer listed (an
    // entity that becomes relevant again starts from zero).
    void accumulate(std::span<const std::uint64_t> keys, std::span<const float> weights, double dt_s);
    // Every key held, highest priority first (ties: ascending key, so the order is
    // deterministic), into out (cleared).
    void ranked(std::vector<std::uint64_t>& out) const;
    // The key was sent: its priority restarts from zero. A key not held is ignored.
    void sent(std::uint64_t key);
    // 0 for a key not held.
    double priority(std::uint64_t key) const;
    std::size_t size() const { return entries_.size(); }
    void clear() { entries_.clear(); }

private:
    struct Entry {
        std::uint64_t key = 0;
        double priority = 0.0;
    };
    std::vector<Entry> entries_;  // ascending key
    std::vector<Entry> next_;     // accumulate()'s scratch, kept for its capacity
    mutable std::vector<Entry> order_;
};

}  // namespace vantage
