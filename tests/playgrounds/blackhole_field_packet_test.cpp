// The black-hole wire format (playgrounds/blackhole/field_packet.hpp), pinned against the
// description in that header: golden bytes, round trips and every rejection.
#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "blackhole/blackhole_server.hpp"
#include "blackhole/field_packet.hpp"
#include "support/fuzz_corpus.hpp"
#include "support/narration.hpp"
#include "vantage/random.hpp"

namespace vantage::play {
namespace {

FieldPacket sample_packet() {
    FieldPacket p;
    p.sequence = 300;
    p.server_time_ms = 1000;
    p.holes.push_back({5, {kArenaSize, 0.0f}, 105.25f});
    p.clusters.push_back({kArenaSize * 0.5f, kArenaSize, 2000.0f});
    p.corrections.push_back({7, {0.0f, kArenaSize}, {-1.0f, 2.5f}});
    return p;
}

// One datagram at most: a longer packet is marked not ok by the encoder, refused by the decoder.
TEST(FieldPacket, APacketLongerThanADatagramIsRefusedByBothEnds) {
    FieldPacket p = sample_packet();
    for (std::uint16_t i = 0; i < 130; ++i) p.corrections.push_back({i, {1.0f, 2.0f}, {0.0f, 0.0f}});
    ByteWriter w;
    EXPECT_FALSE(encode_field_packet(p, w).ok);
    ASSERT_GT(w.size(), kMaxFieldPacketBytes);
    FieldPacket q;
    EXPECT_EQ(decode_field_packet(w.bytes(), 2000, q), WireError::TooLarge);
    p.corrections.resize(100);
    EXPECT_TRUE(encode_field_packet(p, w).ok);
    EXPECT_EQ(decode_field_packet(w.bytes(), 2000, q), WireError::Ok);
}

// A round with more respawns than a packet holds: every packet fits, and the respawns that
// did not fit follow in the next packets, each pellet once.
TEST(BlackholeServerHalf, RespawnsBeyondOnePacketFollowInTheNextOnes) {
    struct Recorder final : Transport {
        std::vector<std::vector<std::uint8_t>> sent;
        void send(double, std::span<const std::uint8_t> bytes) override {
            sent.emplace_back(bytes.begin(), bytes.end());
        }
        bool poll(double, std::vector<std::uint8_t>&) override { return false; }
    } link;
    const std::vector<Vec2> positions(2000, Vec2{100.0f, 200.0f});
    const std::vector<Vec2> velocities(2000, Vec2{1.0f, -1.0f});
    std::vector<std::uint16_t> respawned;
    for (std::uint16_t i = 0; i < 500; ++i) respawned.push_back(static_cast<std::uint16_t>(i * 3));
    BlackholeServerHalf server;
    BlackholeServeScratch scratch;
    std::vector<int> spawned_times(2000, 0);
    for (int round = 0; round < 8; ++round) {
        const BlackholeRound r{
            .sources = {},
            .source_ids = {},
            .tree = nullptr,
            .pellet_positions = positions,
            .pellet_velocities = velocities,
            .respawned = round == 0 ? std::span<const std::uint16_t>(respawned) : std::span<const std::uint16_t>{},
            .now_ms = round * 50.0};
        const PacketBytes sizes =
            server.serve(r, {0.0f, 0.0f}, {.kind = LaneKind::Full, .corrections = 40}, link, scratch);
        ASSERT_TRUE(sizes.ok) << "round " << round;
        ASSERT_LE(link.sent.back().size(), kMaxFieldPacketBytes) << "round " << round;
        FieldPacket q;
        ASSERT_EQ(decode_field_packet(link.sent.back(), 2000, q), WireError::Ok) << "round " << round;
        for (const PelletState& s : q.spawned) spawned_times[s.id] += 1;
    }
    for (std::uint16_t id : respawned) EXPECT_EQ(spawned_times[id], 1) << "pellet " << id;
    EXPECT_EQ(server.pending_spawns(), 0u);
    EXPECT_LE(server.largest_packet_bytes(), kMaxFieldPacketBytes);
    EXPECT_GT(server.largest_packet_bytes(), kMaxFieldPacketBytes - 20);  // full packets, so the limit was hit
}

TEST(FieldPacket, GoldenBytesFollowTheDocumentedLayout) {
    ByteWriter w;
    const PacketBytes sizes = encode_field_packet(sample_packet(), w);
    const std::vector<std::uint8_t> expected = {
        0xB1,                                                        // kind
        0xAC, 0x02,                                                  // sequence 300
        0xE8, 0x07,                                                  // server_time_ms 1000
        0x01,                                                        // one hole
        0x05, 0xFF, 0xFF, 0x00, 0x00, 0xA5, 0x03,                    // id 5, x = 3000, y = 0, weight4 = 421
        0x01,                                                        // one cluster
        0x00, 0x80, 0xFF, 0xFF, 0xC0, 0x3E,                          // x = 1500 (32768), y = 3000, weight4 = 8000
        0x00,                                                        // no spawned pellets
        0x01,                                                        // one correction
        0x07, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFC, 0xFF, 0x0A, 0x00,  // id 7, (0, 3000), (-1, 2.5)
    };
    ASSERT_EQ(std::vector<std::uint8_t>(w.bytes().begin(), w.bytes().end()), expected);
    EXPECT_EQ(sizes.total, expected.size());
    EXPECT_EQ(sizes.field, 15u);  // two counts, a 7-byte hole, a 6-byte cluster
}

TEST(FieldPacket, RoundTripsWithinTheQuantizationStep) {
    XorShift rng(11);
    for (int trial = 0; trial < 50; ++trial) {
        FieldPacket p;
        p.sequence = static_cast<std::uint32_t>(rng.below(1u << 30));
        p.server_time_ms = static_cast<std::uint32_t>(rng.below(1u << 31));
        for (std::uint64_t i = 0, n = rng.below(kMaxHoles); i < n; ++i) {
            p.holes.push_back({static_cast<std::uint8_t>(i),
                               {rng.range(0, kArenaSize), rng.range(0, kArenaSize)},
                               rng.range(0.0f, 5000.0f)});
        }
        for (std::uint64_t i = 0, n = rng.below(20); i < n; ++i) {
            p.clusters.push_back({rng.range(0, kArenaSize), rng.range(0, kArenaSize), rng.range(0.0f, 50000.0f)});
        }
        // At most 24 corrections, sent twice (as spawns too): with 63 holes and 19 clusters the
        // packet stays within kMaxFieldPacketBytes (at most 1,167 bytes here).
        for (std::uint64_t i = 0, n = rng.below(25); i < n; ++i) {
            p.corrections.push_back({static_cast<std::uint16_t>(rng.below(2000)),
                                     {rng.range(0, kArenaSize), rng.range(0, kArenaSize)},
                                     {rng.range(-3000.0f, 3000.0f), rng.range(-3000.0f, 3000.0f)}});
        }
        p.spawned = p.corrections;
        ByteWriter w;
        encode_field_packet(p, w);
        FieldPacket q;
        ASSERT_EQ(decode_field_packet(w.bytes(), 2000, q), WireError::Ok) << "trial " << trial;
        ASSERT_EQ(q.holes.size(), p.holes.size());
        ASSERT_EQ(q.clusters.size(), p.clusters.size());
        ASSERT_EQ(q.corrections.size(), p.corrections.size());
        ASSERT_EQ(q.spawned.size(), p.spawned.size());
        EXPECT_EQ(q.sequence, p.sequence);
        EXPECT_EQ(q.server_time_ms, p.server_time_ms);
        const float step = kArenaSize / 65535.0f;
        for (std::size_t i = 0; i < p.holes.size(); ++i) {
            EXPECT_EQ(q.holes[i].id, p.holes[i].id);
            EXPECT_NEAR(q.holes[i].position.x, p.holes[i].position.x, step);
            EXPECT_NEAR(q.holes[i].weight, p.holes[i].weight, 0.125f + 1e-3f);
        }
        for (std::size_t i = 0; i < p.clusters.size(); ++i) {
            EXPECT_NEAR(q.clusters[i].y, p.clusters[i].y, step);
            EXPECT_NEAR(q.clusters[i].weight, p.clusters[i].weight, 0.125f + 1e-2f);
        }
        for (std::size_t i = 0; i < p.corrections.size(); ++i) {
            EXPECT_EQ(q.corrections[i].id, p.corrections[i].id);
            EXPECT_NEAR(q.corrections[i].position.y, p.corrections[i].position.y, step);
            EXPECT_NEAR(q.corrections[i].velocity.x, p.corrections[i].velocity.x, 0.125f + 1e-3f);
        }
    }
}

TEST(FieldPacket, OutOfRangeValuesClampInsteadOfWrapping) {
    FieldPacket p;
    p.holes.push_back({0, {-50.0f, kArenaSize + 50.0f}, -3.0f});
    p.corrections.push_back({0, {0.0f, 0.0f}, {20000.0f, -20000.0f}});
    ByteWriter w;
    encode_field_packet(p, w);
    FieldPacket q;
    ASSERT_EQ(decode_field_packet(w.bytes(), 10, q), WireError::Ok);
    EXPECT_EQ(q.holes[0].position.x, 0.0f);
    EXPECT_EQ(q.holes[0].position.y, kArenaSize);
    EXPECT_EQ(q.holes[0].weight, 0.0f);
    EXPECT_EQ(q.corrections[0].velocity.x, 8191.75f);
    EXPECT_EQ(q.corrections[0].velocity.y, -8191.75f);
}

// Weights stop at 2^22 (every quarter exact in a float): a larger one clamps, a larger quantum
// is refused, and a field of 64 holes and 64 clusters at the ceiling still fits a datagram.
TEST(FieldPacket, WeightsClampAtTheCeilingAndTheLargestFieldFits) {
    FieldPacket p;
    for (std::uint8_t i = 0; i < kMaxHoles; ++i) {
        p.holes.push_back({i, {1.0f, 2.0f}, 1.0e9f});
        p.clusters.push_back({3.0f, 4.0f, 1.0e9f});
    }
    p.sequence = UINT32_MAX;
    p.server_time_ms = UINT32_MAX;
    ByteWriter w;
    const PacketBytes sizes = encode_field_packet(p, w);
    ASSERT_TRUE(sizes.ok);
    EXPECT_LE(sizes.field, 1090u);
    FieldPacket q;
    ASSERT_EQ(decode_field_packet(w.bytes(), 10, q), WireError::Ok);
    EXPECT_EQ(q.holes[0].weight, 4194304.0f);
    EXPECT_EQ(q.clusters[63].weight, 4194304.0f);
    // One quarter above the ceiling, by hand: a single hole with weight4 = 2^24 + 1.
    const std::vector<std::uint8_t> over = {kFieldPacketKind, 1, 0, 1, 0, 0, 0, 0, 0, 0x81, 0x80, 0x80, 0x08, 0, 0, 0};
    EXPECT_EQ(decode_field_packet(over, 10, q), WireError::OutOfRange);
    std::vector<std::uint8_t> at = over;
    at[9] = 0x80;  // exactly 2^24
    EXPECT_EQ(decode_field_packet(at, 10, q), WireError::Ok);
}

TEST(FieldPacket, EveryTruncationIsRejected) {
    ByteWriter w;
    encode_field_packet(sample_packet(), w);
    const std::vector<std::uint8_t> bytes(w.bytes().begin(), w.bytes().end());
    FieldPacket q;
    for (std::size_t n = 0; n < bytes.size(); ++n) {
        EXPECT_NE(decode_field_packet(std::span(bytes.data(), n), 2000, q), WireError::Ok) << "length " << n;
    }
}

TEST(FieldPacket, BadInputIsRejectedWithItsReason) {
    ByteWriter w;
    encode_field_packet(sample_packet(), w);
    std::vector<std::uint8_t> bytes(w.bytes().begin(), w.bytes().end());
    FieldPacket q;

    std::vector<std::uint8_t> kind = bytes;
    kind[0] = 0x42;
    EXPECT_EQ(decode_field_packet(kind, 2000, q), WireError::UnknownType);

    std::vector<std::uint8_t> trailing = bytes;
    trailing.push_back(0);
    EXPECT_EQ(decode_field_packet(trailing, 2000, q), WireError::TrailingBytes);

    EXPECT_EQ(decode_field_packet(bytes, 7, q), WireError::OutOfRange);  // pellet id 7 of 7

    std::vector<std::uint8_t> hole_id = bytes;
    hole_id[6] = 64;  // the hole's id byte
    EXPECT_EQ(decode_field_packet(hole_id, 2000, q), WireError::OutOfRange);

    std::vector<std::uint8_t> too_many = bytes;
    too_many[5] = 65;  // 65 holes
    EXPECT_EQ(decode_field_packet(too_many, 2000, q), WireError::TooMany);
}

TEST(FieldPacket, RandomBytesNeverCrashTheDecoder) {
    XorShift rng(3);
    FieldPacket q;
    std::vector<std::uint8_t> bytes;
    for (int trial = 0; trial < 2000; ++trial) {
        bytes.resize(static_cast<std::size_t>(rng.below(80)));
        for (std::uint8_t& b : bytes) b = static_cast<std::uint8_t>(rng.next());
        if (!bytes.empty() && rng.chance(0.5f)) bytes[0] = kFieldPacketKind;
        const WireError e = decode_field_packet(bytes, 100, q);
        if (e == WireError::Ok) {
            for (const PelletState& p : q.corrections) EXPECT_LT(p.id, 100u) << "trial " << trial;
        }
    }
}

// The join state a room sends a black-hole client after the welcome.
TEST(JoinState, GoldenBytesFollowTheDocumentedLayout) {
    const std::vector<Vec2> positions{{0.0f, kArenaSize}, {kArenaSize * 0.5f, 0.0f}};
    const std::vector<Vec2> velocities{{-1.0f, 2.5f}, {0.0f, 0.25f}};
    ByteWriter w;
    encode_join_state(1000, positions, velocities, w);
    const std::vector<std::uint8_t> want{0x47, 0xe8, 0x07, 0x02,  // kind, 1000 ms, 2 pellets
                                         0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xfc, 0xff, 0x0a, 0x00,   // id 0
                                         0x01, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00};  // id 1
    EXPECT_EQ(std::vector<std::uint8_t>(w.bytes().begin(), w.bytes().end()), want);
    JoinState j;
    ASSERT_EQ(decode_join_state(w.bytes(), j), WireError::Ok);
    EXPECT_EQ(j.server_time_ms, 1000u);
    ASSERT_EQ(j.positions.size(), 2u);
    EXPECT_NEAR(j.positions[1].x, kArenaSize * 0.5f, 0.05f);
    EXPECT_EQ(j.velocities[0].y, 2.5f);
}

TEST(JoinState, RefusesWhatTheEncoderWouldNotWrite) {
    const std::vector<Vec2> one{{10.0f, 10.0f}};
    ByteWriter w;
    encode_join_state(5, one, one, w);
    std::vector<std::uint8_t> b(w.bytes().begin(), w.bytes().end());
    JoinState j;
    for (std::size_t n = 0; n < b.size(); ++n) {
        EXPECT_NE(decode_join_state(std::span(b.data(), n), j), WireError::Ok) << "truncated to " << n;
    }
    std::vector<std::uint8_t> bad = b;
    bad[4] = 1;  // the pellet's id is not its index
    EXPECT_EQ(decode_join_state(bad, j), WireError::OutOfRange);
    bad = {0x47, 0x05, 0x00};  // no pellets
    EXPECT_EQ(decode_join_state(bad, j), WireError::OutOfRange);
    bad = b;
    bad.push_back(0);
    EXPECT_NE(decode_join_state(bad, j), WireError::Ok);  // trailing bytes
    bad = b;
    bad[0] = kFieldPacketKind;
    EXPECT_EQ(decode_join_state(bad, j), WireError::UnknownType);
}

// Seeded fuzz: whatever the decoder accepts re-encodes to the very same bytes.
TEST(JoinState, MutatedBytesAreRefusedOrReencodeExactly) {
    XorShift rng(11);
    std::vector<Vec2> positions, velocities;
    for (int i = 0; i < 5; ++i) {
        positions.push_back({rng.range(0.0f, kArenaSize), rng.range(0.0f, kArenaSize)});
        velocities.push_back({rng.range(-50.0f, 50.0f), rng.range(-50.0f, 50.0f)});
    }
    ByteWriter w;
    encode_join_state(777, positions, velocities, w);
    const Bytes seed(w.bytes().begin(), w.bytes().end());
    JoinState j;
    int accepted = 0;
    for (int trial = 0; trial < 4000; ++trial) {
        Bytes b = trial % 10 == 0 ? noise(rng, kJoinStateKind) : seed;
        if (trial % 10 != 0) mutate(b, rng);
        if (decode_join_state(b, j) != WireError::Ok) continue;
        ++accepted;
        ByteWriter again;
        encode_join_state(j.server_time_ms, j.positions, j.velocities, again);
        ASSERT_EQ(Bytes(again.bytes().begin(), again.bytes().end()), b) << "trial " << trial;
    }
    EXPECT_GT(accepted, 0);
}

}  // namespace
}  // namespace vantage::play

namespace vantage::play {
namespace {

// The packet inspector's narration: every field the decoder read, tiling the packet byte for
// byte in order with its decoded value; a refused packet narrates up to the field that failed
// and ends with the reason. Asking for the narration changes nothing about the decode.
TEST(FieldPacket, TheDecoderNarratesEveryFieldItReads) {
    FieldPacket p = sample_packet();
    p.spawned.push_back({9, {10.0f, 20.0f}, {0.5f, -0.25f}});
    ByteWriter w;
    ASSERT_TRUE(encode_field_packet(p, w).ok);
    const std::vector<std::uint8_t> bytes(w.bytes().begin(), w.bytes().end());
    std::vector<WireField> fields;
    FieldPacket q, plain;
    ASSERT_EQ(decode_field_packet(bytes, 2000, q, &fields), WireError::Ok);
    ASSERT_EQ(decode_field_packet(bytes, 2000, plain), WireError::Ok);
    EXPECT_TRUE(fuzz::narration_tiles(bytes, fields));
    for (const WireField& f : fields) EXPECT_FALSE(f.value.empty()) << f.name;
    // kind, sequence, time, hole count + 1, cluster count + 1, spawned count + 1, corrections count + 1
    ASSERT_EQ(fields.size(), 11u);
    EXPECT_EQ(fields[1].value, "#300");
    EXPECT_EQ(fields[2].value, "1000 ms");
    EXPECT_EQ(fields[4].name, "holes[0]");
    EXPECT_EQ(fields[4].size, 7u);  // u8 id, u16 x, u16 y, varint weight4 (421 quarters: two bytes)
    EXPECT_EQ(fields[4].value.rfind("hole 5 at (3000.0, 0.0), weight 105.25", 0), 0u) << fields[4].value;
    EXPECT_EQ(fields[8].name, "spawned[0]");
    EXPECT_EQ(fields[8].size, kFieldPelletBytes);
    EXPECT_EQ(fields[10].name, "corrections[0]");
    EXPECT_EQ(q.corrections.size(), plain.corrections.size());
    EXPECT_EQ(q.holes[0].weight, plain.holes[0].weight);

    std::vector<std::uint8_t> bad = bytes;
    bad.push_back(0);  // trailing bytes
    EXPECT_EQ(decode_field_packet(bad, 2000, q, &fields), WireError::TrailingBytes);
    ASSERT_FALSE(fields.empty());
    EXPECT_EQ(fields.back().name, "error");
    EXPECT_EQ(fields.back().value, to_string(WireError::TrailingBytes));
    bad = bytes;
    bad[5] = 70;  // hole count above 64 (after kind, a two-byte sequence and a two-byte time)
    EXPECT_EQ(decode_field_packet(bad, 2000, q, &fields), WireError::TooMany);
    ASSERT_EQ(fields.size(), 5u);  // kind, sequence, time, the count that failed, the error
    EXPECT_EQ(fields[3].name, "hole count");
    EXPECT_EQ(fields[4].name, "error");
}

}  // namespace
}  // namespace vantage::play
