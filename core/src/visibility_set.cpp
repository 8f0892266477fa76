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

}  // namespace

VisibilitySet::VisibilitySet(std::uint32_t index_capacity) {
    VANTAGE_ASSERT(index_capacity <= kMaxIndex, "VisibilitySet: index_capacity beyond kMaxIndex (2^24 slots)");
    words_.reserve((std::size_t{index_capacity} + 63) / 64);
}

void VisibilitySet::insert(std::uint32_t index) {
    VANTAGE_ASSERT(index < kMaxIndex,
                   "VisibilitySet::insert: index must be below kMaxIndex (2^24): slot indices, not ids");
    const std::size_t w = index / 64;
    if (w >= words_.size()) words_.resize(w + 1, 0);
    words_[w] |= std::uint64_t{1} << (index % 64);
}

void VisibilitySet::remove(std::uint32_t index) {
    const std::size_t w = index / 64;
    if (w < words_.size()) words_[w] &= ~(std::uint64_t{1} << (index % 64));
}

bool VisibilitySet::contains(std::uint32_t index) const {
    const std::size_t w = index / 64;
    return w < words_.size() && ((words_[w] >> (index % 64)) & 1u) != 0;
}

void VisibilitySet::clear() {
    std::fill(words_.begin(), words_.end(), std::uint64_t{0});
}

std::size_t VisibilitySet::count() const {
    std::size_t n = 0;
    for (const std::uint64_t w : words_) n += static_cast<std::size_t>(std::popcount(w));
    return n;
}

bool VisibilitySet::empty() const {
    return std::all_of(words_.begin(), words_.end(), [](std::uint64_t w) { return w == 0; });
}

void VisibilitySet::diff(const VisibilitySet& previous, std::vector<std::uint32_t>& entered,
                         std::vector<std::uint32_t>& left) const {
    const std::size_t n = std::max(words_.size(), previous.words_.size());
    for (std::size_t w = 0; w < n; ++w) {
        const std::uint64_t cur = w < words_.size() ? words_[w] : 0;
        const std::uint64_t prev = w < previous.words_.size() ? previous.words_[w] : 0;
        if (cur == prev) continue;
        append_bits(cur & ~prev, w, entered);
        append_bits(prev & ~cur, w, left);
    }
}

VisibilitySet::Iterator::Iterator(const std::vector<std::uint64_t>* words, std::uint32_t word_index)
    : words_(words), word_index_(word_index) {
    if (word_index_ < words_->size()) bits_ = (*words_)[word_index_];
    settle();
}

void VisibilitySet::Iterator::settle() {
    while (bits_ == 0 && word_index_ < words_->size()) {
        ++word_index_;
        bits_ = word_index_ < words_->size() ? (*words_)[word_index_] : 0;
    }
}

VisibilitySet::Iterator& VisibilitySet::Iterator::operator++() {
    bits_ &= bits_ - 1;
    settle();
    return *this;
}

}  // namespace vantage
