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

// The table's columns: what each lane costs and whether it is right. "upkeep" is the part of
// the operations spent keeping the structure itself (a rebuild, or maintenance move by move);
// "per creature" is the operations a tick over the creatures, the cost of one query.
constexpr const char* kColumns[] = {"lane", "ops/tick", "upkeep", "per creature", "events", "disagree", "ms (page)"};

// One cell's number as the verdicts print it (plain_number), recorded as shown.
void cell(const char* column, const std::string& text) {
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(text.c_str());
    layout_text(column, text);
}

void draw_lane_row(ViewContext& v, const ProximitySim::Lane& lane) {
    const PhaseClock& clock = phase_clock();
    auto m = [&](const char* meter) { return meter_value(v.meters, (lane.name + "." + meter).c_str()); };
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(lane_title(lane.kind));
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", lane_help(lane.kind));
    layout_keys_clear();
    cell("ops/tick", plain_number(m("ops")));
    cell("upkeep", plain_number(m("build_ops")));
    cell("per creature", plain_number(m("ops_per_creature")));
    cell("events", plain_number(m("events")));
    const double d = m("disagree");
    ImGui::TableNextColumn();
    if (d > 0) {
        ImGui::TextColored(ImVec4(1, 0.4f, 0.3f, 1), "%s", plain_number(d).c_str());
    } else {
        ImGui::TextUnformatted("0 (exact)");
    }
    layout_text("disagree", d > 0 ? plain_number(d) : "0 (exact)");
    const double ms = clock.ms(lane.name.c_str());
    cell("ms (page)", ms >= 0 ? format("%.2f", ms) : "-");
}

// The lines under the table, each a function of the meters so the layout can measure them
// before drawing: the nearest-creature question (the exact query against one representative
// per cell), the crowd, the pack centre.
std::string nearest_text(ViewContext& v) {
    auto m = [&](const char* meter) { return plain_number(meter_value(v.meters, meter)); };
    const std::string exact = m("nearest.exact_ops_per_query");
    const std::string rep = m("nearest.rep_ops_per_query");
    const std::string differ = m("nearest.mismatch_pct");
    const std::string worst = m("nearest.worst_cells");
    return format(
        "nearest creature: the exact query reads %s a query, one representative per cell %s; %s%% of its "
        "answers differ, the worst by %s cells",
        exact.c_str(), rep.c_str(), differ.c_str(), worst.c_str());
}
std::string crowd_text(ViewContext& v) {
    auto m = [&](const char* meter) { return plain_number(meter_value(v.meters, meter)); };
    const std::string creatures = m("creatures");
    const std::string density = m("density");
    return format("%s creatures, %s per cell (density), %s pairs within r", creatures.c_str(), density.c_str(),
                  m("dense.pairs").c_str());
}
std::string pack_text(ViewContext& v, const ProximitySim& sim) {
    auto m = [&](const char* meter) { return plain_number(meter_value(v.meters, meter)); };
    const std::string ops = m("pack.ops");
    return format("pack centre: %s, %s ops/tick (the other way: %s)",
                  sim.settings().pack_leader ? "one centroid" : "all pairs", ops.c_str(), m("pack.other_ops").c_str());
}

struct Note {
    const char* name;
    std::string (*text)(ViewContext&, const ProximitySim&);
};
constexpr Note kNotes[] = {
    {"nearest",
     [](ViewContext& v, const ProximitySim& sim) {
         return sim.settings().representative ? nearest_text(v) : std::string();
     }},
    {"crowd", [](ViewContext& v, const ProximitySim&) { return crowd_text(v); }},
    {"pack", [](ViewContext& v,
                const ProximitySim& sim) { return sim.settings().cohesion ? pack_text(v, sim) : std::string(); }},
};

// The height the notes take at the current width (wrapped at spaces, as drawn).
float notes_height(ViewContext& v, const ProximitySim& sim) {
    float h = 0.0f;
    const float width = ImGui::GetContentRegionAvail().x;
    for (const Note& n : kNotes) {
        const std::string text = n.text(v, sim);
        if (!text.empty())
            h += ImGui::CalcTextSize(text.c_str(), nullptr, false, width).y + ImGui::GetStyle().ItemSpacing.y;
    }
    layout_keys_clear();
    return h;
}

void draw_notes(ViewContext& v, const ProximitySim& sim) {
    for (const Note& n : kNotes) {
        layout_keys_clear();
        const std::string text = n.text(v, sim);
        if (text.empty()) continue;
        ImGui::BeginGroup();
        wrap_at_spaces(text);
        ImGui::EndGroup();
        if (std::strcmp(n.name, "crowd") == 0) {
            const PhaseClock& clock = phase_clock();
            if (ImGui::IsItemHovered())
                ImGui::SetTooltip(
                    "measured in this page: motion %.2f ms, check %.2f ms, exact nearest %.2f ms, "
                    "representative %.2f ms per tick",
                    clock.ms("motion"), clock.ms("check"), clock.ms("exact nearest"), clock.ms("representative"));
        }
        layout_text(n.name, text);
    }
}

void draw_lane_table(ViewContext& v, const ProximitySim& sim) {
    if (!ImGui::BeginTable("lanes", IM_ARRAYSIZE(kColumns), ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
        return;
    }
    for (const char* h : kColumns) ImGui::TableSetupColumn(h);
    ImGui::TableHeadersRow();
    std::string off;
    for (const ProximitySim::Lane& lane : sim.lanes()) {
        if (lane.active) {
            draw_lane_row(v, lane);
        } else {
            off += std::string(off.empty() ? "" : ", ") + lane_title(lane.kind) +
                   (lane.kind == ProximityLaneKind::Brute ? " (above its cap)" : "");
        }
    }
    ImGui::EndTable();
    layout_mark("proximity.table");
    // The lanes switched off, on one line: their rows would push the totals off a projector.
    if (!off.empty()) ImGui::TextDisabled("off: %s", off.c_str());
    draw_notes(v, sim);
}

// A phone: one lane's numbers as a list, the lane chosen by name.
void draw_lane_list(ViewContext& v, const ProximitySim& sim) {
    std::vector<std::string> names;
    std::vector<const ProximitySim::Lane*> lanes;
    for (const ProximitySim::Lane& lane : sim.lanes()) {
        if (!lane.active) continue;
        names.emplace_back(lane_title(lane.kind));
        lanes.push_back(&lane);
    }
    if (sim.settings().representative) names.emplace_back("nearest");
    const int only = lane_picker("proximity lanes", names);
    if (begin_readouts("lane")) {
        if (only >= 0 && static_cast<std::size_t>(only) < lanes.size()) {
            const ProximitySim::Lane& lane = *lanes[static_cast<std::size_t>(only)];
            auto m = [&](const char* meter) { return meter_value(v.meters, (lane.name + "." + meter).c_str()); };
            readout("ops/tick", "operations a tick, upkeep included", plain_number(m("ops")), plain_number(m("ops")));
            readout("upkeep", "operations a tick spent keeping the structure", plain_number(m("build_ops")),
                    plain_number(m("build_ops")));
            readout("per creature", "operations a tick over the creatures", plain_number(m("ops_per_creature")),
                    plain_number(m("ops_per_creature")));
            readout("events/tick", "start and stop of being near, a tick", plain_number(m("events")),
                    plain_number(m("events")));
            const double d = m("disagree");
            readout("disagree", "pairs this lane got wrong against brute force", d > 0 ? plain_number(d) : "0 (exact)",
                    d > 0 ? plain_number(d) : "0");
            readout("pairs", "pairs within r", plain_number(m("pairs")), plain_number(m("pairs")));
        } else if (only >= 0) {
            auto m = [&](const char* meter) { return meter_value(v.meters, meter); };
            readout("exact", "reads a query of the exact nearest",
                    plain_number(m("nearest.exact_ops_per_query")) + " a query",
                    plain_number(m("nearest.exact_ops_per_query")));
            readout("representative", "reads a query through one representative per cell",
                    plain_number(m("nearest.rep_ops_per_query")) + " a query",
                    plain_number(m("nearest.rep_ops_per_query")));
            readout("differ", "answers that are not the exact nearest", plain_number(m("nearest.mismatch_pct")) + "%",
                    plain_number(m("nearest.mismatch_pct")) + "%");
            readout("worst", "the worst answer's extra distance", plain_number(m("nearest.worst_cells")) + " cells",
                    plain_number(m("nearest.worst_cells")));
        }
        end_readouts();
        layout_mark("lane");
    }
    draw_notes(v, sim);
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
    // Under the world: the header, a row per active lane, the "off" line and the notes (on a
    // phone the lane buttons and one lane's list instead of the table). The world takes the rest.
    int rows = 2;
    for (const ProximitySim::Lane& lane : sim.lanes()) rows += lane.active ? 1 : 0;
    if (narrow_layout()) rows = 9;
    const float table_h = static_cast<float>(rows) * ImGui::GetFrameHeightWithSpacing() + notes_height(v, sim);
    const float side_px = std::max(em(5.0f), std::min(ImGui::GetContentRegionAvail().x, avail_y - table_h));
    draw_world(sim, side_px);
    if (narrow_layout()) {
        draw_lane_list(v, sim);
    } else {
        draw_lane_table(v, sim);
    }
    ImGui::EndChild();
}

}  // namespace vantage::play
