#include "vantage/delta_wire.hpp"

#include <bit>
#include <cmath>
#include <limits>
#include <optional>

#include "vantage/assert.hpp"
#include "vantage/slot_key.hpp"

namespace vantage {
namespace {

constexpr std::uint8_t kFlagFull = 1u << 0;
constexpr std::uint8_t kFlagBaseline = 1u << 1;
constexpr std::uint8_t kFlagPositions = 1u << 2;
constexpr std::uint8_t kKnownFlags = kFlagFull | kFlagBaseline | kFlagPositions;

// Bits of an ack mask that name real sequences (newest - 1 - i >= 0).
std::uint64_t valid_mask_bits(std::uint64_t newest) {
    return newest >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << newest) - 1;
}

// Packed keys as (index gap, generation) pairs; see core/docs/delta.md.
void write_key_list(ByteWriter& w, std::span<const std::uint64_t> keys) {
    w.write_varint(keys.size());
    // A key is at most 8 bytes: its index gap (32 bits) in 5, its generation (16) in 3.
    w.run(keys.size() * 8, [keys](ByteWriter::Cursor& c) {
        std::uint32_t prev_index = 0;
        for (std::size_t i = 0; i < keys.size(); ++i) {
            const std::optional<SlotKey> key = SlotKey::decode(keys[i]);
            VANTAGE_ASSERT_HOT(key, "encode_delta_frame: a key is not a packed SlotKey (bits above 48 set)");
            VANTAGE_ASSERT_HOT(i == 0 || keys[i] > keys[i - 1],
                               "encode_delta_frame: keys must be ascending and unique");
            const SlotKey k = key.value_or(SlotKey{});
            c.varint(i == 0 ? k.index : k.index - prev_index);
            c.varint(k.generation);
            prev_index = k.index;
        }
    });
}

// Capacity for n: grown geometrically (a power of two), not to each frame's exact size, so a
// decoder fed frames that creep upwards stops allocating after a few growths.
template <class T>
void reserve_geometric(std::vector<T>& v, std::size_t n) {
    if (v.capacity() < n) v.reserve(std::bit_ceil(n));
}

void read_key_list(ByteReader& r, std::vector<std::uint64_t>& out, std::size_t max_keys) {
    out.clear();
    const std::size_t n = r.read_count(max_keys, 2);
    if (!r.ok()) return;
    reserve_geometric(out, n);
    out.resize(n);  // written by index below: no capacity check per key
    std::uint64_t index = 0;
    std::uint64_t prev_generation = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t gap = r.read_varint();
        const std::uint64_t generation = r.read_varint_max(0xFFFFu);
        if (!r.ok()) break;
        if (i > 0 && gap == 0 && generation <= prev_generation) {
            r.fail(WireError::NotAscending);
            break;
        }
        if (gap > 0xFFFFFFFFu) {
            r.fail(WireError::OutOfRange);
            break;
        }
        index = i == 0 ? gap : index + gap;  // both below 2^32: cannot wrap
        if (index > 0xFFFFFFFFu) {
            r.fail(WireError::OutOfRange);
            break;
        }
        out[i] = SlotKey{static_cast<std::uint32_t>(index), static_cast<std::uint16_t>(generation)}.encode();
        prev_generation = generation;
    }
    // On a failure the rest of out stays zero; decode_delta_frame drops the whole frame.
}

// Type, flags, seq, the baseline's distance back when there is one, digest.
std::size_t frame_header_bytes(std::uint64_t seq, std::optional<std::uint64_t> baseline_seq) {
    return 2 + varint_size(seq) + (baseline_seq ? varint_size(seq - *baseline_seq) : 0) + 8;
}

}  // namespace

std::string_view WireOptions::validate() const {
    if (!std::isfinite(position_step) || position_step <= 0.0f) return "position_step must be > 0";
    if (max_keys < 1) return "max_keys must be >= 1";
    if (max_frame_bytes < kMinFrameBytes || max_frame_bytes > kMaxFrameBytesLimit)
        return "max_frame_bytes must be in [64, 65507]";
    return {};
}

std::size_t WireOptions::position_bytes_bound(float max_abs) const {
    VANTAGE_ASSERT(std::isfinite(max_abs) && max_abs >= 0.0f, "position_bytes_bound: max_abs must be finite and >= 0");
    const std::optional<std::int32_t> q = quantize(max_abs, position_step);
    // Beyond i32 a position cannot be written at all; the widest zig-zag varint then bounds it.
    const std::int64_t worst = q ? std::int64_t{*q} : std::int64_t{std::numeric_limits<std::int32_t>::min()};
    return 2 * varint_size(zigzag_encode(worst));
}

std::size_t slot_key_list_bytes(std::span<const std::uint64_t> keys) {
    std::size_t bytes = varint_size(keys.size());
    std::uint64_t prev_index = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        // The packed layout (index << 16 | generation); keys above 48 bits are refused by the
        // encoder's assert, so here they only need to not crash.
        const std::uint64_t index = keys[i] >> 16;
        bytes += varint_size(i == 0 ? index : index - prev_index) + varint_size(keys[i] & 0xFFFFu);
        prev_index = index;
    }
    return bytes;
}

std::size_t delta_frame_bytes(std::uint64_t seq, std::optional<std::uint64_t> baseline_seq,
                              std::span<const std::uint64_t> entered, std::span<const std::uint64_t> left,
                              std::size_t value_bytes) {
    return frame_header_bytes(seq, baseline_seq) + slot_key_list_bytes(entered) + slot_key_list_bytes(left) +
           entered.size() * value_bytes;
}

std::size_t delta_frame_bytes_floor(std::uint64_t seq, std::optional<std::uint64_t> baseline_seq, std::size_t entered,
                                    std::size_t left, std::size_t value_bytes) {
    return frame_header_bytes(seq, baseline_seq) + varint_size(entered) + varint_size(left) + 2 * (entered + left) +
           entered * value_bytes;
}

std::size_t delta_frame_bytes(const DeltaPlan& plan, std::size_t value_bytes) {
    return delta_frame_bytes(plan.seq, plan.baseline_seq, plan.entered, plan.left, value_bytes);
}

WireError peek_message_type(std::span<const std::uint8_t> bytes, DeltaMessageType& out) {
    if (bytes.empty()) return WireError::Truncated;
    switch (bytes[0]) {
        case static_cast<std::uint8_t>(DeltaMessageType::Frame):
            out = DeltaMessageType::Frame;
            return WireError::Ok;
        case static_cast<std::uint8_t>(DeltaMessageType::Ack):
            out = DeltaMessageType::Ack;
            return WireError::Ok;
        default:
            return WireError::UnknownType;
    }
}

void encode_delta_frame(ByteWriter& w, const DeltaPlan& plan, std::span<const Vec2> entered_positions,
                        const WireOptions& options) {
    VANTAGE_ASSERT_VALID(options, "encode_delta_frame: invalid WireOptions");
    VANTAGE_ASSERT(entered_positions.empty() || entered_positions.size() == plan.entered.size(),
                   "encode_delta_frame: positions must be empty or one per entered key");
    VANTAGE_ASSERT(!(plan.full_baseline && plan.baseline_seq),
                   "encode_delta_frame: a full baseline has no baseline_seq");
    VANTAGE_ASSERT(!(plan.full_baseline && !plan.left.empty()), "encode_delta_frame: a full baseline retracts nothing");
    VANTAGE_ASSERT(!plan.baseline_seq || *plan.baseline_seq < plan.seq,
                   "encode_delta_frame: baseline_seq must precede seq");
    if (plan.entered.size() > options.max_keys || plan.left.size() > options.max_keys) {
        // The decoder refuses a list longer than max_keys (TooMany): refuse it here first.
        w.fail(WireError::TooMany);
        return;
    }
    const std::size_t start = w.size();
    std::uint8_t flags = 0;
    if (plan.full_baseline) flags |= kFlagFull;
    if (plan.baseline_seq) flags |= kFlagBaseline;
    if (!entered_positions.empty()) flags |= kFlagPositions;
    w.write_u8(static_cast<std::uint8_t>(DeltaMessageType::Frame));
    w.write_u8(flags);
    w.write_varint(plan.seq);
    if (plan.baseline_seq) w.write_varint(plan.seq - *plan.baseline_seq);
    w.write_u64(plan.digest);
    write_key_list(w, plan.entered);
    write_key_list(w, plan.left);
    w.run(entered_positions.size() * 2 * ByteWriter::kMaxFixedBytes, [&](ByteWriter::Cursor& c) {
        for (const Vec2& p : entered_positions) c.fixed2(p, options.position_step);
    });
    // The decoder refuses a frame longer than max_frame_bytes: refuse it here first.
    if (w.size() - start > options.max_frame_bytes) w.fail(WireError::TooLarge);
}

WireError decode_delta_frame(std::span<const std::uint8_t> bytes, DeltaFrame& out, const WireOptions& options) {
    VANTAGE_ASSERT_VALID(options, "decode_delta_frame: invalid WireOptions");
    ByteReader r(bytes);
    DeltaPlan& plan = out.plan;
    plan.clear();
    out.entered_positions.clear();
    if (bytes.size() > options.max_frame_bytes) return WireError::TooLarge;
    if (r.read_u8() != static_cast<std::uint8_t>(DeltaMessageType::Frame)) {
        return r.ok() ? WireError::UnknownType : r.error();
    }
    const std::uint8_t flags = r.read_u8();
    if (r.ok() && (flags & ~kKnownFlags) != 0) r.fail(WireError::Malformed);
    if (r.ok() && (flags & kFlagFull) && (flags & kFlagBaseline)) r.fail(WireError::Malformed);
    plan.full_baseline = (flags & kFlagFull) != 0;
    plan.seq = r.read_varint();
    if (flags & kFlagBaseline) {
        const std::uint64_t back = r.read_varint();
        if (r.ok() && (back == 0 || back > plan.seq)) r.fail(WireError::Malformed);
        if (r.ok()) plan.baseline_seq = plan.seq - back;
    }
    plan.digest = r.read_u64();
    read_key_list(r, plan.entered, options.max_keys);
    read_key_list(r, plan.left, options.max_keys);
    if (r.ok() && plan.full_baseline && !plan.left.empty()) r.fail(WireError::Malformed);
    if (r.ok() && (flags & kFlagPositions)) {
        if (plan.entered.empty()) {
            r.fail(WireError::Malformed);
        } else if (r.remaining() / 2 < plan.entered.size()) {
            r.fail(WireError::Truncated);  // each position takes at least two bytes
        } else {
            reserve_geometric(out.entered_positions, plan.entered.size());
            out.entered_positions.resize(plan.entered.size());
            // A failed read returns zeros from then on; the frame is then dropped below.
            for (Vec2& p : out.entered_positions) p = r.read_fixed2(options.position_step);
        }
    }
    r.finish();
    if (!r.ok()) {
        plan.entered.clear();
        plan.left.clear();
        out.entered_positions.clear();
    }
    return r.error();
}

void encode_ack(ByteWriter& w, const AckReport& report) {
    w.write_u8(static_cast<std::uint8_t>(DeltaMessageType::Ack));
    w.write_varint(report.newest);
    // The bits that are *not* set, restricted to real sequences: one byte when nothing was
    // lost, whatever the window's fill.
    w.write_varint(~report.mask & valid_mask_bits(report.newest));
    w.write_u64(report.digest);
}

WireError decode_ack(std::span<const std::uint8_t> bytes, AckReport& out) {
    ByteReader r(bytes);
    out = AckReport{};
    if (r.read_u8() != static_cast<std::uint8_t>(DeltaMessageType::Ack)) {
        return r.ok() ? WireError::UnknownType : r.error();
    }
    const std::uint64_t newest = r.read_varint();
    const std::uint64_t missing = r.read_varint();
    const std::uint64_t digest = r.read_u64();
    const std::uint64_t valid = valid_mask_bits(newest);
    if (r.ok() && (missing & ~valid) != 0) r.fail(WireError::Malformed);
    if (!r.finish()) return r.error();
    out = AckReport{newest, ~missing & valid, digest};
    return WireError::Ok;
}

}  // namespace vantage
