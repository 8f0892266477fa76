// Private to the datagram layer's .cpp files: libsodium's one-time initialisation, and the
// 96-bit ChaCha20-Poly1305 (IETF) nonce built from a 64-bit sequence number.
#pragma once

#include <sodium.h>

#include <array>
#include <cstdint>
#include <cstdlib>

namespace vantage::room {

// sodium_init picks the fastest implementations and seeds the generator; it is thread-safe
// and idempotent, and this calls it once per process. It fails only when the system has no
// usable entropy source, where no key could be trusted: abort rather than carry on.
inline void udp_crypto_init() {
    static const bool ready = sodium_init() >= 0;
    if (!ready) std::abort();
}

// Four zero bytes, then the sequence little-endian. A key never sees the same sequence twice:
// each direction of a connection has its own key and counts its packets from zero.
inline std::array<std::uint8_t, crypto_aead_chacha20poly1305_IETF_NPUBBYTES> udp_sequence_nonce(
    std::uint64_t sequence) {
    std::array<std::uint8_t, crypto_aead_chacha20poly1305_IETF_NPUBBYTES> nonce{};
    for (std::size_t i = 0; i < 8; ++i) nonce[4 + i] = static_cast<std::uint8_t>(sequence >> (8 * i));
    return nonce;
}

}  // namespace vantage::room
