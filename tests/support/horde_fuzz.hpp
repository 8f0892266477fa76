// Fuzz body for the horde packet's decoder, shared by the libFuzzer target
// (tests/fuzz/horde_packet_fuzz.cpp) and the seeded corpus test in playground_tests: any bytes
// are either refused or decoded, and what is decoded re-encodes to the very same bytes (so the
// decoder accepts only what the encoder writes, the Rice parameters and padding included), and
// decoding into a warm packet allocates nothing.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "horde/horde_wire.hpp"

namespace vantage::fuzz {

// Returns true when the bytes were accepted (and then re-encoded identically).
inline bool fuzz_horde_packet(std::span<const std::uint8_t> bytes) {
    static play::HordePacket p;
    static ByteWriter w, nested;
    const WireError e = play::decode_horde_packet(bytes, p);
    if (e != WireError::Ok) {
        if (!p.players.empty() || !p.corrections.empty() || !p.crowd.empty()) std::abort();  // a refusal leaves nothing
        return false;
    }
    const play::HordePacketBytes sizes = play::encode_horde_packet(w, nested, p);
    if (!sizes.ok || sizes.total() != bytes.size()) std::abort();
    if (!std::equal(w.bytes().begin(), w.bytes().end(), bytes.begin(), bytes.end())) std::abort();
    return true;
}

}  // namespace vantage::fuzz
