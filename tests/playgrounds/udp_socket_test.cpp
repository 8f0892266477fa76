// The datagram transport over real UDP sockets on 127.0.0.1 (playgrounds/room/udp_socket.hpp
// gluing UdpServer and UdpClient to Asio): a client connects with a token, payloads flow both
// ways, it times out and disconnects; an attacker's socket replays, forges and tampers with
// what it captured and gets nothing but counted refusals; a spoofed source gets no reply
// larger than its request. The clock is simulated (10 ms a step); only the bytes are real.
#include <gtest/gtest.h>

#include <vector>

#include "room/udp_client.hpp"
#include "room/udp_server.hpp"
#include "room/udp_socket.hpp"
#include "support/fuzz_corpus.hpp"

namespace vantage::room {
namespace {

const UdpAddress kLoopback = UdpAddress::v4(127, 0, 0, 1, 0);

Bytes copy(std::span<const std::uint8_t> bytes) {
    return Bytes(bytes.begin(), bytes.end());
}

struct Captured {
    UdpAddress from;
    Bytes bytes;
};

// A server socket with its state machine, any number of client sockets with theirs, and
// sockets that only send what a test hands them and keep what comes back.
struct Loopback {
    UdpSocket server_socket;
    UdpKey token_key = make_udp_key();
    std::unique_ptr<UdpServer> server;
    std::uint64_t now_ms = 1000;
    std::vector<Bytes> server_heard;  // every datagram the server socket read

    explicit Loopback(UdpServerOptions options = {}) {
        const std::string error = server_socket.open(kLoopback);
        EXPECT_EQ(error, "");
        options.public_address = server_socket.local_address();
        server = std::make_unique<UdpServer>(options, token_key);
    }

    UdpConnectToken token(std::uint64_t client_id, UdpTokenOptions options = {}) {
        return issue_udp_token(options, client_id, 0, server_socket.local_address(), now_ms, token_key);
    }

    // One step: both machines read what arrived, update, and send; the clock moves 10 ms.
    // `clients` are pumped too (a null client's socket is left alone: it is silent).
    void step(std::vector<std::pair<UdpSocket*, UdpClient*>> clients) {
        for (int wait = 0; wait < 2; ++wait) {
            server_socket.receive([&](const UdpAddress& from, std::span<const std::uint8_t> bytes) {
                server_heard.push_back(copy(bytes));
                server->receive(from, bytes, now_ms);
            });
            for (auto [socket, client] : clients)
                if (client != nullptr)
                    socket->receive([&](const UdpAddress& from, std::span<const std::uint8_t> bytes) {
                        client->receive(from, bytes, now_ms);
                    });
            server->update(now_ms);
            bool sent = !server->outbox().empty();
            server_socket.send_all(server->outbox());
            for (auto [socket, client] : clients) {
                if (client == nullptr) continue;
                client->update(now_ms);
                sent = sent || !client->outbox().empty();
                socket->send_all(client->outbox());
            }
            // Loopback delivers within microseconds; a bounded wait covers a loaded machine.
            if (sent) server_socket.wait(1);
        }
        now_ms += 10;
    }
};

std::vector<Captured> drain(UdpSocket& socket) {
    std::vector<Captured> got;
    socket.wait(20);
    socket.receive([&](const UdpAddress& from, std::span<const std::uint8_t> bytes) {
        got.push_back({from, copy(bytes)});
    });
    return got;
}

TEST(UdpSocket, AClientConnectsExchangesPayloadsAndDisconnectsOverLoopback) {
    Loopback net;
    UdpSocket socket;
    ASSERT_EQ(socket.open(kLoopback), "");
    UdpClient client;
    client.connect(net.token(7), net.now_ms);
    for (int i = 0; i < 50 && !client.connected(); ++i) net.step({{&socket, &client}});
    ASSERT_TRUE(client.connected());
    ASSERT_EQ(net.server->connected_count(), 1u);
    EXPECT_EQ(net.server->address(client.client_index()), socket.local_address());

    // Twenty payloads each way, each a different size.
    int up = 0, down = 0;
    for (int i = 1; i <= 20; ++i) {
        ASSERT_TRUE(
            client.send_payload(Bytes(static_cast<std::size_t>(i * 50), static_cast<std::uint8_t>(i)), net.now_ms));
        ASSERT_TRUE(net.server->send_payload(client.client_index(), Bytes(static_cast<std::size_t>(i), 1), net.now_ms));
        net.step({{&socket, &client}});
        up += static_cast<int>(net.server->received().size());
        down += static_cast<int>(client.received().size());
        net.server->clear_received();
        client.clear_received();
    }
    for (int i = 0; i < 5; ++i) net.step({{&socket, &client}});
    up += static_cast<int>(net.server->received().size());
    down += static_cast<int>(client.received().size());
    EXPECT_EQ(up, 20);
    EXPECT_EQ(down, 20);

    client.disconnect(net.now_ms);
    socket.send_all(client.outbox());
    for (int i = 0; i < 5; ++i) net.step({});
    EXPECT_EQ(net.server->connected_count(), 0u);
    EXPECT_EQ(net.server->events().back().reason, UdpEndReason::PeerLeft);
    EXPECT_EQ(socket.send_failures(), 0u);
    EXPECT_GT(socket.bytes_sent(), 20u * 50u);
}

TEST(UdpSocket, ASilentClientTimesOutOverLoopback) {
    Loopback net;
    UdpSocket socket;
    ASSERT_EQ(socket.open(kLoopback), "");
    UdpClient client;
    client.connect(net.token(7, {.timeout_ms = 300}), net.now_ms);
    for (int i = 0; i < 50 && !client.connected(); ++i) net.step({{&socket, &client}});
    ASSERT_TRUE(client.connected());
    for (int i = 0; i < 40; ++i) net.step({{&socket, nullptr}});  // the client stops
    EXPECT_EQ(net.server->connected_count(), 0u);
    EXPECT_EQ(net.server->events().back().reason, UdpEndReason::TimedOut);
    // And the client, back, finds the server silent from its side: its own timeout.
    client.update(net.now_ms);
    EXPECT_EQ(client.state(), UdpClientState::TimedOut);
}

// An attacker on another socket holds copies of everything the client sent and a token of its
// own making. Every trick is refused, counted by kind, and answered with nothing.
TEST(UdpSocket, ForgedReplayedExpiredAndTamperedDatagramsAreRefusedAndCountedOverLoopback) {
    Loopback net;
    UdpSocket socket, attacker;
    ASSERT_EQ(socket.open(kLoopback), "");
    ASSERT_EQ(attacker.open(kLoopback), "");
    UdpClient client;
    client.connect(net.token(7), net.now_ms);
    for (int i = 0; i < 50 && !client.connected(); ++i) net.step({{&socket, &client}});
    ASSERT_TRUE(client.connected());
    ASSERT_TRUE(client.send_payload(Bytes{1, 2, 3}, net.now_ms));
    net.server_heard.clear();
    net.step({{&socket, &client}});
    ASSERT_EQ(net.server->received().size(), 1u);
    const Bytes payload = net.server_heard.back();
    const UdpAddress server = net.server_socket.local_address();

    net.server->clear_received();

    // Replayed from the client's own address: the server socket cannot tell, the window can.
    socket.send(server, payload);
    // Tampered: a fresh payload (a sequence not yet seen) with one bit of its tag changed.
    ASSERT_TRUE(client.send_payload(Bytes{4, 5, 6}, net.now_ms));
    Bytes tampered = copy(client.outbox().bytes(0));
    client.outbox().clear();
    tampered.back() ^= 1;
    socket.send(server, tampered);
    // Forged: a token under a key the attacker made up.
    UdpClient forger;
    forger.connect(issue_udp_token({}, 9, 0, server, net.now_ms, make_udp_key()), net.now_ms);
    attacker.send_all(forger.outbox());
    // Expired: a real token, presented after its expiry.
    UdpClient late;
    late.connect(net.token(8, {.lifetime_ms = 1000}), net.now_ms);
    const Bytes late_request = copy(late.outbox().bytes(0));
    net.now_ms += 1000;
    attacker.send(server, late_request);
    // The client's payload, replayed from the attacker's address.
    attacker.send(server, payload);
    // A real, unexpired token with one bit of its sealed part changed.
    UdpClient tamperer;
    tamperer.connect(net.token(10), net.now_ms);
    Bytes tampered_request = copy(tamperer.outbox().bytes(0));
    tampered_request[100] ^= 0x08;
    attacker.send(server, tampered_request);
    for (int i = 0; i < 3; ++i) net.step({{&socket, &client}});

    EXPECT_EQ(net.server->refused(UdpError::Replayed), 1u);
    EXPECT_EQ(net.server->refused(UdpError::Forged), 3u);  // the tampered packet, the forged and tampered tokens
    EXPECT_EQ(net.server->refused(UdpError::Expired), 1u);
    EXPECT_EQ(net.server->refused(UdpError::UnknownAddress), 1u);
    EXPECT_EQ(net.server->received().size(), 0u) << "nothing refused reached the application";
    EXPECT_TRUE(drain(attacker).empty()) << "the attacker heard nothing";
    EXPECT_TRUE(client.connected());
}

// A request arriving from a spoofed source (here: a socket that did not ask) makes the server
// send that address at most a challenge smaller than the request, and junk gets nothing.
TEST(UdpSocket, ASpoofedSourceGetsNoReplyLargerThanItsRequestOverLoopback) {
    Loopback net;
    UdpSocket victim;
    ASSERT_EQ(victim.open(kLoopback), "");
    const UdpAddress server = net.server_socket.local_address();
    UdpClient someone;
    someone.connect(net.token(5), net.now_ms);
    const Bytes request = copy(someone.outbox().bytes(0));
    victim.send(server, request);  // as if spoofed with the victim's address
    XorShift rng(3);
    for (int i = 0; i < 50; ++i) {
        Bytes junk(static_cast<std::size_t>(1 + rng.below(1300)));
        for (auto& b : junk) b = static_cast<std::uint8_t>(rng.next());
        victim.send(server, junk);
    }
    for (int i = 0; i < 3; ++i) net.step({});
    const std::vector<Captured> heard = drain(victim);
    ASSERT_EQ(heard.size(), 1u) << "one challenge for the request, nothing for the junk";
    EXPECT_LT(heard[0].bytes.size(), request.size());
    EXPECT_EQ(net.server->refused_total(), 50u);
    EXPECT_EQ(net.server->connected_count(), 0u);
}

}  // namespace
}  // namespace vantage::room
