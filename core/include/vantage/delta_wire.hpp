// The delta stream's wire format: encode and validating decode of its two messages.
//
//   DeltaFrame (server -> client): a DeltaPlan, optionally with one quantized position per
//                                  entered key (so a spawn carries where it appeared).
//   Ack        (client -> server): an AckReport (ack window and mirror digest).
//
// The byte layout is documented in core/docs/delta.md and pinned by golden-bytes tests.
// Keys travel as (index gap, generation) pairs, two bytes each for a dense set, instead of
// the 3+ bytes a gap-coded packed key would take, because a packed key's index sits above
// 16 bits of generation.
//
// Decoding is validation: a truncated, oversized (more keys than WireOptions::max_keys, or
// than the bytes could hold), malformed (flags that contradict each other, a baseline newer
// than its frame, keys out of order, a generation or index out of range) or over-long message
// returns a WireError and leaves the output in an unspecified but valid state. Nothing reads
// past the end; nothing allocates more than the message's size justifies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "vantage/byte_io.hpp"
#include "vantage/delta_plan.hpp"
#include "vantage/vec.hpp"

namespace vantage {

enum class DeltaMessageType : std::uint8_t {
    Frame = 0x44,  // 'D'
    Ack = 0x41,    // 'A'
};

// Names for logs, readouts and test failures (core/docs/conventions.md).
constexpr const char* to_string(DeltaMessageType type) {
    switch (type) {
        case DeltaMessageType::Frame:
            return "frame";
        case DeltaMessageType::Ack:
            return "ack";
    }
    return "unknown delta message type";
}

// The smallest allowed max_frame_bytes: room for the largest header (40 bytes) and one entered
// key with a position (at most 18 bytes), so a planner can always make progress.
inline constexpr std::size_t kMinFrameBytes = 64;
// A UDP payload over IPv4 never exceeds this.
inline constexpr std::size_t kMaxFrameBytesLimit = 65507;

struct WireOptions {
    float position_step = 1.0f / 16.0f;  // position resolution, world units, > 0 (horde: 1/16 px)
    std::size_t max_keys = 65536;        // per list, >= 1; a frame claiming more is refused
    // Largest whole frame, bytes, [kMinFrameBytes, kMaxFrameBytesLimit]; one datagram (1,200
    // leaves room for IP, UDP and a transport header under a 1,280-byte IPv6 minimum MTU). A
    // longer frame is refused by both ends (TooLarge). DeltaBaselineOptions::max_frame_bytes
    // plans frames that fit; set the two equal.
    std::size_t max_frame_bytes = 1200;

    std::string_view validate() const;
    // Upper bound of the bytes one position takes when both coordinates lie within
    // [-max_abs, max_abs] world units: what DeltaBaselineOptions::entered_value_bytes needs.
    std::size_t position_bytes_bound(float max_abs) const;
};

struct DeltaFrame {
    DeltaPlan plan;
    // Empty, or one per plan.entered key in the same order.
    std::vector<Vec2> entered_positions;
};

// The type byte of a message, or nullopt-like WireError::UnknownType / Truncated.
WireError peek_message_type(std::span<const std::uint8_t> bytes, DeltaMessageType& out);

// Appends a frame to w. positions must be empty or match plan.entered in length (asserted);
// a NaN or out-of-range position marks w failed, and so do a list longer than
// options.max_keys (TooMany) and a frame longer than options.max_frame_bytes (TooLarge): the
// decoder would refuse both. Check w.ok() before sending.
void encode_delta_frame(ByteWriter& w, const DeltaPlan& plan, std::span<const Vec2> entered_positions,
                        const WireOptions& options = {});
WireError decode_delta_frame(std::span<const std::uint8_t> bytes, DeltaFrame& out, const WireOptions& options = {});

// The exact size encode_delta_frame gives plan without positions, plus value_bytes per
// entered key (positions are variable-length: pass an upper bound such as
// WireOptions::position_bytes_bound, or 0). O(keys), no allocation.
std::size_t delta_frame_bytes(const DeltaPlan& plan, std::size_t value_bytes);
// The same for a frame given by its parts (no baseline: a full baseline or a Naive diff).
std::size_t delta_frame_bytes(std::uint64_t seq, std::optional<std::uint64_t> baseline_seq,
                              std::span<const std::uint64_t> entered, std::span<const std::uint64_t> left,
                              std::size_t value_bytes);
// The exact size of one slot key list (count and pairs) as a frame carries it.
std::size_t slot_key_list_bytes(std::span<const std::uint64_t> keys);
// A lower bound of delta_frame_bytes for lists of these lengths, whatever their keys: each key
// takes at least two bytes (its index gap and its generation). O(1), where the exact size is
// a pass over the keys, so a caller can rule a frame out before pricing it.
std::size_t delta_frame_bytes_floor(std::uint64_t seq, std::optional<std::uint64_t> baseline_seq, std::size_t entered,
                                    std::size_t left, std::size_t value_bytes);

void encode_ack(ByteWriter& w, const AckReport& report);
WireError decode_ack(std::span<const std::uint8_t> bytes, AckReport& out);

}  // namespace vantage
