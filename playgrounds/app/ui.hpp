// Shared view helpers: every playground draws its settings, meters and history plots
// through these, so the look and the URL/JS behaviour are the same on every tab.
#pragma once

#include <string>
#include <vector>

#include <imgui.h>

#include "common/history.hpp"
#include "common/host.hpp"

namespace vantage::play {

// What a view gets each frame.
struct ViewContext {
    Host& host;
    const MeterHistory& history;
    std::vector<Meter> meters;  // the active simulation's meters this frame
};

// Sliders and checkboxes for every Param of the active simulation; changes go through
// Host::set so validation, restarts and the URL behave exactly as from the JS API.
void draw_params(Host& host);
// A two-column table of meter names and values (name filter optional: prefix match).
void draw_meter_table(const std::vector<Meter>& meters, const char* prefix = nullptr);
// Reading of a meter by name (NaN if absent).
double meter_value(const std::vector<Meter>& meters, const char* name);

struct PlotSeries {
    const char* label;
    std::vector<float> values;
    ImU32 color;
};
// Several series on one set of axes, sharing a y range from 0 to the max seen.
void draw_plot(const char* id, const std::vector<PlotSeries>& series, ImVec2 size, const char* unit);

// View function of one playground.
using ViewFn = void (*)(ViewContext&);

}  // namespace vantage::play
