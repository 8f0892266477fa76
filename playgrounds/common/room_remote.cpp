#include "common/room_remote.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace vantage::play {

namespace {
constexpr double kTruthTimeoutMs = 3000.0;    // an unanswered query (lost) is given up after this
constexpr double kFastestBucketMs = 1000.0;   // the fastest delivery is the best of the last 1 to 2 s
constexpr std::size_t kMaxAgeSamples = 2048;  // the frame-age window's ring (8 s at up to 256 updates/s)

// "k=v&k=v": the value of `key`, or `fallback`.
double setting_value(std::string_view settings, std::string_view key, double fallback) {
    std::size_t at = 0;
    while (at < settings.size()) {
        std::size_t end = settings.find('&', at);
        if (end == std::string_view::npos) end = settings.size();
        const std::string_view pair = settings.substr(at, end - at);
        if (pair.size() > key.size() && pair.substr(0, key.size()) == key && pair[key.size()] == '=') {
            double v = 0;
            if (std::sscanf(std::string(pair.substr(key.size() + 1)).c_str(), "%lf", &v) == 1 && std::isfinite(v) &&
                v > 0)
                return v;
        }
        at = end + 1;
    }
    return fallback;
}
}  // namespace

bool RoomRemote::websocket_retransmits() const {
    return transport_.websocket_retransmits;
}

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

void RoomRemote::request_udp(Transport& socket, double local_ms) {
    writer_.clear();
    encode_udp_request(writer_);
    send(socket, local_ms);
}

bool RoomRemote::take_rtc_signal(RtcSignalMessage& out) {
    if (rtc_in_.empty()) return false;
    out = std::move(rtc_in_.front());
    rtc_in_.pop_front();
    return true;
}

void RoomRemote::send_rtc_signal(Transport& socket, double local_ms, const RtcSignalMessage& m) {
    writer_.clear();
    encode_rtc_signal(writer_, m);
    send(socket, local_ms);
}

bool RoomRemote::take_udp_grant(std::vector<std::uint8_t>& token) {
    if (!udp_grant_new_) return false;
    udp_grant_new_ = false;
    token = udp_grant_;
    return true;
}

void RoomRemote::update(Transport& socket, double local_ms, float dt_s) {
    for (RateMeter* m : {&down_, &up_, &truth_bytes_}) m->elapsed(local_ms);
    bool any_frame = false;
    while (socket.poll(local_ms, message_)) {
        const std::uint64_t before = frames_;
        handle(message_, local_ms);
        any_frame = any_frame || frames_ != before;
    }
    if (datagram_) {
        while (datagram_->poll(local_ms, message_)) {
            const std::uint64_t before = frames_;
            // Only frames travel down a datagram path; anything else there is not the room's.
            if (!message_.empty() && is_frame_type(message_[0]))
                handle(message_, local_ms);
            else
                ++protocol_errors_;
            datagram_frames_ += frames_ - before;
            any_frame = any_frame || frames_ != before;
        }
    }
    if (status_ != Status::Joined) return;
    sample_frame_age(local_ms);
    // Acknowledgements and inputs take the datagram path when there is one.
    Transport& up = datagram_ ? *datagram_ : socket;
    if (any_frame && encode_ack(writer_)) send(up, local_ms);
    const bool steering = !input_.autopilot && input_.direction.length_squared() > 0.0f;
    if (input_dirty_ || (steering && local_ms >= next_input_ms_)) {
        ++input_.seq;
        writer_.clear();
        encode_input(writer_, input_);
        send(up, local_ms);
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
                                .err_mean_px = truth_on_ ? err_mean_px_.value_or(-1.0) : -1.0,
                                .transport = transport_.transport,
                                .frame_age_p50_ms = frame_age_p50_ms().value_or(-1.0),
                                .frame_age_p99_ms = frame_age_p99_ms().value_or(-1.0),
                                .stalls = stalls_});
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
            transport_.websocket_retransmits = told_.websocket_retransmits =
                setting_value(welcome_.settings, "websocket_retransmits", 0.0) == 1.0;
            stall_threshold_ms_ =
                3000.0 / std::clamp(setting_value(welcome_.settings, "send_hz", welcome_.tick_hz), 1.0, 1000.0);
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
            min_rtt_ms_ = min_rtt_ms_ < 0 ? rtt : std::min(min_rtt_ms_, rtt);
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
            if (const std::optional<std::uint64_t> t = frame_stamp(bytes)) {
                const double stamp = static_cast<double>(*t);
                const double offset = stamp - local_ms;
                if (local_ms - fastest_bucket_start_ms_ >= kFastestBucketMs) {  // the older bucket goes
                    fastest_offset_ms_[1] = fastest_offset_ms_[0];
                    fastest_known_[1] = fastest_known_[0];
                    fastest_known_[0] = false;
                    fastest_bucket_start_ms_ = local_ms;
                }
                if (!fastest_known_[0] || offset > fastest_offset_ms_[0]) fastest_offset_ms_[0] = offset;
                fastest_known_[0] = true;
                if (stamp > newest_stamp_ms_) {
                    newest_stamp_ms_ = stamp;
                    newest_arrival_ms_ = local_ms;
                    stalled_ = false;
                }
            }
            return;
        }
        case RoomMessage::TransportState: {
            TransportStateMessage m;
            if (decode_transport_state(bytes, m) != WireError::Ok) {
                ++protocol_errors_;
                return;
            }
            // The same state again with only the room's setting changed is no transport change.
            const bool same = m.transport == told_.transport && m.wanted == told_.wanted && m.why == told_.why;
            told_ = m;
            if (same) {
                transport_.websocket_retransmits = m.websocket_retransmits;
                return;
            }
            transport_ = std::move(m);
            ++transport_changes_;
            return;
        }
        case RoomMessage::RtcSignalOut: {
            RtcSignalMessage m;
            if (decode_rtc_signal_out(bytes, m) != WireError::Ok) {
                ++protocol_errors_;
                return;
            }
            if (rtc_in_.size() >= 64) rtc_in_.pop_front();
            rtc_in_.push_back(std::move(m));
            return;
        }
        case RoomMessage::UdpGrant:
            if (decode_udp_grant(bytes, udp_grant_) != WireError::Ok) {
                ++protocol_errors_;
                return;
            }
            udp_grant_new_ = true;
            return;
        default:
            break;
    }
    ++protocol_errors_;
}

void RoomRemote::sample_frame_age(double local_ms) {
    if (newest_stamp_ms_ < 0) return;
    if (!stalled_ && local_ms - newest_arrival_ms_ > stall_threshold_ms_) {
        stalled_ = true;
        ++stalls_;
    }
    const double fastest =
        fastest_known_[1] ? std::max(fastest_offset_ms_[0], fastest_offset_ms_[1]) : fastest_offset_ms_[0];
    const double age = std::max(0.0, local_ms + fastest - newest_stamp_ms_) + std::max(0.0, min_rtt_ms_) * 0.5;
    if (ages_.size() < kMaxAgeSamples) {
        ages_.push_back({local_ms, static_cast<float>(age)});
    } else {
        ages_[ages_next_] = {local_ms, static_cast<float>(age)};
        ages_next_ = (ages_next_ + 1) % kMaxAgeSamples;
    }
}

// Nearest-rank percentile of the samples inside the meter window (RateMeter::kWindowMs
// before the newest sample).
std::optional<double> RoomRemote::frame_age_percentile(double q) const {
    if (ages_.empty()) return std::nullopt;
    double newest = ages_.front().local_ms;
    for (const AgeSample& a : ages_) newest = std::max(newest, a.local_ms);
    age_scratch_.clear();
    for (const AgeSample& a : ages_) {
        if (newest - a.local_ms <= RateMeter::kWindowMs) age_scratch_.push_back(a.age_ms);
    }
    const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(age_scratch_.size())));
    const std::size_t k = std::min(age_scratch_.size() - 1, rank == 0 ? 0 : rank - 1);
    std::nth_element(age_scratch_.begin(), age_scratch_.begin() + static_cast<std::ptrdiff_t>(k), age_scratch_.end());
    return static_cast<double>(age_scratch_[k]);
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
