#include "room/horde_room.hpp"

#include <algorithm>
#include <cmath>

#include "common/host.hpp"
#include "common/room_wire.hpp"

namespace vantage::room {

using namespace vantage::play;

// A horde seat: the room's seat (links, inbox, report) plus the server half, which sends its
// frames through the seat and reads its acknowledgements from the seat's inbox.
struct HordeRoom::Seat final : RoomSeat {
    Seat(const LossyLinkOptions& down, const LossyLinkOptions& up, const DeltaBaselineOptions& baseline)
        : RoomSeat(down, up), server(baseline) {}
    std::uint64_t half_decode_errors() const override { return server.decode_errors(); }
    HordeServerHalf server;
};

std::string HordeRoomOptions::validate() const {
    if (std::string e = RoomOptions::validate(static_cast<int>(kMaxHordePlayers)); !e.empty()) return e;
    const HordeWorldOptions world{.seed = seed, .enemies = settings.enemies, .players = seats};
    if (const char* e = world.validate()) return e;
    return {};
}

std::string HordeRoomOptions::describe() const {
    // The horde simulation's own settings, named as the page names them.
    HordeSim sim;
    sim.settings() = settings;
    sim.settings().players = seats;
    std::string out;
    char buf[64];
    for (const Param& p : sim.params()) {
        if (p.name.find("_recovery") != std::string::npos) continue;  // per-lane, not the room's
        std::snprintf(buf, sizeof buf, "%.10g", p.get());
        out += (out.empty() ? "" : "&") + p.name + "=" + buf;
    }
    std::snprintf(buf, sizeof buf, "&recovery=%d&seed=%llu&tick_hz=%d", recovery ? 1 : 0,
                  static_cast<unsigned long long>(seed), tick_hz);
    return out + buf + (websocket_retransmits ? "&websocket_retransmits=1" : "");
}

std::vector<std::string> apply_room_settings(HordeRoomOptions& options, std::string_view list) {
    std::vector<std::string> errors;
    HordeSim sim;  // its Params are the declared settings: names, ranges and validation
    sim.settings() = options.settings;
    std::vector<std::string_view> malformed;
    for (const auto& [name, value] : split_settings(list, malformed)) {
        if (apply_room_key(options, name, value, errors)) continue;
        if (name == "recovery") {
            double v = 0;
            if (!parse_value(value, v) || (v != 0.0 && v != 1.0))
                errors.push_back("'recovery' is 0 (naive) or 1 (acked)");
            else
                options.recovery = v != 0.0;
            continue;
        }
        if (name == "players") {
            errors.push_back("'players' is the room's seats: use --seats");
            continue;
        }
        if (name.find("_recovery") != std::string_view::npos) {
            errors.push_back("'" + std::string(name) + "' is a page lane's; the room's strategy is 'recovery'");
            continue;
        }
        if (std::string e = set_param(sim, name, value); !e.empty()) errors.push_back(e);
    }
    for (std::string_view m : malformed) errors.push_back("'" + std::string(m) + "' is not key=value");
    options.settings = sim.settings();
    return errors;
}

HordeRoom::HordeRoom(HordeRoomOptions options)
    : GameRoom(options_, options.seats, "horde"), options_(std::move(options)) {
    options_.settings.players = options_.seats;
    world_ = std::make_unique<HordeWorld>(HordeWorldOptions{.seed = options_.seed,
                                                            .enemies = options_.settings.enemies,
                                                            .players = options_.seats,
                                                            .spread = options_.settings.spread,
                                                            .combat = options_.settings.combat});
    occupied_mask_.assign(static_cast<std::size_t>(options_.seats), 0);
    round_.clear(static_cast<std::size_t>(options_.seats));
}

HordeRoom::~HordeRoom() = default;

std::unique_ptr<RoomSeat> HordeRoom::make_seat(const LossyLinkOptions& down, const LossyLinkOptions& up) {
    const DeltaBaselineOptions baseline{
        .policy = options_.recovery ? RecoveryPolicy::Acked : RecoveryPolicy::Naive,
        .frontier = options_.settings.any_received ? AckFrontier::AnyReceived : AckFrontier::Contiguous,
        .history = 24,
        .stalled_after_ms = 3000.0,
        .keepalive_every_ms = 1000.0};
    return std::make_unique<Seat>(down, up, baseline);
}

void HordeRoom::seated(RoomSeat& seat) {
    occupied_mask_[seat.index] = 1;
    world_->steer(seat.index, {}, true);  // the bot drives until the player steers
}

void HordeRoom::unseated(std::uint32_t index) {
    world_->steer(index, {}, true);  // the bot takes the player back
    occupied_mask_[index] = 0;
}

void HordeRoom::steer(RoomSeat& seat, Vec2 direction, bool autopilot) {
    world_->steer(seat.index, direction, autopilot);
}

Impairment HordeRoom::default_impairment() const {
    return {.loss_pct = options_.settings.loss_pct,
            .latency_ms = options_.settings.latency_ms,
            .jitter_ms = options_.settings.jitter_ms};
}

void HordeRoom::set_default_impairment(const Impairment& i) {
    options_.settings.loss_pct = i.loss_pct;
    options_.settings.latency_ms = i.latency_ms;
    options_.settings.jitter_ms = i.jitter_ms;
}

bool HordeRoom::strategy(const CommandMessage& c, std::span<RoomSeat* const> seated, std::string&) {
    options_.recovery = c.recovery;
    options_.settings.theta = c.theta;
    options_.settings.view_radius = c.view_radius;
    for (RoomSeat* seat : seated) {
        static_cast<Seat*>(seat)->server.baseline().set_policy(c.recovery ? RecoveryPolicy::Acked
                                                                          : RecoveryPolicy::Naive);
    }
    return true;
}

bool HordeRoom::run_preset(const Preset& preset, std::span<RoomSeat* const> seated, std::string& error) {
    HordeRoomOptions next = options_;
    const std::vector<std::string> errors = apply_room_settings(next, preset.settings);
    if (!errors.empty()) {
        error = errors.front();
        return false;
    }
    // What a preset may change in a running room: impairment and strategy.
    set_default_impairment({.loss_pct = next.settings.loss_pct,
                            .latency_ms = next.settings.latency_ms,
                            .jitter_ms = next.settings.jitter_ms});
    options_.settings.theta = next.settings.theta;
    options_.settings.view_radius = next.settings.view_radius;
    options_.recovery = next.recovery;
    options_.websocket_retransmits = next.websocket_retransmits;
    for (RoomSeat* seat : seated) {
        impair(*seat, default_impairment());
        static_cast<Seat*>(seat)->server.baseline().set_policy(next.recovery ? RecoveryPolicy::Acked
                                                                             : RecoveryPolicy::Naive);
    }
    return true;
}

void HordeRoom::fill_table(SeatTableMessage& t) const {
    t.recovery = options_.recovery;
    t.theta = options_.settings.theta;
    t.view_radius = options_.settings.view_radius;
}

void HordeRoom::truth(std::span<const std::uint64_t> keys, std::vector<std::uint8_t>& alive,
                      std::vector<Vec2>& positions) {
    for (std::size_t i = 0; i < keys.size(); ++i) {
        if (!world_->alive(keys[i])) continue;
        alive[i] = 1;
        positions.push_back(world_->position_at(SlotKey::decode(keys[i])->index));
    }
}

void HordeRoom::serve(std::span<RoomSeat* const> seated, double now_ms) {
    if (now_ms + 1e-6 < next_send_ms_) return;
    const double interval = 1000.0 / std::clamp(options_.settings.send_hz, 1.0, 60.0);
    next_send_ms_ += interval;
    if (next_send_ms_ <= now_ms) next_send_ms_ = now_ms + interval;
    const float theta = static_cast<float>(options_.settings.theta);
    const HordeRound& round = round_.build(*world_, static_cast<float>(options_.settings.view_radius), false,
                                           theta > 0.0f && !seated.empty(), now_ms, occupied_mask_, profiler());
    const HordeServeOptions serve{.relevance = true,
                                  .theta = theta,
                                  .view_radius = options_.settings.view_radius,
                                  .send_hz = options_.settings.send_hz,
                                  .sample_hz = options_.settings.sample_hz,
                                  .budget_bytes_per_sec = 1024.0 * std::max(0.0, options_.settings.budget_kib_s)};
    for (RoomSeat* room_seat : seated) {
        Seat& seat = *static_cast<Seat*>(room_seat);
        const HordeSent sent = seat.server.serve(round, seat.index, serve, seat, scratch_, profiler());
        if (!sent.sent) continue;
        seat.report.frames += 1;
        seat.report.frame_bytes += sent.bytes.total();
    }
}

}  // namespace vantage::room
