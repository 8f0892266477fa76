// RoomSocket: the app's connection to a room, as a lane Transport. One implementation per
// platform, chosen by CMake: the browser's WebSocket (emscripten/websocket.h) in the page,
// the native RoomClient on the desktop. The client code above it (HordeRemote) is the same.
#pragma once

#include <memory>
#include <string>

#include "common/room_remote.hpp"
#include "common/transport.hpp"

namespace vantage::play {

class RoomSocket : public Transport {
public:
    enum class State { Connecting, Open, Closed };
    // Starts connecting to a ws:// URL (the page passes "" for its own origin's /ws).
    static std::unique_ptr<RoomSocket> connect(const std::string& url);
    virtual State state() const = 0;
    // Why it closed (the server's reason, or the error), once Closed.
    virtual std::string close_reason() const = 0;
    virtual void close() = 0;
    virtual const std::string& url() const = 0;
};

// The platform's datagram path beside the socket: a WebRTC DataChannel ({ordered: false,
// maxRetransmits: 0}) in a page, whose RTCPeerConnection the page's JS owns; none on the
// desktop (make() returns null there). As a Transport it carries the seat's frames down and
// its acknowledgements and inputs up, one message per datagram.
class RoomDatagram : public Transport {
public:
    static std::unique_ptr<RoomDatagram> make();
    // One frame: starts the channel once the seat is joined (and again whenever the room's
    // TransportState wants it), carries its signalling over `socket` through `remote`, stops
    // it when the room wants the WebSocket, and gives up after a few seconds without an open
    // channel (UDP blocked, an old browser), saying why through remote.note_transport(). While
    // the channel is open it is the remote's datagram path (set_datagram).
    virtual void update(RoomRemote& remote, Transport& socket, double local_ms) = 0;
    virtual void stop(RoomRemote& remote) = 0;
    // "off", "connecting", "open" or "failed", for the page's state().
    virtual const char* state_name() const = 0;
};

}  // namespace vantage::play
