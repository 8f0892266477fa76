#include "vantage/slot_allocator.hpp"

#include <algorithm>
#include <limits>

#include "vantage/assert.hpp"

namespace vantage {

void SlotAllocator::reserve(std::size_t indices) {
    generations_.reserve(indices);
    live_.reserve(indices);
}

void SlotAllocator::push_free(std::uint32_t index) {
    if (free_count_ == free_.size()) {
        // Full: unroll the ring into a larger buffer, oldest first.
        std::vector<std::uint32_t> grown(std::max<std::size_t>(16, free_.size() * 2));
        for (std::size_t i = 0; i < free_count_; ++i) grown[i] = free_[(free_head_ + i) % free_.size()];
        free_.swap(grown);
        free_head_ = 0;
    }
    free_[(free_head_ + free_count_) % free_.size()] = index;
    ++free_count_;
}

SlotKey SlotAllocator::alloc() {
    std::uint32_t index = 0;
    if (free_count_ > 0) {
        if (policy_ == ReusePolicy::Lifo) {
            index = free_[(free_head_ + free_count_ - 1) % free_.size()];
        } else {
            index = free_[free_head_];
            free_head_ = (free_head_ + 1) % free_.size();
        }
        --free_count_;
    } else {
        VANTAGE_ASSERT(generations_.size() < std::numeric_limits<std::uint32_t>::max(),
                       "SlotAllocator::alloc: the 32-bit index space is exhausted");
        index = static_cast<std::uint32_t>(generations_.size());
        generations_.push_back(0);
        live_.push_back(0);
    }
    live_[index] = 1;
    ++live_count_;
    return SlotKey{index, generations_[index]};
}

bool SlotAllocator::free(SlotKey key) {
    if (!is_live(key)) return false;
    live_[key.index] = 0;
    // Wraps at 65,536 (documented in the header).
    generations_[key.index] = static_cast<std::uint16_t>(generations_[key.index] + 1u);
    push_free(key.index);
    --live_count_;
    return true;
}

void SlotAllocator::clear() {
    for (std::uint32_t i = 0; i < generations_.size(); ++i) {
        if (live_[i]) free(SlotKey{i, generations_[i]});
    }
}

bool SlotAllocator::is_live(SlotKey key) const {
    return key.index < generations_.size() && live_[key.index] && generations_[key.index] == key.generation;
}

bool SlotAllocator::is_occupied(std::uint32_t index) const {
    return index < live_.size() && live_[index];
}

std::optional<SlotKey> SlotAllocator::key(std::uint32_t index) const {
    if (!is_occupied(index)) return std::nullopt;
    return SlotKey{index, generations_[index]};
}

void SlotAllocator::live_keys(std::vector<SlotKey>& out) const {
    out.clear();
    for (std::uint32_t i = 0; i < generations_.size(); ++i) {
        if (live_[i]) out.push_back(SlotKey{i, generations_[i]});
    }
}

}  // namespace vantage
