#include "room/webrtc_door.hpp"

namespace vantage::room {

namespace {

// A seat's DataChannel as its DatagramPath. Destroying it (the seat left, the teacher moved
// it, the room detached it) closes the peer; the peers may already be gone with the door.
class DataChannelPath final : public DatagramPath {
public:
    DataChannelPath(std::weak_ptr<WebRtcPeers> peers, RtcPeerId id) : peers_(std::move(peers)), id_(id) {}
    ~DataChannelPath() override {
        if (auto p = peers_.lock()) p->close(id_);
    }
    SeatTransport kind() const override { return SeatTransport::DataChannel; }
    bool send(std::span<const std::uint8_t> bytes) override {
        auto p = peers_.lock();
        return p && p->send(id_, bytes);
    }

private:
    std::weak_ptr<WebRtcPeers> peers_;
    RtcPeerId id_;
};

// Signalling text as the wire allows it (webrtcbin's SDP and candidates are ASCII already).
std::string wire_text(std::string text) {
    if (text.size() > play::kMaxRtcSignalBytes) text.resize(play::kMaxRtcSignalBytes);
    for (char& c : text)
        if (!((c >= 0x20 && c <= 0x7e) || c == '\r' || c == '\n')) c = '?';
    return text;
}

}  // namespace

WebRtcDoor::WebRtcDoor(WebRtcOptions options, GameRoom& room, RoomServer& server)
    : room_(room),
      peers_(std::make_shared<WebRtcPeers>(
          std::move(options), [&server](std::function<void()> fn) { server.post(std::move(fn)); }, *this)) {}

WebRtcDoor::~WebRtcDoor() = default;

std::string WebRtcDoor::start() {
    return peers_->start();
}

void WebRtcDoor::bye(ConnectionId id, std::string why) {
    room_.send_rtc_signal(id, {.kind = play::RtcSignalKind::Bye, .text = wire_text(std::move(why))});
}

void WebRtcDoor::signal(ConnectionId id, const play::RtcSignalMessage& m) {
    switch (m.kind) {
        case play::RtcSignalKind::Offer:
            // A second offer replaces the first peer (the page restarted its connection).
            if (peers_->has(id)) room_.detach_path(id, "the page restarts its DataChannel");
            peers_->close(id);
            if (std::string e = peers_->offer(id, m.text); !e.empty()) bye(id, e);
            break;
        case play::RtcSignalKind::Candidate:
            peers_->candidate(id, m.text);
            break;
        case play::RtcSignalKind::Bye:
            peers_->close(id);
            room_.detach_path(id, "the page gave up its DataChannel (" + m.text.substr(0, 120) + ")");
            break;
        case play::RtcSignalKind::Answer:
            break;  // never decoded from a page
    }
}

void WebRtcDoor::left(ConnectionId id) {
    peers_->close(id);
}

void WebRtcDoor::rtc_signal(RtcPeerId id, RtcSignalOut kind, std::string text) {
    if (text.size() > play::kMaxRtcSignalBytes) {
        peers_->close(id);
        bye(id, "the room's answer is too long for the wire");
        return;
    }
    room_.send_rtc_signal(
        id, {.kind = kind == RtcSignalOut::Answer ? play::RtcSignalKind::Answer : play::RtcSignalKind::Candidate,
             .text = wire_text(std::move(text))});
}

void WebRtcDoor::rtc_open(RtcPeerId id) {
    room_.attach_path(id, std::make_unique<DataChannelPath>(peers_, id));
}

void WebRtcDoor::rtc_message(RtcPeerId id, std::span<const std::uint8_t> bytes) {
    room_.on_datagram(id, bytes);
}

void WebRtcDoor::rtc_closed(RtcPeerId id, std::string why) {
    bye(id, why);
    room_.detach_path(id, why.substr(0, 150) + ": playing over the websocket");
}

}  // namespace vantage::room
