#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>

#include "common/host.hpp"
#include "netcode/netcode_sim.hpp"

#include "playgrounds/golden.hpp"

namespace vantage::play {
namespace {

constexpr double kDt = 1.0 / 60.0;
constexpr std::size_t kOff = 0;  // the lane with everything off
constexpr std::size_t kOn = 1;   // the lane with the chosen mechanisms

void run_for(NetcodeSim& sim, double seconds, const std::function<void()>& each_frame = {}) {
    const long frames = std::lround(seconds / kDt);
    for (long i = 0; i < frames; ++i) {
        sim.step(kDt);
        if (each_frame) each_frame();
    }
}

std::uint64_t golden_run(std::uint64_t seed) {
    NetcodeSim sim;
    sim.reset(seed);
    sim.set("loss_pct", 5);
    sim.set("jitter_ms", 20);
    run_for(sim, 10.0);
    return sim.checksum();
}

// The browser test (tests/browser/playground_netcode.mjs) checks the wasm page against the
// same file: 600 ticks at 60 Hz from seed 5 with loss_pct=5 and jitter_ms=20.
TEST(NetcodeSim, GoldenChecksumIsPinnedForNativeWasmAndTheBrowser) {
    EXPECT_TRUE(matches_golden("netcode", golden_run(5)));
}

TEST(NetcodeSim, SameSeedSameChecksumAndADifferentSeedDiffers) {
    EXPECT_EQ(golden_run(5), golden_run(5));
    EXPECT_NE(golden_run(5), golden_run(6));
}

TEST(NetcodeSim, BandwidthMetersCountTheBytesTheEncoderProduced) {
    NetcodeSim sim;
    sim.reset(2);
    run_for(sim, 4.0);
    for (std::size_t i : {kOff, kOn}) {
        const ClientLane& c = sim.lane(i);
        EXPECT_EQ(c.up_bytes.total(), static_cast<double>(c.up.counters().bytes_sent));
        EXPECT_EQ(c.down_bytes.total(), static_cast<double>(c.down.counters().bytes_sent));
        EXPECT_GT(c.up_bytes.total(), 0.0);
    }
}

// Steer right from the start, into the wall only the server knows, then stand still.
void push_into_wall_then_rest(NetcodeSim& sim, double push_s, double rest_s) {
    sim.set("autopilot", 0);
    sim.set("auto_shoot", 0);
    sim.set_user_direction({1.0f, 0.2f});
    run_for(sim, push_s);
    sim.set_user_direction({});
    run_for(sim, rest_s);
}

TEST(NetcodeSim, PredictionConvergesAfterReconciliation) {
    for (std::uint64_t seed : {11u, 12u, 13u}) {
        NetcodeSim sim;
        sim.reset(seed);
        sim.set("loss_pct", 5);
        sim.set("jitter_ms", 10);
        push_into_wall_then_rest(sim, 3.0, 2.0);
        const ClientLane& on = sim.lane(kOn);
        ASSERT_GT(on.corrections, 0u) << "seed " << seed << ": the wall must have corrected the prediction";
        EXPECT_LT(distance(on.entity.predicted(), sim.server_player()), 0.05f) << "seed " << seed;
        // The logical prediction is exact (up to the wire's 1/16 px); the drawn one is still
        // easing out the last correction at the smoother's gentle small-error rate.
        EXPECT_LT(distance(on.entity.predicted(), sim.ideal_player()), 0.05f) << "seed " << seed;
        EXPECT_LT(distance(on.drawn_player, sim.ideal_player()), 0.5f) << "seed " << seed;
        EXPECT_GT(on.server.inputs.counters().skipped + on.up.counters().packets_lost, 0u) << "seed " << seed;
    }
}

TEST(NetcodeSim, ReconciliationOffLetsThePredictionDriftThroughTheWall) {
    NetcodeSim sim;
    sim.reset(3);
    sim.set("latency_ms", 50);
    sim.set("reconciliation", 0);
    sim.set("autopilot", 0);
    sim.set_user_direction({1.0f, 0.0f});
    run_for(sim, 3.0);
    EXPECT_FLOAT_EQ(sim.server_player().x, Arena::kWallMinX - Arena::kPlayerRadius);
    EXPECT_GT(sim.lane(kOn).drawn_player.x, Arena::kWallMaxX + Arena::kPlayerRadius + 100.0f);
}

TEST(NetcodeSim, ReconciliationOnHoldsThePredictionAtTheWall) {
    NetcodeSim sim;
    sim.reset(3);
    sim.set("latency_ms", 50);
    sim.set("correction_smoothing", 0);
    sim.set("autopilot", 0);
    sim.set_user_direction({1.0f, 0.0f});
    float worst = 0.0f;
    run_for(sim, 3.0, [&] {
        if (sim.time_s() > 2.5) worst = std::max(worst, sim.lane(kOn).drawn_player.x);
    });
    const float wall = Arena::kWallMinX - Arena::kPlayerRadius;
    EXPECT_FLOAT_EQ(sim.server_player().x, wall);
    // Only the inputs in flight run past it: a round trip (100 ms), a tick (100 ms) and a frame.
    EXPECT_LT(worst, wall + Arena::kSpeed * 0.22f);
}

// Findings of one shape: settings (as the URL hash gives them), a seeded warm-up, then a
// measured stretch, each frame of which `each_frame` may inspect, then `check`. One behaviour
// per case, and the case's name is the test's.
struct Observed {
    int frames = 0;  // frames each_frame counted as checked
    bool seen = false;
};
struct WarmedUp {
    const char* behaviour;
    std::uint64_t seed;
    const char* settings;
    double warmup_s;
    double measure_s;
    void (*each_frame)(const NetcodeSim&, Observed&);  // may be null
    void (*check)(const NetcodeSim&, const Observed&);
};

const WarmedUp kWarmedUp[] = {
    {"InputsStayUnacknowledgedWhileInFlight", 4, "latency_ms=200", 5.0, 0.0, nullptr,
     [](const NetcodeSim& sim, const Observed&) {
         const ClientLane& on = sim.lane(kOn);
         // 400 ms of round trip at 60 inputs/s, plus up to a 100 ms tick: 24 to 31 pending.
         EXPECT_GE(on.entity.pending_count(), 24u);
         EXPECT_LE(on.entity.pending_count(), 31u);
         EXPECT_EQ(on.entity.latest_seq() - on.entity.acked_seq(), on.entity.pending_count());
     }},
    {"LagCompensationLandsAShotThePresentWouldMiss", 7, "", 0.0, 20.0, nullptr,
     [](const NetcodeSim& sim, const Observed&) {
         for (std::size_t i : {kOff, kOn}) {
             const ClientLane& c = sim.lane(i);
             const double shots = static_cast<double>(c.hits_rewound.run_samples());
             ASSERT_GE(shots, 20.0) << c.name;
             // The same shots: rewound to what the shooter saw they land, judged at the present they miss.
             EXPECT_GE(c.hits_rewound.run_total() * 10, shots * 9) << c.name;
             EXPECT_LE(c.hits_present.run_total() * 5, shots) << c.name;
         }
     }},
    {"InterpolationPlacesRemotesBetweenSnapshots", 8, "", 6.0, 2.0,
     [](const NetcodeSim& sim, Observed& seen) {
         const ClientLane& on = sim.lane(kOn);
         for (std::size_t b = 0; b < Arena::kBots; ++b) {
             ASSERT_TRUE(on.bot_kinds[b] == SampleKind::Interpolated || on.bot_kinds[b] == SampleKind::Exact);
             // The server's own record of the same two ticks, blended at the render time.
             const auto past = sim.history().get_interpolated_state(static_cast<std::uint32_t>(b), on.render_ms);
             ASSERT_TRUE(past && past->inside());
             EXPECT_LT(distance(on.drawn_bots[b], past->state), 0.1f);
             ++seen.frames;
         }
         // Drawn in the past: far from where the bots are now.
         EXPECT_GT(on.render_error.recent_mean(), 20.0);
     },
     [](const NetcodeSim&, const Observed& seen) { EXPECT_EQ(seen.frames, 120 * 3); }},
    {"ALowServerRateIsCoveredByTheRenderDelay", 10, "server_hz=4", 5.0, 10.0, nullptr,
     [](const NetcodeSim& sim, const Observed&) {
         const ClientLane& on = sim.lane(kOn);
         EXPECT_NEAR(on.delay_in_use_ms, 375.0, 30.0);  // 1.5 x 250 ms
         // Dead-reckoned bots, summed over the frames, fewer than one frame in 20.
         EXPECT_LT(on.extrapolated.run_total(), static_cast<double>(on.extrapolated.run_samples() / 20));
         EXPECT_LT(on.remote_stutter.run_mean(), sim.lane(kOff).remote_stutter.run_mean());
     }},
    {"RoundTripIsMeasuredOnBothSides", 12, "latency_ms=80", 5.0, 0.0, nullptr,
     [](const NetcodeSim& sim, const Observed&) {
         const ClientLane& on = sim.lane(kOn);
         ASSERT_GT(on.rtt_samples, 0u);
         ASSERT_GT(on.server.rtt_samples, 0u);
         EXPECT_NEAR(on.client_rtt_ms, 160.0, 0.5);
         EXPECT_NEAR(on.server.rtt_ms, 160.0, 0.5);
     }},
    {"DeadReckoningKeepsARemoteMovingWhenPacketsStop", 14, "adaptive_buffering=0&render_delay_ms=0", 5.0, 1.0,
     [](const NetcodeSim& sim, Observed& seen) {
         seen.seen = seen.seen || sim.lane(kOn).bot_kinds[0] == SampleKind::Extrapolated;
     },
     [](const NetcodeSim& sim, const Observed& seen) {
         EXPECT_TRUE(seen.seen);
         EXPECT_LT(sim.lane(kOn).reconstruct_error.recent_mean(), 20.0);
     }},
};

class NetcodeWarmedUp : public ::testing::TestWithParam<WarmedUp> {};

TEST_P(NetcodeWarmedUp, Holds) {
    const WarmedUp& c = GetParam();
    NetcodeSim sim;
    ASSERT_TRUE(apply_settings(sim, c.settings).empty()) << c.settings;
    Observed seen;
    std::function<void()> each;
    if (c.each_frame) each = [&] { c.each_frame(sim, seen); };
    run_measured(
        sim,
        {.warmup_s = c.warmup_s, .measure_s = c.measure_s, .tick_hz = 60, .seed = c.seed, .each_measured_tick = each});
    c.check(sim, seen);
}

INSTANTIATE_TEST_SUITE_P(NetcodeSim, NetcodeWarmedUp, ::testing::ValuesIn(kWarmedUp),
                         [](const ::testing::TestParamInfo<WarmedUp>& p) { return std::string(p.param.behaviour); });

TEST(NetcodeSim, AdaptiveBufferingGrowsTheDelayUnderJitter) {
    NetcodeSim sim;
    sim.reset(9);
    run_for(sim, 10.0);
    const double calm = sim.lane(kOn).delay_in_use_ms;
    EXPECT_NEAR(calm, 150.0, 15.0);  // 1.5 x the 100 ms send interval
    sim.set("jitter_ms", 120);
    run_for(sim, 15.0);
    EXPECT_GT(sim.lane(kOn).delay.jitter_ms(), 10.0);
    EXPECT_GT(sim.lane(kOn).delay_in_use_ms, calm + 25.0);
}

// The smallest and largest advance of the drawn clock per frame over `seconds` after the
// one-way latency jumps from 50 to 200 ms.
struct ClockAdvance {
    double least_ms = 1e9, most_ms = 0.0, slowest_rate = 1.0;
};
ClockAdvance latency_jump(NetcodeSim& sim, double seconds) {
    sim.set("latency_ms", 50);
    run_for(sim, 8.0);
    sim.set("latency_ms", 200);
    ClockAdvance a;
    double last = sim.lane(kOn).clock_ms;
    run_for(sim, seconds, [&] {
        const ClientLane& on = sim.lane(kOn);
        a.least_ms = std::min(a.least_ms, on.clock_ms - last);
        a.most_ms = std::max(a.most_ms, on.clock_ms - last);
        a.slowest_rate = std::min(a.slowest_rate, on.clock_rate);
        last = on.clock_ms;
    });
    return a;
}

TEST(NetcodeSim, TheSmoothClockDilatesItsRateToAbsorbALatencyJump) {
    NetcodeSim sim;
    sim.reset(13);
    const ClockAdvance a = latency_jump(sim, 20.0);
    const double frame_ms = kDt * 1000.0;
    // Never a step: every frame advances the drawn instant by 0.9x..1.1x of real time.
    EXPECT_GE(a.least_ms, 0.9 * frame_ms - 1e-6);
    EXPECT_LE(a.most_ms, 1.1 * frame_ms + 1e-6);
    EXPECT_LT(a.slowest_rate, 0.95) << "the clock should slow down to let the later stamps catch up";
    const ClientLane& on = sim.lane(kOn);
    EXPECT_EQ(on.rate_clock.counters().snaps, 0u);
    EXPECT_LT(std::fabs(on.rate_clock.error_ms()), 40.0);
}

TEST(NetcodeSim, TheSnapClockStuttersAtALatencyJump) {
    NetcodeSim sim;
    sim.reset(13);
    sim.set("smooth_clock", 0);
    const ClockAdvance a = latency_jump(sim, 5.0);
    // Each arrival moves the estimate by 8% of its error: at the jump some frames barely advance.
    EXPECT_LT(a.least_ms, 0.5 * kDt * 1000.0);
}

TEST(NetcodeSim, DependentTogglesHaveNoEffectWithoutTheirPrerequisite) {
    NetcodeSim sim;
    sim.reset(15);
    sim.set("prediction", 0);
    EXPECT_FALSE(sim.param_enabled("reconciliation"));
    EXPECT_FALSE(sim.param_enabled("correction_smoothing"));
    EXPECT_TRUE(sim.param_enabled("interpolation"));
    EXPECT_EQ(sim.settings().reconciliation, true);  // kept, so turning prediction back on restores it
    run_for(sim, 3.0);
    const ClientLane& on = sim.lane(kOn);
    EXPECT_FALSE(on.mech.reconciliation);
    EXPECT_EQ(on.drawn_player, on.authority);
    sim.set("interpolation", 0);
    for (const char* name : {"extrapolation", "adaptive_buffering", "clock_sync", "smooth_clock", "second_order",
                             "curve_trust", "render_delay_ms", "extrapolation_cap_ms"}) {
        EXPECT_FALSE(sim.param_enabled(name)) << name;
    }
    run_for(sim, 0.5);
    EXPECT_FALSE(on.mech.extrapolation);
    EXPECT_EQ(on.delay_in_use_ms, 0.0);
}

TEST(NetcodeSettings, DefaultsAreValidAndARangeIsChecked) {
    EXPECT_EQ(NetcodeSettings{}.validate(), "");
    EXPECT_NE(NetcodeSettings{.latency_ms = 501.0}.validate().find("'latency_ms'"), std::string::npos);
    EXPECT_NE(NetcodeSettings{.server_hz = 3}.validate().find("'server_hz'"), std::string::npos);
    EXPECT_NE(NetcodeSettings{.curve_trust = std::nan("")}.validate().find("'curve_trust'"), std::string::npos);
}

TEST(NetcodeSim, TheLaneWithEverythingOffIgnoresTheSettings) {
    NetcodeSim sim;
    sim.reset(16);
    run_for(sim, 2.0);
    const Mechanisms& m = sim.lane(kOff).mech;
    EXPECT_FALSE(m.prediction || m.reconciliation || m.interpolation || m.lag_compensation || m.clock_sync);
    EXPECT_TRUE(sim.lane(kOn).mech.prediction && sim.lane(kOn).mech.interpolation);
}

TEST(NetcodeSim, SurvivesAHostileNetworkWithItsInvariantsIntact) {
    NetcodeSim sim;
    sim.reset(17);
    sim.set("latency_ms", 400);
    sim.set("jitter_ms", 200);
    sim.set("loss_pct", 50);
    sim.set("server_hz", 4);
    run_for(sim, 10.0, [&] {
        for (std::size_t i : {kOff, kOn}) {
            const ClientLane& c = sim.lane(i);
            ASSERT_TRUE(c.drawn_player.is_finite());
            ASSERT_GE(c.entity.latest_seq(), c.entity.acked_seq());
            ASSERT_LE(c.entity.pending_count(), 256u);
            ASSERT_EQ(c.decode_errors + c.server.decode_errors, 0u);
        }
    });
    // Calm the link: everything recovers.
    sim.set("latency_ms", 50);
    sim.set("jitter_ms", 0);
    sim.set("loss_pct", 0);
    sim.set("server_hz", 20);
    sim.set("autopilot", 0);
    sim.set_user_direction({});
    run_for(sim, 4.0);
    EXPECT_LT(distance(sim.lane(kOn).drawn_player, sim.ideal_player()), 0.05f);
}

}  // namespace
}  // namespace vantage::play
