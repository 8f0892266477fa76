#include "horde/horde_remote.hpp"

#include <algorithm>
#include <cmath>

#include "horde/horde_world.hpp"

namespace vantage::play {

namespace {
constexpr double kTruthTimeoutMs = 3000.0;  // an unanswered query (lost) is given up after this
}  // namespace

HordeRemote::HordeRemote(HordeRemoteOptions options) : options_(std::move(options)) {
    options_.truth_hz = std::clamp(options_.truth_hz, 0.0, 10.0);
    options_.ping_hz = std::clamp(options_.ping_hz, 0.2, 10.0);
    options_.input_hz = std::clamp(options_.input_hz, 1.0, 60.0);
    truth_on_ = options_.truth_hz > 0.0;
}

void HordeRemote::open(Transport& socket, double local_ms) {
    writer_.clear();
    encode_hello(writer_, {.protocol = kRoomProtocol,
                           .build = room_build_id(),
                           .playground = "horde",
                           .name = sanitize_name(options_.name)});
    send(socket, local_ms);
}

void HordeRemote::closed(std::string reason) {
    if (status_ == Status::Refused) return;  // the refusal says more than the close
    status_ = Status::Closed;
    reason_ = std::move(reason);
}

void HordeRemote::set_input(Vec2 direction, bool autopilot) {
    if (!std::isfinite(direction.x) || !std::isfinite(direction.y)) direction = {};
    if (direction.x == input_.direction.x && direction.y == input_.direction.y && autopilot == input_.autopilot) return;
    input_.direction = direction;
    input_.autopilot = autopilot;
    input_dirty_ = true;
}

void HordeRemote::send(Transport& socket, double local_ms, bool truth_overhead) {
    socket.send(local_ms, writer_.bytes());
    const double n = static_cast<double>(writer_.size());
    up_.add(n);
    bytes_up_ += writer_.size();
    if (truth_overhead) truth_bytes_.add(n);
}

void HordeRemote::update(Transport& socket, double local_ms, float dt_s) {
    for (RateMeter* m : {&down_, &up_, &truth_bytes_}) m->elapsed(local_ms);
    bool any_frame = false;
    while (socket.poll(local_ms, message_)) {
        const std::uint64_t before = frames_;
        handle(socket, message_, local_ms);
        any_frame = any_frame || frames_ != before;
    }
    if (status_ != Status::Joined) return;
    if (any_frame && client_.encode_ack_into(writer_)) send(socket, local_ms);
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
        encode_report(writer_, {.rtt_ms = rtt_ms_,
                                .down_kib_s = down_kib_s(),
                                .frames_lost = frames_lost(),
                                .phantoms = truth_on_ ? phantoms_ : -1.0,
                                .err_mean_px = truth_on_ ? err_mean_px_ : -1.0});
        send(socket, local_ms);
        next_report_ms_ = local_ms + 1000.0;
    }
    if (truth_pending_ && local_ms - truth_asked_ms_ > kTruthTimeoutMs) truth_pending_ = false;
    if (truth_on_ && options_.truth_hz > 0.0 && !truth_pending_ && local_ms >= next_truth_ms_ && client_.heard()) {
        ask_truth(socket, local_ms);
        next_truth_ms_ = local_ms + 1000.0 / options_.truth_hz;
    }
    client_.advance(dt_s, tick_++);
}

void HordeRemote::handle(Transport& socket, std::span<const std::uint8_t> bytes, double local_ms) {
    (void)socket;
    if (bytes.empty()) {
        ++protocol_errors_;
        return;
    }
    down_.add(static_cast<double>(bytes.size()));
    bytes_down_ += bytes.size();
    switch (static_cast<RoomMessage>(bytes[0])) {
        case RoomMessage::Welcome:
            if (decode_welcome(bytes, welcome_) != WireError::None) {
                ++protocol_errors_;
                return;
            }
            status_ = Status::Joined;
            return;
        case RoomMessage::Refuse:
            if (decode_refuse(bytes, reason_) != WireError::None) reason_ = "refused (unreadable reason)";
            status_ = Status::Refused;
            return;
        case RoomMessage::Error:
            if (decode_error(bytes, last_error_) != WireError::None) ++protocol_errors_;
            return;
        case RoomMessage::Roster:
            if (decode_roster(bytes, roster_) != WireError::None) ++protocol_errors_;
            return;
        case RoomMessage::Pong: {
            PongMessage pong;
            if (decode_pong(bytes, pong) != WireError::None) {
                ++protocol_errors_;
                return;
            }
            const double rtt = std::max(0.0, local_ms - static_cast<double>(pong.client_ms));
            rtt_ms_ = rtt_known_ ? 0.8 * rtt_ms_ + 0.2 * rtt : rtt;
            rtt_known_ = true;
            // The pong left the server at server_ms, about half a round trip ago.
            const double offset = static_cast<double>(pong.server_ms) + rtt * 0.5 - local_ms;
            offset_ms_ = offset_known_ ? 0.9 * offset_ms_ + 0.1 * offset : offset;
            offset_known_ = true;
            return;
        }
        case RoomMessage::Truth:
            truth_bytes_.add(static_cast<double>(bytes.size()));
            if (decode_truth(bytes, truth_) != WireError::None) {
                ++protocol_errors_;
                return;
            }
            answer(truth_);
            return;
        case RoomMessage::Frame: {
            if (status_ != Status::Joined) return;
            if (!offset_known_) {
                // Until the first pong, take the first frame's stamp as "now" on the server.
                ByteReader r(bytes);
                r.read_u8();
                const std::uint64_t t = r.read_varint();
                if (!r.ok()) break;
                offset_ms_ = static_cast<double>(t) - local_ms;
                offset_known_ = true;
            }
            if (!client_.apply_frame(bytes, server_ms(local_ms), scratch_)) return;
            ++frames_;
            frame_bytes_ += bytes.size();
            return;
        }
        default:
            break;
    }
    ++protocol_errors_;
}

void HordeRemote::send_command(Transport& socket, double local_ms, const CommandMessage& command) {
    writer_.clear();
    encode_command(writer_, command);
    send(socket, local_ms);
}

void HordeRemote::ask_truth(Transport& socket, double local_ms) {
    const std::size_t held = client_.mirror().size();
    if (held == 0) return;
    // A strided sample when the client holds more than one query carries.
    const std::size_t stride = (held + kMaxTruthSample - 1) / kMaxTruthSample;
    query_.keys.clear();
    asked_positions_.clear();
    std::size_t i = 0;
    client_.mirror().for_each([&](SlotKey key, const HeldEnemy& h) {
        if (i++ % stride != 0) return;
        query_.keys.push_back(key.encode());
        asked_positions_.push_back(h.position);
    });
    // The mirror walks in slot order; the query must be ascending (it is, but say so).
    if (!std::is_sorted(query_.keys.begin(), query_.keys.end())) return;
    asked_players_ = client_.players();
    ++query_.id;
    writer_.clear();
    encode_truth_query(writer_, query_);
    send(socket, local_ms, true);
    truth_pending_ = true;
    truth_asked_ms_ = local_ms;
    truth_asked_server_ms_ = server_ms(local_ms);
}

void HordeRemote::answer(const TruthMessage& truth) {
    if (!truth_pending_ || truth.id != query_.id || truth.alive.size() != query_.keys.size()) return;
    truth_pending_ = false;
    ++truth_answers_;
    // The truth is where enemies were when the query reached the server; move what was drawn
    // at the query by the same rule over the same span, so both stand for one instant.
    const float span_s =
        static_cast<float>(std::max(0.0, (static_cast<double>(truth.server_ms) - truth_asked_server_ms_) / 1000.0));
    std::size_t dead = 0, next_position = 0;
    double err_sum = 0;
    std::size_t err_n = 0;
    for (std::size_t k = 0; k < truth.alive.size(); ++k) {
        if (!truth.alive[k]) {
            ++dead;
            continue;
        }
        Vec2 drawn = asked_positions_[k];
        if (!asked_players_.empty()) {
            const std::uint32_t target = nearest_player(drawn, asked_players_);
            drawn = chase_step(drawn, query_.keys[k], asked_players_[target], span_s);
        }
        err_sum += static_cast<double>(distance(drawn, truth.positions[next_position++]));
        ++err_n;
    }
    const double scale = static_cast<double>(client_.mirror().size()) /
                         static_cast<double>(std::max<std::size_t>(1, truth.alive.size()));
    phantoms_ = static_cast<double>(dead) * std::max(1.0, scale);
    err_mean_px_ = err_n > 0 ? err_sum / static_cast<double>(err_n) : 0.0;
}

}  // namespace vantage::play
