// Fuzz bodies for every decoder on the delta stream, shared by the seeded corpus test
// (tests/core/delta_fuzz_test.cpp, which runs everywhere, wasm and ASan included) and the
// libFuzzer targets (tests/fuzz/, built with clang when VANTAGE_BUILD_FUZZ is on).
//
// Each body takes arbitrary bytes and checks what a validating decoder promises: no crash,
// no read past the end (ASan), and when it accepts, an output that keeps the message's
// invariants and survives a re-encode. The delta bodies return a FuzzOutcome naming the first
// broken promise, so the corpus test fails an assertion with the seed; the libFuzzer targets
// pass it to require(), which aborts. The other bodies (room, text) call fuzz_check(), which
// aborts with the promise's name.
#pragma once

#include <algorithm>
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

// What one input did to a decoder: refused or accepted, and the first promise it broke.
struct FuzzOutcome {
    bool accepted = false;
    const char* broken = nullptr;  // null when every promise held
};
inline FuzzOutcome broke(const char* what) {
    return {.accepted = false, .broken = what};
}
inline FuzzOutcome refused() {
    return {.accepted = false};
}
inline FuzzOutcome accepted() {
    return {.accepted = true};
}

// For the libFuzzer targets: a broken promise aborts (libFuzzer then saves the input).
inline bool require(const FuzzOutcome& outcome) {
    if (outcome.broken != nullptr) fuzz_fail(outcome.broken);
    return outcome.accepted;
}

inline bool ascending_slot_keys(const std::vector<std::uint64_t>& keys) {
    for (std::size_t i = 0; i < keys.size(); ++i) {
        if (keys[i] > kMaxPackedSlotKey) return false;
        if (i > 0 && keys[i] <= keys[i - 1]) return false;
    }
    return true;
}

// accepted when the decoder took the bytes; refused when it turned them down.
inline FuzzOutcome fuzz_delta_frame(std::span<const std::uint8_t> bytes) {
    const WireOptions options{.position_step = 1.0f / 16.0f, .max_keys = 4096};
    DeltaFrame frame;
    if (decode_delta_frame(bytes, frame, options) != WireError::Ok) {
        if (!(frame.plan.entered.empty() && frame.plan.left.empty() && frame.entered_positions.empty()))
            return broke("a refused frame left keys behind");
        return refused();
    }
    const DeltaPlan& p = frame.plan;
    if (!(ascending_slot_keys(p.entered) && ascending_slot_keys(p.left))) return broke("keys not ascending SlotKeys");
    if (!(p.entered.size() <= options.max_keys && p.left.size() <= options.max_keys)) return broke("too many keys");
    if (bytes.size() > options.max_frame_bytes) return broke("a frame longer than max_frame_bytes accepted");
    if (!(frame.entered_positions.empty() || frame.entered_positions.size() == p.entered.size()))
        return broke("positions do not match entered keys");
    if (p.full_baseline && (p.baseline_seq || !p.left.empty())) return broke("a full baseline with a baseline or left");
    if (!(!p.baseline_seq || *p.baseline_seq < p.seq)) return broke("a baseline not older than its frame");

    ByteWriter w;
    encode_delta_frame(w, p, frame.entered_positions, options);
    if (!w.ok()) return broke("an accepted frame does not re-encode");
    DeltaFrame again;
    if (!(decode_delta_frame(w.bytes(), again, options) == WireError::Ok))
        return broke("a re-encoded frame is refused");
    if (!(again.plan.seq == p.seq && again.plan.baseline_seq == p.baseline_seq &&
          again.plan.full_baseline == p.full_baseline && again.plan.digest == p.digest &&
          again.plan.entered == p.entered && again.plan.left == p.left))
        return broke("a re-encoded frame decodes differently");
    // Shortest-form varints, strict flags and only writable quanta: one encoding per frame,
    // and whatever is accepted is what the encoder writes.
    if (!(std::equal(w.bytes().begin(), w.bytes().end(), bytes.begin(), bytes.end())))
        return broke("an accepted frame does not re-encode to its bytes");
    // Whatever a peer sends, applying it must be safe.
    DeltaMirror<Vec2> mirror;
    mirror.apply(p, [&](std::size_t i, SlotKey) {
        return i < frame.entered_positions.size() ? frame.entered_positions[i] : Vec2{};
    });
    if (mirror.size() > p.entered.size()) return broke("the mirror holds more than it was sent");
    return accepted();
}

inline FuzzOutcome fuzz_ack(std::span<const std::uint8_t> bytes) {
    AckReport report;
    if (decode_ack(bytes, report) != WireError::Ok) return refused();
    ByteWriter w;
    encode_ack(w, report);
    if (!(std::equal(w.bytes().begin(), w.bytes().end(), bytes.begin(), bytes.end())))
        return broke("an accepted ack is not in canonical form");
    // A hostile report must not crash the server half, whatever frames it names.
    DeltaBaseline baseline;
    DeltaPlan plan;
    const std::vector<std::uint64_t> keys{SlotKey{1, 0}.encode(), SlotKey{2, 0}.encode()};
    for (int i = 0; i < 3; ++i) baseline.plan(keys, plan);
    baseline.observe_ack(report, 0.0);
    baseline.plan(keys, plan);
    return accepted();
}

// The primitives, driven by the input itself: the first byte chooses the reads.
inline FuzzOutcome fuzz_byte_reader(std::span<const std::uint8_t> bytes) {
    if (bytes.empty()) return refused();
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
            case 4: {
                // Re-encode property: an accepted varint (or zigzag) is in its shortest form, so
                // writing the value back gives exactly the bytes it was read from.
                const std::size_t from = r.position();
                ByteWriter w;
                if (ops % 8 == 3) {
                    const std::uint64_t v = r.read_varint();
                    if (r.ok()) w.write_varint(v);
                } else {
                    const std::int64_t v = r.read_zigzag();
                    if (r.ok()) w.write_zigzag(v);
                }
                const auto read = bytes.subspan(1 + from, std::min(r.position(), bytes.size() - 1) - from);
                if (r.ok() && !std::equal(w.bytes().begin(), w.bytes().end(), read.begin(), read.end()))
                    return broke("an accepted varint does not re-encode to its bytes");
                break;
            }
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
        if (r.position() > bytes.size() - 1) return broke("the reader moved past the end");
    }
    // accepted: all eight reads found their bytes; refused: one ran out or was malformed.
    return r.ok() ? accepted() : refused();
}

}  // namespace vantage::fuzz
