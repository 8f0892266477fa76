#include "reading.hpp"

#include <algorithm>
#include <cmath>

namespace vantage::play {

void Reading::add(double amount) {
    if (!std::isfinite(amount)) return;  // as RateMeter: a NaN would poison every later reading
    window_.add(amount);
    // The recent mean keeps a running sum, exactly as the per-frame means it replaces did.
    if (recent_count_ == recent_.size()) {
        recent_sum_ -= recent_[recent_next_];
    } else {
        ++recent_count_;
    }
    recent_[recent_next_] = amount;
    recent_sum_ += amount;
    recent_next_ = (recent_next_ + 1) % recent_.size();
    last_ = amount;
    run_max_ = run_samples_ ? std::max(run_max_, amount) : amount;
    run_total_ += amount;
    ++run_samples_;
}

void Reading::elapsed(double now_ms) {
    if (!std::isfinite(now_ms)) return;
    window_.elapsed(now_ms);
    now_ms_ = timed_ ? std::max(now_ms_, now_ms) : now_ms;
    if (!timed_) run_start_ms_ = now_ms;
    timed_ = true;
}

void Reading::begin_measurement() {
    run_start_ms_ = now_ms_;
    run_total_ = 0.0;
    run_samples_ = 0;
    run_max_ = 0.0;
}

double Reading::run_per_sec() const {
    const double ms = now_ms_ - run_start_ms_;
    return ms > 0.0 ? run_total_ * 1000.0 / ms : 0.0;
}

}  // namespace vantage::play
