// VisibilitySet: which entity slots one client can see, and the diff between two ticks' sets.
//
// Two representations behind one interface, chosen by size. A set of at most kListLimit
// members (fewer when its indices span few words, see list_limit) is a sorted vector of its indices: a client that sees
// a handful of entities pays for its handful, whatever the size of the world (a bitset over a million slots would make
// every clear() and diff() read 15,625 words per client per tick). A set that grows past
// its limit moves into a bitset (one bit per slot, 64 to a word) and stays there until its
// next clear(); its operations then scan the words, which costs about what its members do.
// diff() takes entered as (current - previous) and left as (previous - current): a merge of
// the two sorted lists when both are lists, otherwise word by word over
// (current & ~previous) and (previous & ~current). The usual loop keeps two sets per client
// and swaps them:
//
//     previous.swap(current);
//     current.clear();
//     grid.for_each_in_radius(eye, view_radius, [&](std::uint32_t id, Vec2) { current.insert(id); });
//     current.diff(previous, entered, left);
//
// clear() keeps both buffers, so a steady population allocates nothing. Indices are slot
// numbers the server hands out (dense and bounded), not ids from the wire: insert() checks,
// in every build, that an index is below kMaxIndex (2^24, so a bitset is at most 2 MiB);
// beyond it is misuse and aborts with a message rather than quietly allocating
// (VANTAGE_ASSERT, see assert.hpp).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <utility>
#include <vector>

#include "vantage/always_inline.hpp"

namespace vantage {

class VisibilitySet {
public:
    // Indices are below this: 16.7 million slots, 2 MiB of bits per set.
    static constexpr std::uint32_t kMaxIndex = 1u << 24;
    // The most members a list holds; one more moves the set into its bitset. A set whose
    // indices span few words moves earlier: at list_limit(largest index) members.
    static constexpr std::size_t kListLimit = 64;
    // Filling a list in random order costs about k^2 / 4 element moves; a bitset costs two
    // passes over its words per tick (clear, diff). So a list pays while it is shorter than
    // about a quarter of the words, clamped to [16, kListLimit] (measured in relevance.md).
    static constexpr std::size_t list_limit(std::uint32_t largest_index) {
        const std::size_t quarter = (std::size_t{largest_index} / 64 + 1) / 4;
        return quarter < 16 ? 16 : quarter > kListLimit ? kListLimit : quarter;
    }

    VisibilitySet() = default;
    // Reserves the list, and bitset words for indices below `index_capacity` (both still
    // grow on demand); index_capacity <= kMaxIndex (checked).
    explicit VisibilitySet(std::uint32_t index_capacity);

    // O(kListLimit) while a list (an insertion sort step from the back, so ascending
    // insertions cost O(1)), O(1) as a bitset.
    VANTAGE_ALWAYS_INLINE void insert(std::uint32_t index);
    // Removing an index that is not present is a no-op.
    void remove(std::uint32_t index);
    bool contains(std::uint32_t index) const {
        if (!bitset_) return contains_listed(index);
        return index / 64 < words_.size() && ((words_[index / 64] >> (index % 64)) & 1u) != 0;
    }
    // Empties the set (a list again) and keeps its buffers.
    void clear();
    void swap(VisibilitySet& other) noexcept {
        list_.swap(other.list_);
        words_.swap(other.words_);
        std::swap(bitset_, other.bitset_);
    }

    // Population count.
    std::size_t count() const;
    bool empty() const;
    // Same members (whatever the representation of each).
    bool operator==(const VisibilitySet& other) const;

    // Replaces entered with (this - previous) and left with (previous - this), each ascending.
    void diff(const VisibilitySet& previous, std::vector<std::uint32_t>& entered,
              std::vector<std::uint32_t>& left) const;

    // Calls visit(index) for each member, ascending.
    template <class Visit>
    void for_each(Visit&& visit) const;

    // Ascending iteration: for (std::uint32_t i : set).
    class Iterator {
    public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = std::uint32_t;
        using difference_type = std::ptrdiff_t;
        using pointer = const std::uint32_t*;
        using reference = std::uint32_t;

        Iterator() = default;
        std::uint32_t operator*() const {
            if (!set_->bitset_) return set_->list_[position_];
            return position_ * 64u + static_cast<std::uint32_t>(std::countr_zero(bits_));
        }
        Iterator& operator++();
        Iterator operator++(int) {
            Iterator old = *this;
            ++*this;
            return old;
        }
        bool operator==(const Iterator& o) const { return position_ == o.position_ && bits_ == o.bits_; }

    private:
        friend class VisibilitySet;
        Iterator(const VisibilitySet* set, bool at_end);
        void settle();  // bitset: advance to the next non-empty word (or the end)
        const VisibilitySet* set_ = nullptr;
        std::uint32_t position_ = 0;  // list: index into the list; bitset: word index
        std::uint64_t bits_ = 0;      // bitset: what is left of the current word
    };
    Iterator begin() const { return Iterator(this, false); }
    Iterator end() const { return Iterator(this, true); }

    // Whether the set has grown past kListLimit since its last clear() (for tests and meters).
    bool is_bitset() const { return bitset_; }
    // The bitset's words (bit i of word w is index 64 * w + i). All zero while the set is a
    // list: use for_each() or the iterator to read members.
    const std::vector<std::uint64_t>& words() const { return words_; }

private:
    void insert_slow(std::uint32_t index);  // past the words, a full list, or a bad index
    bool contains_listed(std::uint32_t index) const;
    void move_into_bitset();
    void set_bit(std::uint32_t index);

    std::vector<std::uint32_t> list_;   // the members, ascending, while !bitset_; else empty
    std::vector<std::uint64_t> words_;  // the members while bitset_; all zero otherwise
    bool bitset_ = false;
};

// Always inlined: the AOI loop calls this once per visible entity per client per tick, and
// clang left it out of line in wasm (its list path is large), where the call was a
// measurable share of the loop.
inline void VisibilitySet::insert(std::uint32_t index) {
    if (bitset_ && index / 64 < words_.size()) {  // words only grow through checked indices
        words_[index / 64] |= std::uint64_t{1} << (index % 64);
        return;
    }
    const std::uint32_t largest = list_.empty() || index > list_.back() ? index : list_.back();
    if (bitset_ || list_.size() >= list_limit(largest) || index >= kMaxIndex) {
        insert_slow(index);
        return;
    }
    list_.push_back(index);
    std::size_t k = list_.size() - 1;
    while (k > 0 && list_[k - 1] > index) {
        list_[k] = list_[k - 1];
        --k;
    }
    if (k > 0 && list_[k - 1] == index) {
        // Already a member. Slot k holds the old list_[k], also shifted to k + 1 (or, with
        // nothing shifted, the pushed copy at the back): dropping slot k undoes the push.
        list_.erase(list_.begin() + static_cast<std::ptrdiff_t>(k));
        return;
    }
    list_[k] = index;
}

template <class Visit>
inline void VisibilitySet::for_each(Visit&& visit) const {
    if (!bitset_) {
        for (const std::uint32_t index : list_) visit(index);
        return;
    }
    for (std::size_t w = 0; w < words_.size(); ++w) {
        std::uint64_t bits = words_[w];
        while (bits != 0) {
            visit(static_cast<std::uint32_t>(w * 64 + static_cast<std::size_t>(std::countr_zero(bits))));
            bits &= bits - 1;
        }
    }
}

}  // namespace vantage
