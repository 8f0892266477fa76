// Black-hole playground view: the three lanes side by side, each drawing what its first
// client holds around its hole (the holes and cluster stand-ins it integrates with, its
// pellets, the server's pellets as a faint ghost, the view radius), with the lane's meters and
// a short history of bandwidth and pellet error under it.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "app/room_session.hpp"
#include "app/ui.hpp"
#include "app/views.hpp"
#include "blackhole/blackhole_remote.hpp"
#include "blackhole/blackhole_sim.hpp"
#include "common/preset.hpp"

namespace vantage::play {
namespace {

constexpr ImU32 kGhost = IM_COL32(140, 165, 210, 125);  // the server's pellets, under the client's
constexpr ImU32 kPellet = IM_COL32(250, 210, 120, 230);
constexpr ImU32 kTrueHole = IM_COL32(200, 200, 220, 90);
constexpr ImU32 kHeldHole = IM_COL32(160, 90, 255, 255);
constexpr ImU32 kCluster = IM_COL32(90, 200, 255, 220);
constexpr ImU32 kView = IM_COL32(90, 220, 140, 160);
constexpr ImU32 kYou = IM_COL32(90, 255, 140, 255);
constexpr ImU32 kArena = IM_COL32(90, 90, 110, 200);

float radius_for_weight(float weight) {
    return 6.0f + 2.4f * std::sqrt(std::max(weight, 0.0f));
}

// Arrows or WASD steer the player's hole; the first key press turns the autopilot off.
void steer_from_keys(ViewContext& v, BlackholeSim& sim) {
    if (ImGui::GetIO().WantTextInput) return;
    const Vec2 dir = held_keys_direction();
    const bool pressed = dir.x != 0.0f || dir.y != 0.0f;
    if (pressed && sim.settings().autopilot) v.host.set("autopilot", "0");
    if (!sim.settings().autopilot) sim.steer(pressed ? dir * (1.0f / std::sqrt(dir.length_squared())) : Vec2{});
}

// What a client holds: its pellets and the attractors it integrates with (holes and the
// stand-ins, labelled with their weight), around `eye`.
void draw_held(const WorldView& w, const BlackholeClientHalf& client, Vec2 eye, float half) {
    auto near_view = [&](Vec2 p) { return std::abs(p.x - eye.x) < half && std::abs(p.y - eye.y) < half; };
    for (const Vec2 p : client.positions()) {
        if (near_view(p)) w.dot(p, 1.8f, kPellet);
    }
    for (std::size_t i = 0; i < client.attractors().size(); ++i) {
        const WeightedPoint& a = client.attractors()[i];
        const float r = radius_for_weight(a.weight);
        if (client.hole_ids()[i] == BlackholeClientHalf::kClusterId) {
            w.disc(a.position(), r, IM_COL32(90, 200, 255, 45));
            w.circle(a.position(), r, kCluster, 2.5f);
            char label[24];
            std::snprintf(label, sizeof label, "%.0f", a.weight);
            w.text(a.position() + Vec2{r, -r}, kCluster, label);
        } else {
            w.disc(a.position(), r * 0.22f, kHeldHole);
            w.circle(a.position(), r, kHeldHole, 1.5f);
        }
    }
}

void draw_arena(const WorldView& w) {
    w.line({0.0f, 0.0f}, {kArenaSize, 0.0f}, kArena);
    w.line({kArenaSize, 0.0f}, {kArenaSize, kArenaSize}, kArena);
    w.line({kArenaSize, kArenaSize}, {0.0f, kArenaSize}, kArena);
    w.line({0.0f, kArenaSize}, {0.0f, 0.0f}, kArena);
}

void draw_lane_world(const BlackholeSim& sim, const BlackholeSim::Lane& lane, float side) {
    const BlackholeSim::Seat& seat = *lane.seats.front();
    const BlackholeClientHalf& client = seat.client;
    const BlackholeSim::Hole& me = sim.holes()[static_cast<std::size_t>(seat.hole)];
    const auto view_radius = static_cast<float>(sim.settings().view_radius);
    const float half = view_radius * 2.0f;  // wide enough to see the stand-ins around the view
    const WorldView w = begin_world_view(lane.name.c_str(), ImVec2(side, side), me.position, half);
    draw_arena(w);
    auto near_view = [&](Vec2 p, float margin) {
        return std::abs(p.x - me.position.x) < half + margin && std::abs(p.y - me.position.y) < half + margin;
    };
    // The truth, faint: the server's pellets and every living hole.
    const std::vector<Vec2>& truth = sim.pellet_positions();
    for (const Vec2 p : truth) {
        if (near_view(p, 0.0f)) w.dot(p, 1.5f, kGhost);
    }
    for (const BlackholeSim::Hole& h : sim.holes()) {
        if (h.alive && near_view(h.position, 200.0f)) w.circle(h.position, sim.hole_radius(h), kTrueHole);
    }
    draw_held(w, client, me.position, half);
    w.circle(me.position, view_radius, kView, 1.0f);
    w.circle(me.position, sim.hole_radius(me) + 4.0f / w.scale, kYou, 2.0f);
    end_world_view(w);
}

constexpr int kReadoutRows = 5;
constexpr double kStripMs = 2000.0;

PacketPick& picked() {
    static PacketPick p;
    return p;
}

// The lane's packets to its drawn client over the last kStripMs (click one while paused).
void draw_lane_packets(const BlackholeSim& sim, const BlackholeSim::Lane& lane, int index, float width) {
    const PacketStrip strip = begin_packet_strip(width, em(1.4f), sim.time_s() * 1000.0, kStripMs, false);
    draw_packet_marks(strip, lane.packets.marks(), index, picked());
}

// The picked packet of this lane, field by field, and what the client did with it.
void draw_lane_inspector(const BlackholeSim::Lane& lane, std::size_t pellets) {
    PacketPick& pick = picked();
    const PacketMark* mark = lane.packets.find_sent_at(false, pick.sent_ms);
    if (!mark) {
        ImGui::TextWrapped("The picked packet has left the strip (it keeps the newest packets only).");
        if (ImGui::SmallButton("close")) pick = {};
        return;
    }
    std::vector<WireField> fields;
    FieldPacket packet;
    const WireError e = decode_field_packet(mark->bytes, pellets, packet, &fields);
    std::string story;
    if (e != WireError::Ok) {
        story = format("The client refused it: %s.", to_string(e));
    } else if (mark->lost) {
        story = "The client never saw it and kept integrating with the field it already held.";
    } else if (mark->arrived_ms >= 0.0 && mark->ignored) {
        story = format("After %.0f ms on the link a newer packet had already arrived: the client ignored it.",
                       mark->arrived_ms - mark->sent_ms);
    } else if (mark->arrived_ms >= 0.0) {
        story = format(
            "After %.0f ms on the link the client took its field (%zu holes and %zu stand-ins to integrate every "
            "pellet "
            "with) and set %zu respawned and %zu corrected pellets, each brought forward by the packet's age.",
            mark->arrived_ms - mark->sent_ms, packet.holes.size(), packet.clusters.size(), packet.spawned.size(),
            packet.corrections.size());
    }
    draw_packet_inspector(*mark, format("field packet #%llu", static_cast<unsigned long long>(mark->key)).c_str(),
                          packet_fate(*mark), story, fields, "playgrounds/blackhole/field_packet.hpp", pick);
}

// One lane's plotted history, read once a frame; the tops are shared across lanes (the same
// quantity on the same scale in every lane, so a taller line is a larger number).
struct LanePlots {
    std::vector<PlotSeries> bw{{"all", {}, IM_COL32(120, 200, 255, 255)}, {"field", {}, IM_COL32(200, 140, 255, 255)}};
    std::vector<PlotSeries> err{{"median", {}, IM_COL32(250, 210, 120, 255)}, {"p90", {}, IM_COL32(240, 120, 80, 255)}};
};
struct LaneScales {
    float kib = 0.0f;
    float px = 0.0f;
};

void draw_lane_readouts(const ViewContext& v, const BlackholeSim::Lane& lane) {
    auto m = [&](const char* meter) { return meter_value(v.meters, (lane.name + "." + meter).c_str()); };
    if (begin_readouts("readouts")) {
        readout("sent", "bytes per second to this client now (and over the session)",
                format("%s KiB/s (session %s)", plain_number(m("kib_s")).c_str(),
                       plain_number(m("kib_s_lifetime")).c_str()),
                format("%s KiB/s", plain_number(m("kib_s")).c_str()));
        readout("field", "the holes' share of those bytes",
                format("%s KiB/s (%.0f%%)", plain_number(m("field_kib_s")).c_str(), m("field_share_pct")),
                format("%s KiB/s", plain_number(m("field_kib_s")).c_str()));
        // Numbers as the verdicts print them (plain_number): a verdict's figure is the one shown.
        const std::string median = plain_number(m("error_median_px"));
        readout("pellet error", "median, 90th percentile and worst distance of this client's pellets from the server's",
                format("%s px (p90 %s, worst %s)", median.c_str(), plain_number(m("error_p90_px")).c_str(),
                       plain_number(m("error_worst_px")).c_str()),
                format("%s px", median.c_str()));
        const std::string attractors = plain_number(m("attractors"));
        readout("attractors", "holes or stand-ins this client integrates, and force evaluations per second",
                format("%s (%.2f M evals/s)", attractors.c_str(), m("force_evals_m_s")), attractors);
        // The holes' weight, in the presets' words; the pull and the field's error beside it
        // when there is room. A stand-in at the centre of mass of far holes can pull harder
        // than they do (the pull falls off with distance squared): over 100% reads "over".
        const std::string weight = plain_number(m("weight_pct")) + "%";
        const double pull = m("pull_pct");
        const std::string pull_text =
            pull > 100.5 ? format("pull %.0f%% over", pull - 100.0) : format("pull %.0f%%", std::min(pull, 100.0));
        readout("weight kept",
                "the share of the holes' weight the client's field accounts for; its share of the real pull (a "
                "stand-in can pull harder than the holes it stands for: then it reads 'over'); the field's error",
                format("%s (%s, error %.1f%%)", weight.c_str(), pull_text.c_str(), m("field_error_pct")), weight);
        end_readouts();
    }
}

void draw_lane_plots(const ViewContext& v, const BlackholeSim::Lane& lane, const LanePlots& p, const LaneScales& top,
                     float plot_h, int plots) {
    const float plot_w = ImGui::GetContentRegionAvail().x;
    if (plots > 1)
        draw_plot((lane.name + "bw").c_str(), p.bw, ImVec2(plot_w, plot_h), history_axes(v, "sent, KiB/s", top.kib));
    draw_plot((lane.name + "err").c_str(), p.err, ImVec2(plot_w, plot_h), history_axes(v, "pellet error, px", top.px));
}

LaneScales read_lane_plots(const ViewContext& v, const std::vector<BlackholeSim::Lane>& lanes,
                           std::vector<LanePlots>& plots) {
    plots.resize(lanes.size());
    LaneScales s;
    for (std::size_t i = 0; i < lanes.size(); ++i) {
        const std::string& name = lanes[i].name;
        LanePlots& p = plots[i];
        v.history.values(name + ".kib_s", p.bw[0].values);
        v.history.values(name + ".field_kib_s", p.bw[1].values);
        v.history.values(name + ".error_median_px", p.err[0].values);
        v.history.values(name + ".error_p90_px", p.err[1].values);
        s.kib = std::max(s.kib, series_top(p.bw));
        s.px = std::max(s.px, series_top(p.err));
    }
    return s;
}

// The lane's title, or its short form when the lane is too narrow for it.
const char* lane_title(LaneKind kind, float width) {
    const char* full = "";
    const char* brief = "";
    switch (kind) {
        case LaneKind::Full:
            full = brief = "the full field";
            break;
        case LaneKind::Culled:
            full = "culled by view distance (the mistake)";
            brief = "culled (the mistake)";
            break;
        case LaneKind::Aggregated:
            full = "aggregated (AggregateTree)";
            brief = "aggregated";
            break;
    }
    return ImGui::CalcTextSize(full).x <= width ? full : brief;
}

}  // namespace

void draw_view(ViewContext& v, BlackholeSim& sim) {
    steer_from_keys(v, sim);

    if (begin_sidebar(v)) {
        ImGui::TextWrapped(
            "Send the field, not the particles. Every client integrates the pellets itself from the holes it was "
            "sent. Culling distant holes drops an input of that physics; aggregation keeps their pull as a few "
            "stand-ins (blue rings, labelled with their weight). Purple: the holes a client holds; grey: the true "
            "holes; faint dots: the server's pellets; green: your hole and its view.");
        ImGui::TextWrapped("Steer hole 0 with WASD or the arrows (turns the autopilot off).");
        ImGui::Separator();
        draw_params(v.host);
        ImGui::Separator();
        ImGui::TextWrapped("holes alive %.0f, your mass %.0f, swallowed %.0f", meter_value(v.meters, "holes_alive"),
                           meter_value(v.meters, "player_mass"), meter_value(v.meters, "swallowed"));
        end_sidebar();
    }

    ImGui::BeginChild("lanes", ImVec2(0, 0), false);
    const std::vector<BlackholeSim::Lane>& lanes = sim.lanes();
    // A phone shows one lane, chosen by name, across the width.
    std::vector<std::string> names;
    for (const BlackholeSim::Lane& lane : lanes) names.push_back(lane.name);
    const int only = lane_picker("blackhole lanes", names);
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    const float shown = only >= 0 ? 1.0f : static_cast<float>(lanes.size());
    const float col_w = (ImGui::GetContentRegionAvail().x - spacing * (shown - 1.0f)) / shown;
    // Font units: the title, the packet strip, the readouts and the two plots fit under the
    // world. When the height is short (a projector at 1.5x) the plots shrink to 4.5 em, then
    // the bandwidth plot goes (its number stays in the readouts), and the world keeps at least
    // 28% of the height.
    const float row_h = ImGui::GetTextLineHeightWithSpacing();
    const float gap = ImGui::GetStyle().ItemSpacing.y;
    const float avail_y = ImGui::GetContentRegionAvail().y;
    const float fixed = row_h * (kReadoutRows + 1) + em(1.4f) + 4.0f * gap;
    const float world_min = std::max(em(6.0f), avail_y * 0.28f);
    const int plots = avail_y - fixed - 2.0f * (em(4.5f) + gap) >= std::min(col_w, world_min) ? 2 : 1;
    // A lone plot in a narrow lane puts its legend on a second line: an em more for it.
    const float plot_min = plots == 1 ? em(5.5f) : em(4.5f);
    const float plots_h = static_cast<float>(plots) * (plot_min + gap);
    const float side = std::max(em(6.0f), std::min(col_w, std::max(world_min, avail_y - fixed - plots_h)));
    const float plot_h = std::clamp((avail_y - fixed - side) / static_cast<float>(plots) - gap, plot_min, em(6.0f));
    static std::vector<LanePlots> lane_plots;  // the series' buffers, reused frame to frame
    const LaneScales scales = read_lane_plots(v, lanes, lane_plots);
    for (std::size_t i = 0; i < lanes.size(); ++i) {
        if (only >= 0 && static_cast<int>(i) != only) continue;
        if (i > 0 && only < 0) ImGui::SameLine();
        ImGui::BeginChild(lanes[i].name.c_str(), ImVec2(col_w, 0), false);
        ImGui::TextUnformatted(lane_title(lanes[i].kind, col_w));
        draw_lane_world(sim, lanes[i], side);
        draw_lane_packets(sim, lanes[i], static_cast<int>(i), ImGui::GetContentRegionAvail().x);
        // The inspector takes the readouts' and plots' place while a packet of this lane is picked.
        if (picked().lane == static_cast<int>(i)) {
            draw_lane_inspector(lanes[i], sim.pellet_positions().size());
        } else {
            draw_lane_readouts(v, lanes[i]);
            draw_lane_plots(v, lanes[i], lane_plots[i], scales, plot_h, plots);
        }
        ImGui::EndChild();
        layout_mark("lane");
    }
    ImGui::EndChild();
}

RoomWords room_words(const BlackholeRemote&) {
    return {.title = "Black-hole room",
            .intro =
                "You are a client of a black-hole room: this page integrates its own pellets with the field "
                "the server sends it, over a real socket. Arrow keys, WASD or a drag on the view steer your hole.",
            .held = "pellets",
            .error = "pellet error (median)",
            .error_short = "pellet error",
            .plot_meter = "room.err_mean_px",
            .plot_label = "pellet error",
            .plot_unit = "px"};
}

// A client of a black-hole room: only what this client holds (no ghost: the truth is on the
// server), around its own hole as its last packet placed it, with the players' names beside
// their holes.
WorldView draw_room_world(const BlackholeRemote& remote, float side) {
    const BlackholeClientHalf* client = remote.client();
    const float view_radius = remote.view_radius();
    const Vec2 eye = remote.me().value_or(Vec2{kArenaSize * 0.5f, kArenaSize * 0.5f});
    const float half = view_radius * 2.0f;
    const WorldView w = begin_world_view("room_camera", ImVec2(side, side), eye, half);
    w.dl->AddRectFilled(w.origin, ImVec2(w.origin.x + w.size.x, w.origin.y + w.size.y), IM_COL32(18, 20, 26, 255));
    draw_arena(w);
    if (client) {
        draw_held(w, *client, eye, half);
        for (std::size_t i = 0; i < client->attractors().size(); ++i) {
            for (const RosterEntry& e : remote.roster()) {
                if (client->hole_ids()[i] != e.seat) continue;
                const ImU32 c = e.seat == remote.seat() ? kYou : IM_COL32(90, 200, 255, 255);
                w.text(client->attractors()[i].position() + Vec2{14.0f, -24.0f}, c, e.name.c_str());
            }
        }
    }
    if (remote.me()) w.circle(eye, view_radius, kView, 1.0f);
    end_world_view(w);
    return w;
}

}  // namespace vantage::play
