// Room server implementation: Boost.Beast over Asio on one io_context, one thread.
// Sessions are shared_ptr-owned by their pending operations (the usual Asio pattern); the
// server keeps WebSocket sessions in a map (id -> session) and HTTP sessions as weak
// pointers so stop() can close them. Session destructors never call back into the server,
// so they are safe while the io_context is torn down.
#include <utility>  // before Boost: g++ 12 in C++20 fails in asio/awaitable.hpp without it

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ip/v6_only.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cassert>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <optional>
#include <system_error>
#include <unordered_map>
#include <vector>

#include "room/room_server.hpp"

namespace vantage::room {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
namespace fs = std::filesystem;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::size_t kHeaderLimitBytes = 8 * 1024;
constexpr std::size_t kCloseReasonMaxBytes = 120;  // a close frame's payload is at most 125 bytes

std::chrono::nanoseconds seconds_to_ns(double s) {
    return std::chrono::nanoseconds(static_cast<std::int64_t>(s * 1e9));
}

std::string_view to_std(beast::string_view s) {
    return {s.data(), s.size()};
}

std::size_t frame_header_bytes(std::size_t payload) {
    return payload < 126 ? 2 : payload < 65536 ? 4 : 10;
}

// Cut at <= max bytes without splitting a UTF-8 sequence (close reasons must be valid UTF-8).
std::string truncate_utf8(std::string_view text, std::size_t max) {
    if (text.size() <= max) return std::string(text);
    std::size_t n = max;
    while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
    return std::string(text.substr(0, n));
}

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
        if (lower(a[i]) != lower(b[i])) return false;
    }
    return true;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

// Calls f(token) for each comma-separated item of a header value, trimmed.
template <class F>
void for_each_item(std::string_view list, F&& f) {
    while (!list.empty()) {
        const std::size_t comma = list.find(',');
        f(trim(list.substr(0, comma)));
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
    }
}

bool accepts_gzip(std::string_view accept_encoding) {
    bool yes = false;
    for_each_item(accept_encoding, [&](std::string_view item) {
        const std::size_t semi = item.find(';');
        if (!iequals(trim(item.substr(0, semi)), "gzip")) return;
        bool zero = false;
        if (semi != std::string_view::npos) {
            std::string_view params = trim(item.substr(semi + 1));
            if (params.substr(0, 2) == "q=" || params.substr(0, 2) == "Q=") {
                const std::string_view q = params.substr(2);
                zero = q.find_first_not_of("0.") == std::string_view::npos;
            }
        }
        yes = !zero;
    });
    return yes;
}

bool etag_matches(std::string_view if_none_match, std::string_view etag) {
    bool match = false;
    for_each_item(if_none_match, [&](std::string_view item) {
        if (item == "*") match = true;
        if (item.substr(0, 2) == "W/") item.remove_prefix(2);  // If-None-Match compares weakly (RFC 9110)
        if (item == etag) match = true;
    });
    return match;
}

const char* content_type_for(const fs::path& path) {
    const std::string ext = path.extension().string();
    if (ext == ".html") return "text/html; charset=utf-8";
    if (ext == ".js" || ext == ".mjs") return "text/javascript; charset=utf-8";
    if (ext == ".css") return "text/css; charset=utf-8";
    if (ext == ".wasm") return "application/wasm";  // else Chromium falls back from streaming compile
    if (ext == ".png") return "image/png";
    if (ext == ".svg") return "image/svg+xml";
    if (ext == ".json") return "application/json";
    if (ext == ".txt" || ext == ".ini") return "text/plain; charset=utf-8";
    return "application/octet-stream";
}

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// "host:port" of an Origin ("http://host:port"), with the scheme's default port removed.
std::string origin_authority(std::string_view origin, std::string_view& scheme) {
    const std::size_t sep = origin.find("://");
    if (sep == std::string_view::npos) return {};
    scheme = origin.substr(0, sep);
    std::string_view authority = origin.substr(sep + 3);
    authority = authority.substr(0, authority.find('/'));
    std::string out(authority);
    if (iequals(scheme, "http") && out.size() > 3 && out.ends_with(":80")) out.resize(out.size() - 3);
    if (iequals(scheme, "https") && out.size() > 4 && out.ends_with(":443")) out.resize(out.size() - 4);
    return out;
}

bool origin_allowed(const http::request<http::empty_body>& req) {
    const auto origin_it = req.find(http::field::origin);
    if (origin_it == req.end()) return true;  // not a browser page (bots, the desktop app)
    const auto host_it = req.find(http::field::host);
    if (host_it == req.end()) return false;
    std::string_view scheme;
    const std::string origin = origin_authority(to_std(origin_it->value()), scheme);
    std::string host(trim(to_std(host_it->value())));
    if (iequals(scheme, "http") && host.size() > 3 && host.ends_with(":80")) host.resize(host.size() - 3);
    if (iequals(scheme, "https") && host.size() > 4 && host.ends_with(":443")) host.resize(host.size() - 4);
    return !origin.empty() && iequals(origin, host);
}

std::string endpoint_text(const tcp::endpoint& ep) {
    asio::ip::address a = ep.address();
    if (a.is_v6() && a.to_v6().is_v4_mapped()) a = asio::ip::make_address_v4(asio::ip::v4_mapped, a.to_v6());
    const std::string host = a.to_string();
    return (a.is_v6() ? "[" + host + "]" : host) + ":" + std::to_string(ep.port());
}

// The source address alone, without the port ("1.2.3.4", "::1"), IPv4-mapped shown as IPv4.
std::string address_text(const tcp::endpoint& ep) {
    asio::ip::address a = ep.address();
    if (a.is_v6() && a.to_v6().is_v4_mapped()) a = asio::ip::make_address_v4(asio::ip::v4_mapped, a.to_v6());
    return a.to_string();
}

// The name part of a Host header ("Example:8000" -> "example", "[::1]:8000" -> "::1").
std::string host_name(std::string_view host) {
    host = trim(host);
    std::string_view name = host;
    if (!host.empty() && host.front() == '[') {
        const std::size_t close = host.find(']');
        name = close == std::string_view::npos ? std::string_view{} : host.substr(1, close - 1);
    } else if (const std::size_t colon = host.rfind(':'); colon != std::string_view::npos) {
        name = host.substr(0, colon);
    }
    std::string out(name);
    for (char& c : out) c = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
    if (!out.empty() && out.back() == '.') out.pop_back();  // "localhost." is localhost
    return out;
}

// An HTTP answer written before any request was read, for a socket refused at accept.
std::string canned_response(int status, std::string_view reason, std::string_view text) {
    std::string body(text);
    body += '\n';
    return "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason) +
           "\r\nContent-Type: text/plain; charset=utf-8\r\nCache-Control: no-store\r\nConnection: close\r\n"
           "Content-Length: " +
           std::to_string(body.size()) + "\r\n\r\n" + body;
}

}  // namespace

std::string RoomServerOptions::validate() const {
    const auto positive = [](double v) { return std::isfinite(v) && v > 0; };
    if (bind.empty()) return "bind must not be empty (\"127.0.0.1\", \"::\", ...)";
    if (tick_hz < 1 || tick_hz > 240) return "tick_hz must be in [1, 240] (got " + std::to_string(tick_hz) + ")";
    if (max_connections < 1) return "max_connections must be at least 1";
    if (max_sockets < 1) return "max_sockets must be at least 1";
    if (max_http_connections < 1) return "max_http_connections must be at least 1";
    if (max_per_address < 1) return "max_per_address must be at least 1";
    if (!positive(new_per_address_per_s)) return "new_per_address_per_s must be > 0";
    if (max_message_bytes < 1) return "max_message_bytes must be at least 1";
    if (max_queue_messages < 1) return "max_queue_messages must be at least 1";
    if (max_queue_bytes < 1) return "max_queue_bytes must be at least 1";
    if (!positive(max_inbound_per_s)) return "max_inbound_per_s must be > 0";
    if (!positive(handshake_timeout_s)) return "handshake_timeout_s must be > 0";
    if (!positive(idle_timeout_s)) return "idle_timeout_s must be > 0";
    if (!positive(http_timeout_s)) return "http_timeout_s must be > 0";
    if (!positive(slow_reader_close_s)) return "slow_reader_close_s must be > 0";
    return {};
}

// --- Server state --------------------------------------------------------------------------

class WsSession;
class HttpSession;

// What each source address holds and how fast it has been opening connections. Declared
// before the io_context so that sessions destroyed with its handlers can still give back
// their place.
struct Door {
    struct Address {
        std::size_t open = 0;  // TCP connections from it now, of any kind
        double tokens = 0;     // new connections it may still open at once
        Clock::time_point refill;
    };
    std::unordered_map<std::string, Address> addresses;
    std::size_t sockets = 0;   // TCP connections now (HTTP and WebSocket)
    std::size_t http = 0;      // of which still speaking HTTP
    std::size_t refusing = 0;  // refused sockets whose answer is still being written

    void release(const std::string& address) {
        --sockets;
        const auto it = addresses.find(address);
        if (it != addresses.end() && it->second.open > 0) --it->second.open;
    }
};

// One TCP connection's place at the door, given back when the last session holding it goes.
struct Place {
    Door& door;
    std::string address;
    Place(Door& d, std::string a) : door(d), address(std::move(a)) {}
    ~Place() { door.release(address); }
    Place(const Place&) = delete;
    Place& operator=(const Place&) = delete;
};

struct ServerCore {
    Door door;  // before the io_context: see Door
    // Declared before the rest so it is destroyed after it: every socket and timer below refers to it.
    asio::io_context ioc{1};
    RoomServerOptions options;
    RoomHandler& handler;
    tcp::acceptor acceptor{ioc};
    asio::steady_timer accept_timer{ioc};  // the pause after running out of descriptors
    std::chrono::milliseconds accept_pause{0};
    asio::steady_timer tick_timer{ioc};
    asio::signal_set signals{ioc};
    std::atomic<std::uint16_t> bound_port{0};
    bool handle_signals = false;
    bool stopping = false;
    fs::path root;                   // canonical web_root, empty when no files are served
    std::vector<std::string> files;  // the allow-list, relative to root, sorted
    std::vector<std::string> hosts;  // names the room answers to, lower case
    std::size_t ws_live = 0;         // websocket sessions not closing (the max_connections count)

    std::unordered_map<ConnectionId, std::shared_ptr<WsSession>> ws_sessions;  // handshakes included
    std::unordered_map<std::uint64_t, std::weak_ptr<HttpSession>> http_sessions;
    ConnectionId next_ws_id = 1;
    std::uint64_t next_http_id = 1;
    std::size_t open_count = 0;
    ServerStats stats;

    Clock::time_point tick_start;
    std::int64_t tick_n = 0;

    ServerCore(RoomServerOptions o, RoomHandler& h) : options(std::move(o)), handler(h) {}

    std::chrono::nanoseconds period_offset(std::int64_t n) const {
        return std::chrono::nanoseconds(n * 1'000'000'000LL / options.tick_hz);
    }
    void do_accept();
    void admit(tcp::socket socket);
    void refuse_socket(tcp::socket socket, int status, std::string_view reason, std::string_view text);
    bool host_allowed(std::string_view host) const {
        return std::find(hosts.begin(), hosts.end(), host_name(host)) != hosts.end();
    }
    void arm_tick();
    void on_tick_timer();
    void do_stop();
    WsSession* find_open(ConnectionId id) const;
};

// --- WebSocket session ---------------------------------------------------------------------

class WsSession : public std::enable_shared_from_this<WsSession> {
public:
    WsSession(ServerCore& server, ConnectionId id, tcp::socket socket, std::shared_ptr<Place> place)
        : server_(server), id_(id), ws_(std::move(socket)), place_(std::move(place)) {
        ++server_.ws_live;
    }

    ConnectionId id() const { return id_; }
    bool opened() const { return opened_ && !finished_; }
    bool usable() const { return opened() && !closing_; }
    const ConnectionStats& stats() const { return stats_; }
    std::optional<Clock::time_point> full_since() const { return full_since_; }

    void start(http::request<http::empty_body> req) {
        req_ = std::move(req);
        beast::get_lowest_layer(ws_).expires_never();  // the websocket stream times itself
        websocket::stream_base::timeout t{};
        t.handshake_timeout = seconds_to_ns(server_.options.handshake_timeout_s);
        t.idle_timeout = seconds_to_ns(server_.options.idle_timeout_s);
        t.keep_alive_pings = true;
        ws_.set_option(t);
        ws_.read_message_max(server_.options.max_message_bytes);
        ws_.auto_fragment(false);  // one frame per message: wire bytes = payload + header
        ws_.binary(true);
        ws_.async_accept(req_, [self = shared_from_this()](beast::error_code ec) { self->on_accept(ec); });
    }

    SendResult send(std::span<const std::uint8_t> bytes) {
        if (!usable()) return SendResult::Unknown;
        const auto& o = server_.options;
        if (queue_.size() >= o.max_queue_messages || stats_.queued_bytes + bytes.size() > o.max_queue_bytes) {
            ++stats_.dropped_out;
            // A message larger than the whole byte budget does not make an empty queue "full".
            if (!full_since_ && !queue_.empty()) full_since_ = Clock::now();
            check_slow(Clock::now());
            return SendResult::Dropped;
        }
        queue_.emplace_back(bytes.begin(), bytes.end());
        stats_.queued_bytes += bytes.size();
        stats_.queued_messages = queue_.size();
        if (queue_.size() >= o.max_queue_messages && !full_since_) full_since_ = Clock::now();
        if (!writing_) do_write();
        return SendResult::Queued;
    }

    // Closes a connection whose queue has stayed full for slow_reader_close_s. No close
    // handshake: the peer is not reading, so a close frame would wait behind the stuck write.
    void check_slow(Clock::time_point now) {
        if (!full_since_ || closing_ || finished_) return;
        if (now - *full_since_ < seconds_to_ns(server_.options.slow_reader_close_s)) return;
        ++server_.stats.closed_slow;
        closing_ = true;
        close_reason_ = "too slow: queue full for " + std::to_string(server_.options.slow_reader_close_s) + " s";
        hard_close();
    }

    // A close handshake with a code and a reason, after the write in flight (Beast allows one
    // write-side operation at a time). A guard timer drops the socket if it does not finish.
    void begin_close(websocket::close_code code, std::string_view reason) {
        if (closing_ || finished_) return;
        closing_ = true;
        leave_live();
        close_reason_ = truncate_utf8(reason, kCloseReasonMaxBytes);
        close_code_ = code;
        while (queue_.size() > (writing_ ? 1u : 0u)) {
            stats_.queued_bytes -= queue_.back().size();
            queue_.pop_back();
        }
        stats_.queued_messages = queue_.size();
        guard_.emplace(server_.ioc);
        guard_->expires_after(seconds_to_ns(server_.options.handshake_timeout_s) + std::chrono::milliseconds(100));
        guard_->async_wait([self = shared_from_this()](beast::error_code ec) {
            if (!ec) self->hard_close();
        });
        if (!writing_) do_close();
    }

    void hard_close() {
        beast::error_code ignored;
        beast::get_lowest_layer(ws_).socket().shutdown(tcp::socket::shutdown_both, ignored);
        beast::get_lowest_layer(ws_).close();
        leave_live();
    }

    // A closing session no longer counts against max_connections (its socket still holds a
    // place at the door until it is gone).
    void leave_live() {
        if (!live_) return;
        live_ = false;
        --server_.ws_live;
    }

    // Exactly once per opened session: leaves the map and tells the handler.
    void finish() {
        if (finished_) return;
        const bool was_open = opened_;
        finished_ = true;
        leave_live();
        if (guard_) guard_->cancel();
        server_.ws_sessions.erase(id_);  // may drop the map's reference; callers hold their own
        if (was_open) {
            --server_.open_count;
            server_.handler.on_close(id_);
        }
    }

private:
    void on_accept(beast::error_code ec) {
        if (finished_) return;
        if (ec) {  // handshake failed or timed out: never opened, so no on_close
            hard_close();
            finish();
            return;
        }
        opened_ = true;
        ++server_.open_count;
        ++server_.stats.accepted;
        last_refill_ = Clock::now();
        tokens_ = std::max(1.0, server_.options.max_inbound_per_s);  // burst: one second's worth
        beast::error_code ep_ec;
        const tcp::endpoint remote = beast::get_lowest_layer(ws_).socket().remote_endpoint(ep_ec);
        const auto self = shared_from_this();  // the handler may close() us inside on_open
        server_.handler.on_open(id_, ep_ec ? std::string("?") : endpoint_text(remote));
        if (!finished_) do_read();
    }

    void do_read() {
        ws_.async_read(read_buf_,
                       [self = shared_from_this()](beast::error_code ec, std::size_t n) { self->on_read(ec, n); });
    }

    void on_read(beast::error_code ec, std::size_t n) {
        if (finished_) return;
        if (ec) {
            // closed: a clean close handshake (ours or theirs). Anything else in the websocket
            // category is a protocol failure Beast already answered (1002/1007/1009).
            const bool transport = ec == websocket::error::closed || ec == beast::error::timeout ||
                                   ec == asio::error::operation_aborted || ec == asio::error::eof ||
                                   ec == asio::error::connection_reset || ec == asio::error::broken_pipe ||
                                   ec == asio::error::not_connected || ec == http::error::end_of_stream;
            if (!closing_ && !transport) ++server_.stats.closed_protocol;
            hard_close();
            finish();
            return;
        }
        if (!ws_.got_binary()) {
            read_buf_.consume(read_buf_.size());
            ++server_.stats.closed_protocol;
            begin_close(websocket::close_code::unknown_data, "binary messages only");
            do_read();  // the close reply arrives through the read
            return;
        }
        if (!closing_) {
            const Clock::time_point now = Clock::now();
            const double rate = server_.options.max_inbound_per_s;
            tokens_ = std::min(std::max(1.0, rate),
                               tokens_ + std::chrono::duration<double>(now - last_refill_).count() * rate);
            last_refill_ = now;
            if (tokens_ >= 1.0) {
                tokens_ -= 1.0;
                ++stats_.messages_in;
                stats_.payload_bytes_in += n;
                const auto data = read_buf_.cdata();
                const auto self = shared_from_this();
                server_.handler.on_message(
                    id_, std::span<const std::uint8_t>(static_cast<const std::uint8_t*>(data.data()), data.size()));
            } else {
                ++stats_.dropped_in;
            }
        }
        read_buf_.consume(read_buf_.size());
        if (!finished_) do_read();
    }

    void do_write() {
        writing_ = true;
        ws_.async_write(asio::buffer(queue_.front()),
                        [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_write(ec); });
    }

    void on_write(beast::error_code ec) {
        writing_ = false;
        if (finished_) return;
        if (ec) {
            hard_close();  // the read completes with an error and finishes the session
            return;
        }
        const std::size_t size = queue_.front().size();
        ++stats_.messages_out;
        stats_.payload_bytes_out += size;
        stats_.wire_bytes_out += size + frame_header_bytes(size);
        stats_.queued_bytes -= size;
        queue_.pop_front();
        stats_.queued_messages = queue_.size();
        full_since_.reset();  // room again
        if (closing_) {
            if (close_code_ && !close_sent_) do_close();
            return;
        }
        if (!queue_.empty()) do_write();
    }

    void do_close() {
        if (close_sent_) return;
        close_sent_ = true;
        websocket::close_reason cr(close_code_.value_or(websocket::close_code::policy_error));
        cr.reason = beast::string_view(close_reason_.data(), close_reason_.size());
        ws_.async_close(cr, [self = shared_from_this()](beast::error_code ec) {
            if (ec) self->hard_close();  // the pending read then finishes the session
        });
    }

    ServerCore& server_;
    ConnectionId id_;
    websocket::stream<beast::tcp_stream> ws_;
    std::shared_ptr<Place> place_;  // this socket's place at the door
    http::request<http::empty_body> req_;
    beast::flat_buffer read_buf_;
    std::deque<std::vector<std::uint8_t>> queue_;  // front is the write in flight when writing_
    ConnectionStats stats_;
    std::optional<Clock::time_point> full_since_;
    std::optional<asio::steady_timer> guard_;
    std::optional<websocket::close_code> close_code_;
    std::string close_reason_;
    Clock::time_point last_refill_;
    double tokens_ = 0;
    bool opened_ = false, finished_ = false, closing_ = false, writing_ = false, close_sent_ = false, live_ = true;
};

// --- HTTP session --------------------------------------------------------------------------

class HttpSession : public std::enable_shared_from_this<HttpSession> {
public:
    HttpSession(ServerCore& server, std::uint64_t key, tcp::socket socket, std::shared_ptr<Place> place)
        : server_(server), key_(key), stream_(std::move(socket)), place_(std::move(place)) {
        ++server_.door.http;
    }
    ~HttpSession() { leave_http(); }
    HttpSession(const HttpSession&) = delete;
    HttpSession& operator=(const HttpSession&) = delete;

    void start() { do_read(); }
    void close() {
        beast::error_code ignored;
        stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
        stream_.close();
    }

private:
    void do_read() {
        parser_.emplace();
        parser_->header_limit(kHeaderLimitBytes);
        parser_->body_limit(0);
        // The first request on a new TCP connection may be a websocket handshake: it gets the
        // handshake deadline when that is the shorter one.
        double timeout_s = server_.options.http_timeout_s;
        if (first_) timeout_s = std::min(timeout_s, server_.options.handshake_timeout_s);
        first_ = false;
        stream_.expires_after(seconds_to_ns(timeout_s));
        http::async_read(stream_, buffer_, *parser_,
                         [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
    }

    void on_read(beast::error_code ec) {
        if (server_.stopping) return;
        if (ec == http::error::end_of_stream || ec == beast::error::timeout || ec == asio::error::operation_aborted ||
            ec == asio::error::connection_reset || ec == asio::error::eof) {
            if (ec == beast::error::timeout) ++server_.stats.http_errors;
            return done();
        }
        ++server_.stats.http_requests;
        if (ec) {  // malformed: answer and close
            const bool too_big = ec == http::error::header_limit;
            return send_text(too_big ? http::status::request_header_fields_too_large : http::status::bad_request,
                             too_big ? "request header too large\n" : "bad request\n", 11, true);
        }
        http::request<http::empty_body> req = parser_->release();
        const auto host_it = req.find(http::field::host);
        if (host_it == req.end() || !server_.host_allowed(to_std(host_it->value()))) {
            if (websocket::is_upgrade(req)) ++server_.stats.refused;
            return send_text(http::status::forbidden,
                             "this room answers only to its own addresses: open the URL the room printed\n",
                             req.version(), true);
        }
        if (websocket::is_upgrade(req)) return upgrade(std::move(req));
        serve_file(req);
    }

    void upgrade(http::request<http::empty_body> req) {
        const unsigned version = req.version();
        const std::string_view target = to_std(req.target());
        if (target != "/ws" && target.substr(0, 4) != "/ws?") {
            return send_text(http::status::not_found, "websocket endpoint is /ws\n", version, true);
        }
        if (!origin_allowed(req)) {
            ++server_.stats.refused;
            return send_text(http::status::forbidden, "origin does not match host\n", version, true);
        }
        if (server_.ws_live >= server_.options.max_connections) {
            ++server_.stats.refused;
            return send_text(http::status::service_unavailable,
                             "the room is full (" + std::to_string(server_.options.max_connections) +
                                 " connections): wait a few seconds, then reload",
                             version, true);
        }
        const ConnectionId id = server_.next_ws_id++;
        leave_http();
        auto ws = std::make_shared<WsSession>(server_, id, stream_.release_socket(), place_);
        server_.ws_sessions.emplace(id, ws);
        server_.http_sessions.erase(key_);
        ws->start(std::move(req));
    }

    void serve_file(const http::request<http::empty_body>& req) {
        const unsigned version = req.version();
        const bool keep = req.keep_alive();
        if (req.method() != http::verb::get && req.method() != http::verb::head) {
            auto res = std::make_shared<http::response<http::string_body>>(http::status::method_not_allowed, version);
            res->set(http::field::allow, "GET, HEAD");
            res->set(http::field::content_type, "text/plain; charset=utf-8");
            res->body() = "only GET and HEAD\n";
            res->keep_alive(keep);
            res->prepare_payload();
            return write(std::move(res), !keep);
        }
        fs::path file;
        if (const http::status st = resolve(to_std(req.target()), file); st != http::status::ok) {
            return send_text(st, std::string(to_std(http::obsolete_reason(st))) + "\n", version, !keep);
        }
        std::error_code fec;
        fs::path chosen = file;
        bool gzip = false;
        const fs::path gz = fs::path(file.string() + ".gz");
        const bool has_gz = fs::is_regular_file(gz, fec) && inside_root(gz);
        if (has_gz) {
            const auto ae = req.find(http::field::accept_encoding);
            if (ae != req.end() && accepts_gzip(to_std(ae->value()))) {
                chosen = gz;
                gzip = true;
            }
        }
        const std::uintmax_t size = fs::file_size(chosen, fec);
        if (fec) return send_text(http::status::not_found, "Not Found\n", version, !keep);
        const auto mtime = fs::last_write_time(chosen, fec).time_since_epoch().count();
        char etag[80];
        std::snprintf(etag, sizeof etag, "\"%llx-%llx%s\"", static_cast<unsigned long long>(size),
                      static_cast<unsigned long long>(mtime), gzip ? "-gz" : "");

        const auto set_common = [&](auto& res) {
            res.set(http::field::etag, etag);
            res.set(http::field::cache_control, "no-cache");
            if (has_gz) res.set(http::field::vary, "Accept-Encoding");
            res.keep_alive(keep);
        };
        const auto inm = req.find(http::field::if_none_match);
        if (inm != req.end() && etag_matches(to_std(inm->value()), etag)) {
            auto res = std::make_shared<http::response<http::empty_body>>(http::status::not_modified, version);
            set_common(*res);
            return write(std::move(res), !keep);
        }
        const auto set_entity = [&](auto& res) {
            set_common(res);
            res.set(http::field::content_type, content_type_for(file));
            if (gzip) {
                res.set(http::field::content_encoding, "gzip");
                // Content-Length counts the gzip bytes; the page's progress bar counts decoded ones.
                std::error_code dec;
                const std::uintmax_t decoded = fs::file_size(file, dec);
                if (!dec) res.set("X-Decoded-Length", std::to_string(decoded));
            }
        };
        if (req.method() == http::verb::head) {
            auto res = std::make_shared<http::response<http::empty_body>>(http::status::ok, version);
            set_entity(*res);
            res->content_length(size);
            return write(std::move(res), !keep);
        }
        beast::error_code bec;
        http::file_body::value_type body;
        body.open(chosen.c_str(), beast::file_mode::scan, bec);
        if (bec) return send_text(http::status::not_found, "Not Found\n", version, !keep);
        auto res = std::make_shared<http::response<http::file_body>>(
            std::piecewise_construct, std::make_tuple(std::move(body)), std::make_tuple(http::status::ok, version));
        set_entity(*res);
        res->content_length(size);
        write(std::move(res), !keep);
    }

    bool inside_root(const fs::path& p) const {
        std::error_code ec;
        const fs::path real = fs::weakly_canonical(p, ec);  // resolves symlinks of the parts that exist
        if (ec) return false;
        const std::string& root = server_.root.native();
        const std::string& s = real.native();
        return s.size() > root.size() && s.compare(0, root.size(), root) == 0 && s[root.size()] == '/';
    }

    // Maps a request target to a regular file under web_root, or the status that refuses it.
    http::status resolve(std::string_view target, fs::path& out) const {
        if (server_.root.empty()) return http::status::not_found;
        target = target.substr(0, target.find_first_of("?#"));
        std::string path;
        path.reserve(target.size());
        for (std::size_t i = 0; i < target.size(); ++i) {
            if (target[i] != '%') {
                path += target[i];
                continue;
            }
            if (i + 2 >= target.size()) return http::status::bad_request;
            const int hi = hex_value(target[i + 1]), lo = hex_value(target[i + 2]);
            if (hi < 0 || lo < 0) return http::status::bad_request;
            path += static_cast<char>(hi * 16 + lo);
            i += 2;
        }
        if (path.empty() || path[0] != '/') return http::status::bad_request;
        if (path.find('\0') != std::string::npos || path.find('\\') != std::string::npos) {
            return http::status::forbidden;
        }
        std::string_view rel(path);
        rel.remove_prefix(1);
        if (!rel.empty() && rel[0] == '/') return http::status::forbidden;  // "//etc/passwd": absolute
        for (std::string_view rest = rel; !rest.empty();) {
            const std::size_t slash = rest.find('/');
            if (rest.substr(0, slash) == "..") return http::status::forbidden;
            if (slash == std::string_view::npos) break;
            rest.remove_prefix(slash + 1);
        }
        std::string name(rel);
        if (name.empty() || name.back() == '/') name += "index.html";
        if (!std::binary_search(server_.files.begin(), server_.files.end(), name)) {
            // A directory of the page ("/sub" for "sub/index.html") is its index.
            name += "/index.html";
            if (!std::binary_search(server_.files.begin(), server_.files.end(), name)) return http::status::not_found;
        }
        const fs::path file = server_.root / fs::path(name);
        std::error_code ec;
        if (!inside_root(file)) return http::status::forbidden;
        if (!fs::is_regular_file(file, ec)) return http::status::not_found;
        out = file;
        return http::status::ok;
    }

    void send_text(http::status status, std::string body, unsigned version, bool close_after) {
        auto res = std::make_shared<http::response<http::string_body>>(status, version);
        res->set(http::field::content_type, "text/plain; charset=utf-8");
        res->set(http::field::cache_control, "no-cache");
        res->body() = std::move(body);
        res->keep_alive(!close_after);
        res->prepare_payload();
        write(std::move(res), close_after);
    }

    template <class Response>
    void write(std::shared_ptr<Response> res, bool close_after) {
        if (static_cast<unsigned>(res->result_int()) >= 400) ++server_.stats.http_errors;
        stream_.expires_after(seconds_to_ns(server_.options.http_timeout_s));
        http::async_write(stream_, *res,
                          [self = shared_from_this(), res, close_after](beast::error_code ec, std::size_t) {
                              if (self->server_.stopping) return;
                              if (ec || close_after) {
                                  self->close();
                                  return self->done();
                              }
                              self->do_read();
                          });
    }

    void done() { server_.http_sessions.erase(key_); }

    void leave_http() {
        if (counted_) --server_.door.http;
        counted_ = false;
    }

    ServerCore& server_;
    std::uint64_t key_;
    beast::tcp_stream stream_;
    std::shared_ptr<Place> place_;
    bool counted_ = true;
    beast::flat_buffer buffer_;
    std::optional<http::request_parser<http::empty_body>> parser_;
    bool first_ = true;
};

// --- Server ----------------------------------------------------------------------------------

struct RoomServer::Impl : ServerCore {
    using ServerCore::ServerCore;
};

WsSession* ServerCore::find_open(ConnectionId id) const {
    const auto it = ws_sessions.find(id);
    return it != ws_sessions.end() && it->second->opened() ? it->second.get() : nullptr;
}

void ServerCore::do_accept() {
    acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
        if (stopping) return;
        if (!ec) {
            accept_pause = std::chrono::milliseconds(0);
            admit(std::move(socket));
            return do_accept();
        }
        const bool out_of_descriptors = ec == asio::error::no_descriptors || ec.value() == ENFILE ||
                                        ec == asio::error::no_buffer_space || ec == asio::error::no_memory;
        if (!out_of_descriptors) return do_accept();  // the peer gave up first (ECONNABORTED): next
        // The connection stays in the backlog, so accepting again at once would fail again at
        // once: pause, 50 ms doubling to 500 ms, until a descriptor is free.
        ++stats.accept_backoffs;
        accept_pause = std::clamp(accept_pause * 2, std::chrono::milliseconds(50), std::chrono::milliseconds(500));
        accept_timer.expires_after(accept_pause);
        accept_timer.async_wait([this](beast::error_code wait_ec) {
            if (!wait_ec && !stopping) do_accept();
        });
    });
}

void ServerCore::admit(tcp::socket socket) {
    beast::error_code ec;
    const tcp::endpoint remote = socket.remote_endpoint(ec);
    if (ec) return;  // already gone
    const std::string address = address_text(remote);
    const Clock::time_point now = Clock::now();
    auto [it, fresh] = door.addresses.try_emplace(address);
    Door::Address& a = it->second;
    const double burst = static_cast<double>(options.max_per_address);
    if (fresh) {
        a.tokens = burst;
        a.refill = now;
    }
    a.tokens = std::min(
        burst, a.tokens + std::chrono::duration<double>(now - a.refill).count() * options.new_per_address_per_s);
    a.refill = now;
    if (door.sockets >= options.max_sockets || door.http >= options.max_http_connections) {
        return refuse_socket(std::move(socket), 503, "Service Unavailable",
                             "the room is busy (too many connections at once): wait a few seconds, then reload");
    }
    // The room's own machine is the teacher's (its tabs, a desktop app, bots): not held to the
    // per-address limits. Other loopback addresses are, like any laptop.
    const bool own_machine = !options.limit_own_machine && (address == "127.0.0.1" || address == "::1");
    if (own_machine) {
        // counted below like any address, never refused for it
    } else if (a.open >= options.max_per_address) {
        return refuse_socket(std::move(socket), 429, "Too Many Requests",
                             "too many connections from your address (" + std::to_string(options.max_per_address) +
                                 " at once): close other tabs of this room, then reload");
    }
    if (!own_machine && a.tokens < 1.0) {
        return refuse_socket(std::move(socket), 429, "Too Many Requests",
                             "too many new connections from your address: wait a few seconds, then reload");
    }
    a.tokens = std::max(0.0, a.tokens - 1.0);
    ++a.open;
    ++door.sockets;
    auto place = std::make_shared<Place>(door, address);
    const std::uint64_t key = next_http_id++;
    auto session = std::make_shared<HttpSession>(*this, key, std::move(socket), std::move(place));
    http_sessions.emplace(key, session);
    session->start();
}

// Writes the canned answer and closes. At most 64 at once (each holds a descriptor for the
// moment its answer takes); beyond that a refused socket is closed without a word.
void ServerCore::refuse_socket(tcp::socket socket, int status, std::string_view reason, std::string_view text) {
    ++stats.refused_sockets;
    if (door.refusing >= 64) return;  // the socket closes as it goes out of scope
    struct Refusal {
        beast::tcp_stream stream;
        std::string answer;
        Door& door;
        Refusal(tcp::socket s, std::string a, Door& d) : stream(std::move(s)), answer(std::move(a)), door(d) {
            ++door.refusing;
        }
        ~Refusal() { --door.refusing; }
    };
    auto r = std::make_shared<Refusal>(std::move(socket), canned_response(status, reason, text), door);
    r->stream.expires_after(std::chrono::seconds(1));
    asio::async_write(r->stream, asio::buffer(r->answer), [r](beast::error_code ec, std::size_t) {
        beast::error_code ignored;
        if (ec) return r->stream.close();
        // Half-close, then read what the peer sent until it closes (or 1 s): closing with its
        // request unread would reset the connection and could lose the answer.
        r->stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
        auto sink = std::make_shared<std::array<char, 512>>();
        struct Drain {
            std::shared_ptr<Refusal> r;
            std::shared_ptr<std::array<char, 512>> sink;
            void operator()(beast::error_code e, std::size_t) {
                if (e) return r->stream.close();
                r->stream.async_read_some(asio::buffer(*sink), std::move(*this));
            }
        };
        r->stream.async_read_some(asio::buffer(*sink), Drain{r, sink});
    });
}

void ServerCore::arm_tick() {
    tick_timer.expires_at(tick_start + period_offset(tick_n + 1));
    tick_timer.async_wait([this](beast::error_code ec) {
        if (!ec && !stopping) on_tick_timer();
    });
}

void ServerCore::on_tick_timer() {
    ++tick_n;
    const Clock::time_point now = Clock::now();
    const auto late = now - (tick_start + period_offset(tick_n));
    stats.tick_late_ms_max = std::max(stats.tick_late_ms_max, std::chrono::duration<double, std::milli>(late).count());
    if (late > period_offset(2)) {  // more than two periods behind: skip ahead, do not burst
        const auto elapsed = std::chrono::duration_cast<std::chrono::nanoseconds>(now - tick_start).count();
        const std::int64_t current = elapsed * options.tick_hz / 1'000'000'000LL;
        stats.tick_skips += static_cast<std::uint64_t>(current - tick_n);
        tick_n = current;
    }
    ++stats.ticks;
    handler.on_tick(std::chrono::duration<double, std::milli>(now - tick_start).count());
    if (stopping) return;
    // Slow readers that stopped being sent to would never hit the check in send().
    std::vector<std::shared_ptr<WsSession>> slow;
    for (const auto& [id, s] : ws_sessions) {
        if (s->full_since()) slow.push_back(s);
    }
    for (const auto& s : slow) s->check_slow(Clock::now());
    // Once a second, forget the addresses that hold nothing and whose bucket is full again.
    if (stats.ticks % static_cast<std::uint64_t>(options.tick_hz) == 0) {
        const double refill_s = static_cast<double>(options.max_per_address) / options.new_per_address_per_s;
        std::erase_if(door.addresses, [&](const auto& entry) {
            return entry.second.open == 0 &&
                   std::chrono::duration<double>(now - entry.second.refill).count() > refill_s;
        });
    }
    arm_tick();
}

void ServerCore::do_stop() {
    if (stopping) return;
    stopping = true;
    beast::error_code ignored;
    acceptor.close(ignored);
    accept_timer.cancel();
    tick_timer.cancel();
    signals.cancel(ignored);
    for (auto& [key, weak] : http_sessions) {
        if (auto s = weak.lock()) s->close();
    }
    http_sessions.clear();
    std::vector<std::shared_ptr<WsSession>> all;
    for (const auto& [id, s] : ws_sessions) all.push_back(s);
    for (const auto& s : all) {
        s->hard_close();
        s->finish();  // on_close for the open ones
    }
    ioc.stop();
}

RoomServer::RoomServer(RoomServerOptions options, RoomHandler& handler)
    : impl_(std::make_unique<Impl>(std::move(options), handler)) {}

RoomServer::~RoomServer() = default;

std::string RoomServer::listen() {
    Impl& s = *impl_;
    if (std::string e = s.options.validate(); !e.empty()) return e;
    if (!s.options.web_root.empty()) {
        std::error_code ec;
        s.root = fs::canonical(s.options.web_root, ec);
        if (ec || !fs::is_directory(s.root, ec)) return "web_root is not a directory: " + s.options.web_root;
        s.files = s.options.files;
        if (s.files.empty()) {
            std::ifstream list(s.root / "page-files.txt");
            if (!list) {
                return "web_root has no page-files.txt (the list of the page's files the web build writes): " +
                       s.options.web_root;
            }
            for (std::string line; std::getline(list, line);) {
                if (!line.empty() && line.back() == '\r') line.pop_back();
                if (!line.empty()) s.files.push_back(line);
            }
        }
        std::sort(s.files.begin(), s.files.end());
    }
    s.hosts = {"localhost", "127.0.0.1", "::1"};
    for (const std::string& h : s.options.hosts) s.hosts.push_back(host_name("[" + h + "]"));  // a name, not host:port
    beast::error_code ec;
    const asio::ip::address address = asio::ip::make_address(s.options.bind, ec);
    if (ec) return "bind is not an IP address: \"" + s.options.bind + "\"";
    const tcp::endpoint endpoint(address, s.options.port);
    s.acceptor.open(endpoint.protocol(), ec);
    if (ec) return "cannot open a socket for " + s.options.bind + ": " + ec.message();
    if (address.is_v6() && address.is_unspecified()) s.acceptor.set_option(asio::ip::v6_only(false), ec);
    s.acceptor.set_option(asio::socket_base::reuse_address(true), ec);
    s.acceptor.bind(endpoint, ec);
    if (ec == asio::error::address_in_use) {
        s.acceptor.close(ec);
        return "port " + std::to_string(s.options.port) + " is in use";
    }
    if (ec) {
        s.acceptor.close(ec);
        return "cannot bind " + s.options.bind + ":" + std::to_string(s.options.port) + ": " + ec.message();
    }
    s.acceptor.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) return "cannot listen: " + ec.message();
    s.bound_port = s.acceptor.local_endpoint().port();
    if (!address.is_unspecified()) s.hosts.push_back(address_text(tcp::endpoint(address, 0)));
    s.do_accept();
    return {};
}

std::uint16_t RoomServer::port() const {
    return impl_->bound_port.load();
}

void RoomServer::run() {
    Impl& s = *impl_;
    if (s.handle_signals && !s.stopping) {
        s.signals.add(SIGINT);
        s.signals.add(SIGTERM);
        s.signals.async_wait([&s](beast::error_code ec, int) {
            if (!ec) s.do_stop();
        });
    }
    s.tick_start = Clock::now();
    s.tick_n = 0;
    if (!s.stopping) s.arm_tick();
    s.ioc.run();
}

void RoomServer::set_handle_signals(bool on) {
    impl_->handle_signals = on;
}

void RoomServer::stop() {
    Impl* s = impl_.get();
    asio::post(s->ioc, [s] { s->do_stop(); });
}

void RoomServer::post(std::function<void()> fn) {
    asio::post(impl_->ioc, std::move(fn));
}

SendResult RoomServer::send(ConnectionId id, std::span<const std::uint8_t> bytes) {
    WsSession* session = impl_->find_open(id);
    return session ? session->send(bytes) : SendResult::Unknown;
}

void RoomServer::close(ConnectionId id, std::string_view reason) {
    if (WsSession* session = impl_->find_open(id)) session->begin_close(websocket::close_code::policy_error, reason);
}

ConnectionStats RoomServer::connection_stats(ConnectionId id) const {
    const WsSession* session = impl_->find_open(id);
    return session ? session->stats() : ConnectionStats{};
}

ServerStats RoomServer::stats() const {
    ServerStats out = impl_->stats;
    out.connections = impl_->open_count;
    return out;
}

std::size_t RoomServer::open_connections() const {
    return impl_->open_count;
}

}  // namespace vantage::room
