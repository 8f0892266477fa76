// The headless half of a playground: one deterministic simulation with named settings and
// meters. UI-free by contract (no SDL, ImGui or Emscripten here); the desktop app, the web
// page, the report tool and the tests all drive the same object.
//
// Time is an argument: step() advances exactly one fixed tick of dt_s seconds. Randomness
// comes only from the seed given to reset(). A simulation never reads a clock.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vantage::play {

// One tunable setting. Values travel as doubles (URL hash, JS API, sliders); `kind` says how
// to show and validate them. `restart` settings rebuild the world when changed.
struct Param {
    enum class Kind { Real, Int, Bool };
    std::string name;   // URL key, e.g. "theta"
    std::string label;  // shown beside the slider
    std::string unit;   // "ms", "%", "KiB/s", or empty
    std::string help;   // one line: what it does
    Kind kind = Kind::Real;
    double min = 0.0;
    double max = 1.0;
    bool restart = false;
    std::function<double()> get;
    std::function<void(double)> set;
};

// One measured reading. `value` is always measured, never a constant standing in.
struct Meter {
    std::string name;  // JSON key, e.g. "windowed_kib_s"
    std::string unit;
    double value = 0.0;
};

// What a meter is, for people: a readable name and one line saying what it measures. A
// playground lists these for its meters; a lane's meters ("naive.phantoms") are described by
// their name after the lane ("phantoms").
struct MeterInfo {
    std::string_view key;
    std::string_view label;  // "phantoms"
    std::string_view help;   // "enemies the client still draws that the server no longer has"
};
// `meter` looked up in `glossary` by its whole name, else by what follows its first '.';
// null when absent.
const MeterInfo* find_meter_info(std::span<const MeterInfo> glossary, std::string_view meter);
// A meter's readable name: its glossary label, after its lane when the glossary describes it
// per lane ("naive: phantoms" with lane_separator ": "); the raw name when undescribed.
std::string meter_label(std::span<const MeterInfo> glossary, std::string_view meter,
                        std::string_view lane_separator = ": ");

// Optional instrumentation: a simulation marks the phases of its tick (relevance,
// aggregation, delta, encode, client reconstruction, ...) and whoever installed a profiler
// (the benchmarks, the page's overlay) times them with its own clock. The simulation itself
// never reads a clock, and without a profiler a phase mark costs one branch.
class Profiler {
public:
    virtual ~Profiler() = default;
    virtual void begin(const char* phase) = 0;  // `phase` is a string literal
    virtual void end(const char* phase) = 0;
};

class PhaseScope {
public:
    PhaseScope(Profiler* p, const char* phase) : profiler_(p), phase_(phase) {
        if (profiler_) profiler_->begin(phase_);
    }
    ~PhaseScope() {
        if (profiler_) profiler_->end(phase_);
    }
    PhaseScope(const PhaseScope&) = delete;
    PhaseScope& operator=(const PhaseScope&) = delete;

private:
    Profiler* profiler_;
    const char* phase_;
};

class Simulation {
public:
    virtual ~Simulation() = default;
    virtual std::string_view name() const = 0;   // URL name, e.g. "blackhole"
    virtual std::string_view title() const = 0;  // tab label
    virtual void reset(std::uint64_t seed) = 0;
    virtual void step(double dt_s) = 0;
    std::vector<Param>& params() { return params_; }
    const std::vector<Param>& params() const { return params_; }
    virtual void meters(std::vector<Meter>& out) const = 0;
    // Every meter's readable name and description (see MeterInfo).
    virtual std::span<const MeterInfo> glossary() const = 0;
    // A digest of the whole simulated state: equal across platforms for equal seeds.
    virtual std::uint64_t checksum() const = 0;
    // Simulated seconds since reset.
    virtual double time_s() const = 0;
    // False while a setting has no effect because a setting it depends on is off (e.g.
    // reconciliation without prediction): the controls grey it out. Its value is kept.
    virtual bool param_enabled(std::string_view /*name*/) const { return true; }
    // The warm-up is over: every run reading (what a report prints) counts from here on.
    // Live meters are unaffected. Until it is called a run counts from reset().
    virtual void begin_measurement() {}

    void set_profiler(Profiler* profiler) { profiler_ = profiler; }

protected:
    std::vector<Param> params_;     // filled by the constructor; get/set capture `this`
    Profiler* profiler_ = nullptr;  // not owned; null unless someone measures phases
};

// The measured run every report and test uses: reset(seed), `warmup_s` of ticks at `tick_hz`,
// begin_measurement(), then `measure_s` of ticks. Tick counts are rounded to the nearest
// whole tick (5 s at 60 Hz is 300 ticks).
struct MeasuredRun {
    double warmup_s = 0.0;
    double measure_s = 0.0;
    int tick_hz = 60;
    std::uint64_t seed = 1;
    std::function<void()> each_measured_tick{};  // optional: called after every measured tick
};
void run_measured(Simulation& sim, const MeasuredRun& run);
// The same, without the reset: continues `sim` where it stands (settings set live after a
// reset, a sweep that changes one part-way).
void continue_measured(Simulation& sim, double warmup_s, double measure_s, int tick_hz,
                       const std::function<void()>& each_measured_tick = {});
// Runs `seconds` of ticks at `tick_hz` (rounded to whole ticks); returns the ticks run.
long run_ticks(Simulation& sim, double seconds, int tick_hz);

// Validates `value` against `p` (finite, inside [min, max], integral for Int, 0/1 for Bool).
// Returns an empty string when acceptable, otherwise a message naming the setting.
std::string check_param_value(const Param& p, double value);

// Folds a value into a running checksum (used by every simulation's checksum()).
std::uint64_t fold(std::uint64_t h, std::uint64_t v);
std::uint64_t fold(std::uint64_t h, double v);

}  // namespace vantage::play
