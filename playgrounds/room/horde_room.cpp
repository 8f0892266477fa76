#include "room/horde_room.hpp"

#include <algorithm>
#include <cmath>

#include "common/host.hpp"
#include "common/room_wire.hpp"

namespace vantage::room {

using namespace vantage::play;

namespace {
constexpr std::size_t kMaxAcksQueued = 64;  // per seat: more means the client floods; the oldest go
}  // namespace

// One seated connection: its links (the impairment), the server half, and an inbox of the
// acknowledgements the up link delivered, which the server half reads as its transport.
struct HordeRoom::Seat final : Transport {
    Seat(const LossyLinkOptions& down, const LossyLinkOptions& up, const DeltaBaselineOptions& baseline)
        : link(down, up), server(baseline) {}

    // The server half's transport: frames go down the impaired link, acks come from the inbox.
    void send(double now_ms, std::span<const std::uint8_t> bytes) override {
        if (link.down().send(now_ms, bytes) != SendFate::Scheduled) ++report.frames_lost;
    }
    bool poll(double, std::vector<std::uint8_t>& out) override {
        if (acks.empty()) return false;
        out.swap(acks.front());
        acks.pop_front();
        return true;
    }

    ConnectionId connection = 0;
    std::uint32_t index = 0;
    std::string name;
    LinkPair link;
    HordeServerHalf server;
    std::deque<std::vector<std::uint8_t>> acks;
    std::uint32_t input_seq = 0;
    bool any_input = false;
    double next_truth_ms = 0;
    HordeSeatReport report;
};

std::string HordeRoomOptions::validate() const {
    if (seats < 1 || seats > static_cast<int>(kMaxHordePlayers)) return "seats must be from 1 to 128";
    if (tick_hz < 10 || tick_hz > 120) return "tick_hz must be from 10 to 120";
    if (!(truth_max_hz >= 0.0 && truth_max_hz <= 20.0)) return "truth_max_hz must be from 0 to 20";
    if (!(hello_timeout_ms > 0.0 && hello_timeout_ms <= 60000.0)) return "hello_timeout_ms must be from 0 to 60000";
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
    return out + buf;
}

std::vector<std::string> apply_room_settings(HordeRoomOptions& options, std::string_view list) {
    std::vector<std::string> errors;
    HordeSim sim;  // its Params are the declared settings: names, ranges and validation
    sim.settings() = options.settings;
    std::vector<std::string_view> malformed;
    for (const auto& [name, value] : split_settings(list, malformed)) {
        double v = 0;
        if (name == "recovery" || name == "truth_max_hz" || name == "seed" || name == "tick_hz" || name == "seats") {
            if (!parse_value(value, v)) {
                errors.push_back("'" + std::string(name) + "' needs a number (got '" + std::string(value) + "')");
                continue;
            }
            if (name == "recovery") {
                if (v != 0.0 && v != 1.0)
                    errors.push_back("'recovery' is 0 (naive) or 1 (acked)");
                else
                    options.recovery = v != 0.0;
            } else if (name == "truth_max_hz") {
                options.truth_max_hz = v;
            } else if (name == "seed") {
                if (v < 0 || v > 9007199254740991.0 || v != std::floor(v))
                    errors.push_back("'seed' must be an integer from 0 to 2^53-1");
                else
                    options.seed = static_cast<std::uint64_t>(v);
            } else if (name == "tick_hz") {
                if (v != std::floor(v))
                    errors.push_back("'tick_hz' must be an integer");
                else
                    options.tick_hz = static_cast<int>(v);
            } else {
                if (v != std::floor(v))
                    errors.push_back("'seats' must be an integer");
                else
                    options.seats = static_cast<int>(std::clamp(v, -1.0, 1000.0));
            }
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
    : options_(std::move(options)), seats_(static_cast<std::uint32_t>(std::max(1, options_.seats))) {
    options_.settings.players = options_.seats;
    world_ = std::make_unique<HordeWorld>(HordeWorldOptions{.seed = options_.seed,
                                                            .enemies = options_.settings.enemies,
                                                            .players = options_.seats,
                                                            .spread = options_.settings.spread,
                                                            .combat = options_.settings.combat});
    occupied_mask_.assign(static_cast<std::size_t>(options_.seats), 0);
    round_.clear(static_cast<std::size_t>(options_.seats));
}

void HordeRoom::set_class_urls(std::vector<std::string> urls, std::vector<std::string> qr) {
    options_.class_urls = std::move(urls);
    class_qr_ = std::move(qr);
}

HordeRoom::~HordeRoom() = default;

LossyLinkOptions HordeRoom::link_options(std::uint64_t seed) const {
    LossyLinkOptions o;
    o.seed = seed;
    o.latency_ms = options_.settings.latency_ms;
    o.jitter_ms = options_.settings.jitter_ms;
    o.loss = static_cast<float>(options_.settings.loss_pct / 100.0);
    return o;
}

HordeRoom::Seat* HordeRoom::seat_of(ConnectionId id) {
    const std::optional<SeatToken> token = seats_.token_of(id);
    if (!token) return nullptr;
    SeatSlot* slot = seats_.state(*token);
    return slot ? slot->seat.get() : nullptr;
}

// The seated seats in seat order, in a buffer reused every tick (no allocation per tick).
std::vector<HordeRoom::Seat*>& HordeRoom::seated_scratch() {
    seated_.clear();
    seats_.for_each_occupant([&](const ConnectionId&, SeatToken token) {
        if (SeatSlot* s = seats_.state(token); s && s->seat) seated_.push_back(s->seat.get());
    });
    return seated_;
}

void HordeRoom::on_open(ConnectionId id, std::string_view) {
    pending_.push_back({id, world_ms()});
}

void HordeRoom::on_close(ConnectionId id) {
    std::erase_if(pending_, [&](const Pending& p) { return p.id == id; });
    std::erase(teachers_, id);
    std::erase(followers_, id);
    const std::optional<SeatToken> token = seats_.token_of(id);
    if (!token) return;
    world_->steer(token->index, {}, true);  // the bot takes the player back
    if (Seat* seat = seat_of(id)) {
        if (server_) snapshot_socket(*seat);
        departed_.push_back(seat->report);
        departed_.back().decode_errors += seat->server.decode_errors();
    }
    occupied_mask_[token->index] = 0;
    seats_.unseat(id);  // the seat's state (links, baseline, inbox) goes with it
    broadcast_roster();
}

void HordeRoom::refuse(ConnectionId id, const std::string& reason) {
    writer_.clear();
    encode_refuse(writer_, reason);
    if (server_) {
        server_->send(id, writer_.bytes());
        server_->close(id, reason.substr(0, 120));
    }
}

void HordeRoom::hello(ConnectionId id, std::span<const std::uint8_t> bytes) {
    std::erase_if(pending_, [&](const Pending& p) { return p.id == id; });
    if (decode_client_message(bytes, decoded_) != WireError::None ||
        (decoded_.type != RoomMessage::Hello && decoded_.type != RoomMessage::TeacherHello &&
         decoded_.type != RoomMessage::FollowHello)) {
        refuse(id, "expected a hello: this is a Vantage room (reload the page)");
        return;
    }
    const std::uint32_t protocol = decoded_.type == RoomMessage::Hello          ? decoded_.hello.protocol
                                   : decoded_.type == RoomMessage::TeacherHello ? decoded_.teacher.protocol
                                                                                : decoded_.follow.protocol;
    const std::string& build = decoded_.type == RoomMessage::Hello          ? decoded_.hello.build
                               : decoded_.type == RoomMessage::TeacherHello ? decoded_.teacher.build
                                                                            : decoded_.follow.build;
    if (protocol != kRoomProtocol || build != room_build_id()) {
        refuse(id, "reload: this page is older than the room (page build " + build + ", room build " + room_build_id() +
                       ")");
        return;
    }
    if (decoded_.type == RoomMessage::TeacherHello) {
        // Compared in full whatever the first difference: no timing hint about the token.
        const std::string& t = decoded_.teacher.token;
        const std::string& want = options_.teacher_token;
        unsigned diff = static_cast<unsigned>(t.size() ^ want.size());
        for (std::size_t i = 0; i < want.size(); ++i)
            diff |= static_cast<unsigned char>(want[i] ^ (i < t.size() ? t[i] : 0));
        if (want.empty() || diff != 0) {
            refuse(id, "wrong teacher token (the one ./vantage serve printed)");
            return;
        }
        teacher_hello(id);
        return;
    }
    if (decoded_.type == RoomMessage::FollowHello) {
        followers_.push_back(id);
        if (!teacher_link_.empty() && server_) {
            writer_.clear();
            encode_link(writer_, teacher_link_);
            server_->send(id, writer_.bytes());
        }
        return;
    }
    const HelloMessage& h = decoded_.hello;
    if (h.protocol != kRoomProtocol || h.build != room_build_id()) {
        refuse(id, "reload: this page is older than the room (page build " + h.build + ", room build " +
                       room_build_id() + ")");
        return;
    }
    if (h.playground != "horde") {
        refuse(id, "this room plays horde, not " + h.playground);
        return;
    }
    const Seating seating = seats_.seat(id);
    if (!seating.seated()) {
        refuse(id, "room is full (" + std::to_string(seats_.capacity()) + " seats)");
        return;
    }
    SeatSlot* slot = seats_.state(seating.token);
    const std::uint64_t n = ++links_made_;
    const DeltaBaselineOptions baseline{
        .policy = options_.recovery ? RecoveryPolicy::Acked : RecoveryPolicy::Naive,
        .frontier = options_.settings.any_received ? AckFrontier::AnyReceived : AckFrontier::Contiguous,
        .history = 24,
        .stalled_after_ms = 3000.0,
        .keepalive_every_ms = 1000.0};
    slot->seat = std::make_unique<Seat>(link_options(down_link_seed(options_.seed, n)),
                                        link_options(up_link_seed(options_.seed, n)), baseline);
    Seat& seat = *slot->seat;
    seat.connection = id;
    seat.index = seating.index();
    seat.name = sanitize_name(h.name);
    seat.report.seat = seat.index;
    seat.report.connection = id;
    seat.report.name = seat.name;
    seat.report.loss_pct = options_.settings.loss_pct;
    seat.report.latency_ms = options_.settings.latency_ms;
    seat.report.jitter_ms = options_.settings.jitter_ms;
    occupied_mask_[seat.index] = 1;
    world_->steer(seat.index, {}, true);  // the bot drives until the player steers

    writer_.clear();
    encode_welcome(writer_, {.protocol = kRoomProtocol,
                             .build = room_build_id(),
                             .playground = "horde",
                             .seat = seat.index,
                             .seats = seats_.capacity(),
                             .tick_hz = static_cast<std::uint32_t>(options_.tick_hz),
                             .settings = options_.describe()});
    if (server_) server_->send(id, writer_.bytes());
    broadcast_roster();
}

void HordeRoom::broadcast_roster() {
    std::vector<RosterEntry> entries;
    seats_.for_each_occupant([&](const ConnectionId&, SeatToken token) {
        if (const SeatSlot* s = seats_.state(token); s && s->seat) entries.push_back({token.index, s->seat->name});
    });
    writer_.clear();
    encode_roster(writer_, entries);
    if (!server_) return;
    seats_.for_each_occupant([&](const ConnectionId& id, SeatToken) { server_->send(id, writer_.bytes()); });
}

void HordeRoom::error(ConnectionId id, const std::string& reason) {
    writer_.clear();
    encode_error(writer_, reason);
    if (server_) server_->send(id, writer_.bytes());
}

void HordeRoom::teacher_hello(ConnectionId id) {
    teachers_.push_back(id);
    ClassInfoMessage info;
    for (const std::string& u : options_.class_urls) {
        if (info.urls.size() < kMaxUrls && u.size() <= kMaxReasonBytes) info.urls.push_back(u);
    }
    info.qr = class_qr_;
    writer_.clear();
    encode_class_info(writer_, info);
    if (server_) server_->send(id, writer_.bytes());
    send_seat_table();
}

void HordeRoom::impair(Seat& seat, double loss_pct, double latency_ms, double jitter_ms) {
    LossyLinkOptions o;
    o.latency_ms = latency_ms;
    o.jitter_ms = jitter_ms;
    o.loss = static_cast<float>(loss_pct / 100.0);
    seat.link.set_impairment(o);
    seat.report.loss_pct = loss_pct;
    seat.report.latency_ms = latency_ms;
    seat.report.jitter_ms = jitter_ms;
}

void HordeRoom::command(ConnectionId teacher, const CommandMessage& c) {
    std::vector<Seat*>& seated = seated_scratch();
    switch (c.kind) {
        case CommandMessage::Kind::Impair:
            if (c.seat == kAllSeats) {
                options_.settings.loss_pct = c.loss_pct;  // newcomers too
                options_.settings.latency_ms = c.latency_ms;
                options_.settings.jitter_ms = c.jitter_ms;
            }
            for (Seat* seat : seated) {
                if (c.seat == kAllSeats || c.seat == seat->index) impair(*seat, c.loss_pct, c.latency_ms, c.jitter_ms);
            }
            break;
        case CommandMessage::Kind::Strategy:
            options_.recovery = c.recovery;
            options_.settings.theta = c.theta;
            options_.settings.view_radius = c.view_radius;
            for (Seat* seat : seated) {
                seat->server.baseline().set_policy(c.recovery ? RecoveryPolicy::Acked : RecoveryPolicy::Naive);
            }
            break;
        case CommandMessage::Kind::Preset: {
            const auto it = std::find_if(options_.presets.begin(), options_.presets.end(),
                                         [&](const Preset& p) { return p.name == c.text; });
            if (it == options_.presets.end()) {
                error(teacher, "no room preset '" + c.text + "'");
                return;
            }
            HordeRoomOptions next = options_;
            const std::vector<std::string> errors = apply_room_settings(next, it->settings);
            if (!errors.empty()) {
                error(teacher, "preset '" + c.text + "': " + errors.front());
                return;
            }
            // What a preset may change in a running room: impairment and strategy.
            options_.settings.loss_pct = next.settings.loss_pct;
            options_.settings.latency_ms = next.settings.latency_ms;
            options_.settings.jitter_ms = next.settings.jitter_ms;
            options_.settings.theta = next.settings.theta;
            options_.settings.view_radius = next.settings.view_radius;
            options_.recovery = next.recovery;
            for (Seat* seat : seated) {
                impair(*seat, next.settings.loss_pct, next.settings.latency_ms, next.settings.jitter_ms);
                seat->server.baseline().set_policy(next.recovery ? RecoveryPolicy::Acked : RecoveryPolicy::Naive);
            }
            preset_ = c.text;
            break;
        }
        case CommandMessage::Kind::Kick:
            for (Seat* seat : seated) {
                if (seat->index == c.seat && server_)
                    server_->close(seat->connection, "removed from the room by the teacher");
            }
            break;
        case CommandMessage::Kind::Link:
            teacher_link_ = c.text;
            writer_.clear();
            encode_link(writer_, c.text);
            if (server_) {
                for (ConnectionId f : followers_) server_->send(f, writer_.bytes());
            }
            return;
    }
    send_seat_table();
}

void HordeRoom::send_seat_table() {
    if (!server_ || teachers_.empty()) return;
    SeatTableMessage t;
    t.server_ms = static_cast<std::uint64_t>(std::llround(world_ms()));
    t.recovery = options_.recovery;
    t.theta = options_.settings.theta;
    t.view_radius = options_.settings.view_radius;
    t.preset = preset_;
    seats_.for_each_occupant([&](const ConnectionId&, SeatToken token) {
        const SeatSlot* s = seats_.state(token);
        if (!s || !s->seat) return;
        const HordeSeatReport& r = s->seat->report;
        t.rows.push_back({.seat = r.seat,
                          .name = r.name,
                          .meters = r.reported,
                          .loss_pct = r.loss_pct,
                          .latency_ms = r.latency_ms,
                          .jitter_ms = r.jitter_ms});
    });
    writer_.clear();
    encode_seat_table(writer_, t);
    for (ConnectionId id : teachers_) server_->send(id, writer_.bytes());
}

void HordeRoom::snapshot_socket(Seat& seat) const {
    const ConnectionStats c = server_->connection_stats(seat.connection);
    if (c.messages_out == 0 && c.payload_bytes_out == 0) return;  // unknown now (closing): keep the last
    seat.report.socket_messages = c.messages_out;
    seat.report.socket_payload_bytes = c.payload_bytes_out;
    seat.report.socket_wire_bytes = c.wire_bytes_out;
}

void HordeRoom::on_message(ConnectionId id, std::span<const std::uint8_t> bytes) {
    const bool teacher = std::find(teachers_.begin(), teachers_.end(), id) != teachers_.end();
    if (teacher || std::find(followers_.begin(), followers_.end(), id) != followers_.end()) {
        // Teachers command (unimpaired: the console is not the lesson); followers only listen.
        if (decode_client_message(bytes, decoded_) != WireError::None) return;
        if (teacher && decoded_.type == RoomMessage::Command) command(id, decoded_.command);
        return;
    }
    Seat* seat = seat_of(id);
    if (!seat) {
        hello(id, bytes);
        return;
    }
    // Everything a seated client sends crosses its impaired up link first.
    seat->link.up().send(world_ms(), bytes);
}

void HordeRoom::dispatch(Seat& seat, std::span<const std::uint8_t> bytes) {
    if (decode_client_message(bytes, decoded_) != WireError::None) {
        ++seat.report.decode_errors;
        return;
    }
    const double now_ms = world_ms();
    switch (decoded_.type) {
        case RoomMessage::Ack:
            if (seat.acks.size() >= kMaxAcksQueued) seat.acks.pop_front();
            seat.acks.emplace_back(bytes.begin(), bytes.end());
            return;
        case RoomMessage::Input:
            if (seat.any_input && decoded_.input.seq <= seat.input_seq) return;  // reordered: older
            seat.any_input = true;
            seat.input_seq = decoded_.input.seq;
            world_->steer(seat.index, decoded_.input.direction, decoded_.input.autopilot);
            return;
        case RoomMessage::Ping:
            if (quiet_.load()) return;
            writer_.clear();
            encode_pong(writer_,
                        {.client_ms = decoded_.ping_ms, .server_ms = static_cast<std::uint64_t>(std::llround(now_ms))});
            seat.link.down().send(now_ms, writer_.bytes());
            return;
        case RoomMessage::TruthQuery: {
            if (quiet_.load() || options_.truth_max_hz <= 0.0 || now_ms < seat.next_truth_ms) return;
            seat.next_truth_ms = now_ms + 1000.0 / options_.truth_max_hz;
            const std::vector<std::uint64_t>& keys = decoded_.truth_query.keys;
            alive_.assign(keys.size(), 0);
            positions_.clear();
            for (std::size_t i = 0; i < keys.size(); ++i) {
                if (!world_->alive(keys[i])) continue;
                alive_[i] = 1;
                positions_.push_back(world_->position_at(SlotKey::decode(keys[i])->index));
            }
            writer_.clear();
            encode_truth(writer_, decoded_.truth_query.id, static_cast<std::uint64_t>(std::llround(now_ms)), alive_,
                         positions_);
            if (!writer_.ok()) return;
            seat.report.truth_bytes += writer_.size();
            seat.link.down().send(now_ms, writer_.bytes());
            return;
        }
        case RoomMessage::Report:
            seat.report.reported = decoded_.report;
            return;
        case RoomMessage::Command:
            ++refused_commands_;
            error(seat.connection, "only the teacher can change room settings");
            return;
        case RoomMessage::Hello:
        default:
            ++seat.report.decode_errors;  // a second hello, or a server-only type
            return;
    }
}

void HordeRoom::on_tick(double) {
    // The wall clock only decides when a tick runs; the world advances one fixed step.
    ++ticks_;
    const double dt = 1.0 / static_cast<double>(options_.tick_hz);
    {
        PhaseScope phase(profiler_, "world");
        world_->step(dt);
    }
    const double now_ms = world_ms();

    // Hellos that never came.
    for (const Pending& p : pending_) {
        if (now_ms - p.opened_ms > options_.hello_timeout_ms && server_) server_->close(p.id, "no hello within 5 s");
    }

    // What each seat's up link delivers by now.
    std::vector<Seat*>& seated = seated_scratch();
    {
        PhaseScope phase(profiler_, "receive");
        for (Seat* seat : seated) {
            while (seat->link.up().poll(now_ms, message_)) dispatch(*seat, message_);
        }
    }

    if (now_ms + 1e-6 >= next_send_ms_ && !quiet_.load()) {
        const double interval = 1000.0 / std::clamp(options_.settings.send_hz, 1.0, 60.0);
        next_send_ms_ += interval;
        if (next_send_ms_ <= now_ms) next_send_ms_ = now_ms + interval;
        const float theta = static_cast<float>(options_.settings.theta);
        const HordeRound& round = round_.build(*world_, static_cast<float>(options_.settings.view_radius), false,
                                               theta > 0.0f && !seated.empty(), now_ms, occupied_mask_, profiler_);
        const HordeServeOptions serve{.relevance = true,
                                      .theta = theta,
                                      .view_radius = options_.settings.view_radius,
                                      .send_hz = options_.settings.send_hz,
                                      .sample_hz = options_.settings.sample_hz};
        for (Seat* seat : seated) {
            const HordeSent sent = seat->server.serve(round, seat->index, serve, *seat, scratch_, profiler_);
            if (!sent.sent) continue;
            seat->report.frames += 1;
            seat->report.frame_bytes += sent.bytes.total();
        }
    }

    if (!teachers_.empty() && now_ms >= next_table_ms_) {
        send_seat_table();
        next_table_ms_ = now_ms + 500.0;
    }

    // Whatever the down links deliver by now goes to the sockets.
    PhaseScope phase(profiler_, "send");
    for (Seat* seat : seated) {
        while (seat->link.down().poll(now_ms, message_)) {
            if (!server_) continue;
            const SendResult r = server_->send(seat->connection, message_);
            if (r == SendResult::Queued) {
                seat->report.sent_messages += 1;
                seat->report.sent_bytes += message_.size();
                if (message_[0] == static_cast<std::uint8_t>(RoomMessage::Frame)) {
                    seat->report.frame_socket_bytes += message_.size();
                }
            } else if (r == SendResult::Dropped) {
                seat->report.dropped += 1;
            }
        }
        if (server_) snapshot_socket(*seat);
    }
}

std::vector<HordeSeatReport> HordeRoom::all_seat_reports() const {
    std::vector<HordeSeatReport> out = departed_;
    for (const HordeSeatReport& r : seat_reports()) out.push_back(r);
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.connection < b.connection; });
    return out;
}

std::vector<HordeSeatReport> HordeRoom::seat_reports() const {
    std::vector<HordeSeatReport> out;
    seats_.for_each_occupant([&](const ConnectionId&, SeatToken token) {
        if (const SeatSlot* s = seats_.state(token); s && s->seat) {
            HordeSeatReport r = s->seat->report;
            r.decode_errors += s->seat->server.decode_errors();
            out.push_back(r);
        }
    });
    return out;
}

}  // namespace vantage::room
