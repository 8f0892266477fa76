// Fuzz bodies for the text a page or a teacher hands the app: preset and tour files
// (common/preset.hpp, common/tour.hpp) and URL hashes with their values (Host::apply_url).
// Shared by the seeded corpus test (tests/playgrounds/text_fuzz_test.cpp, native, ASan and
// wasm) and the libFuzzer target (tests/fuzz/text_fuzz.cpp).
//
// Properties: nothing crashes; every malformed line is reported as "line N: ..."; every preset
// or step kept has a name and its text; a URL applies what is valid and names each part it
// refused, and the URL the host then reports is canonical: applying it again changes nothing
// and refuses nothing (the link a teacher copies reproduces the run).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/host.hpp"
#include "common/preset.hpp"
#include "common/tour.hpp"
#include "support/delta_fuzz.hpp"

namespace vantage::fuzz {

inline bool starts_with_line(const std::string& e) {
    return e.rfind("line ", 0) == 0 && e.size() > 5 && e[5] >= '0' && e[5] <= '9';
}

inline bool names_an_error(const std::vector<std::string>& errors, const std::string& what) {
    for (const std::string& e : errors)
        if (e.find(what) != std::string::npos) return true;
    return false;
}

// Returns the presets and tour steps the text held.
inline std::size_t fuzz_preset_text(std::string_view text) {
    const play::PresetFile presets = play::parse_presets(text);
    for (const std::string& e : presets.errors)
        fuzz_check(starts_with_line(e) || e.rfind("preset '", 0) == 0, "a preset error without its line or preset");
    for (std::size_t i = 0; i < presets.presets.size(); ++i) {
        const play::Preset& p = presets.presets[i];
        fuzz_check(!p.name.empty(), "a preset kept without a name");
        for (std::size_t j = 0; j < i; ++j) fuzz_check(presets.presets[j].name != p.name, "two presets of one name");
        fuzz_check(p.seconds > 0.0 && p.seconds <= 3600.0, "a preset kept with its moment out of range");
        if (p.title.empty())
            fuzz_check(names_an_error(presets.errors, "'" + p.name + "' has no title"),
                       "an untitled preset unreported");
        if (!p.check.empty() && p.verdict.empty())
            fuzz_check(names_an_error(presets.errors, "'" + p.name + "' has a check"),
                       "a check without a verdict unreported");
    }
    const play::Tour tour = play::parse_tour(text);
    for (const play::TourStep& s : tour.steps) {
        fuzz_check(!s.name.empty(), "a tour step without a name");
        if (s.say.empty())
            fuzz_check(names_an_error(tour.errors, "'" + s.name + "' has nothing to say"), "a silent step unreported");
    }
    return presets.presets.size() + tour.steps.size();
}

// Applies `hash` to `host`; returns true when nothing was refused.
inline bool fuzz_url(play::Host& host, std::string_view hash) {
    const std::vector<std::string> refused = host.apply_url(hash);
    for (const std::string& r : refused) fuzz_check(!r.empty(), "an empty refusal");
    const std::string canonical = host.url();
    fuzz_check(host.apply_url(canonical).empty(), "the host's own URL is refused");
    fuzz_check(host.url() == canonical, "the host's own URL does not reproduce itself");
    return refused.empty();
}

}  // namespace vantage::fuzz
