#include "netcode/netcode_wire.hpp"

#include <cassert>
#include <cmath>
#include <cstdio>

namespace vantage::play {

std::uint64_t time_to_wire(double ms) {
    assert(std::isfinite(ms) && "time_to_wire: time must be finite");
    if (!(ms > 0.0)) return 0;
    return static_cast<std::uint64_t>(std::llround(ms / kTimeQuantum));
}

namespace {

void write_time(ByteWriter& out, double ms) {
    out.write_varint(time_to_wire(ms));
}
// Units beyond 2^53 do not survive the trip through a double, so the encoder could not
// write them back: refused (found by the fuzz target; no clock comes near it).
constexpr std::uint64_t kMaxTimeUnits = std::uint64_t{1} << 53;
double read_time(ByteReader& in) {
    const std::uint64_t units = in.read_varint();
    if (units > kMaxTimeUnits && in.ok()) in.fail(WireError::OutOfRange);
    return time_from_wire(units > kMaxTimeUnits ? 0 : units);
}

std::uint8_t axis_to_wire(std::int8_t v) {
    return static_cast<std::uint8_t>(v);
}
// -128 is not a direction (the axis is symmetric): refused rather than clamped.
std::int8_t axis_from_wire(ByteReader& in) {
    const std::uint8_t b = in.read_u8();
    if (b == 0x80) in.fail(WireError::OutOfRange);
    return b == 0x80 ? std::int8_t{0} : static_cast<std::int8_t>(b);
}

std::string ms_text(double ms) {
    return wire_ms_text(ms);  // exact: whole 1/16 ms
}
std::string vec_text(Vec2 v) {
    return wire_vec_text(v, "px");
}

}  // namespace

void encode_input(ByteWriter& out, const InputPacket& p) {
    out.clear();
    out.write_u8(kInputType);
    write_time(out, p.client_time_ms);
    write_time(out, p.echo_server_ms);
    write_time(out, p.echo_hold_ms);
    assert(p.inputs.size() <= kMaxInputsPerPacket && "encode_input: too many inputs");
    assert(p.shots.size() <= kMaxShotsPerPacket && "encode_input: too many shots");
    out.write_varint(p.inputs.size());
    if (!p.inputs.empty()) out.write_varint(p.first_seq);
    for (const MoveInput& m : p.inputs) {
        out.write_u8(axis_to_wire(m.dx));
        out.write_u8(axis_to_wire(m.dy));
        out.write_varint(m.duration_units);
    }
    out.write_varint(p.shots.size());
    for (const ShotMsg& s : p.shots) {
        out.write_varint(s.id);
        write_time(out, s.aim_time_ms);
        out.write_fixed2(s.aim, kPositionStep);
    }
}

void InputPacket::clear() {
    client_time_ms = echo_server_ms = echo_hold_ms = 0.0;
    first_seq = 0;
    inputs.clear();
    shots.clear();
}

void StatePacket::clear() {
    server_time_ms = echo_client_ms = echo_hold_ms = 0.0;
    acked_seq = shot_ack = 0;
    player = {};
    bots.clear();
    verdicts.clear();
}

WireError decode_input(std::span<const std::uint8_t> bytes, InputPacket& out, std::vector<WireField>* trace) {
    out.clear();  // keeps the lists' capacity: a steady stream decodes without allocating
    ByteReader in(bytes);
    WireNarrator n(trace, in);
    if (in.read_u8() != kInputType && in.ok()) in.fail(WireError::UnknownType);
    n.field("type", [] { return std::string("'U': input"); });
    out.client_time_ms = read_time(in);
    n.field("client_time", [&] { return ms_text(out.client_time_ms); });
    out.echo_server_ms = read_time(in);
    n.field("echo_server_time", [&] { return ms_text(out.echo_server_ms); });
    out.echo_hold_ms = read_time(in);
    n.field("echo_hold", [&] { return ms_text(out.echo_hold_ms); });
    const std::size_t inputs = in.read_count(kMaxInputsPerPacket, 3);
    n.field("input_count", [&] { return wire_int_text(inputs); });
    if (inputs > 0) {
        out.first_seq = in.read_varint_u32();
        // Sequences start at 1 and the last one must still fit 32 bits.
        if (in.ok() && (out.first_seq == 0 || out.first_seq > UINT32_MAX - (inputs - 1)))
            in.fail(WireError::OutOfRange);
        n.field("first_seq", [&] { return "#" + wire_int_text(out.first_seq); });
    }
    out.inputs.reserve(inputs);
    for (std::size_t i = 0; i < inputs && in.ok(); ++i) {
        MoveInput m;
        m.dx = axis_from_wire(in);
        m.dy = axis_from_wire(in);
        n.field_named([&] { return "input #" + wire_int_text(out.first_seq + i) + " direction"; },
                      [&] { return "(" + std::to_string(m.dx) + ", " + std::to_string(m.dy) + ") / 127"; });
        m.duration_units = static_cast<std::uint16_t>(in.read_varint_max(UINT16_MAX));
        n.field_named([&] { return "input #" + wire_int_text(out.first_seq + i) + " held"; },
                      [&] { return ms_text(m.duration_ms()); });
        out.inputs.push_back(m);
    }
    const std::size_t shots = in.read_count(kMaxShotsPerPacket, 4);
    n.field("shot_count", [&] { return wire_int_text(shots); });
    out.shots.reserve(shots);
    for (std::size_t i = 0; i < shots && in.ok(); ++i) {
        ShotMsg s;
        s.id = in.read_varint_u32();
        n.field("shot id", [&] { return wire_int_text(s.id); });
        s.aim_time_ms = read_time(in);
        n.field("shot aim_time", [&] { return ms_text(s.aim_time_ms); });
        s.aim = in.read_fixed2(kPositionStep);
        if (in.ok() && (s.id == 0 || (!out.shots.empty() && s.id <= out.shots.back().id)))
            in.fail(WireError::NotAscending);
        n.field("shot aim", [&] { return vec_text(s.aim); });
        out.shots.push_back(s);
    }
    if (!in.finish()) {
        n.error();
        out.clear();
        return in.error();
    }
    return WireError::Ok;
}

void encode_state(ByteWriter& out, const StatePacket& p) {
    out.clear();
    out.write_u8(kStateType);
    write_time(out, p.server_time_ms);
    out.write_varint(p.acked_seq);
    write_time(out, p.echo_client_ms);
    write_time(out, p.echo_hold_ms);
    out.write_fixed2(p.player, kPositionStep);
    assert(p.bots.size() <= kMaxBots && "encode_state: too many bots");
    assert(p.verdicts.size() <= kMaxVerdicts && "encode_state: too many verdicts");
    out.write_varint(p.bots.size());
    for (Vec2 b : p.bots) out.write_fixed2(b, kPositionStep);
    out.write_varint(p.shot_ack);
    out.write_varint(p.verdicts.size());
    for (const ShotVerdict& v : p.verdicts) {
        out.write_varint(v.id);
        out.write_u8(static_cast<std::uint8_t>((v.hit_rewound ? 1u : 0u) | (v.hit_present ? 2u : 0u)));
        out.write_fixed2(v.rewound, kPositionStep);
    }
}

WireError decode_state(std::span<const std::uint8_t> bytes, StatePacket& out, std::vector<WireField>* trace) {
    out.clear();  // keeps the lists' capacity: a steady stream decodes without allocating
    ByteReader in(bytes);
    WireNarrator n(trace, in);
    if (in.read_u8() != kStateType && in.ok()) in.fail(WireError::UnknownType);
    n.field("type", [] { return std::string("'S': state"); });
    out.server_time_ms = read_time(in);
    n.field("server_time", [&] { return ms_text(out.server_time_ms); });
    out.acked_seq = in.read_varint_u32();
    n.field("acked_seq", [&] { return "#" + wire_int_text(out.acked_seq); });
    out.echo_client_ms = read_time(in);
    n.field("echo_client_time", [&] { return ms_text(out.echo_client_ms); });
    out.echo_hold_ms = read_time(in);
    n.field("echo_hold", [&] { return ms_text(out.echo_hold_ms); });
    out.player = in.read_fixed2(kPositionStep);
    n.field("player", [&] { return vec_text(out.player); });
    const std::size_t bots = in.read_count(kMaxBots, 2);
    n.field("bot_count", [&] { return wire_int_text(bots); });
    out.bots.reserve(bots);
    for (std::size_t i = 0; i < bots && in.ok(); ++i) {
        out.bots.push_back(in.read_fixed2(kPositionStep));
        n.field_named([&] { return "bot " + wire_int_text(i); }, [&] { return vec_text(out.bots.back()); });
    }
    out.shot_ack = in.read_varint_u32();
    n.field("shot_ack", [&] { return wire_int_text(out.shot_ack); });
    const std::size_t verdicts = in.read_count(kMaxVerdicts, 4);
    n.field("verdict_count", [&] { return wire_int_text(verdicts); });
    out.verdicts.reserve(verdicts);
    for (std::size_t i = 0; i < verdicts && in.ok(); ++i) {
        ShotVerdict v;
        v.id = in.read_varint_u32();
        n.field("verdict shot id", [&] { return wire_int_text(v.id); });
        const std::uint8_t flags = in.read_u8();
        if (in.ok() && (flags & ~3u) != 0) in.fail(WireError::Malformed);
        v.hit_rewound = (flags & 1u) != 0;
        v.hit_present = (flags & 2u) != 0;
        n.field("verdict flags", [&] {
            return std::string(v.hit_rewound ? "hit rewound" : "miss rewound") + ", " +
                   (v.hit_present ? "hit present" : "miss present");
        });
        v.rewound = in.read_fixed2(kPositionStep);
        n.field("verdict rewound target", [&] { return vec_text(v.rewound); });
        out.verdicts.push_back(v);
    }
    if (!in.finish()) {
        n.error();
        out.clear();
        return in.error();
    }
    return WireError::Ok;
}

}  // namespace vantage::play
