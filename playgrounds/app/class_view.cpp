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

// A name cut to `max_chars` characters (UTF-8 aware) with "..." when longer: one long name
// must not widen every column of the seat table (the tooltip has the whole name).
std::string short_name(const std::string& name, std::size_t max_chars) {
    std::size_t chars = 0, i = 0;
    while (i < name.size()) {
        const auto c = static_cast<unsigned char>(name[i]);
        const std::size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : 4;
        if (chars == max_chars) return name.substr(0, i) + "...";
        i += len;
        ++chars;
    }
    return name;
}

const Preset* find_preset(const std::vector<Preset>& presets, const std::string& name) {
    for (const Preset& p : presets) {
        if (p.name == name) return &p;
    }
    return nullptr;
}

// The seat's transport, and the teacher's way to move it: picking one sends a Transport
// command; the combo keeps showing what the room reports until the seat has moved. The first
// row's combo and its open list are marked for the page's tests ("console.via", "console.via.<name>").
void draw_transport_combo(ClassSession& session, const SeatRow& r, double wall_s) {
    static constexpr const char* kMarks[] = {"console.via.websocket", "console.via.datachannel", "console.via.udp"};
    const std::string now(transport_name(r.transport));
    const ImGuiStyle& style = ImGui::GetStyle();
    ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, ImVec2(style.FramePadding.x, 0.0f));  // a row as tall as text
    ImGui::SetNextItemWidth(ImGui::CalcTextSize("datachannel").x + style.FramePadding.x * 2.0f +
                            ImGui::GetFrameHeight());
    const bool open = ImGui::BeginCombo("##via", now.c_str());
    if (!open) layout_mark("console.via");
    if (open) {
        for (std::uint8_t t = 0; t <= kMaxSeatTransport; ++t) {
            const auto kind = static_cast<SeatTransport>(t);
            const std::string name(transport_name(kind));
            if (ImGui::Selectable(name.c_str(), kind == r.transport) && kind != r.transport) {
                CommandMessage c;
                c.kind = CommandMessage::Kind::Transport;
                c.seat = r.seat;
                c.transport = kind;
                session.command(wall_s, c);
            }
            layout_mark(kMarks[t]);
        }
        ImGui::EndCombo();
    }
    ImGui::PopStyleVar();
}

void draw_seat_table(ClassSession& session, const SeatTableMessage& table, double wall_s, float height) {
    struct Column {
        const char* header;
        const char* help;
    };
    static constexpr Column kColumns[] = {
        {"seat", "the seat number"},
        {"name", "the name the student typed"},
        {"via",
         "what the seat's frames travel over: websocket, datachannel or udp; pick one to move the seat\n"
         "(a page can take a datachannel, the desktop app and bots udp; the websocket is always there)"},
        {"RTT ms", "round trip to the server, milliseconds"},
        {"KiB/s", "what the student's page receives, KiB per second"},
        {"lost", "state frames lost on the way to this seat since it joined"},
        {"phantoms", "enemies this student still sees that the server has removed"},
        {"error px", "how far the student draws things from the truth: the mean for enemies, the median for pellets"},
        {"age p99", "how old the newest frame the student holds gets, ms (99th percentile over 8 s)"},
        {"stalls", "times no newer frame came for three frame intervals"},
        {"sock. loss %", "frames lost on the socket itself (real loss), beyond the simulated loss"},
        {"loss %",
         "this seat's simulated packet loss, set by the console; 'TCP': the seat rides the websocket and the "
         "room resends what the loss drops, late and in order, as TCP would (websocket_retransmits)"},
        {"lat. ms", "this seat's added latency, set by the console"},
        {"", ""},
    };
    constexpr int kCount = static_cast<int>(sizeof kColumns / sizeof kColumns[0]);
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_BordersOuter |
                                  ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX;
    if (!ImGui::BeginTable("seats", kCount, flags, ImVec2(0, height))) return;
    for (const Column& c : kColumns) ImGui::TableSetupColumn(c.header);
    ImGui::TableSetupScrollFreeze(3, 1);  // seat, name and via stay in view
    ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
    for (int i = 0; i < kCount; ++i) {
        ImGui::TableSetColumnIndex(i);
        ImGui::TableHeader(kColumns[i].header);
        if (kColumns[i].help[0] && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", kColumns[i].help);
    }
    for (const SeatRow& r : table.rows) {
        ImGui::TableNextRow();
        ImGui::PushID(static_cast<int>(r.seat));
        ImGui::TableNextColumn();
        ImGui::Text("%u", r.seat + 1);
        ImGui::TableNextColumn();
        const std::string shown = short_name(r.name, 12);
        ImGui::TextUnformatted(shown.c_str());
        // A letter the font lacks is drawn as '?': the tooltip names it.
        const std::string missing = missing_glyphs(r.name);
        if ((shown != r.name || !missing.empty()) && ImGui::IsItemHovered())
            ImGui::SetTooltip("%s%s%s", r.name.c_str(), missing.empty() ? "" : "\nthis font cannot draw ",
                              missing.c_str());
        ImGui::TableNextColumn();
        draw_transport_combo(session, r, wall_s);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(reading(r.meters.rtt_ms, "%.0f").c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(reading(r.meters.down_kib_s, "%.1f").c_str());
        ImGui::TableNextColumn();
        ImGui::Text("%llu", static_cast<unsigned long long>(r.meters.frames_lost));
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(reading(r.meters.phantoms, "%.0f").c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(reading(r.meters.err_mean_px, "%.0f").c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(reading(r.meters.frame_age_p99_ms, "%.0f").c_str());
        ImGui::TableNextColumn();
        ImGui::Text("%llu", static_cast<unsigned long long>(r.meters.stalls));
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(reading(r.socket_loss_pct, "%.1f").c_str());
        ImGui::TableNextColumn();
        if (table.websocket_retransmits && r.transport == SeatTransport::WebSocket) {
            ImGui::Text("%.0f TCP", r.loss_pct);
            if (ImGui::IsItemHovered())
                ImGui::SetTooltip("simulated, retransmitted as TCP would: frames arrive late and in order, none lost");
        } else {
            ImGui::Text("%.0f", r.loss_pct);
        }
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
    layout_mark("console.seats");
}

}  // namespace

void draw_class_console(ViewContext& v, ClassSession& session, double wall_s, float ui_scale) {
    (void)v;
    (void)ui_scale;
    ClassClient& client = session.client();
    const SeatTableMessage& table = client.table();
    const float em = ImGui::GetFontSize();
    const bool blackhole = session.link().playground == "blackhole";
    ConsoleControls& ctl = session.controls;
    const Preset* active = find_preset(session.presets, table.preset);
    const std::string preset_title = active ? active->title : table.preset;

    ImGui::BeginChild("class_left", ImVec2(std::min(20.0f * em, ImGui::GetContentRegionAvail().x * 0.4f), 0), true);
    ImGui::TextColored(
        client.status() == ClassClient::Status::Open ? ImVec4(0.45f, 0.9f, 0.55f, 1) : ImVec4(1, 0.5f, 0.4f, 1), "%s",
        session.status_text().c_str());
    if (!session.presets.empty()) {
        ImGui::TextUnformatted("Room preset");
        ImGui::SetNextItemWidth(-1.0f);
        if (ImGui::BeginCombo("##room_preset", active ? active->title.c_str() : "run a preset for the room")) {
            int n = 0;
            for (const Preset& p : session.presets) {
                const std::string label = std::to_string(++n) + ". " + p.title;
                if (ImGui::Selectable(label.c_str(), &p == active)) {
                    CommandMessage c;
                    c.kind = CommandMessage::Kind::Preset;
                    c.text = p.name;
                    session.command(wall_s, c);
                }
                if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", p.look_for.c_str());
            }
            ImGui::EndCombo();
        }
        if (active && !active->look_for.empty()) {
            ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.75f, 0.8f, 0.9f, 1));
            wrap_at_spaces(active->look_for);
            ImGui::PopStyleColor();
        }
        ImGui::Separator();
    }
    ImGui::TextUnformatted("Impairment");
    std::string label = ctl.target == 0 ? std::string("everyone") : "seat " + std::to_string(ctl.target);
    ImGui::SetNextItemWidth(-1.0f);
    if (ImGui::BeginCombo("##for", label.c_str())) {
        if (ImGui::Selectable("everyone", ctl.target == 0)) ctl.target = 0;
        for (const SeatRow& r : table.rows) {
            const std::string s = "seat " + std::to_string(r.seat + 1) + " " + short_name(r.name, 16);
            if (ImGui::Selectable(s.c_str(), ctl.target == static_cast<int>(r.seat) + 1))
                ctl.target = static_cast<int>(r.seat) + 1;
        }
        ImGui::EndCombo();
    }
    // Every slider as wide as the longest label leaves room for: no label is cut.
    float label_w = 0.0f;
    for (const char* l : {"loss %", "latency ms", "jitter ms", "crowd theta", "field theta", "view radius"})
        label_w = std::max(label_w, ImGui::CalcTextSize(l).x);
    const float slider_w = ImGui::GetContentRegionAvail().x - label_w - ImGui::GetStyle().ItemInnerSpacing.x;
    ImGui::SetNextItemWidth(slider_w);
    ImGui::SliderFloat("loss %", &ctl.loss, 0, 40, "%.0f");
    ImGui::SetNextItemWidth(slider_w);
    ImGui::SliderFloat("latency ms", &ctl.latency, 0, 400, "%.0f");
    ImGui::SetNextItemWidth(slider_w);
    ImGui::SliderFloat("jitter ms", &ctl.jitter, 0, 150, "%.0f");
    if (ImGui::Button("Apply impairment")) {
        CommandMessage c;
        c.kind = CommandMessage::Kind::Impair;
        c.seat = ctl.target == 0 ? kAllSeats : static_cast<std::uint32_t>(ctl.target - 1);
        c.loss_pct = ctl.loss;
        c.latency_ms = ctl.latency;
        c.jitter_ms = ctl.jitter;
        session.command(wall_s, c);
    }
    ImGui::Separator();
    ImGui::TextUnformatted("The room's strategy");
    // Per playground: the horde streams deltas (recovery matters) and summarises crowds with
    // theta; the black-hole room sends whole packets and aggregates the field with theta.
    if (!blackhole) {
        ImGui::Checkbox("acked recovery", &ctl.recovery);
        layout_mark("console.recovery");
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("ticked: acked delta recovery; clear: naive");
    }
    ImGui::SetNextItemWidth(slider_w);
    ImGui::SliderFloat(blackhole ? "field theta" : "crowd theta", &ctl.theta, 0, blackhole ? 1.5f : 2.0f, "%.2f");
    ImGui::SetNextItemWidth(slider_w);
    ImGui::SliderFloat("view radius", &ctl.radius, blackhole ? 200.0f : 100.0f, 1500, "%.0f");
    if (ImGui::Button("Apply strategy")) {
        CommandMessage c;
        c.kind = CommandMessage::Kind::Strategy;
        c.recovery = blackhole ? table.recovery : ctl.recovery;
        c.theta = ctl.theta;
        c.view_radius = ctl.radius;
        session.command(wall_s, c);
    }
    if (!client.last_error().empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.5f, 0.4f, 1));
        wrap_at_spaces(client.last_error());
        ImGui::PopStyleColor();
    }
    ImGui::Separator();
    if (!client.info().urls.empty()) {
        ImGui::TextUnformatted("Students open:");
        for (const std::string& u : client.info().urls) {
            ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.55f, 0.8f, 1, 1));
            wrap_at_spaces(u);
            ImGui::PopStyleColor();
        }
        if (!client.info().qr.empty()) {
            if (ImGui::Button(ctl.show_qr ? "Hide QR code" : "Show QR code")) ctl.show_qr = !ctl.show_qr;
            if (ctl.show_qr) draw_qr(client.info().qr, ImGui::GetContentRegionAvail().x);
        }
    } else {
        ImGui::TextWrapped("Students join at this page's address with #%s/join (serve with --lan for the classroom).",
                           session.link().playground.c_str());
    }
    ImGui::EndChild();
    ImGui::SameLine();

    ImGui::BeginChild("class_right", ImVec2(0, 0), false);
    std::string room = format("%zu students; the room: ", table.rows.size());
    if (!blackhole) room += table.recovery ? "acked recovery, " : "naive recovery, ";
    room += format("theta %.2f, view radius %.0f", table.theta, table.view_radius);
    if (!preset_title.empty()) room += "; preset: " + preset_title;
    wrap_at_spaces(room);
    layout_mark("console.room");
    const float table_h =
        std::min(ImGui::GetContentRegionAvail().y * 0.5f, (2.0f + static_cast<float>(table.rows.size())) * em * 1.5f);
    draw_seat_table(session, table, wall_s, table_h);
    // The room plot: every seat's phantoms and render error over time, on shared axes.
    const ImVec2 rest = ImGui::GetContentRegionAvail();
    const bool side_by_side = rest.x > 40.0f * em;
    const ImVec2 plot(side_by_side ? (rest.x - ImGui::GetStyle().ItemSpacing.x) * 0.5f : rest.x,
                      std::max(6.0f * em, side_by_side ? rest.y - 4 : rest.y * 0.5f - 4));
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
    if (side_by_side) ImGui::SameLine();
    axes.unit = "render error, px";
    draw_plot("class_error", errors, plot, axes);
    ImGui::EndChild();
}

}  // namespace vantage::play
