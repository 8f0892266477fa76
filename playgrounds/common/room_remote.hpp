// RoomRemote: a client of a room, UI-free and socket-free, whatever the room plays.
//
// The platform (the browser's WebSocket, or the native RoomClient for bots and the desktop
// app) hands it the socket as a Transport. It says hello, takes the seat the server gives
// it, hands every frame to the game's client half (the same half a page lane uses), sends its
// player's input, measures the round trip with pings, and estimates the server's clock
// (frames are stamped in server time and the client half catches states up by their age on
// that clock). HordeRemote and BlackholeRemote are the games.
//
// Meters are measured on the socket: every byte in and out, frames received and lost, RTT.
// Truth-side meters need the truth, which a client does not have: for teaching, it asks the
// server about a sample of what it holds (a truth query, at most kMaxTruthSample keys, at
// truth_hz) and compares; those bytes are counted apart, and the whole exchange is switched
// off with set_truth(false).
//
// Transport: frames may arrive over a datagram path beside the socket (UDP natively, a
// DataChannel in a page: room_wire.md, "Transports"). The platform opens that path and hands
// it in with set_datagram(); from then on the frames it delivers are applied like the
// socket's, and acknowledgements and inputs go up over it. The room says which transport the
// seat's frames use (TransportState); the client's meters are the same whatever it is: the
// age of the newest frame held (p50 and p99 over the meter window) and the stalls seen.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/room_wire.hpp"
#include "common/transport.hpp"
#include "vantage/rate_meter.hpp"

namespace vantage::play {

struct RoomRemoteOptions {
    std::string name = "player";  // display name (sanitised by the server too)
    double truth_hz = 2.0;        // truth queries per second, [0, 10]; 0 = none
    double ping_hz = 2.0;         // RTT probes per second, [0.2, 10]
    double input_hz = 20.0;       // input messages per second while steering, [1, 60]
};

inline constexpr std::size_t kMaxTruthSample = 1024;  // keys per truth query

class RoomRemote {
public:
    enum class Status { Connecting, Joined, Refused, Closed };

    explicit RoomRemote(RoomRemoteOptions options = {});
    virtual ~RoomRemote() = default;
    RoomRemote(const RoomRemote&) = delete;
    RoomRemote& operator=(const RoomRemote&) = delete;

    // The playground this client plays ("horde", "blackhole"): its hello says so.
    virtual std::string_view playground() const = 0;

    // The datagram path beside the socket (null: none); the caller owns it and keeps it alive
    // while set. Frames arriving over either are applied; acknowledgements and inputs go up
    // over the path while it is set.
    void set_datagram(Transport* path) { datagram_ = path; }
    Transport* datagram() const { return datagram_; }
    // Asks the room for a UDP connect token (answered by a UdpGrant, or a TransportState
    // saying why not).
    void request_udp(Transport& socket, double local_ms);
    // The newest UdpGrant's token bytes, once (decode_udp_token reads them); false when none
    // came since the last call.
    bool take_udp_grant(std::vector<std::uint8_t>& token);
    // What the room last said about this seat's transport (WebSocket until it says otherwise).
    SeatTransport transport() const { return transport_.transport; }
    SeatTransport wanted_transport() const { return transport_.wanted; }
    const std::string& transport_why() const { return transport_.why; }
    // The platform's own note (a datagram path that did not form), shown instead of the
    // room's sentence until the room says something new.
    void note_transport(std::string why) { transport_.why = std::move(why); }
    // WebRTC signalling (a page's DataChannel): the room's answer, candidates and byes as they
    // arrive (at most 64 held; older ones are dropped), and the page's own to send.
    bool take_rtc_signal(RtcSignalMessage& out);
    void send_rtc_signal(Transport& socket, double local_ms, const RtcSignalMessage& m);
    // How many TransportState messages arrived (a change the platform may act on).
    std::uint64_t transport_changes() const { return transport_changes_; }

    // Sends the hello; call once the socket is open. local_ms: this process's monotonic clock.
    void open(Transport& socket, double local_ms);
    // Handles everything the socket delivered, sends what is due (acknowledgement, input,
    // ping, report, truth query), and moves what it holds by dt_s.
    void update(Transport& socket, double local_ms, float dt_s);
    // The socket closed (by either side); `reason` is shown.
    void closed(std::string reason);

    void set_input(Vec2 direction, bool autopilot);
    void set_truth(bool on) { truth_on_ = on; }
    bool truth() const { return truth_on_; }

    Status status() const { return status_; }
    const std::string& reason() const { return reason_; }  // refused or closed: why
    std::uint32_t seat() const { return welcome_.seat; }
    std::uint32_t seats() const { return welcome_.seats; }
    const WelcomeMessage& welcome() const { return welcome_; }
    // The room resends its simulated loss on WebSocket seats, as TCP would (the welcome's
    // settings, then each TransportState, say websocket_retransmits); datagram seats lose it.
    bool websocket_retransmits() const;
    const std::vector<RosterEntry>& roster() const { return roster_; }
    // The server's simulated time now, as this client estimates it (ms).
    double server_ms(double local_ms) const { return local_ms + offset_ms_; }

    // Socket meters (windowed, every message, both directions).
    double down_kib_s() const { return down_.per_sec() / 1024.0; }
    double up_kib_s() const { return up_.per_sec() / 1024.0; }
    double truth_kib_s() const { return truth_bytes_.per_sec() / 1024.0; }  // both directions
    std::uint64_t frames() const { return frames_; }
    virtual std::uint64_t frames_lost() const = 0;
    std::uint64_t bytes_down() const { return bytes_down_; }    // payload bytes of every message received
    std::uint64_t frame_bytes() const { return frame_bytes_; }  // of which frames
    std::uint64_t bytes_up() const { return bytes_up_; }
    // Smoothed round trip; empty (not measured) until the first pong.
    std::optional<double> rtt_ms() const { return rtt_ms_; }
    // Truth meters, from the newest answered query; empty until one is answered. phantoms
    // stays empty where nothing can be held after it is gone (the black holes' pellets).
    std::optional<double> phantoms() const { return phantoms_; }
    std::optional<double> err_mean_px() const { return err_mean_px_; }
    // Age of the newest frame held, sampled every update: how long ago, on this client's clock,
    // that frame would have arrived had it come as fast as the fastest frame of the last 1 to
    // 2 s (a short window: the room's clock, which loses time when its ticks are skipped, drifts
    // from this one), plus half the smallest round trip seen (the one-way floor; the clocks are
    // not synchronised, so this is the best absolute estimate a client has). A frame delayed behind a retransmission
    // ages by that delay; one never received leaves the previous one ageing. Median and 99th
    // percentile over the meter window (the last RateMeter::kWindowMs); empty before the first
    // frame.
    std::optional<double> frame_age_p50_ms() const { return frame_age_percentile(0.50); }
    std::optional<double> frame_age_p99_ms() const { return frame_age_percentile(0.99); }
    // Stalls: times the newest frame grew older than three frame intervals (1 / the room's
    // send_hz) with no newer one arriving; one count per episode.
    std::uint64_t stalls() const { return stalls_; }
    double stall_threshold_ms() const { return stall_threshold_ms_; }
    // Frames that arrived over the datagram path (the rest came over the socket).
    std::uint64_t datagram_frames() const { return datagram_frames_; }
    std::uint64_t truth_answers() const { return truth_answers_; }
    std::uint64_t protocol_errors() const { return protocol_errors_; }
    // The server's answer to the newest refused request (e.g. a student's command), or empty.
    const std::string& last_error() const { return last_error_; }
    // Test and teaching hook: asks the server to change the room (only a teacher may; a
    // student's page is answered with an error and nothing changes).
    void send_command(Transport& socket, double local_ms, const CommandMessage& command);

    // What the client holds (enemies, pellets), where a seat's player is as the newest frame
    // held put it (empty when no frame held carried it), and so where its own player is.
    virtual std::size_t held() const = 0;
    virtual std::optional<Vec2> player(std::uint32_t seat) const = 0;
    std::optional<Vec2> me() const { return player(seat()); }

protected:
    // --- the game's client half ---
    // The server-time stamp of a frame (its first field after the type), or nullopt.
    virtual std::optional<std::uint64_t> frame_stamp(std::span<const std::uint8_t> frame) const = 0;
    // Applies one frame; false when the half refused it (counted by the half).
    virtual bool apply_frame(std::span<const std::uint8_t> frame, double server_ms) = 0;
    // The join state after the welcome (the black holes' pellets); false if refused.
    virtual bool join_state(std::span<const std::uint8_t>) { return false; }
    // The acknowledgement of what was applied this update, if the game acknowledges.
    virtual bool encode_ack(ByteWriter&) { return false; }
    // Whether there is anything to ask the truth about yet.
    virtual bool ready() const = 0;
    // Draws the truth sample (ascending keys, at most kMaxTruthSample) and remembers what was
    // held for each; false when there is nothing to ask.
    virtual bool draw_truth(std::vector<std::uint64_t>& keys, double server_ms) = 0;
    // Scores the answer against what was drawn at server time `asked_server_ms`; a game that
    // cannot hold what is gone leaves phantoms empty.
    virtual void score_truth(const TruthMessage& truth, double asked_server_ms, std::optional<double>& phantoms,
                             std::optional<double>& err_mean_px) = 0;
    // Moves what is held by dt_s (the server's time is now `server_ms`).
    virtual void advance(float dt_s, double server_ms) = 0;

private:
    struct AgeSample {
        double local_ms = 0;
        float age_ms = 0;
    };
    void handle(std::span<const std::uint8_t> bytes, double local_ms);
    void sample_frame_age(double local_ms);
    std::optional<double> frame_age_percentile(double q) const;
    void send(Transport& socket, double local_ms, bool truth_overhead = false);
    void ask_truth(Transport& socket, double local_ms);

    RoomRemoteOptions options_;
    Status status_ = Status::Connecting;
    std::string reason_;
    WelcomeMessage welcome_;
    std::vector<RosterEntry> roster_;
    ByteWriter writer_;
    std::vector<std::uint8_t> message_;
    double offset_ms_ = 0;
    bool offset_known_ = false;

    // Input: sent when it changes and every 1/input_hz while steering.
    InputMessage input_;
    bool input_dirty_ = false;
    double next_input_ms_ = 0;
    double next_ping_ms_ = 0;
    double next_report_ms_ = 0;  // the student's meters, once a second, for the teacher's table
    std::string last_error_;

    // Truth: one query outstanding at a time.
    bool truth_on_ = true;
    double next_truth_ms_ = 0;
    bool truth_pending_ = false;
    double truth_asked_ms_ = 0;         // local
    double truth_asked_server_ms_ = 0;  // the server time the drawn states stand for
    TruthQueryMessage query_;
    TruthMessage truth_;

    RateMeter down_, up_, truth_bytes_;
    std::uint64_t frames_ = 0, bytes_down_ = 0, frame_bytes_ = 0, bytes_up_ = 0;
    std::uint64_t truth_answers_ = 0, protocol_errors_ = 0;
    std::optional<double> rtt_ms_;  // empty: not measured yet
    std::optional<double> phantoms_;
    std::optional<double> err_mean_px_;

    // Transport and its meters.
    Transport* datagram_ = nullptr;
    TransportStateMessage transport_;
    TransportStateMessage told_;  // the room's last TransportState as sent (transport_ may carry a local why)
    std::uint64_t transport_changes_ = 0;
    std::vector<std::uint8_t> udp_grant_;
    std::deque<RtcSignalMessage> rtc_in_;
    bool udp_grant_new_ = false;
    double newest_stamp_ms_ = -1;  // server ms of the newest frame applied; negative: none
    // max over frames of (stamp - local arrival), the fastest delivery, in two 4 s buckets
    double fastest_offset_ms_[2] = {0, 0};
    bool fastest_known_[2] = {false, false};
    double fastest_bucket_start_ms_ = 0;
    double min_rtt_ms_ = -1;             // the smallest round trip seen; negative: none yet
    double newest_arrival_ms_ = 0;       // local ms it arrived
    double stall_threshold_ms_ = 187.5;  // three frame intervals (set from the welcome)
    bool stalled_ = false;
    std::uint64_t stalls_ = 0;
    std::uint64_t datagram_frames_ = 0;
    std::vector<AgeSample> ages_;  // ring, kMaxAgeSamples
    std::size_t ages_next_ = 0;
    mutable std::vector<float> age_scratch_;
};

}  // namespace vantage::play
