// The black-hole playground's findings, each pinned on a small world (32 holes, 500 pellets,
// two clients per lane, 6 simulated s) so the suite stays fast at -O0, under ASan and in
// wasm. The full-size numbers are in playgrounds/blackhole/README.md (`./vantage report
// blackhole`); these runs show the same shape.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>

#include "blackhole/blackhole_sim.hpp"

#include "playgrounds/golden.hpp"

namespace vantage::play {
namespace {

constexpr double kDt = 1.0 / 60.0;

BlackholeSettings small_world() {
    BlackholeSettings s;
    s.holes = 32;
    s.pellets = 500;
    s.clients = 2;
    return s;
}

std::unique_ptr<BlackholeSim> run(const BlackholeSettings& settings, std::uint64_t seed, double seconds) {
    auto sim = std::make_unique<BlackholeSim>();
    sim->settings() = settings;
    run_measured(*sim, {.warmup_s = 0.0, .measure_s = seconds, .tick_hz = 60, .seed = seed});
    return sim;
}

// One run per configuration, shared by the tests that read it.
const BlackholeSim& shared_run(const char* key, const BlackholeSettings& settings) {
    static std::map<std::string, std::unique_ptr<BlackholeSim>> runs;
    auto& slot = runs[key];
    if (!slot) slot = run(settings, 1, 6.0);
    return *slot;
}

const BlackholeSim& default_angle_run() {
    return shared_run("disc 0.5", small_world());
}

const BlackholeSim& wide_point_run() {
    BlackholeSettings s = small_world();
    s.disc_walk = false;
    s.theta = 1.2;
    return shared_run("point 1.2", s);
}

double meter(const BlackholeSim& sim, const std::string& name) {
    std::vector<Meter> meters;
    sim.meters(meters);
    for (const Meter& m : meters) {
        if (m.name == name) return m.value;
    }
    ADD_FAILURE() << "no meter " << name;
    return 0.0;
}

// Run averages over every field probe (one per measurement), steadier than the meters' latest.
double mean_field_error_pct(const BlackholeSim& sim, LaneKind kind) {
    return sim.lane(kind).field_error_pct.run_mean();
}

double mean_weight_pct(const BlackholeSim& sim, LaneKind kind) {
    return sim.lane(kind).weight_pct.run_mean();
}

std::uint64_t checksum_after(std::uint64_t seed, int ticks) {
    BlackholeSettings s;
    s.pellets = 400;
    s.clients = 2;
    s.loss_pct = 10.0;
    BlackholeSim sim;
    sim.settings() = s;
    sim.reset(seed);
    for (int i = 0; i < ticks; ++i) sim.step(kDt);
    return sim.checksum();
}

// The browser test (tests/browser/playground_blackhole.mjs) runs the default settings with
// pellets=400&clients=2&loss_pct=10 from seed 5 and compares against the same file.
TEST(BlackholeSim, GoldenChecksumIsPinnedForNativeWasmAndTheBrowser) {
    EXPECT_TRUE(matches_golden("blackhole", checksum_after(5, 300)));
}

TEST(BlackholeSim, SameSeedSameChecksumAndADifferentSeedDiffers) {
    EXPECT_EQ(checksum_after(5, 120), checksum_after(5, 120));
    EXPECT_NE(checksum_after(5, 120), checksum_after(6, 120));
}

TEST(BlackholeSim, EveryLaneSendsMeasuredBytesAndItsClientsDecodeThem) {
    const BlackholeSim& sim = default_angle_run();
    for (const BlackholeSim::Lane& lane : sim.lanes()) {
        EXPECT_GT(lane.bytes.total(), 0.0) << lane.name;
        EXPECT_GT(lane.field_bytes.total(), 0.0) << lane.name;
        EXPECT_LT(lane.field_bytes.total(), lane.bytes.total()) << lane.name;
        EXPECT_EQ(lane.decode_errors(), 0u) << lane.name;
        for (const auto& seat : lane.seats) EXPECT_GT(seat->client.applied(), 80u) << lane.name;
    }
    EXPECT_GT(sim.swallowed(), 0u);
}

TEST(BlackholeSim, CullingTheFieldBreaksTheLocalPhysics) {
    const BlackholeSim& sim = default_angle_run();
    const ErrorStats full = sim.lifetime_error(LaneKind::Full);
    const ErrorStats culled = sim.lifetime_error(LaneKind::Culled);
    // Dropping distant holes leaves most of the weight out and bends the field the client
    // integrates with, so its pellets drift further from the server's than the full lane's.
    EXPECT_LT(mean_weight_pct(sim, LaneKind::Culled), 50.0);
    EXPECT_GT(mean_field_error_pct(sim, LaneKind::Culled), 5.0);
    EXPECT_GT(culled.median, 1.4 * full.median) << "full " << full.median << " culled " << culled.median;
    EXPECT_LT(meter(sim, "culled.field_kib_s"), 0.5 * meter(sim, "full.field_kib_s"));
}

TEST(BlackholeSim, CullingDriftsFurtherThanTheFullFieldOnOtherSeedsToo) {
    BlackholeSettings s = small_world();
    s.pellets = 300;
    for (std::uint64_t seed = 2; seed <= 4; ++seed) {
        const auto sim = run(s, seed, 4.0);
        const ErrorStats full = sim->lifetime_error(LaneKind::Full);
        const ErrorStats culled = sim->lifetime_error(LaneKind::Culled);
        EXPECT_GT(culled.median, 1.2 * full.median)
            << "seed " << seed << ": full " << full.median << " culled " << culled.median;
        EXPECT_LT(mean_weight_pct(*sim, LaneKind::Culled), 60.0) << "seed " << seed;
        EXPECT_NEAR(mean_weight_pct(*sim, LaneKind::Aggregated), 100.0, 0.01) << "seed " << seed;
    }
}

TEST(BlackholeSim, AggregatingKeepsTheWeightThatCullingThrowsAway) {
    const BlackholeSim& sim = default_angle_run();
    EXPECT_NEAR(mean_weight_pct(sim, LaneKind::Aggregated), 100.0, 0.01);
    EXPECT_LT(mean_weight_pct(sim, LaneKind::Culled), 50.0);
    EXPECT_LT(mean_field_error_pct(sim, LaneKind::Aggregated), 0.1 * mean_field_error_pct(sim, LaneKind::Culled));
    const ErrorStats full = sim.lifetime_error(LaneKind::Full);
    const ErrorStats aggregated = sim.lifetime_error(LaneKind::Aggregated);
    const ErrorStats culled = sim.lifetime_error(LaneKind::Culled);
    EXPECT_LT(aggregated.median, 1.1 * full.median) << "full " << full.median << " aggregated " << aggregated.median;
    EXPECT_LT(aggregated.median, culled.median);
    // ...and it is cheaper than the full field on the wire and in the client's compute.
    EXPECT_LT(meter(sim, "aggregated.field_kib_s"), meter(sim, "full.field_kib_s"));
    EXPECT_LT(meter(sim, "aggregated.force_evals_m_s"), meter(sim, "full.force_evals_m_s"));
}

TEST(BlackholeSim, AZeroAngleIsTheFullFieldExactly) {
    BlackholeSettings s = small_world();
    s.holes = 16;
    s.theta = 0.0;
    s.loss_pct = 10.0;
    const auto sim = run(s, 3, 3.0);
    const BlackholeSim::Lane& full = sim->lane(LaneKind::Full);
    const BlackholeSim::Lane& aggregated = sim->lane(LaneKind::Aggregated);
    EXPECT_EQ(full.bytes.total(), aggregated.bytes.total());
    EXPECT_EQ(full.field_bytes.total(), aggregated.field_bytes.total());
    ASSERT_EQ(full.seats.size(), aggregated.seats.size());
    for (std::size_t c = 0; c < full.seats.size(); ++c) {
        const auto& a = full.seats[c]->client.positions();
        const auto& b = aggregated.seats[c]->client.positions();
        ASSERT_EQ(a.size(), b.size());
        EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(Vec2)), 0) << "client " << c;
    }
    EXPECT_EQ(sim->lifetime_error(LaneKind::Full).median, sim->lifetime_error(LaneKind::Aggregated).median);
}

TEST(BlackholeSim, AWideAngleIsWorseThanCullingAndThatIsTheLimit) {
    const BlackholeSim& sim = wide_point_run();
    // A point walk at theta 1.2 accepts cells beside the viewer: the whole weight arrives,
    // but lumped onto spurious concentrations, and the field is further off than culling's.
    EXPECT_NEAR(mean_weight_pct(sim, LaneKind::Aggregated), 100.0, 0.01);
    EXPECT_GT(mean_field_error_pct(sim, LaneKind::Aggregated), mean_field_error_pct(sim, LaneKind::Culled));
    // The disc walk at the same angle holds the criterion across the view and does not fail.
    BlackholeSettings s = small_world();
    s.theta = 1.2;
    const BlackholeSim& disc = shared_run("disc 1.2", s);
    EXPECT_LT(mean_field_error_pct(disc, LaneKind::Aggregated), 0.25 * mean_field_error_pct(disc, LaneKind::Culled));
}

TEST(BlackholeSim, AggregationBuysComputeWithTheAngle) {
    const BlackholeSim& wide = wide_point_run();
    EXPECT_LT(meter(wide, "aggregated.force_evals_m_s"), 0.6 * meter(wide, "full.force_evals_m_s"));
    EXPECT_LT(meter(wide, "aggregated.attractors"), meter(wide, "full.attractors"));
}

TEST(BlackholeSim, UnderLossTheRoundRobinCorrectionsBoundTheDrift) {
    BlackholeSettings s = small_world();
    s.holes = 8;
    s.pellets = 300;
    s.loss_pct = 30.0;
    s.corrections = 0;
    const auto uncorrected = run(s, 2, 4.0);
    s.corrections = 100;
    const auto corrected = run(s, 2, 4.0);
    const LossyLink& down = corrected->lane(LaneKind::Full).seats[0]->link.down();
    const LossyLinkCounters& k = down.counters();
    EXPECT_GT(k.packets_lost, 0u);
    EXPECT_EQ(k.packets_lost + k.packets_delivered + down.in_flight(), k.packets_sent);
    const double without = uncorrected->lifetime_error(LaneKind::Full).median;
    const double with = corrected->lifetime_error(LaneKind::Full).median;
    EXPECT_LT(with, 0.5 * without) << "median without corrections " << without << ", with " << with;
}

TEST(BlackholeSettings, DefaultsAreValidAndEveryRangeIsChecked) {
    EXPECT_EQ(BlackholeSettings{}.validate(), "");
    EXPECT_NE(BlackholeSettings{.holes = 65}.validate().find("'holes'"), std::string::npos);
    EXPECT_NE(BlackholeSettings{.pellets = 100}.validate().find("'pellets'"), std::string::npos);
    EXPECT_NE(BlackholeSettings{.theta = -0.1}.validate().find("'theta'"), std::string::npos);
    EXPECT_NE(BlackholeSettings{.send_hz = 0.0}.validate().find("'send_hz'"), std::string::npos);
    EXPECT_NE(BlackholeSettings{.loss_pct = std::nan("")}.validate().find("'loss_pct'"), std::string::npos);
    // The Params a page can set are exactly these ranges.
    BlackholeSim sim;
    for (const Param& p : sim.params()) {
        EXPECT_TRUE(check_param_value(p, p.get()).empty()) << p.name;
        EXPECT_FALSE(check_param_value(p, p.max + 1.0).empty()) << p.name;
    }
}

TEST(BlackholeSim, ChangingTheLinkLiveReachesEveryClient) {
    BlackholeSim sim;
    sim.reset(1);
    for (Param& p : sim.params()) {
        if (p.name == "latency_ms") p.set(200.0);
    }
    for (const BlackholeSim::Lane& lane : sim.lanes()) {
        for (const auto& seat : lane.seats) {
            EXPECT_EQ(seat->link.down().options().latency_ms, 200.0);
            EXPECT_EQ(seat->link.up().options().latency_ms, 200.0);
        }
    }
}

TEST(BlackholeSim, TheSteeredHoleFollowsTheInputWhenTheAutopilotIsOff) {
    BlackholeSim sim;
    sim.settings().autopilot = false;
    sim.settings().holes = 2;
    sim.reset(4);
    const Vec2 start = sim.holes()[0].position;
    sim.steer({1.0f, 0.0f});
    for (int i = 0; i < 30; ++i) sim.step(kDt);
    EXPECT_GT(sim.holes()[0].position.x - start.x, 0.3f * BlackholeSim::kHoleSpeed * 0.5f);
}

}  // namespace
}  // namespace vantage::play
