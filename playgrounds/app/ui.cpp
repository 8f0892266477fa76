#include "app/ui.hpp"

#include <SDL.h>

#include <algorithm>
#include <cmath>
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

void draw_params(Host& host) {
    for (const Param& p : host.current().params()) {
        std::string label = p.label;
        if (!p.unit.empty()) label += " (" + p.unit + ")";
        label += "##" + p.name;
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
                changed =
                    ImGui::SliderFloat(label.c_str(), &v, static_cast<float>(p.min), static_cast<float>(p.max), "%.3g");
                next = std::clamp(static_cast<double>(v), p.min, p.max);
                break;
            }
        }
        if (!enabled) ImGui::EndDisabled();
        if (!p.help.empty() && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
            ImGui::SetTooltip("%s", p.help.c_str());
        if (changed && next != current) host.set(p.name, number_text(next, p.kind));
    }
}

double meter_value(const std::vector<Meter>& meters, const char* name) {
    for (const Meter& m : meters) {
        if (m.name == name) return m.value;
    }
    return std::nan("");
}

void draw_meter_table(const std::vector<Meter>& meters, const char* prefix) {
    if (!ImGui::BeginTable("meters", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) return;
    for (const Meter& m : meters) {
        if (prefix && m.name.rfind(prefix, 0) != 0) continue;
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(m.name.c_str());
        ImGui::TableNextColumn();
        ImGui::Text("%.2f %s", m.value, m.unit.c_str());
    }
    ImGui::EndTable();
}

void draw_plot(const char* id, const std::vector<PlotSeries>& series, ImVec2 size, const char* unit) {
    ImGui::PushID(id);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    if (size.x <= 0) size.x = ImGui::GetContentRegionAvail().x;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(origin, ImVec2(origin.x + size.x, origin.y + size.y), IM_COL32(20, 24, 32, 255));
    float top = 0.0f;
    for (const PlotSeries& s : series) {
        for (float v : s.values) {
            if (std::isfinite(v)) top = std::max(top, v);
        }
    }
    top = top > 0.0f ? top * 1.1f : 1.0f;
    for (const PlotSeries& s : series) {
        const std::size_t n = s.values.size();
        if (n < 2) continue;
        for (std::size_t i = 1; i < n; ++i) {
            const float x0 = origin.x + size.x * static_cast<float>(i - 1) / static_cast<float>(n - 1);
            const float x1 = origin.x + size.x * static_cast<float>(i) / static_cast<float>(n - 1);
            const float y0 = origin.y + size.y * (1.0f - s.values[i - 1] / top);
            const float y1 = origin.y + size.y * (1.0f - s.values[i] / top);
            dl->AddLine(ImVec2(x0, y0), ImVec2(x1, y1), s.color, 1.5f);
        }
    }
    char scale[48];
    std::snprintf(scale, sizeof scale, "%.3g %s", top, unit);
    dl->AddText(ImVec2(origin.x + 4, origin.y + 2), IM_COL32(180, 180, 180, 255), scale);
    float legend_x = origin.x + size.x;
    for (auto it = series.rbegin(); it != series.rend(); ++it) {
        legend_x -= ImGui::CalcTextSize(it->label).x + 12.0f;
        dl->AddText(ImVec2(legend_x, origin.y + 2), it->color, it->label);
    }
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
void WorldView::dot(Vec2 p, float radius_px, ImU32 color) const {
    dl->AddCircleFilled(to_screen(p), radius_px, color, 8);
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

}  // namespace vantage::play
