// One full server tick of the black-hole playground (world, three lanes of clients, their
// links and local integration, the meters), which the web page runs in wasm at 60 Hz.
#include <benchmark/benchmark.h>

#include "blackhole/blackhole_sim.hpp"

namespace {

using vantage::play::BlackholeSim;

void BM_BlackholeTick(benchmark::State& state) {
    BlackholeSim sim;
    sim.settings().holes = static_cast<int>(state.range(0));
    sim.reset(1);
    for (int i = 0; i < 120; ++i) sim.step(1.0 / 60.0);  // past the start-up transient
    for (auto _ : state) {
        sim.step(1.0 / 60.0);
        benchmark::DoNotOptimize(sim.time_s());
    }
    state.counters["holes"] = static_cast<double>(state.range(0));
}
BENCHMARK(BM_BlackholeTick)->Arg(8)->Arg(64)->Unit(benchmark::kMicrosecond);

}  // namespace
