// RoomSocket: the app's connection to a room, as a lane Transport. One implementation per
// platform, chosen by CMake: the browser's WebSocket (emscripten/websocket.h) in the page,
// the native RoomClient on the desktop. The client code above it (HordeRemote) is the same.
// A platform may also open the seat's datagram path (UDP on the desktop, a WebRTC DataChannel
// in a page): drive_datagram() runs that policy each frame and hands the path to the
// RoomRemote (common/room_remote.hpp).
#pragma once

#include <memory>
#include <string>

#include "common/transport.hpp"

namespace vantage::play {

class RoomRemote;

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
    // Opens, follows and falls back from the seat's datagram path, once per frame after
    // remote.update(); a platform without one does nothing (the seat stays on this socket).
    virtual void drive_datagram(RoomRemote& remote, double local_ms) {
        (void)remote;
        (void)local_ms;
    }
    // The page's DataChannel: "off", "connecting", "open" or "failed"; "none" where the
    // platform has no DataChannel.
    virtual const char* datagram_state() const { return "none"; }
};

}  // namespace vantage::play
