#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "test_delay_queue.hpp"
#include "vantage/correction_smoother.hpp"
#include "vantage/input_frontier.hpp"
#include "vantage/predicted_entity.hpp"
#include "vantage/vec.hpp"

namespace vantage {
namespace {

// A counter entity: each input adds its value. Small enough to check replays by hand.
void add(int& state, const int& input) {
    state += input;
}

TEST(PredictedEntity, ApplyingAnInputPredictsAtOnceAndNumbersItFromOne) {
    PredictedEntity<int, int> e(10);
    EXPECT_EQ(e.apply_input(1, add), 1u);
    EXPECT_EQ(e.apply_input(2, add), 2u);
    EXPECT_EQ(e.predicted(), 13);
    EXPECT_EQ(e.authoritative(), 10);
    EXPECT_EQ(e.pending_count(), 2u);
    EXPECT_EQ(e.pending(0).seq, 1u);
    EXPECT_EQ(e.pending(1).input, 2);
}

TEST(PredictedEntity, AnAgreeingServerChangesNothing) {
    PredictedEntity<int, int> e(0);
    e.apply_input(5, add);
    const Reconciliation r = e.reconcile(5, 1, add);
    EXPECT_EQ(r.outcome, Reconciliation::Outcome::Replayed);
    EXPECT_EQ(r.acknowledged, 1u);
    EXPECT_EQ(r.replayed, 0u);
    EXPECT_EQ(e.predicted(), 5);
    EXPECT_EQ(e.pending_count(), 0u);
}

TEST(PredictedEntity, ReconciliationSnapsToTheAuthorityAndReplaysTheUnacknowledged) {
    PredictedEntity<int, int> e(0);
    e.apply_input(1, add);
    e.apply_input(2, add);
    e.apply_input(4, add);
    // The server applied input 1 but something pushed the entity: it says 100.
    const Reconciliation r = e.reconcile(100, 1, add);
    EXPECT_EQ(r.acknowledged, 1u);
    EXPECT_EQ(r.replayed, 2u);
    EXPECT_EQ(e.predicted(), 106);
    EXPECT_EQ(e.authoritative(), 100);
    EXPECT_EQ(e.acked_seq(), 1u);
}

TEST(PredictedEntity, AReorderedOlderAcknowledgementIsIgnored) {
    PredictedEntity<int, int> e(0);
    for (int i = 0; i < 4; ++i) e.apply_input(1, add);
    e.reconcile(3, 3, add);
    const Reconciliation r = e.reconcile(-50, 2, add);
    EXPECT_EQ(r.outcome, Reconciliation::Outcome::Stale);
    EXPECT_EQ(e.predicted(), 4);
    EXPECT_EQ(e.authoritative(), 3);
}

TEST(PredictedEntity, AnAcknowledgementOfAnInputNeverSentSnapsAndClears) {
    PredictedEntity<int, int> e(0);
    e.apply_input(1, add);
    const Reconciliation r = e.reconcile(42, 99, add);
    EXPECT_EQ(r.outcome, Reconciliation::Outcome::FutureAck);
    EXPECT_EQ(e.predicted(), 42);
    EXPECT_EQ(e.pending_count(), 0u);
}

TEST(PredictedEntity, OverflowingThePendingRingDropsTheOldestAndCountsIt) {
    PredictedEntity<int, int> e(0, PredictionOptions{.max_pending_inputs = 4});
    for (int i = 0; i < 6; ++i) e.apply_input(1, add);
    EXPECT_EQ(e.pending_count(), 4u);
    EXPECT_EQ(e.counters().overflowed, 2u);
    EXPECT_EQ(e.pending(0).seq, 3u);
    // Within the window the replay is still exact.
    e.reconcile(3, 3, add);
    EXPECT_EQ(e.predicted(), 6);
}

TEST(PredictedEntity, ATeleportSnapsAndDropsTheJourney) {
    PredictedEntity<int, int> e(0);
    e.apply_input(1, add);
    e.apply_input(1, add);
    e.teleport(500);
    EXPECT_EQ(e.predicted(), 500);
    EXPECT_EQ(e.pending_count(), 0u);
    EXPECT_EQ(e.apply_input(1, add), 3u);  // numbering continues
}

TEST(PredictedEntity, MatchesAReplayOracleOverManySeeds) {
    for (std::uint64_t seed = 1; seed <= 100; ++seed) {
        XorShift rng(seed);
        PredictedEntity<int, int> e(0, PredictionOptions{.max_pending_inputs = 64});
        std::vector<int> inputs;  // index seq-1
        int server = 0;
        std::uint32_t server_seq = 0;
        for (int step = 0; step < 80; ++step) {
            const int in = static_cast<int>(rng.below(9)) - 4;
            e.apply_input(in, add);
            inputs.push_back(in);
            if (rng.chance(0.3f) && server_seq < inputs.size()) {
                // The server catches up a few inputs and sometimes perturbs the state.
                const std::uint32_t upto =
                    server_seq + 1 + static_cast<std::uint32_t>(rng.below(inputs.size() - server_seq));
                for (std::uint32_t s = server_seq; s < upto; ++s) server += inputs[s];
                if (rng.chance(0.3f)) server += 1000;
                server_seq = upto;
                e.reconcile(server, server_seq, add);
            }
            int oracle = server;
            for (std::size_t s = server_seq; s < inputs.size(); ++s) oracle += inputs[s];
            ASSERT_EQ(e.predicted(), oracle) << "seed " << seed << " step " << step;
            ASSERT_EQ(e.pending_count(), inputs.size() - server_seq) << "seed " << seed;
        }
    }
}

// The netcode scenario: a player steered at 60 Hz, a server ticking at 20 Hz that applies
// inputs on arrival and answers with its state and the newest input it applied.
struct Player {
    Vec2 p{100.0f, 100.0f};
};
struct Move {
    Vec2 dir;
};
constexpr float kSpeed = 240.0f;  // px/s
constexpr float kStep = 0.016f;   // s
constexpr float kWallX = 300.0f;  // only the server knows about this wall

void step_free(Player& pl, const Move& m) {
    pl.p += m.dir * (kSpeed * kStep);
}
void step_walled(Player& pl, const Move& m) {
    step_free(pl, m);
    if (pl.p.x > kWallX) pl.p.x = kWallX;
}

struct Update {
    Player state;
    std::uint32_t acked;
};

struct LinkSetup {
    double latency_ms = 100.0;
    double jitter_ms = 10.0;
    float loss = 0.05f;
};

struct Session {
    PredictedEntity<Player, Move> client{Player{}};
    Player server;
    InputFrontier frontier;
    std::size_t max_pending = 0;
    std::size_t min_pending_moving = 1000;
    float worst_drawn_backstep = 0.0f;  // px moved against the direction of travel in a frame
    float worst_logical_backstep = 0.0f;
    bool pending_always_newer_than_ack = true;
    bool render_ever_differed = false;
};

// Runs `ms` of play: the player holds `dir` until `stop_ms`, then rests.
template <class ServerStep, class ClientStep>
void play(Session& s, std::uint64_t seed, LinkSetup link, double ms, double stop_ms, Vec2 dir, bool reconcile,
          ServerStep server_step, ClientStep client_step) {
    test_support::TestDelayQueue<SequencedInput<Move>> up({link.latency_ms, link.jitter_ms, link.loss}, seed);
    test_support::TestDelayQueue<Update> down({link.latency_ms, link.jitter_ms, link.loss}, mix64(seed));
    CorrectionSmoother<Vec2> smoother;
    Vec2 last_drawn = s.client.predicted().p;
    Vec2 last_logical = last_drawn;
    for (double now = 0.0; now < ms; now += 16.0) {
        const Move m{now < stop_ms ? dir : Vec2{}};
        const std::uint32_t seq = s.client.apply_input(m, client_step);
        up.send(now, {seq, m});
        up.deliver(now, [&](const SequencedInput<Move>& in) {
            if (s.frontier.accept(in.seq)) server_step(s.server, in.input);
        });
        if (std::fmod(now, 48.0) == 0.0) down.send(now, {s.server, s.frontier.acked_seq()});
        down.deliver(now, [&](const Update& u) {
            if (!reconcile) return;
            const Vec2 before = s.client.predicted().p;
            s.client.reconcile(u.state, u.acked, client_step);
            smoother.add_correction(before, s.client.predicted().p);
        });
        smoother.advance(16.0);
        const Vec2 drawn = smoother.render(s.client.predicted().p);
        if (drawn != s.client.predicted().p) s.render_ever_differed = true;
        s.worst_drawn_backstep = std::max(s.worst_drawn_backstep, last_drawn.x - drawn.x);
        s.worst_logical_backstep = std::max(s.worst_logical_backstep, last_logical.x - s.client.predicted().p.x);
        last_drawn = drawn;
        last_logical = s.client.predicted().p;
        s.max_pending = std::max(s.max_pending, s.client.pending_count());
        if (now > 1000.0 && now < stop_ms)
            s.min_pending_moving = std::min(s.min_pending_moving, s.client.pending_count());
        for (std::size_t i = 0; i < s.client.pending_count(); ++i) {
            if (s.client.pending(i).seq <= s.client.acked_seq()) s.pending_always_newer_than_ack = false;
        }
    }
}

TEST(Prediction, InputsStayUnacknowledgedWhileInFlight) {
    for (std::uint64_t seed : {31u, 32u}) {
        Session s;
        play(s, seed, {.latency_ms = 100.0, .jitter_ms = 10.0, .loss = 0.0f}, 3000.0, 3000.0, {1.0f, 0.0f}, true,
             step_free, step_free);
        // A 200 ms round trip plus up to a 48 ms server interval holds 12 to 17 inputs of 16 ms.
        EXPECT_GE(s.min_pending_moving, 12u) << "seed " << seed;
        EXPECT_LE(s.max_pending, 18u) << "seed " << seed;
        EXPECT_TRUE(s.pending_always_newer_than_ack) << "seed " << seed;
    }
}

TEST(Prediction, PredictionConvergesAfterReconciliation) {
    for (std::uint64_t seed : {41u, 42u, 43u}) {
        Session s;
        // The server knows a wall the client does not: every reconcile is a real correction.
        play(s, seed, {}, 4000.0, 2500.0, {1.0f, 0.2f}, true, step_walled, step_free);
        // Idle inputs are still in flight, but they move nothing: prediction equals truth.
        EXPECT_LT(distance(s.client.predicted().p, s.server.p), 1e-3f) << "seed " << seed;
        EXPECT_GT(s.frontier.counters().skipped, 0u) << "seed " << seed << ": the link should have lost some inputs";
    }
}

TEST(Prediction, WithReconciliationOffThePredictionDriftsThroughAWallTheServerStops) {
    Session s;
    play(s, 51, {}, 3000.0, 3000.0, {1.0f, 0.0f}, false, step_walled, step_free);
    EXPECT_EQ(s.server.p.x, kWallX);
    EXPECT_GT(s.client.predicted().p.x, kWallX + 300.0f);
}

TEST(Prediction, WithReconciliationOnThePredictionIsHeldAtTheWall) {
    Session s;
    play(s, 51, {}, 3000.0, 3000.0, {1.0f, 0.0f}, true, step_walled, step_free);
    EXPECT_EQ(s.server.p.x, kWallX);
    // Only the inputs still in flight (about a round trip's worth) run past the wall.
    EXPECT_LT(s.client.predicted().p.x, kWallX + kSpeed * 0.3f);
}

TEST(Prediction, SmoothingEasesTheDrawnCorrectionWithoutTouchingTheSimulation) {
    Session smoothed;
    play(smoothed, 61, {}, 3000.0, 3000.0, {1.0f, 0.0f}, true, step_walled, step_free);
    Session unsmoothed_twin;
    play(unsmoothed_twin, 61, {}, 3000.0, 3000.0, {1.0f, 0.0f}, true, step_walled, step_free);
    EXPECT_TRUE(smoothed.render_ever_differed);
    // The simulation state is bit-identical to a twin run: the smoother only touched the drawing.
    EXPECT_EQ(smoothed.client.predicted().p, unsmoothed_twin.client.predicted().p);
    // At the wall each reconcile yanks the prediction back; the drawn player barely flinches.
    ASSERT_GT(smoothed.worst_logical_backstep, kSpeed * kStep) << "the setup must produce corrections";
    EXPECT_LT(smoothed.worst_drawn_backstep, 0.5f * smoothed.worst_logical_backstep);
}

}  // namespace
}  // namespace vantage
