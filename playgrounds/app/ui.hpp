// Shared view helpers: every playground draws its settings, meters and history plots
// through these, so the look and the URL/JS behaviour are the same on every tab.
#pragma once

#include <string>
#include <vector>

#include <imgui.h>

#include "common/history.hpp"
#include "common/host.hpp"
#include "vantage/vec.hpp"

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
// The direction the arrow keys (and WASD) hold, components in {-1, 0, 1}; zero while a text
// field has the keyboard. Every view that steers reads the keys here.
Vec2 held_keys_direction();

// Several series on one set of axes, sharing a y range from 0 to the max seen.
void draw_plot(const char* id, const std::vector<PlotSeries>& series, ImVec2 size, const char* unit);

}  // namespace vantage::play

#include "vantage/vec.hpp"

namespace vantage::play {

// A rectangle of the window showing a square of the world: `center` at its middle and
// `half_extent` world units to each side (the smaller screen side decides the scale).
// Views draw their world through this so every playground maps and clips the same way.
struct WorldView {
    ImDrawList* dl = nullptr;
    ImVec2 origin;       // top-left, screen px
    ImVec2 size;         // screen px
    Vec2 center;         // world units
    float scale = 1.0f;  // screen px per world unit

    ImVec2 to_screen(Vec2 p) const {
        return ImVec2(origin.x + size.x * 0.5f + (p.x - center.x) * scale,
                      origin.y + size.y * 0.5f + (p.y - center.y) * scale);
    }
    float to_px(float world) const { return world * scale; }
    void circle(Vec2 p, float radius_world, ImU32 color, float thickness = 1.0f) const;
    void disc(Vec2 p, float radius_world, ImU32 color) const;
    // A disc of a fixed screen radius (for entities too small to see at world scale).
    void dot(Vec2 p, float radius_px, ImU32 color) const;
    void line(Vec2 a, Vec2 b, ImU32 color, float thickness = 1.0f) const;
    void text(Vec2 p, ImU32 color, const char* s) const;
};

// Reserves `size` (x or y <= 0: the available space) and starts clipping to it.
WorldView begin_world_view(const char* id, ImVec2 size, Vec2 center, float half_extent);
void end_world_view(const WorldView& view);

}  // namespace vantage::play
