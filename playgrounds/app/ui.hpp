// Shared view helpers: every playground draws its settings, meters and history plots
// through these, so the look and the URL/JS behaviour are the same on every tab.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <imgui.h>

#include "common/history.hpp"
#include "common/host.hpp"
#include "common/packet_log.hpp"
#include "common/wire_trace.hpp"
#include "vantage/vec.hpp"

namespace vantage::play {

// What a view gets each frame.
struct ViewContext {
    Host& host;
    const MeterHistory& history;
    std::vector<Meter> meters;  // the active simulation's meters this frame
    bool presenter = false;     // presenter mode: no sidebar or meter table, larger lanes
};

// Every size a view lays out is in font units, so it follows the UI scale: em(1) is the
// font's height in pixels.
float em(float n = 1.0f);
// A phone's page: below 600 px of width the views show one lane at a time across the whole
// width, their settings behind a button, their plots one under another.
bool narrow_layout();
// The left column of a playground (its description, settings and meter table): 19 em wide,
// at most 27% of the window. False in presenter mode, where the view skips its contents and
// the lanes take the width. On a narrow page it is a "Settings" button and, when opened, a
// full-width panel above the lanes (false while closed). end_sidebar() only after a true
// begin, and it ends the line (beside the column, or below the panel).
bool begin_sidebar(const ViewContext& v, const char* id = "controls");
void end_sidebar();
// On a narrow page, a row of buttons naming the lanes and the index of the one shown (kept
// per `id`); -1 on a wide page, where every lane is shown.
int lane_picker(const char* id, std::span<const std::string> names);
// Text wrapped at spaces only, in the current text colour, from the cursor to the right
// edge: ImGui's own wrapping also breaks after '.' and ',', which splits numbers ("183.",
// "7"). Continuation lines start at the current indent (a group's left edge). `width`: from
// the cursor to the wrap edge; 0 wraps at the window's right edge.
void wrap_at_spaces(std::string_view text, float width = 0.0f);

// Where named parts of the UI were drawn this frame, for the page's tests
// (window.vantage.layout()): rectangles in screen pixels (the canvas's CSS pixels in the
// browser), cleared when a frame begins. layout_mark(name) records the last item's rect.
void layout_begin_frame();
void layout_mark(const char* name, ImVec2 min, ImVec2 max);
void layout_mark(const char* name);
// A readout's value as drawn (the last item), kept when a person can see it: inside its
// window's scrolled view and the display. It carries the meters it shows: every name read
// through meter_value() since the previous layout_text() or layout_keys_clear() (so a test
// can tell which lane's number a verdict quotes).
void layout_text(const char* name, const std::string& shown);
// layout_text() for an item that shows the meter (or setting) named `meter` alone.
void layout_text_of(const std::string& meter, const std::string& shown);
// Forgets the meters read so far (what follows shows none of them).
void layout_keys_clear();
// {"name":[x0,y0,x1,y1],...,"texts":[[name,shown,[meter,...],cut],...]} of this frame: a
// repeated mark keeps its first rect; texts are the visible readouts in drawing order, `cut`
// when their column or window clips their end.
std::string layout_json();

// The characters of `utf8` the current font has no glyph for (it draws them as '?'), as
// "U+674E U+1F600"; empty when it can draw them all. A page says which letters of a name it
// cannot show rather than show question marks alone.
std::string missing_glyphs(std::string_view utf8);

// SameLine() when an item `width` pixels wide still fits on this line, else a new line: a
// bar of controls wraps between items, never through one.
void same_line_if_fits(float width);

// Sliders and checkboxes for every Param of the active simulation; changes go through
// Host::set so validation, restarts and the URL behave exactly as from the JS API.
void draw_params(Host& host);
// A two-column table of meters: readable names from the playground's glossary (a tooltip
// says what each measures and its JSON name) and values with their units, counts as whole
// numbers. Name filter optional: prefix match.
void draw_meter_table(const Simulation& sim, const std::vector<Meter>& meters, const char* prefix = nullptr);
// Reading of a meter by name (NaN if absent).
double meter_value(const std::vector<Meter>& meters, const char* name);

// A lane's readouts: a two-column table, a short name (its tooltip says what it measures)
// and the value. A value that does not fit its column shows its brief form instead (the
// tooltip then has the full one), so no number is ever wrapped or cut.
bool begin_readouts(const char* id, float width = 0.0f);  // width 0: the available width
void readout(const char* name, const char* help, const std::string& full, const std::string& brief,
             ImVec4 color = ImVec4(0.85f, 0.85f, 0.85f, 1.0f));
void end_readouts();
// printf into a std::string (for readouts).
std::string format(const char* fmt, ...) IM_FMTARGS(1);

struct PlotSeries {
    const char* label;
    std::vector<float> values;
    ImU32 color;
};
// The direction the arrow keys (and WASD) hold, components in {-1, 0, 1}; zero while a text
// field has the keyboard. Every view that steers reads the keys here.
Vec2 held_keys_direction();

// A setting changed by hand at simulated second `t_s`, marked on every plot of the run.
struct PlotMarker {
    float t_s = 0.0f;
    std::string label;  // "loss = 25"
};
// The axes of a history plot: a time axis in seconds (the samples' own times), y from zero
// with ticks in `unit`, optionally a top shared with the other plots of the same quantity.
struct PlotAxes {
    std::string unit;
    std::vector<float> times;  // oldest first, one per sample (the series' newest values)
    float y_top = 0.0f;        // > 0: the shared top; else the max of these series
    std::vector<PlotMarker> markers;
};
// Axes for `v`'s history: its sample times and the setting changes of this run.
PlotAxes history_axes(const ViewContext& v, const char* unit, float y_top = 0.0f);
// The largest finite value of the series (0 if none): share it between plots of one quantity.
float series_top(const std::vector<PlotSeries>& series);
// Several series on one set of axes: legend and unit above the data, y ticks from zero on
// the left, time ticks below, markers where a setting changed.
void draw_plot(const char* id, const std::vector<PlotSeries>& series, ImVec2 size, const PlotAxes& axes);
// Round tick step for a span: 1, 2 or 5 times a power of ten, about `count` ticks.
double nice_step(double span, int count);
// A tick label: no exponents, as many decimals as the step needs ("0", "2.5", "6000").
std::string tick_label(double v, double step);

// --- The packet strip and the packet inspector (netcode's links, black-hole's lanes) -------

// The packet the inspector shows: a view's lane number, the direction, when it was sent.
struct PacketPick {
    int lane = -1;
    bool up = false;
    double sent_ms = 0.0;
};

// A strip of the packets sent in the last span_ms up to now_ms, one row per direction (or one
// row, downlink only). Views draw their own underlay through x_of between begin and marks.
struct PacketStrip {
    ImVec2 origin;
    float width = 0.0f;
    float height = 0.0f;
    double now_ms = 0.0;
    double span_ms = 1.0;
    bool two_rows = false;
    float x_of(double t_ms) const;
    float row_y(bool up) const;
};
PacketStrip begin_packet_strip(float width, float height, double now_ms, double span_ms, bool two_rows);
// Each packet a tick at its send time and a line to its arrival (to now while in flight);
// lost ones a red tick; `arrived` colours an arrived packet (nullptr: green, grey when the
// receiver ignored it). A click picks the packet nearest the pointer for `lane` (pause first:
// the strip scrolls); the picked one is ringed. Reserves the strip's space.
void draw_packet_marks(const PacketStrip& strip, std::span<const PacketMark> marks, int lane, PacketPick& pick,
                       const std::function<ImU32(const PacketMark&)>& arrived = nullptr);
// "lost on the link", "in flight", "arrived", "arrived late: ignored (older than what was held)".
const char* packet_fate(const PacketMark& mark);
// The picked packet, byte by byte: a close button, "<kind>, N bytes, sent at T ms: <fate>",
// what the receiver did (`story`, may be empty), each field the decoder read (offset, bytes in
// hex, name, value) and where the layout is documented.
void draw_packet_inspector(const PacketMark& mark, const char* kind, const char* fate, const std::string& story,
                           std::span<const WireField> fields, const char* layout_doc, PacketPick& pick);

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
