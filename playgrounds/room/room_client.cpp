// Room client implementation: a Beast websocket stream on a private io_context. connect()
// runs the context until the handshake completes; afterwards poll() runs ready handlers.
#include <utility>  // before Boost: g++ 12 in C++20 fails in asio/awaitable.hpp without it

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

#include <chrono>
#include <deque>
#include <optional>

#include "room/room_client.hpp"
#include "room/room_url.hpp"

namespace vantage::room {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

struct RoomClient::Impl {
    asio::io_context ioc{1};
    std::optional<websocket::stream<beast::tcp_stream>> ws;
    beast::flat_buffer read_buf;
    std::deque<std::vector<std::uint8_t>> out_queue;  // front is in flight while writing
    std::deque<bool> out_binary;
    std::deque<std::vector<std::uint8_t>> in_queue;
    bool is_connected = false, reading = false, writing = false, paused = false, closing = false;
    std::string reason;
    std::uint16_t code = 0;
    std::uint64_t bytes_in = 0, bytes_out = 0;

    void lost(beast::error_code ec) {
        if (!is_connected) return;
        is_connected = false;
        if (closing) {
            reason = "closed by client";
        } else if (ec == websocket::error::closed) {
            const websocket::close_reason& cr = ws->reason();
            code = static_cast<std::uint16_t>(cr.code);
            reason = !cr.reason.empty() ? std::string(cr.reason.data(), cr.reason.size())
                                        : "close code " + std::to_string(code);
        } else {
            reason = ec.message();
        }
        beast::error_code ignored;
        beast::get_lowest_layer(*ws).socket().close(ignored);
    }

    void do_read() {
        if (!is_connected || reading || paused) return;
        reading = true;
        ws->async_read(read_buf, [this](beast::error_code ec, std::size_t) {
            reading = false;
            if (ec) return lost(ec);
            if (ws->got_binary()) {
                const auto data = read_buf.cdata();
                const auto* p = static_cast<const std::uint8_t*>(data.data());
                in_queue.emplace_back(p, p + data.size());
                bytes_in += data.size();
            }
            read_buf.consume(read_buf.size());
            do_read();
        });
    }

    void do_write() {
        if (!is_connected || writing || closing || out_queue.empty()) return;
        writing = true;
        ws->binary(out_binary.front());
        ws->async_write(asio::buffer(out_queue.front()), [this](beast::error_code ec, std::size_t n) {
            writing = false;
            if (ec) return lost(ec);
            bytes_out += n;
            out_queue.pop_front();
            out_binary.pop_front();
            do_write();
        });
    }

    void queue(std::vector<std::uint8_t> bytes, bool binary) {
        if (!is_connected) return;
        out_queue.push_back(std::move(bytes));
        out_binary.push_back(binary);
        do_write();
    }

    // After a failed connect step: drop the socket and run the aborted handlers to completion,
    // so none of them fires later into connect()'s finished stack frame.
    void abandon() {
        beast::error_code ignored;
        beast::get_lowest_layer(*ws).socket().close(ignored);
        ioc.restart();
        ioc.run();
    }

    // Runs the context until `done` or the deadline; false on timeout.
    template <class Done>
    bool run_until(Done&& done, std::chrono::steady_clock::duration limit) {
        const auto deadline = std::chrono::steady_clock::now() + limit;
        while (!done()) {
            const auto now = std::chrono::steady_clock::now();
            if (now >= deadline) return false;
            ioc.restart();
            ioc.run_one_for(deadline - now);
        }
        return true;
    }
};

RoomClient::RoomClient() : impl_(std::make_unique<Impl>()) {}
RoomClient::~RoomClient() = default;

std::string RoomClient::connect(std::string_view url_text, double timeout_s) {
    Impl& c = *impl_;
    if (c.ws) return "connect() was already called on this client";
    RoomUrl url;
    if (std::string e = parse_room_url(url_text, url); !e.empty()) return e;
    const auto limit = std::chrono::nanoseconds(static_cast<std::int64_t>(timeout_s * 1e9));
    c.ws.emplace(c.ioc);

    beast::error_code ec;
    tcp::resolver resolver(c.ioc);
    const auto endpoints = resolver.resolve(url.host, std::to_string(url.port), ec);
    if (ec) return "cannot resolve " + url.host + ": " + ec.message();

    bool done = false;
    beast::error_code result;
    auto& tcp_layer = beast::get_lowest_layer(*c.ws);
    tcp_layer.expires_after(limit);
    tcp_layer.async_connect(endpoints, [&](beast::error_code e, const tcp::endpoint&) {
        result = e;
        done = true;
    });
    if (!c.run_until([&] { return done; }, limit + std::chrono::seconds(1)) || result) {
        c.abandon();
        return "cannot connect to " + url.host_header() + ": " + (result ? result.message() : "timed out");
    }

    websocket::response_type res;
    done = false;
    c.ws->async_handshake(res, url.host_header(), url.path, [&](beast::error_code e) {
        result = e;
        done = true;
    });
    if (!c.run_until([&] { return done; }, limit + std::chrono::seconds(1))) {
        c.abandon();
        return "handshake timed out";
    }
    if (result) {
        if (result == websocket::error::upgrade_declined) {
            return "server refused: " + std::to_string(res.result_int()) + " " + res.body();
        }
        return "handshake failed: " + result.message();
    }
    tcp_layer.expires_never();  // from here on the websocket stream times itself (no timeouts by default)
    c.ws->auto_fragment(false);
    c.ws->binary(true);
    c.is_connected = true;
    c.do_read();
    return {};
}

bool RoomClient::connected() const {
    return impl_->is_connected;
}

void RoomClient::send(std::span<const std::uint8_t> bytes) {
    impl_->queue({bytes.begin(), bytes.end()}, true);
}

void RoomClient::send_text(std::string_view text) {
    impl_->queue({text.begin(), text.end()}, false);
}

void RoomClient::poll() {
    impl_->ioc.restart();
    impl_->ioc.poll();
}

bool RoomClient::receive(std::vector<std::uint8_t>& out) {
    if (impl_->in_queue.empty()) return false;
    out = std::move(impl_->in_queue.front());
    impl_->in_queue.pop_front();
    return true;
}

std::string RoomClient::close_reason() const {
    return impl_->reason;
}
std::uint16_t RoomClient::close_code() const {
    return impl_->code;
}

void RoomClient::close() {
    Impl& c = *impl_;
    if (!c.is_connected) return;
    // Let a write in flight finish (Beast allows one write-side operation at a time).
    c.run_until([&] { return !c.writing; }, std::chrono::seconds(1));
    if (c.is_connected && !c.writing) {
        c.closing = true;
        bool done = false;
        c.ws->async_close(websocket::close_code::normal, [&](beast::error_code) { done = true; });
        c.run_until([&] { return done && !c.reading; }, std::chrono::seconds(1));
    }
    c.is_connected = false;
    if (c.reason.empty()) c.reason = "closed by client";
    beast::error_code ignored;
    beast::get_lowest_layer(*c.ws).socket().close(ignored);
    c.ioc.restart();
    c.ioc.poll();  // let aborted handlers run while the stream still exists
}

std::uint64_t RoomClient::payload_bytes_in() const {
    return impl_->bytes_in;
}
std::uint64_t RoomClient::payload_bytes_out() const {
    return impl_->bytes_out;
}

void RoomClient::set_paused_reading(bool paused) {
    impl_->paused = paused;
    if (!paused) impl_->do_read();
}

}  // namespace vantage::room
