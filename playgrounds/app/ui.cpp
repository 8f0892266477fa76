#include "app/ui.hpp"

#include <SDL.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdarg>
#include <cstdio>

namespace vantage::play {

namespace {
std::string number_text(double v, Param::Kind kind) {
    char buf[40];
    if (kind == Param::Kind::Real) {
        std::snprintf(buf, sizeof buf, "%.6g", v);
    } else {
        std::snprintf(buf, sizeof buf, "%.0f", v);
    }
    return buf;
}
}  // namespace

namespace {
struct LayoutMark {
    std::string name;
    ImVec2 min, max;
    std::string text;               // a readout's value as shown (layout_text), else empty
    std::vector<std::string> keys;  // the meters it shows
    bool cut = false;               // wider than its column or window: its end is clipped
};
// The meters read through meter_value() since the last layout_text(): what it shows. They
// live in the frame's meter list, which outlives the frame's layout.
struct PendingKeys {
    std::array<const Meter*, 16> meters{};
    std::size_t count = 0;
    void clear() { count = 0; }
};
PendingKeys& pending_keys() {
    static PendingKeys keys;
    return keys;
}
std::vector<LayoutMark>& layout_marks() {
    static std::vector<LayoutMark> marks;
    return marks;
}
std::vector<LayoutMark>& layout_texts() {
    static std::vector<LayoutMark> texts;
    return texts;
}
void append_json_text(std::string& out, const std::string& s) {
    out += '"';
    for (const char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        if (static_cast<unsigned char>(c) >= 0x20) out += c;
    }
    out += '"';
}
}  // namespace

void layout_begin_frame() {
    layout_marks().clear();
    layout_texts().clear();
    pending_keys().clear();
}

void layout_text_of(const std::string& meter, const std::string& shown) {
    layout_keys_clear();
    const std::size_t before = layout_texts().size();
    layout_text(meter.c_str(), shown);
    if (layout_texts().size() > before) layout_texts().back().keys.assign(1, meter);
}

void layout_keys_clear() {
    pending_keys().clear();
}

void layout_mark(const char* name, ImVec2 min, ImVec2 max) {
    for (const LayoutMark& m : layout_marks()) {
        if (m.name == name) return;
    }
    layout_marks().push_back({name, min, max, {}, {}});
}

void layout_text(const char* name, const std::string& shown) {
    // Only what a person can see: inside its window's scrolled view and the display.
    PendingKeys& pending = pending_keys();
    std::vector<std::string> keys;
    for (std::size_t i = 0; i < pending.count; ++i) keys.push_back(pending.meters[i]->name);
    pending.clear();
    if (!ImGui::IsItemVisible()) return;
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    if (b.y > display.y + 0.5f || b.x > display.x + 0.5f || a.x < -0.5f || a.y < -0.5f) return;
    // Below its window's visible part (scrolled away, partly or wholly): not seen. Clipped
    // at the right by its table cell or window: seen, but cut.
    const ImVec2 clip = ImGui::GetWindowDrawList()->GetClipRectMax();
    if (b.y > clip.y + 0.5f) return;
    const bool cut = b.x > clip.x + 0.5f;
    layout_texts().push_back({name, a, b, shown, std::move(keys), cut});
}

void layout_mark(const char* name) {
    layout_mark(name, ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
}

std::string layout_json() {
    std::string out = "{";
    for (const LayoutMark& m : layout_marks()) {
        if (out.size() > 1) out += ",";
        out += format("\"%s\":[%.1f,%.1f,%.1f,%.1f]", m.name.c_str(), m.min.x, m.min.y, m.max.x, m.max.y);
    }
    out += out.size() > 1 ? ",\"texts\":[" : "\"texts\":[";
    for (std::size_t i = 0; i < layout_texts().size(); ++i) {
        const LayoutMark& t = layout_texts()[i];
        if (i) out += ",";
        out += "[";
        append_json_text(out, t.name);
        out += ",";
        append_json_text(out, t.text);
        out += ",[";
        for (std::size_t k = 0; k < t.keys.size(); ++k) {
            if (k) out += ",";
            append_json_text(out, t.keys[k]);
        }
        out += t.cut ? "],true]" : "],false]";
    }
    return out + "]}";
}

float em(float n) {
    return n * ImGui::GetFontSize();
}

bool narrow_layout() {
    return ImGui::GetMainViewport()->WorkSize.x < 600.0f;
}

bool begin_sidebar(const ViewContext& v, const char* id) {
    if (v.presenter) return false;
    if (narrow_layout()) {
        ImGui::PushID(id);
        ImGuiStorage* storage = ImGui::GetStateStorage();
        const ImGuiID key = ImGui::GetID("settings open");
        bool open = storage->GetBool(key, false);
        if (ImGui::Button(open ? "Hide settings" : "Settings", ImVec2(-1.0f, 0.0f))) {
            open = !open;
            storage->SetBool(key, open);
        }
        layout_mark("settings.button");
        ImGui::PopID();
        if (!open) return false;
        ImGui::BeginChild(id, ImVec2(0, ImGui::GetMainViewport()->WorkSize.y * 0.45f), true);
        return true;
    }
    const float width = std::min(em(19.0f), ImGui::GetMainViewport()->WorkSize.x * 0.27f);
    ImGui::BeginChild(id, ImVec2(width, 0), true);
    return true;
}

void wrap_at_spaces(std::string_view text, float width) {
    // Screen x of the wrap edge. A word that does not fit starts the next line without a
    // SameLine first (a SameLine then NewLine would widen the text's rect past the edge).
    const float right = ImGui::GetCursorScreenPos().x + (width > 0.0f ? width : ImGui::GetContentRegionAvail().x);
    const float space = ImGui::CalcTextSize(" ").x;
    bool first = true;
    while (!text.empty()) {
        const std::size_t at = text.find(' ');
        const std::string_view word = text.substr(0, at);
        text = at == std::string_view::npos ? std::string_view{} : text.substr(at + 1);
        if (word.empty()) continue;
        const float w = ImGui::CalcTextSize(word.data(), word.data() + word.size()).x;
        if (!first && ImGui::GetItemRectMax().x + space + w <= right) ImGui::SameLine(0.0f, space);
        ImGui::TextUnformatted(word.data(), word.data() + word.size());
        first = false;
    }
}

std::string missing_glyphs(std::string_view utf8) {
    std::string out;
    const ImFont* font = ImGui::GetFont();
    for (std::size_t at = 0; at < utf8.size();) {
        const auto lead = static_cast<unsigned char>(utf8[at]);
        const std::size_t length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
        unsigned int c = length == 1 ? lead : lead & (0xFFu >> (length + 1));
        for (std::size_t i = 1; i < length && at + i < utf8.size(); ++i)
            c = (c << 6) | (static_cast<unsigned char>(utf8[at + i]) & 0x3Fu);
        at += length;
        const bool drawable = c <= 0xFFFF && font && font->FindGlyphNoFallback(static_cast<ImWchar>(c));
        if (!drawable) out += format("%sU+%04X", out.empty() ? "" : " ", c);
    }
    return out;
}

void same_line_if_fits(float width) {
    ImGui::SameLine();
    if (ImGui::GetContentRegionAvail().x < width) ImGui::NewLine();
}

void end_sidebar() {
    ImGui::EndChild();
    layout_mark("sidebar");
    if (!narrow_layout()) ImGui::SameLine();
}

int lane_picker(const char* id, std::span<const std::string> names) {
    if (!narrow_layout() || names.empty()) return -1;
    ImGui::PushID(id);
    ImGuiStorage* storage = ImGui::GetStateStorage();
    const ImGuiID key = ImGui::GetID("lane");
    int shown = std::clamp(storage->GetInt(key, 0), 0, static_cast<int>(names.size()) - 1);
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (i > 0) same_line_if_fits(ImGui::CalcTextSize(names[i].c_str()).x + 2 * ImGui::GetStyle().FramePadding.x);
        const bool active = static_cast<int>(i) == shown;
        if (active) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
        if (ImGui::Button(names[i].c_str())) storage->SetInt(key, static_cast<int>(i));
        if (active) ImGui::PopStyleColor();
    }
    ImGui::PopID();
    return std::clamp(storage->GetInt(key, 0), 0, static_cast<int>(names.size()) - 1);
}

namespace {
std::string param_label(const Param& p) {
    return p.unit.empty() ? p.label : p.label + " (" + p.unit + ")";
}
}  // namespace

void draw_params(Host& host) {
    // Sliders as wide as the longest label leaves room for: no label is cut.
    float label_w = 0.0f;
    for (const Param& p : host.current().params())
        label_w = std::max(label_w, ImGui::CalcTextSize(param_label(p).c_str()).x);
    // A column too narrow for the longest label beside a 3.5 em slider (a projector's 1.5x)
    // puts each slider's label above it instead of cutting it.
    const float avail = ImGui::GetContentRegionAvail().x;
    const float beside = avail - label_w - ImGui::GetStyle().ItemInnerSpacing.x;
    const bool above = beside < em(3.5f);
    ImGui::PushItemWidth(above ? avail : beside);
    for (const Param& p : host.current().params()) {
        if (above && p.kind != Param::Kind::Bool) {
            ImGui::BeginDisabled(!host.current().param_enabled(p.name));
            ImGui::TextUnformatted(param_label(p).c_str());
            ImGui::EndDisabled();
        }
        const std::string label =
            (above && p.kind != Param::Kind::Bool ? std::string() : param_label(p)) + "##" + p.name;
        const double current = p.get();
        const bool enabled = host.current().param_enabled(p.name);
        if (!enabled) ImGui::BeginDisabled();
        bool changed = false;
        double next = current;
        switch (p.kind) {
            case Param::Kind::Bool: {
                bool v = current != 0.0;
                changed = ImGui::Checkbox(label.c_str(), &v);
                next = v ? 1.0 : 0.0;
                break;
            }
            case Param::Kind::Int: {
                int v = static_cast<int>(current);
                changed = ImGui::SliderInt(label.c_str(), &v, static_cast<int>(p.min), static_cast<int>(p.max));
                next = v;
                break;
            }
            case Param::Kind::Real: {
                float v = static_cast<float>(current);
                // Decimals from the range, never an exponent ("1200", not "1.2e+03").
                const double span = p.max - p.min;
                const char* fmt = span >= 100.0 ? "%.0f" : span >= 10.0 ? "%.1f" : "%.2f";
                changed =
                    ImGui::SliderFloat(label.c_str(), &v, static_cast<float>(p.min), static_cast<float>(p.max), fmt);
                next = std::clamp(static_cast<double>(v), p.min, p.max);
                break;
            }
        }
        if (!enabled) ImGui::EndDisabled();
        if (!p.help.empty() && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
            ImGui::SetTooltip("%s", p.help.c_str());
        if (changed && next != current) host.set(p.name, number_text(next, p.kind));
        // A setting a verdict quotes ("{creatures} creatures") is a readout too.
        layout_text_of(p.name, p.kind == Param::Kind::Real ? number_text(current, p.kind) : plain_number(current));
    }
    ImGui::PopItemWidth();
}

std::string format(const char* fmt, ...) {
    char buf[256];
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, args);
    va_end(args);
    return buf;
}

bool begin_readouts(const char* id, float width) {
    layout_keys_clear();
    if (!ImGui::BeginTable(id, 2, ImGuiTableFlags_SizingFixedFit, ImVec2(width, 0.0f))) return false;
    ImGui::TableSetupColumn("name", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch);
    return true;
}

void readout(const char* name, const char* help, const std::string& full, const std::string& brief, ImVec4 color) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextColored(ImVec4(0.6f, 0.65f, 0.75f, 1.0f), "%s", name);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", help);
    ImGui::TableNextColumn();
    const bool fits = ImGui::CalcTextSize(full.c_str()).x <= ImGui::GetContentRegionAvail().x;
    ImGui::TextColored(color, "%s", fits ? full.c_str() : brief.c_str());
    if (!fits && ImGui::IsItemHovered()) ImGui::SetTooltip("%s: %s", help, full.c_str());
    layout_text(name, fits ? full : brief);
}

void end_readouts() {
    ImGui::EndTable();
}

double meter_value(const std::vector<Meter>& meters, const char* name) {
    for (const Meter& m : meters) {
        if (m.name != name) continue;
        // Remembered for the next layout_text(): the readout that shows this value (the
        // first 16 of a run of reads; a view that reads meters it never shows keeps none).
        PendingKeys& keys = pending_keys();
        if (keys.count < keys.meters.size()) keys.meters[keys.count++] = &m;
        return m.value;
    }
    return std::nan("");
}

void draw_meter_table(const Simulation& sim, const std::vector<Meter>& meters, const char* prefix) {
    if (!ImGui::BeginTable("meters", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) return;
    const std::span<const MeterInfo> glossary = sim.glossary();
    for (const Meter& m : meters) {
        if (prefix && m.name.rfind(prefix, 0) != 0) continue;
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(meter_label(glossary, m.name).c_str());
        if (const MeterInfo* info = find_meter_info(glossary, m.name); info && ImGui::IsItemHovered())
            ImGui::SetTooltip("%.*s (%s)", static_cast<int>(info->help.size()), info->help.data(), m.name.c_str());
        ImGui::TableNextColumn();
        // As the verdicts and readouts print them: 184, 5.4, 0.27, 12,978.
        ImGui::Text("%s %s", plain_number(m.value).c_str(), m.unit.c_str());
    }
    ImGui::EndTable();
}

double nice_step(double span, int count) {
    if (!(span > 0.0) || !std::isfinite(span) || count < 1) return 1.0;
    const double raw = span / count;
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    const double f = raw / power;
    return (f < 1.5 ? 1.0 : f < 3.5 ? 2.0 : f < 7.5 ? 5.0 : 10.0) * power;
}

std::string tick_label(double v, double step) {
    const int decimals = step >= 1.0 ? 0 : std::min(6, static_cast<int>(std::ceil(-std::log10(step) - 1e-9)));
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, std::fabs(v) < step * 1e-6 ? 0.0 : v);
    return buf;
}

float series_top(const std::vector<PlotSeries>& series) {
    float top = 0.0f;
    for (const PlotSeries& s : series) {
        for (float v : s.values) {
            if (std::isfinite(v)) top = std::max(top, v);
        }
    }
    return top;
}

PlotAxes history_axes(const ViewContext& v, const char* unit, float y_top) {
    PlotAxes axes;
    axes.unit = unit;
    axes.y_top = y_top;
    v.history.times(v.history.capacity(), axes.times);
    for (const Host::SettingChange& c : v.host.changes(v.host.active()))
        axes.markers.push_back({static_cast<float>(c.t_s), c.name + " = " + c.value});
    return axes;
}

void draw_plot(const char* id, const std::vector<PlotSeries>& series, ImVec2 size, const PlotAxes& axes) {
    ImGui::PushID(id);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    if (size.x <= 0) size.x = ImGui::GetContentRegionAvail().x;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImU32 label_color = IM_COL32(170, 175, 185, 255);
    const ImU32 grid_color = IM_COL32(70, 76, 90, 160);
    dl->AddRectFilled(origin, ImVec2(origin.x + size.x, origin.y + size.y), IM_COL32(20, 24, 32, 255));
    dl->PushClipRect(origin, ImVec2(origin.x + size.x, origin.y + size.y), true);
    const float line = ImGui::GetTextLineHeight();
    const float pad = std::floor(line * 0.25f);

    // The top: y's scale from zero, rounded up to a whole tick.
    float top = axes.y_top > 0.0f ? axes.y_top : series_top(series);
    if (!(top > 0.0f)) top = 1.0f;
    // Above the data: the unit on the left, the legend on the right; when the two do not fit
    // one line (a narrow lane on a projector) the legend takes a second line.
    float legend_w = 0.0f;
    for (const PlotSeries& s : series) legend_w += ImGui::CalcTextSize(s.label).x + line * 0.75f;
    const bool two_rows = pad + ImGui::CalcTextSize(axes.unit.c_str()).x + line + legend_w > size.x;
    const float header_h = line * (two_rows ? 2.0f : 1.0f);
    const float data_h_guess = size.y - header_h - line - 4.0f * pad;
    const double step = nice_step(top, std::clamp(static_cast<int>(data_h_guess / (line * 1.5f)), 1, 4));
    const double y_max = step * std::ceil(top / step - 1e-9);

    dl->AddText(ImVec2(origin.x + pad, origin.y + pad), label_color, axes.unit.c_str());
    float legend_x = origin.x + size.x - pad;
    const float legend_y = origin.y + pad + (two_rows ? line : 0.0f);
    for (auto it = series.rbegin(); it != series.rend(); ++it) {
        legend_x -= ImGui::CalcTextSize(it->label).x;
        dl->AddText(ImVec2(legend_x, legend_y), it->color, it->label);
        legend_x -= line * 0.75f;
    }
    float left = 0.0f;
    for (double y = 0.0; y <= y_max + step * 0.5; y += step)
        left = std::max(left, ImGui::CalcTextSize(tick_label(y, step).c_str()).x);
    const ImVec2 lo(origin.x + left + 2.0f * pad, origin.y + header_h + 2.0f * pad);  // data, top-left
    const ImVec2 hi(origin.x + size.x - pad, origin.y + size.y - line - 2.0f * pad);  // data, bottom-right
    if (hi.x - lo.x < 8.0f || hi.y - lo.y < 8.0f) {
        dl->PopClipRect();
        ImGui::Dummy(size);
        ImGui::PopID();
        return;
    }
    auto y_at = [&](double v) { return static_cast<float>(hi.y - (hi.y - lo.y) * (v / y_max)); };
    for (double y = 0.0; y <= y_max + step * 0.5; y += step) {
        const float py = y_at(y);
        dl->AddLine(ImVec2(lo.x, py), ImVec2(hi.x, py), grid_color, y == 0.0 ? 1.5f : 1.0f);
        // A plot too short for two labels keeps the top one (the grid line shows zero).
        if (y == 0.0 && y_max > 0.0 && hi.y - lo.y < line * 1.2f) continue;
        const std::string text = tick_label(y, step);
        dl->AddText(ImVec2(lo.x - pad - ImGui::CalcTextSize(text.c_str()).x, py - line * 0.5f), label_color,
                    text.c_str());
    }

    // Time: the samples' own seconds when there are enough of them, else sample order.
    const std::size_t n_times = axes.times.size();
    const bool timed = n_times >= 2 && axes.times.back() > axes.times.front();
    const double t0 = timed ? axes.times.front() : 0.0;
    const double t1 = timed ? axes.times.back() : 1.0;
    auto x_at = [&](double t) { return static_cast<float>(lo.x + (hi.x - lo.x) * ((t - t0) / (t1 - t0))); };
    if (timed) {
        const double tstep = nice_step(t1 - t0, std::max(2, static_cast<int>((hi.x - lo.x) / (line * 5.0f))));
        for (double t = std::ceil(t0 / tstep) * tstep; t <= t1 + 1e-9; t += tstep) {
            const float px = x_at(t);
            dl->AddLine(ImVec2(px, hi.y), ImVec2(px, hi.y + pad), label_color);
            const std::string text = tick_label(t, tstep) + " s";
            const float w = ImGui::CalcTextSize(text.c_str()).x;
            dl->AddText(ImVec2(std::clamp(px - w * 0.5f, lo.x, hi.x - w), hi.y + pad), label_color, text.c_str());
        }
        // Where a setting changed, with its name.
        int row = 0;
        for (const PlotMarker& m : axes.markers) {
            if (m.t_s < t0 || m.t_s > t1) continue;
            const float px = x_at(m.t_s);
            dl->AddLine(ImVec2(px, lo.y), ImVec2(px, hi.y), IM_COL32(230, 230, 120, 150), 1.0f);
            dl->AddText(ImVec2(px + pad, lo.y + static_cast<float>(row) * line), IM_COL32(230, 230, 120, 220),
                        m.label.c_str());
            row = (row + 1) % 2;
        }
    }
    dl->PushClipRect(lo, hi, true);
    for (const PlotSeries& s : series) {
        const std::size_t n = timed ? std::min(s.values.size(), n_times) : s.values.size();
        if (n < 2) continue;
        const std::size_t first_value = s.values.size() - n;
        const std::size_t first_time = n_times - n;
        ImVec2 prev;
        for (std::size_t i = 0; i < n; ++i) {
            const float v = s.values[first_value + i];
            const double t = timed ? axes.times[first_time + i] : static_cast<double>(i) / static_cast<double>(n - 1);
            const ImVec2 p(timed ? x_at(t) : lo.x + (hi.x - lo.x) * static_cast<float>(t),
                           y_at(std::isfinite(v) ? std::max(0.0, static_cast<double>(v)) : 0.0));
            if (i > 0) dl->AddLine(prev, p, s.color, 1.5f);
            prev = p;
        }
    }
    dl->PopClipRect();
    dl->PopClipRect();
    ImGui::Dummy(size);
    ImGui::PopID();
}

}  // namespace vantage::play

namespace vantage::play {

void WorldView::circle(Vec2 p, float radius_world, ImU32 color, float thickness) const {
    dl->AddCircle(to_screen(p), std::max(1.0f, to_px(radius_world)), color, 0, thickness);
}
void WorldView::disc(Vec2 p, float radius_world, ImU32 color) const {
    dl->AddCircleFilled(to_screen(p), std::max(1.0f, to_px(radius_world)), color);
}
// False when `vertices` more would wrap a 16-bit index that the renderer cannot offset
// (no RendererHasVtxOffset): the rest of the list would draw as streaks, so the caller
// drops the shape instead. Never false with 32-bit indices (the browser build) or a
// renderer that offsets (desktop GL 3.2+).
static bool vertex_room(const ImDrawList* dl, int vertices) {
    if constexpr (sizeof(ImDrawIdx) == 2) {
        if (!(ImGui::GetIO().BackendFlags & ImGuiBackendFlags_RendererHasVtxOffset)) {
            return dl->_VtxCurrentIdx + static_cast<unsigned>(vertices) < (1u << 16);
        }
    }
    return true;
}

void WorldView::dot(Vec2 p, float radius_px, ImU32 color) const {
    const ImVec2 c = to_screen(p);
    if (radius_px <= 2.0f) {
        // A square of the disc's area: 4 vertices instead of an anti-aliased circle's 16, so
        // 20,000 creatures are 80k vertices, not 320k.
        const float h = radius_px * 0.886f;
        if (!vertex_room(dl, 4)) return;
        dl->PrimReserve(6, 4);
        dl->PrimRect(ImVec2(c.x - h, c.y - h), ImVec2(c.x + h, c.y + h), color);
        return;
    }
    if (!vertex_room(dl, 16)) return;
    dl->AddCircleFilled(c, radius_px, color, 8);
}
void WorldView::line(Vec2 a, Vec2 b, ImU32 color, float thickness) const {
    dl->AddLine(to_screen(a), to_screen(b), color, thickness);
}
void WorldView::text(Vec2 p, ImU32 color, const char* s) const {
    dl->AddText(to_screen(p), color, s);
}

WorldView begin_world_view(const char* id, ImVec2 size, Vec2 center, float half_extent) {
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    if (size.x <= 0) size.x = avail.x;
    if (size.y <= 0) size.y = avail.y;
    size.x = std::max(size.x, 16.0f);
    size.y = std::max(size.y, 16.0f);
    WorldView v;
    v.dl = ImGui::GetWindowDrawList();
    v.origin = ImGui::GetCursorScreenPos();
    v.size = size;
    v.center = center;
    v.scale = std::min(size.x, size.y) * 0.5f / std::max(half_extent, 1e-3f);
    ImGui::PushID(id);
    ImGui::InvisibleButton("world", size);
    v.dl->PushClipRect(v.origin, ImVec2(v.origin.x + size.x, v.origin.y + size.y), true);
    v.dl->AddRectFilled(v.origin, ImVec2(v.origin.x + size.x, v.origin.y + size.y), IM_COL32(14, 16, 22, 255));
    return v;
}

void end_world_view(const WorldView& view) {
    view.dl->AddRect(view.origin, ImVec2(view.origin.x + view.size.x, view.origin.y + view.size.y),
                     IM_COL32(60, 66, 80, 255));
    view.dl->PopClipRect();
    ImGui::PopID();
}

Vec2 held_keys_direction() {
    Vec2 dir{};
    if (ImGui::GetIO().WantTextInput) return dir;
    auto down = [](ImGuiKey arrow, SDL_Scancode letter) {
        return ImGui::IsKeyDown(ImGui::GetKeyIndex(arrow)) || ImGui::IsKeyDown(letter);
    };
    if (down(ImGuiKey_LeftArrow, SDL_SCANCODE_A)) dir.x -= 1.0f;
    if (down(ImGuiKey_RightArrow, SDL_SCANCODE_D)) dir.x += 1.0f;
    if (down(ImGuiKey_UpArrow, SDL_SCANCODE_W)) dir.y -= 1.0f;
    if (down(ImGuiKey_DownArrow, SDL_SCANCODE_S)) dir.y += 1.0f;
    return dir;
}

float PacketStrip::x_of(double t_ms) const {
    return origin.x + width * static_cast<float>(std::clamp((t_ms - (now_ms - span_ms)) / span_ms, 0.0, 1.0));
}

float PacketStrip::row_y(bool up) const {
    if (!two_rows) return origin.y + height * 0.5f;
    return origin.y + height * (up ? 0.28f : 0.74f);
}

PacketStrip begin_packet_strip(float width, float height, double now_ms, double span_ms, bool two_rows) {
    PacketStrip s{ImGui::GetCursorScreenPos(), width, height, now_ms, std::max(span_ms, 1.0), two_rows};
    ImGui::GetWindowDrawList()->AddRectFilled(s.origin, ImVec2(s.origin.x + width, s.origin.y + height),
                                              IM_COL32(20, 24, 32, 255));
    return s;
}

void draw_packet_marks(const PacketStrip& strip, std::span<const PacketMark> marks, int lane, PacketPick& pick,
                       const std::function<ImU32(const PacketMark&)>& arrived) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const double from = strip.now_ms - strip.span_ms;
    const float tick = std::max(4.0f, em(0.3f));
    for (const PacketMark& p : marks) {
        if (p.sent_ms < from && (p.arrived_ms < 0.0 || p.arrived_ms < from)) continue;
        const float y = strip.row_y(p.up);
        ImU32 color = IM_COL32(150, 150, 150, 255);  // in flight
        double end = strip.now_ms;
        if (p.lost) {
            color = IM_COL32(230, 80, 80, 255);
            end = p.sent_ms;
        } else if (p.arrived_ms >= 0.0) {
            end = p.arrived_ms;
            color = arrived ? arrived(p) : p.ignored ? IM_COL32(120, 120, 120, 255) : IM_COL32(90, 220, 120, 255);
        }
        dl->AddLine(ImVec2(strip.x_of(p.sent_ms), y - tick), ImVec2(strip.x_of(p.sent_ms), y + tick), color,
                    p.lost ? 2.0f : 1.0f);
        if (!p.lost)
            dl->AddLine(ImVec2(strip.x_of(p.sent_ms), y), ImVec2(strip.x_of(end), y),
                        (color & 0x00FFFFFFu) | (static_cast<ImU32>(90) << IM_COL32_A_SHIFT));
        if (pick.lane == lane && pick.up == p.up && pick.sent_ms == p.sent_ms)
            dl->AddCircle(ImVec2(strip.x_of(p.sent_ms), y), tick * 1.5f, IM_COL32(255, 255, 255, 255), 0, 2.0f);
    }
    const ImU32 label = IM_COL32(160, 160, 160, 255);
    if (strip.two_rows) {
        dl->AddText(ImVec2(strip.origin.x + 3, strip.origin.y), label, "up");
        dl->AddText(ImVec2(strip.origin.x + 3, strip.origin.y + strip.height - ImGui::GetTextLineHeight()), label,
                    "down");
    }
    ImGui::InvisibleButton("strip", ImVec2(strip.width, strip.height));
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("click a packet to inspect its bytes (pause first)");
    if (!ImGui::IsItemClicked()) return;
    const ImVec2 m = ImGui::GetIO().MousePos;
    const bool up = strip.two_rows && m.y < (strip.row_y(true) + strip.row_y(false)) * 0.5f;
    float best = em(0.9f);  // a click further than this from every packet picks nothing
    PacketPick found;
    for (const PacketMark& p : marks) {
        if (p.up != up || p.sent_ms < from) continue;
        const float d = std::fabs(strip.x_of(p.sent_ms) - m.x);
        if (d < best) {
            best = d;
            found = {lane, p.up, p.sent_ms};
        }
    }
    pick = found;
}

const char* packet_fate(const PacketMark& mark) {
    if (mark.lost) return "lost on the link";
    if (mark.arrived_ms < 0.0) return "in flight";
    if (mark.ignored) return "arrived late: ignored (older than what the receiver held)";
    return "arrived";
}

void draw_packet_inspector(const PacketMark& mark, const char* kind, const char* fate, const std::string& story,
                           std::span<const WireField> fields, const char* layout_doc, PacketPick& pick) {
    if (ImGui::SmallButton("close")) pick = {};
    ImGui::SameLine();
    wrap_at_spaces(format("%s, %zu bytes, sent at %.1f ms: %s", kind, mark.bytes.size(), mark.sent_ms, fate));
    if (!story.empty()) wrap_at_spaces(story);
    // The table takes what is left above the layout line (at least three rows; it scrolls).
    const float line = ImGui::GetTextLineHeightWithSpacing();
    const float needed = line * (static_cast<float>(fields.size()) + 1.6f);
    const float height = std::min(needed, std::max(ImGui::GetContentRegionAvail().y - line * 1.2f, line * 3.0f));
    // A narrow lane (a projector) gets two columns: the offset, and the field's name over its
    // value; its bytes in a tooltip.
    const bool narrow = ImGui::GetContentRegionAvail().x < em(26.0f);
    if (ImGui::BeginTable("fields", narrow ? 2 : 4,
                          ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollY,
                          ImVec2(0, height))) {
        ImGui::TableSetupColumn("at");
        if (!narrow) {
            ImGui::TableSetupColumn("bytes");
            ImGui::TableSetupColumn("field");
        }
        ImGui::TableSetupColumn(narrow ? "field: value (hover for its bytes)" : "value",
                                ImGuiTableColumnFlags_WidthStretch);
        ImGui::TableSetupScrollFreeze(0, 1);
        ImGui::TableHeadersRow();
        for (const WireField& f : fields) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::Text("%zu", f.offset);
            if (narrow) {
                ImGui::TableNextColumn();
                ImGui::BeginGroup();
                ImGui::TextColored(ImVec4(0.6f, 0.65f, 0.75f, 1.0f), "%s", f.name.c_str());
                wrap_at_spaces(f.value);
                ImGui::EndGroup();
                if (ImGui::IsItemHovered())
                    ImGui::SetTooltip("%zu bytes: %s", f.size, wire_hex(mark.bytes, f.offset, f.size).c_str());
                continue;
            }
            ImGui::TableNextColumn();
            // A long field (a pellet record) shows its first bytes; the offsets say the rest.
            std::string hex = wire_hex(mark.bytes, f.offset, std::min<std::size_t>(f.size, 6));
            if (f.size > 6) hex += "..";
            ImGui::TextUnformatted(hex.c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(f.name.c_str());
            ImGui::TableNextColumn();
            wrap_at_spaces(f.value);
        }
        ImGui::EndTable();
    }
    ImGui::TextColored(ImVec4(0.6f, 0.65f, 0.75f, 1.0f), "layout: %s", layout_doc);
}

}  // namespace vantage::play
