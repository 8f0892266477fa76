// One full server tick of every playground, at its defaults and at its largest setting,
// with the time split by the phases the simulation marks (relevance, aggregation, delta,
// encode, client reconstruction...). Phase times are reported as counters in ms per tick.
#include <benchmark/benchmark.h>

#include <chrono>
#include <map>
#include <string>

#include "common/catalog.hpp"
#include "common/host.hpp"

namespace {

using namespace vantage::play;
using Clock = std::chrono::steady_clock;

// Accumulates wall time per phase (the benchmark owns the clock, never the simulation).
class PhaseTimes final : public Profiler {
public:
    void begin(const char* phase) override { open_[phase] = Clock::now(); }
    void end(const char* phase) override {
        total_[phase] += std::chrono::duration<double, std::milli>(Clock::now() - open_[phase]).count();
    }
    const std::map<std::string, double>& totals() const { return total_; }

private:
    std::map<const char*, Clock::time_point> open_;
    std::map<std::string, double> total_;
};

void run_tick(benchmark::State& state, const char* name, bool largest) {
    Host host(make_all_simulations());
    std::string settings = std::string("#") + name + "/seed=1";
    for (const PlaygroundEntry& e : playground_catalog()) {
        if (largest && std::string(e.name) == name && e.largest[0] != '\0') settings += std::string("&") + e.largest;
    }
    const auto errors = host.apply_url(settings);
    if (!errors.empty()) {
        state.SkipWithError(errors.front().c_str());
        return;
    }
    host.restart();
    Simulation& sim = host.current();
    const double dt = 1.0 / 60.0;
    for (int i = 0; i < 120; ++i) sim.step(dt);  // warm-up: buffers grown, populations settled
    PhaseTimes phases;
    sim.set_profiler(&phases);
    std::int64_t ticks = 0;
    for (auto _ : state) {
        sim.step(dt);
        ++ticks;
    }
    sim.set_profiler(nullptr);
    for (const auto& [phase, ms] : phases.totals()) {
        state.counters[phase + "_ms"] = benchmark::Counter(ms / static_cast<double>(ticks));
    }
}

void register_all() {
    for (const PlaygroundEntry& e : playground_catalog()) {
        benchmark::RegisterBenchmark((std::string("BM_PlaygroundTick/") + e.name + "/defaults").c_str(),
                                     [name = e.name](benchmark::State& s) { run_tick(s, name, false); })
            ->Unit(benchmark::kMillisecond);
        if (e.largest[0] != '\0') {
            benchmark::RegisterBenchmark((std::string("BM_PlaygroundTick/") + e.name + "/largest").c_str(),
                                         [name = e.name](benchmark::State& s) { run_tick(s, name, true); })
                ->Unit(benchmark::kMillisecond);
        }
    }
}

const int registered = (register_all(), 0);

}  // namespace
