// Presets: named scenarios a teacher opens from a menu or a link (#horde/preset=...).
// Each is plain data in assets/presets/<playground>.ini:
//
//   [loss-without-recovery]
//   title = Loss without recovery leaves corpses
//   look_for = The naive lane keeps enemies the server killed long ago.
//   settings = loss=0.25&recovery=0
//   seconds = 30
//   check = naive.phantoms > 10 * acked.phantoms
//   verdict = the naive lane holds {naive.phantoms} phantoms, the acked lane {acked.phantoms}
//
// A preset is a self-contained run: choosing it restarts the world from the seed, and after
// `seconds` of simulated time its `check` is judged once on the meters and the verdict frozen
// (a restart judges it again). `check` is "<meter> <op> <number>" or
// "<meter> <op> [<factor> *] <meter>", with op one of < <= > >=, or several joined by " and "; `verdict` is the
// sentence the page shows after "holds: " or "does not hold: ", each {meter} replaced by its reading. The same
// judgement is printed by the report tool and asserted by the tests.
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
    std::string verdict;    // plain words with {meter} readings; required with a check
};

struct PresetFile {
    std::vector<Preset> presets;
    std::vector<std::string> errors;  // "line N: ..." for every malformed line
};

// The file format presets and tours share: "[name]" starts a section, "key = value" lines
// fill it, blank lines and "# ..." are skipped. Malformed lines go to `errors` as "line N: ...";
// so does a second section of a name already used (its lines are ignored: names are links).
struct IniEntry {
    int line = 0;
    std::string key;
    std::string value;
};
struct IniSection {
    int line = 0;
    std::string name;
    std::vector<IniEntry> entries;
};
std::vector<IniSection> parse_ini(std::string_view text, std::vector<std::string>& errors);
// A file's text; empty when it cannot be read.
std::string read_text_file(const std::string& path);

PresetFile parse_presets(std::string_view text);
// Reads <dir>/<playground>.ini; a missing file is an empty list, not an error.
PresetFile load_presets(const std::string& dir, std::string_view playground);

struct CheckResult {
    bool valid = false;  // the expression parsed and named existing meters
    bool holds = false;
    std::string text;  // e.g. "culled.err = 12.3 > 2 * full.err = 4.1: holds"
};
// A preset's judgement: pending until its moment, then frozen.
enum class Verdict { Pending, Holds, DoesNotHold };
// "pending", "holds", "does not hold".
std::string_view to_string(Verdict v);

// `text` with each {meter} replaced by that meter's reading in plain numbers (whole numbers
// without decimals, never exponents). An unknown meter or an unclosed brace leaves the text
// as far as it got and sets `error`.
std::string fill_readings(std::string_view text, const std::vector<Meter>& meters, std::string* error = nullptr);
// Formats one reading the way the page's verdicts and readouts print it: 76, 0.42, 183.7, 6010.
std::string plain_number(double v);

struct Judgement {
    Verdict verdict = Verdict::Pending;
    std::string text;  // "holds: the naive lane holds 76 phantoms, ..." (or why it cannot be judged)
};
// Judges `preset`'s check on `meters` now: Holds or DoesNotHold, with the verdict sentence.
// A preset without a check, or a check that cannot be evaluated, stays Pending with the reason.
Judgement judge(const Preset& preset, const std::vector<Meter>& meters);

class Host;
// Loads every playground's presets from `dir` into the host; returns the files' errors.
std::vector<std::string> load_all_presets(Host& host, const std::string& dir);

CheckResult evaluate_check(std::string_view check, const std::vector<Meter>& meters);

}  // namespace vantage::play
