// RoomSocket in the browser: emscripten's WebSocket API. Its callbacks run on the main
// thread between frames (no ASYNCIFY needed), so they only queue what arrived; poll() hands
// it out. The URL defaults to this page's own origin (same host and port, path /ws).
#include <emscripten.h>
#include <emscripten/websocket.h>

#include <deque>
#include <vector>

#include "app/room_socket.hpp"

namespace vantage::play {

namespace {

// JavaScript inside: the formatter would break its operators.
// clang-format off
EM_JS(char*, vantage_room_default_url, (), {
    const proto = location.protocol === 'https:' ? 'wss://' : 'ws://';
    return stringToNewUTF8(proto + location.host + '/ws');
});
// clang-format on

class WebRoomSocket final : public RoomSocket {
public:
    explicit WebRoomSocket(std::string url) : url_(std::move(url)) {
        EmscriptenWebSocketCreateAttributes attrs;
        emscripten_websocket_init_create_attributes(&attrs);
        attrs.url = url_.c_str();
        attrs.protocols = nullptr;  // a subprotocol the server does not echo fails the handshake
        attrs.createOnMainThread = EM_TRUE;
        socket_ = emscripten_websocket_new(&attrs);
        if (socket_ <= 0) {
            state_ = State::Closed;
            reason_ = "this browser could not open a WebSocket to " + url_;
            return;
        }
        emscripten_websocket_set_onopen_callback(socket_, this, &WebRoomSocket::on_open);
        emscripten_websocket_set_onmessage_callback(socket_, this, &WebRoomSocket::on_message);
        emscripten_websocket_set_onclose_callback(socket_, this, &WebRoomSocket::on_close);
        emscripten_websocket_set_onerror_callback(socket_, this, &WebRoomSocket::on_error);
    }
    ~WebRoomSocket() override {
        if (socket_ > 0) {
            emscripten_websocket_close(socket_, 1000, "leaving");
            emscripten_websocket_delete(socket_);
        }
    }

    void send(double, std::span<const std::uint8_t> bytes) override {
        if (state_ != State::Open || bytes.empty()) return;
        emscripten_websocket_send_binary(socket_, const_cast<std::uint8_t*>(bytes.data()),
                                         static_cast<std::uint32_t>(bytes.size()));
    }
    bool poll(double, std::vector<std::uint8_t>& out) override {
        if (inbox_.empty()) return false;
        out.swap(inbox_.front());
        inbox_.pop_front();
        return true;
    }
    State state() const override { return state_; }
    std::string close_reason() const override { return reason_; }
    void close() override {
        if (socket_ > 0 && state_ != State::Closed) emscripten_websocket_close(socket_, 1000, "leaving");
        state_ = State::Closed;
        if (reason_.empty()) reason_ = "left the room";
    }
    const std::string& url() const override { return url_; }

private:
    static EM_BOOL on_open(int, const EmscriptenWebSocketOpenEvent*, void* self) {
        static_cast<WebRoomSocket*>(self)->state_ = State::Open;
        return EM_TRUE;
    }
    static EM_BOOL on_message(int, const EmscriptenWebSocketMessageEvent* e, void* self) {
        auto* s = static_cast<WebRoomSocket*>(self);
        if (e->isText) return EM_TRUE;                             // the room sends binary only
        if (s->inbox_.size() >= kMaxInbox) s->inbox_.pop_front();  // a stalled tab keeps the newest
        s->inbox_.emplace_back(e->data, e->data + e->numBytes);    // e->data is freed after the callback
        return EM_TRUE;
    }
    static EM_BOOL on_close(int, const EmscriptenWebSocketCloseEvent* e, void* self) {
        auto* s = static_cast<WebRoomSocket*>(self);
        s->state_ = State::Closed;
        if (s->reason_.empty()) {
            s->reason_ =
                e->reason[0] ? std::string(e->reason) : "connection closed (code " + std::to_string(e->code) + ")";
        }
        return EM_TRUE;
    }
    static EM_BOOL on_error(int, const EmscriptenWebSocketErrorEvent*, void* self) {
        auto* s = static_cast<WebRoomSocket*>(self);
        if (s->reason_.empty()) s->reason_ = "could not reach the room at " + s->url_;
        return EM_TRUE;
    }

    static constexpr std::size_t kMaxInbox = 1024;
    std::string url_;
    EMSCRIPTEN_WEBSOCKET_T socket_ = 0;
    State state_ = State::Connecting;
    std::string reason_;
    std::deque<std::vector<std::uint8_t>> inbox_;
};

}  // namespace

std::unique_ptr<RoomSocket> RoomSocket::connect(const std::string& url) {
    std::string target = url;
    if (target.empty()) {
        char* d = vantage_room_default_url();
        target = d;
        free(d);
    }
    return std::make_unique<WebRoomSocket>(target);
}

}  // namespace vantage::play
