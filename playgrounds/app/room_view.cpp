// A room's view, drawn instead of the tabs while the page is a client: the connection and the
// socket's meters in words on the left, the world this client holds (the game's own drawing)
// and plots of its socket meters on the right. Keys or a drag on the world steer; released,
// the server's script drives the player (autopilot) if chosen.
#include <algorithm>
#include <vector>

#include "app/room_session.hpp"
#include "app/ui.hpp"
#include "app/views.hpp"
#include "common/preset.hpp"

namespace vantage::play {
namespace {

bool remote_joined(RoomSession& session) {
    return session.remote().status() == RoomRemote::Status::Joined;
}

// How the room's simulated loss treats this seat's frames, when the room resends it on the
// WebSocket (websocket_retransmits): null when the room does not, so nothing is said.
const char* simulated_loss_words(const RoomRemote& remote) {
    if (!remote.websocket_retransmits()) return nullptr;
    return remote.transport() == SeatTransport::WebSocket
               ? "simulated loss, retransmitted as TCP would: frames come late and in order, none lost"
               : "simulated loss, dropped as datagrams are: a lost frame is gone";
}

void draw_sidebar(RoomSession& session, bool& autopilot_when_idle) {
    RoomRemote& remote = session.remote();
    const RoomWords& words = session.words();
    ImGui::TextWrapped("%s", words.intro);
    ImGui::Separator();
    const bool joined = remote.status() == RoomRemote::Status::Joined;
    const ImVec4 ok(0.45f, 0.9f, 0.55f, 1.0f), bad(1.0f, 0.5f, 0.4f, 1.0f);
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(joined ? ok : bad, "%s", session.status_text().c_str());
    // What the server refused last (a student's teach(): "only the teacher can ...").
    if (!remote.last_error().empty()) ImGui::TextColored(bad, "server: %s", remote.last_error().c_str());
    ImGui::PopTextWrapPos();
    ImGui::Checkbox("autopilot when idle", &autopilot_when_idle);
    bool truth = remote.truth();
    if (ImGui::Checkbox("truth sample (teaching overhead)", &truth)) remote.set_truth(truth);
    if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip(
            "Twice a second the client asks the server about what it holds, to measure its error "
            "against the truth. Its bytes are counted apart (truth KiB/s), not in the stream's.");
    }
    if (ImGui::Button("Leave room")) session.leave();
    ImGui::Separator();
    // A page that left or was removed shows no roster: the names it last heard are stale.
    const std::size_t players = joined ? remote.roster().size() : 0;
    ImGui::Text("players in the room: %zu", players);
    for (const RosterEntry& e : remote.roster()) {
        if (!joined) break;
        ImGui::TextColored(
            e.seat == remote.seat() ? ImVec4(0.47f, 1.0f, 0.55f, 1.0f) : ImVec4(0.35f, 0.78f, 1.0f, 1.0f), "  %u  %s%s",
            e.seat + 1, e.name.c_str(), e.seat == remote.seat() ? " (you)" : "");
        if (const std::string missing = missing_glyphs(e.name); !missing.empty()) {
            ImGui::SameLine();
            ImGui::TextDisabled("(this font cannot draw %s)", missing.c_str());
        }
    }
    ImGui::Separator();
    // Measured on this page's socket (and, for the error, against the truth sample).
    ImGui::PushTextWrapPos(0.0f);
    ImGui::Text("down %.1f KiB/s, up %.2f KiB/s", remote.down_kib_s(), remote.up_kib_s());
    ImGui::Text("frames %llu, lost %llu", static_cast<unsigned long long>(remote.frames()),
                static_cast<unsigned long long>(remote.frames_lost()));
    if (remote.rtt_ms()) ImGui::Text("round trip %.0f ms", *remote.rtt_ms());
    const std::string over = "frames over " + std::string(transport_name(remote.transport()));
    ImGui::TextUnformatted(over.c_str());
    if (!remote.transport_why().empty() && remote.transport_why() != over)  // the why, when it says more
        ImGui::TextColored(ImVec4(0.6f, 0.65f, 0.75f, 1.0f), "%s", remote.transport_why().c_str());
    if (const char* loss = simulated_loss_words(remote))
        ImGui::TextColored(ImVec4(0.6f, 0.65f, 0.75f, 1.0f), "%s", loss);
    if (remote.frame_age_p50_ms() && remote.frame_age_p99_ms())
        ImGui::Text("frame age %.0f ms (p99 %.0f ms), stalls %llu", *remote.frame_age_p50_ms(),
                    *remote.frame_age_p99_ms(), static_cast<unsigned long long>(remote.stalls()));
    ImGui::Text("holds %zu %s", remote.held(), words.held);
    if (remote.truth() && remote.err_mean_px()) {
        if (remote.phantoms()) ImGui::Text("phantoms %.1f", *remote.phantoms());
        ImGui::Text("%s %s px", words.error, plain_number(*remote.err_mean_px()).c_str());
        ImGui::TextColored(ImVec4(0.6f, 0.65f, 0.75f, 1.0f), "truth sample %.2f KiB/s, not in the stream's bytes",
                           remote.truth_kib_s());
    }
    ImGui::PopTextWrapPos();
}

// A phone's meters: this seat's numbers as a compact two-column list above its world.
void draw_compact_meters(RoomSession& session) {
    RoomRemote& remote = session.remote();
    const RoomWords& words = session.words();
    if (!begin_readouts("room_meters")) return;
    readout("down", "KiB per second this page receives", format("%.1f KiB/s", remote.down_kib_s()),
            format("%.0f KiB/s", remote.down_kib_s()));
    if (remote.rtt_ms())
        readout("round trip", "to the server and back", format("%.0f ms", *remote.rtt_ms()),
                format("%.0f", *remote.rtt_ms()));
    readout("frames lost", "state frames lost on the way here",
            format("%llu of %llu", static_cast<unsigned long long>(remote.frames_lost()),
                   static_cast<unsigned long long>(remote.frames())),
            format("%llu", static_cast<unsigned long long>(remote.frames_lost())));
    readout("transport", "what this seat's frames travel over", std::string(transport_name(remote.transport())),
            std::string(transport_name(remote.transport())));
    if (remote.frame_age_p99_ms())
        readout("frame age p99", "how old the newest frame held gets (99th percentile over 8 s)",
                format("%.0f ms", *remote.frame_age_p99_ms()), format("%.0f", *remote.frame_age_p99_ms()));
    readout("stalls", "times no newer frame came for three frame intervals",
            format("%llu", static_cast<unsigned long long>(remote.stalls())),
            format("%llu", static_cast<unsigned long long>(remote.stalls())));
    if (remote.truth() && remote.phantoms())
        readout("phantoms", "enemies this page still shows that the server has removed",
                format("%.0f", *remote.phantoms()), format("%.0f", *remote.phantoms()));
    if (remote.truth() && remote.err_mean_px())
        readout(words.error_short, words.error, format("%s px", plain_number(*remote.err_mean_px()).c_str()),
                format("%s px", plain_number(*remote.err_mean_px()).c_str()));
    end_readouts();
}

}  // namespace

void draw_room_view(ViewContext& v, RoomSession& session) {
    static bool autopilot_when_idle = true;
    if (begin_sidebar(v, "room_controls")) {
        draw_sidebar(session, autopilot_when_idle);
        end_sidebar();
    }
    const bool narrow = narrow_layout();

    ImGui::BeginChild("room_world", ImVec2(0, 0), false, narrow ? 0 : ImGuiWindowFlags_NoScrollbar);
    if (narrow) {
        ImGui::TextColored(remote_joined(session) ? ImVec4(0.45f, 0.9f, 0.55f, 1.0f) : ImVec4(1.0f, 0.5f, 0.4f, 1.0f),
                           "%s", session.status_text().c_str());
        if (!session.remote().last_error().empty()) {
            ImGui::PushTextWrapPos(0.0f);
            ImGui::TextColored(ImVec4(1.0f, 0.5f, 0.4f, 1.0f), "server: %s", session.remote().last_error().c_str());
            ImGui::PopTextWrapPos();
        }
        draw_compact_meters(session);
        layout_mark("room.meters");
    }
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float plots_h = std::max(em(6.0f), avail.y * 0.22f);
    const float side = narrow
                           ? std::max(em(6.0f), std::min(avail.x, avail.y * 0.7f))
                           : std::max(em(6.0f), std::min(avail.x, avail.y - plots_h - ImGui::GetStyle().ItemSpacing.y));
    const WorldView view = session.draw_world(side);
    // A drag on the world steers toward the pointer (touch screens send it as a mouse drag).
    Vec2 dir = held_keys_direction();
    const ImGuiIO& io = ImGui::GetIO();
    const bool over = io.MousePos.x >= view.origin.x && io.MousePos.y >= view.origin.y &&
                      io.MousePos.x < view.origin.x + view.size.x && io.MousePos.y < view.origin.y + view.size.y;
    if (over && io.MouseDown[0]) {
        const ImVec2 c(view.origin.x + view.size.x * 0.5f, view.origin.y + view.size.y * 0.5f);
        const Vec2 d{io.MousePos.x - c.x, io.MousePos.y - c.y};
        if (d.length_squared() > 64.0f) dir = d.normalize();
    }
    const bool steering = dir.length_squared() > 0.0f;
    session.set_input(dir, !steering && autopilot_when_idle);

    // Three plots side by side, or one under another on a phone (the area scrolls).
    const ImVec2 rest = ImGui::GetContentRegionAvail();
    const float gap = ImGui::GetStyle().ItemSpacing.x;
    const ImVec2 plot =
        narrow ? ImVec2(rest.x, em(7.0f)) : ImVec2((rest.x - 2 * gap) / 3.0f, std::max(em(4.0f), rest.y - 4));
    auto one = [&](const char* id, const char* meter, const char* label, const char* unit) {
        std::vector<PlotSeries> series{{label, {}, IM_COL32(90, 200, 120, 255)}};
        v.history.values(meter, series.back().values);
        PlotAxes axes;  // wall seconds on this page; no settings of its own to mark
        axes.unit = unit;
        v.history.times(v.history.capacity(), axes.times);
        draw_plot(id, series, plot, axes);
    };
    one("room_down", "room.down_kib_s", "down", "KiB/s");
    if (!narrow) ImGui::SameLine();
    one("room_rtt", "room.rtt_ms", "RTT", "ms");
    if (!narrow) ImGui::SameLine();
    one("room_game", session.words().plot_meter, session.words().plot_label, session.words().plot_unit);
    ImGui::EndChild();
}

}  // namespace vantage::play
