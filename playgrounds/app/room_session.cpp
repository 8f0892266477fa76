#include "app/room_session.hpp"

#include <cmath>

#include "common/host.hpp"
#include "vantage/assert.hpp"

namespace vantage::play {

RoomSession::RoomSession(RoomLink link) : link_(std::move(link)), socket_(RoomSocket::connect(link_.url)) {
    const RoomRemoteOptions options{.name = link_.name.empty() ? std::string("player") : link_.name};
    game_ = make_room_game(link_.playground, options);
    VANTAGE_ASSERT(game_.remote, "RoomSession: the link's playground is not a room");
    remote_ = game_.remote.get();
}

void RoomSession::update(double wall_s, float dt_s) {
    const double local_ms = wall_s * 1000.0;
    if (!socket_ || left_) return;
    const RoomSocket::State state = socket_->state();
    if (state == RoomSocket::State::Open && !hello_sent_) {
        remote_->open(*socket_, local_ms);
        hello_sent_ = true;
    }
    if (hello_sent_) {
        remote_->update(*socket_, local_ms, dt_s);
        socket_->drive_datagram(*remote_, local_ms);
    }
    if (socket_->state() == RoomSocket::State::Closed && remote_->status() != RoomRemote::Status::Closed &&
        remote_->status() != RoomRemote::Status::Refused) {
        remote_->closed(socket_->close_reason());
    }
}

void RoomSession::send_command(double wall_s, const CommandMessage& c) {
    if (socket_ && remote_->status() == RoomRemote::Status::Joined) remote_->send_command(*socket_, wall_s * 1000.0, c);
}

void RoomSession::leave() {
    if (socket_) socket_->close();
    left_ = true;
    remote_->closed("you left the room");
}

std::string RoomSession::status_text() const {
    switch (remote_->status()) {
        case RoomRemote::Status::Connecting:
            return connected() ? "saying hello to " + socket_->url()
                               : "connecting to " + (socket_ ? socket_->url() : link_.url);
        case RoomRemote::Status::Joined:
            return "seat " + std::to_string(remote_->seat() + 1) + " of " + std::to_string(remote_->seats());
        case RoomRemote::Status::Refused:
            return "refused: " + remote_->reason();
        case RoomRemote::Status::Closed:
            return "disconnected: " + remote_->reason();
    }
    return {};
}

void RoomSession::meters(std::vector<Meter>& out) const {
    const RoomRemote& r = *remote_;
    out.push_back({"room.down_kib_s", "KiB/s", r.down_kib_s()});
    out.push_back({"room.up_kib_s", "KiB/s", r.up_kib_s()});
    out.push_back({"room.frames", "", static_cast<double>(r.frames())});
    out.push_back({"room.frames_lost", "", static_cast<double>(r.frames_lost())});
    out.push_back({"room.knows", "", static_cast<double>(r.held())});
    // Absent until measured: a meter shows a measured value or is not there.
    if (r.rtt_ms()) out.push_back({"room.rtt_ms", "ms", *r.rtt_ms()});
    if (r.truth() && r.phantoms()) out.push_back({"room.phantoms", "", *r.phantoms()});
    if (r.truth() && r.err_mean_px()) out.push_back({"room.err_mean_px", "px", *r.err_mean_px()});
    out.push_back({"room.truth_kib_s", "KiB/s", r.truth_kib_s()});
    if (r.frame_age_p50_ms()) out.push_back({"room.frame_age_p50_ms", "ms", *r.frame_age_p50_ms()});
    if (r.frame_age_p99_ms()) out.push_back({"room.frame_age_p99_ms", "ms", *r.frame_age_p99_ms()});
    out.push_back({"room.stalls", "", static_cast<double>(r.stalls())});
}

std::string RoomSession::state_json() const {
    const RoomRemote& r = *remote_;
    std::string out = "{\"connected\":";
    out += r.status() == RoomRemote::Status::Joined && connected() ? "true" : "false";
    out += ",\"status\":";
    append_json_string(out, status_text());
    out += ",\"name\":";
    append_json_string(out, link_.name.empty() ? "player" : link_.name);
    const bool joined = r.status() == RoomRemote::Status::Joined || r.seats() > 0;
    out += ",\"seat\":";
    append_json_number(out, joined ? static_cast<double>(r.seat()) : -1.0);
    out += ",\"seats\":";
    append_json_number(out, static_cast<double>(r.seats()));
    out += ",\"players\":";
    append_json_number(out, static_cast<double>(r.roster().size()));
    out += ",\"down_kib_s\":";
    append_json_number(out, r.down_kib_s());
    out += ",\"up_kib_s\":";
    append_json_number(out, r.up_kib_s());
    out += ",\"frames\":";
    append_json_number(out, static_cast<double>(r.frames()));
    out += ",\"frames_lost\":";
    append_json_number(out, static_cast<double>(r.frames_lost()));
    out += ",\"rtt_ms\":";
    append_json_number(out, r.rtt_ms().value_or(std::nan("")));
    out += ",\"phantoms\":";
    append_json_number(out, r.phantoms().value_or(std::nan("")));
    out += ",\"err_mean_px\":";
    append_json_number(out, r.err_mean_px().value_or(std::nan("")));
    out += ",\"truth\":";
    out += r.truth() ? "true" : "false";
    out += ",\"truth_kib_s\":";
    append_json_number(out, r.truth_kib_s());
    out += ",\"transport\":";
    append_json_string(out, transport_name(r.transport()));
    out += ",\"transport_why\":";
    append_json_string(out, r.transport_why());
    out += ",\"frame_age_p50_ms\":";
    append_json_number(out, r.frame_age_p50_ms().value_or(std::nan("")));
    out += ",\"frame_age_p99_ms\":";
    append_json_number(out, r.frame_age_p99_ms().value_or(std::nan("")));
    out += ",\"stalls\":";
    append_json_number(out, static_cast<double>(r.stalls()));
    if (const std::optional<Vec2> me = r.me()) {
        out += ",\"me\":{\"x\":";
        append_json_number(out, me->x);
        out += ",\"y\":";
        append_json_number(out, me->y);
        out += "}";
    }
    out += ",\"playground\":";
    append_json_string(out, r.playground());
    out += ",\"knows\":";
    append_json_number(out, static_cast<double>(r.held()));
    out += ",\"error\":";
    append_json_string(out, r.last_error());
    out += ",\"roster\":[";
    for (std::size_t i = 0; i < r.roster().size(); ++i) {
        if (i) out += ",";
        out += "{\"seat\":";
        append_json_number(out, static_cast<double>(r.roster()[i].seat));
        out += ",\"name\":";
        append_json_string(out, r.roster()[i].name);
        out += "}";
    }
    // The other seated players this page holds: each roster entry but its own whose player
    // the newest frame held carried, where that frame put it.
    out += "],\"others\":[";
    bool first = true;
    for (const RosterEntry& e : r.roster()) {
        if (e.seat == r.seat()) continue;
        const std::optional<Vec2> at = r.player(e.seat);
        if (!at) continue;
        if (!first) out += ",";
        first = false;
        out += "{\"seat\":";
        append_json_number(out, static_cast<double>(e.seat));
        out += ",\"name\":";
        append_json_string(out, e.name);
        out += ",\"x\":";
        append_json_number(out, at->x);
        out += ",\"y\":";
        append_json_number(out, at->y);
        out += "}";
    }
    out += "],\"datachannel\":";
    append_json_string(out, socket_ ? socket_->datagram_state() : "none");
    out += ",\"datagram_frames\":";
    append_json_number(out, static_cast<double>(r.datagram_frames()));
    out += "}";
    return out;
}

}  // namespace vantage::play
