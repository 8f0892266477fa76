// Presets: named scenarios a teacher opens from a menu or a link (#horde/preset=...).
// Each is plain data in assets/presets/<playground>.ini:
//
//   [loss-without-recovery]
//   title = Loss without recovery leaves corpses
//   look_for = The naive lane keeps enemies the server killed long ago.
//   settings = loss=0.25&recovery=0
//   seconds = 30
//   check = naive.phantoms > 10 * acked.phantoms
//
// `check` is the finding the preset claims, evaluated on the meters after `seconds` of
// simulated time: "<meter> <op> <number>" or "<meter> <op> [<factor> *] <meter>", with op one
// of < <= > >=. The same check is printed by the report tool and asserted by the tests.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "simulation.hpp"

namespace vantage::play {

struct Preset {
    std::string name;       // URL name
    std::string title;      // menu label
    std::string look_for;   // one or two sentences: what to watch
    std::string settings;   // "key=value&key=value" in the URL hash format
    double seconds = 30.0;  // simulated seconds before the check is meaningful
    std::string check;      // the claimed finding; may be empty
};

struct PresetFile {
    std::vector<Preset> presets;
    std::vector<std::string> errors;  // "line N: ..." for every malformed line
};

PresetFile parse_presets(std::string_view text);
// Reads <dir>/<playground>.ini; a missing file is an empty list, not an error.
PresetFile load_presets(const std::string& dir, std::string_view playground);

struct CheckResult {
    bool valid = false;  // the expression parsed and named existing meters
    bool holds = false;
    std::string text;  // e.g. "culled.err = 12.3 > 2 * full.err = 4.1: holds"
};
class Host;
// Loads every playground's presets from `dir` into the host; returns the files' errors.
std::vector<std::string> load_all_presets(Host& host, const std::string& dir);

CheckResult evaluate_check(std::string_view check, const std::vector<Meter>& meters);

}  // namespace vantage::play
