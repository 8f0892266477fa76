// The horde packet's wire format (playgrounds/horde/horde_wire.hpp) and the enemy rule both
// sides run (horde_world.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "horde/horde_wire.hpp"
#include "horde/horde_world.hpp"
#include "vantage/random.hpp"
#include "vantage/slot_key.hpp"

namespace vantage::play {
namespace {

std::uint64_t key(std::uint32_t index, std::uint16_t generation) {
    return SlotKey{index, generation}.encode();
}

struct Example {
    DeltaPlan plan;
    std::vector<Vec2> entered_positions{{1.5f, 2.0f}};
    std::vector<Vec2> players{{10.0f, 20.0f}};
    std::vector<HordeSample> samples{{key(2, 0), {3.0f, -4.0f}}, {key(9, 1), {0.5f, 0.25f}}};
    std::vector<CrowdBlob> crowd{{{100.0f, 200.0f}, 5}};
    Example() {
        plan.seq = 3;
        plan.baseline_seq = 2;
        plan.digest = 0x0102030405060708ULL;
        plan.entered = {key(1, 0)};
        plan.left = {key(4, 1)};
    }
    std::vector<std::uint8_t> encode(HordePacketBytes* sizes = nullptr) const {
        ByteWriter w, scratch;
        const HordePacketBytes s =
            encode_horde_packet(w, scratch, 1000, plan, entered_positions, players, samples, crowd);
        if (sizes) *sizes = s;
        return {w.bytes().begin(), w.bytes().end()};
    }
};

std::string hex(const std::vector<std::uint8_t>& bytes) {
    std::string s;
    char b[4];
    for (std::uint8_t v : bytes) {
        std::snprintf(b, sizeof b, "%02X ", v);
        s += b;
    }
    if (!s.empty()) s.pop_back();
    return s;
}

TEST(HordeWire, APacketEncodesToTheDocumentedBytes) {
    HordePacketBytes sizes;
    const std::vector<std::uint8_t> bytes = Example().encode(&sizes);
    // 'H', time 1000 (E8 07), frame length, the DeltaFrame, then players, samples, crowd.
    EXPECT_EQ(hex(bytes),
              "48 E8 07 14 44 06 03 01 08 07 06 05 04 03 02 01 01 01 00 01 04 01 30 40 01 C0 02 80 05 02 02 00 60 7F "
              "07 01 10 08 01 32 64 05")
        << "actual: " << hex(bytes);
    EXPECT_EQ(sizes.total(), bytes.size());
    EXPECT_TRUE(sizes.ok);
    EXPECT_EQ(sizes.header, 4u);
    EXPECT_EQ(sizes.crowd, 4u);
}

TEST(HordeWire, RoundTripsEveryPart) {
    const Example ex;
    HordePacket p;
    ASSERT_EQ(decode_horde_packet(ex.encode(), p), WireError::Ok);
    EXPECT_EQ(p.time_ms, 1000u);
    EXPECT_EQ(p.delta.plan.seq, 3u);
    EXPECT_EQ(p.delta.plan.entered, ex.plan.entered);
    EXPECT_EQ(p.delta.plan.left, ex.plan.left);
    ASSERT_EQ(p.delta.entered_positions.size(), 1u);
    EXPECT_EQ(p.delta.entered_positions[0], (Vec2{1.5f, 2.0f}));
    ASSERT_EQ(p.players.size(), 1u);
    EXPECT_EQ(p.players[0], (Vec2{10.0f, 20.0f}));
    ASSERT_EQ(p.samples.size(), 2u);
    EXPECT_EQ(p.samples[1].key, key(9, 1));
    EXPECT_EQ(p.samples[1].position, (Vec2{0.5f, 0.25f}));
    ASSERT_EQ(p.crowd.size(), 1u);
    EXPECT_EQ(p.crowd[0].count, 5u);
    EXPECT_EQ(p.crowd[0].position, (Vec2{100.0f, 200.0f}));
}

TEST(HordeWire, EveryTruncationIsRefused) {
    const std::vector<std::uint8_t> bytes = Example().encode();
    HordePacket p;
    for (std::size_t n = 0; n < bytes.size(); ++n) {
        EXPECT_NE(decode_horde_packet(std::span(bytes.data(), n), p), WireError::Ok) << "length " << n;
        EXPECT_TRUE(p.samples.empty() && p.crowd.empty() && p.players.empty()) << "length " << n;
    }
}

TEST(HordeWire, TrailingBytesAndAnUnknownTypeAreRefused) {
    std::vector<std::uint8_t> bytes = Example().encode();
    bytes.push_back(0);
    HordePacket p;
    EXPECT_EQ(decode_horde_packet(bytes, p), WireError::TrailingBytes);
    bytes = Example().encode();
    bytes[0] = 0x44;
    EXPECT_EQ(decode_horde_packet(bytes, p), WireError::UnknownType);
}

TEST(HordeWire, SamplesOutOfOrderAndEmptyCrowdsAreRefused) {
    Example ex;
    std::vector<std::uint8_t> bytes = ex.encode();
    // The second sample's index gap (07) set to 0: two samples for one slot.
    const std::size_t gap_at = 34;
    ASSERT_EQ(bytes[gap_at], 0x07);
    bytes[gap_at] = 0x00;
    HordePacket p;
    EXPECT_EQ(decode_horde_packet(bytes, p), WireError::NotAscending);
    bytes = ex.encode();
    bytes.back() = 0x00;  // a crowd blob standing for nobody
    EXPECT_EQ(decode_horde_packet(bytes, p), WireError::Malformed);
}

TEST(HordeWire, RandomMutationsNeverCrashAndAcceptedPacketsAreWellFormed) {
    const std::vector<std::uint8_t> clean = Example().encode();
    XorShift rng(99);
    HordePacket p;
    for (int i = 0; i < 3000; ++i) {
        std::vector<std::uint8_t> bytes = clean;
        const int edits = 1 + static_cast<int>(rng.below(4));
        for (int e = 0; e < edits; ++e) {
            const auto at = static_cast<std::size_t>(rng.below(bytes.size()));
            switch (rng.below(3)) {
                case 0:
                    bytes[at] = static_cast<std::uint8_t>(rng.next());
                    break;
                case 1:
                    bytes.erase(bytes.begin() + static_cast<std::ptrdiff_t>(at));
                    break;
                default:
                    bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(at),
                                 static_cast<std::uint8_t>(rng.next()));
            }
            if (bytes.empty()) bytes.push_back(0);
        }
        if (decode_horde_packet(bytes, p) != WireError::Ok) continue;
        for (std::size_t s = 1; s < p.samples.size(); ++s) {
            ASSERT_LT(SlotKey::decode(p.samples[s - 1].key)->index, SlotKey::decode(p.samples[s].key)->index)
                << "case " << i;
        }
        for (const CrowdBlob& b : p.crowd) ASSERT_GT(b.count, 0u) << "case " << i;
        ASSERT_LE(p.players.size(), kMaxHordePlayers);
    }
}

// The bounds the server plans with hold for any position within two arenas of the origin.
TEST(HordeWire, ThePositionByteBoundsMatchTheWire) {
    EXPECT_EQ(WireOptions{.position_step = kSampleStep}.position_bytes_bound(2.0f * horde::kArena),
              kHordePositionBytes);
    EXPECT_EQ(WireOptions{.position_step = kCrowdStep}.position_bytes_bound(2.0f * horde::kArena), kCrowdPositionBytes);
}

// One datagram at most: the encoder marks a longer packet not ok and the decoder refuses it.
TEST(HordeWire, APacketLongerThanADatagramIsRefusedByBothEnds) {
    Example ex;
    ex.samples.clear();
    for (std::uint32_t i = 0; i < 200; ++i) ex.samples.push_back({key(i * 2, 0), {1000.0f, 2000.0f}});
    HordePacketBytes sizes;
    const std::vector<std::uint8_t> bytes = ex.encode(&sizes);
    ASSERT_GT(bytes.size(), kMaxHordePacketBytes);
    EXPECT_FALSE(sizes.ok);
    HordePacket p;
    EXPECT_EQ(decode_horde_packet(bytes, p), WireError::TooLarge);
    ex.samples.resize(100);
    const std::vector<std::uint8_t> fits = ex.encode(&sizes);
    ASSERT_LE(fits.size(), kMaxHordePacketBytes);
    EXPECT_TRUE(sizes.ok);
    EXPECT_EQ(decode_horde_packet(fits, p), WireError::Ok);
}

TEST(HordeWire, AnUnencodablePositionMarksThePacketNotOk) {
    Example ex;
    ex.samples[0].position.x = NAN;
    HordePacketBytes sizes;
    ex.encode(&sizes);
    EXPECT_FALSE(sizes.ok);
    ex = Example();
    ex.entered_positions[0].y = INFINITY;
    ex.encode(&sizes);
    EXPECT_FALSE(sizes.ok);
}

TEST(HordeRule, AChaseStepNeverOvershootsItsGoal) {
    XorShift rng(5);
    for (int i = 0; i < 500; ++i) {
        const Vec2 from{rng.range(0, 3000), rng.range(0, 3000)};
        const Vec2 target{rng.range(0, 3000), rng.range(0, 3000)};
        const std::uint64_t k =
            key(static_cast<std::uint32_t>(rng.below(5000)), static_cast<std::uint16_t>(rng.below(9)));
        const float dt = rng.range(0.0f, 2.0f);
        const Vec2 goal = target + chase_offset(k);
        const Vec2 to = chase_step(from, k, target, dt);
        EXPECT_LE(distance(from, to), horde::kEnemySpeed * dt + 1e-2f) << "case " << i;
        EXPECT_LE(distance(to, goal), distance(from, goal) + 1e-3f) << "case " << i;
    }
}

TEST(HordeRule, TheChaseOffsetIsARingAroundThePlayerAndDependsOnlyOnTheKey) {
    for (std::uint32_t i = 0; i < 2000; ++i) {
        const Vec2 o = chase_offset(key(i, static_cast<std::uint16_t>(i % 7)));
        EXPECT_GE(o.length(), 29.9f);
        EXPECT_LE(o.length(), 90.1f);
        EXPECT_EQ(o, chase_offset(key(i, static_cast<std::uint16_t>(i % 7))));
    }
    EXPECT_NE(chase_offset(key(3, 0)), chase_offset(key(3, 1)));
}

TEST(HordeRule, NearestPlayerPrefersTheLowestIndexOnTies) {
    const std::vector<Vec2> players{{0, 0}, {10, 0}, {-10, 0}};
    EXPECT_EQ(nearest_player({9, 0}, players), 1u);
    EXPECT_EQ(nearest_player({0, 5}, players), 0u);
    EXPECT_EQ(nearest_player({5, 0}, std::vector<Vec2>{{0, 0}, {10, 0}}), 0u);
    EXPECT_EQ(nearest_player({5, 0}, {}), 0u);
}

TEST(HordeWorldOptions, ValidateNamesTheBadField) {
    EXPECT_EQ(HordeWorldOptions{}.validate(), nullptr);
    EXPECT_NE(std::string(HordeWorldOptions{.enemies = 100}.validate()).find("enemies"), std::string::npos);
    EXPECT_NE(std::string(HordeWorldOptions{.players = 0}.validate()).find("players"), std::string::npos);
}

}  // namespace
}  // namespace vantage::play
