// The datagram server and client state machines (playgrounds/room/udp_server.hpp,
// udp_client.hpp) joined by an in-memory link on a simulated clock: connecting, payloads both
// ways, every refusal counted by kind, timeouts, disconnects, and no reply larger than what it
// answers. The same machines over real loopback sockets: udp_socket_test.cpp.
#include <gtest/gtest.h>

#include <vector>

#include "room/udp_client.hpp"
#include "room/udp_server.hpp"
#include "support/fuzz_corpus.hpp"

namespace vantage::room {
namespace {

const UdpAddress kServerAddress = UdpAddress::v4(127, 0, 0, 1, 40000);
const UdpAddress kClientAddress = UdpAddress::v4(127, 0, 0, 1, 50001);
const UdpAddress kOtherAddress = UdpAddress::v4(127, 0, 0, 1, 50002);

Bytes copy(std::span<const std::uint8_t> bytes) {
    return Bytes(bytes.begin(), bytes.end());
}

// One server, one client at kClientAddress, a clock in ms, and a log of what crossed.
struct Link {
    UdpKey token_key = make_udp_key();
    UdpServer server;
    UdpClient client;
    std::uint64_t now_ms = 1000;
    std::vector<Bytes> to_server;                // every datagram the client sent
    std::vector<Bytes> to_client;                // every datagram the server sent it
    std::vector<Bytes> to_others;                // datagrams the server sent anywhere else
    bool drop_to_server = false;                 // the client's datagrams vanish
    bool drop_to_client = false;                 // the server's datagrams to the client vanish
    std::size_t largest_reply_over_request = 0;  // max(reply - datagram answered), 0 when never larger

    explicit Link(UdpServerOptions options = {.public_address = kServerAddress}) : server(options, token_key) {}

    UdpConnectToken token(std::uint64_t client_id = 42, std::uint32_t seat = 1, UdpTokenOptions options = {}) {
        return issue_udp_token(options, client_id, seat, kServerAddress, now_ms, token_key);
    }

    // A datagram to the server from `from`; what the server sends in reply (before its next
    // update) is measured against it and delivered or logged.
    UdpError deliver(const UdpAddress& from, std::span<const std::uint8_t> bytes) {
        const std::size_t before = server.outbox().size();
        const UdpError result = server.receive(from, bytes, now_ms);
        for (std::size_t i = before; i < server.outbox().size(); ++i)
            if (server.outbox().bytes(i).size() > bytes.size())
                largest_reply_over_request =
                    std::max(largest_reply_over_request, server.outbox().bytes(i).size() - bytes.size());
        return result;
    }

    void flush() {
        UdpDatagramQueue& up = client.outbox();
        for (std::size_t i = 0; i < up.size(); ++i) {
            to_server.push_back(copy(up.bytes(i)));
            if (!drop_to_server) deliver(kClientAddress, up.bytes(i));
        }
        up.clear();
        UdpDatagramQueue& down = server.outbox();
        for (std::size_t i = 0; i < down.size(); ++i) {
            if (down.entry(i).peer == kClientAddress) {
                to_client.push_back(copy(down.bytes(i)));
                if (!drop_to_client) client.receive(kServerAddress, down.bytes(i), now_ms);
            } else {
                to_others.push_back(copy(down.bytes(i)));
            }
        }
        down.clear();
    }

    // Advances the clock by step_ms, `steps` times, updating both ends and moving datagrams.
    void run(int steps, std::uint64_t step_ms = 10) {
        for (int i = 0; i < steps; ++i) {
            client.update(now_ms);
            server.update(now_ms);
            flush();
            flush();  // replies to what was just delivered
            now_ms += step_ms;
        }
    }

    void connect(const UdpConnectToken& t) {
        client.connect(t, now_ms);
        run(5);
    }
};

TEST(UdpServer, AClientConnectsWithATokenAndPayloadsFlowBothWays) {
    Link link;
    link.connect(link.token(42, 3));
    ASSERT_EQ(link.client.state(), UdpClientState::Connected);
    ASSERT_EQ(link.server.connected_count(), 1u);
    ASSERT_EQ(link.server.events().size(), 1u);
    const UdpServerEvent connected = link.server.events()[0];
    EXPECT_EQ(connected.kind, UdpServerEventKind::Connected);
    EXPECT_EQ(connected.client_id, 42u);
    EXPECT_EQ(connected.seat, 3u);
    EXPECT_EQ(link.client.client_index(), connected.client_index);
    EXPECT_EQ(link.server.address(connected.client_index), kClientAddress);

    const Bytes up = {1, 2, 3}, down = {9, 8, 7, 6};
    ASSERT_TRUE(link.client.send_payload(up, link.now_ms));
    ASSERT_TRUE(link.server.send_payload(connected.client_index, down, link.now_ms));
    link.run(1);
    ASSERT_EQ(link.server.received().size(), 1u);
    EXPECT_EQ(copy(link.server.received().bytes(0)), up);
    EXPECT_EQ(link.server.received().entry(0).slot, connected.client_index);
    ASSERT_EQ(link.client.received().size(), 1u);
    EXPECT_EQ(copy(link.client.received().bytes(0)), down);
    EXPECT_EQ(link.server.refused_total(), 0u);
}

TEST(UdpServer, OptionsValidateTheirRanges) {
    EXPECT_TRUE((UdpServerOptions{.public_address = kServerAddress}).validate().empty());
    EXPECT_EQ(UdpServerOptions{}.validate().substr(0, 14), "public_address");
    EXPECT_EQ((UdpServerOptions{.public_address = kServerAddress, .max_clients = 0}).validate().substr(0, 11),
              "max_clients");
    EXPECT_EQ((UdpClientOptions{.resend_ms = 1}).validate().substr(0, 9), "resend_ms");
}

TEST(UdpServer, AnExpiredTokenIsRefusedSilentlyAndCounted) {
    Link link;
    const UdpConnectToken token = link.token(42, 1, {.lifetime_ms = 1000, .timeout_ms = 5000});
    link.now_ms += 1000;  // the server's clock reaches the expiry
    link.client.connect(token, link.now_ms);
    link.run(3);
    EXPECT_EQ(link.server.refused(UdpError::Expired), link.to_server.size());
    EXPECT_TRUE(link.to_client.empty());
    EXPECT_EQ(link.client.state(), UdpClientState::SendingRequest);
}

TEST(UdpServer, AForgedTokenIsRefusedSilentlyAndCounted) {
    Link link;
    const UdpConnectToken forged = issue_udp_token({}, 42, 1, kServerAddress, link.now_ms, make_udp_key());
    link.client.connect(forged, link.now_ms);
    link.run(3);
    EXPECT_EQ(link.server.refused(UdpError::Forged), link.to_server.size());
    EXPECT_TRUE(link.to_client.empty());
}

TEST(UdpServer, ATamperedRequestIsRefusedSilentlyAndCounted) {
    Link link;
    link.client.connect(link.token(), link.now_ms);
    ASSERT_EQ(link.client.outbox().size(), 1u);
    Bytes request = copy(link.client.outbox().bytes(0));
    link.client.outbox().clear();
    request[1 + 8 + 8] ^= 0x01;  // the expiry's low byte: bound to the seal
    EXPECT_EQ(link.deliver(kClientAddress, request), UdpError::Forged);
    request[1 + 8 + 8] ^= 0x01;
    request[1 + 8] ^= 0x01;  // the protocol id
    EXPECT_EQ(link.deliver(kClientAddress, request), UdpError::WrongProtocol);
    request[1 + 8] ^= 0x01;
    request[100] ^= 0x40;  // inside the sealed part
    EXPECT_EQ(link.deliver(kClientAddress, request), UdpError::Forged);
    EXPECT_EQ(link.server.refused(UdpError::Forged), 2u);
    EXPECT_EQ(link.server.refused(UdpError::WrongProtocol), 1u);
    EXPECT_TRUE(link.server.outbox().empty());
}

TEST(UdpServer, ATokenForAnotherServerIsRefused) {
    Link link;
    const UdpConnectToken elsewhere =
        issue_udp_token({}, 42, 1, UdpAddress::v4(10, 0, 0, 9, 40000), link.now_ms, link.token_key);
    link.client.connect(elsewhere, link.now_ms);
    // The client sends to the address in its token; deliver its request here by hand.
    ASSERT_EQ(link.client.outbox().size(), 1u);
    EXPECT_EQ(link.deliver(kClientAddress, link.client.outbox().bytes(0)), UdpError::WrongServer);
    EXPECT_TRUE(link.server.outbox().empty());
}

TEST(UdpServer, AReplayedPacketIsRefusedAndCounted) {
    Link link;
    link.connect(link.token());
    ASSERT_TRUE(link.client.connected());
    ASSERT_TRUE(link.client.send_payload(Bytes{5, 5}, link.now_ms));
    link.run(1);
    ASSERT_EQ(link.server.received().size(), 1u);
    const Bytes payload = link.to_server.back();
    EXPECT_EQ(link.deliver(kClientAddress, payload), UdpError::Replayed);
    EXPECT_EQ(link.deliver(kClientAddress, payload), UdpError::Replayed);
    EXPECT_EQ(link.server.received().size(), 1u);
    EXPECT_EQ(link.server.refused(UdpError::Replayed), 2u);
    // And towards the client.
    const Bytes keep_alive = link.to_client.back();
    EXPECT_EQ(link.client.receive(kServerAddress, keep_alive, link.now_ms), UdpError::Replayed);
    EXPECT_EQ(link.client.refused(UdpError::Replayed), 1u);
}

TEST(UdpServer, ATamperedPacketIsRefusedAndCounted) {
    Link link;
    link.connect(link.token());
    link.drop_to_server = true;
    ASSERT_TRUE(link.client.send_payload(Bytes{1, 2, 3, 4}, link.now_ms));
    link.run(1);
    Bytes payload = link.to_server.back();
    for (std::size_t i = 1; i < payload.size(); ++i) {
        Bytes b = payload;
        b[i] ^= 0x10;
        const UdpError error = link.deliver(kClientAddress, b);
        EXPECT_TRUE(error == UdpError::Forged || error == UdpError::BadHeader) << "byte " << i;
    }
    EXPECT_TRUE(link.server.received().empty());
    EXPECT_GE(link.server.refused(UdpError::Forged), payload.size() - 3);
    EXPECT_EQ(link.deliver(kClientAddress, payload), UdpError::Ok) << "the original still opens";
}

TEST(UdpServer, PacketsFromAnUnknownAddressAreRefused) {
    Link link;
    link.connect(link.token());
    link.drop_to_server = true;
    ASSERT_TRUE(link.client.send_payload(Bytes{1}, link.now_ms));
    link.run(1);
    EXPECT_EQ(link.deliver(kOtherAddress, link.to_server.back()), UdpError::UnknownAddress);
    EXPECT_EQ(link.client.receive(kOtherAddress, link.to_client.back(), link.now_ms), UdpError::UnknownAddress);
    EXPECT_EQ(link.server.refused(UdpError::UnknownAddress), 1u);
    EXPECT_EQ(link.client.refused(UdpError::UnknownAddress), 1u);
}

// Whoever replays a client's request from another address (a spoofer, a thief who saw it)
// gets nothing while the client is being challenged, nothing once it is connected, and
// nothing after it left.
TEST(UdpServer, ATokenUsedFromAnotherAddressGetsNothing) {
    Link link;
    link.drop_to_client = true;  // keep the client in its first stage
    link.client.connect(link.token(), link.now_ms);
    link.run(1);
    const Bytes request = link.to_server.front();
    EXPECT_EQ(link.deliver(kOtherAddress, request), UdpError::TokenReused);
    link.drop_to_client = false;
    link.run(20);  // the client repeats its request every 100 ms
    ASSERT_TRUE(link.client.connected());
    EXPECT_EQ(link.deliver(kOtherAddress, request), UdpError::AlreadyConnected);
    link.client.disconnect(link.now_ms);
    link.run(1);
    ASSERT_EQ(link.server.connected_count(), 0u);
    EXPECT_EQ(link.deliver(kOtherAddress, request), UdpError::TokenReused);
    EXPECT_EQ(link.deliver(kClientAddress, request), UdpError::TokenReused) << "a token connects once";
    EXPECT_TRUE(link.to_others.empty());
    EXPECT_EQ(link.server.outbox().size(), 0u);
}

// Amplification: across a connection and every refusal, no datagram the server sends in reply
// is larger than the one it answers (the challenge to a 177-byte request is at most 65).
TEST(UdpServer, NoReplyIsLargerThanWhatItAnswers) {
    Link link;
    link.connect(link.token());
    ASSERT_TRUE(link.client.connected());
    // A spoofed first use: another token's request arrives "from" an address that never asked.
    link.client.disconnect(link.now_ms);
    UdpClient other;
    other.connect(link.token(77), link.now_ms);
    const Bytes request = copy(other.outbox().bytes(0));
    EXPECT_EQ(link.deliver(kOtherAddress, request), UdpError::Ok);
    ASSERT_EQ(link.server.outbox().size(), 1u);
    EXPECT_LE(link.server.outbox().bytes(0).size(), 65u);
    EXPECT_LT(link.server.outbox().bytes(0).size(), request.size());
    // Noise of every size gets nothing at all.
    XorShift rng(9);
    link.server.outbox().clear();
    for (int i = 0; i < 500; ++i) {
        Bytes junk(static_cast<std::size_t>(rng.below(kUdpMaxPacketBytes + 10)));
        for (auto& b : junk) b = static_cast<std::uint8_t>(rng.next());
        if (i % 4 == 0 && !junk.empty()) junk[0] = 0;  // a request-shaped start
        EXPECT_NE(link.deliver(kOtherAddress, junk), UdpError::Ok);
    }
    EXPECT_TRUE(link.server.outbox().empty());
    EXPECT_EQ(link.largest_reply_over_request, 0u);
}

TEST(UdpServer, AFullServerAnswersDeniedAndCountsIt) {
    Link link({.public_address = kServerAddress, .max_clients = 1});
    link.connect(link.token(1));
    ASSERT_TRUE(link.client.connected());
    // A second client at another address, driven by hand.
    UdpClient second;
    second.connect(link.token(2), link.now_ms);
    for (int round = 0; round < 3 && second.state() != UdpClientState::Denied; ++round) {
        for (std::size_t i = 0; i < second.outbox().size(); ++i) link.deliver(kOtherAddress, second.outbox().bytes(i));
        second.outbox().clear();
        for (std::size_t i = 0; i < link.server.outbox().size(); ++i)
            if (link.server.outbox().entry(i).peer == kOtherAddress)
                second.receive(kServerAddress, link.server.outbox().bytes(i), link.now_ms);
        link.server.outbox().clear();
    }
    EXPECT_EQ(second.state(), UdpClientState::Denied);
    EXPECT_EQ(link.server.refused(UdpError::ServerFull), 1u);
    EXPECT_EQ(link.largest_reply_over_request, 0u);
}

TEST(UdpServer, ASilentClientTimesOutAndItsSlotIsFreed) {
    Link link;
    link.connect(link.token(42, 1, {.timeout_ms = 500}));
    ASSERT_TRUE(link.client.connected());
    link.drop_to_server = true;
    link.run(40);  // 400 ms of silence (and the few before it)
    EXPECT_EQ(link.server.connected_count(), 1u);
    link.run(20);
    EXPECT_EQ(link.server.connected_count(), 0u);
    ASSERT_EQ(link.server.events().size(), 2u);
    EXPECT_EQ(link.server.events()[1].kind, UdpServerEventKind::Disconnected);
    EXPECT_EQ(link.server.events()[1].reason, UdpEndReason::TimedOut);
}

TEST(UdpServer, AClientTimesOutWhenTheServerFallsSilent) {
    Link link;
    link.connect(link.token(42, 1, {.timeout_ms = 500}));
    ASSERT_TRUE(link.client.connected());
    link.drop_to_client = true;
    link.run(51);
    EXPECT_EQ(link.client.state(), UdpClientState::TimedOut);
}

TEST(UdpServer, KeepAlivesHoldAnIdleConnection) {
    Link link;
    link.connect(link.token(42, 1, {.timeout_ms = 500}));
    link.run(300);  // three seconds, no payloads
    EXPECT_TRUE(link.client.connected());
    EXPECT_EQ(link.server.connected_count(), 1u);
    EXPECT_EQ(link.server.refused_total(), 0u);
}

TEST(UdpServer, AClientWithNoServerTimesOutItsRequest) {
    Link link;
    link.drop_to_server = true;
    link.client.connect(link.token(42, 1, {.timeout_ms = 300}), link.now_ms);
    link.run(31);
    EXPECT_EQ(link.client.state(), UdpClientState::RequestTimedOut);
    EXPECT_GE(link.to_server.size(), 3u) << "the request is repeated";
}

TEST(UdpServer, AClientWhoseChallengeIsNeverAnsweredTimesOutItsResponse) {
    Link link;
    link.client.connect(link.token(42, 1, {.timeout_ms = 300}), link.now_ms);
    link.flush();  // the request goes up, its challenge comes down, the response waits
    ASSERT_EQ(link.client.state(), UdpClientState::SendingResponse);
    link.drop_to_server = true;
    link.run(31);
    EXPECT_EQ(link.client.state(), UdpClientState::ResponseTimedOut);
}

TEST(UdpServer, ATokenRunsOutWhileConnecting) {
    Link link;
    link.drop_to_server = true;
    link.client.connect(link.token(42, 1, {.lifetime_ms = 1000, .timeout_ms = 5000}), link.now_ms);
    link.run(101);
    EXPECT_EQ(link.client.state(), UdpClientState::TokenExpired);
}

TEST(UdpServer, ATokenOfAnotherProtocolIsInvalidForTheClient) {
    Link link;
    UdpConnectToken token = link.token();
    token.protocol_id ^= 1;
    link.client.connect(token, link.now_ms);
    EXPECT_EQ(link.client.state(), UdpClientState::InvalidToken);
    EXPECT_TRUE(link.client.outbox().empty());
}

TEST(UdpServer, EitherSideCanDisconnect) {
    Link link;
    link.connect(link.token());
    link.client.disconnect(link.now_ms);
    link.run(1);
    EXPECT_EQ(link.client.state(), UdpClientState::Disconnected);
    ASSERT_EQ(link.server.events().size(), 2u);
    EXPECT_EQ(link.server.events()[1].reason, UdpEndReason::PeerLeft);
    // The two redundant disconnects that follow the first are refused as from nobody.
    EXPECT_EQ(link.server.refused(UdpError::UnknownAddress), 2u);

    Link other;
    other.connect(other.token());
    other.server.disconnect(other.client.client_index(), other.now_ms);
    other.run(1);
    EXPECT_EQ(other.client.state(), UdpClientState::Disconnected);
    EXPECT_EQ(other.server.events().back().reason, UdpEndReason::Closed);
}

// Seeded fuzz: mutations of every datagram a connection produced, fed to both machines, are
// refused or accepted without crashing, and a connection hit by them still carries payloads.
TEST(UdpServer, MutatedDatagramsNeverBreakAConnection) {
    Link link;
    link.connect(link.token());
    ASSERT_TRUE(link.client.connected());
    for (int i = 0; i < 5; ++i) {
        link.client.send_payload(Bytes{1, 2, 3}, link.now_ms);
        link.run(1);
    }
    std::vector<Bytes> seeds = link.to_server;
    seeds.insert(seeds.end(), link.to_client.begin(), link.to_client.end());
    XorShift rng(50);
    for (int trial = 0; trial < 3000; ++trial) {
        Bytes b = seeds[static_cast<std::size_t>(rng.below(seeds.size()))];
        mutate(b, rng);
        link.deliver(trial % 2 == 0 ? kClientAddress : kOtherAddress, b);
        link.client.receive(kServerAddress, b, link.now_ms);
    }
    link.server.clear_received();
    link.client.clear_received();
    link.server.outbox().clear();
    link.client.outbox().clear();
    ASSERT_TRUE(link.client.connected());
    ASSERT_TRUE(link.client.send_payload(Bytes{4, 4}, link.now_ms));
    link.run(1);
    EXPECT_EQ(link.server.received().size(), 1u);
}

}  // namespace
}  // namespace vantage::room
