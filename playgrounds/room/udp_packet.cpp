#include "room/udp_packet.hpp"

#include <sodium.h>

#include <algorithm>
#include <bit>

#include "room/udp_crypto.hpp"
#include "vantage/assert.hpp"
#include "vantage/byte_io.hpp"

namespace vantage::room {
namespace {

// A packet's associated data: version tag, protocol id, prefix byte (17 bytes).
std::array<std::uint8_t, 17> packet_associated_data(std::uint64_t protocol_id, std::uint8_t prefix) {
    std::array<std::uint8_t, 17> data{};
    std::copy(kUdpVersionTag.begin(), kUdpVersionTag.end(), data.begin());
    for (std::size_t i = 0; i < 8; ++i) data[8 + i] = static_cast<std::uint8_t>(protocol_id >> (8 * i));
    data[16] = prefix;
    return data;
}

// Bytes the sequence takes: the fewest that hold it, at least one.
std::size_t sequence_bytes(std::uint64_t sequence) {
    return std::max<std::size_t>(1, (static_cast<std::size_t>(std::bit_width(sequence)) + 7) / 8);
}

constexpr std::size_t kChallengePlainBytes = 16;

}  // namespace

static_assert(kUdpMacBytes == crypto_aead_chacha20poly1305_IETF_ABYTES);
static_assert(kUdpSealedChallengeBytes == kChallengePlainBytes + kUdpMacBytes);

void encode_udp_request(const UdpConnectRequest& request, ByteWriter& out) {
    out.write_u8(static_cast<std::uint8_t>(UdpPacketType::Request));
    out.write_bytes(kUdpVersionTag);
    out.write_u64(request.protocol_id);
    out.write_u64(request.expire_ms);
    out.write_bytes(request.nonce);
    out.write_bytes(request.sealed);
}

UdpError decode_udp_request(std::span<const std::uint8_t> bytes, UdpConnectRequest& out) {
    if (bytes.size() != kUdpRequestBytes) return UdpError::WrongSize;
    if (bytes[0] != static_cast<std::uint8_t>(UdpPacketType::Request)) return UdpError::WrongType;
    ByteReader in(bytes.subspan(1));
    std::array<std::uint8_t, 8> tag;
    in.read_bytes(tag);
    if (tag != kUdpVersionTag) return UdpError::WrongVersion;
    UdpConnectRequest request;
    request.protocol_id = in.read_u64();
    request.expire_ms = in.read_u64();
    in.read_bytes(request.nonce);
    in.read_bytes(request.sealed);
    if (!in.finish()) return UdpError::WrongSize;
    out = request;
    return UdpError::Ok;
}

UdpError read_udp_header(std::span<const std::uint8_t> bytes, UdpPacketHeader& out) {
    if (bytes.size() < 1 + 1 + kUdpMacBytes || bytes.size() > kUdpMaxPacketBytes) return UdpError::WrongSize;
    const std::uint8_t prefix = bytes[0];
    const unsigned type = prefix & 0x0Fu;
    const std::size_t count = prefix >> 4;
    if (type > static_cast<unsigned>(UdpPacketType::Disconnect)) return UdpError::UnknownType;
    if (type == static_cast<unsigned>(UdpPacketType::Request)) return UdpError::WrongType;
    if (count < 1 || count > 8) return UdpError::BadHeader;
    if (bytes.size() < 1 + count + kUdpMacBytes) return UdpError::WrongSize;
    std::uint64_t sequence = 0;
    for (std::size_t i = 0; i < count; ++i) sequence |= std::uint64_t{bytes[1 + i]} << (8 * i);
    if (sequence_bytes(sequence) != count) return UdpError::BadHeader;
    out.type = static_cast<UdpPacketType>(type);
    out.sequence = sequence;
    out.header_bytes = 1 + count;
    return UdpError::Ok;
}

bool udp_body_size_ok(UdpPacketType type, std::size_t size) {
    switch (type) {
        case UdpPacketType::Request:
            return false;
        case UdpPacketType::Denied:
            return size == 0;
        case UdpPacketType::Challenge:
            return size == kUdpChallengeBodyBytes;
        case UdpPacketType::Response:
            return size == kUdpChallengeBodyBytes;
        case UdpPacketType::KeepAlive:
            return size == kUdpKeepAliveBodyBytes;
        case UdpPacketType::Payload:
            return size >= 1 && size <= kUdpMaxPayloadBytes;
        case UdpPacketType::Disconnect:
            return size == 0;
    }
    return false;
}

void seal_udp_packet(UdpPacketType type, std::uint64_t sequence, std::span<const std::uint8_t> body, const UdpKey& key,
                     std::uint64_t protocol_id, ByteWriter& out) {
    VANTAGE_ASSERT(type != UdpPacketType::Request && udp_body_size_ok(type, body.size()),
                   "seal_udp_packet: a body its type does not allow");
    const std::size_t count = sequence_bytes(sequence);
    const auto prefix = static_cast<std::uint8_t>((count << 4) | static_cast<std::uint8_t>(type));
    out.write_u8(prefix);
    for (std::size_t i = 0; i < count; ++i) out.write_u8(static_cast<std::uint8_t>(sequence >> (8 * i)));
    std::array<std::uint8_t, kUdpMaxPayloadBytes + kUdpMacBytes> sealed;
    const auto ad = packet_associated_data(protocol_id, prefix);
    const auto nonce = udp_sequence_nonce(sequence);
    unsigned long long sealed_size = 0;
    crypto_aead_chacha20poly1305_ietf_encrypt(sealed.data(), &sealed_size, body.data(), body.size(), ad.data(),
                                              ad.size(), nullptr, nonce.data(), key.data());
    out.write_bytes(std::span(sealed).first(static_cast<std::size_t>(sealed_size)));
}

UdpError open_udp_packet(std::span<const std::uint8_t> bytes, const UdpPacketHeader& header, const UdpKey& key,
                         std::uint64_t protocol_id, std::span<std::uint8_t, kUdpMaxPayloadBytes> body,
                         std::size_t& body_size) {
    const std::span<const std::uint8_t> sealed = bytes.subspan(header.header_bytes);
    if (sealed.size() < kUdpMacBytes || sealed.size() - kUdpMacBytes > kUdpMaxPayloadBytes) return UdpError::WrongSize;
    const auto ad = packet_associated_data(protocol_id, bytes[0]);
    const auto nonce = udp_sequence_nonce(header.sequence);
    unsigned long long opened = 0;
    if (crypto_aead_chacha20poly1305_ietf_decrypt(body.data(), &opened, nullptr, sealed.data(), sealed.size(),
                                                  ad.data(), ad.size(), nonce.data(), key.data()) != 0)
        return UdpError::Forged;
    body_size = static_cast<std::size_t>(opened);
    return udp_body_size_ok(header.type, body_size) ? UdpError::Ok : UdpError::WrongSize;
}

void encode_udp_challenge_body(const UdpChallengeBody& body, ByteWriter& out) {
    out.write_u64(body.challenge_sequence);
    out.write_bytes(body.sealed);
}

UdpError decode_udp_challenge_body(std::span<const std::uint8_t> bytes, UdpChallengeBody& out) {
    if (bytes.size() != kUdpChallengeBodyBytes) return UdpError::WrongSize;
    ByteReader in(bytes);
    UdpChallengeBody body;
    body.challenge_sequence = in.read_u64();
    in.read_bytes(body.sealed);
    if (!in.finish()) return UdpError::WrongSize;
    out = body;
    return UdpError::Ok;
}

UdpChallengeBody seal_udp_challenge(const UdpChallengeToken& token, std::uint64_t challenge_sequence,
                                    const UdpKey& challenge_key) {
    ByteWriter plain;
    plain.write_u64(token.client_id);
    plain.write_u32(token.seat);
    plain.write_u32(0);
    UdpChallengeBody body;
    body.challenge_sequence = challenge_sequence;
    const auto nonce = udp_sequence_nonce(challenge_sequence);
    unsigned long long sealed_size = 0;
    crypto_aead_chacha20poly1305_ietf_encrypt(body.sealed.data(), &sealed_size, plain.bytes().data(), plain.size(),
                                              nullptr, 0, nullptr, nonce.data(), challenge_key.data());
    return body;
}

UdpError open_udp_challenge(const UdpChallengeBody& body, const UdpKey& challenge_key, UdpChallengeToken& out) {
    std::array<std::uint8_t, kChallengePlainBytes> plain;
    unsigned long long plain_size = 0;
    const auto nonce = udp_sequence_nonce(body.challenge_sequence);
    if (crypto_aead_chacha20poly1305_ietf_decrypt(plain.data(), &plain_size, nullptr, body.sealed.data(),
                                                  body.sealed.size(), nullptr, 0, nonce.data(),
                                                  challenge_key.data()) != 0)
        return UdpError::Forged;
    ByteReader in(plain);
    UdpChallengeToken token;
    token.client_id = in.read_u64();
    token.seat = in.read_u32();
    const std::uint32_t padding = in.read_u32();
    if (!in.finish()) return UdpError::WrongSize;
    if (padding != 0) return UdpError::Malformed;
    out = token;
    return UdpError::Ok;
}

void encode_udp_keep_alive_body(const UdpKeepAliveBody& body, ByteWriter& out) {
    out.write_u32(body.client_index);
    out.write_u32(body.max_clients);
}

UdpError decode_udp_keep_alive_body(std::span<const std::uint8_t> bytes, UdpKeepAliveBody& out) {
    if (bytes.size() != kUdpKeepAliveBodyBytes) return UdpError::WrongSize;
    ByteReader in(bytes);
    UdpKeepAliveBody body;
    body.client_index = in.read_u32();
    body.max_clients = in.read_u32();
    if (!in.finish()) return UdpError::WrongSize;
    if (body.max_clients < 1 || body.max_clients > 65536 || body.client_index >= body.max_clients)
        return UdpError::Malformed;
    out = body;
    return UdpError::Ok;
}

}  // namespace vantage::room
