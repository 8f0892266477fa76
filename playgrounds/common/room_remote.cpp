#include "common/room_remote.hpp"

#include <algorithm>
#include <cmath>

namespace vantage::play {

namespace {
constexpr double kTruthTimeoutMs = 3000.0;  // an unanswered query (lost) is given up after this
}  // namespace

RoomRemote::RoomRemote(RoomRemoteOptions options) : options_(std::move(options)) {
    options_.truth_hz = std::clamp(options_.truth_hz, 0.0, 10.0);
    options_.ping_hz = std::clamp(options_.ping_hz, 0.2, 10.0);
    options_.input_hz = std::clamp(options_.input_hz, 1.0, 60.0);
    truth_on_ = options_.truth_hz > 0.0;
}

void RoomRemote::open(Transport& socket, double local_ms) {
    writer_.clear();
    encode_hello(writer_, {.protocol = kRoomProtocol,
                           .build = room_build_id(),
                           .playground = std::string(playground()),
                           .name = sanitize_name(options_.name)});
    send(socket, local_ms);
}

void RoomRemote::closed(std::string reason) {
    if (status_ == Status::Refused) return;  // the refusal says more than the close
    status_ = Status::Closed;
    reason_ = std::move(reason);
}

void RoomRemote::set_input(Vec2 direction, bool autopilot) {
    if (!std::isfinite(direction.x) || !std::isfinite(direction.y)) direction = {};
    if (direction.x == input_.direction.x && direction.y == input_.direction.y && autopilot == input_.autopilot) return;
    input_.direction = direction;
    input_.autopilot = autopilot;
    input_dirty_ = true;
}

void RoomRemote::send(Transport& socket, double local_ms, bool truth_overhead) {
    socket.send(local_ms, writer_.bytes());
    const double n = static_cast<double>(writer_.size());
    up_.add(n);
    bytes_up_ += writer_.size();
    if (truth_overhead) truth_bytes_.add(n);
}

void RoomRemote::update(Transport& socket, double local_ms, float dt_s) {
    for (RateMeter* m : {&down_, &up_, &truth_bytes_}) m->elapsed(local_ms);
    bool any_frame = false;
    while (socket.poll(local_ms, message_)) {
        const std::uint64_t before = frames_;
        handle(message_, local_ms);
        any_frame = any_frame || frames_ != before;
    }
    if (status_ != Status::Joined) return;
    if (any_frame && encode_ack(writer_)) send(socket, local_ms);
    const bool steering = !input_.autopilot && input_.direction.length_squared() > 0.0f;
    if (input_dirty_ || (steering && local_ms >= next_input_ms_)) {
        ++input_.seq;
        writer_.clear();
        encode_input(writer_, input_);
        send(socket, local_ms);
        input_dirty_ = false;
        next_input_ms_ = local_ms + 1000.0 / options_.input_hz;
    }
    if (local_ms >= next_ping_ms_) {
        writer_.clear();
        encode_ping(writer_, static_cast<std::uint64_t>(std::llround(std::max(0.0, local_ms))));
        send(socket, local_ms);
        next_ping_ms_ = local_ms + 1000.0 / options_.ping_hz;
    }
    if (local_ms >= next_report_ms_) {
        writer_.clear();
        // The report's wire encoding writes "not measured" as a negative value (room_wire.md).
        encode_report(writer_, {.rtt_ms = rtt_ms_.value_or(-1.0),
                                .down_kib_s = down_kib_s(),
                                .frames_lost = frames_lost(),
                                .phantoms = truth_on_ ? phantoms_.value_or(-1.0) : -1.0,
                                .err_mean_px = truth_on_ ? err_mean_px_.value_or(-1.0) : -1.0});
        send(socket, local_ms);
        next_report_ms_ = local_ms + 1000.0;
    }
    if (truth_pending_ && local_ms - truth_asked_ms_ > kTruthTimeoutMs) truth_pending_ = false;
    if (truth_on_ && options_.truth_hz > 0.0 && !truth_pending_ && local_ms >= next_truth_ms_ && ready()) {
        ask_truth(socket, local_ms);
        next_truth_ms_ = local_ms + 1000.0 / options_.truth_hz;
    }
    advance(dt_s, server_ms(local_ms));
}

void RoomRemote::handle(std::span<const std::uint8_t> bytes, double local_ms) {
    if (bytes.empty()) {
        ++protocol_errors_;
        return;
    }
    down_.add(static_cast<double>(bytes.size()));
    bytes_down_ += bytes.size();
    switch (static_cast<RoomMessage>(bytes[0])) {
        case RoomMessage::Welcome:
            if (decode_welcome(bytes, welcome_) != WireError::Ok || welcome_.playground != playground()) {
                ++protocol_errors_;
                return;
            }
            status_ = Status::Joined;
            return;
        case RoomMessage::Refuse:
            if (decode_refuse(bytes, reason_) != WireError::Ok) reason_ = "refused (unreadable reason)";
            status_ = Status::Refused;
            return;
        case RoomMessage::Error:
            if (decode_error(bytes, last_error_) != WireError::Ok) ++protocol_errors_;
            return;
        case RoomMessage::Roster:
            if (decode_roster(bytes, roster_) != WireError::Ok) ++protocol_errors_;
            return;
        case RoomMessage::Pong: {
            PongMessage pong;
            if (decode_pong(bytes, pong) != WireError::Ok) {
                ++protocol_errors_;
                return;
            }
            const double rtt = std::max(0.0, local_ms - static_cast<double>(pong.client_ms));
            rtt_ms_ = rtt_ms_ ? 0.8 * *rtt_ms_ + 0.2 * rtt : rtt;
            // The pong left the server at server_ms, about half a round trip ago.
            const double offset = static_cast<double>(pong.server_ms) + rtt * 0.5 - local_ms;
            offset_ms_ = offset_known_ ? 0.9 * offset_ms_ + 0.1 * offset : offset;
            offset_known_ = true;
            return;
        }
        case RoomMessage::Truth:
            truth_bytes_.add(static_cast<double>(bytes.size()));
            if (decode_truth(bytes, truth_) != WireError::Ok) {
                ++protocol_errors_;
                return;
            }
            if (!truth_pending_ || truth_.id != query_.id || truth_.alive.size() != query_.keys.size()) return;
            truth_pending_ = false;
            ++truth_answers_;
            score_truth(truth_, truth_asked_server_ms_, phantoms_, err_mean_px_);
            return;
        case RoomMessage::JoinState:
            if (status_ != Status::Joined || !join_state(bytes)) ++protocol_errors_;
            return;
        case RoomMessage::Frame:
        case RoomMessage::FieldFrame: {
            if (status_ != Status::Joined) return;
            if (!offset_known_) {
                // Until the first pong, take the first frame's stamp as "now" on the server.
                const std::optional<std::uint64_t> t = frame_stamp(bytes);
                if (!t) break;
                offset_ms_ = static_cast<double>(*t) - local_ms;
                offset_known_ = true;
            }
            if (!apply_frame(bytes, server_ms(local_ms))) return;
            ++frames_;
            frame_bytes_ += bytes.size();
            return;
        }
        default:
            break;
    }
    ++protocol_errors_;
}

void RoomRemote::send_command(Transport& socket, double local_ms, const CommandMessage& command) {
    writer_.clear();
    encode_command(writer_, command);
    send(socket, local_ms);
}

void RoomRemote::ask_truth(Transport& socket, double local_ms) {
    query_.keys.clear();
    if (!draw_truth(query_.keys, server_ms(local_ms)) || query_.keys.empty()) return;
    // The query must be ascending and within its limit (the game draws it so; say so).
    if (query_.keys.size() > kMaxTruthSample || !std::is_sorted(query_.keys.begin(), query_.keys.end())) return;
    ++query_.id;
    writer_.clear();
    encode_truth_query(writer_, query_);
    send(socket, local_ms, true);
    truth_pending_ = true;
    truth_asked_ms_ = local_ms;
    truth_asked_server_ms_ = server_ms(local_ms);
}

}  // namespace vantage::play
