#include "common/room_wire.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "vantage/slot_key.hpp"

#ifndef VANTAGE_ROOM_BUILD_ID
#define VANTAGE_ROOM_BUILD_ID "dev"
#endif

namespace vantage::play {

const char* room_build_id() {
    return VANTAGE_ROOM_BUILD_ID;
}

namespace {

constexpr float kDirectionScale = 127.0f;

void write_string(ByteWriter& w, std::string_view s, std::size_t max) {
    assert(s.size() <= max && "room_wire: string longer than its field allows");
    const std::size_t n = std::min(s.size(), max);
    w.write_varint(n);
    w.write_bytes({reinterpret_cast<const std::uint8_t*>(s.data()), n});
}

// Printable ASCII only: names, reasons and settings are shown on screen and in logs.
void read_string(ByteReader& r, std::string& out, std::size_t max) {
    out.clear();
    const std::size_t n = r.read_count(max, 1);
    if (!r.ok()) return;
    out.resize(n);
    r.read_bytes({reinterpret_cast<std::uint8_t*>(out.data()), n});
    if (!r.ok()) return;
    for (char c : out) {
        if (c < 0x20 || c > 0x7e) {
            r.fail(WireError::Malformed);
            return;
        }
    }
}

std::int8_t direction_quantum(float v) {
    if (!std::isfinite(v)) return 0;
    return static_cast<std::int8_t>(std::lround(std::clamp(v, -1.0f, 1.0f) * kDirectionScale));
}

float read_direction(ByteReader& r) {
    const auto q = static_cast<std::int8_t>(r.read_u8());
    if (q == -128) r.fail(WireError::OutOfRange);  // never written: -127 is the floor
    return static_cast<float>(q) / kDirectionScale;
}

// Keys as (index gap, generation) pairs, like the horde's samples: strictly ascending slot
// indices, one key per slot.
void write_keys(ByteWriter& w, std::span<const std::uint64_t> keys) {
    w.write_varint(keys.size());
    std::uint32_t previous = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        const std::optional<SlotKey> key = SlotKey::decode(keys[i]);
        assert(key && "room_wire: not a packed SlotKey");
        assert((i == 0 || key->index > previous) && "room_wire: keys must be in ascending slot order");
        w.write_varint(i == 0 ? key->index : key->index - previous);
        w.write_varint(key->generation);
        previous = key->index;
    }
}

void read_keys(ByteReader& r, std::vector<std::uint64_t>& out, std::size_t max) {
    out.clear();
    const std::size_t n = r.read_count(max, 2);
    if (!r.ok()) return;
    out.reserve(n);
    std::uint64_t index = 0;
    for (std::size_t i = 0; i < n && r.ok(); ++i) {
        const std::uint64_t gap = r.read_varint_max(UINT32_MAX);
        const std::uint64_t generation = r.read_varint_max(UINT16_MAX);
        if (!r.ok()) return;
        if (i > 0 && gap == 0) {
            r.fail(WireError::NotAscending);
            return;
        }
        index += gap;
        if (index > UINT32_MAX) {
            r.fail(WireError::OutOfRange);
            return;
        }
        out.push_back(SlotKey{static_cast<std::uint32_t>(index), static_cast<std::uint16_t>(generation)}.encode());
    }
}

std::uint32_t read_u32_varint(ByteReader& r, std::uint32_t max = UINT32_MAX) {
    return static_cast<std::uint32_t>(r.read_varint_max(max));
}

// An optional non-negative reading in units of 1/scale: 0 is "absent", q + 1 otherwise.
constexpr double kMaxReading = 1e7;
void write_reading(ByteWriter& w, double v, double scale) {
    if (!(v >= 0.0) || !std::isfinite(v)) {
        w.write_varint(0);
        return;
    }
    w.write_varint(static_cast<std::uint64_t>(std::llround(std::min(v, kMaxReading) * scale)) + 1);
}
double read_reading(ByteReader& r, double scale) {
    const std::uint64_t q = r.read_varint_max(static_cast<std::uint64_t>(kMaxReading * scale) + 1);
    return q == 0 ? -1.0 : static_cast<double>(q - 1) / scale;
}
// A bounded non-negative setting in units of 1/scale.
void write_setting(ByteWriter& w, double v, double scale) {
    w.write_varint(static_cast<std::uint64_t>(std::llround(std::max(0.0, std::isfinite(v) ? v : 0.0) * scale)));
}
double read_setting(ByteReader& r, double scale, double max) {
    return static_cast<double>(r.read_varint_max(static_cast<std::uint64_t>(std::llround(max * scale)))) / scale;
}

void write_meters(ByteWriter& w, const ReportMessage& m) {
    write_reading(w, m.rtt_ms, 10.0);
    write_reading(w, m.down_kib_s, 100.0);
    w.write_varint(m.frames_lost);
    write_reading(w, m.phantoms, 10.0);
    write_reading(w, m.err_mean_px, 100.0);
}
void read_meters(ByteReader& r, ReportMessage& m) {
    m.rtt_ms = read_reading(r, 10.0);
    m.down_kib_s = read_reading(r, 100.0);
    m.frames_lost = r.read_varint();
    m.phantoms = read_reading(r, 10.0);
    m.err_mean_px = read_reading(r, 100.0);
}
void write_impairment(ByteWriter& w, double loss, double latency, double jitter) {
    write_setting(w, loss, 100.0);
    write_setting(w, latency, 10.0);
    write_setting(w, jitter, 10.0);
}
void read_impairment(ByteReader& r, double& loss, double& latency, double& jitter) {
    loss = read_setting(r, 100.0, 40.0);
    latency = read_setting(r, 10.0, 400.0);
    jitter = read_setting(r, 10.0, 150.0);
}

}  // namespace

void encode_hello(ByteWriter& w, const HelloMessage& m) {
    w.write_u8(static_cast<std::uint8_t>(RoomMessage::Hello));
    w.write_varint(m.protocol);
    write_string(w, m.build, kMaxBuildBytes);
    write_string(w, m.playground, kMaxPlaygroundBytes);
    write_string(w, m.name, kMaxNameBytes);
}

void encode_input(ByteWriter& w, const InputMessage& m) {
    w.write_u8(static_cast<std::uint8_t>(RoomMessage::Input));
    w.write_varint(m.seq);
    w.write_u8(m.autopilot ? 1 : 0);
    w.write_u8(static_cast<std::uint8_t>(direction_quantum(m.direction.x)));
    w.write_u8(static_cast<std::uint8_t>(direction_quantum(m.direction.y)));
}

void encode_ping(ByteWriter& w, std::uint64_t client_ms) {
    w.write_u8(static_cast<std::uint8_t>(RoomMessage::Ping));
    w.write_varint(client_ms);
}

void encode_truth_query(ByteWriter& w, const TruthQueryMessage& m) {
    assert(m.keys.size() <= kMaxTruthKeys && "room_wire: truth query too long");
    w.write_u8(static_cast<std::uint8_t>(RoomMessage::TruthQuery));
    w.write_varint(m.id);
    write_keys(w, m.keys);
}

void encode_welcome(ByteWriter& w, const WelcomeMessage& m) {
    w.write_u8(static_cast<std::uint8_t>(RoomMessage::Welcome));
    w.write_varint(m.protocol);
    write_string(w, m.build, kMaxBuildBytes);
    write_string(w, m.playground, kMaxPlaygroundBytes);
    w.write_varint(m.seat);
    w.write_varint(m.seats);
    w.write_varint(m.tick_hz);
    write_string(w, m.settings, kMaxSettingsBytes);
}

void encode_refuse(ByteWriter& w, std::string_view reason) {
    w.write_u8(static_cast<std::uint8_t>(RoomMessage::Refuse));
    write_string(w, reason.substr(0, kMaxReasonBytes), kMaxReasonBytes);
}

void encode_pong(ByteWriter& w, const PongMessage& m) {
    w.write_u8(static_cast<std::uint8_t>(RoomMessage::Pong));
    w.write_varint(m.client_ms);
    w.write_varint(m.server_ms);
}

void encode_truth(ByteWriter& w, std::uint32_t id, std::uint64_t server_ms, std::span<const std::uint8_t> alive,
                  std::span<const Vec2> positions) {
    w.write_u8(static_cast<std::uint8_t>(RoomMessage::Truth));
    w.write_varint(id);
    w.write_varint(server_ms);
    w.write_varint(alive.size());
    std::size_t alive_count = 0;
    for (std::size_t i = 0; i < alive.size(); i += 8) {
        std::uint8_t bits = 0;
        for (std::size_t b = 0; b < 8 && i + b < alive.size(); ++b) {
            if (alive[i + b] != 0) {
                bits = static_cast<std::uint8_t>(bits | (1u << b));
                ++alive_count;
            }
        }
        w.write_u8(bits);
    }
    assert(alive_count == positions.size() && "room_wire: one position per alive key");
    for (std::size_t i = 0; i < std::min(alive_count, positions.size()); ++i) w.write_fixed2(positions[i], kTruthStep);
}

void encode_roster(ByteWriter& w, std::span<const RosterEntry> entries) {
    assert(entries.size() <= kMaxRosterSeats && "room_wire: roster too long");
    w.write_u8(static_cast<std::uint8_t>(RoomMessage::Roster));
    w.write_varint(entries.size());
    for (const RosterEntry& e : entries) {
        w.write_varint(e.seat);
        write_string(w, e.name, kMaxNameBytes);
    }
}

void encode_report(ByteWriter& w, const ReportMessage& m) {
    w.write_u8(static_cast<std::uint8_t>(RoomMessage::Report));
    write_meters(w, m);
}

void encode_teacher_hello(ByteWriter& w, const TeacherHelloMessage& m) {
    w.write_u8(static_cast<std::uint8_t>(RoomMessage::TeacherHello));
    w.write_varint(m.protocol);
    write_string(w, m.build, kMaxBuildBytes);
    write_string(w, m.token, kMaxTokenBytes);
}

void encode_follow_hello(ByteWriter& w, std::uint32_t protocol, std::string_view build) {
    w.write_u8(static_cast<std::uint8_t>(RoomMessage::FollowHello));
    w.write_varint(protocol);
    write_string(w, build, kMaxBuildBytes);
}

void encode_command(ByteWriter& w, const CommandMessage& m) {
    w.write_u8(static_cast<std::uint8_t>(RoomMessage::Command));
    w.write_u8(static_cast<std::uint8_t>(m.kind));
    switch (m.kind) {
        case CommandMessage::Kind::Impair:
            w.write_varint(m.seat == kAllSeats ? 0 : std::uint64_t{m.seat} + 1);
            write_impairment(w, m.loss_pct, m.latency_ms, m.jitter_ms);
            break;
        case CommandMessage::Kind::Strategy:
            w.write_u8(m.recovery ? 1 : 0);
            write_setting(w, m.theta, 1000.0);
            write_setting(w, m.view_radius, 10.0);
            break;
        case CommandMessage::Kind::Kick:
            w.write_varint(m.seat);
            break;
        case CommandMessage::Kind::Preset:
            write_string(w, m.text, kMaxPlaygroundBytes * 4);
            break;
        case CommandMessage::Kind::Link:
            write_string(w, m.text, kMaxLinkBytes);
            break;
    }
}

void encode_error(ByteWriter& w, std::string_view reason) {
    w.write_u8(static_cast<std::uint8_t>(RoomMessage::Error));
    write_string(w, reason.substr(0, kMaxReasonBytes), kMaxReasonBytes);
}

void encode_seat_table(ByteWriter& w, const SeatTableMessage& m) {
    assert(m.rows.size() <= kMaxRosterSeats && "room_wire: seat table too long");
    w.write_u8(static_cast<std::uint8_t>(RoomMessage::SeatTable));
    w.write_varint(m.server_ms);
    w.write_u8(m.recovery ? 1 : 0);
    write_setting(w, m.theta, 1000.0);
    write_setting(w, m.view_radius, 10.0);
    write_string(w, m.preset, kMaxPlaygroundBytes * 4);
    w.write_varint(m.rows.size());
    for (const SeatRow& row : m.rows) {
        w.write_varint(row.seat);
        write_string(w, row.name, kMaxNameBytes);
        write_meters(w, row.meters);
        write_impairment(w, row.loss_pct, row.latency_ms, row.jitter_ms);
    }
}

void encode_class_info(ByteWriter& w, const ClassInfoMessage& m) {
    assert(m.urls.size() <= kMaxUrls && m.qr.size() <= kMaxQrRows && "room_wire: class info too long");
    w.write_u8(static_cast<std::uint8_t>(RoomMessage::ClassInfo));
    w.write_varint(m.urls.size());
    for (const std::string& u : m.urls) write_string(w, u, kMaxReasonBytes);
    w.write_varint(m.qr.size());
    for (const std::string& row : m.qr) write_string(w, row, kMaxQrRows);
}

void encode_link(ByteWriter& w, std::string_view hash) {
    w.write_u8(static_cast<std::uint8_t>(RoomMessage::Link));
    write_string(w, hash.substr(0, kMaxLinkBytes), kMaxLinkBytes);
}

WireError decode_client_message(std::span<const std::uint8_t> bytes, ClientMessage& out) {
    ByteReader r(bytes);
    const auto type = static_cast<RoomMessage>(r.read_u8());
    if (!r.ok()) return r.error();
    out.type = type;
    switch (type) {
        case RoomMessage::Hello:
            out.hello.protocol = read_u32_varint(r);
            read_string(r, out.hello.build, kMaxBuildBytes);
            read_string(r, out.hello.playground, kMaxPlaygroundBytes);
            read_string(r, out.hello.name, kMaxNameBytes);
            break;
        case RoomMessage::Ack:
            return WireError::Ok;  // the server half decodes the rest
        case RoomMessage::Input:
            out.input.seq = read_u32_varint(r);
            {
                const std::uint8_t mode = r.read_u8();
                if (r.ok() && mode > 1) r.fail(WireError::OutOfRange);
                out.input.autopilot = mode == 1;
            }
            out.input.direction.x = read_direction(r);
            out.input.direction.y = read_direction(r);
            break;
        case RoomMessage::Ping:
            out.ping_ms = r.read_varint();
            break;
        case RoomMessage::TruthQuery:
            out.truth_query.id = read_u32_varint(r);
            read_keys(r, out.truth_query.keys, kMaxTruthKeys);
            break;
        case RoomMessage::Report:
            read_meters(r, out.report);
            break;
        case RoomMessage::TeacherHello:
            out.teacher.protocol = read_u32_varint(r);
            read_string(r, out.teacher.build, kMaxBuildBytes);
            read_string(r, out.teacher.token, kMaxTokenBytes);
            break;
        case RoomMessage::FollowHello:
            out.follow.protocol = read_u32_varint(r);
            read_string(r, out.follow.build, kMaxBuildBytes);
            break;
        case RoomMessage::Command: {
            CommandMessage& c = out.command;
            const std::uint8_t kind = r.read_u8();
            if (!r.ok()) break;
            if (kind < 1 || kind > 5) {
                r.fail(WireError::OutOfRange);
                break;
            }
            c.kind = static_cast<CommandMessage::Kind>(kind);
            switch (c.kind) {
                case CommandMessage::Kind::Impair: {
                    const std::uint64_t seat = r.read_varint_max(kMaxRosterSeats);
                    c.seat = seat == 0 ? kAllSeats : static_cast<std::uint32_t>(seat - 1);
                    read_impairment(r, c.loss_pct, c.latency_ms, c.jitter_ms);
                    break;
                }
                case CommandMessage::Kind::Strategy: {
                    const std::uint8_t recovery = r.read_u8();
                    if (r.ok() && recovery > 1) r.fail(WireError::OutOfRange);
                    c.recovery = recovery == 1;
                    c.theta = read_setting(r, 1000.0, 2.0);
                    c.view_radius = read_setting(r, 10.0, 1500.0);
                    if (r.ok() && c.view_radius < 100.0) r.fail(WireError::OutOfRange);
                    break;
                }
                case CommandMessage::Kind::Kick:
                    c.seat = read_u32_varint(r, kMaxRosterSeats - 1);
                    break;
                case CommandMessage::Kind::Preset:
                    read_string(r, c.text, kMaxPlaygroundBytes * 4);
                    break;
                case CommandMessage::Kind::Link:
                    read_string(r, c.text, kMaxLinkBytes);
                    break;
            }
            break;
        }
        default:
            return WireError::UnknownType;
    }
    r.finish();
    return r.error();
}

namespace {
bool expect_type(ByteReader& r, RoomMessage type) {
    const std::uint8_t t = r.read_u8();
    if (r.ok() && t != static_cast<std::uint8_t>(type)) r.fail(WireError::UnknownType);
    return r.ok();
}
}  // namespace

WireError decode_welcome(std::span<const std::uint8_t> bytes, WelcomeMessage& out) {
    ByteReader r(bytes);
    if (!expect_type(r, RoomMessage::Welcome)) return r.error();
    out.protocol = read_u32_varint(r);
    read_string(r, out.build, kMaxBuildBytes);
    read_string(r, out.playground, kMaxPlaygroundBytes);
    out.seat = read_u32_varint(r, kMaxRosterSeats);
    out.seats = read_u32_varint(r, kMaxRosterSeats);
    out.tick_hz = read_u32_varint(r, 1000);
    read_string(r, out.settings, kMaxSettingsBytes);
    if (r.ok() && (out.seats == 0 || out.seat >= out.seats || out.tick_hz == 0)) r.fail(WireError::Malformed);
    r.finish();
    return r.error();
}

WireError decode_refuse(std::span<const std::uint8_t> bytes, std::string& reason) {
    ByteReader r(bytes);
    if (!expect_type(r, RoomMessage::Refuse)) return r.error();
    read_string(r, reason, kMaxReasonBytes);
    r.finish();
    return r.error();
}

WireError decode_pong(std::span<const std::uint8_t> bytes, PongMessage& out) {
    ByteReader r(bytes);
    if (!expect_type(r, RoomMessage::Pong)) return r.error();
    out.client_ms = r.read_varint();
    out.server_ms = r.read_varint();
    r.finish();
    return r.error();
}

WireError decode_truth(std::span<const std::uint8_t> bytes, TruthMessage& out) {
    ByteReader r(bytes);
    if (!expect_type(r, RoomMessage::Truth)) return r.error();
    out.id = read_u32_varint(r);
    out.server_ms = r.read_varint();
    const std::size_t n = static_cast<std::size_t>(r.read_varint_max(kMaxTruthKeys));
    if (!r.ok()) return r.error();
    if ((n + 7) / 8 > r.remaining()) return WireError::TooMany;
    out.alive.assign(n, false);
    std::size_t alive_count = 0;
    for (std::size_t i = 0; i < n; i += 8) {
        const std::uint8_t bits = r.read_u8();
        for (std::size_t b = 0; b < 8; ++b) {
            const bool set = (bits >> b) & 1u;
            if (i + b < n) {
                out.alive[i + b] = set;
                alive_count += set ? 1 : 0;
            } else if (set) {
                r.fail(WireError::Malformed);  // padding bits must be zero
            }
        }
    }
    if (!r.ok()) return r.error();
    if (alive_count * 2 > r.remaining()) return WireError::Truncated;  // each position takes >= 2 bytes
    out.positions.resize(alive_count);
    for (std::size_t i = 0; i < alive_count && r.ok(); ++i) out.positions[i] = r.read_fixed2(kTruthStep);
    r.finish();
    return r.error();
}

WireError decode_roster(std::span<const std::uint8_t> bytes, std::vector<RosterEntry>& out) {
    ByteReader r(bytes);
    if (!expect_type(r, RoomMessage::Roster)) return r.error();
    const std::size_t n = r.read_count(kMaxRosterSeats, 2);
    out.resize(r.ok() ? n : 0);
    for (std::size_t i = 0; i < out.size() && r.ok(); ++i) {
        out[i].seat = read_u32_varint(r, kMaxRosterSeats);
        read_string(r, out[i].name, kMaxNameBytes);
    }
    r.finish();
    return r.error();
}

std::string sanitize_name(std::string_view name) {
    std::string out;
    bool space = false;
    for (char c : name) {
        if (out.size() >= kMaxNameBytes) break;
        const bool printable = c >= 0x21 && c <= 0x7e;
        if (!printable) {
            space = !out.empty();
            continue;
        }
        if (space && out.size() + 1 < kMaxNameBytes) out.push_back(' ');
        space = false;
        out.push_back(c == '<' || c == '>' || c == '&' || c == '"' ? '?' : c);
    }
    return out.empty() ? std::string("player") : out;
}

WireError decode_error(std::span<const std::uint8_t> bytes, std::string& reason) {
    ByteReader r(bytes);
    if (!expect_type(r, RoomMessage::Error)) return r.error();
    read_string(r, reason, kMaxReasonBytes);
    r.finish();
    return r.error();
}

WireError decode_seat_table(std::span<const std::uint8_t> bytes, SeatTableMessage& out) {
    ByteReader r(bytes);
    if (!expect_type(r, RoomMessage::SeatTable)) return r.error();
    out.server_ms = r.read_varint();
    const std::uint8_t recovery = r.read_u8();
    if (r.ok() && recovery > 1) r.fail(WireError::OutOfRange);
    out.recovery = recovery == 1;
    out.theta = read_setting(r, 1000.0, 2.0);
    out.view_radius = read_setting(r, 10.0, 1500.0);
    read_string(r, out.preset, kMaxPlaygroundBytes * 4);
    const std::size_t n = r.read_count(kMaxRosterSeats, 10);
    out.rows.resize(r.ok() ? n : 0);
    for (std::size_t i = 0; i < out.rows.size() && r.ok(); ++i) {
        SeatRow& row = out.rows[i];
        row.seat = read_u32_varint(r, kMaxRosterSeats - 1);
        read_string(r, row.name, kMaxNameBytes);
        read_meters(r, row.meters);
        read_impairment(r, row.loss_pct, row.latency_ms, row.jitter_ms);
    }
    r.finish();
    return r.error();
}

WireError decode_class_info(std::span<const std::uint8_t> bytes, ClassInfoMessage& out) {
    ByteReader r(bytes);
    if (!expect_type(r, RoomMessage::ClassInfo)) return r.error();
    const std::size_t urls = r.read_count(kMaxUrls, 1);
    out.urls.resize(r.ok() ? urls : 0);
    for (std::string& u : out.urls) read_string(r, u, kMaxReasonBytes);
    const std::size_t rows = r.read_count(kMaxQrRows, 1);
    out.qr.resize(r.ok() ? rows : 0);
    for (std::string& row : out.qr) {
        read_string(r, row, kMaxQrRows);
        if (r.ok() && (row.size() != out.qr.size() || row.find_first_not_of("01") != std::string::npos)) {
            r.fail(WireError::Malformed);  // square, '0' and '1' only
        }
    }
    r.finish();
    return r.error();
}

WireError decode_link(std::span<const std::uint8_t> bytes, std::string& hash) {
    ByteReader r(bytes);
    if (!expect_type(r, RoomMessage::Link)) return r.error();
    read_string(r, hash, kMaxLinkBytes);
    r.finish();
    return r.error();
}

}  // namespace vantage::play
