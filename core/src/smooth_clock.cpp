#include "vantage/smooth_clock.hpp"

#include <algorithm>
#include <cmath>

#include "vantage/assert.hpp"

namespace vantage {

std::string_view SmoothClockOptions::validate() const {
    if (!(max_rate_adjust >= 0.0 && max_rate_adjust <= 0.5)) return "max_rate_adjust must be in [0, 0.5]";
    if (!(full_adjust_error_ms > 0.0)) return "full_adjust_error_ms must be positive";
    if (!(error_gain > 0.0 && error_gain <= 1.0)) return "error_gain must be in (0, 1]";
    if (!(snap_strength > 0.0 && snap_strength <= 1.0)) return "snap_strength must be in (0, 1]";
    if (!(snap_error_ms > 0.0)) return "snap_error_ms must be positive";
    return {};
}

SmoothClock::SmoothClock(SmoothClockOptions options) : options_(options) {
    VANTAGE_ASSERT_VALID(options_, "SmoothClock: invalid SmoothClockOptions");
}

void SmoothClock::snap_to(double server_ms) {
    now_ms_ = server_ms;
    error_ms_ = 0.0;
    rate_ = 1.0;
}

void SmoothClock::observe(double server_ms) {
    if (!std::isfinite(server_ms)) return;
    if (!started_) {
        started_ = true;
        newest_ms_ = server_ms;
        snap_to(server_ms);
        return;
    }
    if (server_ms <= newest_ms_) return;
    newest_ms_ = server_ms;
    const double error = server_ms - now_ms_;
    if (std::fabs(error) > options_.snap_error_ms) {
        snap_to(server_ms);
        ++counters_.snaps;
        return;
    }
    if (options_.mode == ClockMode::Snap) {
        now_ms_ += options_.snap_strength * error;
        error_ms_ = error;
        ++counters_.snaps;
        return;
    }
    error_ms_ += options_.error_gain * (error - error_ms_);
    const double scaled = std::clamp(error_ms_ / options_.full_adjust_error_ms, -1.0, 1.0);
    rate_ = 1.0 + options_.max_rate_adjust * scaled;
}

void SmoothClock::advance(double local_dt_ms) {
    VANTAGE_ASSERT(local_dt_ms >= 0.0, "SmoothClock::advance: local_dt_ms must be >= 0 (time went backwards, or NaN)");
    if (!started_ || !(local_dt_ms > 0.0)) return;
    now_ms_ += local_dt_ms * rate_;
}

}  // namespace vantage
