// Netcode playground view: three lanes side by side (the server's truth, a client with every
// mechanism off, a client with the chosen ones), each with its readouts, history plots and a
// timeline strip of the packets on its link. Hold the left mouse button in a client lane to
// steer (autopilot off) and right-click to shoot from that lane.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>

#include "app/ui.hpp"
#include "app/views.hpp"
#include "common/preset.hpp"
#include "netcode/netcode_sim.hpp"
#include "netcode/netcode_wire.hpp"

namespace vantage::play {

namespace {

constexpr ImU32 kPlayerColor = IM_COL32(80, 150, 255, 255);
constexpr ImU32 kGhostColor = IM_COL32(235, 235, 235, 150);
constexpr ImU32 kBotColor = IM_COL32(255, 150, 60, 255);
constexpr ImU32 kBotTrueColor = IM_COL32(255, 150, 60, 110);
constexpr ImU32 kWallColor = IM_COL32(150, 150, 160, 255);
constexpr ImU32 kHitColor = IM_COL32(90, 230, 120, 255);
constexpr ImU32 kMissColor = IM_COL32(240, 80, 80, 255);
constexpr ImU32 kPendingColor = IM_COL32(230, 230, 230, 200);
constexpr ImU32 kTextColor = IM_COL32(210, 210, 210, 255);
constexpr double kFlashMs = 900.0;
constexpr double kStripMs = 1500.0;

ImU32 fade(ImU32 color, float alpha) {
    const auto a = static_cast<unsigned>(static_cast<float>((color >> IM_COL32_A_SHIFT) & 0xFF) * alpha);
    return (color & ~IM_COL32_A_MASK) | (static_cast<ImU32>(a) << IM_COL32_A_SHIFT);
}

Vec2 to_world(const WorldView& w, ImVec2 screen) {
    return {w.center.x + (screen.x - w.origin.x - w.size.x * 0.5f) / w.scale,
            w.center.y + (screen.y - w.origin.y - w.size.y * 0.5f) / w.scale};
}

void draw_arena(const WorldView& w, bool server_knows_wall) {
    const Vec2 corners[4] = {{0, 0}, {Arena::kWidth, 0}, {Arena::kWidth, Arena::kHeight}, {0, Arena::kHeight}};
    for (int i = 0; i < 4; ++i) w.line(corners[i], corners[(i + 1) % 4], IM_COL32(70, 76, 90, 255));
    const ImVec2 a = w.to_screen({Arena::kWallMinX, Arena::kWallMinY});
    const ImVec2 b = w.to_screen({Arena::kWallMaxX, Arena::kWallMaxY});
    if (server_knows_wall) {
        w.dl->AddRectFilled(a, b, kWallColor);
    } else {
        w.dl->AddRect(a, b, fade(kWallColor, 0.35f));  // drawn for you; this client's map lacks it
    }
}

std::string mechanism_list(const Mechanisms& m) {
    std::string s;
    auto add = [&](bool on, const char* name) {
        if (!on) return;
        if (!s.empty()) s += ", ";
        s += name;
    };
    add(m.prediction, "predict");
    add(m.reconciliation, "reconcile");
    add(m.smoothing, "smooth");
    add(m.interpolation, "interp");
    add(m.extrapolation, m.second_order ? "extrap(2nd)" : "extrap");
    add(m.adaptive, "adaptive");
    add(m.clock_sync, m.smooth_clock ? "clock(rate)" : "clock(snap)");
    add(m.lag_compensation, "lag comp");
    return s.empty() ? "everything off" : s;
}

void draw_truth(const NetcodeSim& sim, ImVec2 size) {
    const WorldView w =
        begin_world_view("truth", size, {Arena::kWidth * 0.5f, Arena::kHeight * 0.5f}, Arena::kHeight * 0.5f);
    draw_arena(w, true);
    w.circle(sim.ideal_player(), Arena::kPlayerRadius + 3.0f, fade(kGhostColor, 0.6f));
    w.disc(sim.server_player(), Arena::kPlayerRadius, kPlayerColor);
    for (std::size_t b = 0; b < Arena::kBots; ++b) w.disc(sim.true_bot(b), Arena::kBotRadius, kBotColor);
    // Where the server judged each recent shot of the "on" lane (the rewound target).
    const ClientLane& on = sim.lane(1);
    for (const ShotTrace& s : on.shots) {
        const double age = sim.local_ms() - s.judged_ms;
        if (!s.judged || age > kFlashMs) continue;
        const float alpha = 1.0f - static_cast<float>(age / kFlashMs);
        w.circle(s.rewound, Arena::kHitRadius, fade(s.hit_rewound ? kHitColor : kMissColor, alpha));
        w.line(s.aim - Vec2{5, 0}, s.aim + Vec2{5, 0}, fade(kPendingColor, alpha));
        w.line(s.aim - Vec2{0, 5}, s.aim + Vec2{0, 5}, fade(kPendingColor, alpha));
    }
    w.text({6, 4}, kTextColor, "server truth");
    end_world_view(w);
}

// Returns the steering the mouse asks for (left button held over this lane), or zero.
Vec2 draw_client(NetcodeSim& sim, std::size_t index, ImVec2 size) {
    const ClientLane& c = sim.lane(index);
    const WorldView w =
        begin_world_view(c.name, size, {Arena::kWidth * 0.5f, Arena::kHeight * 0.5f}, Arena::kHeight * 0.5f);
    // Steering and shooting through this lane (input goes to the simulation; it never reads the view).
    Vec2 steer{};
    if (ImGui::IsItemHovered()) {
        const Vec2 mouse = to_world(w, ImGui::GetIO().MousePos);
        if (ImGui::IsMouseDown(ImGuiMouseButton_Left)) steer = (mouse - c.drawn_player).normalize();
        if (ImGui::IsMouseClicked(ImGuiMouseButton_Right)) sim.request_shot(index, mouse);
    }
    draw_arena(w, false);
    if (c.drawn_valid) {
        for (std::size_t b = 0; b < Arena::kBots; ++b) {
            w.circle(sim.true_bot(b), Arena::kBotRadius, kBotTrueColor, 1.5f);
            w.disc(c.drawn_bots[b], Arena::kBotRadius, kBotColor);
        }
    }
    if (sim.settings().show_ghost) w.circle(c.authority, Arena::kPlayerRadius + 2.0f, kGhostColor, 1.5f);
    w.disc(c.drawn_player, Arena::kPlayerRadius, kPlayerColor);
    for (const ShotTrace& s : c.shots) {
        const double age = s.judged ? sim.local_ms() - s.judged_ms : 0.0;
        if (age > kFlashMs) continue;
        const float alpha = s.judged ? 1.0f - static_cast<float>(age / kFlashMs) : 0.8f;
        const ImU32 color = !s.judged ? kPendingColor : (s.hit ? kHitColor : kMissColor);
        w.line(s.from, s.aim, fade(color, alpha * 0.6f));
        w.circle(s.aim, 6.0f, fade(color, alpha), 2.0f);
        w.line(s.aim - Vec2{9, 0}, s.aim + Vec2{9, 0}, fade(color, alpha));
        w.line(s.aim - Vec2{0, 9}, s.aim + Vec2{0, 9}, fade(color, alpha));
    }
    // The mechanisms on one line over the world; a narrow lane (a projector) counts them
    // instead of wrapping the list over the players (the sidebar's boxes name them).
    const std::string list = mechanism_list(c.mech);
    std::string title = format("client %s: %s", c.name, list.c_str());
    if (ImGui::CalcTextSize(title.c_str()).x > w.size.x - 8.0f && list != "everything off") {
        const auto n = std::count(list.begin(), list.end(), ',') + 1;
        title = format("client %s: %d mechanisms on", c.name, static_cast<int>(n));
    }
    w.dl->AddText(ImGui::GetFont(), ImGui::GetFontSize(), ImVec2(w.origin.x + 4.0f, w.origin.y + 2.0f), kTextColor,
                  title.c_str(), nullptr, w.size.x - 8.0f);
    end_world_view(w);
    return steer;
}

PacketPick& picked() {
    static PacketPick p;
    return p;
}

// Packets of the last kStripMs: the uplink row above, the downlink row below, each packet a
// segment from sent to arrived (or to now while in flight), red when lost; an input packet
// turns green once the server's acknowledgement of it is back. The yellow band is the
// interpolation window: from the render time to the newest snapshot held. A click picks the
// packet nearest the pointer for the inspector (pause first: the strip scrolls).
void draw_timeline(const NetcodeSim& sim, const ClientLane& c, int lane, float width) {
    const PacketStrip strip = begin_packet_strip(width, em(3.4f), sim.local_ms(), kStripMs, true);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float down_y = strip.row_y(false);
    if (c.mech.interpolation && c.has_state) {
        const double render_local = c.render_ms - NetcodeSim::kServerClockOffsetMs;
        const double newest_local = c.newest_stamp_ms - NetcodeSim::kServerClockOffsetMs;
        const bool starved = render_local > newest_local;
        const float band = em(0.6f);
        dl->AddRectFilled(ImVec2(strip.x_of(std::min(render_local, newest_local)), down_y - band),
                          ImVec2(strip.x_of(std::max(render_local, newest_local)), down_y + band),
                          starved ? IM_COL32(200, 60, 60, 90) : IM_COL32(230, 200, 60, 70));
        dl->AddLine(ImVec2(strip.x_of(render_local), strip.origin.y),
                    ImVec2(strip.x_of(render_local), strip.origin.y + strip.height), IM_COL32(230, 200, 60, 255));
    }
    const std::uint32_t acked = c.entity.acked_seq();
    draw_packet_marks(strip, c.timeline.marks(), lane, picked(), [acked](const PacketMark& p) {
        if (!p.up) return p.ignored ? IM_COL32(120, 120, 120, 255) : kHitColor;
        return p.key <= acked ? kHitColor : IM_COL32(120, 180, 255, 255);
    });
}

// The picked packet, byte by byte, with its fate on the link and what its receiver made of it.
void draw_inspector(const ClientLane& c, int lane) {
    PacketPick& pick = picked();
    if (pick.lane != lane) return;
    const PacketMark* mark = c.timeline.find_sent_at(pick.up, pick.sent_ms);
    if (!mark) {
        ImGui::TextWrapped("The picked packet has left the timeline (it keeps the newest packets only).");
        if (ImGui::SmallButton("close")) pick = {};
        return;
    }
    std::vector<WireField> fields;
    InputPacket in;
    StatePacket st;
    const WireError e = mark->up ? decode_input(mark->bytes, in, &fields) : decode_state(mark->bytes, st, &fields);
    const char* fate =
        mark->up && !mark->lost && mark->arrived_ms >= 0.0
            ? (mark->key <= c.entity.acked_seq() ? "arrived and acknowledged" : "arrived, not yet acknowledged")
            : packet_fate(*mark);
    std::string story;
    if (mark->arrived_ms >= 0.0 && e == WireError::Ok) {
        const double ms = mark->arrived_ms - mark->sent_ms;
        if (mark->up && !in.inputs.empty())
            story = format("After %.0f ms on the link the server applied inputs #%u to #%zu it had not seen.", ms,
                           in.first_seq, in.first_seq + in.inputs.size() - 1);
        else if (!mark->up && mark->ignored)
            story = format(
                "After %.0f ms on the link it was older than the newest state held: only its bot "
                "snapshots joined the interpolation buffer.",
                ms);
        else if (!mark->up && !c.mech.prediction)
            story = format("After %.0f ms on the link the client drew its player where this packet put it.", ms);
        else if (!mark->up && c.mech.reconciliation)
            story = format(
                "After %.0f ms on the link the client took its player from it, dropped inputs up to #%u "
                "and replayed the newer ones on top.",
                ms, st.acked_seq);
        else if (!mark->up)
            story = format(
                "After %.0f ms on the link the client kept its own prediction (reconciliation off) and "
                "drew the bots from it.",
                ms);
    }
    draw_packet_inspector(*mark, mark->up ? "input packet (up)" : "state packet (down)", fate, story, fields,
                          "playgrounds/netcode/README.md", pick);
}

// The lane's readouts as the shared name/value table; each name's tooltip is its meter's
// description from the playground's glossary.
void readouts(const ViewContext& v, const ClientLane& c, float width) {
    const std::string p = std::string(c.name) + ".";
    auto m = [&](const char* name) { return meter_value(v.meters, (p + name).c_str()); };
    auto help = [&](const char* name) {
        const MeterInfo* info = find_meter_info(v.host.current().glossary(), p + name);
        return info ? std::string(info->help) : std::string();
    };
    if (!begin_readouts("readouts", width)) return;
    readout("prediction error", help("prediction_error_px").c_str(),
            format("%s px (correction %s)", plain_number(m("prediction_error_px")).c_str(),
                   plain_number(m("correction_px")).c_str()),
            format("%s px", plain_number(m("prediction_error_px")).c_str()));
    // The rows the presets quote come first, so a projector's short lanes still show them.
    readout("stutter", help("remote_stutter_px").c_str(),
            format("%s px a frame", plain_number(m("remote_stutter_px")).c_str()),
            format("%s px", plain_number(m("remote_stutter_px")).c_str()));
    readout("shots", help("shots").c_str(),
            format("%.0f: %.0f hit rewound, %.0f present", m("shots"), m("hits_lag_comp"), m("hits_present")),
            format("%.0f/%.0f/%.0f", m("shots"), m("hits_lag_comp"), m("hits_present")));
    readout("render error", help("render_error_px").c_str(), format("%.1f px", m("render_error_px")),
            format("%.1f px", m("render_error_px")));
    readout("awaiting ack", help("inputs_awaiting_ack").c_str(),
            format("%.0f inputs (#%.0f, acked #%.0f)", m("inputs_awaiting_ack"), m("input_seq"), m("acked_seq")),
            format("%.0f", m("inputs_awaiting_ack")));
    if (c.rtt_samples == 0 || c.server.rtt_samples == 0) {
        readout("round trip", help("rtt_client_ms").c_str(), "measuring...", "...");
    } else {
        readout("round trip", help("rtt_client_ms").c_str(),
                format("%.0f / %.0f ms (client / server)", m("rtt_client_ms"), m("rtt_server_ms")),
                format("%.0f ms", m("rtt_client_ms")));
    }
    readout("in flight", help("packets_in_flight").c_str(), format("%.0f packets", m("packets_in_flight")),
            format("%.0f", m("packets_in_flight")));
    readout("render delay", help("interp_delay_ms").c_str(),
            format("%.0f ms (jitter %.1f, clock %.3fx)", m("interp_delay_ms"), m("jitter_ms"), m("clock_rate")),
            format("%.0f ms", m("interp_delay_ms")));
    readout("bandwidth", help("up_bytes_s").c_str(),
            format("up %.2f, down %.2f KiB/s", m("up_bytes_s") / 1024.0, m("down_bytes_s") / 1024.0),
            format("%.2f KiB/s up", m("up_bytes_s") / 1024.0));
    end_readouts();
}

// The three plots under a client lane. Tops are shared by both client lanes (`tops`), so the
// same error is the same height in each; bandwidth in KiB/s like the readouts.
struct PlotTops {
    float player = 0.0f, remote = 0.0f, bandwidth = 0.0f;
};

struct LanePlots {
    std::vector<PlotSeries> player, remote, bandwidth;
};

LanePlots lane_plots(const ViewContext& v, const ClientLane& c) {
    const std::string p = std::string(c.name) + ".";
    LanePlots out;
    out.player = {{"prediction error", {}, kPlayerColor}};
    v.history.values(p + "prediction_error_px", out.player[0].values);
    out.remote = {{"render error", {}, kBotColor}, {"stutter x10", {}, IM_COL32(200, 120, 255, 255)}};
    v.history.values(p + "render_error_px", out.remote[0].values);
    v.history.values(p + "remote_stutter_px", out.remote[1].values);
    for (float& x : out.remote[1].values) x *= 10.0f;
    out.bandwidth = {{"up", {}, IM_COL32(120, 200, 255, 255)}, {"down", {}, IM_COL32(120, 230, 140, 255)}};
    v.history.values(p + "up_bytes_s", out.bandwidth[0].values);
    v.history.values(p + "down_bytes_s", out.bandwidth[1].values);
    for (PlotSeries& s : out.bandwidth) {
        for (float& x : s.values) x /= 1024.0f;
    }
    return out;
}

void plots(const ViewContext& v, const ClientLane& c, const LanePlots& l, float width, const PlotTops& tops) {
    const std::string p = std::string(c.name) + ".";
    const float h = em(5.0f);
    draw_plot((p + "player").c_str(), l.player, ImVec2(width, h), history_axes(v, "your player, px", tops.player));
    draw_plot((p + "remote").c_str(), l.remote, ImVec2(width, h), history_axes(v, "remotes, px", tops.remote));
    draw_plot((p + "bandwidth").c_str(), l.bandwidth, ImVec2(width, h), history_axes(v, "KiB/s", tops.bandwidth));
}

// Reads both lanes' plotted history once (into `lanes`) and their shared tops.
PlotTops plot_tops(const ViewContext& v, const NetcodeSim& sim, std::array<LanePlots, 2>& lanes) {
    PlotTops t;
    for (std::size_t i = 0; i < 2; ++i) {
        lanes[i] = lane_plots(v, sim.lane(i));
        const LanePlots& l = lanes[i];
        t.player = std::max(t.player, series_top(l.player));
        t.remote = std::max(t.remote, series_top(l.remote));
        t.bandwidth = std::max(t.bandwidth, series_top(l.bandwidth));
    }
    return t;
}

}  // namespace

void draw_view(ViewContext& v, NetcodeSim& sim) {
    Vec2 keys{};
    if (!sim.settings().autopilot) keys = held_keys_direction();
    if (begin_sidebar(v)) {
        ImGui::TextWrapped(
            "One server, a player and three bots over a slow, lossy link. The wall exists only on the "
            "server. Left lane: a client with everything off; right lane: the mechanisms you choose.");
        ImGui::Separator();
        draw_params(v.host);
        if (!sim.settings().autopilot)
            ImGui::TextWrapped("Steer: hold the left mouse button in a client lane, or the arrow keys.");
        ImGui::TextWrapped("Right-click a bot in a client lane to shoot from it.");
        ImGui::Separator();
        ImGui::TextColored(ImVec4(0.31f, 0.59f, 1.0f, 1.0f), "disc: player as drawn");
        ImGui::TextColored(ImVec4(0.92f, 0.92f, 0.92f, 0.8f), "ring: server-confirmed player (ghost)");
        ImGui::TextColored(ImVec4(1.0f, 0.59f, 0.24f, 1.0f), "orange disc / ring: remote drawn / true");
        ImGui::TextColored(ImVec4(0.35f, 0.9f, 0.47f, 1.0f), "green / red: hit / miss (this lane's rule)");
        end_sidebar();
    }

    ImGui::BeginChild("lanes", ImVec2(0, 0), false);
    // A phone shows one column (a client, or the server) across the width; the client with
    // the mechanisms on first.
    static const std::string kLaneNames[] = {"on", "off", "server"};
    const int picked_lane = lane_picker("netcode lanes", kLaneNames);
    const int only = picked_lane < 0 ? -1 : 2 - picked_lane;
    const float gap = ImGui::GetStyle().ItemSpacing.x;
    const float columns = only >= 0 ? 1.0f : 3.0f;
    const float width = std::max(em(6.0f), (ImGui::GetContentRegionAvail().x - (columns - 1.0f) * gap) / columns);
    std::array<LanePlots, 2> lane_series;
    const PlotTops tops = plot_tops(v, sim, lane_series);
    const ImVec2 world(width, width * Arena::kHeight / Arena::kWidth);
    Vec2 steer = keys.normalize();
    for (std::size_t col = 0; col < 3; ++col) {
        if (only >= 0 && static_cast<int>(col) != only) continue;
        if (col > 0 && only < 0) ImGui::SameLine();
        ImGui::BeginGroup();
        ImGui::PushID(static_cast<int>(col));
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
        if (col == 0) {
            draw_truth(sim, world);
            wrap_at_spaces(format("server tick %d Hz  ticks %llu", sim.settings().server_hz,
                                  static_cast<unsigned long long>(sim.server_ticks())),
                           width);
            ImGui::TextWrapped("link: %.0f ms +%.0f ms jitter, %.0f%% loss", sim.settings().latency_ms,
                               sim.settings().jitter_ms, sim.settings().loss_pct);
            ImGui::TextWrapped(
                "ring: the player as intended (every input applied at once). Circles: where the "
                "server judged the right lane's recent shots, rewound.");
        } else {
            const ClientLane& c = sim.lane(col - 1);
            const Vec2 mouse_steer = draw_client(sim, col - 1, world);
            if (mouse_steer.length() > 0.0f) steer = mouse_steer;
            draw_timeline(sim, c, static_cast<int>(col - 1), width);
            readouts(v, c, width);
            // A picked packet takes the plots' place until it is closed.
            if (picked().lane == static_cast<int>(col - 1))
                draw_inspector(c, static_cast<int>(col - 1));
            else
                plots(v, c, lane_series[col - 1], width, tops);
        }
        ImGui::PopTextWrapPos();
        ImGui::PopID();
        ImGui::EndGroup();
        layout_mark("lane");
    }
    ImGui::EndChild();
    // Nothing held: the player stands still (the autopilot ignores this).
    sim.set_user_direction(steer);
}

}  // namespace vantage::play
