// Tours: a few steps per playground that a teacher walks a room through. Each step sets the
// scene, asks the room to predict, then (on "Show me") changes one thing and points at the
// meters that answer. Plain data in assets/presets/<playground>-tour.ini, one section per
// step, in order:
//
//   [loss]
//   say = Both clients see the same horde over the same link.
//   ask = A quarter of the packets get lost. What happens to the naive lane?
//   settings = loss=25
//   watch = naive.phantoms acked.phantoms
//
// `settings` go through Host::set like any change by hand (validated, marked on the plots);
// `watch` names meters, shown live beside the step.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "simulation.hpp"

namespace vantage::play {

struct TourStep {
    std::string name;
    std::string say;                 // the scene
    std::string ask;                 // the question before the change; may be empty
    std::string settings;            // "key=value&..." applied by "Show me"; may be empty
    std::vector<std::string> watch;  // meters that answer
};

struct Tour {
    std::vector<TourStep> steps;
    std::vector<std::string> errors;  // "line N: ..." and steps without text
};

Tour parse_tour(std::string_view text);
// Reads <dir>/<playground>-tour.ini; a missing file is a tour without steps, not an error.
Tour load_tour(const std::string& dir, std::string_view playground);

class Host;
// Every key of `step.settings` applied to the active playground (as by hand). Returns one
// message per refused part; the rest still apply.
std::vector<std::string> apply_tour_step(Host& host, const TourStep& step);

}  // namespace vantage::play
