#include "common/catalog.hpp"

#include <algorithm>

#include "common/host.hpp"

#include "blackhole/blackhole_sim.hpp"
#include "horde/horde_sim.hpp"
#include "meter/meter_sim.hpp"
#include "netcode/netcode_sim.hpp"

namespace vantage::play {

namespace {
template <class T>
std::unique_ptr<Simulation> make() {
    return std::make_unique<T>();
}
}  // namespace

std::string ReportOptions::settings_text(std::initializer_list<std::string_view> only) const {
    std::vector<std::string_view> malformed;  // the report tool has rejected these already
    std::string text;
    for (const Setting& s : split_settings(settings, malformed)) {
        if (only.size() > 0 && std::find(only.begin(), only.end(), s.key) == only.end()) continue;
        if (!text.empty()) text += ' ';
        text.append(s.key).append("=").append(s.value);
    }
    return text;
}

std::string ReportOptions::sweep_note(std::initializer_list<std::string_view> swept) const {
    const std::string given = settings_text(swept);
    return given.empty() ? std::string() : " (its sweep overrides the given " + given + ")";
}

const std::vector<PlaygroundEntry>& playground_catalog() {
    static const std::vector<PlaygroundEntry> entries = {
        {"blackhole", &make<BlackholeSim>, &blackhole_report, "holes=64&pellets=6000"},
        {"horde", &make<HordeSim>, &horde_report, "enemies=8000&players=128"},
        {"netcode", &make<NetcodeSim>, &report_netcode,
         "server_hz=60&jitter_ms=100&loss_pct=20&interpolation=1&extrapolation=1&second_order=1&adaptive_buffering=1"
         "&lag_compensation=1&shots_per_s=5"},
        {"meter", &make<MeterSim>},
    };
    return entries;
}

std::vector<std::unique_ptr<Simulation>> make_all_simulations() {
    std::vector<std::unique_ptr<Simulation>> sims;
    for (const PlaygroundEntry& e : playground_catalog()) sims.push_back(e.make());
    return sims;
}

}  // namespace vantage::play
