// RoomBot: a native client of a room, built from the page's own client code (HordeRemote or
// BlackholeRemote over a RoomClient socket). The room tests, the room benchmark, the soak run
// and the desktop app's --join all use it; a bot with autopilot on lets the server's script
// steer its player, so it plays like a person who never stops moving. A bot made with UDP on
// (UdpSeatLinkOptions::enabled) moves its seat's frames and acknowledgements onto UDP once
// seated (udp_seat_link.hpp), and stays on the WebSocket when UDP does not form.
#pragma once

#include <string>
#include <string_view>

#include "blackhole/blackhole_remote.hpp"
#include "common/transport.hpp"
#include "horde/horde_remote.hpp"
#include "room/room_client.hpp"
#include "room/udp_seat_link.hpp"

namespace vantage::room {

// The socket as a lane transport: messages out, messages in, the clock unused (the real
// network is the delay).
class ClientSocketTransport final : public play::Transport {
public:
    explicit ClientSocketTransport(RoomClient& socket) : socket_(socket) {}
    void send(double, std::span<const std::uint8_t> bytes) override { socket_.send(bytes); }
    bool poll(double, std::vector<std::uint8_t>& out) override {
        socket_.poll();
        return socket_.receive(out);
    }

private:
    RoomClient& socket_;
};

template <class Remote>
class RoomBot {
public:
    explicit RoomBot(play::RoomRemoteOptions options = {}, UdpSeatLinkOptions udp = {.enabled = false})
        : remote_(std::move(options)), udp_(udp) {}

    // Connects and says hello; empty or the connection's error.
    std::string join(std::string_view url, double local_ms) {
        std::string e = socket_.connect(url);
        if (!e.empty()) return e;
        remote_.open(transport_, local_ms);
        return {};
    }
    // One frame of the client: network in, what is due out, held enemies moved by dt_s.
    void update(double local_ms, float dt_s) {
        remote_.update(transport_, local_ms, dt_s);
        udp_.drive(remote_, transport_, local_ms);
        socket_.poll();
        if (!socket_.connected() && remote_.status() != play::RoomRemote::Status::Closed &&
            remote_.status() != play::RoomRemote::Status::Refused) {
            remote_.closed(socket_.close_reason());
        }
    }
    void leave() {
        udp_.stop(remote_, 0.0);
        socket_.close();
    }

    Remote& remote() { return remote_; }
    const Remote& remote() const { return remote_; }
    RoomClient& socket() { return socket_; }
    play::Transport& socket_transport() { return transport_; }
    UdpSeatLink& udp() { return udp_; }

private:
    RoomClient socket_;
    ClientSocketTransport transport_{socket_};
    Remote remote_;
    UdpSeatLink udp_;
};

using HordeBot = RoomBot<play::HordeRemote>;
using BlackholeBot = RoomBot<play::BlackholeRemote>;

}  // namespace vantage::room
