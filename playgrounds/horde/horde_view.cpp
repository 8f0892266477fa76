// Horde playground view: the lanes side by side, each a camera on your player (player 0)
// showing what that lane's client holds, with the server's truth as a faint ghost, phantoms
// in red, and a minimap of the arena with the crowd summaries as blobs. Meters and history
// plots underneath. Arrow keys steer your player while held; released, the bot drives.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "app/ui.hpp"
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

void steer_from_keys(HordeSim& sim) {
    Vec2 dir;
    if (!ImGui::GetIO().WantCaptureKeyboard) {
        if (ImGui::IsKeyDown(ImGui::GetKeyIndex(ImGuiKey_LeftArrow))) dir.x -= 1.0f;
        if (ImGui::IsKeyDown(ImGui::GetKeyIndex(ImGuiKey_RightArrow))) dir.x += 1.0f;
        if (ImGui::IsKeyDown(ImGui::GetKeyIndex(ImGuiKey_UpArrow))) dir.y -= 1.0f;
        if (ImGui::IsKeyDown(ImGui::GetKeyIndex(ImGuiKey_DownArrow))) dir.y += 1.0f;
    }
    sim.steer(dir);
}

void draw_camera(const HordeSim& sim, const HordeLane& lane, ImVec2 size) {
    const HordeWorld& w = sim.world();
    const HordeLane::Client& client = lane.client(0);
    const Vec2 eye = w.player_positions()[0];
    const float radius = static_cast<float>(sim.settings().view_radius);
    const std::string id = "camera_" + lane.config().name;
    const WorldView view = begin_world_view(id.c_str(), size, eye, radius * 1.1f);
    view.dl->AddRectFilled(view.origin, ImVec2(view.origin.x + view.size.x, view.origin.y + view.size.y),
                           IM_COL32(18, 20, 26, 255));
    view.circle(eye, radius, kView, 1.5f);
    // The ghost: the server's truth around the camera.
    w.grid().for_each_in_radius(eye, radius * 1.6f, [&](std::uint32_t, Vec2 p) { view.dot(p, 1.5f, kGhost); });
    for (const Player& p : w.players()) {
        if (p.nova_at >= 0 && w.time_s() - p.nova_at < horde::kNovaRing) {
            const float t = static_cast<float>((w.time_s() - p.nova_at) / horde::kNovaRing);
            view.circle(p.position, horde::kNovaRadius * (0.3f + 0.7f * t), kNova, 2.0f);
        }
    }
    for (const Shot& s : w.shots()) view.dot(s.position, 1.5f, IM_COL32(255, 255, 255, 200));
    // What this client holds, as it draws it.
    client.mirror.for_each([&](SlotKey key, const HeldEnemy& h) {
        if (w.alive(key.encode())) {
            view.dot(h.position, 2.2f, kHeld);
        } else {
            view.dot(h.position, 3.5f, kPhantom);
        }
    });
    for (std::size_t i = 0; i < client.players.size(); ++i) view.circle(client.players[i], 10.0f, i == 0 ? kYou : kPlayer, 2.0f);
    end_world_view(view);
}

void draw_minimap(const HordeSim& sim, const HordeLane& lane, float side) {
    const HordeWorld& w = sim.world();
    const HordeLane::Client& client = lane.client(0);
    const std::string id = "minimap_" + lane.config().name;
    const float half = horde::kArena * 0.5f;
    const WorldView view = begin_world_view(id.c_str(), ImVec2(side, side), Vec2{half, half}, half);
    view.dl->AddRectFilled(view.origin, ImVec2(view.origin.x + view.size.x, view.origin.y + view.size.y),
                           IM_COL32(14, 16, 20, 255));
    const std::span<const Vec2> truth = w.alive_positions();
    for (std::size_t i = 0; i < truth.size(); i += 2) view.dot(truth[i], 0.8f, kGhost);
    for (const CrowdBlob& b : client.crowd) {
        view.disc(b.position, std::min(400.0f, 12.0f * std::sqrt(static_cast<float>(b.count))), kBlob);
    }
    client.mirror.for_each([&](SlotKey key, const HeldEnemy& h) {
        view.dot(h.position, w.alive(key.encode()) ? 0.9f : 1.6f, w.alive(key.encode()) ? kHeld : kPhantom);
    });
    for (std::size_t i = 0; i < w.player_positions().size(); ++i) {
        const Vec2 p = w.player_positions()[i];
        view.circle(p, static_cast<float>(sim.settings().view_radius), i == 0 ? kView : IM_COL32(90, 200, 255, 60));
        view.dot(p, 2.5f, i == 0 ? kYou : kPlayer);
    }
    end_world_view(view);
}

void lane_readouts(const std::vector<Meter>& m, const HordeLane& lane) {
    const std::string p = lane.config().name + ".";
    auto get = [&](const char* key) { return meter_value(m, (p + key).c_str()); };
    const double alive = meter_value(m, "alive");
    ImGui::Text("knows %.0f of %.0f enemies (%.0f%% culled)", get("knows"), alive,
                alive > 0 ? 100.0 * (1.0 - get("knows") / alive) : 0.0);
    ImGui::Text("%.1f KiB/s (lifetime %.1f); uuid+f32 %.1f (%.0f%% saved)", get("kib_s"), get("lifetime_kib_s"),
                get("uuid_kib_s"), get("saved_pct"));
    ImGui::Text("per packet %.0f entities, %.1f spawns / %.1f despawns", get("entities_per_packet"),
                get("spawns_per_packet"), get("despawns_per_packet"));
    const double mismatches = get("mismatches");
    ImGui::TextColored(mismatches > 0 ? ImVec4(1, 0.4f, 0.4f, 1) : ImVec4(0.8f, 0.8f, 0.8f, 1),
                       "digest mismatches %.0f   frames lost %.0f", mismatches, get("frames_lost"));
    const double phantoms = get("phantoms");
    ImGui::TextColored(phantoms > 10 ? ImVec4(1, 0.4f, 0.4f, 1) : ImVec4(0.8f, 0.8f, 0.8f, 1),
                       "phantoms %.1f   missing %.1f   resyncs %.0f", phantoms, get("missing"), get("resyncs"));
    ImGui::Text("render error %.1f px mean, %.0f px worst", get("err_mean_px"), get("err_worst_px"));
    if (!std::isnan(get("summaries"))) {
        ImGui::Text("distant world: %.0f summaries cover %.0f%% for %.2f KiB/s", get("summaries"), get("coverage_pct"),
                    get("crowd_kib_s"));
    }
}

void lane_plot(ViewContext& v, const HordeSim& sim, const char* id, const char* meter, const char* unit, ImVec2 size) {
    std::vector<PlotSeries> series;
    for (std::size_t i = 0; i < sim.lane_count(); ++i) {
        const HordeLane& lane = sim.lane(i);
        series.push_back({lane.config().name.c_str(), {}, kLaneColors[i % 4]});
        v.history.values(lane.config().name + "." + meter, series.back().values);
    }
    draw_plot(id, series, size, unit);
}

}  // namespace

void draw_horde_view(ViewContext& v) {
    HordeSim& sim = static_cast<HordeSim&>(v.host.current());
    steer_from_keys(sim);

    ImGui::BeginChild("controls", ImVec2(330, 0), true);
    ImGui::TextWrapped(
        "Thousands of enemies, a few clients, one lossy link each. Every lane serves the same world "
        "under the same losses; only the strategy differs. Arrow keys steer your player.");
    ImGui::Separator();
    draw_params(v.host);
    ImGui::Separator();
    ImGui::Text("alive %.0f, killed %.0f", meter_value(v.meters, "alive"), meter_value(v.meters, "killed"));
    ImGui::Text("last pulse killed %.0f (biggest %.0f)", meter_value(v.meters, "last_pulse_kills"),
                meter_value(v.meters, "biggest_pulse_kills"));
    ImGui::Separator();
    draw_meter_table(v.meters);
    ImGui::EndChild();
    ImGui::SameLine();

    ImGui::BeginChild("lanes", ImVec2(0, 0), false);
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const std::size_t lanes = sim.lane_count();
    const float gap = ImGui::GetStyle().ItemSpacing.x;
    const float column = (avail.x - gap * static_cast<float>(lanes - 1)) / static_cast<float>(lanes);
    const float camera = std::max(120.0f, std::min(column, avail.y * 0.42f));
    for (std::size_t i = 0; i < lanes; ++i) {
        const HordeLane& lane = sim.lane(i);
        if (i > 0) ImGui::SameLine();
        ImGui::BeginGroup();
        ImGui::PushID(static_cast<int>(i));
        const float theta = lane.config().follows_theta ? static_cast<float>(sim.settings().theta) : lane.config().theta;
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kLaneColors[i % 4]), "%s: %s recovery%s", lane.config().name.c_str(),
                           lane.config().recovery ? "acked" : "naive", theta > 0 ? ", crowd summaries" : "");
        draw_camera(sim, lane, ImVec2(column, camera));
        draw_minimap(sim, lane, std::min(column * 0.45f, avail.y * 0.2f));
        ImGui::SameLine();
        ImGui::BeginGroup();
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + column * 0.55f - gap);
        lane_readouts(v.meters, lane);
        ImGui::PopTextWrapPos();
        ImGui::EndGroup();
        ImGui::PopID();
        ImGui::EndGroup();
    }
    const ImVec2 rest = ImGui::GetContentRegionAvail();
    const float plot_w = (rest.x - 2 * gap) / 3.0f;
    const ImVec2 plot(plot_w, std::max(80.0f, rest.y - 4));
    lane_plot(v, sim, "kib", "kib_s", "KiB/s", plot);
    ImGui::SameLine();
    lane_plot(v, sim, "phantoms", "phantoms", "phantoms", plot);
    ImGui::SameLine();
    lane_plot(v, sim, "error", "err_mean_px", "px", plot);
    ImGui::EndChild();
}

}  // namespace vantage::play
