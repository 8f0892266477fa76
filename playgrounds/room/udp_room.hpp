// UdpRoom: a room's UDP door. It runs one UDP socket and the datagram server (UdpServer) on
// the room's own thread, from the tick (GameRoom calls pump() at the start of each), so
// nothing is locked and time is the room's. A seated client asks over its WebSocket for a
// connect token (GameRoom answers UdpRequest through grant()); the token is bound to the seat
// and expires. When a client connects with it, the seat's frames get a UDP path
// (GameRoom::attach_path); when the connection times out or the client leaves, the seat falls
// back to its WebSocket (detach_path) and is told why. What arrives over UDP is handed to the
// room exactly as the WebSocket's would be (GameRoom::on_datagram).
//
// Capacity: max_clients connections at once; a seat asking past it is told that UDP is full
// and stays on the WebSocket. Limits and the wire: udp.md.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "room/game_room.hpp"
#include "room/udp_server.hpp"
#include "room/udp_socket.hpp"
#include "room/udp_token.hpp"

namespace vantage::room {

struct UdpRoomOptions {
    UdpAddress bind{};                        // the socket's address (port 0: ephemeral)
    UdpAddress public_address{};              // what tokens name, as clients reach it; None: the bound address
    std::uint32_t max_clients = 256;          // UDP connections at once, [1, 4096]
    std::uint32_t token_lifetime_ms = 30000;  // from grant to expiry, [1000, 3600000]
    std::uint32_t timeout_ms = 3000;          // a connection silent this long ends (both sides), [100, 60000]
    std::string validate() const;             // empty when fine
};

struct UdpRoomStats {
    std::uint32_t connected = 0;       // connections now
    std::uint64_t grants = 0;          // tokens issued
    std::uint64_t refused_grants = 0;  // UdpRequests answered "full"
    std::uint64_t connects = 0, disconnects = 0;
    std::uint64_t refused = 0;  // datagrams the server refused (forged, replayed, ...)
    std::uint64_t datagrams_in = 0, datagrams_out = 0;
    std::uint64_t bytes_in = 0, bytes_out = 0;  // UDP payload bytes (no IP/UDP headers)
    std::uint64_t send_failures = 0;
};

class UdpRoom final : public UdpDoor {
public:
    UdpRoom(GameRoom& room, UdpRoomOptions options);
    ~UdpRoom() override;
    UdpRoom(const UdpRoom&) = delete;
    UdpRoom& operator=(const UdpRoom&) = delete;

    // Validates, binds and starts; empty or why not ("cannot bind udp 127.0.0.1:8001: ...").
    std::string open();
    UdpAddress local_address() const { return socket_.local_address(); }
    const UdpAddress& public_address() const { return public_; }

    bool grant(ConnectionId id, std::uint32_t seat, std::vector<std::uint8_t>& token, std::string& why) override;
    void pump(double now_ms) override;
    // Server thread (or after run() returned).
    UdpRoomStats stats() const;

private:
    class Path;
    struct Grant {
        std::uint64_t client_id = 0;
        ConnectionId connection = 0;
        std::uint64_t expire_ms = 0;
    };
    bool send(std::uint32_t index, std::uint64_t client_id, std::span<const std::uint8_t> bytes);
    void drop(std::uint32_t index, std::uint64_t client_id);

    GameRoom& room_;
    UdpRoomOptions options_;
    UdpAddress public_;
    UdpKey key_{};
    UdpSocket socket_;
    std::optional<UdpServer> server_;
    std::vector<Grant> grants_;
    std::vector<ConnectionId> slot_connection_;  // per client index; 0: none
    std::vector<std::uint64_t> slot_client_;
    std::uint64_t next_client_id_ = 0;
    std::uint64_t now_ms_ = 0;
    std::shared_ptr<UdpRoom*> self_;  // paths hold a weak copy: a path that outlives the door does nothing
    UdpRoomStats stats_;
    ByteWriter writer_;
};

// "1.2.3.4" or "::1"-free dotted IPv4 only, with a port; nullopt when it is not one.
std::optional<UdpAddress> parse_udp_v4(std::string_view dotted, std::uint16_t port);

}  // namespace vantage::room
