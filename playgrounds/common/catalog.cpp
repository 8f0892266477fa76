#include "common/catalog.hpp"

#include <algorithm>

#include "common/host.hpp"
#include "common/playground_list.hpp"

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
#define VANTAGE_CATALOG_ENTRY(Sim, name, report, largest) {name, &make<Sim>, report, largest},
    static const std::vector<PlaygroundEntry> entries = {VANTAGE_PLAYGROUNDS(VANTAGE_CATALOG_ENTRY)};
#undef VANTAGE_CATALOG_ENTRY
    return entries;
}

std::vector<std::unique_ptr<Simulation>> make_all_simulations() {
    std::vector<std::unique_ptr<Simulation>> sims;
    for (const PlaygroundEntry& e : playground_catalog()) sims.push_back(e.make());
    return sims;
}

}  // namespace vantage::play
