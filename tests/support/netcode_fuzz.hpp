// Fuzz bodies for the netcode playground's two decoders, shared by the libFuzzer target
// (tests/fuzz/netcode_packet_fuzz.cpp) and the seeded corpus test in playground_tests: any
// bytes either decodes or is refused; what is accepted re-encodes to the very same bytes; and
// the packet inspector's narration of it tiles the message exactly.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "netcode/netcode_wire.hpp"
#include "support/narration.hpp"

namespace vantage::fuzz {

// Aborts (so libFuzzer and the corpus test both see it) unless the narration tiles `bytes`.
inline void check_narration(std::span<const std::uint8_t> bytes, const std::vector<play::WireField>& fields) {
    if (!narration_tiles(bytes, fields)) std::abort();
}

// Returns true when the bytes were accepted (and then re-encoded identically).
inline bool fuzz_input_packet(std::span<const std::uint8_t> bytes) {
    play::InputPacket p;
    if (play::decode_input(bytes, p) != WireError::Ok) {
        std::vector<play::WireField> fields;
        if (play::decode_input(bytes, p, &fields) == WireError::Ok) std::abort();  // narration changes nothing
        return false;
    }
    ByteWriter w;
    play::encode_input(w, p);
    if (!w.ok() || !std::equal(w.bytes().begin(), w.bytes().end(), bytes.begin(), bytes.end())) std::abort();
    std::vector<play::WireField> fields;
    if (play::decode_input(bytes, p, &fields) != WireError::Ok) std::abort();
    check_narration(bytes, fields);
    return true;
}

inline bool fuzz_state_packet(std::span<const std::uint8_t> bytes) {
    play::StatePacket p;
    if (play::decode_state(bytes, p) != WireError::Ok) {
        std::vector<play::WireField> fields;
        if (play::decode_state(bytes, p, &fields) == WireError::Ok) std::abort();
        return false;
    }
    ByteWriter w;
    play::encode_state(w, p);
    if (!w.ok() || !std::equal(w.bytes().begin(), w.bytes().end(), bytes.begin(), bytes.end())) std::abort();
    std::vector<play::WireField> fields;
    if (play::decode_state(bytes, p, &fields) != WireError::Ok) std::abort();
    check_narration(bytes, fields);
    return true;
}

}  // namespace vantage::fuzz
