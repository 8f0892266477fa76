// UdpPacket: the datagrams of a connection between a room server and a native client or bot.
//
// Seven kinds. The connection request is in the clear: a prefix byte of 0, then the token's
// version tag, protocol id, expiry, nonce and sealed private part, always kUdpRequestBytes
// (177). Every other packet is a prefix byte (the type in the low four bits, the number of
// sequence bytes, 1 to 8, in the high four), the sequence number little-endian in that many
// bytes (the fewest that hold it: a longer form is refused, so a packet has one encoding),
// then the body sealed with ChaCha20-Poly1305 (IETF): the nonce is four zero bytes and the
// sequence as eight little-endian bytes, the associated data the version tag, the protocol
// id and the prefix byte, so neither the type nor the sequence can be changed in flight.
// Each direction has its own key from the connect token and counts from sequence 0.
//
//   type            from    body (before sealing)
//   0  Request      client  (clear, see above)
//   1  Denied       server  nothing: the server is full
//   2  Challenge    server  challenge sequence u64, sealed challenge token (32 bytes)
//   3  Response     client  the challenge body, echoed
//   4  KeepAlive    both    client index u32, max clients u32
//   5  Payload      both    1 to kUdpMaxPayloadBytes bytes of the application's frame
//   6  Disconnect   both    nothing
//
// The challenge token (client id u64, seat u32, four zero bytes) is sealed under a key only
// the server holds, with its own counter as nonce: a client proves it received the challenge
// at its address by echoing it, so a request from a spoofed address never becomes a
// connection. Sizes are chosen so that no reply is larger than what it answers: the request
// is 177 bytes, a challenge 58 to 65, a Denied 18 to 25, the keep-alive that accepts a
// response 26 to 33 against the response's 58 to 65.
//
// Decoders validate everything and return a UdpError; whatever a decoder accepts re-encodes
// to the same bytes (fuzzed in tests/playgrounds/udp_packet_test.cpp). udp.md is the layout.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "room/udp_error.hpp"
#include "room/udp_token.hpp"

namespace vantage::room {

enum class UdpPacketType : std::uint8_t {
    Request = 0,
    Denied = 1,
    Challenge = 2,
    Response = 3,
    KeepAlive = 4,
    Payload = 5,
    Disconnect = 6,
};

constexpr const char* to_string(UdpPacketType type) {
    switch (type) {
        case UdpPacketType::Request:
            return "request";
        case UdpPacketType::Denied:
            return "denied";
        case UdpPacketType::Challenge:
            return "challenge";
        case UdpPacketType::Response:
            return "response";
        case UdpPacketType::KeepAlive:
            return "keep-alive";
        case UdpPacketType::Payload:
            return "payload";
        case UdpPacketType::Disconnect:
            return "disconnect";
    }
    return "unknown udp packet type";
}

inline constexpr std::size_t kUdpMacBytes = 16;                            // Poly1305 tag
inline constexpr std::size_t kUdpRequestBytes = 1 + 8 + 8 + 8 + 24 + 128;  // 177
inline constexpr std::size_t kUdpMaxPayloadBytes = 1200;                   // one frame, one datagram
inline constexpr std::size_t kUdpMaxPacketBytes = 1 + 8 + kUdpMaxPayloadBytes + kUdpMacBytes;
inline constexpr std::size_t kUdpSealedChallengeBytes = 32;  // 16 bytes of token + tag
inline constexpr std::size_t kUdpChallengeBodyBytes = 8 + kUdpSealedChallengeBytes;
inline constexpr std::size_t kUdpKeepAliveBodyBytes = 8;

// The clear connection request: the token fields the server needs to open its private part.
struct UdpConnectRequest {
    std::uint64_t protocol_id = 0;
    std::uint64_t expire_ms = 0;
    UdpTokenNonce nonce{};
    std::array<std::uint8_t, kUdpSealedTokenBytes> sealed{};

    static UdpConnectRequest from(const UdpConnectToken& token) {
        return {token.protocol_id, token.expire_ms, token.nonce, token.sealed};
    }
    friend bool operator==(const UdpConnectRequest&, const UdpConnectRequest&) = default;
};

void encode_udp_request(const UdpConnectRequest& request, ByteWriter& out);
// WrongSize unless exactly kUdpRequestBytes, WrongType unless the prefix is 0, WrongVersion
// for another tag. Says nothing of the seal (open_udp_token does).
UdpError decode_udp_request(std::span<const std::uint8_t> bytes, UdpConnectRequest& out);

// The clear header of a sealed packet: where its sealed body starts.
struct UdpPacketHeader {
    UdpPacketType type = UdpPacketType::Denied;
    std::uint64_t sequence = 0;
    std::size_t header_bytes = 0;  // prefix + sequence bytes
};

// Reads the prefix and sequence of a sealed packet (anything but a request). WrongSize when
// too short to hold a header and a tag or longer than kUdpMaxPacketBytes, UnknownType for a
// type above 6, WrongType for a 0 (a request is not sealed), BadHeader for a sequence length
// outside [1, 8] or longer than its value needs.
UdpError read_udp_header(std::span<const std::uint8_t> bytes, UdpPacketHeader& out);

// Appends a sealed packet: prefix, sequence, body sealed under key. Asserts the body fits.
void seal_udp_packet(UdpPacketType type, std::uint64_t sequence, std::span<const std::uint8_t> body, const UdpKey& key,
                     std::uint64_t protocol_id, ByteWriter& out);

// Opens the body of a packet whose header read_udp_header accepted, into `body` (which must
// hold kUdpMaxPayloadBytes), and sets body_size. Forged when the tag does not verify under
// key; WrongSize when the opened body's size is not one its type allows.
UdpError open_udp_packet(std::span<const std::uint8_t> bytes, const UdpPacketHeader& header, const UdpKey& key,
                         std::uint64_t protocol_id, std::span<std::uint8_t, kUdpMaxPayloadBytes> body,
                         std::size_t& body_size);

// The body sizes each type allows (payload: [1, kUdpMaxPayloadBytes]).
bool udp_body_size_ok(UdpPacketType type, std::size_t size);

// The challenge and response body.
struct UdpChallengeBody {
    std::uint64_t challenge_sequence = 0;
    std::array<std::uint8_t, kUdpSealedChallengeBytes> sealed{};
    friend bool operator==(const UdpChallengeBody&, const UdpChallengeBody&) = default;
};
void encode_udp_challenge_body(const UdpChallengeBody& body, ByteWriter& out);
UdpError decode_udp_challenge_body(std::span<const std::uint8_t> bytes, UdpChallengeBody& out);

// What the sealed challenge says: who the server challenged at that address.
struct UdpChallengeToken {
    std::uint64_t client_id = 0;
    std::uint32_t seat = 0;
    friend bool operator==(const UdpChallengeToken&, const UdpChallengeToken&) = default;
};
UdpChallengeBody seal_udp_challenge(const UdpChallengeToken& token, std::uint64_t challenge_sequence,
                                    const UdpKey& challenge_key);
// Forged when the seal does not open; Malformed when its padding is not zero.
UdpError open_udp_challenge(const UdpChallengeBody& body, const UdpKey& challenge_key, UdpChallengeToken& out);

// The keep-alive body: the server tells a new client its slot.
struct UdpKeepAliveBody {
    std::uint32_t client_index = 0;  // < max_clients
    std::uint32_t max_clients = 0;   // [1, 65536]
    friend bool operator==(const UdpKeepAliveBody&, const UdpKeepAliveBody&) = default;
};
void encode_udp_keep_alive_body(const UdpKeepAliveBody& body, ByteWriter& out);
UdpError decode_udp_keep_alive_body(std::span<const std::uint8_t> bytes, UdpKeepAliveBody& out);

}  // namespace vantage::room
