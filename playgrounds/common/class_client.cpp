#include "common/class_client.hpp"

#include <algorithm>

namespace vantage::play {

namespace {
constexpr std::size_t kHistory = 240;      // two minutes of seat tables at 2 Hz
constexpr double kFollowerPingMs = 20000;  // a third of the room's follower_idle_ms
}  // namespace

void ClassClient::open(Transport& socket, double local_ms) {
    writer_.clear();
    if (role_ == Role::Teacher) {
        encode_teacher_hello(writer_, {.protocol = kRoomProtocol, .build = room_build_id(), .token = token_});
    } else {
        encode_follow_hello(writer_, kRoomProtocol, room_build_id());
    }
    socket.send(local_ms, writer_.bytes());
    if (role_ == Role::Follower) status_ = Status::Open;  // a follower is not answered until a link
}

void ClassClient::closed(std::string reason) {
    if (status_ == Status::Refused) return;
    status_ = Status::Closed;
    reason_ = std::move(reason);
}

void ClassClient::command(Transport& socket, double local_ms, const CommandMessage& c) {
    if (role_ != Role::Teacher || status_ != Status::Open) return;
    writer_.clear();
    encode_command(writer_, c);
    if (writer_.ok()) socket.send(local_ms, writer_.bytes());
}

bool ClassClient::take_link(std::string& out) {
    if (!link_new_) return false;
    out = link_;
    link_new_ = false;
    return true;
}

void ClassClient::update(Transport& socket, double local_ms) {
    // A follower only listens, but the room closes one it has not heard from in a minute.
    if (role_ == Role::Follower && status_ == Status::Open && local_ms >= next_ping_ms_) {
        next_ping_ms_ = local_ms + kFollowerPingMs;
        writer_.clear();
        encode_ping(writer_, static_cast<std::uint64_t>(std::max(0.0, local_ms)));
        socket.send(local_ms, writer_.bytes());
    }
    while (socket.poll(local_ms, message_)) {
        if (message_.empty()) continue;
        switch (static_cast<RoomMessage>(message_[0])) {
            case RoomMessage::Refuse:
                if (decode_refuse(message_, reason_) != WireError::Ok) reason_ = "refused";
                status_ = Status::Refused;
                break;
            case RoomMessage::Error:
                decode_error(message_, last_error_);
                break;
            case RoomMessage::ClassInfo:
                if (decode_class_info(message_, info_) == WireError::Ok) status_ = Status::Open;
                break;
            case RoomMessage::SeatTable:
                if (decode_seat_table(message_, table_) != WireError::Ok) break;
                status_ = Status::Open;
                ++tables_;
                for (const SeatRow& row : table_.rows) {
                    SeatHistory& h = history_[std::to_string(row.seat + 1) + " " + row.name];
                    h.phantoms.push_back(static_cast<float>(std::max(0.0, row.meters.phantoms)));
                    h.err_px.push_back(static_cast<float>(std::max(0.0, row.meters.err_mean_px)));
                    if (h.phantoms.size() > kHistory) h.phantoms.erase(h.phantoms.begin());
                    if (h.err_px.size() > kHistory) h.err_px.erase(h.err_px.begin());
                }
                break;
            case RoomMessage::Link:
                if (decode_link(message_, link_) == WireError::Ok) {
                    link_new_ = true;
                    ++links_;
                }
                break;
            default:
                break;  // frames and the rest are a player's, not ours
        }
    }
}

}  // namespace vantage::play
