#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "vantage/assert.hpp"
#include "vantage/byte_io.hpp"
#include "vantage/random.hpp"

namespace vantage {
namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes bytes_of(const ByteWriter& w) {
    return Bytes(w.bytes().begin(), w.bytes().end());
}

Bytes varint_bytes(std::uint64_t v) {
    ByteWriter w;
    w.write_varint(v);
    return bytes_of(w);
}

TEST(ByteWriter, VarintGoldenBytesMatchTheDocumentedFormat) {
    EXPECT_EQ(varint_bytes(0), (Bytes{0x00}));
    EXPECT_EQ(varint_bytes(1), (Bytes{0x01}));
    EXPECT_EQ(varint_bytes(127), (Bytes{0x7F}));
    EXPECT_EQ(varint_bytes(128), (Bytes{0x80, 0x01}));
    EXPECT_EQ(varint_bytes(300), (Bytes{0xAC, 0x02}));
    EXPECT_EQ(varint_bytes(UINT64_MAX), (Bytes{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}));
    EXPECT_EQ(varint_size(0), 1u);
    EXPECT_EQ(varint_size(128), 2u);
    EXPECT_EQ(varint_size(UINT64_MAX), 10u);
}

// varint_size is arithmetic, not a loop over the bytes: pin it to the encoder's own length
// at both ends of every bit count, 0 through 64 significant bits.
TEST(ByteWriter, VarintSizeIsTheEncodedLengthAtEveryBitCount) {
    EXPECT_EQ(varint_size(0), varint_bytes(0).size());
    for (int bits = 1; bits <= 64; ++bits) {
        const std::uint64_t lowest = std::uint64_t{1} << (bits - 1);
        const std::uint64_t highest = bits == 64 ? UINT64_MAX : (std::uint64_t{1} << bits) - 1;
        EXPECT_EQ(varint_size(lowest), varint_bytes(lowest).size()) << bits << " bits";
        EXPECT_EQ(varint_size(highest), varint_bytes(highest).size()) << bits << " bits";
        EXPECT_EQ(varint_size(highest), static_cast<std::size_t>((bits + 6) / 7)) << bits << " bits";
    }
}

TEST(ByteWriter, ZigZagMapsSmallMagnitudesToSmallCodes) {
    EXPECT_EQ(zigzag_encode(0), 0u);
    EXPECT_EQ(zigzag_encode(-1), 1u);
    EXPECT_EQ(zigzag_encode(1), 2u);
    EXPECT_EQ(zigzag_encode(-2), 3u);
    EXPECT_EQ(zigzag_encode(std::numeric_limits<std::int64_t>::max()), UINT64_MAX - 1);
    EXPECT_EQ(zigzag_encode(std::numeric_limits<std::int64_t>::min()), UINT64_MAX);
    for (std::int64_t v : {std::int64_t{0}, std::int64_t{-1}, std::int64_t{1}, std::int64_t{-123456789},
                           std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()}) {
        EXPECT_EQ(zigzag_decode(zigzag_encode(v)), v);
    }
}

TEST(ByteWriter, FixedWidthIntegersAreLittleEndian) {
    ByteWriter w;
    w.write_u8(0xAB);
    w.write_u16(0x1234);
    w.write_u32(0xDEADBEEF);
    w.write_u64(0x0102030405060708ULL);
    w.write_f32(1.0f);
    EXPECT_EQ(bytes_of(w), (Bytes{0xAB, 0x34, 0x12, 0xEF, 0xBE, 0xAD, 0xDE, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02,
                                  0x01, 0x00, 0x00, 0x80, 0x3F}));
}

TEST(ByteWriter, FixedPointCoordinatesAreZigZagQuanta) {
    ByteWriter w;
    const float step = 1.0f / 16.0f;
    w.write_fixed(1.5f, step);                // quantum 24 -> zig-zag 48
    w.write_fixed(-0.0625f, step);            // quantum -1 -> 1
    w.write_fixed2({100.0f, -100.0f}, step);  // 1600 -> 3200, -1600 -> 3199
    EXPECT_TRUE(w.ok());
    EXPECT_EQ(bytes_of(w), (Bytes{0x30, 0x01, 0x80, 0x19, 0xFF, 0x18}));
}

TEST(ByteWriter, SortedKeysAreCodedAsGapsMinusOne) {
    ByteWriter w;
    const std::vector<std::uint64_t> keys{3, 4, 10, 200};
    w.write_sorted_keys(keys);
    EXPECT_EQ(bytes_of(w), (Bytes{0x04, 0x03, 0x00, 0x05, 0xBD, 0x01}));
    w.clear();
    w.write_sorted_keys({});
    EXPECT_EQ(bytes_of(w), (Bytes{0x00}));
}

TEST(ByteWriter, ANonFiniteCoordinateMarksTheWriterFailedButKeepsTheLayout) {
    ByteWriter w;
    w.write_fixed(std::nanf(""), 1.0f);
    EXPECT_FALSE(w.ok());
    EXPECT_EQ(w.error(), WireError::NotFinite);
    EXPECT_EQ(bytes_of(w), (Bytes{0x00}));

    ByteWriter far;
    far.write_fixed(1e30f, 1.0f);
    EXPECT_EQ(far.error(), WireError::OutOfRange);

    ByteWriter inf;
    inf.write_fixed(-std::numeric_limits<float>::infinity(), 0.5f);
    EXPECT_EQ(inf.error(), WireError::NotFinite);
}

TEST(ByteWriter, ARunWritesWhatTheSingleWritesWriteAndKeepsTheFirstError) {
    XorShift rng(23);
    for (int round = 0; round < 200; ++round) {
        std::vector<std::uint64_t> values;
        std::vector<float> coordinates;
        for (int i = 0; i < 20; ++i) {
            values.push_back(rng.next() >> (rng.next() % 64));
            std::uint32_t bits = static_cast<std::uint32_t>(rng.next());
            float v = 0.0f;
            std::memcpy(&v, &bits, sizeof v);
            coordinates.push_back(i % 3 == 0 ? v : rng.range(-5000.0f, 5000.0f));  // some not finite, some too far
        }
        ByteWriter single;
        single.write_u8(9);  // a run appends to what is there
        for (std::size_t i = 0; i < values.size(); ++i) {
            single.write_varint(values[i]);
            single.write_zigzag(-static_cast<std::int64_t>(values[i] >> 1));
            single.write_fixed(coordinates[i], 0.0625f);
        }
        single.write_fixed2({coordinates[0], coordinates[1]}, 0.5f);
        ByteWriter run;
        run.write_u8(9);
        const std::size_t most = values.size() * (2 * kMaxVarintBytes + ByteWriter::kMaxFixedBytes);
        run.run(most, [&](ByteWriter::Cursor& c) {
            for (std::size_t i = 0; i < values.size(); ++i) {
                c.varint(values[i]);
                c.zigzag(-static_cast<std::int64_t>(values[i] >> 1));
                c.fixed(coordinates[i], 0.0625f);
            }
        });
        run.run(2 * ByteWriter::kMaxFixedBytes, [&](ByteWriter::Cursor& c) {
            c.fixed2({coordinates[0], coordinates[1]}, 0.5f);
        });
        ASSERT_EQ(bytes_of(run), bytes_of(single));
        ASSERT_EQ(run.error(), single.error());
    }
    // The writer's own earlier error stays first.
    ByteWriter w;
    w.write_fixed(1e30f, 1.0f);
    w.run(ByteWriter::kMaxFixedBytes, [](ByteWriter::Cursor& c) { c.fixed(std::nanf(""), 1.0f); });
    EXPECT_EQ(w.error(), WireError::OutOfRange);
    EXPECT_EQ(bytes_of(w), (Bytes{0x00, 0x00}));
}

TEST(ByteWriter, ClearKeepsCapacityAndForgetsTheError) {
    ByteWriter w;
    for (int i = 0; i < 100; ++i) w.write_u64(static_cast<std::uint64_t>(i));
    w.write_fixed(std::nanf(""), 1.0f);
    w.clear();
    EXPECT_TRUE(w.ok());
    EXPECT_EQ(w.size(), 0u);
    w.write_u8(7);
    EXPECT_EQ(bytes_of(w), (Bytes{7}));
}

TEST(Quantize, RoundsToTheNearestStepAndRefusesWhatDoesNotFit) {
    EXPECT_EQ(quantize(1.03f, 0.0625f), 16);
    EXPECT_EQ(quantize(1.04f, 0.0625f), 17);
    EXPECT_EQ(quantize(-1.04f, 0.0625f), -17);
    EXPECT_EQ(quantize(0.0f, 0.0625f), 0);
    EXPECT_FALSE(quantize(std::nanf(""), 1.0f).has_value());
    EXPECT_FALSE(quantize(std::numeric_limits<float>::infinity(), 1.0f).has_value());
    EXPECT_FALSE(quantize(3e9f, 1.0f).has_value());
    EXPECT_EQ(dequantize(17, 0.0625f), 1.0625f);
}

// quantize rounds without std::round; this is the definition it must agree with.
std::optional<std::int32_t> quantize_by_round(float value, float step) {
    if (!std::isfinite(value)) return std::nullopt;
    const double q = std::round(static_cast<double>(value) / static_cast<double>(step));
    if (q < -2147483648.0 || q > 2147483647.0) return std::nullopt;
    return static_cast<std::int32_t>(q);
}

TEST(Quantize, AgreesWithRoundHalfAwayFromZeroOnTiesAndAtTheEdges) {
    const float steps[] = {0.0625f, 1.0f / 16.0f / 3.0f, 0.1f, 1.0f, 3.0f, 1e-30f, 1e30f};
    std::vector<float> values{
        0.0f, -0.0f, 1e-45f, -1e-45f, std::numeric_limits<float>::max(), -std::numeric_limits<float>::max()};
    for (const float step : steps) {
        // Exact halves (k + 0.5) * step where the float holds them, and one ulp either side.
        for (const double k : {0.0, 1.0, 2.0, 7.0, 1000.0, 123456.0, 4194303.0}) {
            for (const double sign : {1.0, -1.0}) {
                const auto half = static_cast<float>(sign * (k + 0.5) * step);
                values.insert(values.end(), {half, std::nextafter(half, 0.0f), std::nextafter(half, 2.0f * half)});
            }
        }
        // Both 32-bit edges, where the quantum stops fitting.
        for (const double edge : {2147483647.0, 2147483647.5, 2147483648.0, -2147483648.0, -2147483648.5}) {
            const auto v = static_cast<float>(edge * step);
            values.insert(values.end(), {v, std::nextafter(v, 0.0f), std::nextafter(v, 2.0f * v)});
        }
    }
    XorShift rng(17);
    for (int i = 0; i < 20000; ++i) {
        std::uint32_t bits = static_cast<std::uint32_t>(rng.next());
        float v = 0.0f;
        std::memcpy(&v, &bits, sizeof v);
        values.push_back(v);  // any bit pattern: NaNs, infinities, subnormals
        values.push_back(rng.range(-5000.0f, 5000.0f));
    }
    for (const float step : steps) {
        for (const float v : values) {
            ASSERT_EQ(quantize(v, step), quantize_by_round(v, step)) << "value " << v << " step " << step;
        }
    }
}

TEST(ByteReader, EveryPrimitiveRoundTrips) {
    for (std::uint64_t seed = 1; seed <= 50; ++seed) {
        XorShift rng(seed);
        ByteWriter w;
        const std::uint8_t a = static_cast<std::uint8_t>(rng.next());
        const std::uint16_t b = static_cast<std::uint16_t>(rng.next());
        const std::uint32_t c = static_cast<std::uint32_t>(rng.next());
        const std::uint64_t d = rng.next();
        const std::uint64_t e = rng.next() >> rng.below(64);
        const std::int64_t f = static_cast<std::int64_t>(rng.next()) >> rng.below(64);
        const float g = rng.range(-1e6f, 1e6f);
        const float h = rng.range(-5000.0f, 5000.0f);
        std::vector<std::uint64_t> keys;
        std::uint64_t k = rng.below(1000);
        for (std::uint64_t i = 0, n = rng.below(40); i < n; ++i) {
            keys.push_back(k);
            k += 1 + rng.below(1u << rng.below(30));
        }
        w.write_u8(a);
        w.write_u16(b);
        w.write_u32(c);
        w.write_u64(d);
        w.write_varint(e);
        w.write_zigzag(f);
        w.write_f32(g);
        w.write_fixed(h, 0.0625f);
        w.write_sorted_keys(keys);
        ASSERT_TRUE(w.ok()) << "seed " << seed;

        ByteReader r(w.bytes());
        EXPECT_EQ(r.read_u8(), a) << "seed " << seed;
        EXPECT_EQ(r.read_u16(), b) << "seed " << seed;
        EXPECT_EQ(r.read_u32(), c) << "seed " << seed;
        EXPECT_EQ(r.read_u64(), d) << "seed " << seed;
        EXPECT_EQ(r.read_varint(), e) << "seed " << seed;
        EXPECT_EQ(r.read_zigzag(), f) << "seed " << seed;
        EXPECT_EQ(r.read_f32(), g) << "seed " << seed;
        EXPECT_NEAR(r.read_fixed(0.0625f), h, 0.0625f / 2.0f) << "seed " << seed;
        std::vector<std::uint64_t> back;
        r.read_sorted_keys(back, 1000);
        EXPECT_EQ(back, keys) << "seed " << seed;
        EXPECT_TRUE(r.finish()) << "seed " << seed << ": " << to_string(r.error());
    }
}

TEST(ByteReader, ReadingPastTheEndIsTruncatedAndSticky) {
    const Bytes data{0x01, 0x02};
    ByteReader r(data);
    EXPECT_EQ(r.read_u8(), 0x01);
    EXPECT_EQ(r.read_u32(), 0u);
    EXPECT_EQ(r.error(), WireError::Truncated);
    EXPECT_EQ(r.position(), 1u);  // the failed read consumed nothing
    EXPECT_EQ(r.read_u8(), 0u);   // and the error is sticky: nothing more is read
    EXPECT_EQ(r.position(), 1u);
    EXPECT_FALSE(r.finish());
    EXPECT_EQ(r.error(), WireError::Truncated);
}

TEST(ByteReader, AnEmptySpanReadsNothing) {
    ByteReader r(std::span<const std::uint8_t>{});
    EXPECT_EQ(r.read_varint(), 0u);
    EXPECT_EQ(r.error(), WireError::Truncated);
}

TEST(ByteReader, AVarintCutShortIsTruncated) {
    const Bytes data{0x80, 0x80};
    ByteReader r(data);
    r.read_varint();
    EXPECT_EQ(r.error(), WireError::Truncated);
}

TEST(ByteReader, AVarintLongerThanTenBytesIsRefused) {
    const Bytes data{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01};
    ByteReader r(data);
    r.read_varint();
    EXPECT_EQ(r.error(), WireError::BadVarint);
}

TEST(ByteReader, AVarintOverflowingSixtyFourBitsIsRefused) {
    const Bytes data{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02};
    ByteReader r(data);
    r.read_varint();
    EXPECT_EQ(r.error(), WireError::BadVarint);
}

TEST(ByteReader, APaddedVarintIsRefusedSoEveryValueHasOneEncoding) {
    const Bytes data{0x81, 0x00};
    ByteReader r(data);
    r.read_varint();
    EXPECT_EQ(r.error(), WireError::BadVarint);
}

// read_varint_upto3 inlines the one-, two- and three-byte cases that read_varint takes out of
// line: over every first and second byte, a range of third bytes and the lengths around three,
// the same value, the same bytes consumed and the same error as read_varint.
TEST(ByteReader, TheShortVarintPathReadsWhatTheGeneralOneReads) {
    const std::uint8_t thirds[] = {0x00, 0x01, 0x40, 0x7F, 0x80, 0x81, 0xFF};
    for (std::size_t length = 1; length <= 4; ++length) {
        for (unsigned b0 = 0; b0 < 256; ++b0) {
            for (unsigned b1 = 0; b1 < 256; ++b1) {
                for (const std::uint8_t b2 : thirds) {
                    const Bytes all{static_cast<std::uint8_t>(b0), static_cast<std::uint8_t>(b1), b2, 0x05};
                    const std::span<const std::uint8_t> data(all.data(), length);
                    ByteReader general(data);
                    ByteReader fast(data);
                    const std::uint64_t expected = general.read_varint();
                    ASSERT_EQ(fast.read_varint_upto3(), expected) << b0 << " " << b1 << " " << int{b2} << " " << length;
                    ASSERT_EQ(fast.remaining(), general.remaining());
                    ASSERT_EQ(fast.error(), general.error());
                }
            }
        }
    }
}

TEST(ByteReader, ABoundedVarintAboveItsLimitIsOutOfRange) {
    const Bytes data = varint_bytes(1000);
    ByteReader r(data);
    EXPECT_EQ(r.read_varint_max(999), 0u);
    EXPECT_EQ(r.error(), WireError::OutOfRange);

    const Bytes big = varint_bytes(std::uint64_t{UINT32_MAX} + 1);
    ByteReader r32(big);
    r32.read_varint_u32();
    EXPECT_EQ(r32.error(), WireError::OutOfRange);
}

TEST(ByteReader, AFixedPointQuantumBeyondThirtyTwoBitsIsOutOfRange) {
    ByteWriter w;
    w.write_zigzag(std::int64_t{INT32_MAX} + 1);
    ByteReader r(w.bytes());
    r.read_fixed(1.0f);
    EXPECT_EQ(r.error(), WireError::OutOfRange);
}

// Near 2^31 a quantum's value rounds (as a float) to 2^27 at step 1/16, whose quantum is 2^31:
// the writer would refuse it, so the reader does too.
TEST(ByteReader, AFixedPointQuantumTheWriterCannotWriteIsOutOfRange) {
    ByteWriter w;
    w.write_zigzag(std::int64_t{INT32_MAX} - 3);
    ByteReader r(w.bytes());
    r.read_fixed(1.0f / 16.0f);
    EXPECT_EQ(r.error(), WireError::OutOfRange);
    // Every quantum the writer does write is read back exactly, near the limit too.
    for (const float v : {-134217720.0f, -1.0f, 0.0f, 0.0625f, 1000.5f, 134217720.0f}) {
        ByteWriter ok;
        ok.write_fixed(v, 1.0f / 16.0f);
        ASSERT_TRUE(ok.ok()) << v;
        ByteReader back(ok.bytes());
        EXPECT_EQ(back.read_fixed(1.0f / 16.0f), v);
        EXPECT_EQ(back.error(), WireError::Ok) << v;
    }
}

// read_fixed skips the round trip through quantize for small quanta and ordinary steps; it
// must accept exactly the quanta whose value quantizes back to them, and read their value.
TEST(ByteReader, ReadFixedAcceptsExactlyTheQuantaThatRoundTrip) {
    const float fmin = std::numeric_limits<float>::min();
    const float fmax = std::numeric_limits<float>::max();
    const std::vector<float> steps = {1.0f / 16.0f,
                                      1.0f,
                                      0.001f,
                                      3.3f,
                                      fmin,
                                      1e-40f,
                                      1e-44f,
                                      std::numeric_limits<float>::denorm_min(),
                                      8.0e31f,
                                      8.2e31f,
                                      1e35f,
                                      fmax,
                                      std::nextafter(fmax / 4194304.0f, 0.0f),
                                      fmax / 4194304.0f,
                                      std::nextafter(fmax / 4194304.0f, fmax)};
    std::vector<std::int64_t> quanta = {0, 1, -1, 2, 1000, -1000, std::int64_t{INT32_MAX}, std::int64_t{INT32_MIN}};
    for (const std::int64_t edge : {std::int64_t{1} << 22, std::int64_t{1} << 23, std::int64_t{1} << 24,
                                    std::int64_t{1} << 25, std::int64_t{1} << 31}) {
        for (std::int64_t d = -3; d <= 3; ++d) {
            quanta.push_back(edge + d);
            quanta.push_back(-edge + d);
        }
    }
    XorShift rng(20);
    for (int i = 0; i < 2000; ++i) {
        const int bits = static_cast<int>(rng.below(33));
        const std::int64_t magnitude = static_cast<std::int64_t>(rng.below(std::uint64_t{1} << bits));
        quanta.push_back(rng.below(2) == 0 ? magnitude : -magnitude);
    }
    int accepted = 0;
    int refused = 0;
    for (const float step : steps) {
        for (const std::int64_t q : quanta) {
            ByteWriter w;
            w.write_zigzag(q);
            ByteReader r(w.bytes());
            const float v = r.read_fixed(step);
            const bool fits = q >= INT32_MIN && q <= INT32_MAX;
            const float expected = fits ? dequantize(static_cast<std::int32_t>(q), step) : 0.0f;
            const bool round_trips = fits && quantize(expected, step) == std::optional<std::int32_t>(q);
            ASSERT_EQ(r.ok(), round_trips) << "step " << step << " quantum " << q;
            if (round_trips) {
                ++accepted;
                ASSERT_EQ(v, expected) << "step " << step << " quantum " << q;
            } else {
                ++refused;
                ASSERT_EQ(r.error(), WireError::OutOfRange) << "step " << step << " quantum " << q;
            }
        }
    }
    EXPECT_GT(accepted, 1000);
    EXPECT_GT(refused, 1000);
}

TEST(ByteReader, ANonFiniteFloatIsRefusedWhereANumberIsRequired) {
    ByteWriter w;
    w.write_f32(std::numeric_limits<float>::infinity());
    ByteReader r(w.bytes());
    EXPECT_EQ(r.read_finite_f32(), 0.0f);
    EXPECT_EQ(r.error(), WireError::NotFinite);
}

TEST(ByteReader, AKeyCountAboveTheCallersLimitIsRefusedBeforeAllocating) {
    const std::vector<std::uint64_t> keys{1, 2, 3, 4};
    ByteWriter w;
    w.write_sorted_keys(keys);
    ByteReader r(w.bytes());
    std::vector<std::uint64_t> out;
    r.read_sorted_keys(out, 3);
    EXPECT_EQ(r.error(), WireError::TooMany);
    EXPECT_TRUE(out.empty());
}

TEST(ByteReader, AKeyCountTheRemainingBytesCannotHoldIsRefused) {
    ByteWriter w;
    w.write_varint(1'000'000'000);  // claims a billion keys in a handful of bytes
    w.write_varint(5);
    ByteReader r(w.bytes());
    std::vector<std::uint64_t> out;
    r.read_sorted_keys(out, SIZE_MAX);
    EXPECT_EQ(r.error(), WireError::TooMany);
}

TEST(ByteReader, AKeyGapThatWrapsIsNotAscending) {
    ByteWriter w;
    w.write_varint(2);
    w.write_varint(UINT64_MAX - 1);
    w.write_varint(1);  // UINT64_MAX - 1 + 1 + 1 wraps
    ByteReader r(w.bytes());
    std::vector<std::uint64_t> out;
    r.read_sorted_keys(out, 10);
    EXPECT_EQ(r.error(), WireError::NotAscending);
    EXPECT_TRUE(out.empty());
}

TEST(ByteReader, LeftoverBytesAfterAMessageAreReported) {
    const Bytes data{0x01, 0x02};
    ByteReader r(data);
    r.read_u8();
    EXPECT_FALSE(r.finish());
    EXPECT_EQ(r.error(), WireError::TrailingBytes);
}

TEST(ByteReader, TheFirstErrorWins) {
    const Bytes data{0x80};
    ByteReader r(data);
    r.read_varint();
    r.fail(WireError::Malformed);
    EXPECT_EQ(r.error(), WireError::Truncated);
    EXPECT_STREQ(to_string(r.error()), "truncated");
}

TEST(ByteReader, RandomBytesNeverReadPastTheEnd) {
    // A seeded random-bytes corpus: every primitive over every prefix of random data. Under
    // ASan an out-of-bounds read here is a crash; without it the position check catches it.
    for (std::uint64_t seed = 1; seed <= 300; ++seed) {
        XorShift rng(seed);
        Bytes data(static_cast<std::size_t>(rng.below(24)));
        for (auto& b : data) b = static_cast<std::uint8_t>(rng.next());
        ByteReader r(data);
        std::vector<std::uint64_t> keys;
        for (int op = 0; op < 12 && r.ok(); ++op) {
            switch (rng.below(9)) {
                case 0:
                    r.read_u8();
                    break;
                case 1:
                    r.read_u16();
                    break;
                case 2:
                    r.read_u32();
                    break;
                case 3:
                    r.read_u64();
                    break;
                case 4:
                    r.read_varint();
                    break;
                case 5:
                    r.read_zigzag();
                    break;
                case 6:
                    r.read_fixed(0.0625f);
                    break;
                case 7:
                    r.read_sorted_keys(keys, 64);
                    break;
                default:
                    r.read_finite_f32();
                    break;
            }
            ASSERT_LE(r.position(), data.size()) << "seed " << seed;
        }
    }
}

#if GTEST_HAS_DEATH_TEST && VANTAGE_HOT_ASSERTS
TEST(ByteWriterDeathTest, AnUnsortedKeyListIsRejected) {
    ByteWriter w;
    const std::vector<std::uint64_t> keys{5, 3};
    EXPECT_DEATH(w.write_sorted_keys(keys), "ByteWriter::write_sorted_keys: keys must be strictly ascending");
}
#endif

}  // namespace
}  // namespace vantage
