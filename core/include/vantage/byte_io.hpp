// ByteWriter and ByteReader: the byte-exact wire primitives every message is built from.
//
// Bandwidth meters count what these produce, so they are the real encoding, not a model:
// little-endian fixed-width integers, LEB128 varints, zig-zag signed varints, fixed-point
// quantized coordinates and strictly ascending key lists coded as gaps. The format of each
// primitive is written down in core/docs/delta.md and pinned by golden-bytes tests.
//
// Policy for bad input: a ByteReader never reads past the end of its span and never throws.
// The first problem (truncation, an over-long or non-canonical varint, a value out of range,
// a list that is not ascending or claims more entries than the caller allows) is recorded as
// a sticky WireError; every later read returns zero and does not move. Decoders read a whole
// message and check ok() once, so a validating decode is straight-line code.
//
// A ByteWriter owns a growable buffer; clear() keeps its capacity so a steady stream of
// frames does not allocate. Writing a value the format cannot hold (a NaN or out-of-range
// coordinate) writes a zero in its place, so the layout stays parseable, and marks the writer
// failed; the caller checks ok() before sending. Programming errors (an unsorted key list)
// are checked (VANTAGE_ASSERT_HOT, on unless built with VANTAGE_HOT_ASSERTS=0).
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "vantage/always_inline.hpp"
#include "vantage/assert.hpp"
#include "vantage/vec.hpp"

namespace vantage {

enum class WireError : std::uint8_t {
    Ok,
    Truncated,      // the message ended inside a value
    BadVarint,      // longer than 10 bytes, overflows 64 bits, or not in its shortest form
    OutOfRange,     // a value does not fit the field it is read into
    NotAscending,   // a key list is not strictly ascending, or its gaps overflow 64 bits
    TooMany,        // a count exceeds the caller's limit or the bytes left could hold
    NotFinite,      // a NaN or infinity where a number is required
    UnknownType,    // a message type byte no decoder knows
    Malformed,      // a field combination the message's rules forbid
    TrailingBytes,  // bytes left over after a complete message
    TooLarge,       // a whole message longer than its limit (a datagram's max_frame_bytes)
};

// A short English name for logs and test messages.
const char* to_string(WireError error);

// Fixed-point coordinates: a value travels as round(value / step) (halves away from zero),
// a signed 32-bit integer. step is the resolution in world units (horde uses 1/16 px).
// Returns nullopt for a NaN, an infinity or a value whose quantum does not fit 32 bits.
// Inline and without std::round (a library call on x86-64 without SSE4.1 and in wasm): it
// runs per coordinate on every encode and twice per coordinate on every decode.
inline std::optional<std::int32_t> quantize(float value, float step) {
    // Per coordinate on every encode path, so a hot check (core/docs/asserts.md).
    VANTAGE_ASSERT_HOT(std::isfinite(step) && step > 0.0f, "quantize: step must be finite and > 0");
    const double q = static_cast<double>(value) / static_cast<double>(step);
    // round(q) fits 32 bits exactly inside these bounds (each a double); NaN and the
    // infinities fail the comparison too.
    if (!(q > -2147483648.5 && q < 2147483647.5)) return std::nullopt;
    const auto toward_zero = static_cast<std::int32_t>(q);
    const double fraction = q - static_cast<double>(toward_zero);  // exact, in (-1, 1)
    return toward_zero + static_cast<std::int32_t>(fraction >= 0.5) - static_cast<std::int32_t>(fraction <= -0.5);
}
constexpr float dequantize(std::int32_t quantum, float step) {
    return static_cast<float>(static_cast<double>(quantum) * static_cast<double>(step));
}

// Longest LEB128 encoding of a u64.
inline constexpr std::size_t kMaxVarintBytes = 10;
// Bytes the varint encoding of v takes (1..10): seven bits a byte, so ceil(bits / 7) for the
// value's significant bits (at least one). (9 * bits + 64) / 64 is that quotient for every
// bit count from 1 to 64 (the rounding error of 9/64 against 1/7 stays under one step of
// 1/7 that far; a test checks all 64): a multiply by 9 and a shift, where the division by 7
// was a 64-bit multiply-high with sign fix-ups per call. The frame-size estimate runs it
// twice per key of every plan.
constexpr std::size_t varint_size(std::uint64_t v) {
    const auto bits = static_cast<std::uint32_t>(std::bit_width(v | 1u));
    return (bits * 9u + 64u) >> 6;
}
constexpr std::uint64_t zigzag_encode(std::int64_t v) {
    return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
constexpr std::int64_t zigzag_decode(std::uint64_t v) {
    return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1u);
}

class ByteWriter {
public:
    ByteWriter() = default;

    void write_u8(std::uint8_t v) {
        *room(1) = v;
        ++size_;
    }
    void write_u16(std::uint16_t v) { write_le(v, 2); }  // little-endian
    void write_u32(std::uint32_t v) { write_le(v, 4); }  // little-endian
    void write_u64(std::uint64_t v) { write_le(v, 8); }  // little-endian
    void write_f32(float v);                             // IEEE-754 bit pattern, little-endian
    // Writes into room reserved once for a run of values (see run()). Its position is the
    // caller's local, so a byte stored through it cannot alias the writer's size or buffer,
    // which a store through the writer's own uint8_t* may (so every write through the writer
    // reloads both).
    struct Cursor {
        std::uint8_t* out;
        WireError error = WireError::Ok;

        VANTAGE_ALWAYS_INLINE void varint(std::uint64_t v) {
            while (v >= 0x80u) {
                *out++ = static_cast<std::uint8_t>((v & 0x7Fu) | 0x80u);
                v >>= 7;
            }
            *out++ = static_cast<std::uint8_t>(v);
        }
        VANTAGE_ALWAYS_INLINE void zigzag(std::int64_t v) { varint(zigzag_encode(v)); }
        // At most 5 bytes (a zig-zag 32-bit quantum). A NaN, infinity or out-of-range value
        // writes 0 and records NotFinite or OutOfRange (the first error is kept).
        VANTAGE_ALWAYS_INLINE void fixed(float value, float step) {
            const std::optional<std::int32_t> q = quantize(value, step);
            if (!q && error == WireError::Ok) [[unlikely]]
                error = std::isfinite(value) ? WireError::OutOfRange : WireError::NotFinite;
            zigzag(q.value_or(0));
        }
        VANTAGE_ALWAYS_INLINE void fixed2(Vec2 value, float step) {
            fixed(value.x, step);
            fixed(value.y, step);
        }
    };
    static constexpr std::size_t kMaxFixedBytes = 5;
    // Calls fn(Cursor&) to write at most max_bytes (checked), then takes what it wrote and
    // its error, if any.
    template <class Fn>
    VANTAGE_ALWAYS_INLINE void run(std::size_t max_bytes, Fn&& fn) {
        std::uint8_t* const first = room(max_bytes);
        Cursor cursor{first};
        fn(cursor);
        const auto written = static_cast<std::size_t>(cursor.out - first);
        VANTAGE_ASSERT_HOT(written <= max_bytes, "ByteWriter::run: wrote past the room it asked for");
        size_ += written;
        if (cursor.error != WireError::Ok) [[unlikely]]
            fail(cursor.error);
    }

    void write_varint(std::uint64_t v) {
        run(kMaxVarintBytes, [v](Cursor& c) { c.varint(v); });
    }
    void write_zigzag(std::int64_t v) { write_varint(zigzag_encode(v)); }
    void write_bytes(std::span<const std::uint8_t> bytes);
    // zig-zag varint of quantize(value, step). A NaN, infinity or out-of-range value writes 0
    // and marks the writer failed (WireError::NotFinite / OutOfRange).
    void write_fixed(float value, float step) {
        run(kMaxFixedBytes, [&](Cursor& c) { c.fixed(value, step); });
    }
    void write_fixed2(Vec2 value, float step) {
        run(2 * kMaxFixedBytes, [&](Cursor& c) { c.fixed2(value, step); });
    }
    // varint count, then the first key, then each gap minus one (the keys are strictly
    // ascending, so every gap is at least one). Asserts the keys are strictly ascending.
    void write_sorted_keys(std::span<const std::uint64_t> keys);

    std::span<const std::uint8_t> bytes() const { return {buffer_.data(), size_}; }
    std::size_t size() const { return size_; }
    // Empties the buffer and the error, keeping the capacity.
    void clear() {
        size_ = 0;
        error_ = WireError::Ok;
    }
    bool ok() const { return error_ == WireError::Ok; }
    WireError error() const { return error_; }
    // Marks the message unwritable (the first reason is kept): an encoder refusing what its
    // decoder would refuse, so a frame is never sent that no peer can read.
    void fail(WireError error) {
        if (error_ == WireError::Ok) error_ = error;
    }

private:
    // Where the next n bytes go, with at least n writable there (the buffer grows
    // geometrically, out of line); the caller writes them and advances size_.
    std::uint8_t* room(std::size_t n) {
        if (buffer_.size() - size_ < n) grow(n);
        return buffer_.data() + size_;
    }
    void grow(std::size_t n);
    void write_le(std::uint64_t v, std::size_t n);  // the low n bytes of v, least significant first

    // The bytes written are buffer_[0, size_); the rest is room, so a write is a store and
    // an add, not a push_back per byte.
    std::vector<std::uint8_t> buffer_;
    std::size_t size_ = 0;
    WireError error_ = WireError::Ok;
};

class ByteReader {
public:
    explicit ByteReader(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}

    std::uint8_t read_u8();
    std::uint16_t read_u16();
    std::uint32_t read_u32();
    std::uint64_t read_u64();
    // Any bit pattern, NaN included; use read_finite_f32 for a value that must be a number.
    float read_f32();
    float read_finite_f32();
    // Shortest-form LEB128 only: an over-long or padded encoding is BadVarint, so every value
    // has exactly one encoding and golden bytes are unique.
    std::uint64_t read_varint() {
        // One byte is the common case (small gaps, generations, sequences): inline.
        if (ok() && pos_ < bytes_.size() && bytes_[pos_] < 0x80u) return bytes_[pos_++];
        return read_long_varint();
    }
    // read_varint with its two- and three-byte cases inline too (a quantized position is
    // usually three bytes); the same values and the same errors (a zero last byte after a
    // continuation is left to read_long_varint to refuse).
    std::uint64_t read_varint_upto3() {
        if (ok() && bytes_.size() - pos_ >= 3) {
            const std::uint8_t* const p = bytes_.data() + pos_;
            const std::uint64_t b0 = p[0], b1 = p[1], b2 = p[2];
            if (b0 < 0x80u) {
                pos_ += 1;
                return b0;
            }
            if (b1 < 0x80u) {
                if (b1 != 0) {
                    pos_ += 2;
                    return (b0 & 0x7Fu) | (b1 << 7);
                }
            } else if (b2 < 0x80u && b2 != 0) {
                pos_ += 3;
                return (b0 & 0x7Fu) | ((b1 & 0x7Fu) << 7) | (b2 << 14);
            }
        }
        return read_varint();
    }
    // A varint that must not exceed max (OutOfRange otherwise).
    std::uint64_t read_varint_max(std::uint64_t max) {
        const std::uint64_t v = read_varint();
        if (v <= max) return v;
        fail(WireError::OutOfRange);
        return 0;
    }
    std::uint32_t read_varint_u32() { return static_cast<std::uint32_t>(read_varint_max(UINT32_MAX)); }
    std::int64_t read_zigzag() { return zigzag_decode(read_varint()); }
    // The inverse of write_fixed: OutOfRange when the quantum does not fit 32 bits or is one
    // write_fixed never writes (its value does not quantize back to it), so whatever is
    // accepted re-encodes to the same bytes. Always inlined: clang left it a call per
    // coordinate in wasm, inside the inlined read_fixed2 (a fifth of a frame's decode there).
    VANTAGE_ALWAYS_INLINE float read_fixed(float step) {
        const std::int64_t q = zigzag_decode(read_varint_upto3());
        // Below 2^22 in magnitude, with a positive step whose 2^22 multiple is a finite float,
        // q * step rounds to a float within a relative 2^-24 (a subnormal product is exact: a
        // whole number of the smallest subnormal), so dividing it by step comes back within
        // 2^22 * 2^-24 = 1/4 of q, which rounds to q: the round trip holds without the
        // division. ReadFixedAcceptsExactlyTheQuantaThatRoundTrip pins it.
        if (q > -kFixedFastQuantum && q < kFixedFastQuantum && step > 0.0f && step <= kFixedFastMaxStep)
            return dequantize(static_cast<std::int32_t>(q), step);
        return read_fixed_checked(q, step);
    }
    // Always inlined: clang left it out of line in wasm, a call per position (a large share
    // of a frame's decode there).
    VANTAGE_ALWAYS_INLINE Vec2 read_fixed2(float step) {
        const float x = read_fixed(step);
        const float y = read_fixed(step);
        return {x, y};
    }
    // The inverse of write_sorted_keys, into out (cleared first). A count above
    // max_count, or above the bytes left (each key takes at least one), is TooMany, checked
    // before anything is allocated; a gap that overflows 64 bits is NotAscending.
    void read_sorted_keys(std::vector<std::uint64_t>& out, std::size_t max_count);
    // A count that must not exceed max_count nor the bytes left divided by min_entry_bytes.
    std::size_t read_count(std::size_t max_count, std::size_t min_entry_bytes);
    // Copies n bytes out (Truncated if fewer remain).
    void read_bytes(std::span<std::uint8_t> out);

    // Records a semantic error found by a message decoder (the first error wins).
    void fail(WireError error) {
        if (error_ == WireError::Ok) error_ = error;
    }
    // ok() and nothing left over; records TrailingBytes otherwise.
    bool finish() {
        if (ok() && remaining() != 0) fail(WireError::TrailingBytes);
        return ok();
    }
    bool ok() const { return error_ == WireError::Ok; }
    WireError error() const { return error_; }
    std::size_t position() const { return pos_; }
    std::size_t remaining() const { return bytes_.size() - pos_; }

private:
    // True when n more bytes can be read; records Truncated (and consumes nothing) otherwise.
    bool need(std::size_t n);
    std::uint64_t read_long_varint();  // read_varint past its one-byte case
    // read_fixed past its fast case: the range check and the round trip through quantize.
    float read_fixed_checked(std::int64_t q, float step);

    static constexpr std::int64_t kFixedFastQuantum = std::int64_t{1} << 22;
    static constexpr float kFixedFastMaxStep = std::numeric_limits<float>::max() / 4194304.0f;  // / 2^22

    std::span<const std::uint8_t> bytes_;
    std::size_t pos_ = 0;
    WireError error_ = WireError::Ok;
};

}  // namespace vantage
