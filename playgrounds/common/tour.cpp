#include "common/tour.hpp"

#include <sstream>

#include "common/host.hpp"
#include "common/preset.hpp"

namespace vantage::play {

Tour parse_tour(std::string_view text) {
    Tour tour;
    for (const IniSection& section : parse_ini(text, tour.errors)) {
        TourStep& step = tour.steps.emplace_back();
        step.name = section.name;
        for (const IniEntry& e : section.entries) {
            if (e.key == "say") {
                step.say = e.value;
            } else if (e.key == "ask") {
                step.ask = e.value;
            } else if (e.key == "settings") {
                step.settings = e.value;
            } else if (e.key == "watch") {
                std::istringstream words(e.value);
                for (std::string w; words >> w;) step.watch.push_back(w);
            } else {
                tour.errors.push_back("line " + std::to_string(e.line) + ": unknown key '" + e.key + "'");
            }
        }
        if (step.say.empty()) tour.errors.push_back("step '" + step.name + "' has nothing to say");
    }
    return tour;
}

Tour load_tour(const std::string& dir, std::string_view playground) {
    return parse_tour(read_text_file(dir + "/" + std::string(playground) + "-tour.ini"));
}

std::vector<std::string> apply_tour_step(Host& host, const TourStep& step) {
    std::vector<std::string> errors;
    std::vector<std::string_view> malformed;
    for (const Setting& s : split_settings(step.settings, malformed)) {
        std::string err = host.set(s.key, s.value);
        if (!err.empty()) errors.push_back(std::move(err));
    }
    for (std::string_view part : malformed)
        errors.push_back("bad setting '" + std::string(part) + "': expected key=value");
    return errors;
}

}  // namespace vantage::play
