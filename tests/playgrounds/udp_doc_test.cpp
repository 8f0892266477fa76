// The datagram wire document (playgrounds/room/udp.md) and the code agree: each golden
// example there is what the code produces from the document's stated inputs, and decodes
// (and opens, and re-seals) back to its own bytes.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "room/udp_packet.hpp"
#include "room/udp_token.hpp"
#include "support/fuzz_corpus.hpp"
#include "vantage/byte_io.hpp"

namespace vantage::room {
namespace {

// The document's inputs ("Golden examples").
UdpKey run_of(std::uint8_t first) {
    UdpKey key;
    for (std::size_t i = 0; i < key.size(); ++i) key[i] = static_cast<std::uint8_t>(first + i);
    return key;
}
const UdpKey kServerKey = run_of(0x10);
const UdpKey kClientToServer = run_of(0x40);
const UdpKey kServerToClient = run_of(0x80);
const UdpKey kChallengeKey = run_of(0x60);
constexpr std::uint64_t kProtocol = 0x76616e7461676501;

UdpConnectToken doc_token() {
    UdpTokenPrivate secret;
    secret.client_id = 0x0102030405060708;
    secret.seat = 7;
    secret.timeout_ms = 5000;
    secret.server_address = UdpAddress::v4(127, 0, 0, 1, 40000);
    secret.client_to_server_key = kClientToServer;
    secret.server_to_client_key = kServerToClient;
    UdpTokenNonce nonce;
    for (std::size_t i = 0; i < nonce.size(); ++i) nonce[i] = static_cast<std::uint8_t>(0xA0 + i);
    return seal_udp_token(secret, kProtocol, 1000, 31000, nonce, kServerKey);
}

Bytes bytes_of(const ByteWriter& w) {
    return Bytes(w.bytes().begin(), w.bytes().end());
}

Bytes sealed(UdpPacketType type, std::uint64_t sequence, const Bytes& body, const UdpKey& key) {
    ByteWriter w;
    seal_udp_packet(type, sequence, body, key, kProtocol, w);
    return bytes_of(w);
}

// What the code makes of each example.
std::map<std::string, Bytes> code_examples() {
    std::map<std::string, Bytes> out;
    ByteWriter w;
    encode_udp_token(doc_token(), w);
    out["token"] = bytes_of(w);
    w.clear();
    encode_udp_request(UdpConnectRequest::from(doc_token()), w);
    out["request"] = bytes_of(w);
    w.clear();
    encode_udp_challenge_body(seal_udp_challenge({0x0102030405060708, 7}, 0, kChallengeKey), w);
    out["challenge"] = sealed(UdpPacketType::Challenge, 0, bytes_of(w), kServerToClient);
    out["response"] = sealed(UdpPacketType::Response, 0, bytes_of(w), kClientToServer);
    w.clear();
    encode_udp_keep_alive_body({2, 64}, w);
    out["keep-alive"] = sealed(UdpPacketType::KeepAlive, 1, bytes_of(w), kServerToClient);
    out["payload"] = sealed(UdpPacketType::Payload, 0x1234, Bytes{'h', 'i'}, kClientToServer);
    out["disconnect"] = sealed(UdpPacketType::Disconnect, 5, {}, kClientToServer);
    out["denied"] = sealed(UdpPacketType::Denied, 1, {}, kServerToClient);
    return out;
}

std::string hex(const Bytes& bytes) {
    std::string text;
    char pair[4];
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        std::snprintf(pair, sizeof pair, i % 16 == 15 ? "%02x\n" : "%02x ", bytes[i]);
        text += pair;
    }
    return text;
}

// `    name: hex hex ...` starts an example; indented lines after it without a colon continue it.
std::map<std::string, Bytes> document_examples() {
    std::ifstream doc(std::string(VANTAGE_TESTS_DIR) + "/../playgrounds/room/udp.md");
    std::map<std::string, Bytes> out;
    if (!doc) return out;
    std::string line, name;
    bool in_examples = false;
    while (std::getline(doc, line)) {
        if (line.rfind("## ", 0) == 0) in_examples = line.rfind("## Golden examples", 0) == 0;
        if (!in_examples || line.rfind("    ", 0) != 0) {
            name.clear();
            continue;
        }
        std::string hex_part = line;
        if (const std::size_t colon = line.find(':'); colon != std::string::npos) {
            name = line.substr(4, colon - 4);
            hex_part = line.substr(colon + 1);
        }
        if (name.empty()) continue;
        std::istringstream in(hex_part);
        unsigned v = 0;
        while (in >> std::hex >> v) out[name].push_back(static_cast<std::uint8_t>(v));
    }
    return out;
}

TEST(UdpDoc, GoldenExamplesAreWhatTheCodeProduces) {
    const std::map<std::string, Bytes> doc = document_examples();
    const std::map<std::string, Bytes> code = code_examples();
    ASSERT_FALSE(doc.empty()) << "udp.md not found or has no golden examples";
    for (const auto& [name, bytes] : code) {
        const auto found = doc.find(name);
        ASSERT_NE(found, doc.end()) << "udp.md lacks the example '" << name << "':\n" << hex(bytes);
        EXPECT_EQ(found->second, bytes) << name << " in udp.md; the code gives:\n" << hex(bytes);
    }
    EXPECT_EQ(doc.size(), code.size()) << "udp.md has an example the test does not know";
}

TEST(UdpDoc, GoldenExamplesDecodeAndReencodeToTheirBytes) {
    for (const auto& [name, bytes] : document_examples()) {
        SCOPED_TRACE(name);
        ByteWriter again;
        if (name == "token") {
            UdpConnectToken token;
            ASSERT_EQ(decode_udp_token(bytes, token), UdpError::Ok);
            UdpTokenPrivate secret;
            ASSERT_EQ(open_udp_token(token.protocol_id, token.expire_ms, token.nonce, token.sealed, kServerKey, secret),
                      UdpError::Ok);
            EXPECT_EQ(secret.client_id, 0x0102030405060708u);
            encode_udp_token(token, again);
        } else if (name == "request") {
            UdpConnectRequest request;
            ASSERT_EQ(decode_udp_request(bytes, request), UdpError::Ok);
            encode_udp_request(request, again);
        } else {
            UdpPacketHeader header;
            ASSERT_EQ(read_udp_header(bytes, header), UdpError::Ok);
            const bool from_server = header.type == UdpPacketType::Challenge || header.type == UdpPacketType::Denied ||
                                     header.type == UdpPacketType::KeepAlive;
            const UdpKey& key = from_server ? kServerToClient : kClientToServer;
            std::array<std::uint8_t, kUdpMaxPayloadBytes> body;
            std::size_t size = 0;
            ASSERT_EQ(open_udp_packet(bytes, header, key, kProtocol, body, size), UdpError::Ok);
            seal_udp_packet(header.type, header.sequence, std::span<const std::uint8_t>(body.data(), size), key,
                            kProtocol, again);
        }
        EXPECT_EQ(bytes_of(again), bytes);
    }
}

}  // namespace
}  // namespace vantage::room
