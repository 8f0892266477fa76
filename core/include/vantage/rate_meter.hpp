// RateMeter: a windowed rate (per second over the last 8 s) beside the lifetime average.
//
// A bandwidth meter that shows the session's average climbs for ever toward a level it
// never reaches, and a reset part-way makes it lie for minutes. per_sec() is windowed:
// 16 buckets of 500 ms, divided by the span the retained buckets actually cover, so a
// part-filled newest bucket does not understate the rate and silence decays out of the
// window. lifetime_per_sec() is kept for the comparison. Time is an argument (ms, any
// origin, monotonic); the meter never reads a clock. Every reading is zero-safe.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>

namespace vantage {

class RateMeter {
public:
    static constexpr int kBuckets = 16;
    static constexpr double kBucketMs = 500.0;
    static constexpr double kWindowMs = kBuckets * kBucketMs;

    // Counts `amount` (bytes, entities, ...) as one sample at the current time. A
    // non-finite amount is ignored (a NaN would poison every later reading).
    void add(double amount) {
        if (!std::isfinite(amount)) return;
        Bucket& b = buckets_[static_cast<std::size_t>(current_) % kBuckets];
        b.amount += amount;
        b.samples += 1;
        total_ += amount;
        samples_ += 1;
    }
    // Counts a sample carrying nothing: it lowers mean() but not per_sec().
    void add_empty() { add(0.0); }
    // Sets the clock to `now_ms` and rolls buckets. The first call after construction or
    // reset() marks the start. Idempotent within a bucket; a time earlier than the last one
    // (or a non-finite one) is ignored in every build: meters are fed from clocks the caller
    // may not own (a page's frame time), and a reading that skips a step is harmless.
    // Inline while the clock stays inside the current bucket (most calls: a tick is far
    // shorter than a bucket); a NaN, an infinity or a step back fails the test and takes the
    // out-of-line path, which ignores it.
    void elapsed(double now_ms) {
        if (started_ && now_ms >= now_ms_ && (now_ms - start_ms_) / kBucketMs < static_cast<double>(current_ + 1)) {
            now_ms_ = now_ms;
            return;
        }
        roll(now_ms);
    }

    // Windowed: amount per second over the retained buckets.
    double per_sec() const;
    // Windowed: mean amount per sample over the retained buckets.
    double mean() const;
    // Since this meter started (construction or reset).
    double lifetime_per_sec() const;
    double total() const { return total_; }
    std::uint64_t samples() const { return samples_; }
    double running_ms() const { return started_ ? now_ms_ - start_ms_ : 0.0; }
    // This meter's total as a fraction of another's (0 when the other is empty).
    double share_of(const RateMeter& whole) const;
    // Windowed total and sample count (what per_sec and mean divide).
    double window_total() const;
    std::uint64_t window_samples() const;

    void reset() { *this = RateMeter{}; }

private:
    struct Bucket {
        double amount = 0.0;
        std::uint64_t samples = 0;
    };
    void roll(double now_ms);  // elapsed() outside the current bucket (and its bad input)
    double window_span_ms() const;

    std::array<Bucket, kBuckets> buckets_{};
    std::int64_t current_ = 0;  // index of the bucket `now` falls in, counted from the start
    double start_ms_ = 0.0;
    double now_ms_ = 0.0;
    double total_ = 0.0;
    std::uint64_t samples_ = 0;
    bool started_ = false;
};

}  // namespace vantage
