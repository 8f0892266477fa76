// The playgrounds, in one plain array. The app, the report tool and the tests all build
// their simulations from here; a new playground is one line.
#pragma once

#include <memory>
#include <vector>

#include "simulation.hpp"

namespace vantage::play {

struct PlaygroundEntry {
    const char* name;
    std::unique_ptr<Simulation> (*make)();
};

const std::vector<PlaygroundEntry>& playground_catalog();
std::vector<std::unique_ptr<Simulation>> make_all_simulations();

}  // namespace vantage::play
