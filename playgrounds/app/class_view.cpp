// The teacher console: the room's join URL and QR code for the projector, a table of seats
// with each student's meters as its page measures them, impairment per seat or for
// everyone, the room's strategy, room presets, removing a seat, and a plot of phantoms and
// render error per seat over time. Every change is a command to the server, which alone
// changes the room; what the console shows is what the server then reports.
#include <algorithm>
#include <cmath>
#include <string>

#include "app/class_session.hpp"
#include "app/ui.hpp"

namespace vantage::play {

namespace {

constexpr ImU32 kSeatColors[] = {IM_COL32(240, 110, 90, 255),  IM_COL32(90, 200, 120, 255),
                                 IM_COL32(110, 160, 255, 255), IM_COL32(220, 200, 90, 255),
                                 IM_COL32(200, 120, 230, 255), IM_COL32(90, 210, 210, 255)};

void draw_qr(const std::vector<std::string>& rows, float side) {
    const ImVec2 at = ImGui::GetCursorScreenPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float n = static_cast<float>(rows.size()) + 4.0f;  // quiet zone of 2 modules each side
    const float m = std::floor(side / n);
    dl->AddRectFilled(at, ImVec2(at.x + m * n, at.y + m * n), IM_COL32(255, 255, 255, 255));
    for (std::size_t y = 0; y < rows.size(); ++y) {
        for (std::size_t x = 0; x < rows[y].size(); ++x) {
            if (rows[y][x] != '1') continue;
            const ImVec2 a(at.x + (static_cast<float>(x) + 2.0f) * m, at.y + (static_cast<float>(y) + 2.0f) * m);
            dl->AddRectFilled(a, ImVec2(a.x + m, a.y + m), IM_COL32(0, 0, 0, 255));
        }
    }
    ImGui::Dummy(ImVec2(m * n, m * n));
}

std::string reading(double v, const char* fmt) {
    if (v < 0) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, fmt, v);
    return buf;
}

}  // namespace

void draw_class_console(ViewContext& v, ClassSession& session, double wall_s, float ui_scale) {
    (void)v;
    ClassClient& client = session.client();
    const SeatTableMessage& table = client.table();
    const float em = ImGui::GetFontSize();
    static int target = 0;  // 0: everyone, else seat number
    static float loss = 0, latency = 30, jitter = 20;
    static bool recovery = true;
    static float theta = 1.5f, radius = 420;
    static std::uint64_t synced_tables = 0;
    if (synced_tables == 0 && client.tables() > 0) {  // start the controls from the room's values
        recovery = table.recovery;
        theta = static_cast<float>(table.theta);
        radius = static_cast<float>(table.view_radius);
        synced_tables = client.tables();
    }

    ImGui::BeginChild("class_left", ImVec2(22.0f * em, 0), true);
    ImGui::TextColored(
        client.status() == ClassClient::Status::Open ? ImVec4(0.45f, 0.9f, 0.55f, 1) : ImVec4(1, 0.5f, 0.4f, 1), "%s",
        session.status_text().c_str());
    if (!client.info().urls.empty()) {
        ImGui::TextUnformatted("Students open:");
        for (const std::string& u : client.info().urls) ImGui::TextColored(ImVec4(0.55f, 0.8f, 1, 1), "%s", u.c_str());
        if (!client.info().qr.empty()) draw_qr(client.info().qr, 18.0f * em);
    } else {
        ImGui::TextWrapped(
            "Students join at this page's address with #horde/join (serve with --lan for the classroom).");
    }
    ImGui::Separator();
    ImGui::TextUnformatted("Impairment");
    std::string label = target == 0 ? std::string("everyone") : "seat " + std::to_string(target);
    ImGui::SetNextItemWidth(10.0f * em);
    if (ImGui::BeginCombo("for", label.c_str())) {
        if (ImGui::Selectable("everyone", target == 0)) target = 0;
        for (const SeatRow& r : table.rows) {
            const std::string s = "seat " + std::to_string(r.seat + 1) + " " + r.name;
            if (ImGui::Selectable(s.c_str(), target == static_cast<int>(r.seat) + 1))
                target = static_cast<int>(r.seat) + 1;
        }
        ImGui::EndCombo();
    }
    ImGui::SliderFloat("loss %", &loss, 0, 40, "%.0f");
    ImGui::SliderFloat("latency ms", &latency, 0, 400, "%.0f");
    ImGui::SliderFloat("jitter ms", &jitter, 0, 150, "%.0f");
    if (ImGui::Button("Apply impairment")) {
        CommandMessage c;
        c.kind = CommandMessage::Kind::Impair;
        c.seat = target == 0 ? kAllSeats : static_cast<std::uint32_t>(target - 1);
        c.loss_pct = loss;
        c.latency_ms = latency;
        c.jitter_ms = jitter;
        session.command(wall_s, c);
    }
    ImGui::Separator();
    ImGui::TextUnformatted("The room's strategy");
    ImGui::Checkbox("acked recovery (off: naive)", &recovery);
    ImGui::SliderFloat("crowd theta", &theta, 0, 2, "%.2f");
    ImGui::SliderFloat("view radius", &radius, 100, 1500, "%.0f");
    if (ImGui::Button("Apply strategy")) {
        CommandMessage c;
        c.kind = CommandMessage::Kind::Strategy;
        c.recovery = recovery;
        c.theta = theta;
        c.view_radius = radius;
        session.command(wall_s, c);
    }
    if (!session.presets.empty()) {
        ImGui::Separator();
        ImGui::SetNextItemWidth(18.0f * em);
        if (ImGui::BeginCombo("##room_preset",
                              table.preset.empty() ? "run a preset for the room" : table.preset.c_str())) {
            for (const Preset& p : session.presets) {
                if (ImGui::Selectable(p.title.c_str(), p.name == table.preset)) {
                    CommandMessage c;
                    c.kind = CommandMessage::Kind::Preset;
                    c.text = p.name;
                    session.command(wall_s, c);
                }
                if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", p.look_for.c_str());
            }
            ImGui::EndCombo();
        }
    }
    if (!client.last_error().empty()) ImGui::TextColored(ImVec4(1, 0.5f, 0.4f, 1), "%s", client.last_error().c_str());
    ImGui::EndChild();
    ImGui::SameLine();

    ImGui::BeginChild("class_right", ImVec2(0, 0), false);
    ImGui::Text("%zu students; the room: %s recovery, theta %.2f, view radius %.0f%s%s", table.rows.size(),
                table.recovery ? "acked" : "naive", table.theta, table.view_radius,
                table.preset.empty() ? "" : ", preset ", table.preset.c_str());
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders | ImGuiTableFlags_SizingStretchProp;
    const float table_h =
        std::min(ImGui::GetContentRegionAvail().y * 0.55f, (2.0f + static_cast<float>(table.rows.size())) * em * 1.6f);
    if (ImGui::BeginTable("seats", 10, flags | ImGuiTableFlags_ScrollY, ImVec2(0, table_h))) {
        for (const char* h : {"seat", "name", "RTT ms", "down KiB/s", "frames lost", "phantoms", "error px", "loss %",
                              "latency ms", ""}) {
            ImGui::TableSetupColumn(h);
        }
        ImGui::TableSetupScrollFreeze(0, 1);
        ImGui::TableHeadersRow();
        for (const SeatRow& r : table.rows) {
            ImGui::TableNextRow();
            ImGui::PushID(static_cast<int>(r.seat));
            ImGui::TableNextColumn();
            ImGui::Text("%u", r.seat + 1);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(r.name.c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(reading(r.meters.rtt_ms, "%.0f").c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(reading(r.meters.down_kib_s, "%.1f").c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%llu", static_cast<unsigned long long>(r.meters.frames_lost));
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(reading(r.meters.phantoms, "%.1f").c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(reading(r.meters.err_mean_px, "%.1f").c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%.0f", r.loss_pct);
            ImGui::TableNextColumn();
            ImGui::Text("%.0f", r.latency_ms);
            ImGui::TableNextColumn();
            if (ImGui::SmallButton("remove")) {
                CommandMessage c;
                c.kind = CommandMessage::Kind::Kick;
                c.seat = r.seat;
                session.command(wall_s, c);
            }
            ImGui::PopID();
        }
        ImGui::EndTable();
    }
    // The room plot: every seat's phantoms and render error over time, on shared axes.
    const ImVec2 rest = ImGui::GetContentRegionAvail();
    const ImVec2 plot((rest.x - ImGui::GetStyle().ItemSpacing.x) * 0.5f, std::max(6.0f * em, rest.y - 4));
    std::vector<PlotSeries> phantoms, errors;
    std::size_t i = 0;
    for (const auto& [name, h] : client.history()) {
        const ImU32 c = kSeatColors[i++ % 6];
        phantoms.push_back({name.c_str(), h.phantoms, c});
        errors.push_back({name.c_str(), h.err_px, c});
    }
    PlotAxes axes;
    axes.unit = "phantoms, per seat";
    draw_plot("class_phantoms", phantoms, plot, axes);
    ImGui::SameLine();
    axes.unit = "render error, px";
    draw_plot("class_error", errors, plot, axes);
    (void)ui_scale;
    ImGui::EndChild();
}

}  // namespace vantage::play
