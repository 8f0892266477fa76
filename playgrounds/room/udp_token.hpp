// UdpConnectToken: the permission to open one datagram connection to one room server.
//
// The room server issues a token to a seat that has already joined over the authenticated
// WebSocket and hands it over there. The token has a public part the client reads (the
// server's address, the connection timeout, the two per-connection keys) and a private part
// only the server can open: the same facts plus the client id and seat, sealed with
// XChaCha20-Poly1305 under a key the server never sends anywhere. The client cannot read or
// change the private part; it copies it verbatim into its connection request, and the server
// believes only what it opens from there. The seal's associated data (version tag, protocol
// id, expiry) binds those clear fields to it: changing the expiry in the request fails the
// seal, so an expired token cannot be revived.
//
// What a token guarantees: whoever presents it was given it by this server's key holder,
// within its lifetime, for this server address, and talks under the two keys sealed in it.
// What it does not: secrecy of the public part in transit (the WebSocket carries it, in the
// clear unless the room runs behind TLS, and then an eavesdropper holds the keys too); that
// the presenter is the seat it was issued to (a stolen token works until the first use, after
// which the server binds it to that address). A token opens one connection: reconnecting
// needs a new one (the per-connection keys must not be reused with fresh sequence numbers).
//
// Times are milliseconds on the issuing server's clock (the room's steady clock); the
// server compares expiry against the same clock. The client never compares clocks: it only
// uses the lifetime (expire - create) and the timeout as durations.
//
// Sizes are fixed: a token is always kUdpTokenBytes and its sealed part kUdpSealedTokenBytes,
// so a request has one size and any padding or stray byte is an error. udp.md is the byte
// layout; tests/playgrounds/udp_token_test.cpp pins it with golden bytes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "room/udp_address.hpp"
#include "room/udp_error.hpp"

namespace vantage {
class ByteReader;
class ByteWriter;
}  // namespace vantage

namespace vantage::room {

using UdpKey = std::array<std::uint8_t, 32>;         // a ChaCha20-Poly1305 / XChaCha20 key
using UdpTokenNonce = std::array<std::uint8_t, 24>;  // XChaCha20's nonce: random per token

// Eight ASCII bytes that open every token and request and enter every packet's associated
// data: a peer speaking another version fails at the first check (or the first seal).
inline constexpr std::array<std::uint8_t, 8> kUdpVersionTag = {'V', 'N', 'T', 'G', 'U', 'D', 'P', '1'};

inline constexpr std::size_t kUdpAddressBytes = 19;          // family, 16 address bytes, port
inline constexpr std::size_t kUdpTokenPrivateBytes = 112;    // the private part before sealing
inline constexpr std::size_t kUdpSealedTokenBytes = 128;     // sealed: + a 16-byte tag
inline constexpr std::size_t kUdpTokenBytes = 271;           // the whole token, public part included
inline constexpr std::uint32_t kUdpMinTimeoutMs = 100;       // a token's connection timeout range
inline constexpr std::uint32_t kUdpMaxTimeoutMs = 60000;     //
inline constexpr std::uint64_t kUdpMaxLifetimeMs = 3600000;  // expire - create, at most one hour

// What only the server can read. A client id identifies one connection attempt's owner (the
// room gives each seat occupant its own); the seat says where the room puts its frames.
struct UdpTokenPrivate {
    std::uint64_t client_id = 0;
    std::uint32_t seat = 0;
    std::uint32_t timeout_ms = 0;  // silence after which a connection ends, [100, 60000]
    UdpAddress server_address;     // the only address this token connects to
    UdpKey client_to_server_key{};
    UdpKey server_to_client_key{};

    friend bool operator==(const UdpTokenPrivate&, const UdpTokenPrivate&) = default;
};

struct UdpConnectToken {
    std::uint64_t protocol_id = 0;  // one per application; a server refuses others' tokens
    std::uint64_t create_ms = 0;    // the issuing server's clock, ms
    std::uint64_t expire_ms = 0;    // > create_ms, at most kUdpMaxLifetimeMs later
    UdpTokenNonce nonce{};
    std::array<std::uint8_t, kUdpSealedTokenBytes> sealed{};  // UdpTokenPrivate, sealed
    std::uint32_t timeout_ms = 0;                             // as sealed inside, for the client
    UdpAddress server_address;                                // where the client sends its request
    UdpKey client_to_server_key{};                            // the client's sending key
    UdpKey server_to_client_key{};                            // the client's receiving key

    std::uint64_t lifetime_ms() const { return expire_ms - create_ms; }
    friend bool operator==(const UdpConnectToken&, const UdpConnectToken&) = default;
};

struct UdpTokenOptions {
    std::uint64_t protocol_id = 0x76616e7461676501;  // the application ("vantage" 0x01)
    std::uint32_t lifetime_ms = 30000;               // from issue to expiry, [1000, 3600000]
    std::uint32_t timeout_ms = 5000;                 // connection silence timeout, [100, 60000]
    std::string_view validate() const;
};

// A fresh random key (libsodium's generator), e.g. the server's token key at start.
UdpKey make_udp_key();

// Seals `secret` into a token (deterministic: the same inputs give the same bytes; tests and
// golden bytes use it). The public copies of the address, timeout and keys come from secret.
UdpConnectToken seal_udp_token(const UdpTokenPrivate& secret, std::uint64_t protocol_id, std::uint64_t create_ms,
                               std::uint64_t expire_ms, const UdpTokenNonce& nonce, const UdpKey& server_key);

// A token for one client: fresh per-connection keys and nonce from libsodium's generator,
// created at now_ms and expiring options.lifetime_ms later. Asserts options are valid.
UdpConnectToken issue_udp_token(const UdpTokenOptions& options, std::uint64_t client_id, std::uint32_t seat,
                                const UdpAddress& server_address, std::uint64_t now_ms, const UdpKey& server_key);

// Opens a sealed private part (as a connection request carries it): Forged when the seal does
// not open under server_key with these clear fields, Malformed when what it holds breaks a
// rule. `out` is written only on Ok.
UdpError open_udp_token(std::uint64_t protocol_id, std::uint64_t expire_ms, const UdpTokenNonce& nonce,
                        std::span<const std::uint8_t, kUdpSealedTokenBytes> sealed, const UdpKey& server_key,
                        UdpTokenPrivate& out);

// The token's bytes: exactly kUdpTokenBytes appended to out.
void encode_udp_token(const UdpConnectToken& token, ByteWriter& out);
// Validating decode of the public part: size, version, times, timeout range, the address and
// its padding (the sealed part is opaque to a client). `out` is written only on Ok, and an Ok
// token re-encodes to exactly `bytes`.
UdpError decode_udp_token(std::span<const std::uint8_t> bytes, UdpConnectToken& out);

// The private part's plaintext layout (what seal and open put inside the seal), exposed so
// tests can fuzz its decoder directly: exactly kUdpTokenPrivateBytes, zero padding checked.
void encode_udp_token_private(const UdpTokenPrivate& secret, ByteWriter& out);
UdpError decode_udp_token_private(std::span<const std::uint8_t> bytes, UdpTokenPrivate& out);

// The 19-byte address form, shared with anything else that carries an address.
void write_udp_address(const UdpAddress& address, ByteWriter& out);
// Malformed for a family other than IPv4/IPv6, IPv4 with non-zero padding, or port 0.
UdpError read_udp_address(ByteReader& in, UdpAddress& out);

}  // namespace vantage::room
