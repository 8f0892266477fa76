#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "meter/meter_sim.hpp"

#include "playgrounds/golden.hpp"

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
    EXPECT_TRUE(matches_golden("meter", run(5, 600)));
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

TEST(MeterSettings, DefaultsAreValidAndARangeIsChecked) {
    EXPECT_EQ(MeterSettings{}.validate(), "");
    EXPECT_NE(MeterSettings{.rate_kib = 0.5}.validate().find("'rate_kib'"), std::string::npos);
    EXPECT_NE(MeterSettings{.burst = std::nan("")}.validate().find("'burst'"), std::string::npos);
}

}  // namespace
}  // namespace vantage::play
