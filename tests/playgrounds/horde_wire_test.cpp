// The horde packet's wire format (playgrounds/horde/horde_wire.hpp) and the enemy rule both
// sides run (horde_world.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "horde/horde_wire.hpp"
#include "horde/horde_world.hpp"
#include "support/fuzz_corpus.hpp"
#include "support/horde_fuzz.hpp"
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
    CorrectionCoding coding = CorrectionCoding::Predicted;
    // Slot 2 absolute at (3, -4) (quanta 48, -64); slot 9 predicted from the value sent 4 frames
    // earlier, off by (3, -1) quanta.
    std::vector<HordeCorrection> corrections{{2, 0, 0, 48, -64}, {9, 0, 4, 3, -1}};
    std::vector<CrowdBlob> crowd{{{100.0f, 200.0f}, 5}};
    std::vector<std::uint8_t> repeated;  // empty: every entered key with its position
    Example() {
        plan.seq = 3;
        plan.baseline_seq = 2;
        plan.digest = 0x0102030405060708ULL;
        plan.entered = {key(1, 0)};
        plan.left = {key(4, 1)};
    }
    static Example absolute() {
        Example ex;
        ex.coding = CorrectionCoding::Absolute;
        ex.corrections = {{2, 0, 0, 48, -64}, {9, 1, 0, 8, 4}};
        return ex;
    }
    std::vector<std::uint8_t> encode(HordePacketBytes* sizes = nullptr) const {
        ByteWriter w, scratch;
        const HordePacketBytes s = encode_horde_packet(w, scratch, 1000, plan, entered_positions, players, 0, coding,
                                                       corrections, crowd, repeated);
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

// The bytes worked out by hand from the format comment in horde_wire.hpp.
TEST(HordeWire, APacketEncodesToTheDocumentedBytes) {
    HordePacketBytes sizes;
    const std::vector<std::uint8_t> bytes = Example().encode(&sizes);
    // 'H', time 1000 (E8 07), frame length, the DeltaFrame (flags 02: no positions), players,
    // the entered positions relative to player 0 (viewer 00; width 10, no repeats, zz(24 - 160) =
    // 271, zz(32 - 320) = 575: 8A 87 7E 04), then the corrections:
    // 05 = 2 << 1 | predicted, first index 02, then the bits (least significant first):
    // k_gap 2, k_age 1, k_res 1, k_abs 6 (12 61 ...); slot 2 absolute: flag 0, generation 0,
    // Rice(96, 6), Rice(127, 6); slot 9: Rice(9 - 2 - 1, 2), flag 1, Rice(4 - 1, 1), Rice(6, 1),
    // Rice(1, 1); zero bits to the byte. Then the crowd.
    EXPECT_EQ(hex(bytes),
              "48 E8 07 12 44 02 03 01 08 07 06 05 04 03 02 01 01 01 00 01 04 01 01 C0 02 80 05 00 8A 87 7E 04 05 02 "
              "12 61 00 00 04 F6 E7 1E 01 01 32 64 05")
        << "actual: " << hex(bytes);
    EXPECT_EQ(sizes.total(), bytes.size());
    EXPECT_TRUE(sizes.ok);
    EXPECT_EQ(sizes.header, 4u);
    EXPECT_EQ(sizes.samples, 11u);
    EXPECT_EQ(sizes.membership, 18u + 5u);
    EXPECT_EQ(sizes.crowd, 4u);
}

// The first wire, kept for comparison: every correction standalone.
TEST(HordeWire, TheAbsoluteCodingKeepsTheFirstLayout) {
    const std::vector<std::uint8_t> bytes = Example::absolute().encode();
    EXPECT_EQ(hex(bytes),
              "48 E8 07 14 44 06 03 01 08 07 06 05 04 03 02 01 01 01 00 01 04 01 30 40 01 C0 02 80 05 04 02 00 60 7F "
              "07 01 10 08 01 32 64 05")
        << "actual: " << hex(bytes);
}

TEST(HordeWire, RoundTripsEveryPart) {
    for (const Example& ex : {Example(), Example::absolute()}) {
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
        EXPECT_EQ(p.coding, ex.coding);
        EXPECT_EQ(p.corrections, ex.corrections);
        ASSERT_EQ(p.crowd.size(), 1u);
        EXPECT_EQ(p.crowd[0].count, 5u);
        EXPECT_EQ(p.crowd[0].position, (Vec2{100.0f, 200.0f}));
    }
}

TEST(HordeWire, EveryTruncationIsRefused) {
    for (const Example& ex : {Example(), Example::absolute()}) {
        const std::vector<std::uint8_t> bytes = ex.encode();
        HordePacket p;
        for (std::size_t n = 0; n < bytes.size(); ++n) {
            EXPECT_NE(decode_horde_packet(std::span(bytes.data(), n), p), WireError::Ok) << "length " << n;
            EXPECT_TRUE(p.corrections.empty() && p.crowd.empty() && p.players.empty()) << "length " << n;
        }
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
    const Example ex = Example::absolute();
    std::vector<std::uint8_t> bytes = ex.encode();
    // The second correction's index gap (07) set to 0: two corrections for one slot.
    const std::size_t gap_at = 34;
    ASSERT_EQ(bytes[gap_at], 0x07);
    bytes[gap_at] = 0x00;
    HordePacket p;
    EXPECT_EQ(decode_horde_packet(bytes, p), WireError::NotAscending);
    bytes = ex.encode();
    bytes.back() = 0x00;  // a crowd blob standing for nobody
    EXPECT_EQ(decode_horde_packet(bytes, p), WireError::Malformed);
}

// One packet, one encoding: Rice parameters other than the encoder's, or padding bits that are
// not zero, would decode to the same corrections from different bytes, so they are refused.
TEST(HordeWire, OnlyTheEncodersRiceParametersAndZeroPaddingAreAccepted) {
    const std::vector<std::uint8_t> clean = Example().encode();
    const std::size_t params_at = 34;  // after the first index
    ASSERT_EQ(clean[params_at], 0x12);
    std::vector<std::uint8_t> bytes = clean;
    bytes[params_at] = 0x13;  // k_gap 3: the same gap costs as many bits, but 2 is the lowest
    HordePacket p;
    EXPECT_NE(decode_horde_packet(bytes, p), WireError::Ok);
    bytes = clean;
    const std::size_t last_bits_at = 42;
    ASSERT_EQ(bytes[last_bits_at], 0x01);
    bytes[last_bits_at] = 0x81;  // a one in the padding
    EXPECT_EQ(decode_horde_packet(bytes, p), WireError::Malformed);
    bytes = clean;
    bytes[params_at] = 0x1F;  // k_gap 15 > what the gap needs, and nothing else changes
    EXPECT_NE(decode_horde_packet(bytes, p), WireError::Ok);
}

// The entered positions' width is the narrowest that holds them: a wider one is refused, and
// so is a predicted packet whose delta frame carries the positions itself.
TEST(HordeWire, EnteredPositionsTravelOnceAtTheNarrowestWidth) {
    const std::vector<std::uint8_t> clean = Example().encode();
    const std::size_t width_at = 28;
    ASSERT_EQ(clean[width_at], 0x8A);
    std::vector<std::uint8_t> bytes = clean;
    HordePacket p;
    // Every other width either fails or reads other values that then need exactly that width
    // (and re-encode to the same bytes): never the same positions from different bytes.
    for (std::uint8_t width = 0; width < 64; ++width) {
        bytes[width_at] = static_cast<std::uint8_t>((clean[width_at] & 0xC0) | width);
        if (decode_horde_packet(bytes, p) != WireError::Ok) continue;
        EXPECT_TRUE(fuzz::fuzz_horde_packet(bytes)) << "width " << int{width};
        if (width != 10) {
            EXPECT_NE(p.delta.entered_positions[0], (Vec2{1.5f, 2.0f})) << "width " << int{width};
        }
    }
    // The absolute layout's frame (positions inside) with the predicted corrections' head.
    bytes = Example::absolute().encode();
    ASSERT_EQ(bytes[29], 0x04);
    bytes[29] = 0x05;  // 2 << 1 | predicted, and what follows is not a valid bit stream either
    EXPECT_NE(decode_horde_packet(bytes, p), WireError::Ok);
    Example one = Example::absolute();
    one.corrections.clear();
    bytes = one.encode();
    ASSERT_EQ(bytes[29], 0x00);
    bytes[29] = 0x01;  // no corrections, predicted: the positions should have left the frame
    EXPECT_EQ(decode_horde_packet(bytes, p), WireError::Malformed);
}

// A repeat (an entered key whose position an earlier frame carries) costs one flag bit instead of
// its position, and has one encoding: the repeats bit only when some key is a repeat, the width
// of the positions actually sent, and never in a full baseline.
TEST(HordeWire, ARepeatTravelsWithoutItsPositionInOneEncodingOnly) {
    Example ex;
    ex.plan.entered = {key(1, 0), key(5, 2)};
    ex.entered_positions = {{1.5f, 2.0f}, {300.0f, -40.0f}};
    HordePacketBytes all_sizes, sizes;
    ex.encode(&all_sizes);
    ex.repeated = {0, 1};
    const std::vector<std::uint8_t> bytes = ex.encode(&sizes);
    ASSERT_TRUE(sizes.ok);
    // Two positions at width 14 (the far one: zz(4800 - 160) = 9280), 63 bits, 8 bytes; one at
    // width 10 and two flags, 29 bits, 4 bytes.
    EXPECT_EQ(all_sizes.membership - sizes.membership, 4u);
    EXPECT_EQ(sizes.membership,
              delta_frame_bytes(ex.plan, 0) + entered_part_bytes(ex.entered_positions, ex.players, 0, ex.repeated));
    HordePacket p;
    ASSERT_EQ(decode_horde_packet(bytes, p), WireError::Ok);
    EXPECT_EQ(p.repeated, ex.repeated);
    ASSERT_EQ(p.delta.entered_positions.size(), 2u);
    EXPECT_EQ(p.delta.entered_positions[0], (Vec2{1.5f, 2.0f}));
    EXPECT_TRUE(fuzz::fuzz_horde_packet(bytes));

    // The one-key example with its repeats bit set and the key flagged positioned: the same
    // packet in other bits (6 bits width 10, repeats 1, positioned 1, then x, y: CA 0F FD 08).
    std::vector<std::uint8_t> other = Example().encode();
    const std::size_t entered_at = 28;
    ASSERT_EQ(hex({other.begin() + entered_at, other.begin() + entered_at + 4}), "8A 87 7E 04");
    const std::uint8_t flagged[] = {0xCA, 0x0F, 0xFD, 0x08};
    std::copy(std::begin(flagged), std::end(flagged), other.begin() + entered_at);
    EXPECT_EQ(decode_horde_packet(other, p), WireError::Malformed);

    // Every key a repeat: width 0; any other width is refused.
    Example none = ex;
    none.repeated = {1, 1};
    HordePacketBytes none_sizes;
    other = none.encode(&none_sizes);
    ASSERT_EQ(decode_horde_packet(other, p), WireError::Ok);
    EXPECT_TRUE(fuzz::fuzz_horde_packet(other));
    // After the header, the frame, the players and the viewer.
    const std::size_t width_at = none_sizes.header + delta_frame_bytes(none.plan, 0) + none_sizes.players + 1;
    ASSERT_EQ(other[width_at], 0x40) << "width 0, repeats 1, both flags 0";
    other[width_at] = 0x41;
    EXPECT_NE(decode_horde_packet(other, p), WireError::Ok);

    // A full baseline with a repeat: the frame's full flag set on a packet with one.
    Example full = ex;
    full.plan.left.clear();
    full.plan.baseline_seq.reset();
    full.repeated.clear();
    const std::vector<std::uint8_t> partial_bytes = full.encode();
    full.plan.full_baseline = true;
    const std::vector<std::uint8_t> full_bytes = full.encode();
    ASSERT_EQ(partial_bytes.size(), full_bytes.size());
    std::size_t differ = 0, at = 0;
    for (std::size_t i = 0; i < full_bytes.size(); ++i) {
        if (full_bytes[i] != partial_bytes[i]) {
            ++differ;
            at = i;
        }
    }
    ASSERT_EQ(differ, 1u) << "the full flag is one byte of the frame";
    full.plan.full_baseline = false;
    full.repeated = {0, 1};
    other = full.encode();
    ASSERT_EQ(decode_horde_packet(other, p), WireError::Ok);
    other[at] = full_bytes[at];
    EXPECT_EQ(decode_horde_packet(other, p), WireError::Malformed);
}

// Random packets: what the server's sizer predicts is what the encoder writes, and every
// packet decodes to what was encoded and re-encodes to the same bytes.
TEST(HordeWire, TheSizerPredictsTheEncoderAndEveryPacketRoundTrips) {
    XorShift rng(31);
    HordePacket p;
    for (int trial = 0; trial < 400; ++trial) {
        Example ex;
        ex.coding = trial % 5 == 0 ? CorrectionCoding::Absolute : CorrectionCoding::Predicted;
        ex.corrections.clear();
        const int n = static_cast<int>(rng.below(120));
        std::uint32_t index = static_cast<std::uint32_t>(rng.below(4000));
        CorrectionSizer sizer(ex.coding);
        for (int i = 0; i < n; ++i) {
            HordeCorrection c;
            c.index = index;
            index += 1 + static_cast<std::uint32_t>(rng.below(trial % 3 == 0 ? 3000 : 40));
            const bool predicted = ex.coding == CorrectionCoding::Predicted && rng.chance(0.9f);
            const int spread = predicted ? 1 << rng.below(10) : 48000;
            c.x = static_cast<std::int32_t>(rng.below(2 * spread + 1)) - spread;
            c.y = static_cast<std::int32_t>(rng.below(2 * spread + 1)) - spread;
            if (predicted) {
                c.age = 1 + static_cast<std::uint32_t>(rng.below(rng.chance(0.8f) ? 8 : 300));
            } else {
                c.generation = static_cast<std::uint16_t>(rng.below(65536));
            }
            const std::size_t with = sizer.bytes_with(c);
            EXPECT_TRUE(sizer.fits_with(c, with)) << "trial " << trial;
            EXPECT_FALSE(sizer.fits_with(c, with - 1)) << "trial " << trial;
            sizer.add(c);
            EXPECT_EQ(sizer.bytes(), with) << "trial " << trial;
            ex.corrections.push_back(c);
        }
        ex.plan.entered.clear();
        ex.entered_positions.clear();
        // Some predicted packets repeat some of their keys without positions.
        const bool repeats = ex.coding == CorrectionCoding::Predicted && rng.chance(0.4f);
        for (std::uint32_t e = 0, m = static_cast<std::uint32_t>(rng.below(30)); e < m; ++e) {
            ex.plan.entered.push_back(key(1000 + 3 * e, static_cast<std::uint16_t>(rng.below(9))));
            ex.entered_positions.push_back({rng.range(-3000.0f, 6000.0f), rng.range(-3000.0f, 6000.0f)});
            if (repeats) ex.repeated.push_back(rng.chance(0.5f) ? 1 : 0);
        }
        HordePacketBytes sizes;
        const std::vector<std::uint8_t> bytes = ex.encode(&sizes);
        EXPECT_EQ(sizer.bytes(), sizes.samples) << "trial " << trial;
        if (ex.coding == CorrectionCoding::Predicted) {
            EXPECT_EQ(
                delta_frame_bytes(ex.plan, 0) + entered_part_bytes(ex.entered_positions, ex.players, 0, ex.repeated),
                sizes.membership)
                << "trial " << trial;
        }
        if (!sizes.ok) continue;  // longer than a datagram
        ASSERT_EQ(decode_horde_packet(bytes, p), WireError::Ok) << "trial " << trial;
        EXPECT_EQ(p.corrections, ex.corrections) << "trial " << trial;
        const bool any = std::find(ex.repeated.begin(), ex.repeated.end(), 1) != ex.repeated.end();
        EXPECT_EQ(p.repeated, any ? ex.repeated : std::vector<std::uint8_t>{}) << "trial " << trial;
        EXPECT_TRUE(fuzz::fuzz_horde_packet(bytes)) << "trial " << trial;
    }
}

// Seeded fuzz (the libFuzzer target's body): mutated packets are refused or re-encode to the
// very same bytes.
TEST(HordeWire, MutatedPacketsAreRefusedOrReencodeExactly) {
    XorShift rng(41);
    const Bytes seeds[] = {Example().encode(), Example::absolute().encode()};
    int accepted = 0;
    for (int trial = 0; trial < 6000; ++trial) {
        Bytes b = trial % 10 < 2 ? noise(rng, kHordePacketType) : seeds[trial % 2];
        if (trial % 10 >= 2) mutate(b, rng);
        if (fuzz::fuzz_horde_packet(b)) ++accepted;
    }
    EXPECT_GT(accepted, 0);
}

TEST(HordeRefs, KeepTheNewestThreeBySequenceWhateverTheArrivalOrder) {
    HordeRefs r;
    for (std::uint64_t seq : {5u, 2u, 9u, 7u, 1u, 9u}) r.push(HordeRef::at(seq, seq * 10, 0, 0), 9);
    ASSERT_EQ(r.count, 3u);
    EXPECT_EQ(r.refs[0].seq, 5u);
    EXPECT_EQ(r.refs[1].seq, 7u);
    EXPECT_EQ(r.refs[2].seq, 9u);
    EXPECT_EQ(r.find(9, 2)->time_ms, 70u);  // frame 7
    EXPECT_EQ(r.find(9, 7), nullptr);       // frame 2: pushed out
    // Ages are modulo 2^32: a session past 2^32 frames still finds its values.
    HordeRefs late;
    const std::uint64_t far = (std::uint64_t{1} << 32) + 3;
    late.push(HordeRef::at(far - 5, 1000, 1, 2), far);
    late.push(HordeRef::at(far - 1, 1250, 3, 4), far);
    ASSERT_NE(late.find(far, 5), nullptr);
    EXPECT_EQ(late.find(far, 5)->x, 1);
    EXPECT_FLOAT_EQ(late.refs[1].age_s(1500), 0.25f);
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
        for (std::size_t s = 1; s < p.corrections.size(); ++s) {
            ASSERT_LT(p.corrections[s - 1].index, p.corrections[s].index) << "case " << i;
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
    Example ex = Example::absolute();
    ex.corrections.clear();
    for (std::uint32_t i = 0; i < 200; ++i) ex.corrections.push_back({i * 2, 0, 0, 16000, 32000});
    HordePacketBytes sizes;
    const std::vector<std::uint8_t> bytes = ex.encode(&sizes);
    ASSERT_GT(bytes.size(), kMaxHordePacketBytes);
    EXPECT_FALSE(sizes.ok);
    HordePacket p;
    EXPECT_EQ(decode_horde_packet(bytes, p), WireError::TooLarge);
    ex.corrections.resize(100);
    const std::vector<std::uint8_t> fits = ex.encode(&sizes);
    ASSERT_LE(fits.size(), kMaxHordePacketBytes);
    EXPECT_TRUE(sizes.ok);
    EXPECT_EQ(decode_horde_packet(fits, p), WireError::Ok);
}

TEST(HordeWire, AnUnencodablePositionMarksThePacketNotOk) {
    Example ex;
    ex.corrections[0].x = INT32_MAX;  // no float position quantizes to it
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
