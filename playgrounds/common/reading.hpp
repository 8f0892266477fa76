// Reading: one metric, recorded once, read by the page, the report and the presets alike.
//
// Every sample goes to three places at once, so no playground keeps a second tally beside its
// meter: a windowed part (core's RateMeter: per_sec and mean over the last 8 s, and the total
// since reset), a short recent mean (the last kRecent samples, for a per-frame readout that
// must react within a fraction of a second), and a run (total, samples, mean, max) since the
// last begin_measurement(), which is what a report prints after its warm-up. Until the first
// begin_measurement() the run counts from construction or reset().
//
// Time is an argument (ms, any origin, monotonic), as for RateMeter. Nothing here allocates.
#pragma once

#include <array>
#include <cstdint>

#include "vantage/rate_meter.hpp"

namespace vantage::play {

class Reading {
public:
    static constexpr std::size_t kRecent = 32;

    // Counts one sample (bytes, px, entities, 0/1 for a yes/no) at the current time.
    void add(double amount);
    // Sets the clock (see RateMeter::elapsed): rolls the window, and dates the run.
    void elapsed(double now_ms);
    // The run restarts here: its total, samples and max count from now on.
    void begin_measurement();
    void reset() { *this = Reading{}; }

    // Live: what the page shows.
    double last() const { return last_; }
    double per_sec() const { return window_.per_sec(); }
    double window_mean() const { return window_.mean(); }
    double recent_mean() const { return recent_count_ ? recent_sum_ / static_cast<double>(recent_count_) : 0.0; }
    const RateMeter& window() const { return window_; }
    // Since construction or reset() (not affected by begin_measurement()).
    double total() const { return window_.total(); }
    std::uint64_t samples() const { return window_.samples(); }
    double lifetime_per_sec() const { return window_.lifetime_per_sec(); }

    // The run, since the last begin_measurement(): what a report prints.
    double run_total() const { return run_total_; }
    std::uint64_t run_samples() const { return run_samples_; }
    double run_mean() const { return run_samples_ ? run_total_ / static_cast<double>(run_samples_) : 0.0; }
    double run_max() const { return run_max_; }
    // Run total per second of simulated time since the run began (0 before any time passed).
    double run_per_sec() const;

private:
    RateMeter window_;
    std::array<double, kRecent> recent_{};
    std::size_t recent_next_ = 0;
    std::size_t recent_count_ = 0;
    double recent_sum_ = 0.0;
    double last_ = 0.0;
    double now_ms_ = 0.0;
    bool timed_ = false;  // elapsed() has been called at least once
    double run_start_ms_ = 0.0;
    double run_total_ = 0.0;
    std::uint64_t run_samples_ = 0;
    double run_max_ = 0.0;
};

}  // namespace vantage::play
