// Netcode playground: the four classic client mechanisms (prediction, reconciliation,
// interpolation, lag compensation) and their helpers, shown failing and working over the
// same slow, lossy link.
//
// One server runs a small arena: a player (steered by a scripted autopilot or by the user)
// and three bots on smooth closed paths, ticking at 4..60 Hz. A wall stands in the middle
// that only the server knows about (think of a door the client's map lacks): prediction
// alone walks through it, reconciliation holds the player at it. Each client lane has its
// own pair of LossyLinks (same seeds, so the same packets are lost in every lane) and its own
// server session, and every message is byte-encoded (netcode_wire.hpp), so bandwidth is real.
//
// Lanes, in lockstep over the same inputs and the same shots:
//   truth  the server's world (drawn by the view; its meters are the server's);
//   off    a client with every mechanism off: it draws the newest state it received;
//   on     a client with the mechanisms chosen by the settings.
// Shots carry the server time of the state the client was drawing; the server judges every
// shot twice, rewound with HistoricalStateBuffer and against the present, so the lag
// compensation tally compares the same shots.
//
// Errors are measured against truth the client cannot see: the player against the
// zero-latency "ideal" (every input issued so far applied at once by the server's rules),
// the remotes against where the bots are now and where they were at the instant drawn.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/catalog.hpp"
#include "common/packet_log.hpp"
#include "common/reading.hpp"
#include "common/simulation.hpp"
#include "netcode/netcode_wire.hpp"
#include "vantage/adaptive_delay.hpp"
#include "vantage/correction_smoother.hpp"
#include "vantage/historical_state_buffer.hpp"
#include "vantage/input_frontier.hpp"
#include "vantage/lossy_link.hpp"
#include "vantage/predicted_entity.hpp"
#include "vantage/random.hpp"
#include "vantage/rate_meter.hpp"
#include "vantage/smooth_clock.hpp"
#include "vantage/snapshot_buffer.hpp"
#include "vantage/vec.hpp"

namespace vantage::play {

// Every control of the playground (each one a Param, so in the URL hash).
struct NetcodeSettings {
    double latency_ms = 120.0;          // one-way latency, each direction, ms (0..500)
    double jitter_ms = 0.0;             // extra delay uniform in [0, jitter], ms (0..200)
    double loss_pct = 0.0;              // packet loss, each direction, % (0..50)
    int server_hz = 10;                 // server ticks (and state packets) per second (4..60)
    bool prediction = true;             // apply own inputs at once
    bool reconciliation = true;         // rewind to the server's state and replay (needs prediction)
    bool correction_smoothing = true;   // ease the drawn correction (needs reconciliation)
    bool interpolation = true;          // draw remotes between snapshots, behind a render delay
    double render_delay_ms = 150.0;     // fixed render delay when adaptive buffering is off, ms (0..600)
    bool extrapolation = true;          // dead-reckon past the newest snapshot (needs interpolation)
    double extrapolation_cap_ms = 500;  // longest dead-reckoning, ms (0..1000)
    bool second_order = false;          // fit a curve through three snapshots (needs extrapolation)
    double curve_trust = 1.0;           // how much of the curve to apply (0..1, needs second order)
    bool adaptive_buffering = true;     // size the delay from the arrivals (needs interpolation)
    bool clock_sync = true;             // keep correcting the server-time estimate (needs interpolation)
    bool smooth_clock = true;           // correct it by rate, not by steps (needs clock sync)
    bool lag_compensation = true;       // the server judges this lane's shots rewound
    bool autopilot = true;              // the scripted pilot steers; off: the user (WASD)
    bool auto_shoot = true;             // fire scripted shots at the bots
    double shots_per_s = 1.5;           // scripted shot rate, 1/s (0.2..5)
    bool show_ghost = true;             // view only: draw the server-confirmed player

    // Empty when every field is in range, otherwise a message naming the first bad one
    // (derived from the declarations in netcode_sim.cpp, the sliders' ranges).
    std::string validate() const;
};

// The mechanisms one client actually runs: the settings with their prerequisites applied.
struct Mechanisms {
    bool prediction = false;
    bool reconciliation = false;
    bool smoothing = false;
    bool interpolation = false;
    bool extrapolation = false;
    bool second_order = false;
    bool adaptive = false;
    bool clock_sync = false;
    bool smooth_clock = false;
    bool lag_compensation = false;
    float curve_trust = 1.0f;
    double fixed_delay_ms = 150.0;
    double extrapolation_cap_ms = 500.0;

    static Mechanisms from(const NetcodeSettings& s);
};

// Arena geometry (px). The wall is known to the server only.
struct Arena {
    static constexpr float kWidth = 820.0f;
    static constexpr float kHeight = 560.0f;
    static constexpr float kWallMinX = 540.0f, kWallMaxX = 560.0f;
    static constexpr float kWallMinY = 120.0f, kWallMaxY = 440.0f;
    static constexpr float kPlayerRadius = 12.0f;
    static constexpr float kBotRadius = 14.0f;
    static constexpr float kSpeed = 240.0f;         // player speed, px/s
    static constexpr float kHitRadius = 18.0f;      // a shot within this of a target hits
    static constexpr double kMaxRewindMs = 1000.0;  // Source's sv_maxunlag
    static constexpr std::size_t kBots = 3;
};

// The client's rule: moves and stays inside the arena (it does not know the wall).
void step_client(Vec2& p, const MoveInput& m);
// The server's rule: the same, and the wall stops the player.
void step_server(Vec2& p, const MoveInput& m);
// Where bot i is at server time t (ms): a smooth closed path, deterministic on every platform.
Vec2 bot_position(std::size_t i, double server_ms);

// A shot as its lane remembers it, for the flash.
struct ShotTrace {
    std::uint32_t id = 0;
    double fired_ms = 0.0;  // local time
    Vec2 from{};
    Vec2 aim{};
    bool judged = false;
    bool hit = false;  // the verdict this lane counts (rewound or present, by its setting)
    bool hit_rewound = false;
    bool hit_present = false;
    Vec2 rewound{};
    double judged_ms = 0.0;  // local time the verdict arrived
};

// The server's half of one client connection.
struct ServerSession {
    Vec2 player{};
    InputFrontier inputs;
    InputFrontier shots;
    struct Arrival {
        double arrived_ms = 0.0;  // local time the packet arrived
        InputPacket packet;
    };
    std::vector<Arrival> inbox;         // decoded, awaiting the next tick: the first inbox_used
    std::size_t inbox_used = 0;         // entries in use (at most the reference game's 256)
    std::vector<ShotVerdict> verdicts;  // the newest few, repeated in every state
    double echo_client_ms = 0.0;        // newest client send time received
    double echo_arrived_ms = 0.0;       // local time it arrived
    double rtt_ms = 0.0;                // server-measured round trip (EWMA), 0 until measured
    std::uint64_t rtt_samples = 0;
    // Per shot judged (with a rewound target): the distance from the aim to the nearest
    // target's present and rewound positions (px), how far the misses missed.
    Reading present_miss_px;
    Reading rewound_miss_px;
    std::uint64_t decode_errors = 0;
    std::uint64_t inbox_overflow = 0;
};

// One client and its connection. Written only by NetcodeSim; read by the view and the tests.
struct ClientLane {
    const char* name = "";
    bool all_off = false;  // the "everything off" lane ignores the settings
    Mechanisms mech;
    LossyLink up, down;
    ServerSession server;

    PredictedEntity<Vec2, MoveInput> entity{Vec2{}};
    Vec2 free_prediction{};  // prediction never reconciled (reconciliation off)
    CorrectionSmoother<Vec2> smoother;
    Vec2 authority{};  // newest server-confirmed player (the ghost)
    bool has_state = false;
    double newest_stamp_ms = 0.0;    // newest server stamp received
    double newest_arrived_ms = 0.0;  // local time it arrived
    std::array<SnapshotBuffer<Vec2>, Arena::kBots> snapshots;
    SmoothClock rate_clock{{.mode = ClockMode::Rate}};
    SmoothClock snap_clock{{.mode = ClockMode::Snap, .snap_strength = 0.08}};
    SmoothClock free_clock;  // started by the first stamp, never corrected
    AdaptiveDelay delay;
    double client_rtt_ms = 0.0;  // client-measured round trip (EWMA), 0 until measured
    std::uint64_t rtt_samples = 0;
    std::uint64_t decode_errors = 0;

    std::vector<ShotMsg> unacked_shots;
    std::uint32_t next_shot_id = 1;
    std::vector<ShotTrace> shots;  // recent shots, oldest first (bounded)
    PacketLog timeline;            // recent packets, oldest first (bounded)

    // Drawn this frame.
    Vec2 drawn_player{};
    std::array<Vec2, Arena::kBots> drawn_bots{};
    std::array<SampleKind, Arena::kBots> bot_kinds{};
    double seen_ms = 0.0;    // server time of the remote state drawn
    double render_ms = 0.0;  // the render time (interpolation) or the newest stamp
    double delay_in_use_ms = 0.0;
    double clock_rate = 1.0;
    double clock_ms = 0.0;  // the server-time estimate drawn from
    bool drawn_valid = false;
    // The previous frame's drawing and motion, for the stutter meters: stutter is how much the
    // drawn motion changed from one frame to the next beyond the truth's own change (px).
    Vec2 prev_drawn_player{};
    Vec2 prev_player_motion{};
    std::array<Vec2, Arena::kBots> prev_drawn_bots{};
    std::array<Vec2, Arena::kBots> prev_bot_motion{};
    std::uint64_t player_frames = 0;  // frames measured
    std::uint64_t bot_frames = 0;     // consecutive frames the bots were drawn

    // The lane's metrics, each recorded once (see Reading): the page reads the recent mean
    // or the window, the report and the tests the run since begin_measurement().
    Reading up_bytes, down_bytes;  // per datagram the encoder produced, B
    // Per frame, px: the drawn player against the ideal (every frame), and its stutter.
    Reading prediction_error, player_stutter;
    // Per frame with a state to draw, px, mean over the bots: against where they are now,
    // against the instant drawn; their stutter (from the third such frame on).
    Reading render_error, reconstruct_error, remote_stutter;
    // Per frame with a state to draw: bots dead-reckoned (0..kBots), and their summed error
    // against the instant drawn (px).
    Reading extrapolated, extrapolation_error;
    Reading correction;  // per reconciliation, px the prediction jumped
    // One sample per verdict received: 1 when the shot hit rewound (lag compensation), resp.
    // against the present. samples() is the shots judged.
    Reading hits_rewound, hits_present;
    std::uint64_t corrections = 0;  // reconciliations that moved the prediction

    std::array<Reading*, 12> readings() {
        return {&up_bytes,          &down_bytes,     &prediction_error, &player_stutter,      &render_error,
                &reconstruct_error, &remote_stutter, &extrapolated,     &extrapolation_error, &correction,
                &hits_rewound,      &hits_present};
    }

    const SmoothClock& clock() const;
};

class NetcodeSim final : public Simulation {
public:
    static constexpr std::size_t kLanes = 2;  // 0: everything off, 1: the chosen mechanisms

    NetcodeSim();
    std::string_view name() const override { return "netcode"; }
    std::string_view title() const override { return "Netcode"; }
    void reset(std::uint64_t seed) override;
    void step(double dt_s) override;
    void meters(std::vector<Meter>& out) const override;
    std::span<const MeterInfo> glossary() const override;
    std::uint64_t checksum() const override;
    double time_s() const override { return local_ms_ / 1000.0; }
    bool param_enabled(std::string_view name) const override;
    // Every lane's run readings (and its server's) count from here on.
    void begin_measurement() override;

    // Sets a Param by name (as the host would, minus validation). Asserts the name exists.
    void set(std::string_view name, double value);
    const NetcodeSettings& settings() const { return settings_; }

    // The user's steering when the autopilot is off (a direction, length <= 1).
    void set_user_direction(Vec2 dir) { user_dir_ = dir; }
    // A user shot from lane `lane` at `aim` (px), fired on the next step.
    void request_shot(std::size_t lane, Vec2 aim);

    const ClientLane& lane(std::size_t i) const { return lanes_[i]; }
    // The server's world.
    Vec2 true_bot(std::size_t i) const { return bot_position(i, server_now_ms()); }
    Vec2 server_player() const { return lanes_[1].server.player; }
    Vec2 ideal_player() const { return ideal_; }
    double server_now_ms() const { return local_ms_ + kServerClockOffsetMs; }
    double local_ms() const { return local_ms_; }
    std::uint64_t server_ticks() const { return server_ticks_; }
    const HistoricalStateBuffer<std::uint32_t, Vec2>& history() const { return history_; }
    // The scripted pilot's current waypoint.
    Vec2 waypoint() const;

    // The server clock runs this far ahead of the clients' local clock, so no client can
    // mistake its own clock for the server's.
    static constexpr double kServerClockOffsetMs = 7000.0;

private:
    void apply_link_options();
    MoveInput next_input(double dt_ms);
    void server_tick(double local_ms);
    void client_receive(ClientLane& c);
    void client_frame(ClientLane& c, const MoveInput& m, double dt_ms,
                      const std::optional<std::size_t>& scripted_target);
    void judge(ServerSession& s, const ShotMsg& shot, double server_ms);
    void measure(ClientLane& c);

    NetcodeSettings settings_;
    XorShift rng_{1};
    double local_ms_ = 0.0;
    double next_tick_ms_ = 0.0;  // local time of the next server tick
    std::uint64_t server_ticks_ = 0;
    Vec2 ideal_{};
    Vec2 prev_ideal_{}, prev2_ideal_{};              // the ideal player one and two frames ago
    double prev_now_ms_ = 0.0, prev2_now_ms_ = 0.0;  // server time one and two frames ago
    Vec2 user_dir_{};
    std::size_t waypoint_ = 0;
    double leg_deadline_ms_ = 0.0;  // the pilot moves on from a blocked waypoint at this time
    double next_shot_ms_ = 0.0;
    std::size_t next_target_ = 0;
    struct UserShot {
        std::size_t lane;
        Vec2 aim;
    };
    std::vector<UserShot> user_shots_;
    HistoricalStateBuffer<std::uint32_t, Vec2> history_{{.max_records_per_entity = 128, .max_age_ms = 1200.0}};
    std::array<ClientLane, kLanes> lanes_;
    // Reused message buffers: a steady run encodes and decodes without allocating.
    ByteWriter writer_;
    std::vector<std::uint8_t> packet_;
    InputPacket input_out_;
    StatePacket state_out_, state_in_;
};

// The tables behind the README's findings (`./vantage report netcode`).
void report_netcode(const ReportOptions& options, std::FILE* out);

}  // namespace vantage::play
