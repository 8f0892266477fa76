// SlotAllocator: hands out SlotKeys over a dense index space, with generations.
//
// alloc() reuses a freed index if there is one (LIFO by default, which keeps the live set
// compact and cache-warm; FIFO delays reuse of any one index, which widens the gap before a
// stale reference could meet a new occupant) and otherwise appends a new index at generation
// 0. free() bumps the slot's generation immediately, so every handle to the old occupant is
// stale from that moment even if the index is never reused. A free with a stale or dead key is
// refused (returns false), which makes double frees and frees through old handles harmless.
//
// The generation is 16 bits: after 65,536 frees of one slot it wraps to 0 and a handle that
// old would validate again. At one reuse per frame at 60 Hz that is 18 minutes per slot; a
// game that holds handles longer than that must not rely on generations alone.
//
// Memory is O(index space): one generation and one live flag per index ever handed out,
// plus the free list. The index space never shrinks (it is the high-water mark). A steady
// alloc/free cycle within it allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "vantage/slot_key.hpp"

namespace vantage {

enum class ReusePolicy : std::uint8_t {
    Lifo,  // the most recently freed index comes back first (default)
    Fifo,  // the longest-freed index comes back first
};

// Names for logs, readouts and test failures (core/docs/conventions.md).
constexpr const char* to_string(ReusePolicy policy) {
    switch (policy) {
        case ReusePolicy::Lifo:
            return "lifo";
        case ReusePolicy::Fifo:
            return "fifo";
    }
    return "unknown reuse policy";
}

class SlotAllocator {
public:
    explicit SlotAllocator(ReusePolicy policy = ReusePolicy::Lifo) : policy_(policy) {}

    // Reserves room for `indices` slots without handing any out.
    void reserve(std::size_t indices);

    SlotKey alloc();
    // True when key was live and is now freed; false (and nothing changes) for a stale,
    // already freed or never allocated key.
    bool free(SlotKey key);
    // Frees every live slot, bumping each generation: every outstanding handle goes stale.
    void clear();

    bool is_live(SlotKey key) const;
    bool is_occupied(std::uint32_t index) const;
    // The live key at index, or nullopt when the slot is free or out of range.
    std::optional<SlotKey> key(std::uint32_t index) const;
    // Replaces out with every live key, ascending.
    void live_keys(std::vector<SlotKey>& out) const;
    std::size_t live_count() const { return live_count_; }
    // Indices handed out so far (the high-water mark).
    std::size_t index_space() const { return generations_.size(); }
    ReusePolicy policy() const { return policy_; }

private:
    ReusePolicy policy_;
    std::vector<std::uint16_t> generations_;
    std::vector<std::uint8_t> live_;
    // The free list, a ring (oldest at free_head_) serving both ends: LIFO takes the newest,
    // FIFO the oldest. It holds at most index_space() entries, so once the index space stops
    // growing freeing and allocating allocate nothing (a std::deque would churn blocks).
    void push_free(std::uint32_t index);
    std::vector<std::uint32_t> free_;
    std::size_t free_head_ = 0;
    std::size_t free_count_ = 0;
    std::size_t live_count_ = 0;
};

}  // namespace vantage
