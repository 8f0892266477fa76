#include "common/catalog.hpp"

#include "blackhole/blackhole_sim.hpp"
#include "meter/meter_sim.hpp"

namespace vantage::play {

namespace {
template <class T>
std::unique_ptr<Simulation> make() {
    return std::make_unique<T>();
}
}  // namespace

const std::vector<PlaygroundEntry>& playground_catalog() {
    static const std::vector<PlaygroundEntry> entries = {
        {"meter", &make<MeterSim>},
        {"blackhole", &make<BlackholeSim>, &blackhole_report},
    };
    return entries;
}

std::vector<std::unique_ptr<Simulation>> make_all_simulations() {
    std::vector<std::unique_ptr<Simulation>> sims;
    for (const PlaygroundEntry& e : playground_catalog()) sims.push_back(e.make());
    return sims;
}

}  // namespace vantage::play
