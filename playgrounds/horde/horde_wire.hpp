// The horde packet: everything one client is sent in one frame, as bytes.
//
// A frame carries the membership delta (core's DeltaFrame: entered keys with their spawn
// positions, left keys, the set digest), the players' positions, corrections of enemies the
// client already holds, and optionally crowd summaries of the world outside its view.
// Bandwidth meters count exactly these bytes.
//
//   u8      'H' (0x48)
//   varint  server time of the frame, ms
//   varint  length of the delta frame, then the DeltaFrame (core/docs/delta.md)
//   varint  player count (<= 128), then per player x, y fixed-point at 1/16
//   entered positions, predicted coding only and only when the frame enters keys (the
//           absolute coding carries them inside the DeltaFrame instead, and the predicted
//           coding's DeltaFrame carries none): varint viewer (the player they are relative to,
//           < player count; = player count: the origin), then a bit stream as below: 6 bits
//           width, 1 bit repeats, then per entered key: when repeats is 1, 1 bit positioned;
//           when positioned (always when repeats is 0), zz(x - viewer x), zz(y - viewer y) in
//           quanta at 1/16, `width` bits each; zero bits to the byte. width is the narrowest
//           that holds every position sent (0 when none is), and repeats is 1 only when some key
//           is not positioned and never in a full baseline: the decoder refuses anything else.
//           A key without a position is a repeat: the server sent its position in an earlier
//           frame not yet known lost, and names the key again only because that frame is not
//           yet acknowledged (DeltaBaseline). A client that holds the key keeps its value; one
//           that does not holds it awaiting a position (not drawn), which the server sends once
//           it learns the earlier frame was lost (a later entry, or an absolute correction first
//           thing in the next frame).
//   varint  (correction count << 1) | coding, then the corrections in that coding:
//     coding 0 (absolute, every correction standalone): per correction varint index gap (the
//           first is the index itself, later ones index - previous index, >= 1), varint
//           generation (<= 65535), x, y as zig-zag varint quanta at 1/16
//     coding 1 (predicted, bit-packed; nothing more when the count is 0): varint first index,
//           then a bit stream, least significant bit of each byte first:
//             4 bits k_gap, 4 bits k_age, 4 bits k_res, 5 bits k_abs (Rice parameters)
//             per correction: Rice(gap - 1, k_gap) except the first; 1 bit predicted;
//               predicted: Rice(age - 1, k_age), Rice(zz(dx), k_res), Rice(zz(dy), k_res)
//               absolute:  16 bits generation, Rice(zz(x), k_abs), Rice(zz(y), k_abs)
//             zero bits up to the next byte
//           Rice(v, k) is v >> k one-bits, a zero-bit, then the k low bits of v; zz is zig-zag.
//           Each k is the one that makes its field's bits fewest (the lowest on ties): the
//           decoder recomputes them and refuses any other, so one packet has one encoding.
//           A predicted correction names the frame `age` frames before this one in which this
//           client was sent a value for the same slot (an entry or a correction) that it
//           acknowledged; (dx, dy) is the true position's quanta minus the quanta of that value
//           carried forward by the enemy rule to this frame's time toward this frame's
//           players (predict_enemy). It carries no generation: the value it names belongs to
//           one occupant. A client that holds no such value drops the correction.
//   varint  crowd count, then per blob: x, y fixed-point at 4 units, varint headcount (>= 1)
//   nothing after (TrailingBytes otherwise)
//
// A whole packet is at most kMaxHordePacketBytes (one datagram); the server fits it by planning
// the delta into what the players and crowd leave and filling the rest with corrections, and
// both ends refuse a longer one (TooLarge).
//
// Decoding is validation: a bad packet returns a WireError and the client drops it. The
// decoder is stateless (it returns the corrections as written); resolving a predicted one
// against the value it names is the client's job (HordeClientHalf).
#pragma once

#include <array>
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

// One correction as the wire carries it. age == 0: absolute (generation, x, y are the slot's
// occupant and its position's quanta at kSampleStep); age > 0: predicted (x, y are the
// residual quanta against the value sent `age` frames earlier, carried forward; generation is
// not sent and is 0).
struct HordeCorrection {
    std::uint32_t index = 0;
    std::uint16_t generation = 0;
    std::uint32_t age = 0;  // frames, 0 = absolute
    std::int32_t x = 0, y = 0;

    bool operator==(const HordeCorrection&) const = default;
};

enum class CorrectionCoding : std::uint8_t {
    Absolute = 0,   // every correction standalone, byte-aligned (the first wire, for comparison)
    Predicted = 1,  // against acknowledged values, bit-packed
};

struct CrowdBlob {
    Vec2 position;
    std::uint32_t count = 0;  // enemies it stands for
};

struct HordePacket {
    std::uint64_t time_ms = 0;
    DeltaFrame delta;  // entered positions included, whichever part carried them
    // Per entered key, 1 when it travelled without its position (a repeat; its entered position
    // is then the origin and means nothing); empty when every key carried one.
    std::vector<std::uint8_t> repeated;
    std::uint32_t viewer = 0;  // the entered positions' origin player (predicted coding)
    std::vector<Vec2> players;
    CorrectionCoding coding = CorrectionCoding::Predicted;
    std::vector<HordeCorrection> corrections;  // ascending slot index, one per slot
    std::vector<CrowdBlob> crowd;
};

// Bytes of each part of an encoded packet (they sum to the packet's size).
struct HordePacketBytes {
    std::size_t header = 0;      // type, time, the delta frame's length prefix
    std::size_t membership = 0;  // the DeltaFrame and the entered positions
    std::size_t players = 0;
    std::size_t samples = 0;
    std::size_t crowd = 0;
    // false when a position could not be encoded (NaN, out of range) or the packet is longer
    // than kMaxHordePacketBytes: do not send
    bool ok = true;
    std::size_t total() const { return header + membership + players + samples + crowd; }
};

// Encodes into w (cleared first); `scratch` holds the nested delta frame. Corrections must be
// in ascending slot index with distinct slots, and all absolute under CorrectionCoding::Absolute
// (asserted). Send only when the result is ok.
// `viewer` is the player the entered positions are sent relative to (the client's own: they
// enter its view); players.size() for the origin. `repeated` (empty, or one flag per entered key;
// predicted coding and no full baseline only, asserted) marks the keys sent without a position.
HordePacketBytes encode_horde_packet(ByteWriter& w, ByteWriter& scratch, std::uint64_t time_ms, const DeltaPlan& plan,
                                     std::span<const Vec2> entered_positions, std::span<const Vec2> players,
                                     std::size_t viewer, CorrectionCoding coding,
                                     std::span<const HordeCorrection> corrections, std::span<const CrowdBlob> crowd,
                                     std::span<const std::uint8_t> repeated = {});
// The exact bytes of the predicted coding's entered positions part (0 for none).
std::size_t entered_part_bytes(std::span<const Vec2> positions, std::span<const Vec2> players, std::size_t viewer,
                               std::span<const std::uint8_t> repeated = {});
// Re-encodes a decoded packet (the fuzz bodies' re-encode property).
HordePacketBytes encode_horde_packet(ByteWriter& w, ByteWriter& scratch, const HordePacket& packet);
WireError decode_horde_packet(std::span<const std::uint8_t> bytes, HordePacket& out);

// The exact bytes of the corrections part as corrections are added one by one (ascending
// slot), for a server filling a packet: O(1) per add (a few dozen operations), no allocation.
class CorrectionSizer {
public:
    explicit CorrectionSizer(CorrectionCoding coding) : coding_(coding) {}
    void add(const HordeCorrection& c);
    // The part's bytes with what was added, and with `c` added too (nothing changes).
    std::size_t bytes() const;
    std::size_t bytes_with(const HordeCorrection& c) const;
    // bytes_with(c) <= room, mostly without building the sum (a bound first).
    bool fits_with(const HordeCorrection& c, std::size_t room) const;
    std::size_t count() const { return count_; }

private:
    static constexpr int kFields = 4;  // gap, age, residual, absolute
    static constexpr int kMaxK = 32;
    void add_value(int field, std::uint64_t v, std::uint64_t (&costs)[kFields][kMaxK]) const;
    std::size_t bytes_of(std::size_t count, std::uint32_t first, std::uint64_t fixed_bits,
                         const std::uint64_t (&costs)[kFields][kMaxK]) const;

    CorrectionCoding coding_;
    std::size_t count_ = 0;
    std::uint32_t first_ = 0, last_ = 0;
    std::uint64_t fixed_bits_ = 0;  // flags and generations (predicted); whole bytes (absolute)
    std::uint64_t costs_[kFields][kMaxK] = {};
};

// A value one end sent (or received) for one enemy: the frame it travelled in, that frame's
// time and the position's quanta. Both ends keep the newest kHordeRefs per held enemy, so a
// value the server names (one of its newest kHordeRefs sends since the enemy last entered) is
// always among the client's newest kHordeRefs receptions.
// Sequence and time keep their low 32 bits (16 bytes a value, as every held enemy carries three):
// ages are differences modulo 2^32, exact for any age a session reaches (2^32 frames).
struct HordeRef {
    std::uint32_t seq = 0;      // low 32 bits of the frame's sequence
    std::uint32_t time_ms = 0;  // low 32 bits of the frame's time
    std::int32_t x = 0, y = 0;

    static HordeRef at(std::uint64_t seq, std::uint64_t time_ms, std::int32_t x, std::int32_t y) {
        return {static_cast<std::uint32_t>(seq), static_cast<std::uint32_t>(time_ms), x, y};
    }
    // Frames from this value's frame to frame `now` (mod 2^32), and seconds from its time to now_ms.
    std::uint32_t age(std::uint64_t now) const { return static_cast<std::uint32_t>(now) - seq; }
    float age_s(std::uint64_t now_ms) const {
        return static_cast<float>(static_cast<double>(static_cast<std::uint32_t>(now_ms) - time_ms) / 1000.0);
    }
};
inline constexpr std::size_t kHordeRefs = 3;

struct HordeRefs {
    std::array<HordeRef, kHordeRefs> refs{};  // ascending seq, the first `count`
    std::uint8_t count = 0;

    // Keeps the newest kHordeRefs by seq, ordered by age from `newest` (a frame no older than any
    // value held); a seq already held or older than all of a full set changes nothing.
    void push(const HordeRef& r, std::uint64_t newest);
    // The value sent `age` frames before frame `now`, if held.
    const HordeRef* find(std::uint64_t now, std::uint32_t age) const;
    void clear() { count = 0; }
};

// The largest Rice parameter of each field of the predicted coding (gap, age, residual, absolute).
inline constexpr int kRiceMaxK[4] = {15, 15, 15, 31};

// Where a client carries a value it was sent for `key` `age_s` seconds ago, toward the nearest of
// `players` (the enemy rule, chase_step): the prediction both ends compute for a predicted
// correction, and the client's catch-up of any position by a frame's age.
Vec2 predict_enemy(Vec2 sent, std::uint64_t key, std::span<const Vec2> players, float age_s);
// The same prediction in quanta at kSampleStep; false when it does not quantize.
bool predict_enemy_quanta(std::int32_t x, std::int32_t y, std::uint64_t key, std::span<const Vec2> players, float age_s,
                          std::int32_t& out_x, std::int32_t& out_y);
// Whether quantum q at step is one write_fixed writes (its value quantizes back to it).
bool quantum_round_trips(std::int64_t q, float step);

}  // namespace vantage::play
