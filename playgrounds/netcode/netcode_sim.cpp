#include "netcode/netcode_sim.hpp"

#include "common/settings_schema.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <string>

namespace vantage::play {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kTwoPi = 2.0 * kPi;
constexpr std::size_t kInboxCap = 256;  // the reference game's inbox (core/docs/background.md)
constexpr std::size_t kShotTraceCap = 16;
constexpr std::size_t kVerdictsRepeated = 4;
constexpr double kRttGain = 0.1;
constexpr double kLegSlackMs = 300.0;  // a blocked leg is abandoned this long after it should have ended

// sin from + and * only (range reduction, then the Taylor series to x^15 on [-pi/2, pi/2],
// error below 1e-11): libm's sin may differ by an ulp between glibc and Emscripten's musl,
// and the bots' paths feed the golden checksum shared by native and wasm.
double portable_sin(double x) {
    x -= kTwoPi * std::floor(x / kTwoPi);
    if (x > kPi) x -= kTwoPi;
    if (x > 0.5 * kPi) x = kPi - x;
    if (x < -0.5 * kPi) x = -kPi - x;
    // Taylor coefficients of sin / x in powers of x^2, highest first (x^14 down to x^0).
    constexpr double kCoefficients[] = {-1.0 / 1307674368000.0, 1.0 / 6227020800.0, -1.0 / 39916800.0, 1.0 / 362880.0,
                                        -1.0 / 5040.0,          1.0 / 120.0,        -1.0 / 6.0,        1.0};
    const double x2 = x * x;
    double sum = 0.0;
    for (double c : kCoefficients) sum = sum * x2 + c;
    return x * sum;
}
double portable_cos(double x) {
    return portable_sin(x + 0.5 * kPi);
}

// Waypoints of the scripted pilot: a loop round the arena with one leg pushed into each face
// of the wall (blocked until the leg times out).
constexpr std::array<Vec2, 8> kWaypoints = {Vec2{120, 100}, Vec2{700, 100}, Vec2{700, 280}, Vec2{380, 280},
                                            Vec2{700, 470}, Vec2{120, 470}, Vec2{120, 280}, Vec2{720, 280}};
constexpr Vec2 kPlayerStart{120.0f, 280.0f};

bool inside_wall(Vec2 p) {
    const float r = Arena::kPlayerRadius;
    return p.x > Arena::kWallMinX - r && p.x < Arena::kWallMaxX + r && p.y > Arena::kWallMinY - r &&
           p.y < Arena::kWallMaxY + r;
}

void move(Vec2& p, const MoveInput& m, bool wall) {
    Vec2 d = m.direction();
    const float len = d.length();
    if (len > 1.0f) d = d * (1.0f / len);
    const float dist = Arena::kSpeed * static_cast<float>(m.duration_ms() / 1000.0);
    const float r = Arena::kPlayerRadius;
    Vec2 next = p + d * dist;
    next.x = std::clamp(next.x, r, Arena::kWidth - r);
    next.y = std::clamp(next.y, r, Arena::kHeight - r);
    if (wall) {
        // Resolve one axis at a time, so the player slides along the wall's face.
        if (inside_wall({next.x, p.y}))
            next.x = p.x <= Arena::kWallMinX - r ? Arena::kWallMinX - r : Arena::kWallMaxX + r;
        if (inside_wall({next.x, next.y}))
            next.y = p.y <= Arena::kWallMinY - r ? Arena::kWallMinY - r : Arena::kWallMaxY + r;
    }
    p = next;
}

std::int8_t axis(float v) {
    return static_cast<std::int8_t>(std::lround(std::clamp(v, -1.0f, 1.0f) * 127.0f));
}

void ewma(double& value, std::uint64_t& samples, double sample) {
    value = samples == 0 ? sample : value + kRttGain * (sample - value);
    ++samples;
}

template <class T>
void push_bounded(std::vector<T>& v, const T& item, std::size_t cap) {
    if (v.size() >= cap) v.erase(v.begin());
    v.push_back(item);
}

// Appends a packet to the strip, reusing the oldest mark's byte buffer once the strip is
// full, so a steady stream records without allocating (each buffer is reserved once, larger
// than any packet of this playground: at most 64 inputs and 8 shots up, 8 bots down).
}  // namespace

void step_client(Vec2& p, const MoveInput& m) {
    move(p, m, false);
}
void step_server(Vec2& p, const MoveInput& m) {
    move(p, m, true);
}

Vec2 bot_position(std::size_t i, double server_ms) {
    const double t = server_ms / 1000.0;
    switch (i) {
        case 0: {  // an ellipse in the top-left room, ~180 px/s
            const double a = 1.7 * t;
            return {static_cast<float>(200.0 + 120.0 * portable_cos(a)),
                    static_cast<float>(170.0 + 90.0 * portable_sin(a))};
        }
        case 1: {  // a figure of eight along the bottom, up to ~230 px/s
            const double a = 1.0 * t + 1.0;
            return {static_cast<float>(300.0 + 170.0 * portable_sin(a)),
                    static_cast<float>(400.0 + 80.0 * portable_sin(2.0 * a))};
        }
        default: {  // a tall ellipse behind the wall, ~165 px/s
            const double a = -1.3 * t + 2.0;
            return {static_cast<float>(690.0 + 80.0 * portable_cos(a)),
                    static_cast<float>(280.0 + 150.0 * portable_sin(a))};
        }
    }
}

Mechanisms Mechanisms::from(const NetcodeSettings& s) {
    Mechanisms m;
    m.prediction = s.prediction;
    m.reconciliation = m.prediction && s.reconciliation;
    m.smoothing = m.reconciliation && s.correction_smoothing;
    m.interpolation = s.interpolation;
    m.extrapolation = m.interpolation && s.extrapolation;
    m.second_order = m.extrapolation && s.second_order;
    m.adaptive = m.interpolation && s.adaptive_buffering;
    m.clock_sync = m.interpolation && s.clock_sync;
    m.smooth_clock = m.clock_sync && s.smooth_clock;
    m.lag_compensation = s.lag_compensation;
    m.curve_trust = static_cast<float>(s.curve_trust);
    m.fixed_delay_ms = s.render_delay_ms;
    m.extrapolation_cap_ms = s.extrapolation_cap_ms;
    return m;
}

const SmoothClock& ClientLane::clock() const {
    if (!mech.clock_sync) return free_clock;
    return mech.smooth_clock ? rate_clock : snap_clock;
}

namespace {

// Every control of the playground, declared once: the sliders, the URL check and validate().
const SettingsSchema<NetcodeSettings>& netcode_schema() {
    static const SettingsSchema<NetcodeSettings> schema = [] {
        using S = NetcodeSettings;
        SettingsSchema<S> d;
        d.real("latency_ms", &S::latency_ms,
               {.label = "latency (one-way)",
                .unit = "ms",
                .min = 0.0,
                .max = 500.0,
                .help = "one-way delay, each direction",
                .apply = true});
        d.real("jitter_ms", &S::jitter_ms,
               {.label = "jitter",
                .unit = "ms",
                .min = 0.0,
                .max = 200.0,
                .help = "extra delay, uniform from 0 to this, each direction",
                .apply = true});
        d.real("loss_pct", &S::loss_pct,
               {.label = "packet loss",
                .unit = "%",
                .min = 0.0,
                .max = 50.0,
                .help = "packets lost, each direction",
                .apply = true});
        d.integer("server_hz", &S::server_hz,
                  {.label = "server tick rate",
                   .unit = "Hz",
                   .min = 4.0,
                   .max = 60.0,
                   .help = "server ticks and state packets per second"});
        d.flag("prediction", &S::prediction,
               {.label = "client-side prediction",
                .help = "apply your own inputs at once instead of waiting a round trip"});
        d.flag("reconciliation", &S::reconciliation,
               {.label = "server reconciliation",
                .help = "rewind to each server state and replay the inputs it has not seen"});
        d.flag("correction_smoothing", &S::correction_smoothing,
               {.label = "correction smoothing", .help = "ease the drawn player across a correction"});
        d.flag("interpolation", &S::interpolation,
               {.label = "entity interpolation", .help = "draw remotes between two snapshots, behind a render delay"});
        d.real("render_delay_ms", &S::render_delay_ms,
               {.label = "render delay",
                .unit = "ms",
                .min = 0.0,
                .max = 600.0,
                .help = "fixed render delay (adaptive buffering off)"});
        d.flag("extrapolation", &S::extrapolation,
               {.label = "extrapolation (dead reckoning)", .help = "keep remotes moving past the newest snapshot"});
        d.real("extrapolation_cap_ms", &S::extrapolation_cap_ms,
               {.label = "extrapolation cap",
                .unit = "ms",
                .min = 0.0,
                .max = 1000.0,
                .help = "longest dead reckoning; then the remote holds"});
        d.flag("second_order", &S::second_order,
               {.label = "second order (fit a curve)", .help = "extrapolate along a parabola through three snapshots"});
        d.real("curve_trust", &S::curve_trust,
               {.label = "curve trust",
                .min = 0.0,
                .max = 1.0,
                .help = "how much of the curve's departure from the line to apply"});
        d.flag("adaptive_buffering", &S::adaptive_buffering,
               {.label = "adaptive buffering", .help = "render delay = 1.5 x send interval + 2 x jitter"});
        d.flag("clock_sync", &S::clock_sync,
               {.label = "clock sync", .help = "keep correcting the server-time estimate from the stamps"});
        d.flag(
            "smooth_clock", &S::smooth_clock,
            {.label = "smooth clock (rate vs snap)", .help = "correct the clock by its rate (on) or by steps (off)"});
        d.flag("lag_compensation", &S::lag_compensation,
               {.label = "lag compensation", .help = "the server judges shots against the past the shooter saw"});
        d.flag("autopilot", &S::autopilot,
               {.label = "autopilot", .help = "a scripted pilot steers; off: steer with WASD / arrows"});
        d.flag("auto_shoot", &S::auto_shoot,
               {.label = "scripted shots", .help = "fire at the bots on a schedule (right-click a bot to shoot too)"});
        d.real("shots_per_s", &S::shots_per_s,
               {.label = "shot rate", .unit = "1/s", .min = 0.2, .max = 5.0, .help = "scripted shots per second"});
        d.flag("show_ghost", &S::show_ghost,
               {.label = "show server ghost", .help = "draw the server-confirmed player as a ring"});
        return d;
    }();
    return schema;
}

}  // namespace

std::string NetcodeSettings::validate() const {
    return netcode_schema().validate(*this);
}

NetcodeSim::NetcodeSim() {
    netcode_schema().bind(settings_, params_, [this] { apply_link_options(); });
    reset(1);
}

bool NetcodeSim::param_enabled(std::string_view name) const {
    const NetcodeSettings& s = settings_;
    const Mechanisms m = Mechanisms::from(s);
    if (name == "reconciliation") return m.prediction;
    if (name == "correction_smoothing") return m.reconciliation;
    if (name == "render_delay_ms") return m.interpolation && !m.adaptive;
    if (name == "extrapolation" || name == "adaptive_buffering" || name == "clock_sync") return m.interpolation;
    if (name == "extrapolation_cap_ms" || name == "second_order") return m.extrapolation;
    if (name == "curve_trust") return m.second_order;
    if (name == "smooth_clock") return m.clock_sync;
    if (name == "shots_per_s") return s.auto_shoot;
    return true;
}

void NetcodeSim::set(std::string_view name, double value) {
    for (Param& p : params_) {
        if (p.name == name) {
            p.set(value);
            return;
        }
    }
    assert(false && "NetcodeSim::set: unknown setting");
}

void NetcodeSim::apply_link_options() {
    for (ClientLane& c : lanes_) {
        LossyLinkOptions o = c.up.options();
        o.latency_ms = settings_.latency_ms;
        o.jitter_ms = settings_.jitter_ms;
        o.loss = static_cast<float>(settings_.loss_pct / 100.0);
        c.up.set_options(o);
        o.seed = c.down.options().seed;
        c.down.set_options(o);
    }
}

void NetcodeSim::reset(std::uint64_t seed) {
    rng_ = XorShift(mix64(seed ^ 0x6e6574636f6465ULL));
    local_ms_ = 0.0;
    next_tick_ms_ = 0.0;
    server_ticks_ = 0;
    ideal_ = prev_ideal_ = prev2_ideal_ = kPlayerStart;
    prev_now_ms_ = prev2_now_ms_ = kServerClockOffsetMs;
    user_dir_ = {};
    waypoint_ = 0;
    leg_deadline_ms_ = 1000.0 * (kWaypoints[0] - kPlayerStart).length() / Arena::kSpeed + kLegSlackMs;
    next_shot_ms_ = 1000.0;
    next_target_ = 0;
    user_shots_.clear();
    history_ = HistoricalStateBuffer<std::uint32_t, Vec2>{{.max_records_per_entity = 128, .max_age_ms = 1200.0}};
    for (std::size_t i = 0; i < kLanes; ++i) {
        ClientLane& c = lanes_[i];
        c = ClientLane();
        c.name = i == 0 ? "off" : "on";
        c.all_off = i == 0;
        // The same seeds in every lane: the same packets are lost, so lanes differ only by mechanism.
        c.up = LossyLink({.seed = mix64(seed ^ 0x7570ULL)});
        c.down = LossyLink({.seed = mix64(seed ^ 0x646f776eULL)});
        c.server.player = kPlayerStart;
        c.entity.teleport(kPlayerStart);
        c.free_prediction = kPlayerStart;
        c.authority = kPlayerStart;
        c.drawn_player = kPlayerStart;
    }
    apply_link_options();
}

void NetcodeSim::begin_measurement() {
    for (ClientLane& c : lanes_) {
        for (Reading* r : c.readings()) r->begin_measurement();
        c.server.present_miss_px.begin_measurement();
        c.server.rewound_miss_px.begin_measurement();
    }
}

Vec2 NetcodeSim::waypoint() const {
    return kWaypoints[waypoint_];
}

MoveInput NetcodeSim::next_input(double dt_ms) {
    Vec2 dir = user_dir_;
    if (settings_.autopilot) {
        Vec2 to = kWaypoints[waypoint_] - ideal_;
        if (to.length() < 6.0f || local_ms_ > leg_deadline_ms_) {
            waypoint_ = (waypoint_ + 1) % kWaypoints.size();
            to = kWaypoints[waypoint_] - ideal_;
            leg_deadline_ms_ = local_ms_ + 1000.0 * to.length() / Arena::kSpeed + kLegSlackMs;
        }
        dir = to.normalize();
    }
    MoveInput m;
    m.dx = axis(dir.x);
    m.dy = axis(dir.y);
    m.duration_units = static_cast<std::uint16_t>(std::min<std::uint64_t>(time_to_wire(dt_ms), UINT16_MAX));
    return m;
}

void NetcodeSim::request_shot(std::size_t lane, Vec2 aim) {
    assert(lane < kLanes && "NetcodeSim::request_shot: no such lane");
    if (aim.is_finite()) user_shots_.push_back({lane, aim});
}

void NetcodeSim::judge(ServerSession& s, const ShotMsg& shot, double server_ms) {
    const RewindTarget target = clamp_rewind(server_ms, shot.aim_time_ms, Arena::kMaxRewindMs);
    ShotVerdict v;
    v.id = shot.id;
    float nearest = std::numeric_limits<float>::infinity();
    float nearest_present = std::numeric_limits<float>::infinity();
    for (std::uint32_t b = 0; b < Arena::kBots; ++b) {
        const auto past = history_.get_interpolated_state(b, target.time_ms);
        if (past && past->inside()) {
            const float d = distance(past->state, shot.aim);
            if (d <= Arena::kHitRadius) v.hit_rewound = true;
            if (d < nearest) {
                nearest = d;
                v.rewound = past->state;
            }
        }
        const float present = distance(bot_position(b, server_ms), shot.aim);
        if (present <= Arena::kHitRadius) v.hit_present = true;
        nearest_present = std::min(nearest_present, present);
    }
    push_bounded(s.verdicts, v, kVerdictsRepeated);
    if (std::isfinite(nearest)) {
        s.present_miss_px.add(nearest_present);
        s.rewound_miss_px.add(nearest);
    }
}

void NetcodeSim::server_tick(double t) {
    const double server_ms = quantize_time(t + kServerClockOffsetMs);
    for (std::uint32_t b = 0; b < Arena::kBots; ++b) history_.record_state(b, server_ms, bot_position(b, server_ms));
    ++server_ticks_;
    for (ClientLane& c : lanes_) {
        ServerSession& s = c.server;
        // Receive: each datagram stamped with its own arrival time.
        for (double a = c.up.next_delivery_ms(); a >= 0.0 && a <= t; a = c.up.next_delivery_ms()) {
            c.up.poll(t, packet_);
            if (s.inbox_used == kInboxCap) {
                ++s.inbox_overflow;
                continue;
            }
            // Entries are reused tick after tick, so their lists keep their capacity.
            if (s.inbox_used == s.inbox.size()) s.inbox.emplace_back();
            ServerSession::Arrival& in = s.inbox[s.inbox_used];
            if (decode_input(packet_, in.packet) != WireError::Ok) {
                ++s.decode_errors;
                continue;
            }
            in.arrived_ms = a;
            ++s.inbox_used;
            const InputPacket& p = in.packet;
            if (!p.inputs.empty()) {
                c.timeline.arrived(true, p.first_seq + p.inputs.size() - 1, a);
            }
        }
        for (std::size_t k = 0; k < s.inbox_used; ++k) {
            const ServerSession::Arrival& in = s.inbox[k];
            const InputPacket& p = in.packet;
            for (std::size_t i = 0; i < p.inputs.size(); ++i) {
                if (s.inputs.accept(p.first_seq + static_cast<std::uint32_t>(i))) step_server(s.player, p.inputs[i]);
            }
            for (const ShotMsg& shot : p.shots) {
                if (s.shots.accept(shot.id)) judge(s, shot, server_ms);
            }
            if (p.client_time_ms > s.echo_client_ms) {
                s.echo_client_ms = p.client_time_ms;
                s.echo_arrived_ms = in.arrived_ms;
            }
            if (p.echo_server_ms > 0.0) {
                ewma(s.rtt_ms, s.rtt_samples, in.arrived_ms + kServerClockOffsetMs - p.echo_server_ms - p.echo_hold_ms);
            }
        }
        s.inbox_used = 0;

        StatePacket& out = state_out_;
        out.clear();
        out.server_time_ms = server_ms;
        out.acked_seq = s.inputs.acked_seq();
        out.echo_client_ms = s.echo_client_ms;
        out.echo_hold_ms = s.echo_client_ms > 0.0 ? t - s.echo_arrived_ms : 0.0;
        out.player = s.player;
        for (std::uint32_t b = 0; b < Arena::kBots; ++b) out.bots.push_back(bot_position(b, server_ms));
        out.shot_ack = s.shots.acked_seq();
        out.verdicts.assign(s.verdicts.begin(), s.verdicts.end());
        encode_state(writer_, out);
        if (!writer_.ok()) continue;
        const SendFate fate = c.down.send(t, writer_.bytes());
        c.down_bytes.elapsed(t);
        c.down_bytes.add(static_cast<double>(writer_.size()));
        c.timeline.record(false, time_to_wire(server_ms), t, !arrives(fate), writer_.bytes());
    }
}

void NetcodeSim::client_receive(ClientLane& c) {
    for (double a = c.down.next_delivery_ms(); a >= 0.0 && a <= local_ms_; a = c.down.next_delivery_ms()) {
        c.down.poll(local_ms_, packet_);
        StatePacket& p = state_in_;
        if (decode_state(packet_, p) != WireError::Ok) {
            ++c.decode_errors;
            continue;
        }
        c.timeline.arrived(false, time_to_wire(p.server_time_ms), a,
                           c.has_state && p.server_time_ms <= c.newest_stamp_ms);
        const std::size_t bots = std::min(p.bots.size(), Arena::kBots);
        for (std::size_t b = 0; b < bots; ++b) c.snapshots[b].add_snapshot(p.server_time_ms, p.bots[b]);
        if (c.has_state && p.server_time_ms <= c.newest_stamp_ms) continue;  // late: only its snapshots help

        const Vec2 before = c.entity.predicted();
        const Reconciliation r = c.entity.reconcile(p.player, p.acked_seq, step_client);
        // Every lane reconciles its bookkeeping (the pending inputs it resends); only a lane
        // that draws the reconciled prediction sees a correction.
        if (r.outcome != Reconciliation::Outcome::Stale && c.mech.reconciliation) {
            const float jump = distance(before, c.entity.predicted());
            c.correction.add(jump);
            if (jump > 0.0f) ++c.corrections;
            if (c.mech.smoothing) c.smoother.add_correction(before, c.entity.predicted());
        }
        c.authority = p.player;
        c.has_state = true;
        c.newest_stamp_ms = p.server_time_ms;
        c.newest_arrived_ms = a;
        c.rate_clock.observe(p.server_time_ms);
        c.snap_clock.observe(p.server_time_ms);
        if (!c.free_clock.started()) c.free_clock.observe(p.server_time_ms);
        c.delay.observe(p.server_time_ms, a);
        if (p.echo_client_ms > 0.0) ewma(c.client_rtt_ms, c.rtt_samples, a - p.echo_client_ms - p.echo_hold_ms);

        for (const ShotVerdict& v : p.verdicts) {
            for (ShotTrace& s : c.shots) {
                if (s.id != v.id || s.judged) continue;
                s.judged = true;
                s.hit_rewound = v.hit_rewound;
                s.hit_present = v.hit_present;
                s.hit = c.mech.lag_compensation ? v.hit_rewound : v.hit_present;
                s.rewound = v.rewound;
                s.judged_ms = a;
                c.hits_rewound.add(v.hit_rewound ? 1.0 : 0.0);
                c.hits_present.add(v.hit_present ? 1.0 : 0.0);
            }
        }
        std::erase_if(c.unacked_shots, [&](const ShotMsg& s) { return s.id <= p.shot_ack; });
    }
}

void NetcodeSim::client_frame(ClientLane& c, const MoveInput& m, double dt_ms,
                              const std::optional<std::size_t>& scripted_target) {
    c.mech = c.all_off ? Mechanisms{} : Mechanisms::from(settings_);
    const Mechanisms& mech = c.mech;
    client_receive(c);

    c.entity.apply_input(m, step_client);
    if (mech.prediction && !mech.reconciliation) {
        step_client(c.free_prediction, m);
    } else {
        c.free_prediction = c.entity.predicted();
    }
    c.rate_clock.advance(dt_ms);
    c.snap_clock.advance(dt_ms);
    c.free_clock.advance(dt_ms);
    c.delay.advance(dt_ms);
    c.smoother.advance(dt_ms);
    if (!mech.smoothing) c.smoother.reset();

    // What this client draws.
    if (!mech.prediction) {
        c.drawn_player = c.authority;
    } else if (!mech.reconciliation) {
        c.drawn_player = c.free_prediction;
    } else {
        c.drawn_player = c.smoother.render(c.entity.predicted());
    }
    c.drawn_valid = c.has_state;
    const SmoothClock& clock = c.clock();
    c.clock_rate = clock.rate();
    c.clock_ms = clock.server_time_ms();
    c.delay_in_use_ms = mech.interpolation ? (mech.adaptive ? c.delay.delay_ms() : mech.fixed_delay_ms) : 0.0;
    c.render_ms = mech.interpolation ? clock.render_time_ms(c.delay_in_use_ms) : c.newest_stamp_ms;
    c.seen_ms = c.render_ms;
    const ExtrapolationOptions extrapolation{.max_extrapolation_ms = mech.extrapolation_cap_ms,
                                             .second_order = mech.second_order,
                                             .curve_trust = mech.curve_trust};
    for (std::size_t b = 0; b < Arena::kBots && c.drawn_valid; ++b) {
        std::optional<SnapshotSample<Vec2>> sample;
        if (!mech.interpolation) {
            sample = c.snapshots[b].sample(c.newest_stamp_ms);
        } else if (mech.extrapolation) {
            sample = c.snapshots[b].sample(c.render_ms, extrapolation);
        } else {
            sample = c.snapshots[b].sample(c.render_ms);
        }
        if (sample) {
            c.drawn_bots[b] = sample->state;
            c.bot_kinds[b] = sample->kind;
        }
    }

    // Shots aim at what this client draws and carry the server time of what it drew.
    auto fire = [&](Vec2 aim) {
        if (!c.drawn_valid || c.unacked_shots.size() >= kMaxShotsPerPacket) return;
        const ShotMsg shot{c.next_shot_id++, quantize_time(c.seen_ms), aim};
        c.unacked_shots.push_back(shot);
        ShotTrace trace;
        trace.id = shot.id;
        trace.fired_ms = local_ms_;
        trace.from = c.drawn_player;
        trace.aim = aim;
        push_bounded(c.shots, trace, kShotTraceCap);
    };
    if (scripted_target) {
        const Vec2 noise{rng_.range(-5.0f, 5.0f), rng_.range(-5.0f, 5.0f)};
        fire(c.drawn_bots[*scripted_target] + noise);
    }
    const std::size_t index = static_cast<std::size_t>(&c - lanes_.data());
    for (const UserShot& u : user_shots_)
        if (u.lane == index) fire(u.aim);

    // Send every unacknowledged input again (up to the packet's cap), and the unacked shots.
    InputPacket& p = input_out_;
    p.clear();
    p.client_time_ms = quantize_time(local_ms_);
    if (c.has_state) {
        p.echo_server_ms = c.newest_stamp_ms;
        p.echo_hold_ms = local_ms_ - c.newest_arrived_ms;
    }
    const std::size_t pending = c.entity.pending_count();
    const std::size_t n = std::min(pending, kMaxInputsPerPacket);
    if (n > 0) p.first_seq = c.entity.pending(pending - n).seq;
    for (std::size_t i = pending - n; i < pending; ++i) p.inputs.push_back(c.entity.pending(i).input);
    p.shots.assign(c.unacked_shots.begin(), c.unacked_shots.end());
    encode_input(writer_, p);
    if (writer_.ok()) {
        const SendFate fate = c.up.send(local_ms_, writer_.bytes());
        c.up_bytes.elapsed(local_ms_);
        c.up_bytes.add(static_cast<double>(writer_.size()));
        c.timeline.record(true, c.entity.latest_seq(), local_ms_, !arrives(fate), writer_.bytes());
    }
    // (up_bytes was dated at the send above, at this same time: a second call changes nothing.)
    for (Reading* r : c.readings()) r->elapsed(local_ms_);
    measure(c);
}

void NetcodeSim::measure(ClientLane& c) {
    const double now = server_now_ms();
    float render = 0.0f, reconstruct = 0.0f, stutter = 0.0f;
    std::uint64_t extrapolated = 0;
    float extrapolation_error = 0.0f;
    const bool bot_stutter = c.drawn_valid && c.bot_frames >= 2;
    for (std::size_t b = 0; b < Arena::kBots && c.drawn_valid; ++b) {
        const Vec2 truth_now = bot_position(b, now);
        const Vec2 truth_prev = bot_position(b, prev_now_ms_);
        const float seen_error = distance(c.drawn_bots[b], bot_position(b, c.seen_ms));
        render += distance(c.drawn_bots[b], truth_now);
        reconstruct += seen_error;
        const Vec2 motion = c.drawn_bots[b] - c.prev_drawn_bots[b];
        if (bot_stutter) {
            const Vec2 truth_change = (truth_now - truth_prev) - (truth_prev - bot_position(b, prev2_now_ms_));
            stutter += ((motion - c.prev_bot_motion[b]) - truth_change).length();
        }
        c.prev_bot_motion[b] = motion;
        if (c.bot_kinds[b] == SampleKind::Extrapolated || c.bot_kinds[b] == SampleKind::Capped) {
            ++extrapolated;
            extrapolation_error += seen_error;
        }
    }
    const float bots = static_cast<float>(Arena::kBots);
    const float prediction_error = distance(c.drawn_player, ideal_);
    const Vec2 player_motion = c.drawn_player - c.prev_drawn_player;
    const Vec2 ideal_change = (ideal_ - prev_ideal_) - (prev_ideal_ - prev2_ideal_);
    const float player_stutter =
        c.player_frames >= 2 ? ((player_motion - c.prev_player_motion) - ideal_change).length() : 0.0f;
    c.prediction_error.add(prediction_error);
    c.player_stutter.add(player_stutter);
    if (c.drawn_valid) {
        c.render_error.add(render / bots);
        c.reconstruct_error.add(reconstruct / bots);
        if (bot_stutter) c.remote_stutter.add(stutter / bots);
        c.extrapolated.add(static_cast<double>(extrapolated));
        c.extrapolation_error.add(extrapolation_error);
    }
    c.prev_drawn_player = c.drawn_player;
    c.prev_player_motion = player_motion;
    c.prev_drawn_bots = c.drawn_bots;
    ++c.player_frames;
    c.bot_frames = c.drawn_valid ? c.bot_frames + 1 : 0;
}

void NetcodeSim::step(double dt_s) {
    assert(dt_s > 0.0 && "NetcodeSim::step: dt must be positive");
    const double dt_ms = dt_s * 1000.0;
    prev2_now_ms_ = prev_now_ms_;
    prev_now_ms_ = server_now_ms();
    prev2_ideal_ = prev_ideal_;
    prev_ideal_ = ideal_;
    local_ms_ += dt_ms;
    // Server ticks that fall inside this frame, at their own times.
    while (next_tick_ms_ <= local_ms_) {
        server_tick(next_tick_ms_);
        next_tick_ms_ += 1000.0 / static_cast<double>(settings_.server_hz);
    }
    // The player's input for this frame, the same for every lane, and the intended truth.
    const MoveInput m = next_input(dt_ms);
    step_server(ideal_, m);
    std::optional<std::size_t> target;
    if (settings_.auto_shoot && local_ms_ >= next_shot_ms_) {
        target = next_target_;
        next_target_ = (next_target_ + 1) % Arena::kBots;
        next_shot_ms_ = local_ms_ + 1000.0 / settings_.shots_per_s;
    }
    // The noise of a scripted shot is drawn once per lane from the same stream position.
    const std::uint64_t rng_before = rng_.state();
    std::uint64_t rng_after = rng_before;
    for (ClientLane& c : lanes_) {
        rng_ = XorShift(rng_before);
        client_frame(c, m, dt_ms, target);
        rng_after = rng_.state();
    }
    rng_ = XorShift(rng_after);
    user_shots_.clear();
}

void NetcodeSim::meters(std::vector<Meter>& out) const {
    out.push_back({"truth.server_time_s", "s", server_now_ms() / 1000.0});
    out.push_back({"truth.server_ticks", "", static_cast<double>(server_ticks_)});
    for (const ClientLane& c : lanes_) {
        const std::string p = std::string(c.name) + ".";
        out.push_back({p + "prediction_error_px", "px", c.prediction_error.recent_mean()});
        out.push_back({p + "player_stutter_px", "px", c.player_stutter.recent_mean()});
        out.push_back({p + "correction_px", "px", c.correction.recent_mean()});
        out.push_back({p + "render_error_px", "px", c.render_error.recent_mean()});
        out.push_back({p + "reconstruct_error_px", "px", c.reconstruct_error.recent_mean()});
        out.push_back({p + "remote_stutter_px", "px", c.remote_stutter.recent_mean()});
        out.push_back({p + "inputs_awaiting_ack", "", static_cast<double>(c.entity.pending_count())});
        out.push_back({p + "input_seq", "", static_cast<double>(c.entity.latest_seq())});
        out.push_back({p + "acked_seq", "", static_cast<double>(c.entity.acked_seq())});
        out.push_back({p + "packets_in_flight", "", static_cast<double>(c.up.in_flight() + c.down.in_flight())});
        out.push_back({p + "rtt_client_ms", "ms", c.client_rtt_ms});
        out.push_back({p + "rtt_server_ms", "ms", c.server.rtt_ms});
        out.push_back({p + "jitter_ms", "ms", c.delay.jitter_ms()});
        out.push_back({p + "interp_delay_ms", "ms", c.delay_in_use_ms});
        out.push_back({p + "clock_rate", "x", c.clock_rate});
        out.push_back({p + "up_bytes_s", "B/s", c.up_bytes.per_sec()});
        out.push_back({p + "down_bytes_s", "B/s", c.down_bytes.per_sec()});
        out.push_back({p + "shots", "", static_cast<double>(c.hits_rewound.samples())});
        out.push_back({p + "hits_lag_comp", "", c.hits_rewound.total()});
        out.push_back({p + "hits_present", "", c.hits_present.total()});
    }
}

std::uint64_t NetcodeSim::checksum() const {
    std::uint64_t h = fold(0, local_ms_);
    h = fold(h, server_ticks_);
    h = fold(h, static_cast<double>(ideal_.x));
    h = fold(h, static_cast<double>(ideal_.y));
    h = fold(h, rng_.state());
    for (const ClientLane& c : lanes_) {
        for (Vec2 v : {c.server.player, c.entity.predicted(), c.free_prediction, c.authority}) {
            h = fold(h, static_cast<double>(v.x));
            h = fold(h, static_cast<double>(v.y));
        }
        h = fold(h, static_cast<std::uint64_t>(c.entity.latest_seq()));
        h = fold(h, static_cast<std::uint64_t>(c.entity.acked_seq()));
        h = fold(h, c.newest_stamp_ms);
        for (const LossyLink* l : {&c.up, &c.down}) {
            h = fold(h, l->counters().packets_sent);
            h = fold(h, l->counters().bytes_sent);
            h = fold(h, l->counters().packets_lost);
            h = fold(h, l->counters().packets_delivered);
        }
        h = fold(h, c.server.shots.counters().accepted);
        h = fold(h, c.hits_rewound.samples());  // the shots judged
        h = fold(h, static_cast<std::uint64_t>(c.hits_rewound.total()));
        h = fold(h, static_cast<std::uint64_t>(c.hits_present.total()));
    }
    return h;
}

std::span<const MeterInfo> NetcodeSim::glossary() const {
    static constexpr MeterInfo kGlossary[] = {
        {"truth.server_time_s", "server time", "the server's clock"},
        {"truth.server_ticks", "server ticks", "ticks the server has run"},
        {"prediction_error_px", "prediction error",
         "distance between your player as drawn and where the server puts it"},
        {"player_stutter_px", "player stutter", "how far your drawn player jumps in a frame beyond its motion"},
        {"correction_px", "correction", "distance the client corrected its prediction by, per correction"},
        {"render_error_px", "render error", "distance between remotes as drawn and where they are now"},
        {"reconstruct_error_px", "reconstruction error",
         "distance between remotes as drawn and where they were at the drawn time"},
        {"remote_stutter_px", "remote stutter", "how far remotes jump in a frame beyond their motion"},
        {"inputs_awaiting_ack", "inputs awaiting ack", "inputs sent that the server has not confirmed"},
        {"input_seq", "input sequence", "the newest input's number"},
        {"acked_seq", "acked sequence", "the newest input the server confirmed"},
        {"packets_in_flight", "in flight", "packets on the link in either direction"},
        {"rtt_client_ms", "round trip (client)", "round trip the client measures"},
        {"rtt_server_ms", "round trip (server)", "round trip the server measures"},
        {"jitter_ms", "jitter", "spread of the snapshots' arrival times"},
        {"interp_delay_ms", "render delay", "how far behind the newest snapshot remotes are drawn"},
        {"clock_rate", "clock rate", "the client clock's speed while it catches up or waits"},
        {"up_bytes_s", "up", "bytes per second from client to server"},
        {"down_bytes_s", "down", "bytes per second from server to client"},
        {"shots", "shots", "shots fired by this lane's client"},
        {"hits_lag_comp", "hits, rewound", "shots that hit when judged where the shooter saw the target"},
        {"hits_present", "hits, present", "shots that hit when judged where the target is now"},
    };
    return kGlossary;
}

}  // namespace vantage::play
