// Real loss on a real socket: a datagram connection inside a private network namespace whose
// input path drops one UDP datagram in five at random (nftables), so the loss happens in the
// kernel, between two real sockets, and not in a simulation. Payloads keep flowing, in the
// proportion the rule lets through, and the connection holds.
//
// The namespace is made by a forked child (support/private_net.hpp: unshare(CLONE_NEWNET) needs
// root or a user namespace; only the child's network view changes).
// Where it is not permitted, or nft is missing, the test is reported as skipped, not passed.
// Nothing in the namespace can reach any address outside it.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "room/udp_client.hpp"
#include "room/udp_server.hpp"
#include "room/udp_socket.hpp"
#include "support/private_net.hpp"

namespace vantage::room {
namespace {

struct LossResult {
    int connected = 0;
    int still_connected = 0;
    int sent_up = 0, received_up = 0;
    int sent_down = 0, received_down = 0;
};

// In the child, inside the namespace: the rule, then a server and a client exchanging one
// payload each way every 10 ms of simulated time for `steps` steps.
LossResult run_under_loss(int steps) {
    LossResult result;
    UdpSocket server_socket, client_socket;
    if (!server_socket.open(UdpAddress::v4(127, 0, 0, 1, 0)).empty()) return result;
    if (!client_socket.open(UdpAddress::v4(127, 0, 0, 1, 0)).empty()) return result;
    const UdpKey key = make_udp_key();
    UdpServer server({.public_address = server_socket.local_address()}, key);
    UdpClient client;
    std::uint64_t now_ms = 1000;
    client.connect(issue_udp_token({}, 1, 0, server_socket.local_address(), now_ms, key), now_ms);
    const std::vector<std::uint8_t> payload(100, 7);
    const auto pump = [&] {
        server_socket.receive(
            [&](const UdpAddress& from, std::span<const std::uint8_t> bytes) { server.receive(from, bytes, now_ms); });
        client_socket.receive(
            [&](const UdpAddress& from, std::span<const std::uint8_t> bytes) { client.receive(from, bytes, now_ms); });
        server.update(now_ms);
        client.update(now_ms);
        server_socket.send_all(server.outbox());
        client_socket.send_all(client.outbox());
        server_socket.wait(0);
    };
    for (int i = 0; i < 300 && !client.connected(); ++i, now_ms += 10) pump();
    if (!client.connected()) return result;
    result.connected = 1;
    const std::uint32_t slot = client.client_index();
    for (int i = 0; i < steps; ++i, now_ms += 10) {
        result.sent_up += client.send_payload(payload, now_ms) ? 1 : 0;
        result.sent_down += server.send_payload(slot, payload, now_ms) ? 1 : 0;
        pump();
        pump();
        result.received_up += static_cast<int>(server.received().size());
        result.received_down += static_cast<int>(client.received().size());
        server.clear_received();
        client.clear_received();
    }
    result.still_connected = client.connected() && server.connected(slot) ? 1 : 0;
    return result;
}

TEST(UdpLoss, PayloadsFlowUnderTwentyPercentRealLossInAPrivateNamespace) {
    const auto run = test::run_in_private_net<LossResult>(
        [](LossResult& r) {
            // One nft process for the whole rule set (a table, an input chain, the random drop).
            const char* rules =
                "printf '%s\\n' 'table inet vantage_loss {' 'chain in {'"
                " 'type filter hook input priority 0;'"
                " 'meta l4proto udp numgen random mod 100 < 20 counter drop' '}' '}'"
                " | nft -f - >/dev/null 2>&1";
            if (std::system(rules) != 0) return test::kSkipNoNft;
            r = run_under_loss(400);
            return 0;
        },
        false);
    if (!run.skipped.empty()) GTEST_SKIP() << run.skipped;
    ASSERT_TRUE(run.failed.empty()) << run.failed;
    const LossResult& result = run.result;
    ASSERT_EQ(result.connected, 1) << "the handshake gets through 20% loss by repeating";
    EXPECT_EQ(result.still_connected, 1);
    ASSERT_EQ(result.sent_up, 400);
    ASSERT_EQ(result.sent_down, 400);
    // 400 draws at p = 0.8: the mean is 320 and the standard deviation 8; [280, 360] is five
    // of them either way. Fewer would mean more than the rule's loss; more, no loss at all.
    std::printf("udp under 20%% input loss: %d/400 up, %d/400 down\n", result.received_up, result.received_down);
    EXPECT_GE(result.received_up, 280);
    EXPECT_LE(result.received_up, 360);
    EXPECT_GE(result.received_down, 280);
    EXPECT_LE(result.received_down, 360);
}

}  // namespace
}  // namespace vantage::room
