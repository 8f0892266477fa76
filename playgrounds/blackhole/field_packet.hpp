// FieldPacket: what the black-hole server sends one client per send round, and its
// byte-exact encoding.
//
// The client integrates every pellet itself, so the packet carries the *field* (the
// attractors the client should integrate with: real holes and, in the aggregated lane,
// cluster stand-ins), the pellets that respawned since the last round, and a round-robin
// slice of pellet corrections. Bandwidth meters count exactly the bytes encode() produces,
// and the field share is the bytes of the two attractor sections.
//
// Wire format (all integers little-endian; varint = LEB128, shortest form):
//
//   u8      kind = 0xB1
//   varint  sequence            per client, increasing; older packets are ignored
//   varint  server_time_ms      the server time the states below describe (< 2^32)
//   varint  hole count (<= 64), then per hole:        u8 id, u16 x, u16 y, varint weight4
//   varint  cluster count (<= 64), then per cluster:  u16 x, u16 y, varint weight4
//   varint  spawned count, then per pellet:           u16 id, u16 x, u16 y, i16 vx, i16 vy
//   varint  correction count, then the same records
//
// x, y: position over the arena [0, kArenaSize] in 65535 steps (0.046 units); values off the
// arena clamp to its edge. weight4: round(weight * 4), a weight from 0 to 2^22 (4,194,304; a larger
// one clamps to it, a larger weight4 is refused: every quarter up to it is exact in a float).
// vx, vy: velocity in quarter units per second, clamped to +-8191.75 (the quantum -32768 is never
// written, and refused). A hole record is 6-9 bytes, a cluster 5-8, a pellet 10 (the reference
// game's model: 7, 6 and 11; core/docs/background.md).
//
// A packet is at most kMaxFieldPacketBytes (one datagram): the server sends the field, then the
// respawns and corrections that fit (respawns that do not wait for the next packet), and both
// ends refuse a longer packet (TooLarge). The field alone always fits (64 holes and 64 clusters
// take at most 1,090 bytes with their counts and every weight at its ceiling; a real field is a
// few hundred).
//
// Bad input: decode() returns the first WireError (unknown kind, truncation, a count above
// its limit or the bytes left, an id out of range, a non-canonical varint, trailing bytes)
// and the packet must then be dropped; it never reads out of bounds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/wire_trace.hpp"
#include "vantage/aggregate_tree.hpp"
#include "vantage/byte_io.hpp"
#include "vantage/vec.hpp"

namespace vantage::play {

inline constexpr float kArenaSize = 3000.0f;  // world units, the square arena [0, 3000]^2
inline constexpr std::size_t kMaxHoles = 64;
inline constexpr std::uint8_t kFieldPacketKind = 0xB1;
inline constexpr std::size_t kMaxFieldPacketBytes = 1200;  // a whole packet, bytes
inline constexpr std::size_t kFieldPelletBytes = 10;       // one spawned or correction record

struct HoleState {
    std::uint8_t id = 0;  // index of the hole, < kMaxHoles
    Vec2 position;
    float weight = 0.0f;  // effective mass: what the field is computed from
};

struct PelletState {
    std::uint16_t id = 0;  // index of the pellet, < the world's pellet count
    Vec2 position;
    Vec2 velocity;  // units/s
};

struct FieldPacket {
    std::uint32_t sequence = 0;
    std::uint32_t server_time_ms = 0;
    std::vector<HoleState> holes;         // sent exactly
    std::vector<WeightedPoint> clusters;  // stand-ins for groups of holes
    std::vector<PelletState> spawned;     // pellets that respawned since the last round
    std::vector<PelletState> corrections;

    void clear();
};

// Bytes one encode produced: the whole packet, and the hole and cluster sections in it.
struct PacketBytes {
    std::size_t total = 0;
    std::size_t field = 0;
    bool ok = true;  // false: longer than kMaxFieldPacketBytes, not to be sent
};

// Replaces the writer's contents with the packet. Counts above the format's limits are
// misuse (asserted).
PacketBytes encode_field_packet(const FieldPacket& packet, ByteWriter& out);

// Replaces `out` with the packet in `bytes`; pellet ids must be below max_pellets.
// Returns WireError::Ok on success; on any error `out` is unspecified and must be ignored.
// With a `trace`, it also narrates every field it read for the packet inspector (cleared
// first; on an error the fields up to the one that failed, then "end" with the reason).
WireError decode_field_packet(std::span<const std::uint8_t> bytes, std::size_t max_pellets, FieldPacket& out,
                              std::vector<WireField>* trace = nullptr);

// The join state: what a room sends a black-hole client once, right after the welcome (the
// page's lanes hand their clients the same thing in memory). Every pellet, in id order:
//
//   u8      kind = 0x47 ('G')
//   varint  server_time_ms      the server time the states describe (< 2^32)
//   varint  pellet count (1 .. 65536), then per pellet: u16 id (= its index), u16 x, u16 y,
//           i16 vx, i16 vy (the FieldPacket's pellet record)
inline constexpr std::uint8_t kJoinStateKind = 0x47;
inline constexpr std::size_t kMaxPellets = 65536;

struct JoinState {
    std::uint32_t server_time_ms = 0;
    std::vector<Vec2> positions;
    std::vector<Vec2> velocities;
};

// Replaces the writer's contents; positions and velocities have one entry per pellet.
void encode_join_state(std::uint32_t server_time_ms, std::span<const Vec2> positions, std::span<const Vec2> velocities,
                       ByteWriter& out);
// Refuses (WireError) anything encode_join_state would not write: no pellets, more than
// kMaxPellets, an id that is not its index, truncation, trailing bytes.
WireError decode_join_state(std::span<const std::uint8_t> bytes, JoinState& out);

}  // namespace vantage::play
