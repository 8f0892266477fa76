// VisibilitySet: which entity slots one client can see, as a dense bitset, and the diff
// between two ticks' sets.
//
// One bit per slot index, 64 to a word. diff() walks both sets a word at a time: entered
// is (current & ~previous) and left is (previous & ~current), so a tick's spawn/despawn
// stream costs one AND-NOT per 64 slots plus one step per changed bit. The usual loop keeps
// two sets per client and swaps them:
//
//     previous.swap(current);
//     current.clear();
//     grid.for_each_in_radius(eye, view_radius, [&](std::uint32_t id, Vec2) { current.insert(id); });
//     current.diff(previous, entered, left);
//
// Memory is one bit per slot up to the largest index ever inserted; clear() keeps the words,
// so a steady population allocates nothing. Indices are slot numbers the server hands out
// (dense and bounded), not ids from the wire: insert() checks, in every build, that an index
// is below kMaxIndex (2^24, so one set is at most 2 MiB); beyond it is misuse and aborts
// with a message rather than quietly allocating (VANTAGE_ASSERT, see assert.hpp).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

namespace vantage {

class VisibilitySet {
public:
    // Indices are below this: 16.7 million slots, 2 MiB of bits per set. A server keeps two
    // sets per subscriber, so even 128 subscribers at the limit stay at 512 MiB; a world with
    // more live slots than this wants a sparse set, not a bitset.
    static constexpr std::uint32_t kMaxIndex = 1u << 24;

    VisibilitySet() = default;
    // Reserves words for indices below `index_capacity` (it still grows on demand);
    // index_capacity <= kMaxIndex (checked).
    explicit VisibilitySet(std::uint32_t index_capacity);

    void insert(std::uint32_t index);
    // Removing an index that is not present (or beyond the words) is a no-op.
    void remove(std::uint32_t index);
    bool contains(std::uint32_t index) const;
    // Empties the set and keeps the words.
    void clear();
    void swap(VisibilitySet& other) noexcept { words_.swap(other.words_); }

    // Population count.
    std::size_t count() const;
    bool empty() const;

    // Appends (this & ~previous) to entered and (previous & ~this) to left, each ascending.
    // The two sets may have different word counts; missing words read as zero.
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
            return word_index_ * 64u + static_cast<std::uint32_t>(std::countr_zero(bits_));
        }
        Iterator& operator++();
        Iterator operator++(int) {
            Iterator old = *this;
            ++*this;
            return old;
        }
        bool operator==(const Iterator& o) const { return word_index_ == o.word_index_ && bits_ == o.bits_; }

    private:
        friend class VisibilitySet;
        Iterator(const std::vector<std::uint64_t>* words, std::uint32_t word_index);
        void settle();  // advance to the next non-empty word (or the end)
        const std::vector<std::uint64_t>* words_ = nullptr;
        std::uint32_t word_index_ = 0;
        std::uint64_t bits_ = 0;
    };
    Iterator begin() const { return Iterator(&words_, 0); }
    Iterator end() const { return Iterator(&words_, static_cast<std::uint32_t>(words_.size())); }

    // The raw words (bit i of word w is index 64 * w + i); for serialisation and digests.
    const std::vector<std::uint64_t>& words() const { return words_; }

private:
    std::vector<std::uint64_t> words_;
};

template <class Visit>
void VisibilitySet::for_each(Visit&& visit) const {
    for (std::size_t w = 0; w < words_.size(); ++w) {
        std::uint64_t bits = words_[w];
        while (bits != 0) {
            visit(static_cast<std::uint32_t>(w * 64 + static_cast<std::size_t>(std::countr_zero(bits))));
            bits &= bits - 1;
        }
    }
}

}  // namespace vantage
