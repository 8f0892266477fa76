#include "room/blackhole_room.hpp"

#include <algorithm>
#include <cstdio>

#include "common/host.hpp"
#include "common/room_wire.hpp"
#include "vantage/slot_key.hpp"

namespace vantage::room {

using namespace vantage::play;

// A black-hole seat: the room's seat plus the server half, which sends its packets through
// the seat (the black-hole client does not acknowledge: every packet is whole).
struct BlackholeRoom::Seat final : RoomSeat {
    using RoomSeat::RoomSeat;
    BlackholeServerHalf server;
};

namespace {
// Settings of the page that are not the room's: its clients per lane are the room's seats,
// and autopilot is each player's own.
bool page_only(std::string_view name) {
    return name == "clients" || name == "autopilot";
}
}  // namespace

std::string BlackholeRoomOptions::validate() const {
    if (std::string e = RoomOptions::validate(static_cast<int>(kMaxHoles)); !e.empty()) return e;
    if (std::string e = settings.validate(); !e.empty()) return e;
    if (seats > settings.holes) {
        return "seats (" + std::to_string(seats) + ") must be at most the holes (" + std::to_string(settings.holes) +
               "): each player is a hole";
    }
    return {};
}

std::string BlackholeRoomOptions::describe() const {
    BlackholeSim sim;
    sim.settings() = settings;
    std::string out;
    char buf[64];
    for (const Param& p : sim.params()) {
        if (page_only(p.name)) continue;
        std::snprintf(buf, sizeof buf, "%.10g", p.get());
        out += (out.empty() ? "" : "&") + p.name + "=" + buf;
    }
    std::snprintf(buf, sizeof buf, "&seed=%llu&tick_hz=%d", static_cast<unsigned long long>(seed), tick_hz);
    return out + "&strategy=" + lane_name(strategy) + buf + (websocket_retransmits ? "&websocket_retransmits=1" : "");
}

std::vector<std::string> apply_room_settings(BlackholeRoomOptions& options, std::string_view list) {
    std::vector<std::string> errors;
    BlackholeSim sim;  // its Params are the declared settings: names, ranges and validation
    sim.settings() = options.settings;
    std::vector<std::string_view> malformed;
    for (const auto& [name, value] : split_settings(list, malformed)) {
        if (apply_room_key(options, name, value, errors)) continue;
        if (name == "strategy") {
            bool known = false;
            for (const LaneKind k : {LaneKind::Full, LaneKind::Culled, LaneKind::Aggregated}) {
                if (value != lane_name(k)) continue;
                options.strategy = k;
                known = true;
            }
            if (!known) errors.push_back("'strategy' is full, culled or aggregated (got '" + std::string(value) + "')");
            continue;
        }
        if (name == "clients") {
            errors.push_back("'clients' is the room's seats: use --seats");
            continue;
        }
        if (name == "autopilot") {
            errors.push_back("'autopilot' is each player's own (the page's autopilot box)");
            continue;
        }
        if (std::string e = set_param(sim, name, value); !e.empty()) errors.push_back(e);
    }
    for (std::string_view m : malformed) errors.push_back("'" + std::string(m) + "' is not key=value");
    options.settings = sim.settings();
    return errors;
}

BlackholeRoom::BlackholeRoom(BlackholeRoomOptions options)
    : GameRoom(options_, options.seats, "blackhole"),
      options_(std::move(options)),
      world_({.seed = options_.seed, .holes = options_.settings.holes, .pellets = options_.settings.pellets}) {}

BlackholeRoom::~BlackholeRoom() = default;

std::unique_ptr<RoomSeat> BlackholeRoom::make_seat(const LossyLinkOptions& down, const LossyLinkOptions& up) {
    return std::make_unique<Seat>(down, up);
}

void BlackholeRoom::seated(RoomSeat& seat) {
    world_.control(seat.index, BlackholeWorld::Control::Waypoints);  // the script drives until the player steers
    encode_join_state(static_cast<std::uint32_t>(std::llround(world_ms())), world_.pellet_positions(),
                      world_.pellet_velocities(), writer());
    if (send_direct(seat.connection, writer().bytes()) == SendResult::Queued) seat.report.join_bytes += writer().size();
}

void BlackholeRoom::unseated(std::uint32_t index) {
    world_.control(index, BlackholeWorld::Control::Waypoints);
}

void BlackholeRoom::steer(RoomSeat& seat, Vec2 direction, bool autopilot) {
    world_.control(seat.index, autopilot ? BlackholeWorld::Control::Waypoints : BlackholeWorld::Control::Steered,
                   direction);
}

Impairment BlackholeRoom::default_impairment() const {
    return {.loss_pct = options_.settings.loss_pct,
            .latency_ms = options_.settings.latency_ms,
            .jitter_ms = options_.settings.jitter_ms};
}

void BlackholeRoom::set_default_impairment(const Impairment& i) {
    options_.settings.loss_pct = i.loss_pct;
    options_.settings.latency_ms = i.latency_ms;
    options_.settings.jitter_ms = i.jitter_ms;
}

bool BlackholeRoom::strategy(const CommandMessage& c, std::span<RoomSeat* const>, std::string& error) {
    // The console's strategy command carries theta and the view radius; the black-hole room's
    // lane kind is chosen when it is served (--set strategy=...). Its ranges are the page's.
    BlackholeSettings next = options_.settings;
    next.theta = c.theta;
    next.view_radius = c.view_radius;
    if (std::string e = next.validate(); !e.empty()) {
        error = e;
        return false;
    }
    options_.settings = next;
    return true;
}

bool BlackholeRoom::run_preset(const Preset& preset, std::span<RoomSeat* const> seated, std::string& error) {
    BlackholeRoomOptions next = options_;
    const std::vector<std::string> errors = apply_room_settings(next, preset.settings);
    if (!errors.empty()) {
        error = errors.front();
        return false;
    }
    // What a preset may change in a running room: impairment and strategy (not the world).
    options_.settings.loss_pct = next.settings.loss_pct;
    options_.settings.latency_ms = next.settings.latency_ms;
    options_.settings.jitter_ms = next.settings.jitter_ms;
    options_.settings.theta = next.settings.theta;
    options_.settings.view_radius = next.settings.view_radius;
    options_.settings.disc_walk = next.settings.disc_walk;
    options_.settings.corrections = next.settings.corrections;
    options_.strategy = next.strategy;
    options_.websocket_retransmits = next.websocket_retransmits;
    for (RoomSeat* seat : seated) impair(*seat, default_impairment());
    return true;
}

void BlackholeRoom::fill_table(SeatTableMessage& t) const {
    t.recovery = false;  // no delta stream here: every packet is whole
    t.theta = options_.settings.theta;
    t.view_radius = options_.settings.view_radius;
}

void BlackholeRoom::truth(std::span<const std::uint64_t> keys, std::vector<std::uint8_t>& alive,
                          std::vector<Vec2>& positions) {
    const std::vector<Vec2>& pellets = world_.pellet_positions();
    for (std::size_t i = 0; i < keys.size(); ++i) {
        // A pellet's key is its index (generation 0): any other is answered as gone.
        const std::optional<SlotKey> key = SlotKey::decode(keys[i]);
        if (!key || key->generation != 0 || key->index >= pellets.size()) continue;
        alive[i] = 1;
        positions.push_back(pellets[key->index]);
    }
}

void BlackholeRoom::serve(std::span<RoomSeat* const> seated, double now_ms) {
    if (now_ms + 1e-6 < next_send_ms_) return;
    const double interval = 1000.0 / std::clamp(options_.settings.send_hz, 1.0, 60.0);
    next_send_ms_ += interval;
    if (next_send_ms_ <= now_ms) next_send_ms_ = now_ms + interval;
    if (options_.strategy == LaneKind::Aggregated) {
        PhaseScope phase(profiler(), "aggregation");
        build_field_tree(tree_, world_.sources());
    }
    const BlackholeRound round{.sources = world_.sources(),
                               .source_ids = world_.source_ids(),
                               .tree = &tree_,
                               .pellet_positions = world_.pellet_positions(),
                               .pellet_velocities = world_.pellet_velocities(),
                               .respawned = world_.respawned(),
                               .now_ms = now_ms};
    const BlackholeServeOptions serve{
        .kind = options_.strategy,
        .theta = static_cast<float>(options_.settings.theta),
        .disc_walk = options_.settings.disc_walk,
        .view_radius = static_cast<float>(options_.settings.view_radius),
        .corrections = static_cast<std::size_t>(std::max(options_.settings.corrections, 0))};
    for (RoomSeat* room_seat : seated) {
        Seat& seat = *static_cast<Seat*>(room_seat);
        const Vec2 eye = world_.holes()[seat.index].position;
        const PacketBytes sent = seat.server.serve(round, eye, serve, seat, scratch_, profiler());
        seat.report.frames += 1;
        seat.report.frame_bytes += sent.total;
    }
    world_.clear_respawned();
}

}  // namespace vantage::room
