// PacketLog (playgrounds/common/packet_log.hpp): the newest packets of a connection, bounded,
// with buffers reused once full, and arrivals matched by key.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "blackhole/blackhole_sim.hpp"
#include "common/packet_log.hpp"

namespace vantage::play {
namespace {

TEST(PacketLog, KeepsTheNewestPacketsOldestFirstAndReusesTheirBuffers) {
    PacketLog log(4, 64);
    const std::vector<std::uint8_t> bytes{1, 2, 3};
    std::vector<const std::uint8_t*> buffers;
    std::uint64_t k = 1;
    // Warm-up: twice the capacity in slots, each with its buffer.
    for (; k <= 8; ++k) {
        log.record(false, k, 10.0 * static_cast<double>(k), false, bytes);
        buffers.push_back(log.marks().back().bytes.data());
    }
    for (; k <= 31; ++k) {
        log.record(k % 2 == 0, k, 10.0 * static_cast<double>(k), k == 29, bytes);
        ASSERT_EQ(log.marks().size(), 4u);
        EXPECT_EQ(log.marks().front().key, k - 3);  // oldest first, the newest four
        EXPECT_EQ(log.marks().back().key, k);
        for (const PacketMark& m : log.marks()) {
            EXPECT_EQ(m.bytes, bytes);
            EXPECT_NE(std::find(buffers.begin(), buffers.end(), m.bytes.data()), buffers.end()) << "a new buffer";
        }
    }
    EXPECT_TRUE(log.marks()[1].lost);  // key 29
    EXPECT_LT(log.marks()[1].arrived_ms, 0.0);
    EXPECT_EQ(log.find_sent_at(true, 300.0)->key, 30u);
    EXPECT_EQ(log.find_sent_at(false, 300.0), nullptr);  // sent at 300 ms upward, not downward
    EXPECT_EQ(log.find_sent_at(true, 260.0), nullptr);   // dropped: older than the newest four
    EXPECT_EQ(log.find(false, 29)->key, 29u);
    log.clear();
    EXPECT_TRUE(log.marks().empty());
    EXPECT_EQ(log.find(false, 29), nullptr);
    log.record(true, 40, 400.0, false, bytes);
    ASSERT_EQ(log.marks().size(), 1u);
    EXPECT_EQ(log.marks().front().key, 40u);
}

TEST(PacketLog, TheFirstArrivalIsWhatTheReceiverDid) {
    PacketLog log(8);
    log.record(false, 3, 0.0, false, {});
    log.record(false, 4, 5.0, false, {});
    EXPECT_TRUE(log.arrived(false, 4, 40.0));
    EXPECT_TRUE(log.arrived(false, 3, 50.0, true));  // overtaken: ignored
    EXPECT_TRUE(log.arrived(false, 4, 60.0, true));  // a duplicate of an applied packet
    EXPECT_FALSE(log.arrived(false, 5, 60.0));
    EXPECT_FALSE(log.arrived(true, 4, 60.0));
    EXPECT_EQ(log.find(false, 4)->arrived_ms, 40.0);
    EXPECT_FALSE(log.find(false, 4)->ignored);
    EXPECT_TRUE(log.find(false, 3)->ignored);
}

// The black-hole lanes log what their drawn client was sent: every packet the link lost is
// marked lost, every other one arrives (the link delivers within latency plus jitter), and the
// newest applied packet is the client's.
TEST(PacketLog, BlackholeLanesLogTheirDrawnClientsPackets) {
    BlackholeSim sim;
    sim.settings().loss_pct = 30.0;
    sim.reset(7);
    for (int i = 0; i < 240; ++i) sim.step(1.0 / 60.0);
    for (const BlackholeSim::Lane& lane : sim.lanes()) {
        const auto marks = lane.packets.marks();
        ASSERT_GE(marks.size(), 40u) << lane.name;
        std::size_t lost = 0, arrived = 0;
        for (const PacketMark& m : marks) {
            if (m.lost) {
                ++lost;
                EXPECT_LT(m.arrived_ms, 0.0);
            } else if (m.sent_ms < sim.time_s() * 1000.0 - 200.0) {
                EXPECT_GE(m.arrived_ms, m.sent_ms + 80.0) << lane.name << " #" << m.key;
                ++arrived;
            }
        }
        EXPECT_GT(lost, 3u) << lane.name;
        EXPECT_GT(arrived, 20u) << lane.name;
        const BlackholeClientHalf& client = lane.seats.front()->client;
        const PacketMark* newest_applied = nullptr;
        for (const PacketMark& m : marks)
            if (m.arrived_ms >= 0.0 && !m.ignored && (!newest_applied || m.key > newest_applied->key))
                newest_applied = &m;
        ASSERT_NE(newest_applied, nullptr);
        EXPECT_EQ(newest_applied->key, client.applied()) << lane.name;
    }
}

}  // namespace
}  // namespace vantage::play
