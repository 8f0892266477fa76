#include "vantage/adaptive_delay.hpp"

#include <algorithm>
#include <cmath>

#include "vantage/assert.hpp"

namespace vantage {

std::string_view AdaptiveDelayOptions::validate() const {
    if (!(initial_delay_ms >= 0.0)) return "initial_delay_ms must be non-negative";
    if (!(interval_gain > 0.0 && interval_gain <= 1.0)) return "interval_gain must be in (0, 1]";
    if (!(jitter_gain > 0.0 && jitter_gain <= 1.0)) return "jitter_gain must be in (0, 1]";
    if (!(interval_factor >= 0.0 && jitter_factor >= 0.0)) return "factors must be non-negative";
    if (!(min_delay_ms >= 0.0 && min_delay_ms <= max_delay_ms)) return "need 0 <= min_delay_ms <= max_delay_ms";
    if (!(max_slew > 0.0 && max_slew <= 1.0)) return "max_slew must be in (0, 1]";
    return {};
}

AdaptiveDelay::AdaptiveDelay(AdaptiveDelayOptions options) : options_(options) {
    VANTAGE_ASSERT_VALID(options_, "AdaptiveDelay: invalid AdaptiveDelayOptions");
    delay_ms_ = target_delay_ms();
}

void AdaptiveDelay::advance(double local_dt_ms) {
    VANTAGE_ASSERT(local_dt_ms >= 0.0,
                   "AdaptiveDelay::advance: local_dt_ms must be >= 0 (time went backwards, or NaN)");
    if (!(local_dt_ms > 0.0)) return;
    const double step = options_.max_slew * local_dt_ms;
    delay_ms_ += std::clamp(target_delay_ms() - delay_ms_, -step, step);
}

void AdaptiveDelay::observe(double sent_ms, double arrived_ms) {
    if (!std::isfinite(sent_ms) || !std::isfinite(arrived_ms)) return;
    if (counters_.arrivals > 0) {
        // How much more (or less) the arrival gap was than the send gap: zero on a link
        // with constant latency, whatever that latency is.
        const double d = (arrived_ms - last_arrived_ms_) - (sent_ms - last_sent_ms_);
        jitter_ms_ += options_.jitter_gain * (std::fabs(d) - jitter_ms_);
        if (sent_ms > newest_sent_ms_) {
            const double gap = sent_ms - newest_sent_ms_;
            interval_ms_ = intervals_ == 0 ? gap : interval_ms_ + options_.interval_gain * (gap - interval_ms_);
            ++intervals_;
        }
    }
    newest_sent_ms_ = counters_.arrivals == 0 ? sent_ms : std::max(newest_sent_ms_, sent_ms);
    last_sent_ms_ = sent_ms;
    last_arrived_ms_ = arrived_ms;
    ++counters_.arrivals;
}

double AdaptiveDelay::target_delay_ms() const {
    const double raw = intervals_ == 0 ? options_.initial_delay_ms
                                       : options_.interval_factor * interval_ms_ + options_.jitter_factor * jitter_ms_;
    return std::clamp(raw, options_.min_delay_ms, options_.max_delay_ms);
}

}  // namespace vantage
