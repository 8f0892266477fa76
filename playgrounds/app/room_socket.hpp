// RoomSocket: the app's connection to a room, as a lane Transport. One implementation per
// platform, chosen by CMake: the browser's WebSocket (emscripten/websocket.h) in the page,
// the native RoomClient on the desktop. The client code above it (HordeRemote) is the same.
#pragma once

#include <memory>
#include <string>

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

}  // namespace vantage::play
