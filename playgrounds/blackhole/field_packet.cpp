#include "blackhole/field_packet.hpp"

#include <bit>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <string>

namespace vantage::play {
namespace {

constexpr float kPositionSteps = 65535.0f;
constexpr float kVelocityStep = 0.25f;  // units/s per quantum
// weight4 ceiling: a weight of 2^22, so every quarter up to it is exact in a float and an
// accepted weight re-encodes to its own quanta (the field's real weights are a few thousand).
constexpr std::uint64_t kMaxWeight4 = 1ULL << 24;
constexpr std::size_t kHoleMinBytes = 6;
constexpr std::size_t kClusterMinBytes = 5;
constexpr std::size_t kPelletBytes = kFieldPelletBytes;

std::uint16_t quantize_coordinate(float v) {
    if (!(v > 0.0f)) return 0;  // NaN and anything below the arena go to its edge
    const float q = std::round(v / kArenaSize * kPositionSteps);
    return q >= kPositionSteps ? std::uint16_t{65535} : static_cast<std::uint16_t>(q);
}

float dequantize_coordinate(std::uint16_t q) {
    return static_cast<float>(q) / kPositionSteps * kArenaSize;
}

std::uint16_t quantize_velocity(float v) {
    float q = std::isfinite(v) ? std::round(v / kVelocityStep) : 0.0f;
    if (q > 32767.0f) q = 32767.0f;
    if (q < -32767.0f) q = -32767.0f;
    return static_cast<std::uint16_t>(static_cast<std::int16_t>(q));
}

float dequantize_velocity(std::uint16_t q) {
    return static_cast<float>(static_cast<std::int16_t>(q)) * kVelocityStep;
}

// A velocity component; -32768 quanta is refused (the encoder clamps to +-32767), so every
// packet the decoder accepts is one the encoder writes.
float read_velocity(ByteReader& in) {
    const std::uint16_t q = in.read_u16();
    if (q == 0x8000u) in.fail(WireError::OutOfRange);
    return dequantize_velocity(q);
}

std::uint64_t quantize_weight(float w) {
    if (!(w > 0.0f)) return 0;
    const double q = std::round(static_cast<double>(w) * 4.0);
    return q >= static_cast<double>(kMaxWeight4) ? kMaxWeight4 : static_cast<std::uint64_t>(q);
}

void write_position(ByteWriter& out, Vec2 p) {
    out.write_u16(quantize_coordinate(p.x));
    out.write_u16(quantize_coordinate(p.y));
}

Vec2 read_position(ByteReader& in) {
    const std::uint16_t x = in.read_u16();
    const std::uint16_t y = in.read_u16();
    return {dequantize_coordinate(x), dequantize_coordinate(y)};
}

void write_pellets(ByteWriter& out, const std::vector<PelletState>& pellets) {
    out.write_varint(pellets.size());
    for (const PelletState& p : pellets) {
        out.write_u16(p.id);
        write_position(out, p.position);
        out.write_u16(quantize_velocity(p.velocity.x));
        out.write_u16(quantize_velocity(p.velocity.y));
    }
}

// Capacity grown to a power of two, not to each packet's count, so a client fed packets that
// creep upwards stops allocating after a few growths.
template <class T>
void resize_geometric(std::vector<T>& v, std::size_t n) {
    if (v.capacity() < n) v.reserve(std::bit_ceil(n));
    v.resize(n);
}

// Positions to a tenth (the quantum is 0.046 units), velocities exactly (quarter units).
std::string position_text(Vec2 p) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "(%.1f, %.1f)", static_cast<double>(p.x), static_cast<double>(p.y));
    return buf;
}
std::string velocity_text(Vec2 v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "(%.2f, %.2f) u/s", static_cast<double>(v.x), static_cast<double>(v.y));
    return buf;
}

std::string weight_text(float w) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.10g", static_cast<double>(w));  // exact: whole quarters
    return buf;
}

// One list of pellet records; `what` names it in the narration ("spawned", "corrections").
void read_pellets(ByteReader& in, std::size_t max_pellets, std::vector<PelletState>& out, WireNarrator& n,
                  const char* what) {
    const std::size_t count = in.read_count(max_pellets, kPelletBytes);
    n.field_named([&] { return std::string(what) + " count"; }, [&] { return wire_int_text(count); });
    resize_geometric(out, count);
    for (std::size_t i = 0; i < count && in.ok(); ++i) {
        PelletState& p = out[i];
        const std::uint16_t id = in.read_u16();
        if (id >= max_pellets && in.ok()) in.fail(WireError::OutOfRange);
        p.id = id;
        p.position = read_position(in);
        const float vx = read_velocity(in);
        p.velocity = {vx, read_velocity(in)};
        n.field_named([&] { return std::string(what) + "[" + wire_int_text(i) + "]"; },
                      [&] {
                          return "pellet " + wire_int_text(id) + " at " + position_text(p.position) + ", moving " +
                                 velocity_text(p.velocity);
                      });
    }
}

}  // namespace

void FieldPacket::clear() {
    sequence = 0;
    server_time_ms = 0;
    holes.clear();
    clusters.clear();
    spawned.clear();
    corrections.clear();
}

PacketBytes encode_field_packet(const FieldPacket& packet, ByteWriter& out) {
    assert(packet.holes.size() <= kMaxHoles && "encode_field_packet: more holes than the format holds");
    assert(packet.clusters.size() <= kMaxHoles && "encode_field_packet: more clusters than the format holds");
    assert(packet.spawned.size() <= 65536 && packet.corrections.size() <= 65536 &&
           "encode_field_packet: more pellets than 16-bit ids name");
    out.clear();
    out.write_u8(kFieldPacketKind);
    out.write_varint(packet.sequence);
    out.write_varint(packet.server_time_ms);
    const std::size_t field_start = out.size();
    out.write_varint(packet.holes.size());
    for (const HoleState& h : packet.holes) {
        out.write_u8(h.id);
        write_position(out, h.position);
        out.write_varint(quantize_weight(h.weight));
    }
    out.write_varint(packet.clusters.size());
    for (const WeightedPoint& c : packet.clusters) {
        write_position(out, c.position());
        out.write_varint(quantize_weight(c.weight));
    }
    const std::size_t field_end = out.size();
    write_pellets(out, packet.spawned);
    write_pellets(out, packet.corrections);
    return {out.size(), field_end - field_start, out.ok() && out.size() <= kMaxFieldPacketBytes};
}

WireError decode_field_packet(std::span<const std::uint8_t> bytes, std::size_t max_pellets, FieldPacket& out,
                              std::vector<WireField>* trace) {
    if (trace) trace->clear();
    if (bytes.size() > kMaxFieldPacketBytes) return WireError::TooLarge;
    ByteReader in(bytes);
    WireNarrator n(trace, in);
    if (in.read_u8() != kFieldPacketKind && in.ok()) in.fail(WireError::UnknownType);
    n.field("kind", [] { return std::string("0xB1: field packet"); });
    out.sequence = in.read_varint_u32();
    n.field("sequence", [&] { return "#" + wire_int_text(out.sequence); });
    out.server_time_ms = in.read_varint_u32();
    n.field("server_time", [&] { return wire_ms_text(out.server_time_ms); });
    const std::size_t holes = in.read_count(kMaxHoles, kHoleMinBytes);
    n.field("hole count", [&] { return wire_int_text(holes); });
    resize_geometric(out.holes, holes);
    for (std::size_t i = 0; i < holes && in.ok(); ++i) {
        HoleState& h = out.holes[i];
        h.id = in.read_u8();
        if (h.id >= kMaxHoles && in.ok()) in.fail(WireError::OutOfRange);
        h.position = read_position(in);
        h.weight = static_cast<float>(static_cast<double>(in.read_varint_max(kMaxWeight4)) / 4.0);
        n.field_named([&] { return "holes[" + wire_int_text(i) + "]"; },
                      [&] {
                          return "hole " + wire_int_text(h.id) + " at " + position_text(h.position) + ", weight " +
                                 weight_text(h.weight);
                      });
    }
    const std::size_t clusters = in.read_count(kMaxHoles, kClusterMinBytes);
    n.field("cluster count", [&] { return wire_int_text(clusters); });
    resize_geometric(out.clusters, clusters);
    for (std::size_t i = 0; i < clusters && in.ok(); ++i) {
        const Vec2 p = read_position(in);
        WeightedPoint& c = out.clusters[i];
        c = {p.x, p.y, static_cast<float>(static_cast<double>(in.read_varint_max(kMaxWeight4)) / 4.0)};
        n.field_named([&] { return "clusters[" + wire_int_text(i) + "]"; },
                      [&] { return "stand-in at " + position_text(p) + ", weight " + weight_text(c.weight); });
    }
    read_pellets(in, max_pellets, out.spawned, n, "spawned");
    read_pellets(in, max_pellets, out.corrections, n, "corrections");
    in.finish();
    n.error();
    return in.error();
}

void encode_join_state(std::uint32_t server_time_ms, std::span<const Vec2> positions, std::span<const Vec2> velocities,
                       ByteWriter& out) {
    assert(positions.size() == velocities.size() && !positions.empty() && positions.size() <= kMaxPellets &&
           "encode_join_state: one position and one velocity per pellet, 1 to 65536 pellets");
    out.clear();
    out.write_u8(kJoinStateKind);
    out.write_varint(server_time_ms);
    out.write_varint(positions.size());
    for (std::size_t i = 0; i < positions.size(); ++i) {
        out.write_u16(static_cast<std::uint16_t>(i));
        write_position(out, positions[i]);
        out.write_u16(quantize_velocity(velocities[i].x));
        out.write_u16(quantize_velocity(velocities[i].y));
    }
}

WireError decode_join_state(std::span<const std::uint8_t> bytes, JoinState& out) {
    ByteReader in(bytes);
    if (in.read_u8() != kJoinStateKind && in.ok()) in.fail(WireError::UnknownType);
    out.server_time_ms = in.read_varint_u32();
    const std::size_t n = in.read_count(kMaxPellets, kPelletBytes);
    if (in.ok() && n == 0) in.fail(WireError::OutOfRange);
    out.positions.resize(n);
    out.velocities.resize(n);
    for (std::size_t i = 0; i < n && in.ok(); ++i) {
        if (in.read_u16() != static_cast<std::uint16_t>(i) && in.ok()) in.fail(WireError::OutOfRange);
        out.positions[i] = read_position(in);
        const float vx = read_velocity(in);
        out.velocities[i] = {vx, read_velocity(in)};
    }
    in.finish();
    return in.error();
}

}  // namespace vantage::play
