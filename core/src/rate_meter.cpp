#include "vantage/rate_meter.hpp"

#include <algorithm>
#include <cmath>

namespace vantage {

void RateMeter::roll(double now_ms) {
    if (!std::isfinite(now_ms)) return;
    if (!started_) {
        started_ = true;
        start_ms_ = now_ms;
        now_ms_ = now_ms;
        current_ = 0;
        return;
    }
    if (now_ms < now_ms_) return;  // tolerated, not misuse: see elapsed() in the header
    now_ms_ = now_ms;
    // The bucket now falls in, past the current one (elapsed() kept the in-bucket case): the
    // quotient is at least 0 (now_ms_ never goes below start_ms_), so the conversion's
    // truncation is the floor; capped at 2^52 buckets (70,000 years), so an absurd leap of
    // the clock is a long silence, not an overflow (past the cap nothing rolls).
    const double bucket = (now_ms_ - start_ms_) / kBucketMs;
    const auto target = static_cast<std::int64_t>(bucket < 0x1p52 ? bucket : 0x1p52);
    // Clear every bucket we roll into; after a full window of silence all of them.
    const std::int64_t first = std::max(current_ + 1, target - kBuckets + 1);
    for (std::int64_t i = first; i <= target; ++i) {
        buckets_[static_cast<std::size_t>(i) % kBuckets] = Bucket{};
    }
    current_ = std::max(current_, target);
}

double RateMeter::window_span_ms() const {
    if (!started_) return 0.0;
    const std::int64_t oldest = std::max<std::int64_t>(0, current_ - kBuckets + 1);
    return (now_ms_ - start_ms_) - static_cast<double>(oldest) * kBucketMs;
}

double RateMeter::window_total() const {
    double sum = 0.0;
    for (const Bucket& b : buckets_) sum += b.amount;
    return sum;
}

std::uint64_t RateMeter::window_samples() const {
    std::uint64_t n = 0;
    for (const Bucket& b : buckets_) n += b.samples;
    return n;
}

double RateMeter::per_sec() const {
    const double span = window_span_ms();
    return span > 0.0 ? window_total() * 1000.0 / span : 0.0;
}

double RateMeter::mean() const {
    const std::uint64_t n = window_samples();
    return n > 0 ? window_total() / static_cast<double>(n) : 0.0;
}

double RateMeter::lifetime_per_sec() const {
    const double ms = running_ms();
    return ms > 0.0 ? total_ * 1000.0 / ms : 0.0;
}

double RateMeter::share_of(const RateMeter& whole) const {
    return whole.total_ != 0.0 ? total_ / whole.total_ : 0.0;
}

}  // namespace vantage
