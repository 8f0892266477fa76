#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "vantage/ack_window.hpp"
#include "vantage/assert.hpp"
#include "vantage/delta_wire.hpp"
#include "vantage/random.hpp"
#include "vantage/slot_key.hpp"

namespace vantage {
namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes bytes_of(const ByteWriter& w) {
    return Bytes(w.bytes().begin(), w.bytes().end());
}

DeltaPlan sample_plan() {
    DeltaPlan p;
    p.seq = 300;
    p.baseline_seq = 298;
    p.digest = 0x0102030405060708ULL;
    p.entered = {SlotKey{3, 0}.encode(), SlotKey{5, 2}.encode()};
    p.left = {SlotKey{4, 1}.encode()};
    return p;
}

const std::vector<Vec2> kSamplePositions{{1.5f, -0.0625f}, {100.0f, -100.0f}};

// The example in core/docs/delta.md, byte for byte.
const Bytes kSampleFrame{
    0x44,                                            // type 'D'
    0x06,                                            // flags: baseline, positions
    0xAC, 0x02,                                      // seq 300
    0x02,                                            // baseline 300 - 2 = 298
    0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,  // digest, little-endian
    0x02, 0x03, 0x00, 0x02, 0x02,                    // entered: (3,0), (3+2,2)
    0x01, 0x04, 0x01,                                // left: (4,1)
    0x30, 0x01,                                      // (1.5, -0.0625) in 1/16 steps
    0x80, 0x19, 0xFF, 0x18,                          // (100, -100)
};

TEST(DeltaWire, AFrameEncodesToTheDocumentedBytes) {
    ByteWriter w;
    encode_delta_frame(w, sample_plan(), kSamplePositions);
    ASSERT_TRUE(w.ok());
    EXPECT_EQ(bytes_of(w), kSampleFrame);
}

TEST(DeltaWire, TheDocumentedFrameDecodesToItsPlan) {
    DeltaFrame f;
    ASSERT_EQ(decode_delta_frame(kSampleFrame, f), WireError::Ok);
    const DeltaPlan want = sample_plan();
    EXPECT_EQ(f.plan.seq, want.seq);
    EXPECT_EQ(f.plan.baseline_seq, want.baseline_seq);
    EXPECT_FALSE(f.plan.full_baseline);
    EXPECT_EQ(f.plan.digest, want.digest);
    EXPECT_EQ(f.plan.entered, want.entered);
    EXPECT_EQ(f.plan.left, want.left);
    EXPECT_EQ(f.entered_positions, kSamplePositions);
}

TEST(DeltaWire, AFullBaselineWithoutPositionsIsCompact) {
    DeltaPlan p;
    p.seq = 5;
    p.full_baseline = true;
    p.digest = 0;
    p.entered = {SlotKey{0, 0}.encode(), SlotKey{1, 0}.encode(), SlotKey{2, 0}.encode()};
    ByteWriter w;
    encode_delta_frame(w, p, {});
    EXPECT_EQ(bytes_of(w),
              (Bytes{0x44, 0x01, 0x05, 0, 0, 0, 0, 0, 0, 0, 0, 0x03, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00}));
}

TEST(DeltaWire, AnAckEncodesToTheDocumentedBytes) {
    ByteWriter w;
    encode_ack(w, {.newest = 70, .mask = ~std::uint64_t{1}, .digest = 0x1122334455667788ULL});
    EXPECT_EQ(bytes_of(w), (Bytes{0x41, 0x46, 0x01, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11}));
    w.clear();
    // Early in a stream only the bits naming real sequences count: 0 and 2 arrived, 1 did not.
    encode_ack(w, {.newest = 3, .mask = 0b101, .digest = 0});
    EXPECT_EQ(bytes_of(w), (Bytes{0x41, 0x03, 0x02, 0, 0, 0, 0, 0, 0, 0, 0}));
}

TEST(DeltaWire, AnAckRoundTripsFromARealWindow) {
    XorShift rng(2);
    for (int trial = 0; trial < 200; ++trial) {
        AckWindow window;
        const std::uint64_t start = rng.below(3) == 0 ? 0 : rng.below(1'000'000);
        for (std::uint64_t s = start; s < start + 1 + rng.below(150); ++s) {
            if (!rng.chance(0.3f)) window.observe(s);
        }
        if (!window.encode()) continue;
        const AckReport report{window.encode()->first, window.encode()->second, rng.next()};
        ByteWriter w;
        encode_ack(w, report);
        AckReport back;
        ASSERT_EQ(decode_ack(w.bytes(), back), WireError::Ok) << "trial " << trial;
        EXPECT_EQ(back, report) << "trial " << trial;
    }
}

TEST(DeltaWire, RandomFramesRoundTrip) {
    for (std::uint64_t seed = 1; seed <= 200; ++seed) {
        XorShift rng(seed);
        DeltaPlan p;
        p.seq = rng.next() >> rng.below(64);
        p.full_baseline = rng.chance(0.3f);
        if (!p.full_baseline && p.seq > 0 && rng.chance(0.7f)) p.baseline_seq = p.seq - 1 - rng.below(p.seq);
        p.digest = rng.next();
        std::uint32_t index = static_cast<std::uint32_t>(rng.below(100));
        for (std::uint64_t i = 0, n = rng.below(50); i < n; ++i) {
            p.entered.push_back(SlotKey{index, static_cast<std::uint16_t>(rng.below(70000))}.encode());
            index += 1 + static_cast<std::uint32_t>(rng.below(1000));
        }
        if (!p.full_baseline) {
            index = static_cast<std::uint32_t>(rng.below(10));
            std::uint16_t gen = 0;
            for (std::uint64_t i = 0, n = rng.below(50); i < n; ++i) {
                // Sometimes two occupants of one slot (an old and a new one) are both retracted.
                if (i > 0 && rng.chance(0.2f) && gen < 65535) {
                    gen = static_cast<std::uint16_t>(gen + 1);
                } else {
                    index += static_cast<std::uint32_t>(i == 0 ? 0 : 1 + rng.below(300));
                    gen = static_cast<std::uint16_t>(rng.below(5));
                }
                p.left.push_back(SlotKey{index, gen}.encode());
            }
        }
        std::vector<Vec2> positions;
        if (rng.chance(0.5f)) {
            for (std::size_t i = 0; i < p.entered.size(); ++i) {
                positions.push_back({static_cast<float>(rng.below(64000)) / 16.0f - 2000.0f,
                                     static_cast<float>(rng.below(64000)) / 16.0f - 2000.0f});
            }
        }
        ByteWriter w;
        encode_delta_frame(w, p, positions);
        ASSERT_TRUE(w.ok()) << "seed " << seed;
        DeltaFrame f;
        ASSERT_EQ(decode_delta_frame(w.bytes(), f), WireError::Ok) << "seed " << seed;
        EXPECT_EQ(f.plan.seq, p.seq) << "seed " << seed;
        EXPECT_EQ(f.plan.full_baseline, p.full_baseline) << "seed " << seed;
        EXPECT_EQ(f.plan.baseline_seq, p.baseline_seq) << "seed " << seed;
        EXPECT_EQ(f.plan.digest, p.digest) << "seed " << seed;
        EXPECT_EQ(f.plan.entered, p.entered) << "seed " << seed;
        EXPECT_EQ(f.plan.left, p.left) << "seed " << seed;
        EXPECT_EQ(f.entered_positions, positions) << "seed " << seed;
    }
}

TEST(DeltaWire, ANonFinitePositionFailsTheWriter) {
    DeltaPlan p;
    p.seq = 1;
    p.entered = {SlotKey{1, 0}.encode()};
    const std::vector<Vec2> bad{{std::nanf(""), 0.0f}};
    ByteWriter w;
    encode_delta_frame(w, p, bad);
    EXPECT_FALSE(w.ok());
    EXPECT_EQ(w.error(), WireError::NotFinite);
}

// Decodes a frame after letting `edit` change the sample's bytes.
template <class Edit>
WireError decode_edited(Edit edit, const WireOptions& options = {}) {
    Bytes b = kSampleFrame;
    edit(b);
    DeltaFrame f;
    return decode_delta_frame(b, f, options);
}

TEST(DeltaWire, EveryTruncationOfAFrameIsRefused) {
    for (std::size_t n = 0; n < kSampleFrame.size(); ++n) {
        DeltaFrame f;
        const Bytes cut(kSampleFrame.begin(), kSampleFrame.begin() + static_cast<std::ptrdiff_t>(n));
        const WireError e = decode_delta_frame(cut, f);
        EXPECT_NE(e, WireError::Ok) << "prefix " << n;
        EXPECT_TRUE(f.plan.entered.empty() && f.plan.left.empty() && f.entered_positions.empty()) << "prefix " << n;
    }
}

TEST(DeltaWire, AnUnknownTypeOrFlagIsRefused) {
    EXPECT_EQ(decode_edited([](Bytes& b) { b[0] = 0x00; }), WireError::UnknownType);
    EXPECT_EQ(decode_edited([](Bytes& b) { b[1] |= 0x80; }), WireError::Malformed);
    DeltaMessageType t{};
    EXPECT_EQ(peek_message_type(kSampleFrame, t), WireError::Ok);
    EXPECT_EQ(t, DeltaMessageType::Frame);
    EXPECT_EQ(peek_message_type(Bytes{0x13}, t), WireError::UnknownType);
    EXPECT_EQ(peek_message_type(Bytes{}, t), WireError::Truncated);
}

TEST(DeltaWire, AFullBaselineThatNamesABaselineIsMalformed) {
    EXPECT_EQ(decode_edited([](Bytes& b) { b[1] |= 0x01; }), WireError::Malformed);
}

TEST(DeltaWire, AFullBaselineThatRetractsIsMalformed) {
    // Clear the baseline flag and drop its byte: a full frame with a non-empty left list.
    EXPECT_EQ(decode_edited([](Bytes& b) {
                  b[1] = 0x05;
                  b.erase(b.begin() + 4);
              }),
              WireError::Malformed);
}

TEST(DeltaWire, ABaselineThatIsNotOlderThanItsFrameIsMalformed) {
    EXPECT_EQ(decode_edited([](Bytes& b) { b[4] = 0x00; }), WireError::Malformed);  // baseline == seq
    // baseline before sequence zero: 300 back from 300 is 0 (fine), 301 back is not.
    EXPECT_EQ(decode_edited([](Bytes& b) {
                  b[4] = 0xAD;
                  b.insert(b.begin() + 5, 0x02);
              }),
              WireError::Malformed);
}

TEST(DeltaWire, KeysOutOfOrderAreRefused) {
    // Second entered key: gap 0 with a generation not above the first's.
    EXPECT_EQ(decode_edited([](Bytes& b) {
                  b[16] = 0x00;
                  b[17] = 0x00;
              }),
              WireError::NotAscending);
}

TEST(DeltaWire, AGenerationBeyondSixteenBitsIsOutOfRange) {
    ByteWriter w;
    w.write_u8(0x44);
    w.write_u8(0x00);
    w.write_varint(1);
    w.write_u64(0);
    w.write_varint(1);
    w.write_varint(0);
    w.write_varint(70000);  // generation
    w.write_varint(0);
    DeltaFrame f;
    EXPECT_EQ(decode_delta_frame(w.bytes(), f), WireError::OutOfRange);
}

TEST(DeltaWire, AnIndexBeyondThirtyTwoBitsIsOutOfRange) {
    ByteWriter w;
    w.write_u8(0x44);
    w.write_u8(0x00);
    w.write_varint(1);
    w.write_u64(0);
    w.write_varint(2);
    w.write_varint(0xFFFFFFF0u);
    w.write_varint(0);
    w.write_varint(0x20);  // index 0xFFFFFFF0 + 0x20 overflows 32 bits
    w.write_varint(0);
    w.write_varint(0);
    DeltaFrame f;
    EXPECT_EQ(decode_delta_frame(w.bytes(), f), WireError::OutOfRange);
}

TEST(DeltaWire, MoreKeysThanTheLimitAreRefused) {
    EXPECT_EQ(decode_edited([](Bytes&) {}, {.max_keys = 1}), WireError::TooMany);
    // A count the remaining bytes could never hold.
    EXPECT_EQ(decode_edited([](Bytes& b) { b[13] = 0x7F; }), WireError::TooMany);
}

TEST(DeltaWire, PositionsWithoutEnteredKeysAreMalformed) {
    ByteWriter w;
    w.write_u8(0x44);
    w.write_u8(0x04);
    w.write_varint(1);
    w.write_u64(0);
    w.write_varint(0);
    w.write_varint(0);
    DeltaFrame f;
    EXPECT_EQ(decode_delta_frame(w.bytes(), f), WireError::Malformed);
}

TEST(DeltaWire, TrailingBytesAfterAFrameAreRefused) {
    EXPECT_EQ(decode_edited([](Bytes& b) { b.push_back(0); }), WireError::TrailingBytes);
}

TEST(DeltaWire, AnAckWithBitsBeforeSequenceZeroIsMalformed) {
    const Bytes bad{0x41, 0x02, 0x04, 0, 0, 0, 0, 0, 0, 0, 0};  // newest 2, "missing" bit 2 = seq -1
    AckReport r;
    EXPECT_EQ(decode_ack(bad, r), WireError::Malformed);
}

TEST(DeltaWire, EveryTruncationOfAnAckIsRefused) {
    ByteWriter w;
    encode_ack(w, {.newest = 1000, .mask = 0xF0F0F0F0F0F0F0F0ULL, .digest = 7});
    const Bytes full = bytes_of(w);
    for (std::size_t n = 0; n < full.size(); ++n) {
        AckReport r;
        EXPECT_NE(decode_ack(std::span<const std::uint8_t>(full.data(), n), r), WireError::Ok) << "prefix " << n;
    }
    Bytes longer = full;
    longer.push_back(1);
    AckReport r;
    EXPECT_EQ(decode_ack(longer, r), WireError::TrailingBytes);
    EXPECT_EQ(decode_ack(kSampleFrame, r), WireError::UnknownType);
}

// Found outside the project's own tests: a frame whose entered position has a quantum near
// 2^31 was accepted and then could not be re-encoded. Now it is refused.
TEST(DeltaWire, APositionTheEncoderCannotWriteIsRefused) {
    const Bytes reproducer = {0x44, 0x05, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                              0x01, 0x01, 0x00, 0x00, 0xFE, 0xFF, 0xFF, 0xFF, 0x0F, 0x00};
    DeltaFrame frame;
    const WireOptions options{.position_step = 1.0f / 16.0f, .max_keys = 4096};
    EXPECT_EQ(decode_delta_frame(reproducer, frame, options), WireError::OutOfRange);
}

// More keys than the decoder takes: the encoder refuses first, with the decoder's reason.
TEST(DeltaWire, TheEncoderRefusesWhatTheDecoderWouldRefuse) {
    DeltaPlan plan;
    plan.seq = 1;
    plan.full_baseline = true;
    for (std::uint32_t i = 0; i < 5; ++i) plan.entered.push_back(SlotKey{i, 0}.encode());
    const WireOptions options{.position_step = 1.0f / 16.0f, .max_keys = 4};
    ByteWriter w;
    encode_delta_frame(w, plan, {}, options);
    EXPECT_EQ(w.error(), WireError::TooMany);
    plan.entered.pop_back();
    ByteWriter fits;
    encode_delta_frame(fits, plan, {}, options);
    ASSERT_TRUE(fits.ok());
    DeltaFrame frame;
    EXPECT_EQ(decode_delta_frame(fits.bytes(), frame, options), WireError::Ok);
}

DeltaPlan full_plan(std::uint32_t keys) {
    DeltaPlan plan;
    plan.seq = 7;
    plan.full_baseline = true;
    for (std::uint32_t i = 0; i < keys; ++i) plan.entered.push_back(SlotKey{i, 0}.encode());
    return plan;
}

// A frame one byte over max_frame_bytes: refused by the encoder (TooLarge, nothing a peer
// could read goes out) and by the decoder; at the limit both take it.
TEST(DeltaWire, AFrameLongerThanMaxFrameBytesIsRefusedByBothEnds) {
    const DeltaPlan plan = full_plan(100);  // 11 header bytes, 201 for the list, 1 for left
    const std::size_t size = delta_frame_bytes(plan, 0);
    ASSERT_EQ(size, 213u);
    ByteWriter exact;
    encode_delta_frame(exact, plan, {}, {.max_frame_bytes = kMinFrameBytes});
    EXPECT_EQ(exact.error(), WireError::TooLarge);

    const WireOptions at_limit{.max_frame_bytes = size};
    ByteWriter w;
    encode_delta_frame(w, plan, {}, at_limit);
    ASSERT_TRUE(w.ok());
    ASSERT_EQ(w.size(), size);
    DeltaFrame f;
    EXPECT_EQ(decode_delta_frame(w.bytes(), f, at_limit), WireError::Ok);
    EXPECT_EQ(decode_delta_frame(w.bytes(), f, {.max_frame_bytes = size - 1}), WireError::TooLarge);
    EXPECT_TRUE(f.plan.entered.empty());

    ByteWriter over;
    encode_delta_frame(over, plan, {}, {.max_frame_bytes = size - 1});
    EXPECT_EQ(over.error(), WireError::TooLarge);
    EXPECT_STREQ(to_string(WireError::TooLarge), "message too large");
}

// The planner sizes frames with delta_frame_bytes: it must be the encoder's exact size, and
// position_bytes_bound an upper bound of what positions add.
TEST(DeltaWire, TheFrameSizeFunctionMatchesTheEncoder) {
    const WireOptions options{.max_frame_bytes = kMaxFrameBytesLimit};
    const std::size_t bound = options.position_bytes_bound(2000.0f);
    EXPECT_EQ(bound, 6u);  // 2000 * 16 = 32000, zig-zag 64000: three bytes per coordinate
    for (std::uint64_t seed = 1; seed <= 200; ++seed) {
        XorShift rng(seed);
        DeltaPlan p;
        p.seq = rng.next() >> rng.below(64);
        if (p.seq > 0 && rng.chance(0.6f)) p.baseline_seq = p.seq - 1 - rng.below(p.seq);
        std::uint32_t index = static_cast<std::uint32_t>(rng.below(1u << 20));
        for (std::uint64_t i = 0, n = rng.below(200); i < n; ++i) {
            p.entered.push_back(SlotKey{index, static_cast<std::uint16_t>(rng.below(65536))}.encode());
            index += 1 + static_cast<std::uint32_t>(rng.below(1u << rng.below(24)));
        }
        index = static_cast<std::uint32_t>(rng.below(100));
        for (std::uint64_t i = 0, n = rng.below(200); i < n; ++i) {
            p.left.push_back(SlotKey{index, static_cast<std::uint16_t>(rng.below(300))}.encode());
            index += 1 + static_cast<std::uint32_t>(rng.below(5000));
        }
        std::vector<Vec2> positions;
        for (std::size_t i = 0; i < p.entered.size(); ++i)
            positions.push_back({rng.range(-2000.0f, 2000.0f), rng.range(-2000.0f, 2000.0f)});
        ByteWriter bare;
        encode_delta_frame(bare, p, {}, options);
        ASSERT_TRUE(bare.ok()) << "seed " << seed;
        EXPECT_EQ(delta_frame_bytes(p, 0), bare.size()) << "seed " << seed;
        const auto value = static_cast<std::size_t>(rng.below(17));
        const std::size_t floor =
            delta_frame_bytes_floor(p.seq, p.baseline_seq, p.entered.size(), p.left.size(), value);
        EXPECT_LE(floor, delta_frame_bytes(p, value)) << "seed " << seed;
        // Tight when every gap and generation fits one byte.
        const std::vector<std::uint64_t> dense = [&] {
            std::vector<std::uint64_t> keys;
            for (std::uint32_t i = 0; i < p.entered.size(); ++i) keys.push_back(SlotKey{i, 0}.encode());
            return keys;
        }();
        EXPECT_EQ(delta_frame_bytes(p.seq, p.baseline_seq, dense, {}, value),
                  delta_frame_bytes_floor(p.seq, p.baseline_seq, dense.size(), 0, value))
            << "seed " << seed;
        ByteWriter with;
        encode_delta_frame(with, p, positions, options);
        ASSERT_TRUE(with.ok()) << "seed " << seed;
        EXPECT_LE(with.size(), delta_frame_bytes(p, bound)) << "seed " << seed;
    }
}

// Allocation-free after warm-up: frames that creep upwards one key at a time grow the
// decoder's lists a logarithmic number of times, not once per new largest frame.
TEST(DeltaWire, TheDecoderGrowsItsBuffersGeometrically) {
    DeltaFrame f;
    int growths = 0;
    std::size_t entered_capacity = 0, positions_capacity = 0;
    for (std::uint32_t n = 1; n <= 150; ++n) {
        DeltaPlan plan = full_plan(n);
        const std::vector<Vec2> positions(n, Vec2{1.0f, 2.0f});
        ByteWriter w;
        encode_delta_frame(w, plan, positions);
        ASSERT_TRUE(w.ok()) << n;
        ASSERT_EQ(decode_delta_frame(w.bytes(), f), WireError::Ok) << n;
        ASSERT_EQ(f.plan.entered.size(), n);
        if (f.plan.entered.capacity() != entered_capacity) ++growths;
        if (f.entered_positions.capacity() != positions_capacity) ++growths;
        entered_capacity = f.plan.entered.capacity();
        positions_capacity = f.entered_positions.capacity();
    }
    // Powers of two up to 256: 9 growths per list. Exact reserves would grow 150 times each.
    EXPECT_LE(growths, 18);
}

TEST(WireOptions, ValidateNamesTheFirstBadField) {
    EXPECT_EQ(WireOptions{}.validate(), "");
    EXPECT_NE(WireOptions{.position_step = 0.0f}.validate(), "");
    EXPECT_NE(WireOptions{.max_keys = 0}.validate(), "");
    EXPECT_NE(WireOptions{.max_frame_bytes = kMinFrameBytes - 1}.validate(), "");
    EXPECT_NE(WireOptions{.max_frame_bytes = kMaxFrameBytesLimit + 1}.validate(), "");
    EXPECT_EQ(WireOptions{.max_frame_bytes = kMinFrameBytes}.validate(), "");
}

#if GTEST_HAS_DEATH_TEST
#if VANTAGE_HOT_ASSERTS
TEST(DeltaWireDeathTest, EncodingUnsortedOrUnpackableKeysIsRejected) {
    ByteWriter w;
    DeltaPlan plan;
    plan.seq = 1;
    plan.entered = {SlotKey{5, 0}.encode(), SlotKey{2, 0}.encode()};
    EXPECT_DEATH(encode_delta_frame(w, plan, {}), "encode_delta_frame: keys must be ascending and unique");
    plan.entered = {std::uint64_t{1} << 50};
    EXPECT_DEATH(encode_delta_frame(w, plan, {}), "encode_delta_frame: a key is not a packed SlotKey");
}
#endif

TEST(DeltaWireDeathTest, APlanThatContradictsItselfIsRejected) {
    ByteWriter w;
    DeltaPlan plan;
    plan.seq = 4;
    plan.full_baseline = true;
    plan.baseline_seq = 2;
    EXPECT_DEATH(encode_delta_frame(w, plan, {}), "a full baseline has no baseline_seq");
    plan.full_baseline = false;
    plan.entered = {SlotKey{1, 0}.encode()};
    const std::vector<Vec2> two{{0.0f, 0.0f}, {1.0f, 1.0f}};
    EXPECT_DEATH(encode_delta_frame(w, plan, two), "positions must be empty or one per entered key");
    EXPECT_DEATH(encode_delta_frame(w, plan, {}, WireOptions{.position_step = 0.0f}),
                 "encode_delta_frame: invalid WireOptions: position_step must be > 0");
}
#endif

}  // namespace
}  // namespace vantage
