#include <gtest/gtest.h>

#include <cstdio>

#include "meter/meter_sim.hpp"

namespace vantage::play {
namespace {

std::uint64_t run(std::uint64_t seed, int ticks) {
    MeterSim sim;
    sim.reset(seed);
    for (int i = 0; i < ticks; ++i) sim.step(1.0 / 60.0);
    return sim.checksum();
}

// The browser test (tests/browser/run.mjs) checks the wasm page against the same file.
TEST(MeterSim, GoldenChecksumIsPinnedForNativeWasmAndTheBrowser) {
    std::FILE* f = std::fopen(VANTAGE_TESTS_DIR "/playgrounds/golden_meter_checksum.txt", "r");
    ASSERT_NE(f, nullptr);
    char golden[32] = {};
    ASSERT_EQ(std::fscanf(f, "%31s", golden), 1);
    std::fclose(f);
    char got[32];
    std::snprintf(got, sizeof got, "%016llx", static_cast<unsigned long long>(run(5, 600)));
    EXPECT_STREQ(got, golden) << "actual checksum: " << got;
}

TEST(MeterSim, SameSeedSameChecksumAndADifferentSeedDiffers) {
    EXPECT_EQ(run(5, 600), run(5, 600));
    EXPECT_NE(run(5, 600), run(6, 600));
}

TEST(MeterSim, WindowedRateFollowsAStepWhileTheLifetimeAverageLags) {
    MeterSim sim;
    sim.reset(3);
    for (int i = 0; i < 60 * 40; ++i) sim.step(1.0 / 60.0);  // step at 20 s from 64 to 256 KiB/s
    EXPECT_NEAR(sim.meter().per_sec() / 1024.0, 256.0, 256.0 * 0.05);
    EXPECT_LT(sim.meter().lifetime_per_sec() / 1024.0, 0.7 * 256.0);
}

}  // namespace
}  // namespace vantage::play
