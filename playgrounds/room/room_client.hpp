// Room client: one native WebSocket connection to a RoomServer, for bots, tests and the
// desktop app. It owns its own io_context and never starts a thread: connect() blocks until
// the handshake is done (or fails), then poll() runs whatever is ready (reads, the queued
// writes, one async_write at a time) without blocking. Messages are binary. The browser
// client does not use this (it talks through emscripten/websocket.h). Boost-free header.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vantage::room {

class RoomClient {  // one connection; its own io_context; single-threaded; poll-driven (no threads)
public:
    RoomClient();
    ~RoomClient();
    RoomClient(const RoomClient&) = delete;
    RoomClient& operator=(const RoomClient&) = delete;

    // "ws://HOST:PORT/PATH"; blocking connect + handshake within timeout_s seconds; empty or an
    // error ("server refused: 429 too many connections from your address ..."). One connect per client.
    std::string connect(std::string_view url, double timeout_s = 5.0);
    bool connected() const;                          // false once the connection closed, for whatever reason
    void send(std::span<const std::uint8_t> bytes);  // binary message, queued (unbounded), async write one at a time
    void send_text(std::string_view text);           // test hook: a text message (the server closes with 1003)
    void poll();                                     // runs ready handlers without blocking (io_context.poll)
    bool receive(std::vector<std::uint8_t>& out);    // next received binary message, false if none
    std::string close_reason() const;  // after the server closed us: its reason text, else "close code N",
                                       // else the socket error; empty while connected
    std::uint16_t close_code() const;  // the server's close code (1008, 1009, ...), 0 if none was received
    void close();  // websocket close 1000, waits up to 1 s for the server's reply, then drops the socket
    std::uint64_t payload_bytes_in() const;
    std::uint64_t payload_bytes_out() const;  // written to the socket
    void set_paused_reading(bool paused);     // test hook: stop issuing reads (a client that stops reading)

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace vantage::room
