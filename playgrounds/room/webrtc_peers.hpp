// WebRtcPeers: the room's end of browsers' WebRTC DataChannels. A page's JS owns its
// RTCPeerConnection and offers one channel ({ordered: false, maxRetransmits: 0}); this side
// answers it with one GStreamer webrtcbin per peer (gst-plugins-bad from Debian, libnice for
// ICE, usrsctp inside the plugin for SCTP). Signalling (offer, answer, candidates) rides the
// room's WebSocket: the owner carries the text both ways.
//
// Threads. Every webrtcbin lives in this object's own GLib main loop thread, besides the
// threads webrtcbin starts itself (about nine a peer: ICE, DTLS, SCTP, its operation queue).
// GStreamer's callbacks never call the owner: they copy what they got and hand it to `post`,
// which must run it on the owner's thread (RoomServer::post in a room). Every event below is
// therefore delivered on the owner's thread; so are the calls the owner makes. Building a
// pipeline and tearing one down happen on the loop thread, never on webrtcbin's own threads
// (setting a webrtcbin to NULL from one of its threads deadlocks). Outgoing messages go
// through one sender thread (send() only queues), because webrtcbin's send path is synchronous
// and costs about 0.2 ms of CPU a message: a room tick must not pay it for every page.
//
// Disconnects. GStreamer 1.22 reports a vanished browser neither through the connection state
// nor the channel's close: the only sign is an ERROR on the pipeline's bus from sctpenc
// ("SCTP association went into error state") about 3 s later. Both that and an application
// heartbeat end a peer: the page sends at least one message every heartbeat_ms (a frame's
// acknowledgement, an input, or the one-byte kRtcHeartbeat, which is consumed here); a peer
// silent for heartbeat_timeout_ms, or not open within connect_timeout_ms, is torn down and the
// owner told why. A torn-down peer leaves no thread and no memory: its pipeline goes to NULL on
// the loop thread and the creation reference is dropped (else libnice's thread stays).
//
// Limits: max_peers at once (the owner keeps a newcomer on the WebSocket and says so); one
// message at most kMaxRtcMessageBytes, a whole frame (the SCTP MTU is 1,200, so a message over
// about 1,100 bytes travels as two fragments and is lost with either: frames are kept smaller
// by the lanes' budgets); signalling text at most kMaxRtcSignalBytes. Not guaranteed: delivery (that is the point),
// order, or that the first messages a page sends before the channel reaches this side arrive.
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

inline constexpr std::size_t kMaxRtcMessageBytes = 1200;  // one DataChannel message, either way (a frame)
inline constexpr std::uint8_t kRtcHeartbeat = 0x00;       // a page's one-byte "still here" (never a room message type)

struct WebRtcOptions {
    std::vector<std::string> addresses{"127.0.0.1"};  // the only local addresses ICE gathers on (IP
                                                      // literals: the room's own, loopback and/or LAN)
    std::uint16_t min_port = 0;                       // UDP port range of the ICE candidates, [1, 65535]
    std::uint16_t max_port = 0;                       // with min_port; both 0 = any ephemeral port
    int max_peers = 64;                               // peers at once, [0, 1024]; 0 = no DataChannels
    double connect_timeout_ms = 10000;                // offer to open channel, (0, 120000]
    double heartbeat_timeout_ms = 3000;               // open channel silent this long: gone, (0, 60000]
    double max_inbound_per_s = 240;                   // messages a second per peer (token bucket, burst one
                                                      // second's worth), > 0; the excess is dropped and counted
    std::string validate() const;                     // empty when fine, else names the field
};

using RtcPeerId = std::uint64_t;  // the owner's id (a room uses the WebSocket's ConnectionId)

// What the answering side says to the page, by the owner's WebSocket.
enum class RtcSignalOut : std::uint8_t { Answer, Candidate };

class WebRtcEvents {  // every callback runs on the owner's thread (through `post`)
public:
    virtual ~WebRtcEvents() = default;
    virtual void rtc_signal(RtcPeerId id, RtcSignalOut kind, std::string text) = 0;  // SDP or "candidate:..."
    virtual void rtc_open(RtcPeerId id) = 0;  // the page's channel reached this side: send() works
    virtual void rtc_message(RtcPeerId id, std::span<const std::uint8_t> bytes) = 0;  // heartbeats excluded
    virtual void rtc_closed(RtcPeerId id, std::string why) = 0;  // not after the owner's own close()
};

struct WebRtcStats {
    std::size_t peers = 0;                          // now (the owner's view)
    std::uint64_t opened = 0;                       // channels that opened
    std::uint64_t closed_error = 0;                 // torn down by a bus error (the association failed)
    std::uint64_t closed_silent = 0;                // torn down by the heartbeat
    std::uint64_t closed_timeout = 0;               // never opened within connect_timeout_ms
    std::uint64_t messages_in = 0, bytes_in = 0;    // delivered to rtc_message
    std::uint64_t messages_out = 0, bytes_out = 0;  // accepted by send()
    std::uint64_t heartbeats_in = 0;
    std::uint64_t dropped_in = 0;   // over max_inbound_per_s
    std::uint64_t refused_out = 0;  // send() refused: not open, too large, or the outbox full (sender behind)
    std::uint64_t dropped_out = 0;  // accepted, but the channel said no or had closed by the time it was sent
};

class WebRtcPeers {
public:
    using Post = std::function<void(std::function<void()>)>;  // thread-safe; runs fn on the owner's thread
    WebRtcPeers(WebRtcOptions options, Post post, WebRtcEvents& events);
    ~WebRtcPeers();  // on the owner's thread: tears every peer down and joins the loop thread
    WebRtcPeers(const WebRtcPeers&) = delete;
    WebRtcPeers& operator=(const WebRtcPeers&) = delete;

    // Validates the options, initialises GStreamer, checks that webrtcbin and its plugins are
    // installed, generates the DTLS certificate (about 0.5 s, once a process: the first peer
    // would otherwise wait for it) and starts the loop thread. Empty, or why not.
    std::string start();
    bool started() const;

    // --- the owner's thread ---
    // A page's offer: a new peer for `id` answers it (the answer and candidates come back as
    // rtc_signal). Empty, or why not (not started, full, a second offer for one id, not SDP).
    std::string offer(RtcPeerId id, std::string_view sdp);
    // One of the page's ICE candidates ("candidate:..."; empty = end of candidates, ignored).
    void candidate(RtcPeerId id, std::string_view candidate);
    // Queues one message for the peer's channel (a sender thread hands it to webrtcbin, so the
    // caller pays a copy, not the SCTP/DTLS send); false when refused (not open, too large, or
    // the sender is max(64, 4 x max_peers) messages behind: dropped, as a datagram may be).
    bool send(RtcPeerId id, std::span<const std::uint8_t> bytes);
    // Tears the peer down (no rtc_closed for it); unknown ids are ignored.
    void close(RtcPeerId id);
    bool has(RtcPeerId id) const;
    bool open(RtcPeerId id) const;
    std::size_t peers() const;
    WebRtcStats stats() const;
    const WebRtcOptions& options() const;

    // Any thread: peers whose pipelines still exist (torn-down ones leave at once).
    std::size_t live_pipelines() const;

    struct Impl;  // public only so that the GStreamer callbacks in the .cpp can name it

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace vantage::room
