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
#include <span>
#include <vector>

#include "vantage/byte_io.hpp"
#include "vantage/delta_plan.hpp"
#include "vantage/vec.hpp"

namespace vantage {

enum class DeltaMessageType : std::uint8_t {
    Frame = 0x44,  // 'D'
    Ack = 0x41,    // 'A'
};

struct WireOptions {
    float position_step = 1.0f / 16.0f;  // position resolution, world units, > 0 (horde: 1/16 px)
    std::size_t max_keys = 65536;        // per list, >= 1; a frame claiming more is refused

    const char* validate() const;
};

struct DeltaFrame {
    DeltaPlan plan;
    // Empty, or one per plan.entered key in the same order.
    std::vector<Vec2> entered_positions;
};

// The type byte of a message, or nullopt-like WireError::UnknownType / Truncated.
WireError peek_message_type(std::span<const std::uint8_t> bytes, DeltaMessageType& out);

// Appends a frame to w. positions must be empty or match plan.entered in length (asserted);
// a NaN or out-of-range position marks w failed, and so does a list longer than
// options.max_keys (TooMany: the decoder would refuse it). Check w.ok() before sending.
void encode_delta_frame(ByteWriter& w, const DeltaPlan& plan, std::span<const Vec2> entered_positions,
                        const WireOptions& options = {});
WireError decode_delta_frame(std::span<const std::uint8_t> bytes, DeltaFrame& out, const WireOptions& options = {});

void encode_ack(ByteWriter& w, const AckReport& report);
WireError decode_ack(std::span<const std::uint8_t> bytes, AckReport& out);

}  // namespace vantage
