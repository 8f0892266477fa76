// Proximity playground view: the world with every creature coloured by how crowded it is
// (its neighbour count from the dense bin), the watchers' radii, the food points' answers
// (exact nearest in green, the representative's in orange where they differ), and beside it
// one row per lane: time per tick measured here in the page, operations, events and
// disagreement with the exact answer.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "app/ui.hpp"
#include "app/views.hpp"
#include "common/preset.hpp"
#include "proximity/proximity_sim.hpp"

namespace vantage::play {
namespace {

// Times the simulation's phases with the page's clock (the simulation never reads one):
// milliseconds per phase, smoothed over recent ticks.
class PhaseClock final : public Profiler {
public:
    using Clock = std::chrono::steady_clock;
    void begin(const char* phase) override { slot(phase).start = Clock::now(); }
    void end(const char* phase) override {
        Slot& s = slot(phase);
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - s.start).count();
        s.ms = s.ticks == 0 ? ms : 0.9 * s.ms + 0.1 * ms;
        ++s.ticks;
    }
    // Smoothed ms per tick of `phase`; negative if it never ran.
    double ms(const char* phase) const {
        for (const Slot& s : slots_) {
            if (s.name && std::strcmp(s.name, phase) == 0) return s.ticks ? s.ms : -1.0;
        }
        return -1.0;
    }
    void forget() { slots_ = {}; }

private:
    struct Slot {
        const char* name = nullptr;
        Clock::time_point start{};
        double ms = 0.0;
        long ticks = 0;
    };
    Slot& slot(const char* phase) {
        for (Slot& s : slots_) {
            if (s.name == phase || (s.name && std::strcmp(s.name, phase) == 0)) return s;
            if (!s.name) {
                s.name = phase;
                return s;
            }
        }
        return slots_.back();
    }
    std::array<Slot, 16> slots_{};
};

PhaseClock& phase_clock() {
    static PhaseClock clock;
    return clock;
}

ImU32 crowd_colour(std::uint32_t neighbours) {
    // 0 neighbours: cool blue; 8 or more: hot red.
    const float t = std::min(1.0f, static_cast<float>(neighbours) / 8.0f);
    const auto r = static_cast<int>(80 + 175 * t);
    const auto g = static_cast<int>(170 - 110 * t);
    const auto b = static_cast<int>(255 - 200 * t);
    return IM_COL32(r, g, b, 220);
}

// A lane's name in the table (short, so a projector's 1.5x scale does not cut it) and what
// it is (the row's tooltip).
const char* lane_title(ProximityLaneKind kind) {
    switch (kind) {
        case ProximityLaneKind::Dense:
            return "dense bin";
        case ProximityLaneKind::Hash:
            return "hash grid";
        case ProximityLaneKind::CrossLink:
            return "CrossLink";
        case ProximityLaneKind::Nearby:
            return "NearbyDetector";
        case ProximityLaneKind::Brute:
            return "brute force";
    }
    return "";
}

const char* lane_help(ProximityLaneKind kind) {
    switch (kind) {
        case ProximityLaneKind::Dense:
            return "SpatialGrid: a dense bin rebuilt every tick";
        case ProximityLaneKind::Hash:
            return "a bolt-on hash grid";
        case ProximityLaneKind::CrossLink:
            return "CrossLink: sorted X and Y lists, maintained move by move";
        case ProximityLaneKind::Nearby:
            return "NearbyDetector: bounding boxes, maintained, with start/stop events";
        case ProximityLaneKind::Brute:
            return "all pairs";
    }
    return "";
}

void draw_world(const ProximitySim& sim, float side_px) {
    const float side = sim.side();
    const WorldView w = begin_world_view("world", ImVec2(side_px, side_px), {side * 0.5f, side * 0.5f}, side * 0.5f);
    const ImU32 edge = IM_COL32(90, 90, 110, 200);
    w.line({0, 0}, {side, 0}, edge);
    w.line({side, 0}, {side, side}, edge);
    w.line({side, side}, {0, side}, edge);
    w.line({0, side}, {0, 0}, edge);
    const std::vector<Vec2>& pos = sim.positions();
    const ProximitySim::Lane& dense = sim.lane(ProximityLaneKind::Dense);
    // Past 40k dots, draw an even sample so the page stays interactive.
    const std::size_t stride = std::max<std::size_t>(1, pos.size() / 40000);
    const float dot = pos.size() > 20000 ? 1.0f : 1.8f;
    for (std::size_t i = 0; i < pos.size(); i += stride) {
        w.dot(pos[i], dot, crowd_colour(i < dense.count.size() ? dense.count[i] : 0));
    }
    for (std::uint32_t k = 0; k < ProximitySim::kWatchers && k < pos.size(); ++k) {
        w.circle(pos[k], sim.radius(), IM_COL32(120, 255, 160, 200), 1.5f);
    }
    if (sim.settings().clustered) {
        for (const Vec2 c : sim.centres()) w.circle(c, 6.0f / w.scale, IM_COL32(255, 255, 255, 160), 2.0f);
    }
    if (sim.settings().cohesion) w.circle(sim.pack_centre(), 8.0f / w.scale, IM_COL32(255, 220, 90, 255), 2.5f);
    end_world_view(w);
    layout_mark("proximity.world", w.origin, ImVec2(w.origin.x + w.size.x, w.origin.y + w.size.y));
}

void draw_lane_table(ViewContext& v, const ProximitySim& sim) {
    const PhaseClock& clock = phase_clock();
    auto m = [&](const std::string& name) { return meter_value(v.meters, name.c_str()); };
    if (!ImGui::BeginTable("lanes", 6, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) return;
    for (const char* h : {"lane", "ms/tick (page)", "ops/tick", "events/tick", "disagree", "pairs"}) {
        ImGui::TableSetupColumn(h);
    }
    ImGui::TableHeadersRow();
    for (const ProximitySim::Lane& lane : sim.lanes()) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(lane_title(lane.kind));
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", lane_help(lane.kind));
        if (!lane.active) {
            ImGui::TableNextColumn();
            ImGui::TextDisabled(lane.kind == ProximityLaneKind::Brute ? "off (above the cap)" : "off");
            continue;
        }
        ImGui::TableNextColumn();
        const double ms = clock.ms(lane.name.c_str());
        ImGui::Text(ms >= 0 ? "%.2f" : "-", ms);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(plain_number(m(lane.name + ".ops")).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(plain_number(m(lane.name + ".events")).c_str());
        ImGui::TableNextColumn();
        const double d = m(lane.name + ".disagree");
        if (d > 0) {
            ImGui::TextColored(ImVec4(1, 0.4f, 0.3f, 1), "%.0f", d);
        } else {
            ImGui::TextUnformatted("0 (exact)");
        }
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(plain_number(m(lane.name + ".pairs")).c_str());
    }
    if (sim.settings().representative) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted("nearest: exact");
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("the exact nearest creature, through the dense bin");
        ImGui::TableNextColumn();
        ImGui::Text("%.2f", clock.ms("exact nearest"));
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(plain_number(m("nearest.exact_ops")).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted("-");
        ImGui::TableNextColumn();
        ImGui::TextUnformatted("0 (exact)");
        ImGui::TableNextColumn();
        ImGui::Text("%s found", plain_number(m("nearest.answered")).c_str());
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted("nearest: representative");
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("one representative per cell: at most nine reads per query");
        ImGui::TableNextColumn();
        ImGui::Text("%.2f", clock.ms("representative"));
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(plain_number(m("nearest.rep_ops")).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted("-");
        ImGui::TableNextColumn();
        ImGui::Text("%.0f%% differ, +%.2f cells (worst %.2f)", m("nearest.mismatch_pct"), m("nearest.error_cells"),
                    m("nearest.worst_cells"));
        ImGui::TableNextColumn();
    }
    ImGui::EndTable();
    layout_mark("proximity.table");
    if (sim.settings().cohesion) {
        ImGui::Text("pack centre: %s, %s ops/tick (the other way: %s), %.2f ms (page, with motion)",
                    sim.settings().pack_leader ? "one centroid" : "all pairs", plain_number(m("pack.ops")).c_str(),
                    plain_number(m("pack.other_ops")).c_str(), clock.ms("motion"));
    }
    ImGui::Text("motion %.2f ms, check %.2f ms per tick; density %.2f creatures per cell", clock.ms("motion"),
                clock.ms("check"), m("density"));
}

}  // namespace

void draw_view(ViewContext& v, ProximitySim& sim) {
    sim.set_profiler(&phase_clock());
    if (begin_sidebar(v)) {
        ImGui::TextWrapped(
            "Proximity is a property of position. Every lane answers \"who is within r of each creature?\" over the "
            "same motion: the dense bin rebuilt every tick, a hash grid, the cross-linked lists, the nearby detector "
            "and all pairs. Red creatures are crowded; green rings are the watchers whose views give the events.");
        ImGui::Separator();
        draw_params(v.host);
        end_sidebar();
    }
    ImGui::BeginChild("main", ImVec2(0, 0), false);
    const float avail_y = ImGui::GetContentRegionAvail().y;
    const float table_h = 11.0f * ImGui::GetTextLineHeightWithSpacing();
    const float side_px = std::max(em(8.0f), std::min(ImGui::GetContentRegionAvail().x, avail_y - table_h));
    draw_world(sim, side_px);
    draw_lane_table(v, sim);
    ImGui::EndChild();
}

}  // namespace vantage::play
