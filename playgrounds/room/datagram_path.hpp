// DatagramPath: a seat's unreliable path beside its WebSocket. A seat's state frames and the
// acknowledgements and inputs that answer them are unreliable by nature: a frame that arrives
// late is worth less than the next one, and the delta stream repairs what is lost against what
// the client acknowledged. Over a WebSocket (TCP) a lost segment holds every later byte until
// it is resent (head-of-line blocking); over a datagram path a lost frame is simply gone.
//
// The room (GameRoom::attach_path) hands a seat's frames to its path, one message per
// datagram, and takes what the client sends back over it through GameRoom::on_datagram. The
// WebSocket keeps everything that must arrive (hello, welcome, roster, teacher commands,
// signalling, pongs and truth answers) and is every seat's fallback (GameRoom::detach_path).
// Two implementations: UDP with connect tokens for native clients and bots (udp.md), and a
// WebRTC DataChannel for browsers. The server half never knows which one a seat uses.
//
// Everything here runs on the room server's thread; a path whose events come from another
// thread (GStreamer's) hands them over with RoomServer::post. Boost-free.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "common/room_wire.hpp"

namespace vantage::room {

using play::SeatTransport;
using play::transport_name;

// A seat's unreliable path: carries its frames down and its acknowledgements and inputs up,
// one message per datagram. The room owns it (destroying it ends the connection under it).
class DatagramPath {
public:
    virtual ~DatagramPath() = default;
    virtual SeatTransport kind() const = 0;
    // One message (at most about 1,200 bytes: a frame). Server thread. False when the path
    // refused it (closed, full): the room counts it as dropped, as a full WebSocket queue is.
    virtual bool send(std::span<const std::uint8_t> bytes) = 0;
};

}  // namespace vantage::room
