// UdpSeatLink: a native client's UDP path to its room seat (the desktop app's --join and the
// load bots). It is the client's policy around UdpClient and a UdpSocket:
//   joined         -> asks the room for a token over the WebSocket (UdpRequest)
//   UdpGrant       -> connects with it (the request, the challenge, the keep-alive)
//   connected      -> hands itself to the RoomRemote as its datagram path: frames arrive
//                     here, acknowledgements and inputs leave here
//   no token, no connection within connect_timeout_ms, or the connection drops
//                  -> the seat stays on (or returns to) the WebSocket and the client says why
// and it follows the room's TransportState: a seat the teacher moves to UDP asks again, one
// moved to the WebSocket drops its connection.
//
// Poll-driven like RoomClient: no thread; drive() and the RoomRemote's update() move it. The
// clock is the caller's (ms, monotonic).
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/room_remote.hpp"
#include "common/transport.hpp"
#include "room/udp_client.hpp"
#include "room/udp_socket.hpp"

namespace vantage::room {

struct UdpSeatLinkOptions {
    bool enabled = true;                 // false: never asks (a WebSocket-only client)
    double connect_timeout_ms = 3000.0;  // from asking to connected, else the WebSocket, (0, 60000]
};

class UdpSeatLink final : public play::Transport {
public:
    enum class Phase { Off, Asked, Connecting, Connected, Failed };

    explicit UdpSeatLink(UdpSeatLinkOptions options = {}) : options_(options) {}

    // One step of the policy above; call every client frame after remote.update().
    void drive(play::RoomRemote& remote, play::Transport& socket, double local_ms);
    // Ends the connection (disconnect packets) and leaves the remote on its WebSocket.
    void stop(play::RoomRemote& remote, double local_ms);

    // The datagram path, as the RoomRemote uses it.
    void send(double now_ms, std::span<const std::uint8_t> bytes) override;
    bool poll(double now_ms, std::vector<std::uint8_t>& out) override;

    Phase phase() const { return phase_; }
    const UdpSocket& socket() const { return socket_; }
    std::uint64_t refused() const;  // datagrams the client refused (forged, replayed, stray)

private:
    void service(std::uint64_t now_ms);
    void fail(play::RoomRemote& remote, const std::string& why);
    void ask(play::RoomRemote& remote, play::Transport& socket, double local_ms);

    UdpSeatLinkOptions options_;
    Phase phase_ = Phase::Off;
    UdpSocket socket_;
    std::optional<UdpClient> client_;
    std::deque<std::vector<std::uint8_t>> inbox_;
    std::vector<std::uint8_t> token_bytes_;
    double started_ms_ = 0;
    std::uint64_t seen_changes_ = 0;
    std::uint64_t refused_ = 0;
};

}  // namespace vantage::room
