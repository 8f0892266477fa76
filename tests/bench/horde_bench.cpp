// The horde playground's server tick: one HordeSim::step at 60 Hz (world, relevance, every
// lane's plan/encode/link/decode/apply/ack for every client, the clients' drawing rule and the
// meters), averaged over send and non-send ticks. The page runs this in wasm at 60 Hz, so it
// must stay far below 16 ms. Run with
//   ./build/native-release/tests/vantage_bench --benchmark_filter=Horde
#include <benchmark/benchmark.h>

#include "horde/horde_sim.hpp"

namespace vantage::play {
namespace {

// Arguments: enemies, players, loss %.
void BM_HordeTick(benchmark::State& state) {
    HordeSim sim;
    sim.settings().enemies = static_cast<int>(state.range(0));
    sim.settings().players = static_cast<int>(state.range(1));
    sim.settings().loss_pct = static_cast<double>(state.range(2));
    sim.reset(1);
    for (int i = 0; i < 300; ++i) sim.step(1.0 / 60.0);  // warm: hordes formed, buffers sized
    for (auto _ : state) sim.step(1.0 / 60.0);
    state.counters["alive"] = static_cast<double>(sim.world().alive_count());
}
BENCHMARK(BM_HordeTick)
    ->Args({3000, 4, 0})
    ->Args({3000, 4, 25})
    ->Args({8000, 4, 0})
    ->Args({3000, 32, 0})
    ->Args({8000, 128, 0})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace vantage::play
