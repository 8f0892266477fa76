// AdaptiveDelay: a render delay sized from how irregularly snapshots actually arrive.
//
// Entity interpolation needs the render time to trail the newest snapshot by enough that the
// next one is (almost) always there before it is needed. A fixed delay is either too long on
// a clean link or too short on a jittery one. This estimator watches arrivals, each stamped
// with the server time it was sent at, and keeps two smoothed figures:
//   - the server's send interval (EWMA of the gaps between successive send stamps), and
//   - the arrival jitter, RFC 3550 style: the EWMA of |(arrival gap) - (send gap)|,
// then proposes delay = interval_factor * interval + jitter_factor * jitter, clamped. The
// netcode playground uses 1.5 x step + 2 x jitter, capped at 600 ms.
//
// The proposal (target_delay_ms) moves with every arrival. The delay to draw with
// (delay_ms) follows it at a bounded slew as local time advances, so that
// SmoothClock::render_time_ms(delay_ms()) changes by rate, never by a jump, just as the clock
// itself does. Times are milliseconds; the two clocks (server stamps and local arrival) may
// have any offset from each other.
#pragma once

#include <cstdint>
#include <string_view>

namespace vantage {

struct AdaptiveDelayOptions {
    // Delay proposed before two arrivals have been seen (ms, >= 0).
    double initial_delay_ms = 150.0;
    // EWMA gain per arrival for the send interval, in (0, 1].
    double interval_gain = 0.05;
    // EWMA gain per arrival for the jitter, in (0, 1]. RFC 3550 uses 1/16.
    double jitter_gain = 1.0 / 16.0;
    // Multiples of the interval and of the jitter in the proposed delay (>= 0).
    double interval_factor = 1.5;
    double jitter_factor = 2.0;
    // Bounds on the proposed delay (ms, 0 <= min <= max).
    double min_delay_ms = 0.0;
    double max_delay_ms = 600.0;
    // How fast delay_ms() may follow the target: ms of delay per ms of local time, in
    // (0, 1]. 0.1 keeps the drawn instant's rate within 0.9x..1.1x, like SmoothClock.
    double max_slew = 0.1;

    std::string_view validate() const;
};

// Counters since construction or reset().
struct AdaptiveDelayCounters {
    std::uint64_t arrivals = 0;
};

class AdaptiveDelay {
public:
    AdaptiveDelay() : AdaptiveDelay(AdaptiveDelayOptions{}) {}
    explicit AdaptiveDelay(AdaptiveDelayOptions options);

    // A snapshot sent at server time `sent_ms` arrived at local time `arrived_ms`.
    // Non-finite times are ignored (bad data). A reordered arrival still informs the jitter
    // but not the interval.
    void observe(double sent_ms, double arrived_ms);

    // Local time passed (ms, >= 0): delay_ms() moves toward the target by at most
    // max_slew * dt.
    void advance(double local_dt_ms);

    // The render delay to use now (ms): the target, approached at a bounded slew.
    double delay_ms() const { return delay_ms_; }
    // What the arrivals so far call for (ms): interval and jitter terms, clamped.
    double target_delay_ms() const;
    double interval_ms() const { return interval_ms_; }
    double jitter_ms() const { return jitter_ms_; }
    const AdaptiveDelayCounters& counters() const { return counters_; }
    const AdaptiveDelayOptions& options() const { return options_; }
    void reset() { *this = AdaptiveDelay{options_}; }

private:
    AdaptiveDelayOptions options_;
    double last_sent_ms_ = 0.0;  // send stamp of the previous arrival (arrival order)
    double last_arrived_ms_ = 0.0;
    double newest_sent_ms_ = 0.0;  // largest send stamp seen
    double interval_ms_ = 0.0;
    double jitter_ms_ = 0.0;
    double delay_ms_ = 0.0;
    AdaptiveDelayCounters counters_;
    std::uint64_t intervals_ = 0;  // interval samples taken
};

}  // namespace vantage
