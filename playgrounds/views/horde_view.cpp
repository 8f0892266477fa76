// Horde playground view: the lanes side by side, each a camera on your player (player 0)
// showing what that lane's client holds, with the server's truth as a faint ghost, phantoms
// in red, and a minimap of the arena with the crowd summaries as blobs. Meters and history
// plots underneath. Arrow keys steer your player while held; released, the bot drives.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "app/room_session.hpp"
#include "app/ui.hpp"
#include "app/views.hpp"
#include "common/preset.hpp"
#include "horde/horde_sim.hpp"

namespace vantage::play {

namespace {

constexpr ImU32 kGhost = IM_COL32(150, 150, 170, 70);
constexpr ImU32 kHeld = IM_COL32(240, 200, 90, 255);
constexpr ImU32 kPhantom = IM_COL32(255, 60, 60, 255);
constexpr ImU32 kPlayer = IM_COL32(90, 200, 255, 255);
constexpr ImU32 kYou = IM_COL32(120, 255, 140, 255);
constexpr ImU32 kView = IM_COL32(120, 255, 140, 90);
constexpr ImU32 kNova = IM_COL32(200, 140, 255, 200);
constexpr ImU32 kBlob = IM_COL32(255, 150, 60, 90);
constexpr ImU32 kLaneColors[] = {IM_COL32(240, 110, 90, 255), IM_COL32(90, 200, 120, 255), IM_COL32(110, 160, 255, 255),
                                 IM_COL32(220, 200, 90, 255)};

// Thousands of entities per lane: drawn as small squares (4 vertices each, against ~17 for an
// anti-aliased disc) so a lane's draw list stays well inside ImGui's 16-bit index range.
void mark(const WorldView& view, Vec2 p, float half_px, ImU32 color) {
    const ImVec2 c = view.to_screen(p);
    view.dl->AddRectFilled(ImVec2(c.x - half_px, c.y - half_px), ImVec2(c.x + half_px, c.y + half_px), color);
}

void steer_from_keys(HordeSim& sim) {
    sim.steer(held_keys_direction());
}

void draw_camera(const HordeSim& sim, const HordeLane& lane, ImVec2 size) {
    const HordeWorld& w = sim.world();
    const HordeClientHalf& client = lane.seat(0).client;
    const Vec2 eye = w.player_positions()[0];
    const float radius = static_cast<float>(sim.settings().view_radius);
    const std::string id = "camera_" + lane.config().name;
    const WorldView view = begin_world_view(id.c_str(), size, eye, radius * 1.1f);
    view.dl->AddRectFilled(view.origin, ImVec2(view.origin.x + view.size.x, view.origin.y + view.size.y),
                           IM_COL32(18, 20, 26, 255));
    view.circle(eye, radius, kView, 1.5f);
    // The ghost: the server's truth around the camera.
    w.grid().for_each_in_radius(eye, radius * 1.6f, [&](std::uint32_t, Vec2 p) { mark(view, p, 1.2f, kGhost); });
    for (const Player& p : w.players()) {
        if (p.nova_at >= 0 && w.time_s() - p.nova_at < horde::kNovaRing) {
            const float t = static_cast<float>((w.time_s() - p.nova_at) / horde::kNovaRing);
            view.circle(p.position, horde::kNovaRadius * (0.3f + 0.7f * t), kNova, 2.0f);
        }
    }
    for (const Shot& s : w.shots()) mark(view, s.position, 1.0f, IM_COL32(255, 255, 255, 200));
    // What this client holds, as it draws it.
    // A line joins a held enemy to the truth when they disagree by more than a few units.
    client.mirror().for_each([&](SlotKey key, const HeldEnemy& h) {
        if (h.awaiting) return;  // no position yet
        if (w.alive(key.encode())) {
            const Vec2 truth = w.position_at(key.index);
            if ((truth - h.position).length_squared() > 9.0f) view.line(h.position, truth, kGhost);
            mark(view, h.position, 2.0f, kHeld);
        } else {
            mark(view, h.position, 3.0f, kPhantom);
        }
    });
    for (std::size_t i = 0; i < client.players().size(); ++i)
        view.circle(client.players()[i], 10.0f, i == 0 ? kYou : kPlayer, 2.0f);
    end_world_view(view);
}

void draw_minimap(const HordeSim& sim, const HordeLane& lane, float side) {
    const HordeWorld& w = sim.world();
    const HordeClientHalf& client = lane.seat(0).client;
    const std::string id = "minimap_" + lane.config().name;
    const float half = horde::kArena * 0.5f;
    const WorldView view = begin_world_view(id.c_str(), ImVec2(side, side), Vec2{half, half}, half);
    view.dl->AddRectFilled(view.origin, ImVec2(view.origin.x + view.size.x, view.origin.y + view.size.y),
                           IM_COL32(14, 16, 20, 255));
    const std::span<const Vec2> truth = w.alive_positions();
    for (std::size_t i = 0; i < truth.size(); i += 2) mark(view, truth[i], 0.6f, kGhost);
    for (const CrowdBlob& b : client.crowd()) {
        view.disc(b.position, std::min(300.0f, 8.0f * std::sqrt(static_cast<float>(b.count))), kBlob);
    }
    client.mirror().for_each([&](SlotKey key, const HeldEnemy& h) {
        if (h.awaiting) return;  // no position yet
        const bool alive = w.alive(key.encode());
        mark(view, h.position, alive ? 0.8f : 1.4f, alive ? kHeld : kPhantom);
    });
    for (std::size_t i = 0; i < w.player_positions().size(); ++i) {
        const Vec2 p = w.player_positions()[i];
        view.circle(p, static_cast<float>(sim.settings().view_radius), i == 0 ? kView : IM_COL32(90, 200, 255, 60));
        view.dot(p, 2.5f, i == 0 ? kYou : kPlayer);
    }
    end_world_view(view);
}

// One row per line: a short name and its numbers, never wrapped mid-number (a narrow lane
// clips the row instead); a tooltip on each name says what it measures.
constexpr int kReadoutRows = 7;

void lane_readouts(const std::vector<Meter>& m, const HordeLane& lane) {
    const std::string p = lane.config().name + ".";
    auto get = [&](const char* key) { return meter_value(m, (p + key).c_str()); };
    const ImVec4 normal(0.85f, 0.85f, 0.85f, 1.0f);
    const ImVec4 alarm(1.0f, 0.4f, 0.4f, 1.0f);
    if (!begin_readouts("readouts")) return;
    // Numbers as the verdicts print them (plain_number), so a verdict's figure is the one shown.
    const std::string held = plain_number(get("knows"));
    readout("held", "enemies this lane's client holds, of all alive on the server",
            format("%s of %s", held.c_str(), plain_number(meter_value(m, "alive")).c_str()), held);
    const std::string kib = plain_number(get("kib_s"));
    readout("sent", "bytes per second to this client now (and over the session)",
            format("%s KiB/s (session %s)", kib.c_str(), plain_number(get("lifetime_kib_s")).c_str()),
            format("%s KiB/s", kib.c_str()));
    readout(
        "per frame", "entities in a frame: entered and left",
        format("%.0f: +%.1f -%.1f", get("entities_per_packet"), get("spawns_per_packet"), get("despawns_per_packet")),
        format("%.0f", get("entities_per_packet")));
    const double mismatches = get("mismatches");
    readout("mismatches", "frames whose set digest disagreed with the server's, and frames lost",
            format("%.0f (lost %.0f)", mismatches, get("frames_lost")), format("%.0f", mismatches),
            mismatches > 0 ? alarm : normal);
    const double phantoms = get("phantoms");
    readout("phantoms", "enemies the client draws that the server no longer has (red), and ones it misses",
            format("%s (missing %s)", plain_number(phantoms).c_str(), plain_number(get("missing")).c_str()),
            plain_number(phantoms), phantoms > 10 ? alarm : normal);
    readout("error", "mean and worst distance between a held enemy and the truth",
            format("%.1f px (worst %.0f)", get("err_mean_px"), get("err_worst_px")),
            format("%.1f px", get("err_mean_px")));
    if (!std::isnan(get("summaries"))) {
        readout("crowd", "summaries of the world outside the view, the share of it they cover, their bytes",
                format("%s blobs, %s%%, %s KiB/s", plain_number(get("summaries")).c_str(),
                       plain_number(get("coverage_pct")).c_str(), plain_number(get("crowd_kib_s")).c_str()),
                format("%s (%s%%)", plain_number(get("summaries")).c_str(), plain_number(get("coverage_pct")).c_str()));
    } else {
        readout("resyncs",
                "full baselines sent after the join: nothing the client acknowledged was left to diff against",
                format("%.0f", get("resyncs")), format("%.0f", get("resyncs")));
    }
    end_readouts();
}

// One plot of a quantity across the lanes, on the samples' time axis.
void lane_plot(ViewContext& v, const HordeSim& sim, const char* id, const char* meter, const char* unit, ImVec2 size) {
    std::vector<PlotSeries> series;
    for (std::size_t i = 0; i < sim.lane_count(); ++i) {
        const HordeLane& lane = sim.lane(i);
        series.push_back({lane.config().name.c_str(), {}, kLaneColors[i % 4]});
        v.history.values(lane.config().name + "." + meter, series.back().values);
    }
    draw_plot(id, series, size, history_axes(v, unit));
}

}  // namespace

void draw_view(ViewContext& v, HordeSim& sim) {
    steer_from_keys(sim);

    if (begin_sidebar(v)) {
        ImGui::TextWrapped(
            "Thousands of enemies, a few clients, one lossy link each. Every lane serves the same world "
            "under the same losses; only the strategy differs. Arrow keys steer your player.");
        ImGui::Separator();
        draw_params(v.host);
        ImGui::Separator();
        ImGui::Text("alive %.0f, killed %.0f", meter_value(v.meters, "alive"), meter_value(v.meters, "killed"));
        ImGui::Text("last nova killed %.0f (most %.0f)", meter_value(v.meters, "last_pulse_kills"),
                    meter_value(v.meters, "biggest_pulse_kills"));
        ImGui::Separator();
        draw_meter_table(v.host.current(), v.meters);
        end_sidebar();
    }

    ImGui::BeginChild("lanes", ImVec2(0, 0), false);
    // A phone shows one lane, chosen by name, across the width.
    std::vector<std::string> names;
    for (std::size_t i = 0; i < sim.lane_count(); ++i) names.push_back(sim.lane(i).config().name);
    const int only = lane_picker("horde lanes", names);
    // The world's numbers, the same for every lane: what is alive and what the view culls.
    layout_keys_clear();
    const std::string world = format("%s alive on the server; each client's view culls %s%% of them",
                                     plain_number(meter_value(v.meters, "alive")).c_str(),
                                     plain_number(meter_value(v.meters, "culled_pct")).c_str());
    ImGui::BeginGroup();
    wrap_at_spaces(world);
    ImGui::EndGroup();
    layout_text("world", world);
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const std::size_t lanes = only >= 0 ? 1 : sim.lane_count();
    const float gap = ImGui::GetStyle().ItemSpacing.x;
    const float column = (avail.x - gap * static_cast<float>(lanes - 1)) / static_cast<float>(lanes);
    // Heights in font units: each lane shows its title and every readout, the plots at least
    // 6 em; the camera takes what is left (square, at most the column, at least 6 em). When
    // the window is too small for that, this area scrolls: nothing is drawn over a readout.
    const float row_h = ImGui::GetTextLineHeightWithSpacing();
    const float spacing_y = ImGui::GetStyle().ItemSpacing.y;
    const float plots_h = std::max(em(6.0f), avail.y * 0.22f);
    const float text_h = row_h * (kReadoutRows + 1) + spacing_y * 3;
    // The readouts come before the plots: when the camera, the readouts and the plots do not
    // all fit (a projector at 1.5x under a preset's story), the plots move below the fold.
    const float room = avail.y - spacing_y - text_h;
    const float camera = std::max(em(4.0f), std::min(column, std::max(room - plots_h, std::min(em(6.0f), room))));
    const float lane_h = camera + text_h;
    for (std::size_t i = 0; i < sim.lane_count(); ++i) {
        if (only >= 0 && static_cast<int>(i) != only) continue;
        const HordeLane& lane = sim.lane(i);
        if (i > 0 && only < 0) ImGui::SameLine();
        // One child window per lane: each has its own draw list.
        ImGui::PushID(static_cast<int>(i));
        ImGui::BeginChild("lane", ImVec2(column, lane_h), false, ImGuiWindowFlags_NoScrollbar);
        const float theta =
            lane.config().follows_theta ? static_cast<float>(sim.settings().theta) : lane.config().theta;
        // The lane's title, or its short form ("crowd: acked + crowd") when the column is narrow.
        const char* recovery = lane.config().recovery ? "acked" : "naive";
        std::string title =
            format("%s: %s recovery%s", lane.config().name.c_str(), recovery, theta > 0 ? ", crowd summaries" : "");
        if (ImGui::CalcTextSize(title.c_str()).x > column)
            title = format("%s: %s%s", lane.config().name.c_str(), recovery, theta > 0 ? " + crowd" : "");
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kLaneColors[i % 4]), "%s", title.c_str());
        const ImVec2 camera_at = ImGui::GetCursorScreenPos();
        draw_camera(sim, lane, ImVec2(column, camera));
        // The minimap is an inset in the camera's top-right corner.
        const ImVec2 below = ImGui::GetCursorScreenPos();
        const float inset = std::floor(camera * 0.32f);
        ImGui::SetCursorScreenPos(ImVec2(camera_at.x + column - inset - 4.0f, camera_at.y + 4.0f));
        draw_minimap(sim, lane, inset);
        ImGui::SetCursorScreenPos(below);
        lane_readouts(v.meters, lane);
        ImGui::EndChild();
        layout_mark("horde.lane");
        layout_mark("lane");
        ImGui::PopID();
    }
    // Three plots side by side, or one under another on a phone (the area scrolls).
    const ImVec2 rest = ImGui::GetContentRegionAvail();
    const bool stacked = only >= 0;
    const float plot_w = stacked ? rest.x : (rest.x - 2 * gap) / 3.0f;
    const ImVec2 plot(plot_w, stacked ? em(8.0f) : std::max(plots_h - spacing_y, rest.y - 4));
    lane_plot(v, sim, "kib", "kib_s", "sent, KiB/s", plot);
    if (!stacked) ImGui::SameLine();
    lane_plot(v, sim, "phantoms", "phantoms", "phantoms", plot);
    if (!stacked) ImGui::SameLine();
    lane_plot(v, sim, "error", "err_mean_px", "mean error, px", plot);
    ImGui::EndChild();
}

RoomWords room_words(const HordeRemote&) {
    return {.title = "Horde room",
            .intro =
                "You are a client of a horde room: this page knows only what the server sends it, over a real "
                "socket. Arrow keys, WASD or a drag on the view steer your player.",
            .held = "enemies",
            .error = "render error (mean)",
            .error_short = "error",
            .plot_meter = "room.phantoms",
            .plot_label = "phantoms",
            .plot_unit = "phantoms"};
}

// A client of a horde room: only what this client was sent (no ghost: the truth is on the
// server). Names from the roster beside the players; held enemies as the client draws them;
// a minimap of what it holds and its crowd summaries in the corner.
WorldView draw_room_world(const HordeRemote& remote, float side) {
    const HordeClientHalf& client = remote.client();
    const std::vector<Vec2>& players = client.players();
    const std::size_t me = remote.seat();
    const Vec2 eye = me < players.size() ? players[me] : Vec2{horde::kArena * 0.5f, horde::kArena * 0.5f};
    const float radius = 420.0f;  // the camera's half extent; the room's view radius is in its settings
    const ImVec2 camera_at = ImGui::GetCursorScreenPos();
    const WorldView view = begin_world_view("room_camera", ImVec2(side, side), eye, radius * 1.1f);
    view.dl->AddRectFilled(view.origin, ImVec2(view.origin.x + view.size.x, view.origin.y + view.size.y),
                           IM_COL32(18, 20, 26, 255));
    client.mirror().for_each([&](SlotKey, const HeldEnemy& h) {
        if (!h.awaiting) mark(view, h.position, 2.0f, kHeld);
    });
    for (std::size_t i = 0; i < players.size(); ++i) {
        const bool occupied = std::any_of(remote.roster().begin(), remote.roster().end(),
                                          [&](const RosterEntry& e) { return e.seat == i; });
        view.circle(players[i], 10.0f, i == me ? kYou : occupied ? kPlayer : IM_COL32(120, 120, 140, 160), 2.0f);
        for (const RosterEntry& e : remote.roster()) {
            if (e.seat == i) view.text(players[i] + Vec2{12.0f, -22.0f}, i == me ? kYou : kPlayer, e.name.c_str());
        }
    }
    end_world_view(view);

    // The minimap: what this client holds, its crowd summaries, the players.
    const ImVec2 below = ImGui::GetCursorScreenPos();
    const float inset = std::floor(side * 0.3f);
    ImGui::SetCursorScreenPos(ImVec2(camera_at.x + side - inset - 4.0f, camera_at.y + 4.0f));
    const float half = horde::kArena * 0.5f;
    const WorldView map = begin_world_view("room_minimap", ImVec2(inset, inset), Vec2{half, half}, half);
    map.dl->AddRectFilled(map.origin, ImVec2(map.origin.x + map.size.x, map.origin.y + map.size.y),
                          IM_COL32(14, 16, 20, 230));
    for (const CrowdBlob& b : client.crowd()) {
        map.disc(b.position, std::min(300.0f, 8.0f * std::sqrt(static_cast<float>(b.count))), kBlob);
    }
    client.mirror().for_each([&](SlotKey, const HeldEnemy& h) {
        if (!h.awaiting) mark(map, h.position, 0.8f, kHeld);
    });
    for (std::size_t i = 0; i < players.size(); ++i) map.dot(players[i], 2.5f, i == me ? kYou : kPlayer);
    end_world_view(map);
    ImGui::SetCursorScreenPos(below);
    return view;
}

}  // namespace vantage::play
