// Seeded random-bytes and mutation corpus for every decoder on the delta stream. The same
// bodies back the libFuzzer targets in tests/fuzz/; this test runs everywhere (native, wasm,
// ASan+UBSan) and stays fast. A broken invariant aborts with its name; the seed is printed
// by the gtest assertion that precedes each batch.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "support/delta_fuzz.hpp"
#include "support/fuzz_corpus.hpp"
#include "vantage/random.hpp"

namespace vantage {
namespace {

Bytes valid_frame(XorShift& rng) {
    DeltaPlan p;
    p.seq = rng.below(std::uint64_t{1} << rng.below(40));
    p.full_baseline = rng.chance(0.3f);
    if (!p.full_baseline && p.seq > 0 && rng.chance(0.7f)) p.baseline_seq = p.seq - 1 - rng.below(p.seq);
    p.digest = rng.next();
    std::uint32_t index = static_cast<std::uint32_t>(rng.below(50));
    for (std::uint64_t i = 0, n = rng.below(12); i < n; ++i) {
        p.entered.push_back(SlotKey{index, static_cast<std::uint16_t>(rng.below(300))}.encode());
        index += 1 + static_cast<std::uint32_t>(rng.below(200));
    }
    if (!p.full_baseline) {
        index = static_cast<std::uint32_t>(rng.below(50));
        for (std::uint64_t i = 0, n = rng.below(12); i < n; ++i) {
            p.left.push_back(SlotKey{index, static_cast<std::uint16_t>(rng.below(300))}.encode());
            index += 1 + static_cast<std::uint32_t>(rng.below(200));
        }
    }
    std::vector<Vec2> positions;
    if (!p.entered.empty() && rng.chance(0.5f)) {
        for (std::size_t i = 0; i < p.entered.size(); ++i)
            positions.push_back({rng.range(-500, 500), rng.range(-500, 500)});
    }
    ByteWriter w;
    encode_delta_frame(w, p, positions);
    return Bytes(w.bytes().begin(), w.bytes().end());
}

Bytes valid_ack(XorShift& rng) {
    ByteWriter w;
    const std::uint64_t newest = rng.below(1u << rng.below(30));
    const std::uint64_t valid = newest >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << newest) - 1;
    encode_ack(w, {.newest = newest, .mask = rng.next() & valid, .digest = rng.next()});
    return Bytes(w.bytes().begin(), w.bytes().end());
}

TEST(DeltaFuzz, FrameDecoderSurvivesARandomAndMutatedCorpus) {
    int accepted = 0, refused = 0;
    for (std::uint64_t seed = 1; seed <= 1500; ++seed) {
        XorShift rng(mix64(seed));  // mixed: xorshift's first draws from small seeds are small
        Bytes input = rng.chance(0.2f) ? noise(rng, 0x44) : valid_frame(rng);
        if (rng.chance(0.8f)) mutate(input, rng);
        SCOPED_TRACE(seed);
        (fuzz::fuzz_delta_frame(input) ? accepted : refused) += 1;
    }
    // The corpus reaches both sides of the validator.
    EXPECT_GT(accepted, 200);
    EXPECT_GT(refused, 600);
}

TEST(DeltaFuzz, AckDecoderSurvivesARandomAndMutatedCorpus) {
    int accepted = 0, refused = 0;
    for (std::uint64_t seed = 1; seed <= 1500; ++seed) {
        XorShift rng(mix64(seed));  // mixed: xorshift's first draws from small seeds are small
        Bytes input = rng.chance(0.2f) ? noise(rng, 0x41) : valid_ack(rng);
        if (rng.chance(0.8f)) mutate(input, rng);
        SCOPED_TRACE(seed);
        (fuzz::fuzz_ack(input) ? accepted : refused) += 1;
    }
    EXPECT_GT(accepted, 200);
    EXPECT_GT(refused, 600);
}

TEST(DeltaFuzz, ByteReaderSurvivesRandomReadsOverRandomBytes) {
    for (std::uint64_t seed = 1; seed <= 2000; ++seed) {
        XorShift rng(mix64(seed));  // mixed: xorshift's first draws from small seeds are small
        const Bytes input = noise(rng, 0);
        fuzz::fuzz_byte_reader(input);
    }
}

TEST(DeltaFuzz, EveryValidFrameIsAcceptedAsIs) {
    for (std::uint64_t seed = 1; seed <= 300; ++seed) {
        XorShift rng(mix64(seed));  // mixed: xorshift's first draws from small seeds are small
        ASSERT_TRUE(fuzz::fuzz_delta_frame(valid_frame(rng))) << "seed " << seed;
        ASSERT_TRUE(fuzz::fuzz_ack(valid_ack(rng))) << "seed " << seed;
    }
}

}  // namespace
}  // namespace vantage
