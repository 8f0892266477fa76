// The connect token (playgrounds/room/udp_token.hpp, layout in udp.md): round trips, golden
// bytes, the seal refusing forged and tampered tokens, the decoder's refusals, and a seeded
// fuzz corpus with the re-encode property. Native only (libsodium).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "room/udp_packet.hpp"
#include "room/udp_token.hpp"
#include "support/fuzz_corpus.hpp"
#include "vantage/byte_io.hpp"

namespace vantage::room {
namespace {

UdpKey key_of(std::uint8_t first) {
    UdpKey key;
    for (std::size_t i = 0; i < key.size(); ++i) key[i] = static_cast<std::uint8_t>(first + i);
    return key;
}

UdpTokenPrivate sample_secret() {
    UdpTokenPrivate secret;
    secret.client_id = 0x0102030405060708;
    secret.seat = 7;
    secret.timeout_ms = 5000;
    secret.server_address = UdpAddress::v4(127, 0, 0, 1, 40000);
    secret.client_to_server_key = key_of(0x40);
    secret.server_to_client_key = key_of(0x80);
    return secret;
}

UdpTokenNonce sample_nonce() {
    UdpTokenNonce nonce;
    for (std::size_t i = 0; i < nonce.size(); ++i) nonce[i] = static_cast<std::uint8_t>(0xA0 + i);
    return nonce;
}

constexpr std::uint64_t kProtocol = 0x76616e7461676501;

UdpConnectToken sample_token() {
    return seal_udp_token(sample_secret(), kProtocol, 1000, 31000, sample_nonce(), key_of(0x10));
}

Bytes bytes_of(const UdpConnectToken& token) {
    ByteWriter w;
    encode_udp_token(token, w);
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

TEST(UdpToken, RoundTripsThroughItsBytes) {
    const UdpConnectToken token = sample_token();
    const Bytes bytes = bytes_of(token);
    ASSERT_EQ(bytes.size(), kUdpTokenBytes);
    UdpConnectToken decoded;
    ASSERT_EQ(decode_udp_token(bytes, decoded), UdpError::Ok);
    EXPECT_EQ(decoded, token);
    EXPECT_EQ(decoded.lifetime_ms(), 30000u);
}

TEST(UdpToken, ServerOpensWhatItSealed) {
    const UdpConnectToken token = sample_token();
    UdpTokenPrivate opened;
    ASSERT_EQ(open_udp_token(token.protocol_id, token.expire_ms, token.nonce, token.sealed, key_of(0x10), opened),
              UdpError::Ok);
    EXPECT_EQ(opened, sample_secret());
    // The public copies the client reads are the sealed ones.
    EXPECT_EQ(token.client_to_server_key, opened.client_to_server_key);
    EXPECT_EQ(token.server_to_client_key, opened.server_to_client_key);
    EXPECT_EQ(token.server_address, opened.server_address);
    EXPECT_EQ(token.timeout_ms, opened.timeout_ms);
}

TEST(UdpToken, IssuedTokensCarryFreshKeysAndTheirBinding) {
    const UdpKey server_key = make_udp_key();
    const UdpTokenOptions options{.lifetime_ms = 20000, .timeout_ms = 3000};
    const UdpAddress server = UdpAddress::v4(10, 0, 0, 2, 50000);
    const UdpConnectToken a = issue_udp_token(options, 11, 3, server, 5000, server_key);
    const UdpConnectToken b = issue_udp_token(options, 11, 3, server, 5000, server_key);
    EXPECT_NE(a.client_to_server_key, b.client_to_server_key);
    EXPECT_NE(a.client_to_server_key, a.server_to_client_key);
    EXPECT_NE(a.nonce, b.nonce);
    EXPECT_EQ(a.create_ms, 5000u);
    EXPECT_EQ(a.expire_ms, 25000u);
    UdpTokenPrivate opened;
    ASSERT_EQ(open_udp_token(a.protocol_id, a.expire_ms, a.nonce, a.sealed, server_key, opened), UdpError::Ok);
    EXPECT_EQ(opened.client_id, 11u);
    EXPECT_EQ(opened.seat, 3u);
    EXPECT_EQ(opened.timeout_ms, 3000u);
    EXPECT_EQ(opened.server_address, server);
}

TEST(UdpToken, OptionsValidateTheirRanges) {
    EXPECT_TRUE(UdpTokenOptions{}.validate().empty());
    EXPECT_EQ(UdpTokenOptions{.lifetime_ms = 999}.validate().substr(0, 11), "lifetime_ms");
    EXPECT_EQ(UdpTokenOptions{.timeout_ms = 60001}.validate().substr(0, 10), "timeout_ms");
}

// A token sealed under another key (what a forger without the server's key can make) does
// not open.
TEST(UdpToken, AForgedTokenDoesNotOpen) {
    const UdpConnectToken forged =
        seal_udp_token(sample_secret(), kProtocol, 1000, 31000, sample_nonce(), key_of(0x11));
    UdpTokenPrivate opened;
    EXPECT_EQ(open_udp_token(forged.protocol_id, forged.expire_ms, forged.nonce, forged.sealed, key_of(0x10), opened),
              UdpError::Forged);
}

// Every single-bit change to the sealed part, the nonce, or the clear fields bound to the seal
// (protocol id, expiry) makes it refuse: an expired token cannot be given a later expiry.
TEST(UdpToken, ATamperedTokenDoesNotOpen) {
    const UdpConnectToken token = sample_token();
    UdpTokenPrivate opened;
    for (std::size_t i = 0; i < token.sealed.size() * 8; ++i) {
        auto sealed = token.sealed;
        sealed[i / 8] ^= static_cast<std::uint8_t>(1u << (i % 8));
        ASSERT_EQ(open_udp_token(token.protocol_id, token.expire_ms, token.nonce, sealed, key_of(0x10), opened),
                  UdpError::Forged)
            << "bit " << i;
    }
    for (std::size_t i = 0; i < token.nonce.size(); ++i) {
        auto nonce = token.nonce;
        nonce[i] ^= 0x01;
        ASSERT_EQ(open_udp_token(token.protocol_id, token.expire_ms, nonce, token.sealed, key_of(0x10), opened),
                  UdpError::Forged);
    }
    EXPECT_EQ(
        open_udp_token(token.protocol_id, token.expire_ms + 60000, token.nonce, token.sealed, key_of(0x10), opened),
        UdpError::Forged);
    EXPECT_EQ(open_udp_token(token.protocol_id ^ 1, token.expire_ms, token.nonce, token.sealed, key_of(0x10), opened),
              UdpError::Forged);
}

TEST(UdpToken, DecoderRefusesEachBrokenRuleWithItsReason) {
    const Bytes good = bytes_of(sample_token());
    UdpConnectToken out;
    const auto with = [&](std::size_t at, std::uint8_t value) {
        Bytes b = good;
        b[at] = value;
        return decode_udp_token(b, out);
    };
    EXPECT_EQ(decode_udp_token(Bytes(good.begin(), good.end() - 1), out), UdpError::WrongSize);
    Bytes longer = good;
    longer.push_back(0);
    EXPECT_EQ(decode_udp_token(longer, out), UdpError::WrongSize);
    EXPECT_EQ(with(0, 'X'), UdpError::WrongVersion);
    // create (offset 16) after expire (24): set create's top byte.
    EXPECT_EQ(with(16 + 7, 0xFF), UdpError::Malformed);
    // expire more than an hour after create.
    EXPECT_EQ(with(24 + 4, 0x01), UdpError::Malformed);
    const std::size_t timeout_at = 8 + 8 + 8 + 8 + 24 + kUdpSealedTokenBytes;
    EXPECT_EQ(with(timeout_at, 0x00), UdpError::Ok);             // 5000 = 0x1388 becomes 4864: in range
    EXPECT_EQ(with(timeout_at + 1, 0xFF), UdpError::Malformed);  // 0xFF88 = 65416 ms: above 60000
    const std::size_t address_at = timeout_at + 4;
    EXPECT_EQ(with(address_at, 3), UdpError::Malformed);          // no family 3
    EXPECT_EQ(with(address_at + 1 + 4, 1), UdpError::Malformed);  // IPv4 padding
    EXPECT_EQ(with(address_at + 17, 0), UdpError::Ok);            // port 40000 = 0x9C40: low byte 0x40
    Bytes no_port = good;
    no_port[address_at + 17] = 0;
    no_port[address_at + 18] = 0;
    out = UdpConnectToken{};
    EXPECT_EQ(decode_udp_token(no_port, out), UdpError::Malformed);
    EXPECT_EQ(out, UdpConnectToken{}) << "a refused token leaves the output alone";
}

// The layout, byte for byte (udp.md): a change to the format fails here and in the document.
TEST(UdpToken, HasGoldenBytes) {
    const std::string expected =
        "564e544755445031"                                                  // version tag "VNTGUDP1"
        "01656761746e6176"                                                  // protocol id
        "e803000000000000"                                                  // create_ms 1000
        "1879000000000000"                                                  // expire_ms 31000
        "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7"                  // nonce
        "7dfc789efd3c1bef2e7a8e4b0e70084e5f0cb31fff9503b1df41c209ca1bfd1d"  // sealed private part (112 + 16-byte tag)
        "f5c1e939fc2a368ca8a70d72edfa938c5fe0de830c739bdd5a43755d94a12782"
        "b864bfeea8c75ac1d3950d6f8d4580e19769299b010d2d6cf8eb29f6ea94a9f7"
        "2c2de7c5be10b888b096f411310315818945b8287650b0235ed8ad660824da4e"
        "88130000"                                                           // timeout_ms 5000
        "01"                                                                 // family 1 (IPv4)
        "7f000001000000000000000000000000"                                   // 127.0.0.1 and 12 zero bytes
        "409c"                                                               // port 40000
        "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"   // client-to-server key
        "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f";  // server-to-client key
    EXPECT_EQ(hex(bytes_of(sample_token())), expected);
}

TEST(UdpToken, PrivatePartHasGoldenBytes) {
    ByteWriter w;
    encode_udp_token_private(sample_secret(), w);
    ASSERT_EQ(w.size(), kUdpTokenPrivateBytes);
    const std::string expected =
        "0807060504030201"                                                  // client id
        "07000000"                                                          // seat 7
        "88130000"                                                          // timeout_ms 5000
        "01"                                                                // family 1 (IPv4)
        "7f000001000000000000000000000000"                                  // 127.0.0.1 and 12 zero bytes
        "409c"                                                              // port 40000
        "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"  // client-to-server key
        "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"  // server-to-client key
        "00000000000000000000000000";                                       // zero padding to 112
    EXPECT_EQ(hex(Bytes(w.bytes().begin(), w.bytes().end())), expected);
}

// Seeded fuzz over the public decoder: random and mutated bytes never crash it, and whatever
// it accepts re-encodes to the very same bytes.
TEST(UdpToken, MutatedTokensAreRefusedOrReencodeExactly) {
    XorShift rng(44);
    const Bytes seed = bytes_of(sample_token());
    int accepted = 0;
    for (int trial = 0; trial < 3000; ++trial) {
        Bytes b = seed;
        if (trial % 10 == 0) {
            b = noise(rng, 'V');
        } else {
            mutate(b, rng);
        }
        UdpConnectToken token;
        if (decode_udp_token(b, token) != UdpError::Ok) continue;
        ++accepted;
        ASSERT_EQ(bytes_of(token), b) << "trial " << trial;
    }
    EXPECT_GT(accepted, 100);
}

TEST(UdpToken, MutatedPrivatePartsAreRefusedOrReencodeExactly) {
    XorShift rng(45);
    ByteWriter w;
    encode_udp_token_private(sample_secret(), w);
    const Bytes seed(w.bytes().begin(), w.bytes().end());
    int accepted = 0;
    for (int trial = 0; trial < 3000; ++trial) {
        Bytes b = seed;
        mutate(b, rng);
        UdpTokenPrivate secret;
        if (decode_udp_token_private(b, secret) != UdpError::Ok) continue;
        ++accepted;
        ByteWriter again;
        encode_udp_token_private(secret, again);
        ASSERT_EQ(Bytes(again.bytes().begin(), again.bytes().end()), b) << "trial " << trial;
    }
    EXPECT_GT(accepted, 100);
}

}  // namespace
}  // namespace vantage::room
