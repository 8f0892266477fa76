#include "vantage/visibility_set.hpp"

#include <algorithm>

#include "vantage/assert.hpp"

namespace vantage {

namespace {

void append_bits(std::uint64_t bits, std::size_t word, std::vector<std::uint32_t>& out) {
    while (bits != 0) {
        out.push_back(static_cast<std::uint32_t>(word * 64 + static_cast<std::size_t>(std::countr_zero(bits))));
        bits &= bits - 1;
    }
}

// Reads one set word by word in ascending order, whichever its representation: a list is
// folded into words as the walk passes them.
class WordReader {
public:
    WordReader(std::span<const std::uint32_t> list, const std::vector<std::uint64_t>& words, bool bitset)
        : list_(list), words_(words), bitset_(bitset) {}
    // One past the last word that can hold a member.
    std::size_t word_end() const {
        if (bitset_) return words_.size();
        return list_.empty() ? 0 : std::size_t{list_.back()} / 64 + 1;
    }
    // Word w; calls must come with ascending w.
    std::uint64_t word(std::size_t w) {
        if (bitset_) return w < words_.size() ? words_[w] : 0;
        std::uint64_t bits = 0;
        while (next_ < list_.size() && list_[next_] / 64 == w) bits |= std::uint64_t{1} << (list_[next_++] % 64);
        while (next_ < list_.size() && list_[next_] / 64 < w) ++next_;  // skipped words
        return bits;
    }

private:
    std::span<const std::uint32_t> list_;
    const std::vector<std::uint64_t>& words_;
    bool bitset_;
    std::size_t next_ = 0;
};

}  // namespace

VisibilitySet::VisibilitySet(std::uint32_t index_capacity) {
    VANTAGE_ASSERT(index_capacity <= kMaxIndex, "VisibilitySet: index_capacity beyond kMaxIndex (2^24 slots)");
    list_.reserve(kListLimit);
    words_.reserve((std::size_t{index_capacity} + 63) / 64);
}

void VisibilitySet::set_bit(std::uint32_t index) {
    const std::size_t w = index / 64;
    if (w >= words_.size()) words_.resize(w + 1, 0);
    words_[w] |= std::uint64_t{1} << (index % 64);
}

void VisibilitySet::move_into_bitset() {
    bitset_ = true;
    for (const std::uint32_t index : list_) set_bit(index);
    list_.clear();
}

void VisibilitySet::insert_slow(std::uint32_t index) {
    VANTAGE_ASSERT(index < kMaxIndex,
                   "VisibilitySet::insert: index must be below kMaxIndex (2^24): slot indices, not ids");
    if (!bitset_) {
        if (std::binary_search(list_.begin(), list_.end(), index)) return;
        move_into_bitset();
    }
    set_bit(index);
}

void VisibilitySet::remove(std::uint32_t index) {
    if (!bitset_) {
        const auto it = std::lower_bound(list_.begin(), list_.end(), index);
        if (it != list_.end() && *it == index) list_.erase(it);
        return;
    }
    const std::size_t w = index / 64;
    if (w < words_.size()) words_[w] &= ~(std::uint64_t{1} << (index % 64));
}

bool VisibilitySet::contains_listed(std::uint32_t index) const {
    return std::binary_search(list_.begin(), list_.end(), index);
}

void VisibilitySet::clear() {
    if (bitset_) std::fill(words_.begin(), words_.end(), std::uint64_t{0});
    list_.clear();
    bitset_ = false;
}

std::size_t VisibilitySet::count() const {
    if (!bitset_) return list_.size();
    std::size_t n = 0;
    for (const std::uint64_t w : words_) n += static_cast<std::size_t>(std::popcount(w));
    return n;
}

bool VisibilitySet::empty() const {
    if (!bitset_) return list_.empty();
    return std::all_of(words_.begin(), words_.end(), [](std::uint64_t w) { return w == 0; });
}

bool VisibilitySet::operator==(const VisibilitySet& other) const {
    if (!bitset_ && !other.bitset_) return list_ == other.list_;
    WordReader a(list_, words_, bitset_);
    WordReader b(other.list_, other.words_, other.bitset_);
    const std::size_t n = std::max(a.word_end(), b.word_end());
    for (std::size_t w = 0; w < n; ++w)
        if (a.word(w) != b.word(w)) return false;
    return true;
}

void VisibilitySet::diff(const VisibilitySet& previous, std::vector<std::uint32_t>& entered,
                         std::vector<std::uint32_t>& left) const {
    entered.clear();
    left.clear();
    if (!bitset_ && !previous.bitset_) {
        // Both lists: one merge, O(both sizes).
        const std::vector<std::uint32_t>& cur = list_;
        const std::vector<std::uint32_t>& prev = previous.list_;
        std::size_t i = 0;
        std::size_t j = 0;
        while (i < cur.size() && j < prev.size()) {
            if (cur[i] < prev[j]) {
                entered.push_back(cur[i++]);
            } else if (prev[j] < cur[i]) {
                left.push_back(prev[j++]);
            } else {
                ++i;
                ++j;
            }
        }
        entered.insert(entered.end(), cur.begin() + static_cast<std::ptrdiff_t>(i), cur.end());
        left.insert(left.end(), prev.begin() + static_cast<std::ptrdiff_t>(j), prev.end());
        return;
    }
    WordReader a(list_, words_, bitset_);
    WordReader b(previous.list_, previous.words_, previous.bitset_);
    const std::size_t n = std::max(a.word_end(), b.word_end());
    for (std::size_t w = 0; w < n; ++w) {
        const std::uint64_t cur = a.word(w);
        const std::uint64_t prev = b.word(w);
        if (cur == prev) continue;
        append_bits(cur & ~prev, w, entered);
        append_bits(prev & ~cur, w, left);
    }
}

VisibilitySet::Iterator::Iterator(const VisibilitySet* set, bool at_end) : set_(set) {
    if (!set_->bitset_) {
        position_ = at_end ? static_cast<std::uint32_t>(set_->list_.size()) : 0;
        return;
    }
    const auto words = static_cast<std::uint32_t>(set_->words_.size());
    position_ = at_end ? words : 0;
    if (position_ < words) bits_ = set_->words_[position_];
    settle();
}

void VisibilitySet::Iterator::settle() {
    const std::vector<std::uint64_t>& words = set_->words_;
    while (bits_ == 0 && position_ < words.size()) {
        ++position_;
        bits_ = position_ < words.size() ? words[position_] : 0;
    }
}

VisibilitySet::Iterator& VisibilitySet::Iterator::operator++() {
    if (!set_->bitset_) {
        ++position_;
        return *this;
    }
    bits_ &= bits_ - 1;
    settle();
    return *this;
}

}  // namespace vantage
