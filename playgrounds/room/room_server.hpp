// Room server: one process, one thread, one port. It serves the web client's static files
// over HTTP and runs a WebSocket endpoint at /ws that carries opaque binary messages to and
// from a game-agnostic RoomHandler, which also gets a fixed-rate tick. Everything (accepts,
// reads, writes, the tick, the handler's callbacks) runs on the thread that called run(),
// so a handler needs no locking. Boost.Beast over Asio does the HTTP and WebSocket work; this
// header is Boost-free (pimpl) so game code does not pay Beast's compile cost.
//
// Wire and behaviour:
//   - Admission, at accept, before a byte is read: more than max_sockets TCP connections, or
//     max_http_connections still speaking HTTP, are answered "503 the room is busy"; more than
//     max_per_address from one source address, or new ones faster than new_per_address_per_s
//     (burst max_per_address), "429 too many connections from your address" (127.0.0.1 and
//     ::1, the room's own machine, are exempt unless limit_own_machine). The answer is
//     written and the socket closed at once (a refused socket holds no descriptor for long).
//     When the process runs out of descriptors (EMFILE/ENFILE) accept pauses 50 ms, doubling
//     to 500 ms, instead of spinning on the connection it cannot take.
//   - Host: every request's Host must name the room (localhost, 127.0.0.1, ::1, the bind
//     address or one of `hosts`); another (a DNS-rebinding page) gets 403, files and /ws alike.
//   - HTTP/1.1 on the same port: GET and HEAD of the allow-listed files only (`files`, or
//     web_root/page-files.txt, which the web build writes; `/` is index.html); everything else
//     404, other methods 405. Paths are percent-decoded before the checks; `..` segments,
//     absolute paths, NUL and symlinks resolving outside web_root are refused (403).
//     `<file>.gz` is served instead when it exists and Accept-Encoding allows gzip
//     (Content-Encoding: gzip, Vary: Accept-Encoding). Each variant has a strong ETag (size,
//     mtime, variant); If-None-Match answers 304. Cache-Control: no-cache (always revalidate).
//   - WebSocket upgrade only at /ws. When an Origin header is present its host[:port] must
//     equal the Host header (403 otherwise), so a page from another site cannot join. At
//     max_connections (handshakes in progress included, closing ones not) the upgrade gets 503
//     with the text body "the room is full (N connections): wait a few seconds, then reload".
//   - Messages are binary, one WebSocket frame each (no auto-fragmentation, no compression):
//     wire bytes out = payload + 2 (< 126 B), 4 (< 64 KiB) or 10 bytes of frame header. A text
//     message closes the connection with 1003; a protocol error gets 1002/1007 and an oversized
//     message 1009 (Beast); close() sends 1008 with a reason.
//   - Outbound: a bounded queue per connection with one write in flight. When it is full,
//     send() returns Dropped; a queue that stays full for slow_reader_close_s closes the
//     connection ("too slow: queue full for 5 s"), without a close handshake (the peer is not
//     reading). Inbound: a token bucket (rate max_inbound_per_s, burst one second's worth);
//     excess messages are dropped and counted, not delivered.
//   - Tick: absolute deadlines start + n * period (integer ns, no drift). A tick more than
//     two periods late skips ahead to the current period instead of firing a burst.
//
// Limits (RoomServerOptions defaults):
//   max_connections      160       WebSocket connections, handshakes included; more: 503
//   max_sockets          512       TCP connections of any kind; more: 503 and closed
//   max_http_connections 64        TCP connections not upgraded; more: 503 and closed
//   max_per_address      24        simultaneous TCP connections per source address; more: 429
//   new_per_address_per_s 8        new connections per second per address, burst 24; more: 429
//   max_message_bytes    4096      one inbound message, whole (fragments summed); more: 1009
//   max_queue_messages   64        outbound queue per connection (the write in flight included)
//   max_queue_bytes      1 MiB     outbound queue bytes per connection
//   max_inbound_per_s    240       inbound messages per second per connection, burst 240
//   handshake_timeout_s  5         first request on a new TCP connection, then the upgrade
//   idle_timeout_s       15        WebSocket silence before close; pings go out at half
//   http_timeout_s       10        reading one HTTP request (slowloris)
//   slow_reader_close_s  5         queue continuously full this long: closed
//   HTTP header          8 KiB     more: 431 / close; request bodies are refused (400)
//
// Not guaranteed: delivery of queued messages when a connection closes; on_close order
// relative to other connections' callbacks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vantage::room {

using ConnectionId = std::uint64_t;  // never reused within a server's life; 0 is never an id

struct RoomServerOptions {
    std::string bind = "127.0.0.1";         // address to bind; "::" = all interfaces (dual stack)
    std::uint16_t port = 8000;              // 0: an ephemeral port (tests)
    std::string web_root{};                 // static files come only from here (empty: no HTTP files, 404)
    std::vector<std::string> files{};       // the only files served, relative to web_root ("index.html",
                                            // "sub/index.html"); empty: read web_root/page-files.txt (one a line)
    std::vector<std::string> hosts{};       // names the room answers to besides localhost, 127.0.0.1 and
                                            // ::1 (its printed and LAN addresses); any other Host: 403
    int tick_hz = 60;                       // on_tick rate, [1, 240]
    std::size_t max_connections = 160;      // websocket connections not closing; more are refused (HTTP 503)
    std::size_t max_sockets = 512;          // TCP connections of every kind; more are answered 503 and closed
    std::size_t max_http_connections = 64;  // TCP connections still speaking HTTP (not upgraded); more: 503
    std::size_t max_per_address = 24;       // simultaneous TCP connections from one source address; more: 429
    double new_per_address_per_s = 8;       // new TCP connections per second from one address (token bucket,
                                            // burst max_per_address); more: 429
    bool limit_own_machine = false;         // hold 127.0.0.1 and ::1 (the teacher's machine) to the two
                                            // limits above too (other loopback addresses always are)
    std::size_t max_message_bytes = 4096;   // inbound websocket message, whole (read_message_max)
    std::size_t max_queue_messages = 64;    // outbound queue per connection, [1, ...)
    std::size_t max_queue_bytes = 1 << 20;  // outbound queue bytes per connection, [1, ...)
    double max_inbound_per_s = 240;         // messages per second per connection (token bucket, burst =
                                            // 1 s worth); excess messages are dropped and counted
    double handshake_timeout_s = 5.0;       // seconds, > 0
    double idle_timeout_s = 15.0;           // websocket idle, seconds (pings at half)
    double http_timeout_s = 10.0;           // reading one HTTP request after the first, seconds (slowloris)
    double slow_reader_close_s = 5.0;       // a connection whose queue stays full this long is closed
    std::string validate() const;           // empty when fine, else a message naming the field
};

enum class SendResult {
    Queued,
    Dropped,
    Unknown
};  // Dropped: queue full (counted); Unknown: no such
    // open connection (never opened, closed or closing)

struct ConnectionStats {
    std::uint64_t messages_out = 0, payload_bytes_out = 0,
                  wire_bytes_out = 0;  // written to the socket;
                                       // wire = payload + websocket frame header (2, 4 or 10 bytes unmasked)
    std::uint64_t messages_in = 0, payload_bytes_in = 0;  // delivered to on_message
    std::uint64_t dropped_out = 0;                        // queue full
    std::uint64_t dropped_in = 0;                         // rate limited
    std::size_t queued_messages = 0, queued_bytes = 0;    // now, the write in flight included
};

struct ServerStats {
    std::size_t connections = 0;        // open websocket connections (on_open fired, on_close not yet)
    std::uint64_t accepted = 0;         // websocket connections opened
    std::uint64_t refused = 0;          // upgrades refused: room full (503), Origin or Host (403)
    std::uint64_t refused_sockets = 0;  // TCP connections answered 429/503 at accept (per-address or caps)
    std::uint64_t accept_backoffs = 0;  // accept paused because the process ran out of descriptors
    std::uint64_t closed_slow = 0;      // closed because the outbound queue stayed full
    std::uint64_t closed_protocol = 0;  // closed for a text message, an oversized message or a bad frame
    std::uint64_t http_requests = 0;    // HTTP requests read (upgrades included), malformed ones too
    std::uint64_t http_errors = 0;      // answered with 4xx/5xx, or malformed (400 and close)
    std::uint64_t ticks = 0;
    double tick_late_ms_max = 0;   // how late on_tick fired against its absolute deadline
    std::uint64_t tick_skips = 0;  // periods skipped because a tick was more than two periods late
};

class RoomHandler {  // every callback runs on the server's one thread, so no locking
public:
    virtual ~RoomHandler() = default;
    virtual void on_open(ConnectionId id, std::string_view remote_address) = 0;  // "1.2.3.4:5678", "[::1]:5678"
    virtual void on_message(ConnectionId id,
                            std::span<const std::uint8_t> bytes) = 0;  // binary only; a text
                                                                       // message closes the connection (1003)
    virtual void on_close(ConnectionId id) = 0;  // exactly once per on_open, whatever the reason (stop() too)
    virtual void on_tick(double now_ms) = 0;     // monotonic ms since run() started (measured at wake-up);
                                                 // absolute deadlines start + n*period (integer ns), no drift
};

class RoomServer {
public:
    RoomServer(RoomServerOptions options, RoomHandler& handler);  // the handler outlives the server
    ~RoomServer();  // not while run() is executing on another thread: stop() and join first
    RoomServer(const RoomServer&) = delete;
    RoomServer& operator=(const RoomServer&) = delete;

    std::string listen();        // validates the options, binds and listens; empty or an error ("port 8000 is in use")
    std::uint16_t port() const;  // the bound port (after listen); any thread
    void run();                  // blocks until stop(); handles SIGINT/SIGTERM itself (asio signal_set) when
                                 // enabled by set_handle_signals(true); on_close fires for every open connection
    void set_handle_signals(bool on);  // before run()
    void stop();                       // thread-safe; also before run() (run() then returns at once)
    // Thread-safe: runs fn on the server thread, after what is already queued (for work that
    // arrives on other threads, e.g. GStreamer's, and must touch the room). Not run when the
    // server stops first.
    void post(std::function<void()> fn);

    // Only from handler callbacks (the server thread), or after run() returned:
    SendResult send(ConnectionId id, std::span<const std::uint8_t> bytes);
    void close(ConnectionId id, std::string_view reason);     // websocket close 1008 with the reason text (<= 120
                                                              // bytes), then on_close (later, never inside close())
    ConnectionStats connection_stats(ConnectionId id) const;  // zeros for unknown
    ServerStats stats() const;
    std::size_t open_connections() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace vantage::room
