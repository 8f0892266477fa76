#include "app/class_session.hpp"

#include <cmath>

#include "common/host.hpp"

namespace vantage::play {

namespace {

void follow_room(ConsoleControls& c, const SeatTableMessage& table) {
    if (!c.seen_any || table.recovery != c.seen_recovery || table.theta != c.seen_theta ||
        table.view_radius != c.seen_radius) {
        c.recovery = table.recovery;
        c.theta = static_cast<float>(table.theta);
        c.radius = static_cast<float>(table.view_radius);
        c.seen_recovery = table.recovery;
        c.seen_theta = table.theta;
        c.seen_radius = table.view_radius;
        c.seen_any = true;
    }
    // The impairment of the seat the controls target; for everyone, the first seat's (a room
    // preset or an "everyone" command sets every seat alike).
    const SeatRow* row = nullptr;
    for (const SeatRow& r : table.rows) {
        if (c.target == 0 || static_cast<int>(r.seat) + 1 == c.target) {
            row = &r;
            break;
        }
    }
    if (row && (c.target != c.seen_target || row->loss_pct != c.seen_loss || row->latency_ms != c.seen_latency ||
                row->jitter_ms != c.seen_jitter)) {
        c.loss = static_cast<float>(row->loss_pct);
        c.latency = static_cast<float>(row->latency_ms);
        c.jitter = static_cast<float>(row->jitter_ms);
        c.seen_target = c.target;
        c.seen_loss = row->loss_pct;
        c.seen_latency = row->latency_ms;
        c.seen_jitter = row->jitter_ms;
    }
}

}  // namespace

ClassSession::ClassSession(RoomLink link)
    : link_(std::move(link)),
      socket_(RoomSocket::connect(link_.url)),
      client_(link_.teach ? ClassClient::Role::Teacher : ClassClient::Role::Follower, link_.token) {}

void ClassSession::update(double wall_s) {
    const double ms = wall_s * 1000.0;
    if (!socket_) return;
    if (socket_->state() == RoomSocket::State::Open && !hello_sent_) {
        client_.open(*socket_, ms);
        hello_sent_ = true;
    }
    if (hello_sent_) client_.update(*socket_, ms);
    if (client_.tables() > 0) follow_room(controls, client_.table());
    if (socket_->state() == RoomSocket::State::Closed) client_.closed(socket_->close_reason());
}

void ClassSession::command(double wall_s, const CommandMessage& c) {
    if (socket_) client_.command(*socket_, wall_s * 1000.0, c);
}

void ClassSession::share_link(double wall_s, const std::string& hash) {
    if (!teacher() || hash == last_shared || wall_s < next_share_s_) return;
    if (client_.status() != ClassClient::Status::Open) return;
    CommandMessage c;
    c.kind = CommandMessage::Kind::Link;
    c.text = hash.substr(0, kMaxLinkBytes);
    command(wall_s, c);
    last_shared = hash;
    next_share_s_ = wall_s + 0.25;
}

void ClassSession::leave() {
    if (socket_) socket_->close();
    client_.closed("stopped");
}

std::string ClassSession::status_text() const {
    const char* role = teacher() ? "teacher console" : "following the teacher";
    switch (client_.status()) {
        case ClassClient::Status::Connecting:
            return std::string(role) + ": connecting";
        case ClassClient::Status::Open:
            return role;
        case ClassClient::Status::Refused:
            return std::string(role) + " refused: " + client_.reason();
        case ClassClient::Status::Closed:
            return std::string(role) + " ended: " + client_.reason();
    }
    return role;
}

std::string ClassSession::state_json() const {
    std::string out = "{\"role\":";
    append_json_string(out, teacher() ? "teacher" : "follower");
    out += ",\"connected\":";
    out += client_.status() == ClassClient::Status::Open && connected() ? "true" : "false";
    out += ",\"status\":";
    append_json_string(out, status_text());
    out += ",\"links\":";
    append_json_number(out, static_cast<double>(client_.links()));
    out += ",\"error\":";
    append_json_string(out, client_.last_error());
    const SeatTableMessage& t = client_.table();
    out += ",\"tables\":";
    append_json_number(out, static_cast<double>(client_.tables()));
    out += ",\"recovery\":";
    out += t.recovery ? "true" : "false";
    out += ",\"theta\":";
    append_json_number(out, t.theta);
    out += ",\"preset\":";
    append_json_string(out, t.preset);
    // What the console's controls show (they follow the room's settings message).
    out += ",\"controls\":{\"recovery\":";
    out += controls.recovery ? "true" : "false";
    out += ",\"theta\":";
    append_json_number(out, controls.theta);
    out += ",\"view_radius\":";
    append_json_number(out, controls.radius);
    out += ",\"loss\":";
    append_json_number(out, controls.loss);
    out += "}";
    out += ",\"urls\":[";
    for (std::size_t i = 0; i < client_.info().urls.size(); ++i) {
        if (i) out += ",";
        append_json_string(out, client_.info().urls[i]);
    }
    out += "],\"qr_size\":";
    append_json_number(out, static_cast<double>(client_.info().qr.size()));
    out += ",\"seats\":[";
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
        const SeatRow& r = t.rows[i];
        if (i) out += ",";
        out += "{\"seat\":";
        append_json_number(out, static_cast<double>(r.seat + 1));
        out += ",\"name\":";
        append_json_string(out, r.name);
        out += ",\"rtt_ms\":";
        append_json_number(out, r.meters.rtt_ms >= 0 ? r.meters.rtt_ms : std::nan(""));
        out += ",\"down_kib_s\":";
        append_json_number(out, r.meters.down_kib_s >= 0 ? r.meters.down_kib_s : std::nan(""));
        out += ",\"frames_lost\":";
        append_json_number(out, static_cast<double>(r.meters.frames_lost));
        out += ",\"phantoms\":";
        append_json_number(out, r.meters.phantoms >= 0 ? r.meters.phantoms : std::nan(""));
        out += ",\"err_mean_px\":";
        append_json_number(out, r.meters.err_mean_px >= 0 ? r.meters.err_mean_px : std::nan(""));
        out += ",\"transport\":";
        append_json_string(out, transport_name(r.transport));
        out += ",\"frame_age_p50_ms\":";
        append_json_number(out, r.meters.frame_age_p50_ms >= 0 ? r.meters.frame_age_p50_ms : std::nan(""));
        out += ",\"frame_age_p99_ms\":";
        append_json_number(out, r.meters.frame_age_p99_ms >= 0 ? r.meters.frame_age_p99_ms : std::nan(""));
        out += ",\"stalls\":";
        append_json_number(out, static_cast<double>(r.meters.stalls));
        out += ",\"socket_loss\":";
        append_json_number(out, r.socket_loss_pct >= 0 ? r.socket_loss_pct : std::nan(""));
        out += ",\"loss\":";
        append_json_number(out, r.loss_pct);
        out += ",\"latency_ms\":";
        append_json_number(out, r.latency_ms);
        out += ",\"jitter_ms\":";
        append_json_number(out, r.jitter_ms);
        out += "}";
    }
    out += "]}";
    return out;
}

std::string parse_teacher_command(std::string_view kind, std::string_view args, const SeatTableMessage& current,
                                  CommandMessage& out) {
    out = CommandMessage{};
    std::vector<std::string_view> malformed;
    const std::vector<Setting> parts = split_settings(args, malformed);
    if (!malformed.empty()) return "'" + std::string(malformed.front()) + "' is not key=value";
    auto number = [&](std::string_view key, double lo, double hi, double& v) -> std::string {
        for (const Setting& p : parts) {
            if (p.key != key) continue;
            double x = 0;
            if (!parse_value(p.value, x) || x < lo || x > hi) {
                return "'" + std::string(key) + "' must be a number from " + std::to_string(static_cast<int>(lo)) +
                       " to " + std::to_string(static_cast<int>(hi));
            }
            v = x;
        }
        return {};
    };
    auto seat = [&]() -> std::string {
        for (const Setting& p : parts) {
            if (p.key != "seat" || p.value == "all") continue;
            double x = 0;
            if (!parse_value(p.value, x) || x < 1 || x > 256 || x != std::floor(x)) return "'seat' is 1 to 256, or all";
            out.seat = static_cast<std::uint32_t>(x) - 1;
        }
        return {};
    };
    std::string e;
    if (kind == "impair") {
        out.kind = CommandMessage::Kind::Impair;
        if (!(e = seat()).empty()) return e;
        // What is not given stays as the seat (or, for everyone, the first seat) has it.
        for (const SeatRow& row : current.rows) {
            if (out.seat != kAllSeats && row.seat != out.seat) continue;
            out.loss_pct = row.loss_pct;
            out.latency_ms = row.latency_ms;
            out.jitter_ms = row.jitter_ms;
            break;
        }
        if (!(e = number("loss", 0, 40, out.loss_pct)).empty() ||
            !(e = number("latency_ms", 0, 400, out.latency_ms)).empty() ||
            !(e = number("jitter_ms", 0, 150, out.jitter_ms)).empty())
            return e;
        return {};
    }
    if (kind == "strategy") {
        out.kind = CommandMessage::Kind::Strategy;
        out.theta = current.theta;  // what is not given stays as the room has it
        out.view_radius = current.view_radius;
        double recovery = current.recovery ? 1 : 0;
        if (!(e = number("recovery", 0, 1, recovery)).empty() || !(e = number("theta", 0, 2, out.theta)).empty() ||
            !(e = number("view_radius", 100, 1500, out.view_radius)).empty())
            return e;
        out.recovery = recovery != 0;
        return {};
    }
    if (kind == "kick") {
        out.kind = CommandMessage::Kind::Kick;
        out.seat = kAllSeats;
        if (!(e = seat()).empty()) return e;
        if (out.seat == kAllSeats) return "'kick' needs seat=N";
        return {};
    }
    if (kind == "preset") {
        out.kind = CommandMessage::Kind::Preset;
        for (const Setting& p : parts) {
            if (p.key == "name") out.text = std::string(p.value);
        }
        if (out.text.empty()) return "'preset' needs name=...";
        return {};
    }
    if (kind == "transport") {
        out.kind = CommandMessage::Kind::Transport;
        out.seat = kAllSeats;
        if (!(e = seat()).empty()) return e;
        if (out.seat == kAllSeats) return "'transport' needs seat=N";
        std::string_view to;
        for (const Setting& p : parts) {
            if (p.key == "to") to = p.value;
        }
        for (std::uint8_t t = 0; t <= kMaxSeatTransport; ++t) {
            if (transport_name(static_cast<SeatTransport>(t)) == to) {
                out.transport = static_cast<SeatTransport>(t);
                return {};
            }
        }
        return "'transport' needs to=websocket, to=datachannel or to=udp";
    }
    return "unknown teacher command '" + std::string(kind) + "' (impair, strategy, preset, kick, transport)";
}

}  // namespace vantage::play
