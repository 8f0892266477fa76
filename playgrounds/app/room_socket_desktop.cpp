// RoomSocket on the desktop: the native RoomClient (Boost.Beast), the same one the bots use.
// connect() blocks for the handshake (at most 5 s) before the first frame; after that
// everything is polled from the frame loop. Once seated, the seat's frames move onto UDP
// (room/udp_seat_link.hpp), or stay here when UDP does not form within 3 s.
#include <deque>

#include "app/room_socket.hpp"
#include "room/room_client.hpp"
#include "room/udp_seat_link.hpp"

namespace vantage::play {

namespace {

class DesktopRoomSocket final : public RoomSocket {
public:
    explicit DesktopRoomSocket(std::string url) : url_(std::move(url)) {
        const std::string e = client_.connect(url_);
        if (!e.empty()) {
            state_ = State::Closed;
            reason_ = "could not join " + url_ + ": " + e;
        } else {
            state_ = State::Open;
        }
    }
    void send(double, std::span<const std::uint8_t> bytes) override {
        if (state_ == State::Open) client_.send(bytes);
    }
    bool poll(double, std::vector<std::uint8_t>& out) override {
        if (state_ != State::Open) return false;
        client_.poll();
        if (client_.receive(out)) return true;
        if (!client_.connected()) {
            state_ = State::Closed;
            reason_ = client_.close_reason();
        }
        return false;
    }
    State state() const override { return state_; }
    std::string close_reason() const override { return reason_; }
    void close() override {
        if (state_ == State::Open) client_.close();
        state_ = State::Closed;
        if (reason_.empty()) reason_ = "left the room";
    }
    const std::string& url() const override { return url_; }
    void drive_datagram(RoomRemote& remote, double local_ms) override {
        if (state_ == State::Open) udp_.drive(remote, *this, local_ms);
    }

private:
    std::string url_;
    room::RoomClient client_;
    room::UdpSeatLink udp_;
    State state_ = State::Connecting;
    std::string reason_;
};

}  // namespace

std::unique_ptr<RoomSocket> RoomSocket::connect(const std::string& url) {
    return std::make_unique<DesktopRoomSocket>(url);
}

}  // namespace vantage::play
