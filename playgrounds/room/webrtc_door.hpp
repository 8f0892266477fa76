// WebRtcDoor: a room's DataChannel transport. It answers the seats' signalling (RtcSignal on
// the WebSocket) with WebRtcPeers and, when a page's channel opens, attaches it to the seat as
// its DatagramPath (GameRoom::attach_path): the seat's frames go down the channel and its
// acknowledgements and inputs come up it (GameRoom::on_datagram). When the peer fails, goes
// silent or the page says bye, the seat goes back to the WebSocket (detach_path) and the page
// is told why. Past max_peers an offer is answered with a bye that says so: the page keeps
// playing over the WebSocket. Server thread only; GStreamer's threads reach it through
// RoomServer::post. Boost- and GStreamer-free.
#pragma once

#include <memory>
#include <string>

#include "room/game_room.hpp"
#include "room/webrtc_peers.hpp"

namespace vantage::room {

class WebRtcDoor final : public RtcDoor, public WebRtcEvents {
public:
    // `room` and `server` outlive the door (declare the door after both).
    WebRtcDoor(WebRtcOptions options, GameRoom& room, RoomServer& server);
    ~WebRtcDoor() override;
    // Starts GStreamer (webrtc_peers.hpp); empty, or why the room has no DataChannels.
    std::string start();

    void signal(ConnectionId id, const play::RtcSignalMessage& m) override;
    void left(ConnectionId id) override;

    void rtc_signal(RtcPeerId id, RtcSignalOut kind, std::string text) override;
    void rtc_open(RtcPeerId id) override;
    void rtc_message(RtcPeerId id, std::span<const std::uint8_t> bytes) override;
    void rtc_closed(RtcPeerId id, std::string why) override;

    const WebRtcPeers& peers() const { return *peers_; }

private:
    void bye(ConnectionId id, std::string why);

    GameRoom& room_;
    std::shared_ptr<WebRtcPeers> peers_;  // shared with the seats' paths (which hold it weakly)
};

}  // namespace vantage::room
