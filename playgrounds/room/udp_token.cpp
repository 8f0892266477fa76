#include "room/udp_token.hpp"

#include <sodium.h>

#include <algorithm>
#include <cstring>

#include "room/udp_crypto.hpp"
#include "vantage/assert.hpp"
#include "vantage/byte_io.hpp"

namespace vantage::room {
namespace {

// The seal's associated data: version tag, protocol id, expiry (24 bytes).
std::array<std::uint8_t, 24> token_associated_data(std::uint64_t protocol_id, std::uint64_t expire_ms) {
    std::array<std::uint8_t, 24> data{};
    std::copy(kUdpVersionTag.begin(), kUdpVersionTag.end(), data.begin());
    for (std::size_t i = 0; i < 8; ++i) {
        data[8 + i] = static_cast<std::uint8_t>(protocol_id >> (8 * i));
        data[16 + i] = static_cast<std::uint8_t>(expire_ms >> (8 * i));
    }
    return data;
}

bool all_zero(std::span<const std::uint8_t> bytes) {
    return std::all_of(bytes.begin(), bytes.end(), [](std::uint8_t b) { return b == 0; });
}

UdpError wire_to_udp(WireError error) {
    // Only truncation and leftovers come out of the fixed-size readers used here.
    return error == WireError::Ok ? UdpError::Ok : UdpError::WrongSize;
}

}  // namespace

static_assert(kUdpSealedTokenBytes == kUdpTokenPrivateBytes + crypto_aead_xchacha20poly1305_ietf_ABYTES);
static_assert(std::tuple_size_v<UdpTokenNonce> == crypto_aead_xchacha20poly1305_ietf_NPUBBYTES);
static_assert(std::tuple_size_v<UdpKey> == crypto_aead_xchacha20poly1305_ietf_KEYBYTES);
static_assert(kUdpTokenBytes == 8 + 8 + 8 + 8 + 24 + kUdpSealedTokenBytes + 4 + kUdpAddressBytes + 32 + 32);

std::string_view UdpTokenOptions::validate() const {
    if (lifetime_ms < 1000 || lifetime_ms > kUdpMaxLifetimeMs) return "lifetime_ms must be in [1000, 3600000]";
    if (timeout_ms < kUdpMinTimeoutMs || timeout_ms > kUdpMaxTimeoutMs) return "timeout_ms must be in [100, 60000]";
    return {};
}

UdpKey make_udp_key() {
    udp_crypto_init();
    UdpKey key;
    crypto_aead_xchacha20poly1305_ietf_keygen(key.data());
    return key;
}

void write_udp_address(const UdpAddress& address, ByteWriter& out) {
    out.write_u8(static_cast<std::uint8_t>(address.family));
    out.write_bytes(address.bytes);
    out.write_u16(address.port);
}

UdpError read_udp_address(ByteReader& in, UdpAddress& out) {
    UdpAddress address;
    const std::uint8_t family = in.read_u8();
    in.read_bytes(address.bytes);
    address.port = in.read_u16();
    if (!in.ok()) return wire_to_udp(in.error());
    if (family != static_cast<std::uint8_t>(UdpFamily::V4) && family != static_cast<std::uint8_t>(UdpFamily::V6))
        return UdpError::Malformed;
    address.family = static_cast<UdpFamily>(family);
    if (address.family == UdpFamily::V4 && !all_zero(std::span(address.bytes).subspan(4))) return UdpError::Malformed;
    if (address.port == 0) return UdpError::Malformed;
    out = address;
    return UdpError::Ok;
}

void encode_udp_token_private(const UdpTokenPrivate& secret, ByteWriter& out) {
    const std::size_t start = out.size();
    out.write_u64(secret.client_id);
    out.write_u32(secret.seat);
    out.write_u32(secret.timeout_ms);
    write_udp_address(secret.server_address, out);
    out.write_bytes(secret.client_to_server_key);
    out.write_bytes(secret.server_to_client_key);
    while (out.size() - start < kUdpTokenPrivateBytes) out.write_u8(0);
}

UdpError decode_udp_token_private(std::span<const std::uint8_t> bytes, UdpTokenPrivate& out) {
    if (bytes.size() != kUdpTokenPrivateBytes) return UdpError::WrongSize;
    ByteReader in(bytes);
    UdpTokenPrivate secret;
    secret.client_id = in.read_u64();
    secret.seat = in.read_u32();
    secret.timeout_ms = in.read_u32();
    if (const UdpError error = read_udp_address(in, secret.server_address); error != UdpError::Ok) return error;
    in.read_bytes(secret.client_to_server_key);
    in.read_bytes(secret.server_to_client_key);
    if (!in.ok()) return wire_to_udp(in.error());
    if (!all_zero(bytes.subspan(in.position()))) return UdpError::Malformed;
    if (secret.timeout_ms < kUdpMinTimeoutMs || secret.timeout_ms > kUdpMaxTimeoutMs) return UdpError::Malformed;
    out = secret;
    return UdpError::Ok;
}

UdpConnectToken seal_udp_token(const UdpTokenPrivate& secret, std::uint64_t protocol_id, std::uint64_t create_ms,
                               std::uint64_t expire_ms, const UdpTokenNonce& nonce, const UdpKey& server_key) {
    VANTAGE_ASSERT(expire_ms > create_ms && expire_ms - create_ms <= kUdpMaxLifetimeMs,
                   "seal_udp_token: expire_ms must be after create_ms, within an hour");
    VANTAGE_ASSERT(secret.timeout_ms >= kUdpMinTimeoutMs && secret.timeout_ms <= kUdpMaxTimeoutMs,
                   "seal_udp_token: timeout_ms must be in [100, 60000]");
    VANTAGE_ASSERT(secret.server_address.family != UdpFamily::None && secret.server_address.port != 0,
                   "seal_udp_token: the server address must be set");
    UdpConnectToken token;
    token.protocol_id = protocol_id;
    token.create_ms = create_ms;
    token.expire_ms = expire_ms;
    token.nonce = nonce;
    token.timeout_ms = secret.timeout_ms;
    token.server_address = secret.server_address;
    token.client_to_server_key = secret.client_to_server_key;
    token.server_to_client_key = secret.server_to_client_key;

    ByteWriter plain;
    encode_udp_token_private(secret, plain);
    const auto ad = token_associated_data(protocol_id, expire_ms);
    unsigned long long sealed_size = 0;
    crypto_aead_xchacha20poly1305_ietf_encrypt(token.sealed.data(), &sealed_size, plain.bytes().data(), plain.size(),
                                               ad.data(), ad.size(), nullptr, nonce.data(), server_key.data());
    VANTAGE_ASSERT(sealed_size == kUdpSealedTokenBytes, "seal_udp_token: unexpected sealed size");
    return token;
}

UdpConnectToken issue_udp_token(const UdpTokenOptions& options, std::uint64_t client_id, std::uint32_t seat,
                                const UdpAddress& server_address, std::uint64_t now_ms, const UdpKey& server_key) {
    VANTAGE_ASSERT_VALID(options, "issue_udp_token: invalid options");
    udp_crypto_init();
    UdpTokenPrivate secret;
    secret.client_id = client_id;
    secret.seat = seat;
    secret.timeout_ms = options.timeout_ms;
    secret.server_address = server_address;
    crypto_aead_chacha20poly1305_ietf_keygen(secret.client_to_server_key.data());
    crypto_aead_chacha20poly1305_ietf_keygen(secret.server_to_client_key.data());
    UdpTokenNonce nonce;
    randombytes_buf(nonce.data(), nonce.size());
    return seal_udp_token(secret, options.protocol_id, now_ms, now_ms + options.lifetime_ms, nonce, server_key);
}

UdpError open_udp_token(std::uint64_t protocol_id, std::uint64_t expire_ms, const UdpTokenNonce& nonce,
                        std::span<const std::uint8_t, kUdpSealedTokenBytes> sealed, const UdpKey& server_key,
                        UdpTokenPrivate& out) {
    std::array<std::uint8_t, kUdpTokenPrivateBytes> plain;
    unsigned long long plain_size = 0;
    const auto ad = token_associated_data(protocol_id, expire_ms);
    if (crypto_aead_xchacha20poly1305_ietf_decrypt(plain.data(), &plain_size, nullptr, sealed.data(), sealed.size(),
                                                   ad.data(), ad.size(), nonce.data(), server_key.data()) != 0)
        return UdpError::Forged;
    const UdpError error = decode_udp_token_private(std::span(plain).first(plain_size), out);
    sodium_memzero(plain.data(), plain.size());
    return error;
}

void encode_udp_token(const UdpConnectToken& token, ByteWriter& out) {
    out.write_bytes(kUdpVersionTag);
    out.write_u64(token.protocol_id);
    out.write_u64(token.create_ms);
    out.write_u64(token.expire_ms);
    out.write_bytes(token.nonce);
    out.write_bytes(token.sealed);
    out.write_u32(token.timeout_ms);
    write_udp_address(token.server_address, out);
    out.write_bytes(token.client_to_server_key);
    out.write_bytes(token.server_to_client_key);
}

UdpError decode_udp_token(std::span<const std::uint8_t> bytes, UdpConnectToken& out) {
    if (bytes.size() != kUdpTokenBytes) return UdpError::WrongSize;
    ByteReader in(bytes);
    std::array<std::uint8_t, 8> tag;
    in.read_bytes(tag);
    if (tag != kUdpVersionTag) return UdpError::WrongVersion;
    UdpConnectToken token;
    token.protocol_id = in.read_u64();
    token.create_ms = in.read_u64();
    token.expire_ms = in.read_u64();
    in.read_bytes(token.nonce);
    in.read_bytes(token.sealed);
    token.timeout_ms = in.read_u32();
    if (const UdpError error = read_udp_address(in, token.server_address); error != UdpError::Ok) return error;
    in.read_bytes(token.client_to_server_key);
    in.read_bytes(token.server_to_client_key);
    if (!in.finish()) return wire_to_udp(in.error());
    if (token.expire_ms <= token.create_ms || token.expire_ms - token.create_ms > kUdpMaxLifetimeMs)
        return UdpError::Malformed;
    if (token.timeout_ms < kUdpMinTimeoutMs || token.timeout_ms > kUdpMaxTimeoutMs) return UdpError::Malformed;
    out = token;
    return UdpError::Ok;
}

}  // namespace vantage::room
