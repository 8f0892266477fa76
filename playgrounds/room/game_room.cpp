#include "room/game_room.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "common/host.hpp"

namespace vantage::room {

using namespace vantage::play;

namespace {
constexpr std::size_t kMaxAcksQueued = 64;  // per seat: more means the client floods; the oldest go

// A simulated TCP's retransmission timeout: a round trip at its worst jitter, floored at
// Linux's 200 ms (its RTO_MIN, which a LAN's round trips never reach).
double retransmission_timeout_ms(const Impairment& i) {
    return std::clamp(2.0 * (i.latency_ms + i.jitter_ms), 200.0, 60000.0);
}

// A resending seat's link releases, after a long resend, every message held behind it at once:
// it hands its socket at most this many queued messages and keeps the rest, in order, as a TCP
// sender's data waits in its socket buffer (the server's queue, 64 by default, would drop them).
constexpr std::size_t kStreamQueueMessages = 32;
}  // namespace

void RoomSeat::send(double now_ms, std::span<const std::uint8_t> bytes) {
    const SendFate fate = link.down().send(now_ms, bytes);
    if (!arrives(fate)) ++report.frames_lost;
    if (fate == SendFate::Retransmitted) ++report.frames_resent;
}

bool RoomSeat::poll(double, std::vector<std::uint8_t>& out) {
    if (acks.empty()) return false;
    out.swap(acks.front());
    acks.pop_front();
    return true;
}

std::string RoomOptions::validate(int max_seats) const {
    if (seats < 1 || seats > max_seats) return "seats must be from 1 to " + std::to_string(max_seats);
    if (tick_hz < 10 || tick_hz > 120) return "tick_hz must be from 10 to 120";
    if (!(truth_max_hz >= 0.0 && truth_max_hz <= 20.0)) return "truth_max_hz must be from 0 to 20";
    if (!(hello_timeout_ms > 0.0 && hello_timeout_ms <= 60000.0)) return "hello_timeout_ms must be from 0 to 60000";
    if (max_pending < 1 || max_pending > 256) return "max_pending must be from 1 to 256";
    if (max_pending_per_address < 1 || max_pending_per_address > 256)
        return "max_pending_per_address must be from 1 to 256";
    if (max_followers < 0 || max_followers > 1024) return "max_followers must be from 0 to 1024";
    if (!(follower_idle_ms >= 1000.0 && follower_idle_ms <= 600000.0))
        return "follower_idle_ms must be from 1000 to 600000";
    if (max_teachers < 1 || max_teachers > 8) return "max_teachers must be from 1 to 8";
    return {};
}

bool apply_room_key(RoomOptions& options, std::string_view name, std::string_view value,
                    std::vector<std::string>& errors) {
    if (name != "truth_max_hz" && name != "seed" && name != "tick_hz" && name != "seats" &&
        name != "websocket_retransmits")
        return false;
    double v = 0;
    if (!parse_value(value, v)) {
        errors.push_back("'" + std::string(name) + "' needs a number (got '" + std::string(value) + "')");
        return true;
    }
    if (name == "websocket_retransmits") {
        if (v != 0.0 && v != 1.0)
            errors.push_back("'websocket_retransmits' is 0 (loss drops) or 1 (resent on websocket seats, as TCP)");
        else
            options.websocket_retransmits = v != 0.0;
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
    return true;
}

GameRoom::GameRoom(RoomOptions& room, int seats, std::string_view playground)
    : room_(room), playground_(playground), seats_(static_cast<std::uint32_t>(std::max(1, seats))) {}

GameRoom::~GameRoom() = default;

void GameRoom::set_class_urls(std::vector<std::string> urls, std::vector<std::string> qr) {
    room_.class_urls = std::move(urls);
    class_qr_ = std::move(qr);
}

LossyLinkOptions GameRoom::link_options(std::uint64_t seed) const {
    const Impairment i = default_impairment();
    LossyLinkOptions o;
    o.seed = seed;
    o.latency_ms = i.latency_ms;
    o.jitter_ms = i.jitter_ms;
    o.loss = static_cast<float>(i.loss_pct / 100.0);
    o.stream = room_.websocket_retransmits;  // a new seat rides the WebSocket
    o.rto_ms = retransmission_timeout_ms(i);
    return o;
}

RoomSeat* GameRoom::seat_of(ConnectionId id) {
    const std::optional<SeatToken> token = seats_.token_of(id);
    if (!token) return nullptr;
    SeatSlot* slot = seats_.state(*token);
    return slot ? slot->seat.get() : nullptr;
}

// The seated seats in seat order, in a buffer reused every tick (no allocation per tick).
std::vector<RoomSeat*>& GameRoom::seated_scratch() {
    seated_.clear();
    seats_.for_each_occupant([&](const ConnectionId&, SeatToken token) {
        if (SeatSlot* s = seats_.state(token); s && s->seat) seated_.push_back(s->seat.get());
    });
    return seated_;
}

SendResult GameRoom::send_direct(ConnectionId id, std::span<const std::uint8_t> bytes) {
    return server_ ? server_->send(id, bytes) : SendResult::Unknown;
}

namespace {
// "1.2.3.4:5678" -> "1.2.3.4", "[::1]:5678" -> "::1".
std::string address_only(std::string_view remote) {
    if (!remote.empty() && remote.front() == '[') return std::string(remote.substr(1, remote.find(']') - 1));
    return std::string(remote.substr(0, remote.rfind(':')));
}
}  // namespace

void GameRoom::on_open(ConnectionId id, std::string_view remote_address) {
    std::string address = address_only(remote_address);
    address_of_[id] = address;
    const auto from_here =
        std::count_if(pending_.begin(), pending_.end(), [&](const Pending& p) { return p.address == address; });
    if (from_here >= room_.max_pending_per_address) {
        refuse(id, "too many connections from your address have not said hello (" +
                       std::to_string(room_.max_pending_per_address) + "): close other tabs of this room, then reload");
        return;
    }
    if (pending_.size() >= static_cast<std::size_t>(room_.max_pending)) {
        // The oldest silent one gives way: a page says hello within milliseconds of opening,
        // so whoever has waited longest is the likeliest not to be a page at all.
        const ConnectionId oldest = pending_.front().id;
        pending_.erase(pending_.begin());
        refuse(oldest, "closed: too many connections waiting to say hello, and yours waited longest; reload");
    }
    pending_.push_back({id, world_ms(), std::move(address)});
}

void GameRoom::on_close(ConnectionId id) {
    if (rtc_door_) rtc_door_->left(id);
    std::erase_if(pending_, [&](const Pending& p) { return p.id == id; });
    std::erase(teachers_, id);
    std::erase_if(followers_, [&](const Follower& f) { return f.id == id; });
    address_of_.erase(id);
    const std::optional<SeatToken> token = seats_.token_of(id);
    if (!token) return;
    unseated(token->index);  // the bot takes the player back
    if (RoomSeat* seat = seat_of(id)) {
        if (server_) snapshot_socket(*seat);
        departed_.push_back(seat->report);
        departed_.back().decode_errors += seat->half_decode_errors();
    }
    seats_.unseat(id);  // the seat's state (links, baseline, inbox) goes with it
    broadcast_roster();
}

void GameRoom::refuse(ConnectionId id, const std::string& reason) {
    writer_.clear();
    encode_refuse(writer_, reason);
    if (server_) {
        server_->send(id, writer_.bytes());
        server_->close(id, reason.substr(0, 120));
    }
}

// What a client of another version is told. The protocol number says which side is older; a
// build id alone (same protocol, other sources) cannot, so it says so. An empty build is a
// client written from room_wire.md, held to the protocol number only.
std::string protocol_mismatch(std::uint32_t protocol, const std::string& build) {
    const std::string numbers =
        " (client protocol " + std::to_string(protocol) + ", room protocol " + std::to_string(kRoomProtocol) + ")";
    if (protocol < kRoomProtocol) return "reload: this page is older than the room" + numbers;
    if (protocol > kRoomProtocol)
        return "the room is older than this page" + numbers + ": restart the room from the same version as the page";
    return "reload: this page was built from other sources than the room (page build " + build + ", room build " +
           room_build_id() + "); if it persists, rebuild the room and the page from one checkout";
}

void GameRoom::hello(ConnectionId id, std::span<const std::uint8_t> bytes) {
    std::erase_if(pending_, [&](const Pending& p) { return p.id == id; });
    const WireError decoded = decode_client_message(bytes, decoded_);
    const bool is_hello = !bytes.empty() && (bytes[0] == static_cast<std::uint8_t>(RoomMessage::Hello) ||
                                             bytes[0] == static_cast<std::uint8_t>(RoomMessage::TeacherHello) ||
                                             bytes[0] == static_cast<std::uint8_t>(RoomMessage::FollowHello));
    if (!is_hello) {
        refuse(id, "expected a hello first: this is a Vantage room (reload the page)");
        return;
    }
    if (decoded != WireError::Ok) {
        refuse(id, std::string("hello refused (") + to_string(decoded) +
                       "): see room_wire.md for its fields and limits (a name is at most 24 bytes of UTF-8)");
        return;
    }
    const std::uint32_t protocol = decoded_.type == RoomMessage::Hello          ? decoded_.hello.protocol
                                   : decoded_.type == RoomMessage::TeacherHello ? decoded_.teacher.protocol
                                                                                : decoded_.follow.protocol;
    const std::string& build = decoded_.type == RoomMessage::Hello          ? decoded_.hello.build
                               : decoded_.type == RoomMessage::TeacherHello ? decoded_.teacher.build
                                                                            : decoded_.follow.build;
    if (protocol != kRoomProtocol || (!build.empty() && build != room_build_id())) {
        refuse(id, protocol_mismatch(protocol, build));
        return;
    }
    if (decoded_.type == RoomMessage::TeacherHello) {
        if (!teacher_token_ok(id)) return;
        if (teachers_.size() >= static_cast<std::size_t>(room_.max_teachers)) {
            refuse(id, "the teacher console is already open " + std::to_string(teachers_.size()) +
                           " times: close one, then reload");
            return;
        }
        teacher_hello(id);
        return;
    }
    if (decoded_.type == RoomMessage::FollowHello) {
        if (followers_.size() >= static_cast<std::size_t>(room_.max_followers)) {
            refuse(id, "the room has all the followers it can take (" + std::to_string(room_.max_followers) +
                           "): take a seat instead, or ask the teacher");
            return;
        }
        followers_.push_back({id, world_ms()});
        if (!teacher_link_.empty() && server_) {
            writer_.clear();
            encode_link(writer_, teacher_link_);
            server_->send(id, writer_.bytes());
        }
        return;
    }
    const HelloMessage& h = decoded_.hello;
    if (!valid_utf8(h.name)) {
        refuse(id, "your name is not valid UTF-8 (letters of any language are welcome): type it again");
        return;
    }
    if (h.playground != playground_) {
        refuse(id, "this room plays " + playground_ + ", not " + h.playground);
        return;
    }
    const Seating seating = seats_.seat(id);
    if (!seating.seated()) {
        refuse(id, "the room is full (" + std::to_string(seats_.capacity()) +
                       " seats): ask the teacher for a seat, or follow the lesson with #" + playground_ + "/follow");
        return;
    }
    SeatSlot* slot = seats_.state(seating.token);
    const std::uint64_t n = ++links_made_;
    slot->seat = make_seat(link_options(down_link_seed(room_.seed, n)), link_options(up_link_seed(room_.seed, n)));
    RoomSeat& seat = *slot->seat;
    const Impairment i = default_impairment();
    seat.connection = id;
    seat.index = seating.index();
    seat.name = sanitize_name(h.name);
    seat.report.seat = seat.index;
    seat.report.connection = id;
    seat.report.name = seat.name;
    seat.report.loss_pct = i.loss_pct;
    seat.report.latency_ms = i.latency_ms;
    seat.report.jitter_ms = i.jitter_ms;

    writer_.clear();
    encode_welcome(writer_, {.protocol = kRoomProtocol,
                             .build = room_build_id(),
                             .playground = playground_,
                             .seat = seat.index,
                             .seats = seats_.capacity(),
                             .tick_hz = static_cast<std::uint32_t>(room_.tick_hz),
                             .settings = describe()});
    if (server_) server_->send(id, writer_.bytes());
    seated(seat);  // the bot drives until the player steers; the game may send its join state
    broadcast_roster();
}

void GameRoom::broadcast_roster() {
    std::vector<RosterEntry> entries;
    seats_.for_each_occupant([&](const ConnectionId&, SeatToken token) {
        if (const SeatSlot* s = seats_.state(token); s && s->seat) entries.push_back({token.index, s->seat->name});
    });
    writer_.clear();
    encode_roster(writer_, entries);
    if (!server_) return;
    seats_.for_each_occupant([&](const ConnectionId& id, SeatToken) { server_->send(id, writer_.bytes()); });
}

void GameRoom::error(ConnectionId id, const std::string& reason) {
    writer_.clear();
    encode_error(writer_, reason);
    if (server_) server_->send(id, writer_.bytes());
}

// The token is compared in full whatever the first difference (no timing hint). A wrong one
// is logged, and its address waits 0.5 s, doubling to 30 s, before its next try is read.
bool GameRoom::teacher_token_ok(ConnectionId id) {
    const std::string& address = address_of_[id];
    TokenTries& tries = token_tries_[address];
    const double now_ms = world_ms();
    if (now_ms < tries.next_try_ms) {
        const int wait_s = static_cast<int>(std::ceil((tries.next_try_ms - now_ms) / 1000.0));
        refuse(id, "too many wrong teacher tokens from your address: wait " + std::to_string(wait_s) +
                       " s, then reload with the token the room printed");
        return false;
    }
    const std::string& t = decoded_.teacher.token;
    const std::string& want = room_.teacher_token;
    unsigned diff = static_cast<unsigned>(t.size() ^ want.size());
    for (std::size_t i = 0; i < want.size(); ++i)
        diff |= static_cast<unsigned char>(want[i] ^ (i < t.size() ? t[i] : 0));
    if (!want.empty() && diff == 0) {
        token_tries_.erase(address);
        return true;
    }
    ++tries.wrong;
    tries.next_try_ms = now_ms + std::min(30000.0, 500.0 * std::pow(2.0, std::min(tries.wrong - 1, 16)));
    std::fprintf(stderr, "vantage serve: wrong teacher token from %s (%d so far; next try in %.1f s)\n",
                 address.c_str(), tries.wrong, (tries.next_try_ms - now_ms) / 1000.0);
    refuse(id, "wrong teacher token: use the teacher console URL the room printed");
    return false;
}

void GameRoom::teacher_hello(ConnectionId id) {
    teachers_.push_back(id);
    ClassInfoMessage info;
    for (const std::string& u : room_.class_urls) {
        if (info.urls.size() < kMaxUrls && u.size() <= kMaxReasonBytes) info.urls.push_back(u);
    }
    info.qr = class_qr_;
    writer_.clear();
    encode_class_info(writer_, info);
    if (server_) server_->send(id, writer_.bytes());
    send_seat_table();
}

void GameRoom::impair(RoomSeat& seat, const Impairment& i) {
    LossyLinkOptions o;
    o.latency_ms = i.latency_ms;
    o.jitter_ms = i.jitter_ms;
    o.loss = static_cast<float>(i.loss_pct / 100.0);
    o.stream = retransmits(seat);
    o.rto_ms = retransmission_timeout_ms(i);
    seat.link.set_impairment(o);
    seat.report.loss_pct = i.loss_pct;
    seat.report.latency_ms = i.latency_ms;
    seat.report.jitter_ms = i.jitter_ms;
}

void GameRoom::reimpair(RoomSeat& seat) {
    impair(
        seat,
        {.loss_pct = seat.report.loss_pct, .latency_ms = seat.report.latency_ms, .jitter_ms = seat.report.jitter_ms});
}

void GameRoom::command(ConnectionId teacher, const CommandMessage& c) {
    std::vector<RoomSeat*>& seated = seated_scratch();
    std::string why;
    const bool retransmits_before = room_.websocket_retransmits;
    switch (c.kind) {
        case CommandMessage::Kind::Impair: {
            const Impairment i{.loss_pct = c.loss_pct, .latency_ms = c.latency_ms, .jitter_ms = c.jitter_ms};
            if (c.seat == kAllSeats) set_default_impairment(i);  // newcomers too
            for (RoomSeat* seat : seated) {
                if (c.seat == kAllSeats || c.seat == seat->index) impair(*seat, i);
            }
            break;
        }
        case CommandMessage::Kind::Strategy:
            if (!strategy(c, seated, why)) {
                error(teacher, why);
                return;
            }
            break;
        case CommandMessage::Kind::Preset: {
            const auto it = std::find_if(room_.presets.begin(), room_.presets.end(),
                                         [&](const Preset& p) { return p.name == c.text; });
            if (it == room_.presets.end()) {
                error(teacher, "no room preset '" + c.text + "'");
                return;
            }
            if (!run_preset(*it, seated, why)) {
                error(teacher, "preset '" + c.text + "': " + why);
                return;
            }
            preset_ = c.text;
            break;
        }
        case CommandMessage::Kind::Kick:
            for (RoomSeat* seat : seated) {
                if (seat->index == c.seat && server_)
                    server_->close(seat->connection, "removed from the room by the teacher");
            }
            break;
        case CommandMessage::Kind::Transport:
            for (RoomSeat* seat : seated) {
                if (seat->index != c.seat) continue;
                seat->websocket_only = c.transport == SeatTransport::WebSocket;
                // The next path attached is the teacher's doing (not when the seat is there already).
                seat->teacher_moved = !seat->websocket_only && !(seat->path && seat->path->kind() == c.transport);
                if (seat->websocket_only && seat->path) {
                    detach_path(seat->connection, "the teacher moved this seat to the websocket");
                } else if (!seat->websocket_only) {
                    // The client starts that path if it can (a page cannot open UDP, a bot has
                    // no DataChannel); the room attaches it when it forms.
                    tell_transport(
                        *seat, c.transport,
                        std::string("the teacher moves this seat to ") + std::string(transport_name(c.transport)));
                } else {
                    tell_transport(*seat, SeatTransport::WebSocket, "the teacher keeps this seat on the websocket");
                }
            }
            break;
        case CommandMessage::Kind::Link:
            teacher_link_ = c.text;
            writer_.clear();
            encode_link(writer_, c.text);
            if (server_) {
                for (const Follower& f : followers_) server_->send(f.id, writer_.bytes());
            }
            return;
    }
    if (room_.websocket_retransmits != retransmits_before) {
        // Every page says how its simulated loss behaves: the same state, the new setting.
        for (RoomSeat* seat : seated) tell_transport(*seat, seat->told_wanted, seat->report.transport_why);
    }
    send_seat_table();
}

void GameRoom::send_seat_table() {
    if (!server_ || teachers_.empty()) return;
    SeatTableMessage t;
    t.server_ms = static_cast<std::uint64_t>(std::llround(world_ms()));
    fill_table(t);
    t.websocket_retransmits = room_.websocket_retransmits;
    t.preset = preset_;
    seats_.for_each_occupant([&](const ConnectionId&, SeatToken token) {
        const SeatSlot* s = seats_.state(token);
        if (!s || !s->seat) return;
        const SeatReport& r = s->seat->report;
        // Frames lost on the socket itself: what the client counted lost beyond what the
        // seat's simulated link dropped (its report is up to a second old: floored at zero).
        double socket_loss_pct = -1;
        if (r.frames > 0 && r.reported.down_kib_s >= 0) {
            const double lost = static_cast<double>(r.reported.frames_lost) - static_cast<double>(r.frames_lost);
            socket_loss_pct = std::clamp(100.0 * lost / static_cast<double>(r.frames), 0.0, 100.0);
        }
        t.rows.push_back({.seat = r.seat,
                          .name = r.name,
                          .meters = r.reported,
                          .loss_pct = r.loss_pct,
                          .latency_ms = r.latency_ms,
                          .jitter_ms = r.jitter_ms,
                          .transport = r.transport,
                          .socket_loss_pct = socket_loss_pct});
    });
    writer_.clear();
    encode_seat_table(writer_, t);
    for (ConnectionId id : teachers_) server_->send(id, writer_.bytes());
}

void GameRoom::snapshot_socket(RoomSeat& seat) const {
    const ConnectionStats c = server_->connection_stats(seat.connection);
    if (c.messages_out == 0 && c.payload_bytes_out == 0) return;  // unknown now (closing): keep the last
    seat.report.socket_messages = c.messages_out;
    seat.report.socket_payload_bytes = c.payload_bytes_out;
    seat.report.socket_wire_bytes = c.wire_bytes_out;
}

void GameRoom::on_message(ConnectionId id, std::span<const std::uint8_t> bytes) {
    if (std::find(teachers_.begin(), teachers_.end(), id) != teachers_.end()) {
        // Teachers command (unimpaired: the console is not the lesson).
        const WireError e = decode_client_message(bytes, decoded_);
        if (e != WireError::Ok) {
            error(id, std::string("message refused (") + to_string(e) + "): see room_wire.md for its limits");
        } else if (decoded_.type == RoomMessage::Command) {
            command(id, decoded_.command);
        }
        return;
    }
    const auto follower =
        std::find_if(followers_.begin(), followers_.end(), [&](const Follower& f) { return f.id == id; });
    if (follower != followers_.end()) {
        follower->heard_ms = world_ms();  // followers only listen; anything they send keeps them
        return;
    }
    RoomSeat* seat = seat_of(id);
    if (!seat) {
        hello(id, bytes);
        return;
    }
    // Asking for a datagram path is control, not the lesson: it is not impaired.
    if (!bytes.empty() && bytes[0] == static_cast<std::uint8_t>(RoomMessage::UdpRequest)) {
        if (bytes.size() == 1)
            udp_request(*seat);
        else
            ++seat->report.decode_errors;
        return;
    }
    // So is signalling a DataChannel.
    if (!bytes.empty() && bytes[0] == static_cast<std::uint8_t>(RoomMessage::RtcSignal)) {
        rtc_signal(*seat, bytes);
        return;
    }
    // Everything a seated client sends crosses its impaired up link first.
    seat->link.up().send(world_ms(), bytes);
}

void GameRoom::rtc_signal(RoomSeat& seat, std::span<const std::uint8_t> bytes) {
    if (decode_client_message(bytes, decoded_) != WireError::Ok) {
        ++seat.report.decode_errors;
        return;
    }
    const RtcSignalMessage& m = decoded_.rtc;
    if (m.kind == RtcSignalKind::Offer && (seat.websocket_only || !rtc_door_)) {
        send_rtc_signal(seat.connection,
                        {.kind = RtcSignalKind::Bye,
                         .text = seat.websocket_only ? "the teacher keeps this seat on the websocket"
                                                     : "this room has no DataChannels: playing over the websocket"});
        return;
    }
    if (rtc_door_) rtc_door_->signal(seat.connection, m);
}

void GameRoom::send_rtc_signal(ConnectionId id, const RtcSignalMessage& m) {
    writer_.clear();
    encode_rtc_signal_out(writer_, m);
    if (server_) server_->send(id, writer_.bytes());
}

void GameRoom::on_datagram(ConnectionId id, std::span<const std::uint8_t> bytes) {
    RoomSeat* seat = seat_of(id);
    if (!seat) return;
    ++seat->report.path_in_messages;
    seat->link.up().send(world_ms(), bytes);
}

SeatTransport GameRoom::transport_of(ConnectionId id) {
    const RoomSeat* seat = seat_of(id);
    return seat && seat->path ? seat->path->kind() : SeatTransport::WebSocket;
}

void GameRoom::tell_transport(RoomSeat& seat, SeatTransport wanted, std::string_view why) {
    seat.report.transport = seat.path ? seat.path->kind() : SeatTransport::WebSocket;
    seat.report.transport_why = std::string(why.substr(0, kMaxReasonBytes));
    seat.told_wanted = wanted;
    writer_.clear();
    encode_transport_state(writer_, {.transport = seat.report.transport,
                                     .wanted = wanted,
                                     .websocket_retransmits = room_.websocket_retransmits,
                                     .why = seat.report.transport_why});
    if (server_) server_->send(seat.connection, writer_.bytes());
}

void GameRoom::attach_path(ConnectionId id, std::unique_ptr<DatagramPath> path) {
    RoomSeat* seat = seat_of(id);
    if (!seat || !path) return;
    const SeatTransport kind = path->kind();
    seat->path = std::move(path);
    ++seat->report.path_attaches;
    reimpair(*seat);  // a datagram path loses what the loss drops
    std::string why = std::string("frames over ") + std::string(transport_name(kind));
    if (seat->teacher_moved) why += ": the teacher moved this seat to it";
    seat->teacher_moved = false;
    tell_transport(*seat, kind, why);
}

void GameRoom::detach_path(ConnectionId id, std::string_view why) {
    RoomSeat* seat = seat_of(id);
    if (!seat || !seat->path) return;
    seat->path.reset();
    reimpair(*seat);  // the WebSocket may resend (websocket_retransmits)
    tell_transport(*seat, SeatTransport::WebSocket, why);
}

void GameRoom::udp_request(RoomSeat& seat) {
    const SeatTransport now = seat.path ? seat.path->kind() : SeatTransport::WebSocket;
    if (seat.websocket_only) {
        tell_transport(seat, now, "the teacher keeps this seat on the websocket");
        return;
    }
    std::string why;
    if (!udp_door_) {
        tell_transport(seat, now, "this room has no UDP: playing over the websocket");
        return;
    }
    if (!udp_door_->grant(seat.connection, seat.index, grant_, why)) {
        tell_transport(seat, now, why + ": playing over the websocket");
        return;
    }
    ++seat.report.udp_grants;
    writer_.clear();
    encode_udp_grant(writer_, grant_);
    if (server_) server_->send(seat.connection, writer_.bytes());
}

void GameRoom::dispatch(RoomSeat& seat, std::span<const std::uint8_t> bytes) {
    if (decode_client_message(bytes, decoded_) != WireError::Ok) {
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
            steer(seat, decoded_.input.direction, decoded_.input.autopilot);
            return;
        case RoomMessage::Ping:
            if (quiet_.load()) return;
            writer_.clear();
            encode_pong(writer_,
                        {.client_ms = decoded_.ping_ms, .server_ms = static_cast<std::uint64_t>(std::llround(now_ms))});
            seat.link.down().send(now_ms, writer_.bytes());
            return;
        case RoomMessage::TruthQuery: {
            if (quiet_.load() || room_.truth_max_hz <= 0.0 || now_ms < seat.next_truth_ms) return;
            seat.next_truth_ms = now_ms + 1000.0 / room_.truth_max_hz;
            const std::vector<std::uint64_t>& keys = decoded_.truth_query.keys;
            alive_.assign(keys.size(), 0);
            positions_.clear();
            truth(keys, alive_, positions_);
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

void GameRoom::on_tick(double) {
    // The wall clock only decides when a tick runs; the world advances one fixed step.
    ++ticks_;
    {
        PhaseScope phase(profiler_, "world");
        step_world(1.0 / static_cast<double>(room_.tick_hz));
    }
    const double now_ms = world_ms();

    // The datagram transports' sockets: what came in reaches the up links below.
    if (udp_door_) udp_door_->pump(now_ms);

    // Hellos that never came, followers gone quiet.
    if (server_) {
        for (const Pending& p : pending_) {
            if (now_ms - p.opened_ms > room_.hello_timeout_ms)
                server_->close(p.id, "no hello within " + std::to_string(std::lround(room_.hello_timeout_ms)) +
                                         " ms: this is a Vantage room (reload the page)");
        }
        for (const Follower& f : followers_) {
            if (now_ms - f.heard_ms > room_.follower_idle_ms)
                server_->close(f.id, "a follower sends a Ping at least every " +
                                         std::to_string(std::lround(room_.follower_idle_ms / 1000.0)) +
                                         " s: reload the page");
        }
    }

    // What each seat's up link delivers by now.
    std::vector<RoomSeat*>& seated = seated_scratch();
    {
        PhaseScope phase(profiler_, "receive");
        for (RoomSeat* seat : seated) {
            while (seat->link.up().poll(now_ms, message_)) dispatch(*seat, message_);
        }
    }

    if (!quiet_.load()) serve(seated, now_ms);

    if (!teachers_.empty() && now_ms >= next_table_ms_) {
        send_seat_table();
        next_table_ms_ = now_ms + 500.0;
    }

    // Whatever the down links deliver by now goes to the sockets.
    PhaseScope phase(profiler_, "send");
    for (RoomSeat* seat : seated) {
        std::size_t socket_room = SIZE_MAX;
        if (server_ && retransmits(*seat)) {
            const std::size_t queued = server_->connection_stats(seat->connection).queued_messages;
            socket_room = queued < kStreamQueueMessages ? kStreamQueueMessages - queued : 0;
        }
        for (; socket_room > 0 && seat->link.down().poll(now_ms, message_); --socket_room) {
            // A seat's frames take its datagram path when it has one; everything else (pongs,
            // truth answers) stays on the WebSocket, which must deliver them.
            if (seat->path && !message_.empty() && is_frame_type(message_[0])) {
                if (seat->path->send(message_)) {
                    seat->report.path_messages += 1;
                    seat->report.path_bytes += message_.size();
                    seat->report.sent_messages += 1;
                    seat->report.sent_bytes += message_.size();
                    seat->report.frame_socket_bytes += message_.size();
                } else {
                    seat->report.path_dropped += 1;
                    seat->report.dropped += 1;
                }
                continue;
            }
            if (!server_) continue;
            const SendResult r = server_->send(seat->connection, message_);
            if (r == SendResult::Queued) {
                seat->report.sent_messages += 1;
                seat->report.sent_bytes += message_.size();
                if (is_frame_type(message_[0])) seat->report.frame_socket_bytes += message_.size();
            } else if (r == SendResult::Dropped) {
                seat->report.dropped += 1;
            }
        }
        if (server_) snapshot_socket(*seat);
    }
}

std::vector<SeatReport> GameRoom::all_seat_reports() const {
    std::vector<SeatReport> out = departed_;
    for (const SeatReport& r : seat_reports()) out.push_back(r);
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.connection < b.connection; });
    return out;
}

std::vector<SeatReport> GameRoom::seat_reports() const {
    std::vector<SeatReport> out;
    seats_.for_each_occupant([&](const ConnectionId&, SeatToken token) {
        if (const SeatSlot* s = seats_.state(token); s && s->seat) {
            SeatReport r = s->seat->report;
            r.decode_errors += s->seat->half_decode_errors();
            out.push_back(r);
        }
    });
    return out;
}

}  // namespace vantage::room
