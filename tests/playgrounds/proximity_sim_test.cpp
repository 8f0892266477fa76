// The proximity playground's findings on small worlds (fast at -O0, under ASan and in wasm):
// every exact lane agrees with brute force, creature by creature and watcher view by watcher
// view; the representative's extra distance stays within a cell diagonal; the detector's
// upkeep follows the moves. Plus the golden checksum and a twin run.
#include <gtest/gtest.h>

#include "common/catalog.hpp"
#include "common/host.hpp"
#include "playgrounds/golden.hpp"
#include "proximity/proximity_sim.hpp"

namespace vantage::play {
namespace {

// Through the Host, exactly as the page applies the browser test's link: the seed resets the
// world, then the settings apply (clustered is live, so the creatures start unclustered and
// drift to their centres).
std::uint64_t golden_run(std::uint64_t seed) {
    Host host(make_all_simulations());
    const std::vector<std::string> errors =
        host.apply_url("proximity/seed=" + std::to_string(seed) + "&creatures=600&clustered=1&paused=1");
    EXPECT_TRUE(errors.empty()) << errors.front();
    for (int i = 0; i < 240; ++i) host.single_step();
    return host.current().checksum();
}

// The browser test (tests/browser/playground_proximity.mjs) checks the wasm page against it too.
TEST(ProximitySim, GoldenChecksumIsPinnedForNativeWasmAndTheBrowser) {
    EXPECT_TRUE(matches_golden("proximity", golden_run(5)));
}

TEST(ProximitySim, SameSeedSameChecksumAndADifferentSeedDiffers) {
    EXPECT_EQ(golden_run(5), golden_run(5));
    EXPECT_NE(golden_run(5), golden_run(6));
}

TEST(ProximitySim, EveryExactLaneAgreesWithBruteForceOverManySeeds) {
    for (const bool clustered : {false, true}) {
        for (std::uint64_t seed = 1; seed <= 4; ++seed) {
            ProximitySim sim;
            sim.settings().creatures = 400;
            sim.settings().world = 500.0;
            sim.settings().clustered = clustered;
            sim.reset(seed);
            for (int i = 0; i < 30; ++i) sim.step(1.0 / 60.0);
            for (const ProximitySim::Lane& lane : sim.lanes()) {
                ASSERT_TRUE(lane.active) << lane.name;
                EXPECT_EQ(lane.disagree.run_max(), 0.0) << lane.name << " seed " << seed << " clustered " << clustered;
                EXPECT_EQ(lane.pairs.last(), sim.lane(ProximityLaneKind::Brute).pairs.last()) << lane.name;
            }
            EXPECT_GT(sim.lane(ProximityLaneKind::Dense).pairs.last(), 0.0);
        }
    }
}

TEST(ProximitySim, TheRepresentativeIsNeverMoreThanACellDiagonalFurther) {
    ProximitySim sim;
    sim.settings().creatures = 6000;
    sim.settings().world = 600.0;
    sim.settings().crosslink = false;
    sim.settings().nearby = false;
    sim.settings().brute = false;
    sim.reset(3);
    for (int i = 0; i < 20; ++i) sim.step(1.0 / 60.0);
    EXPECT_GT(sim.nearest().mismatch_pct.run_mean(), 20.0);
    EXPECT_LE(sim.nearest().worst_cells.run_max(), 1.4143);
    EXPECT_LE(sim.nearest().rep_ops.run_max(), 9.0 * static_cast<double>(sim.food().size()));
}

TEST(ProximitySim, DetectorUpkeepFollowsTheMovesNotThePopulation) {
    auto upkeep = [](double moving_pct) {
        ProximitySim sim;
        sim.settings().creatures = 2000;
        sim.settings().moving_pct = moving_pct;
        sim.settings().crosslink = false;
        sim.settings().brute = false;
        sim.reset(2);
        for (int i = 0; i < 20; ++i) sim.step(1.0 / 60.0);
        return sim.lane(ProximityLaneKind::Nearby).build_ops.run_mean();
    };
    EXPECT_LT(upkeep(5.0), 0.15 * upkeep(100.0));
}

TEST(ProximitySim, BruteForceStopsAboveItsCap) {
    ProximitySim sim;
    sim.settings().creatures = 800;
    sim.settings().brute_cap = 500;
    sim.reset(1);
    sim.step(1.0 / 60.0);
    EXPECT_FALSE(sim.lane(ProximityLaneKind::Brute).active);
    EXPECT_TRUE(sim.lane(ProximityLaneKind::Dense).active);
}

TEST(ProximitySettings, OutOfRangeValuesAreNamed) {
    ProximitySettings s;
    EXPECT_EQ(s.validate(), "");
    s.radius = 1000.0;
    EXPECT_NE(s.validate().find("radius"), std::string::npos);
}

}  // namespace
}  // namespace vantage::play
