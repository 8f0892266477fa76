// SmoothClock: the client's running estimate of the server's timeline, corrected by
// changing its rate rather than by jumping.
//
// Each snapshot that arrives carries the server time it was sent at; the newest such stamp
// is where the clock should be. Between arrivals the clock advances with local time. When the
// estimate and the stream disagree (latency rose, a clock drifted), the Rate mode speeds the
// clock up or slows it down by at most `max_rate_adjust` (1.00x +/- 10% by default) until the
// error is absorbed, so the drawn instant never jumps and never runs backwards. The Snap mode
// moves the position by `snap_strength` of the error at each arrival instead: it converges
// faster and stutters, which is the comparison the playground shows. An error beyond
// `snap_error_ms` (a stall, a resumed tab) snaps in either mode: dilating through seconds of
// error would take minutes.
//
// The render time is server_time_ms() - delay, with the delay from a fixed setting or an
// AdaptiveDelay. Times are milliseconds; time is only ever passed in (advance, observe).
#pragma once

#include <cstdint>
#include <string_view>

namespace vantage {

enum class ClockMode {
    Rate,  // absorb error by dilating the playback rate (monotonic)
    Snap,  // absorb error by moving the position at each arrival (may step backwards)
};

// Names for logs, readouts and test failures (core/docs/conventions.md).
constexpr const char* to_string(ClockMode mode) {
    switch (mode) {
        case ClockMode::Rate:
            return "rate";
        case ClockMode::Snap:
            return "snap";
    }
    return "unknown clock mode";
}

struct SmoothClockOptions {
    ClockMode mode = ClockMode::Rate;
    // Largest rate change, as a fraction of real time, in [0, 0.5]. Rate mode.
    double max_rate_adjust = 0.10;
    // The filtered error (ms, > 0) at which the full rate adjustment applies; smaller errors
    // adjust proportionally. Rate mode.
    double full_adjust_error_ms = 100.0;
    // EWMA gain per arrival on the measured error, in (0, 1]; smooths out arrival jitter so the
    // rate does not flap. Rate mode.
    double error_gain = 0.1;
    // Fraction of the error removed at each arrival, in (0, 1]. Snap mode. The reference
    // playground's resync uses 0.08.
    double snap_strength = 1.0;
    // An error larger than this (ms, > 0) snaps the position in either mode.
    double snap_error_ms = 1000.0;

    std::string_view validate() const;
};

// Counters since construction or reset().
struct SmoothClockCounters {
    // Times the position was stepped (first start not counted).
    std::uint64_t snaps = 0;
};

class SmoothClock {
public:
    SmoothClock() : SmoothClock(SmoothClockOptions{}) {}
    explicit SmoothClock(SmoothClockOptions options);

    // A snapshot stamped `server_ms` arrived now. The first observation starts the clock at
    // that stamp. A stamp not newer than one already seen (reordered, duplicated) is ignored;
    // so is a non-finite one.
    void observe(double server_ms);
    // Local time passed (ms, >= 0). The clock moves by dt times the playback rate.
    void advance(double local_dt_ms);

    bool started() const { return started_; }
    // Estimated newest server time at this instant (ms); 0 until started.
    double server_time_ms() const { return now_ms_; }
    // The instant to draw remotes at.
    double render_time_ms(double delay_ms) const { return now_ms_ - delay_ms; }
    // Current playback rate (1.0 = real time).
    double rate() const { return rate_; }
    // Filtered error, newest stamp minus clock (ms): positive when the clock is behind.
    double error_ms() const { return error_ms_; }
    const SmoothClockCounters& counters() const { return counters_; }
    const SmoothClockOptions& options() const { return options_; }
    void reset() { *this = SmoothClock{options_}; }

private:
    void snap_to(double server_ms);

    SmoothClockOptions options_;
    double now_ms_ = 0.0;
    double newest_ms_ = 0.0;
    double error_ms_ = 0.0;
    double rate_ = 1.0;
    SmoothClockCounters counters_;
    bool started_ = false;
};

}  // namespace vantage
