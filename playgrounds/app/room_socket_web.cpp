// RoomSocket in the browser: emscripten's WebSocket API. Its callbacks run on the main
// thread between frames (no ASYNCIFY needed), so they only queue what arrived; poll() hands
// it out. The URL defaults to this page's own origin (same host and port, path /ws).
#include <emscripten.h>
#include <emscripten/websocket.h>

#include <cstdlib>
#include <deque>
#include <string>
#include <vector>

#include "app/room_socket.hpp"
#include "common/room_remote.hpp"

namespace vantage::play {

namespace {

// JavaScript inside: the formatter would break its operators.
// clang-format off
EM_JS(char*, vantage_room_default_url, (), {
    const proto = location.protocol === 'https:' ? 'wss://' : 'ws://';
    return stringToNewUTF8(proto + location.host + '/ws');
});
// The page's DataChannel. The JS owns the RTCPeerConnection (Module.vantageRtc); its events
// only queue (signals to send, messages received, the state), and the frame loop below takes
// them. Each message is copied into a wasm buffer when taken; dc.send() reads straight out of
// the heap (no threads in this build, so the view cannot change under it).
EM_JS(int, vantage_rtc_start, (), {
    if (typeof RTCPeerConnection === "undefined") return 0;
    const rtc = { state: 1, why: "", inbox: [], signals: [] };
    try {
        rtc.pc = new RTCPeerConnection({ iceServers: [] });
        rtc.dc = rtc.pc.createDataChannel("vantage", { ordered: false, maxRetransmits: 0 });
    } catch (e) {
        return 0;
    }
    rtc.dc.binaryType = "arraybuffer";
    rtc.dc.onopen = () => { if (rtc.state === 1) rtc.state = 2; };
    rtc.dc.onclose = () => { if (rtc.state !== 3) { rtc.state = 3; rtc.why = rtc.why || "the DataChannel closed"; } };
    rtc.dc.onmessage = (e) => {
        if (!(e.data instanceof ArrayBuffer)) return;
        if (rtc.inbox.length >= 1024) rtc.inbox.shift();
        rtc.inbox.push(new Uint8Array(e.data));
    };
    rtc.pc.onicecandidate = (e) => { rtc.signals.push([3, e.candidate ? e.candidate.candidate : ""]); };
    rtc.pc.onconnectionstatechange = () => {
        const s = rtc.pc.connectionState;
        if ((s === "failed" || s === "closed") && rtc.state !== 3) { rtc.state = 3; rtc.why = "the connection " + s; }
    };
    rtc.pc.createOffer()
        .then((offer) => rtc.pc.setLocalDescription(offer))
        .then(() => { rtc.signals.push([1, rtc.pc.localDescription.sdp]); })
        .catch((e) => { rtc.state = 3; rtc.why = String(e && e.message || e); });
    Module.vantageRtc = rtc;
    return 1;
});

EM_JS(int, vantage_rtc_state, (), {
    const rtc = Module.vantageRtc;
    return rtc ? rtc.state : 0;
});

EM_JS(char*, vantage_rtc_why, (), {
    const rtc = Module.vantageRtc;
    return stringToNewUTF8(rtc ? rtc.why : "");
});

// The next signal to send as "<kind><text>" (kind one digit), or null.
EM_JS(char*, vantage_rtc_take_signal, (), {
    const rtc = Module.vantageRtc;
    if (!rtc || rtc.signals.length === 0) return 0;
    const s = rtc.signals.shift();
    return stringToNewUTF8(String(s[0]) + s[1]);
});

EM_JS(void, vantage_rtc_signal, (int kind, const char* text), {
    const rtc = Module.vantageRtc;
    if (!rtc || rtc.state === 3) return;
    const t = UTF8ToString(text);
    const fail = (e) => { rtc.state = 3; rtc.why = String(e && e.message || e); };
    if (kind === 2) rtc.pc.setRemoteDescription({ type: "answer", sdp: t }).catch(fail);
    else if (kind === 3 && t) rtc.pc.addIceCandidate({ candidate: t, sdpMLineIndex: 0 }).catch(() => {});
});

// Copies the oldest message into buf; its length, or -1 when none (a longer one is dropped).
EM_JS(int, vantage_rtc_take, (std::uint8_t* buf, int cap), {
    const rtc = Module.vantageRtc;
    while (rtc && rtc.inbox.length > 0) {
        const m = rtc.inbox.shift();
        if (m.length > cap) continue;
        HEAPU8.set(m, buf);
        return m.length;
    }
    return -1;
});

EM_JS(int, vantage_rtc_send, (const std::uint8_t* p, int n), {
    const rtc = Module.vantageRtc;
    if (!rtc || rtc.state !== 2 || rtc.dc.readyState !== "open") return 0;
    try { rtc.dc.send(HEAPU8.subarray(p, p + n)); } catch (e) { return 0; }
    return 1;
});

EM_JS(void, vantage_rtc_stop, (), {
    const rtc = Module.vantageRtc;
    if (!rtc) return;
    try { rtc.dc.close(); rtc.pc.close(); } catch (e) {}
    Module.vantageRtc = null;
});
// clang-format on

std::string take_js_string(char* s) {
    std::string out = s ? s : "";
    free(s);
    return out;
}

// The page's DataChannel as the seat's datagram path: started once the seat is joined (and
// again whenever the room's TransportState wants it), its signalling carried over the socket
// through the remote, stopped when the room wants the WebSocket, given up after 5 s without
// an open channel (UDP blocked, an old browser) with the reason shown (note_transport).
class WebDataChannel final : public Transport {
public:
    ~WebDataChannel() override { vantage_rtc_stop(); }

    void update(RoomRemote& remote, Transport& socket, double local_ms) {
        if (remote.status() != RoomRemote::Status::Joined) {
            if (phase_ != Phase::Off && remote.status() == RoomRemote::Status::Closed) stop(remote);
            return;
        }
        // What the room says: its answer and candidates, a bye, a change of transport.
        RtcSignalMessage m;
        while (remote.take_rtc_signal(m)) {
            if (m.kind == RtcSignalKind::Bye) {
                if (phase_ == Phase::Connecting || phase_ == Phase::Open) {
                    halt(remote);
                    phase_ = Phase::Failed;
                    remote.note_transport("no DataChannel: " + m.text);
                }
            } else if (phase_ == Phase::Connecting || phase_ == Phase::Open) {
                vantage_rtc_signal(static_cast<int>(m.kind), m.text.c_str());
            }
        }
        bool start = !started_once_;
        if (remote.transport_changes() != changes_seen_) {
            changes_seen_ = remote.transport_changes();
            const bool wants_channel = remote.wanted_transport() == SeatTransport::DataChannel;
            if (!wants_channel && remote.transport() == SeatTransport::WebSocket &&
                (phase_ == Phase::Connecting || phase_ == Phase::Open)) {
                halt(remote);  // the room moved the seat to the WebSocket (and closed its end)
                phase_ = Phase::Off;
            }
            if (wants_channel && phase_ != Phase::Connecting && phase_ != Phase::Open) start = true;
        }
        if (start) {
            started_once_ = true;
            if (!vantage_rtc_start()) {
                phase_ = Phase::Failed;
                remote.note_transport("this browser has no WebRTC DataChannels: playing over the websocket");
            } else {
                phase_ = Phase::Connecting;
                started_ms_ = local_ms;
            }
        }
        if (phase_ != Phase::Connecting && phase_ != Phase::Open) return;
        // The page's own signalling, out over the WebSocket.
        while (char* raw = vantage_rtc_take_signal()) {
            const std::string s = take_js_string(raw);
            const auto kind = static_cast<RtcSignalKind>(s[0] - '0');
            std::string text = s.substr(1);
            if (text.size() > kMaxRtcSignalBytes) continue;  // no SDP of a data-only offer is this long
            remote.send_rtc_signal(socket, local_ms, {.kind = kind, .text = std::move(text)});
        }
        const int state = vantage_rtc_state();
        if (state == 2 && phase_ == Phase::Connecting) {
            phase_ = Phase::Open;
            remote.set_datagram(this);
            last_sent_ms_ = local_ms;
        } else if (state == 3 || (phase_ == Phase::Connecting && local_ms - started_ms_ > kOpenTimeoutMs)) {
            std::string why =
                state == 3 ? take_js_string(vantage_rtc_why()) : "it did not open within 5 s (is UDP blocked?)";
            remote.send_rtc_signal(socket, local_ms, {.kind = RtcSignalKind::Bye, .text = why.substr(0, 200)});
            halt(remote);
            phase_ = Phase::Failed;
            remote.note_transport("no DataChannel (" + why + "): playing over the websocket");
            return;
        }
        // The room's heartbeat: a one-byte message when nothing else went up for a while.
        if (phase_ == Phase::Open && local_ms - last_sent_ms_ >= kHeartbeatMs) {
            const std::uint8_t beat = 0x00;
            vantage_rtc_send(&beat, 1);
            last_sent_ms_ = local_ms;
        }
    }

    void stop(RoomRemote& remote) {
        halt(remote);
        phase_ = Phase::Off;
    }

    const char* state_name() const {
        switch (phase_) {
            case Phase::Off:
                return "off";
            case Phase::Connecting:
                return "connecting";
            case Phase::Open:
                return "open";
            case Phase::Failed:
                return "failed";
        }
        return "off";
    }

    void send(double local_ms, std::span<const std::uint8_t> bytes) override {
        if (phase_ != Phase::Open || bytes.empty()) return;
        vantage_rtc_send(bytes.data(), static_cast<int>(bytes.size()));
        last_sent_ms_ = local_ms;
    }
    bool poll(double, std::vector<std::uint8_t>& out) override {
        if (phase_ != Phase::Open) return false;
        out.resize(kMaxMessageBytes);
        const int n = vantage_rtc_take(out.data(), static_cast<int>(out.size()));
        if (n < 0) return false;
        out.resize(static_cast<std::size_t>(n));
        return true;
    }

private:
    enum class Phase { Off, Connecting, Open, Failed };
    static constexpr double kOpenTimeoutMs = 5000.0;
    static constexpr double kHeartbeatMs = 500.0;          // the room gives up after 3 s of silence
    static constexpr std::size_t kMaxMessageBytes = 2048;  // frames are at most 1,200 bytes

    void halt(RoomRemote& remote) {
        if (remote.datagram() == this) remote.set_datagram(nullptr);
        vantage_rtc_stop();
    }

    Phase phase_ = Phase::Off;
    bool started_once_ = false;
    std::uint64_t changes_seen_ = 0;
    double started_ms_ = 0;
    double last_sent_ms_ = 0;
};

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
        vantage_rtc_stop();
        if (socket_ > 0 && state_ != State::Closed) emscripten_websocket_close(socket_, 1000, "leaving");
        state_ = State::Closed;
        if (reason_.empty()) reason_ = "left the room";
    }
    const std::string& url() const override { return url_; }
    void drive_datagram(RoomRemote& remote, double local_ms) override {
        if (state_ == State::Open) channel_.update(remote, *this, local_ms);
    }
    const char* datagram_state() const override { return channel_.state_name(); }

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
    WebDataChannel channel_;
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
