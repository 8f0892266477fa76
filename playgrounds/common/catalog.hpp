// The playgrounds, in one plain array. The app, the report tool and the tests all build
// their simulations from here; a new playground is one line.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

#include "simulation.hpp"

namespace vantage::play {

// Options the report tool passes to a playground's own report (from its command line).
struct ReportOptions {
    std::uint64_t seed = 1;
    double seconds = 60.0;  // simulated seconds per measured run
    int tick_hz = 60;
    bool csv = false;       // machine-readable tables instead of aligned text
};

struct PlaygroundEntry {
    const char* name;
    std::unique_ptr<Simulation> (*make)();
    // The tables behind the playground's documented findings (sweeps, comparisons), printed
    // to `out`. Optional: without it the report tool prints the meters after a run.
    void (*report)(const ReportOptions& options, std::FILE* out) = nullptr;
    // The largest configuration the page offers ("key=value&..."), for tick budgets.
    const char* largest = "";
};

const std::vector<PlaygroundEntry>& playground_catalog();
std::vector<std::unique_ptr<Simulation>> make_all_simulations();

}  // namespace vantage::play
