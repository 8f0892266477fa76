// HordeRemote: a client of a horde room, UI-free and socket-free.
//
// The same client half as a page lane (HordeClientHalf), fed by a real socket instead of a
// LossyLink: the platform (the browser's WebSocket, or the native RoomClient for bots and the
// desktop app) hands it the socket as a Transport. It says hello, takes the seat the server
// gives it, applies every frame, acknowledges, sends its player's input, measures the round
// trip with pings, and estimates the server's clock (frames are stamped in server time and
// the client half catches positions up by their age on that clock).
//
// Meters are measured on the socket: every byte in and out, frames received and lost, RTT.
// Truth-side meters (phantoms, render error) need the truth, which a client does not have:
// for teaching, it asks the server about a sample of what it holds (a truth query, at most
// kMaxTruthSample keys, at truth_hz) and compares; those bytes are counted apart, and the
// whole exchange is switched off with set_truth(false).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/room_wire.hpp"
#include "common/transport.hpp"
#include "horde/horde_client.hpp"
#include "vantage/rate_meter.hpp"

namespace vantage::play {

struct HordeRemoteOptions {
    std::string name = "player";  // display name (sanitised by the server too)
    double truth_hz = 2.0;        // truth queries per second, [0, 10]; 0 = none
    double ping_hz = 2.0;         // RTT probes per second, [0.2, 10]
    double input_hz = 20.0;       // input messages per second while steering, [1, 60]
};

inline constexpr std::size_t kMaxTruthSample = 1024;  // keys per truth query

class HordeRemote {
public:
    enum class Status { Connecting, Joined, Refused, Closed };

    explicit HordeRemote(HordeRemoteOptions options = {});

    // Sends the hello; call once the socket is open. local_ms: this process's monotonic clock.
    void open(Transport& socket, double local_ms);
    // Handles everything the socket delivered, sends what is due (acknowledgement, input,
    // ping, truth query), and moves what it holds by dt_s.
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
    const std::vector<RosterEntry>& roster() const { return roster_; }
    const HordeClientHalf& client() const { return client_; }
    // The server's simulated time now, as this client estimates it (ms).
    double server_ms(double local_ms) const { return local_ms + offset_ms_; }

    // Socket meters (windowed, every message, both directions).
    double down_kib_s() const { return down_.per_sec() / 1024.0; }
    double up_kib_s() const { return up_.per_sec() / 1024.0; }
    double truth_kib_s() const { return truth_bytes_.per_sec() / 1024.0; }  // both directions
    std::uint64_t frames() const { return frames_; }
    std::uint64_t frames_lost() const { return client_.mirror().counters().frames_lost; }
    std::uint64_t bytes_down() const { return bytes_down_; }    // payload bytes of every message received
    std::uint64_t frame_bytes() const { return frame_bytes_; }  // of which frames
    std::uint64_t bytes_up() const { return bytes_up_; }
    double rtt_ms() const { return rtt_ms_; }  // smoothed; negative until the first pong
    // Truth meters, from the newest answered query; negative until one is answered.
    double phantoms() const { return phantoms_; }
    double err_mean_px() const { return err_mean_px_; }
    std::uint64_t truth_answers() const { return truth_answers_; }
    std::uint64_t protocol_errors() const { return protocol_errors_; }
    // The server's answer to the newest refused request (e.g. a student's command), or empty.
    const std::string& last_error() const { return last_error_; }
    // Test and teaching hook: asks the server to change the room (only a teacher may; a
    // student's page is answered with an error and nothing changes).
    void send_command(Transport& socket, double local_ms, const CommandMessage& command);

private:
    void handle(Transport& socket, std::span<const std::uint8_t> bytes, double local_ms);
    void send(Transport& socket, double local_ms, bool truth_overhead = false);
    void ask_truth(Transport& socket, double local_ms);
    void answer(const TruthMessage& truth);

    HordeRemoteOptions options_;
    Status status_ = Status::Connecting;
    std::string reason_;
    WelcomeMessage welcome_;
    std::vector<RosterEntry> roster_;
    HordeClientHalf client_;
    HordeClientScratch scratch_;
    ByteWriter writer_;
    std::vector<std::uint8_t> message_;
    double offset_ms_ = 0;
    bool offset_known_ = false;
    bool rtt_known_ = false;
    std::uint64_t tick_ = 0;

    // Input: sent when it changes and every 1/input_hz while steering.
    InputMessage input_;
    bool input_dirty_ = false;
    double next_input_ms_ = 0;
    double next_ping_ms_ = 0;
    double next_report_ms_ = 0;  // the student's meters, once a second, for the teacher's table
    std::string last_error_;

    // Truth: one query outstanding at a time, with what this client drew when it asked.
    bool truth_on_ = true;
    double next_truth_ms_ = 0;
    bool truth_pending_ = false;
    double truth_asked_ms_ = 0;         // local
    double truth_asked_server_ms_ = 0;  // the server time the drawn positions stand for
    TruthQueryMessage query_;
    std::vector<Vec2> asked_positions_;
    std::vector<Vec2> asked_players_;
    TruthMessage truth_;

    RateMeter down_, up_, truth_bytes_;
    std::uint64_t frames_ = 0, bytes_down_ = 0, frame_bytes_ = 0, bytes_up_ = 0;
    std::uint64_t truth_answers_ = 0, protocol_errors_ = 0;
    double rtt_ms_ = -1.0;
    double phantoms_ = -1.0;
    double err_mean_px_ = -1.0;
};

}  // namespace vantage::play
