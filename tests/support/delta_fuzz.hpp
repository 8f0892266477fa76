// Fuzz bodies for every decoder on the delta stream, shared by the seeded corpus test
// (tests/core/delta_fuzz_test.cpp, which runs everywhere, wasm and ASan included) and the
// libFuzzer targets (tests/fuzz/, built with clang when VANTAGE_BUILD_FUZZ is on).
//
// Each body takes arbitrary bytes and checks what a validating decoder promises: no crash,
// no read past the end (ASan), and when it accepts, an output that keeps the message's
// invariants and survives a re-encode. A broken promise calls fuzz_fail(), which aborts.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <vector>

#include "vantage/byte_io.hpp"
#include "vantage/delta_baseline.hpp"
#include "vantage/delta_mirror.hpp"
#include "vantage/delta_wire.hpp"
#include "vantage/slot_key.hpp"

namespace vantage::fuzz {

[[noreturn]] inline void fuzz_fail(const char* what) {
    std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
    std::abort();
}
inline void fuzz_check(bool ok, const char* what) {
    if (!ok) fuzz_fail(what);
}

inline bool ascending_slot_keys(const std::vector<std::uint64_t>& keys) {
    for (std::size_t i = 0; i < keys.size(); ++i) {
        if (keys[i] > kMaxPackedSlotKey) return false;
        if (i > 0 && keys[i] <= keys[i - 1]) return false;
    }
    return true;
}

// Returns true when the bytes were accepted.
inline bool fuzz_delta_frame(std::span<const std::uint8_t> bytes) {
    const WireOptions options{.position_step = 1.0f / 16.0f, .max_keys = 4096};
    DeltaFrame frame;
    if (decode_delta_frame(bytes, frame, options) != WireError::Ok) {
        fuzz_check(frame.plan.entered.empty() && frame.plan.left.empty() && frame.entered_positions.empty(),
                   "a refused frame left keys behind");
        return false;
    }
    const DeltaPlan& p = frame.plan;
    fuzz_check(ascending_slot_keys(p.entered) && ascending_slot_keys(p.left), "keys not ascending SlotKeys");
    fuzz_check(p.entered.size() <= options.max_keys && p.left.size() <= options.max_keys, "too many keys");
    fuzz_check(bytes.size() <= options.max_frame_bytes, "a frame longer than max_frame_bytes accepted");
    fuzz_check(frame.entered_positions.empty() || frame.entered_positions.size() == p.entered.size(),
               "positions do not match entered keys");
    fuzz_check(!(p.full_baseline && (p.baseline_seq || !p.left.empty())), "a full baseline with a baseline or left");
    fuzz_check(!p.baseline_seq || *p.baseline_seq < p.seq, "a baseline not older than its frame");

    ByteWriter w;
    encode_delta_frame(w, p, frame.entered_positions, options);
    fuzz_check(w.ok(), "an accepted frame does not re-encode");
    DeltaFrame again;
    fuzz_check(decode_delta_frame(w.bytes(), again, options) == WireError::Ok, "a re-encoded frame is refused");
    fuzz_check(again.plan.seq == p.seq && again.plan.baseline_seq == p.baseline_seq &&
                   again.plan.full_baseline == p.full_baseline && again.plan.digest == p.digest &&
                   again.plan.entered == p.entered && again.plan.left == p.left,
               "a re-encoded frame decodes differently");
    // Shortest-form varints, strict flags and only writable quanta: one encoding per frame,
    // and whatever is accepted is what the encoder writes.
    fuzz_check(std::equal(w.bytes().begin(), w.bytes().end(), bytes.begin(), bytes.end()),
               "an accepted frame does not re-encode to its bytes");
    // Whatever a peer sends, applying it must be safe.
    DeltaMirror<Vec2> mirror;
    mirror.apply(p, [&](std::size_t i, SlotKey) {
        return i < frame.entered_positions.size() ? frame.entered_positions[i] : Vec2{};
    });
    fuzz_check(mirror.size() <= p.entered.size(), "the mirror holds more than it was sent");
    return true;
}

inline bool fuzz_ack(std::span<const std::uint8_t> bytes) {
    AckReport report;
    if (decode_ack(bytes, report) != WireError::Ok) return false;
    ByteWriter w;
    encode_ack(w, report);
    fuzz_check(std::equal(w.bytes().begin(), w.bytes().end(), bytes.begin(), bytes.end()),
               "an accepted ack is not in canonical form");
    // A hostile report must not crash the server half, whatever frames it names.
    DeltaBaseline baseline;
    DeltaPlan plan;
    const std::vector<std::uint64_t> keys{SlotKey{1, 0}.encode(), SlotKey{2, 0}.encode()};
    for (int i = 0; i < 3; ++i) baseline.plan(keys, plan);
    baseline.observe_ack(report, 0.0);
    baseline.plan(keys, plan);
    return true;
}

// The primitives, driven by the input itself: the first bytes choose the reads.
inline void fuzz_byte_reader(std::span<const std::uint8_t> bytes) {
    if (bytes.empty()) return;
    ByteReader r(bytes.subspan(1));
    std::vector<std::uint64_t> keys;
    std::uint8_t ops = bytes[0];
    for (int i = 0; i < 8 && r.ok(); ++i, ops = static_cast<std::uint8_t>(ops * 5u + 3u)) {
        switch (ops % 8) {
            case 0:
                r.read_u8();
                break;
            case 1:
                r.read_u32();
                break;
            case 2:
                r.read_u64();
                break;
            case 3:
                r.read_varint();
                break;
            case 4:
                r.read_zigzag();
                break;
            case 5:
                r.read_fixed(0.0625f);
                break;
            case 6:
                r.read_sorted_keys(keys, 1024);
                break;
            default:
                r.read_finite_f32();
                break;
        }
        fuzz_check(r.position() <= bytes.size() - 1, "the reader moved past the end");
    }
}

}  // namespace vantage::fuzz
