// Meter playground: why a bandwidth readout must be a windowed rate.
//
// A seeded, bursty byte stream with a known true rate (which can step up or down at a set
// time) feeds one RateMeter. The windowed per_sec() follows the true rate within a window
// (8 s); the lifetime average creeps toward it for ever and lags every change. This is the
// smallest honest use of the meter every other playground shows.
#pragma once

#include <cstdint>
#include <string>

#include "common/simulation.hpp"
#include "vantage/random.hpp"
#include "vantage/rate_meter.hpp"

namespace vantage::play {

struct MeterSettings {
    double rate_kib = 64.0;      // true rate before the step, KiB/s (1..2000)
    double step_to_kib = 256.0;  // true rate after the step, KiB/s (1..2000)
    double step_at_s = 20.0;     // when the rate steps, simulated s (0 = from the start, up to 600)
    double burst = 0.5;          // per-tick burstiness: 0 = constant, 1 = each tick 0..2x the mean

    // Empty when every field is in range, else a message naming the first bad one.
    std::string validate() const;
};

class MeterSim final : public Simulation {
public:
    MeterSim();
    std::string_view name() const override { return "meter"; }
    std::string_view title() const override { return "Rate meter"; }
    void reset(std::uint64_t seed) override;
    void step(double dt_s) override;
    void meters(std::vector<Meter>& out) const override;
    std::span<const MeterInfo> glossary() const override;
    std::uint64_t checksum() const override;
    double time_s() const override { return time_s_; }

    const MeterSettings& settings() const { return settings_; }
    // The rate the stream is generated at, at time t (KiB/s).
    double true_kib(double t_s) const;
    const RateMeter& meter() const { return meter_; }

private:
    MeterSettings settings_;
    XorShift rng_{1};
    RateMeter meter_;
    double time_s_ = 0.0;
    std::uint64_t packets_ = 0;
};

}  // namespace vantage::play
