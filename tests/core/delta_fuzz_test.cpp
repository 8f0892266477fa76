// Seeded random-bytes and mutation corpus for every decoder on the delta stream. The same
// bodies back the libFuzzer targets in tests/fuzz/; this test runs everywhere (native, wasm,
// ASan+UBSan) and stays fast. A broken promise fails an assertion that names it and the seed;
// a library check that aborts instead (misuse reached from bytes) prints the seed first.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "support/delta_fuzz.hpp"
#include "support/fuzz_corpus.hpp"
#include "vantage/assert.hpp"
#include "vantage/random.hpp"

namespace vantage {
namespace {

// The seed being run, printed by the assert handler below if a library check aborts.
std::uint64_t g_seed = 0;

void print_seed_then_abort(const char* file, int line, const char* condition, const char* message) {
    std::fprintf(stderr, "%s:%d: check failed: %s (%s) while fuzzing seed %llu\n", file, line, condition,
                 message != nullptr ? message : "", static_cast<unsigned long long>(g_seed));
}  // assert_failed aborts when the handler returns

// Installs print_seed_then_abort for one test.
class SeedOnAbort {
public:
    SeedOnAbort() : previous_(set_assert_handler(print_seed_then_abort)) {}
    ~SeedOnAbort() { set_assert_handler(previous_); }
    SeedOnAbort(const SeedOnAbort&) = delete;
    SeedOnAbort& operator=(const SeedOnAbort&) = delete;

private:
    AssertHandler previous_;
};

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

TEST(DeltaFuzz, FrameDecoderKeepsItsPromisesOverARandomAndMutatedCorpus) {
    const SeedOnAbort on_abort;
    int accepted = 0, refused = 0;
    for (std::uint64_t seed = 1; seed <= 1500; ++seed) {
        g_seed = seed;
        XorShift rng(mix64(seed));  // mixed: xorshift's first draws from small seeds are small
        Bytes input = rng.chance(0.2f) ? noise(rng, 0x44) : valid_frame(rng);
        if (rng.chance(0.8f)) mutate(input, rng);
        const fuzz::FuzzOutcome outcome = fuzz::fuzz_delta_frame(input);
        ASSERT_TRUE(outcome.broken == nullptr) << "seed " << seed << ": " << outcome.broken;
        (outcome.accepted ? accepted : refused) += 1;
    }
    // The corpus reaches both sides of the validator.
    EXPECT_GT(accepted, 200);
    EXPECT_GT(refused, 600);
}

TEST(DeltaFuzz, AckDecoderKeepsItsPromisesOverARandomAndMutatedCorpus) {
    const SeedOnAbort on_abort;
    int accepted = 0, refused = 0;
    for (std::uint64_t seed = 1; seed <= 1500; ++seed) {
        g_seed = seed;
        XorShift rng(mix64(seed));  // mixed: xorshift's first draws from small seeds are small
        Bytes input = rng.chance(0.2f) ? noise(rng, 0x41) : valid_ack(rng);
        if (rng.chance(0.8f)) mutate(input, rng);
        const fuzz::FuzzOutcome outcome = fuzz::fuzz_ack(input);
        ASSERT_TRUE(outcome.broken == nullptr) << "seed " << seed << ": " << outcome.broken;
        (outcome.accepted ? accepted : refused) += 1;
    }
    EXPECT_GT(accepted, 200);
    EXPECT_GT(refused, 600);
}

TEST(DeltaFuzz, ByteReaderKeepsItsPromisesOverRandomReadsOfRandomBytes) {
    const SeedOnAbort on_abort;
    int completed = 0, stopped = 0;
    for (std::uint64_t seed = 1; seed <= 2000; ++seed) {
        g_seed = seed;
        XorShift rng(mix64(seed));  // mixed: xorshift's first draws from small seeds are small
        const Bytes input = noise(rng, 0);
        const fuzz::FuzzOutcome outcome = fuzz::fuzz_byte_reader(input);
        ASSERT_TRUE(outcome.broken == nullptr) << "seed " << seed << ": " << outcome.broken;
        (outcome.accepted ? completed : stopped) += 1;
    }
    // Both ends are reached: inputs that give all eight reads their bytes (few: the noise is
    // mostly shorter than eight reads; 11 of the 2,000 on 2026-12-04), and inputs that stop
    // the reader (too short or malformed).
    EXPECT_GE(completed, 5);
    EXPECT_GT(stopped, 1000);
}

TEST(DeltaFuzz, EveryValidFrameAndAckIsAcceptedAsIs) {
    const SeedOnAbort on_abort;
    for (std::uint64_t seed = 1; seed <= 300; ++seed) {
        g_seed = seed;
        XorShift rng(mix64(seed));  // mixed: xorshift's first draws from small seeds are small
        const fuzz::FuzzOutcome frame = fuzz::fuzz_delta_frame(valid_frame(rng));
        ASSERT_TRUE(frame.accepted && frame.broken == nullptr)
            << "seed " << seed << ": " << (frame.broken != nullptr ? frame.broken : "refused");
        const fuzz::FuzzOutcome ack = fuzz::fuzz_ack(valid_ack(rng));
        ASSERT_TRUE(ack.accepted && ack.broken == nullptr)
            << "seed " << seed << ": " << (ack.broken != nullptr ? ack.broken : "refused");
    }
}

}  // namespace
}  // namespace vantage
