#include "vantage/priority_accumulator.hpp"

#include <algorithm>
#include <cmath>

#include "vantage/assert.hpp"

namespace vantage {

std::string_view ByteBudgetOptions::validate() const {
    if (!std::isfinite(bytes_per_sec) || bytes_per_sec <= 0.0) return "bytes_per_sec must be > 0";
    if (!std::isfinite(burst_bytes) || burst_bytes < 1.0) return "burst_bytes must be >= 1";
    return {};
}

ByteBudget::ByteBudget(const ByteBudgetOptions& options) : options_(options) {
    VANTAGE_ASSERT_VALID(options, "ByteBudget: invalid ByteBudgetOptions");
}

void ByteBudget::refill(double now_ms) {
    VANTAGE_ASSERT(std::isfinite(now_ms), "ByteBudget::refill: now_ms must be finite");
    if (!started_) {
        started_ = true;
        last_ms_ = now_ms;
        tokens_ = options_.burst_bytes;
        return;
    }
    VANTAGE_ASSERT(now_ms >= last_ms_, "ByteBudget::refill: time went backwards");
    tokens_ = std::min(options_.burst_bytes, tokens_ + (now_ms - last_ms_) * options_.bytes_per_sec / 1000.0);
    last_ms_ = now_ms;
}

std::size_t ByteBudget::available() const {
    return static_cast<std::size_t>(std::floor(std::max(0.0, tokens_)));
}

void ByteBudget::spend(std::size_t bytes) {
    VANTAGE_ASSERT(bytes <= available(), "ByteBudget::spend: more than available()");
    tokens_ -= static_cast<double>(bytes);
}

void ByteBudget::set_options(const ByteBudgetOptions& options) {
    VANTAGE_ASSERT_VALID(options, "ByteBudget::set_options: invalid ByteBudgetOptions");
    options_ = options;
    tokens_ = std::min(tokens_, options_.burst_bytes);
}

void PriorityAccumulator::accumulate(std::span<const std::uint64_t> keys, std::span<const float> weights, double dt_s) {
    VANTAGE_ASSERT(weights.empty() || weights.size() == keys.size(),
                   "PriorityAccumulator::accumulate: one weight per key, or none");
    VANTAGE_ASSERT(std::isfinite(dt_s) && dt_s >= 0.0, "PriorityAccumulator::accumulate: dt_s must be >= 0");
    next_.clear();
    if (next_.capacity() < keys.size()) next_.reserve(std::max(keys.size(), 2 * next_.capacity()));
    std::size_t j = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        VANTAGE_ASSERT_HOT(i == 0 || keys[i] > keys[i - 1], "PriorityAccumulator::accumulate: keys must ascend");
        while (j < entries_.size() && entries_[j].key < keys[i]) ++j;  // no longer relevant: forgotten
        const double before = j < entries_.size() && entries_[j].key == keys[i] ? entries_[j].priority : 0.0;
        const double weight = weights.empty() ? 1.0 : std::max(0.0, static_cast<double>(weights[i]));
        next_.push_back({keys[i], before + weight * dt_s});
    }
    entries_.swap(next_);
}

void PriorityAccumulator::ranked(std::vector<std::uint64_t>& out) const {
    order_.assign(entries_.begin(), entries_.end());
    std::sort(order_.begin(), order_.end(), [](const Entry& a, const Entry& b) {
        return a.priority != b.priority ? a.priority > b.priority : a.key < b.key;
    });
    out.clear();
    for (const Entry& e : order_) out.push_back(e.key);
}

void PriorityAccumulator::sent(std::uint64_t key) {
    const auto it = std::lower_bound(entries_.begin(), entries_.end(), key,
                                     [](const Entry& e, std::uint64_t k) { return e.key < k; });
    if (it != entries_.end() && it->key == key) it->priority = 0.0;
}

double PriorityAccumulator::priority(std::uint64_t key) const {
    const auto it = std::lower_bound(entries_.begin(), entries_.end(), key,
                                     [](const Entry& e, std::uint64_t k) { return e.key < k; });
    return it != entries_.end() && it->key == key ? it->priority : 0.0;
}

}  // namespace vantage
