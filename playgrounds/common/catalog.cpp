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
template <class Remote>
std::unique_ptr<RoomRemote> make_remote(RoomRemoteOptions options) {
    return std::make_unique<Remote>(std::move(options));
}
// The room client's factory for a list line that names one (Remote...), else nullptr.
template <class... Remote>
constexpr std::unique_ptr<RoomRemote> (*remote_factory())(RoomRemoteOptions) {
    if constexpr (sizeof...(Remote) == 0) {
        return nullptr;
    } else {
        return &make_remote<Remote...>;
    }
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
// A room's line names its client (its server's type is room/'s business).
#define VANTAGE_CATALOG_REMOTE(Remote, Room) Remote
#define VANTAGE_CATALOG_ENTRY(Sim, name, report, largest, ...) \
    {name, &make<Sim>, report, largest, remote_factory<__VA_OPT__(VANTAGE_CATALOG_REMOTE(__VA_ARGS__))>()},
    static const std::vector<PlaygroundEntry> entries = {VANTAGE_PLAYGROUNDS(VANTAGE_CATALOG_ENTRY)};
#undef VANTAGE_CATALOG_ENTRY
#undef VANTAGE_CATALOG_REMOTE
    return entries;
}

const PlaygroundEntry* find_playground(std::string_view name) {
    for (const PlaygroundEntry& e : playground_catalog())
        if (name == e.name) return &e;
    return nullptr;
}

bool is_room(std::string_view name) {
    const PlaygroundEntry* e = find_playground(name);
    return e && e->room();
}

std::string room_names(std::string_view separator) {
    std::string out;
    for (const PlaygroundEntry& e : playground_catalog()) {
        if (!e.room()) continue;
        if (!out.empty()) out += separator;
        out += e.name;
    }
    return out;
}

std::vector<std::unique_ptr<Simulation>> make_all_simulations() {
    std::vector<std::unique_ptr<Simulation>> sims;
    for (const PlaygroundEntry& e : playground_catalog()) sims.push_back(e.make());
    return sims;
}

}  // namespace vantage::play
