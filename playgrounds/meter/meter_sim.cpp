#include "meter/meter_sim.hpp"

#include "common/settings_schema.hpp"

namespace vantage::play {

namespace {

const SettingsSchema<MeterSettings>& meter_schema() {
    static const SettingsSchema<MeterSettings> schema = [] {
        using S = MeterSettings;
        SettingsSchema<S> d;
        d.real("rate_kib", &S::rate_kib,
               {.label = "true rate",
                .unit = "KiB/s",
                .min = 1.0,
                .max = 2000.0,
                .help = "rate of the stream before the step"});
        d.real("step_to_kib", &S::step_to_kib,
               {.label = "rate after step",
                .unit = "KiB/s",
                .min = 1.0,
                .max = 2000.0,
                .help = "rate of the stream after the step"});
        d.real("step_at_s", &S::step_at_s,
               {.label = "step at",
                .unit = "s",
                .min = 0.0,
                .max = 600.0,
                .help = "simulated time at which the true rate steps"});
        d.real("burst", &S::burst,
               {.label = "burstiness",
                .min = 0.0,
                .max = 1.0,
                .help = "0: every tick carries the mean; 1: each tick carries 0..2x the mean"});
        return d;
    }();
    return schema;
}

// A packet carries a whole number of bytes: x rounded to the nearest integer, halves to even.
// For 0 <= x < 2^52, adding 2^52 leaves no fraction bits in the sum, so the addition itself
// rounds (to nearest, ties to even: the default mode, and the only one in wasm) and the
// subtraction is exact. Two additions and a select with no call and no float-to-integer
// conversion: std::round is a libm call natively without SSE4.1 and in wasm (18% of the
// tick's samples natively, 27% in wasm: core/docs/relevance.md). Larger values and NaN pass
// unchanged.
double whole_bytes(double x) {
    constexpr double kNoFraction = 0x1p52;
    return x >= 0.0 && x < kNoFraction ? (x + kNoFraction) - kNoFraction : x;
}

}  // namespace

std::string MeterSettings::validate() const {
    return meter_schema().validate(*this);
}

MeterSim::MeterSim() {
    meter_schema().bind(settings_, params_);
}

void MeterSim::reset(std::uint64_t seed) {
    rng_ = XorShift(mix64(seed ^ 0x6d65746572ULL));
    meter_.reset();
    meter_.elapsed(0.0);
    time_s_ = 0.0;
    packets_ = 0;
}

double MeterSim::true_kib(double t_s) const {
    return t_s >= settings_.step_at_s ? settings_.step_to_kib : settings_.rate_kib;
}

void MeterSim::step(double dt_s) {
    const double mean_bytes = true_kib(time_s_) * 1024.0 * dt_s;
    const double factor = (1.0 - settings_.burst) + settings_.burst * 2.0 * rng_.unit();
    time_s_ += dt_s;
    meter_.elapsed(time_s_ * 1000.0);
    meter_.add(whole_bytes(mean_bytes * factor));
    ++packets_;
}

void MeterSim::meters(std::vector<Meter>& out) const {
    const double truth = true_kib(time_s_);
    const double windowed = meter_.per_sec() / 1024.0;
    const double lifetime = meter_.lifetime_per_sec() / 1024.0;
    out.push_back({"true_kib_s", "KiB/s", truth});
    out.push_back({"windowed_kib_s", "KiB/s", windowed});
    out.push_back({"lifetime_kib_s", "KiB/s", lifetime});
    out.push_back({"windowed_error_pct", "%", truth > 0 ? 100.0 * (windowed - truth) / truth : 0.0});
    out.push_back({"lifetime_error_pct", "%", truth > 0 ? 100.0 * (lifetime - truth) / truth : 0.0});
    out.push_back({"packets", "", static_cast<double>(packets_)});
}

std::uint64_t MeterSim::checksum() const {
    std::uint64_t h = fold(0, time_s_);
    h = fold(h, meter_.total());
    h = fold(h, meter_.per_sec());
    h = fold(h, rng_.state());
    return fold(h, packets_);
}

std::span<const MeterInfo> MeterSim::glossary() const {
    static constexpr MeterInfo kGlossary[] = {
        {"true_kib_s", "true rate", "the stream's actual rate now"},
        {"windowed_kib_s", "windowed", "rate over the meter's 8 s window"},
        {"lifetime_kib_s", "lifetime average", "bytes since the start over time since the start"},
        {"windowed_error_pct", "windowed error", "windowed reading against the true rate"},
        {"lifetime_error_pct", "lifetime error", "lifetime average against the true rate"},
        {"packets", "packets", "packets counted since the start"},
    };
    return kGlossary;
}

}  // namespace vantage::play
