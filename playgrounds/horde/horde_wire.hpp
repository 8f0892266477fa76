// The horde packet: everything one client is sent in one frame, as bytes.
//
// A frame carries the membership delta (core's DeltaFrame: entered keys with their spawn
// positions, left keys, the set digest), the players' positions, round-robin corrections
// ("samples") of enemies the client already holds, and optionally crowd summaries of the
// world outside its view. Bandwidth meters count exactly these bytes.
//
//   u8      'H' (0x48)
//   varint  server time of the frame, ms
//   varint  length of the delta frame, then the DeltaFrame (core/docs/delta.md)
//   varint  player count (<= 128), then per player x, y fixed-point at 1/16
//   varint  sample count, then per sample: varint index gap (the first is the index itself,
//           later ones index - previous index, >= 1), varint generation (<= 65535),
//           x, y fixed-point at 1/16
//   varint  crowd count, then per blob: x, y fixed-point at 4 units, varint headcount (>= 1)
//   nothing after (TrailingBytes otherwise)
//
// A whole packet is at most kMaxHordePacketBytes (one datagram); the server fits it by planning
// the delta into what the players and crowd leave and filling the rest with corrections, and
// both ends refuse a longer one (TooLarge).
//
// Decoding is validation: a bad packet returns a WireError and the client drops it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "vantage/byte_io.hpp"
#include "vantage/delta_wire.hpp"
#include "vantage/vec.hpp"

namespace vantage::play {

inline constexpr std::uint8_t kHordePacketType = 0x48;  // 'H'
inline constexpr float kSampleStep = 1.0f / 16.0f;      // world units
inline constexpr float kCrowdStep = 4.0f;               // world units
inline constexpr std::size_t kMaxHordePlayers = 128;
inline constexpr std::size_t kMaxHordePacketBytes = 1200;  // the whole packet, bytes
// Upper bounds of one position's bytes for coordinates within two arenas of the origin
// (WireOptions::position_bytes_bound; pinned by HordeWire tests).
inline constexpr std::size_t kHordePositionBytes = 6;  // at kSampleStep: 3 bytes per coordinate
inline constexpr std::size_t kCrowdPositionBytes = 4;  // at kCrowdStep: 2 bytes per coordinate

struct HordeSample {
    std::uint64_t key = 0;  // packed SlotKey
    Vec2 position;
};

struct CrowdBlob {
    Vec2 position;
    std::uint32_t count = 0;  // enemies it stands for
};

struct HordePacket {
    std::uint64_t time_ms = 0;
    DeltaFrame delta;
    std::vector<Vec2> players;
    std::vector<HordeSample> samples;  // ascending slot index, one per slot
    std::vector<CrowdBlob> crowd;
};

// Bytes of each part of an encoded packet (they sum to the packet's size).
struct HordePacketBytes {
    std::size_t header = 0;      // type, time, the delta frame's length prefix
    std::size_t membership = 0;  // the DeltaFrame
    std::size_t players = 0;
    std::size_t samples = 0;
    std::size_t crowd = 0;
    // false when a position could not be encoded (NaN, out of range) or the packet is longer
    // than kMaxHordePacketBytes: do not send
    bool ok = true;
    std::size_t total() const { return header + membership + players + samples + crowd; }
};

// Encodes into w (cleared first); `scratch` holds the nested delta frame. Samples must be in
// ascending slot index with distinct slots (asserted). Send only when the result is ok.
HordePacketBytes encode_horde_packet(ByteWriter& w, ByteWriter& scratch, std::uint64_t time_ms, const DeltaPlan& plan,
                                     std::span<const Vec2> entered_positions, std::span<const Vec2> players,
                                     std::span<const HordeSample> samples, std::span<const CrowdBlob> crowd);
// The same around a membership frame already encoded (DeltaStream::frame wrote it).
HordePacketBytes encode_horde_packet(ByteWriter& w, std::span<const std::uint8_t> delta_frame, std::uint64_t time_ms,
                                     std::span<const Vec2> players, std::span<const HordeSample> samples,
                                     std::span<const CrowdBlob> crowd);
WireError decode_horde_packet(std::span<const std::uint8_t> bytes, HordePacket& out);

}  // namespace vantage::play
