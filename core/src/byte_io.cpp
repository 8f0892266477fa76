#include "vantage/byte_io.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "vantage/assert.hpp"

namespace vantage {

const char* to_string(WireError error) {
    switch (error) {
        case WireError::Ok:
            return "ok";
        case WireError::Truncated:
            return "truncated";
        case WireError::BadVarint:
            return "bad varint";
        case WireError::OutOfRange:
            return "value out of range";
        case WireError::NotAscending:
            return "keys not strictly ascending";
        case WireError::TooMany:
            return "count too large";
        case WireError::NotFinite:
            return "not a finite number";
        case WireError::UnknownType:
            return "unknown message type";
        case WireError::Malformed:
            return "malformed message";
        case WireError::TrailingBytes:
            return "trailing bytes";
        case WireError::TooLarge:
            return "message too large";
    }
    return "unknown wire error";
}

// --- ByteWriter -----------------------------------------------------------------------------

void ByteWriter::grow(std::size_t n) {
    buffer_.resize(std::max({std::size_t{64}, 2 * buffer_.size(), size_ + n}));
}

void ByteWriter::write_le(std::uint64_t v, std::size_t n) {
    std::uint8_t* const out = room(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(v >> (8 * i));
    size_ += n;
}

void ByteWriter::write_f32(float v) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    write_u32(bits);
}

void ByteWriter::write_bytes(std::span<const std::uint8_t> bytes) {
    if (bytes.empty()) return;
    std::memcpy(room(bytes.size()), bytes.data(), bytes.size());
    size_ += bytes.size();
}

void ByteWriter::write_sorted_keys(std::span<const std::uint64_t> keys) {
    write_varint(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
        if (i == 0) {
            write_varint(keys[0]);
        } else {
            VANTAGE_ASSERT_HOT(keys[i] > keys[i - 1], "ByteWriter::write_sorted_keys: keys must be strictly ascending");
            write_varint(keys[i] - keys[i - 1] - 1);
        }
    }
}

// --- ByteReader -----------------------------------------------------------------------------

bool ByteReader::need(std::size_t n) {
    if (!ok()) return false;
    if (remaining() < n) {
        fail(WireError::Truncated);
        return false;
    }
    return true;
}

std::uint8_t ByteReader::read_u8() {
    if (!need(1)) return 0;
    return bytes_[pos_++];
}

std::uint16_t ByteReader::read_u16() {
    if (!need(2)) return 0;
    std::uint16_t v = 0;
    for (int i = 0; i < 2; ++i) v = static_cast<std::uint16_t>(v | (bytes_[pos_++] << (8 * i)));
    return v;
}

std::uint32_t ByteReader::read_u32() {
    if (!need(4)) return 0;
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(bytes_[pos_++]) << (8 * i);
    return v;
}

std::uint64_t ByteReader::read_u64() {
    if (!need(8)) return 0;
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(bytes_[pos_++]) << (8 * i);
    return v;
}

float ByteReader::read_f32() {
    const std::uint32_t bits = read_u32();
    float v = 0.0f;
    std::memcpy(&v, &bits, sizeof v);
    return v;
}

float ByteReader::read_finite_f32() {
    const float v = read_f32();
    if (!std::isfinite(v)) {
        fail(WireError::NotFinite);
        return 0.0f;
    }
    return v;
}

std::uint64_t ByteReader::read_long_varint() {
    if (!ok()) return 0;
    // The loop runs over the bytes that are there, at most ten: no bounds check per byte
    // (positions are three-byte varints, most of a frame's decode).
    const std::size_t left = bytes_.size() - pos_;
    const std::size_t n = left < kMaxVarintBytes ? left : kMaxVarintBytes;
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint8_t b = bytes_[pos_ + i];
        // The tenth byte holds bit 63 only; anything more overflows. A zero final byte after
        // a continuation is padding: not the shortest form.
        if ((i == kMaxVarintBytes - 1 && b > 1u) || (i > 0 && b == 0)) {
            fail(WireError::BadVarint);
            return 0;
        }
        v |= static_cast<std::uint64_t>(b & 0x7Fu) << (7 * i);
        if ((b & 0x80u) == 0) {
            pos_ += i + 1;
            return v;
        }
    }
    // Every byte there continued: the varint runs past the end (ten that all continue cannot
    // happen: the tenth is at most 1).
    fail(n < kMaxVarintBytes ? WireError::Truncated : WireError::BadVarint);
    return 0;
}

float ByteReader::read_fixed_checked(std::int64_t q, float step) {
    if (q < std::numeric_limits<std::int32_t>::min() || q > std::numeric_limits<std::int32_t>::max()) {
        fail(WireError::OutOfRange);
        return 0.0f;
    }
    // Only quanta write_fixed can produce: near 2^31 a quantum's value rounds (as a float) to
    // one whose quantum no longer fits 32 bits, so accepting it would decode a frame that
    // cannot be sent on.
    const float v = dequantize(static_cast<std::int32_t>(q), step);
    if (quantize(v, step) != std::optional<std::int32_t>(static_cast<std::int32_t>(q))) {
        fail(WireError::OutOfRange);
        return 0.0f;
    }
    return v;
}

std::size_t ByteReader::read_count(std::size_t max_count, std::size_t min_entry_bytes) {
    const std::uint64_t n = read_varint();
    if (!ok()) return 0;
    const std::uint64_t fits = min_entry_bytes == 0 ? UINT64_MAX : remaining() / min_entry_bytes;
    if (n > max_count || n > fits) {
        fail(WireError::TooMany);
        return 0;
    }
    return static_cast<std::size_t>(n);
}

void ByteReader::read_sorted_keys(std::vector<std::uint64_t>& out, std::size_t max_count) {
    out.clear();
    const std::size_t n = read_count(max_count, 1);
    if (!ok()) return;
    out.reserve(n);
    std::uint64_t prev = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t v = read_varint();
        if (!ok()) break;
        if (i == 0) {
            prev = v;
        } else {
            // prev + v + 1 must not wrap.
            if (v >= UINT64_MAX - prev) {
                fail(WireError::NotAscending);
                break;
            }
            prev = prev + v + 1;
        }
        out.push_back(prev);
    }
    if (!ok()) out.clear();
}

void ByteReader::read_bytes(std::span<std::uint8_t> out) {
    if (!need(out.size())) return;
    if (!out.empty()) std::memcpy(out.data(), bytes_.data() + pos_, out.size());
    pos_ += out.size();
}

}  // namespace vantage
