// The datagram packets (playgrounds/room/udp_packet.hpp, layout in udp.md) and the replay
// window: round trips, golden bytes, the seal refusing every change, each decoder's refusals,
// and seeded fuzz corpora with the re-encode property. Native only (libsodium).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "room/udp_packet.hpp"
#include "room/udp_replay_window.hpp"
#include "support/fuzz_corpus.hpp"
#include "vantage/byte_io.hpp"

namespace vantage::room {
namespace {

constexpr std::uint64_t kProtocol = 0x76616e7461676501;

UdpKey key_of(std::uint8_t first) {
    UdpKey key;
    for (std::size_t i = 0; i < key.size(); ++i) key[i] = static_cast<std::uint8_t>(first + i);
    return key;
}

Bytes bytes_of(const ByteWriter& w) {
    return Bytes(w.bytes().begin(), w.bytes().end());
}

std::string hex(const Bytes& bytes) {
    std::string text;
    char pair[3];
    for (const std::uint8_t b : bytes) {
        std::snprintf(pair, sizeof pair, "%02x", b);
        text += pair;
    }
    return text;
}

Bytes sealed(UdpPacketType type, std::uint64_t sequence, const Bytes& body, const UdpKey& key) {
    ByteWriter w;
    seal_udp_packet(type, sequence, body, key, kProtocol, w);
    return bytes_of(w);
}

// Reads and opens a packet; Ok with the body, or the first refusal.
UdpError open(const Bytes& packet, const UdpKey& key, UdpPacketHeader& header, Bytes& body) {
    if (const UdpError error = read_udp_header(packet, header); error != UdpError::Ok) return error;
    std::array<std::uint8_t, kUdpMaxPayloadBytes> buffer;
    std::size_t size = 0;
    if (const UdpError error = open_udp_packet(packet, header, key, kProtocol, buffer, size); error != UdpError::Ok)
        return error;
    body.assign(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(size));
    return UdpError::Ok;
}

UdpConnectRequest sample_request() {
    UdpConnectRequest request;
    request.protocol_id = kProtocol;
    request.expire_ms = 31000;
    for (std::size_t i = 0; i < request.nonce.size(); ++i) request.nonce[i] = static_cast<std::uint8_t>(0xA0 + i);
    for (std::size_t i = 0; i < request.sealed.size(); ++i) request.sealed[i] = static_cast<std::uint8_t>(i);
    return request;
}

TEST(UdpPacket, RequestRoundTripsAtItsOneSize) {
    ByteWriter w;
    encode_udp_request(sample_request(), w);
    ASSERT_EQ(w.size(), kUdpRequestBytes);
    UdpConnectRequest decoded;
    ASSERT_EQ(decode_udp_request(w.bytes(), decoded), UdpError::Ok);
    EXPECT_EQ(decoded, sample_request());
}

TEST(UdpPacket, RequestDecoderRefusesWrongSizeTypeAndVersion) {
    ByteWriter w;
    encode_udp_request(sample_request(), w);
    const Bytes good = bytes_of(w);
    UdpConnectRequest out;
    EXPECT_EQ(decode_udp_request(Bytes(good.begin(), good.end() - 1), out), UdpError::WrongSize);
    Bytes b = good;
    b[0] = 1;
    EXPECT_EQ(decode_udp_request(b, out), UdpError::WrongType);
    b = good;
    b[8] ^= 1;  // the tag's last byte
    EXPECT_EQ(decode_udp_request(b, out), UdpError::WrongVersion);
}

TEST(UdpPacket, EveryTypeRoundTripsSealed) {
    const UdpKey key = key_of(1);
    const struct {
        UdpPacketType type;
        std::size_t body_size;
    } cases[] = {{UdpPacketType::Denied, 0},    {UdpPacketType::Challenge, kUdpChallengeBodyBytes},
                 {UdpPacketType::Response, 40}, {UdpPacketType::KeepAlive, 8},
                 {UdpPacketType::Payload, 1},   {UdpPacketType::Payload, kUdpMaxPayloadBytes},
                 {UdpPacketType::Disconnect, 0}};
    for (const auto& c : cases) {
        Bytes body(c.body_size);
        for (std::size_t i = 0; i < body.size(); ++i) body[i] = static_cast<std::uint8_t>(i * 7);
        const Bytes packet = sealed(c.type, 1000, body, key);
        EXPECT_EQ(packet.size(), 1 + 2 + c.body_size + kUdpMacBytes);
        UdpPacketHeader header;
        Bytes opened;
        ASSERT_EQ(open(packet, key, header, opened), UdpError::Ok) << to_string(c.type);
        EXPECT_EQ(header.type, c.type);
        EXPECT_EQ(header.sequence, 1000u);
        EXPECT_EQ(opened, body);
    }
}

TEST(UdpPacket, SequenceTakesTheFewestBytesThatHoldIt) {
    const UdpKey key = key_of(1);
    const struct {
        std::uint64_t sequence;
        std::size_t bytes;
    } cases[] = {{0, 1}, {255, 1}, {256, 2}, {65535, 2}, {65536, 3}, {~std::uint64_t{0}, 8}};
    for (const auto& c : cases) {
        const Bytes packet = sealed(UdpPacketType::Disconnect, c.sequence, {}, key);
        EXPECT_EQ(packet[0] >> 4, c.bytes) << c.sequence;
        EXPECT_EQ(packet.size(), 1 + c.bytes + kUdpMacBytes);
        UdpPacketHeader header;
        ASSERT_EQ(read_udp_header(packet, header), UdpError::Ok);
        EXPECT_EQ(header.sequence, c.sequence);
    }
}

TEST(UdpPacket, HeaderReaderRefusesEachBrokenRule) {
    UdpPacketHeader header;
    Bytes b(1 + 1 + kUdpMacBytes, 0);
    b[0] = 0x14;  // one sequence byte, keep-alive
    EXPECT_EQ(read_udp_header(b, header), UdpError::Ok);
    EXPECT_EQ(read_udp_header(Bytes(b.begin(), b.end() - 1), header), UdpError::WrongSize);
    EXPECT_EQ(read_udp_header(Bytes(kUdpMaxPacketBytes + 1, 0x14), header), UdpError::WrongSize);
    b[0] = 0x17;
    EXPECT_EQ(read_udp_header(b, header), UdpError::UnknownType);
    b[0] = 0x10;
    EXPECT_EQ(read_udp_header(b, header), UdpError::WrongType);  // a request is never sealed
    b[0] = 0x04;
    EXPECT_EQ(read_udp_header(b, header), UdpError::BadHeader);  // zero sequence bytes
    b[0] = 0x94;
    EXPECT_EQ(read_udp_header(Bytes(40, 0x94), header), UdpError::BadHeader);  // nine
    // Two sequence bytes holding 5: the one-byte form is the only one.
    Bytes padded = {0x24, 5, 0};
    padded.resize(3 + kUdpMacBytes);
    EXPECT_EQ(read_udp_header(padded, header), UdpError::BadHeader);
    // Eight sequence bytes declared, too short for them and the tag.
    EXPECT_EQ(read_udp_header(Bytes(1 + 1 + kUdpMacBytes, 0x84), header), UdpError::WrongSize);
}

// The wrong key, the wrong protocol, and a change to any bit (prefix, sequence, body, tag)
// all fail the seal: the type and the sequence are authenticated with the body.
TEST(UdpPacket, EveryChangeFailsTheSeal) {
    const UdpKey key = key_of(1);
    const Bytes packet = sealed(UdpPacketType::Payload, 300, Bytes{1, 2, 3, 4, 5}, key);
    UdpPacketHeader header;
    Bytes body;
    EXPECT_EQ(open(packet, key_of(2), header, body), UdpError::Forged);
    ASSERT_EQ(read_udp_header(packet, header), UdpError::Ok);
    std::array<std::uint8_t, kUdpMaxPayloadBytes> buffer;
    std::size_t size = 0;
    EXPECT_EQ(open_udp_packet(packet, header, key, kProtocol + 1, buffer, size), UdpError::Forged);
    for (std::size_t bit = 0; bit < packet.size() * 8; ++bit) {
        Bytes b = packet;
        b[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
        const UdpError error = open(b, key, header, body);
        ASSERT_NE(error, UdpError::Ok) << "bit " << bit;
        // A changed header (prefix, the two sequence bytes) may be refused before the seal is
        // tried (a type out of range, a sequence no longer in its shortest form); a change
        // anywhere after it is a forgery.
        if (bit >= 8 * 3) {
            ASSERT_EQ(error, UdpError::Forged) << "bit " << bit;
        }
    }
}

TEST(UdpPacket, AnAuthenticBodyOfTheWrongSizeIsRefused) {
    const UdpKey key = key_of(1);
    // A keep-alive prefix over a 9-byte body: sealed by hand as the key holder could.
    Bytes packet = sealed(UdpPacketType::Payload, 1, Bytes(9, 0), key);
    packet[0] = 0x14;
    UdpPacketHeader header;
    Bytes body;
    EXPECT_EQ(open(packet, key, header, body), UdpError::Forged);  // the prefix is authenticated
    EXPECT_FALSE(udp_body_size_ok(UdpPacketType::KeepAlive, 9));
    EXPECT_FALSE(udp_body_size_ok(UdpPacketType::Payload, 0));
    EXPECT_FALSE(udp_body_size_ok(UdpPacketType::Payload, kUdpMaxPayloadBytes + 1));
    EXPECT_TRUE(udp_body_size_ok(UdpPacketType::Payload, kUdpMaxPayloadBytes));
}

TEST(UdpPacket, ChallengeOpensOnlyUnderTheServersKey) {
    const UdpKey challenge_key = key_of(9);
    const UdpChallengeBody body = seal_udp_challenge({77, 4}, 12, challenge_key);
    UdpChallengeToken token;
    ASSERT_EQ(open_udp_challenge(body, challenge_key, token), UdpError::Ok);
    EXPECT_EQ(token, (UdpChallengeToken{77, 4}));
    EXPECT_EQ(open_udp_challenge(body, key_of(10), token), UdpError::Forged);
    UdpChallengeBody moved = body;
    moved.challenge_sequence = 13;  // the sequence is the nonce
    EXPECT_EQ(open_udp_challenge(moved, challenge_key, token), UdpError::Forged);
    UdpChallengeBody tampered = body;
    tampered.sealed[3] ^= 0x20;
    EXPECT_EQ(open_udp_challenge(tampered, challenge_key, token), UdpError::Forged);
}

TEST(UdpPacket, KeepAliveBodyRefusesAnIndexOutsideTheSlots) {
    UdpKeepAliveBody body;
    ByteWriter w;
    encode_udp_keep_alive_body({3, 4}, w);
    ASSERT_EQ(decode_udp_keep_alive_body(w.bytes(), body), UdpError::Ok);
    EXPECT_EQ(body, (UdpKeepAliveBody{3, 4}));
    w.clear();
    encode_udp_keep_alive_body({4, 4}, w);
    EXPECT_EQ(decode_udp_keep_alive_body(w.bytes(), body), UdpError::Malformed);
    w.clear();
    encode_udp_keep_alive_body({0, 0}, w);
    EXPECT_EQ(decode_udp_keep_alive_body(w.bytes(), body), UdpError::Malformed);
    EXPECT_EQ(decode_udp_keep_alive_body(Bytes(7, 0), body), UdpError::WrongSize);
}

// The layout, byte for byte (udp.md).
TEST(UdpPacket, HasGoldenBytes) {
    ByteWriter w;
    encode_udp_request(sample_request(), w);
    EXPECT_EQ(hex(bytes_of(w)).substr(0, 2 * (1 + 8 + 8 + 8)),
              "00"                  // prefix: a request
              "564e544755445031"    // "VNTGUDP1"
              "01656761746e6176"    // protocol id
              "1879000000000000");  // expire_ms 31000
    ByteWriter body;
    encode_udp_keep_alive_body({2, 64}, body);
    EXPECT_EQ(hex(bytes_of(body)), "0200000040000000");
    EXPECT_EQ(hex(sealed(UdpPacketType::KeepAlive, 0x1234, bytes_of(body), key_of(0x40))),
              "24"                                  // two sequence bytes, type 4
              "3412"                                // sequence 0x1234
              "7964e19d44dfea4f"                    // the sealed body
              "4801ac241addd3bbda91b2d98c17cc7b");  // the tag
}

TEST(UdpReplayWindow, RefusesAPacketReceivedAlready) {
    UdpReplayWindow window;
    EXPECT_FALSE(window.already_received(0));
    window.record(0);
    EXPECT_TRUE(window.already_received(0));
    EXPECT_FALSE(window.already_received(1));
}

TEST(UdpReplayWindow, AcceptsLateButNewPacketsWithinTheWindow) {
    UdpReplayWindow window;
    window.record(300);
    EXPECT_FALSE(window.already_received(299));
    EXPECT_FALSE(window.already_received(45));  // 300 - 255
    window.record(45);
    EXPECT_TRUE(window.already_received(45));
    EXPECT_FALSE(window.already_received(301));
}

TEST(UdpReplayWindow, RefusesWhatIsTooOldToTell) {
    UdpReplayWindow window;
    window.record(300);
    EXPECT_TRUE(window.already_received(44));  // 300 - 256
    EXPECT_TRUE(window.already_received(0));
}

// Against a brute-force oracle (every sequence ever recorded, and the newest), over a seeded
// random order of arrivals with duplicates.
TEST(UdpReplayWindow, AgreesWithAnOracleOverRandomArrivals) {
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        XorShift rng(seed);
        UdpReplayWindow window;
        std::vector<bool> seen(4000, false);
        std::uint64_t newest = 0;
        bool any = false;
        for (int step = 0; step < 3000; ++step) {
            const std::uint64_t base = static_cast<std::uint64_t>(step);
            const std::uint64_t sequence = base + rng.below(300) - std::min<std::uint64_t>(base, 150);
            const bool refuse_expected = any && (sequence + UdpReplayWindow::kSize <= newest || seen[sequence]);
            ASSERT_EQ(window.already_received(sequence), refuse_expected) << "seed " << seed << " step " << step;
            if (refuse_expected) continue;
            window.record(sequence);
            seen[sequence] = true;
            if (!any || sequence > newest) newest = sequence;
            any = true;
        }
    }
}

// Seeded fuzz: random and mutated datagrams never crash the readers, and whatever they
// accept re-encodes to the very same bytes.
TEST(UdpPacket, MutatedRequestsAreRefusedOrReencodeExactly) {
    XorShift rng(46);
    ByteWriter w;
    encode_udp_request(sample_request(), w);
    const Bytes seed = bytes_of(w);
    int accepted = 0;
    for (int trial = 0; trial < 3000; ++trial) {
        Bytes b = seed;
        if (trial % 10 == 0) {
            b = noise(rng, 0);
        } else {
            mutate(b, rng);
        }
        UdpConnectRequest request;
        if (decode_udp_request(b, request) != UdpError::Ok) continue;
        ++accepted;
        ByteWriter again;
        encode_udp_request(request, again);
        ASSERT_EQ(bytes_of(again), b) << "trial " << trial;
    }
    EXPECT_GT(accepted, 100);
}

TEST(UdpPacket, MutatedSealedPacketsAreRefusedOrReencodeExactly) {
    XorShift rng(47);
    const UdpKey key = key_of(3);
    ByteWriter keep_alive;
    encode_udp_keep_alive_body({1, 8}, keep_alive);
    const Bytes seeds[] = {sealed(UdpPacketType::Payload, 70000, Bytes{9, 8, 7}, key),
                           sealed(UdpPacketType::KeepAlive, 5, bytes_of(keep_alive), key),
                           sealed(UdpPacketType::Disconnect, 0, {}, key)};
    int headers = 0, opened = 0;
    for (int trial = 0; trial < 6000; ++trial) {
        Bytes b = seeds[trial % 3];
        if (trial % 10 == 0) {
            b = noise(rng, 0x15);
        } else if (trial % 7 != 0) {  // every seventh: the untouched seed, which must open
            mutate(b, rng);
        }
        UdpPacketHeader header;
        if (read_udp_header(b, header) != UdpError::Ok) continue;
        ++headers;
        // The header alone re-encodes: the prefix and the shortest sequence.
        ASSERT_EQ(b[0] >> 4, header.header_bytes - 1) << "trial " << trial;
        std::array<std::uint8_t, kUdpMaxPayloadBytes> buffer;
        std::size_t size = 0;
        if (open_udp_packet(b, header, key, kProtocol, buffer, size) != UdpError::Ok) continue;
        ++opened;
        const Bytes body(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(size));
        ASSERT_EQ(sealed(header.type, header.sequence, body, key), b) << "trial " << trial;
        if (header.type == UdpPacketType::KeepAlive) {
            UdpKeepAliveBody ka;
            ASSERT_EQ(decode_udp_keep_alive_body(body, ka), UdpError::Ok);
        }
    }
    EXPECT_GT(headers, 1000);
    EXPECT_GT(opened, 500);
}

TEST(UdpPacket, MutatedBodiesAreRefusedOrReencodeExactly) {
    XorShift rng(48);
    ByteWriter challenge;
    encode_udp_challenge_body(seal_udp_challenge({5, 6}, 7, key_of(8)), challenge);
    ByteWriter keep_alive;
    encode_udp_keep_alive_body({1, 8}, keep_alive);
    int accepted = 0;
    for (int trial = 0; trial < 4000; ++trial) {
        const bool is_challenge = trial % 2 == 0;
        Bytes b = is_challenge ? bytes_of(challenge) : bytes_of(keep_alive);
        mutate(b, rng);
        ByteWriter again;
        if (is_challenge) {
            UdpChallengeBody body;
            if (decode_udp_challenge_body(b, body) != UdpError::Ok) continue;
            encode_udp_challenge_body(body, again);
        } else {
            UdpKeepAliveBody body;
            if (decode_udp_keep_alive_body(b, body) != UdpError::Ok) continue;
            encode_udp_keep_alive_body(body, again);
        }
        ++accepted;
        ASSERT_EQ(bytes_of(again), b) << "trial " << trial;
    }
    EXPECT_GT(accepted, 100);
}

}  // namespace
}  // namespace vantage::room
