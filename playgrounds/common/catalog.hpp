// The playgrounds as a runtime table, built from the one list in common/playground_list.hpp
// (a new playground is a line there). The report tool, the tests and the benchmarks build
// their simulations from here; the app builds its own from the same list, with their views.
#pragma once

#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/room_remote.hpp"
#include "simulation.hpp"

namespace vantage::play {

// Options the report tool passes to a playground's own report (from its command line).
struct ReportOptions {
    std::uint64_t seed = 1;
    double seconds = 60.0;  // simulated seconds per measured run
    int tick_hz = 60;
    bool csv = false;  // machine-readable tables instead of aligned text
    // The playground's settings, "key=value&key=value" as in the URL hash, already validated
    // by the caller (the report tool checks them against the playground). Every simulation a
    // report builds gets them through apply_settings() before its reset; a table's own sweep
    // then overrides the settings it varies, for that table only. Empty: the defaults.
    std::string settings;

    // The given settings as "key=value key=value", for a report's header; with `only`, just
    // those keys (the ones a table's sweep overrides). Empty when there are none.
    std::string settings_text(std::initializer_list<std::string_view> only = {}) const;
    // " (its sweep overrides the given key=value ...)" for a table's title, or empty when
    // none of `swept` was given (so default output is unchanged).
    std::string sweep_note(std::initializer_list<std::string_view> swept) const;
};

struct PlaygroundEntry {
    const char* name;
    std::unique_ptr<Simulation> (*make)();
    // The tables behind the playground's documented findings (sweeps, comparisons), printed
    // to `out`. Optional: without it the report tool prints the meters after a run.
    void (*report)(const ReportOptions& options, std::FILE* out) = nullptr;
    // The largest configuration the page offers ("key=value&..."), for tick budgets.
    const char* largest = "";
    // The room's client, for a playground that can be a room (its list line names one);
    // nullptr for one that cannot.
    std::unique_ptr<RoomRemote> (*make_remote)(RoomRemoteOptions options) = nullptr;

    bool room() const { return make_remote != nullptr; }
};

const std::vector<PlaygroundEntry>& playground_catalog();
// The entry named `name`, or nullptr.
const PlaygroundEntry* find_playground(std::string_view name);
// Whether `name` is a playground that can be a room.
bool is_room(std::string_view name);
// The rooms' names in list order, joined by `separator` ("horde, blackhole"), for messages.
std::string room_names(std::string_view separator = ", ");
std::vector<std::unique_ptr<Simulation>> make_all_simulations();

}  // namespace vantage::play
