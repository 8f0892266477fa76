#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "vantage/assert.hpp"
#include "vantage/delta_baseline.hpp"
#include "vantage/delta_mirror.hpp"
#include "vantage/delta_wire.hpp"
#include "vantage/priority_accumulator.hpp"
#include "vantage/random.hpp"
#include "vantage/set_digest.hpp"
#include "vantage/slot_key.hpp"

namespace vantage {
namespace {

using Keys = std::vector<std::uint64_t>;

Keys slots(std::initializer_list<std::uint32_t> indices) {
    Keys out;
    for (std::uint32_t i : indices) out.push_back(SlotKey{i, 0}.encode());
    return out;
}

// One subscriber wired straight to one client, with the test deciding what arrives.
// Spare-room repeats off unless asked for, so what a frame must carry shows on its own.
struct Stream {
    explicit Stream(DeltaBaselineOptions options = {}, bool repeats = false) : server(with_repeats(options, repeats)) {}
    static DeltaBaselineOptions with_repeats(DeltaBaselineOptions options, bool repeats) {
        options.repeat_in_flight = repeats;
        return options;
    }

    const DeltaPlan& send(const Keys& world) {
        server.plan(world, plan);
        return plan;
    }
    void deliver(const DeltaPlan& p) {
        client.apply(p, [](std::size_t, SlotKey) { return 0; });
    }
    AckOutcome ack() { return server.observe_ack(*client.ack_report(), 0.0); }
    // Plan, deliver and acknowledge one frame.
    const DeltaPlan& round(const Keys& world) {
        send(world);
        deliver(plan);
        ack();
        return plan;
    }
    Keys held() const {
        Keys out;
        client.keys(out);
        return out;
    }

    DeltaBaseline server;
    DeltaMirror<int> client;
    DeltaPlan plan;
};

// The epoch's first frame is its full baseline; later frames name the epoch and do not repeat
// what is still in flight.
TEST(DeltaBaseline, TheFirstFrameIsFullAndLaterOnesNameItsEpochWithoutRepeating) {
    Stream s;
    const Keys world = slots({1, 2, 3});
    const DeltaPlan first = s.send(world);
    EXPECT_TRUE(first.full_baseline);
    EXPECT_EQ(first.entered, world);
    EXPECT_FALSE(first.baseline_seq.has_value());
    for (int i = 0; i < 2; ++i) {
        const DeltaPlan& p = s.send(world);
        EXPECT_FALSE(p.full_baseline) << "frame " << i;
        EXPECT_EQ(p.baseline_seq, 0u);
        EXPECT_TRUE(p.entered.empty() && p.left.empty()) << "frame " << i << ": the first is in flight";
    }
    s.deliver(s.plan);  // frame 2 alone arrives: it opens the epoch, but names nothing
    EXPECT_TRUE(s.held().empty());
    EXPECT_EQ(s.ack(), AckOutcome::Advanced);
    // Frame 0 is known lost now (2 was reported, 0 was not): its slots are named again.
    const DeltaPlan& p = s.send(world);
    EXPECT_EQ(p.entered, world);
    s.deliver(p);
    EXPECT_EQ(s.ack(), AckOutcome::Advanced);
    EXPECT_EQ(s.held(), world);
    EXPECT_TRUE(s.send(world).entered.empty());
    EXPECT_EQ(s.server.unsettled(), 0u);
}

TEST(DeltaBaseline, ChangingThePolicyThrowsAwayTheAcknowledgedBaseline) {
    Stream s;
    for (int i = 0; i < 3; ++i) s.round(slots({1, 2}));
    EXPECT_FALSE(s.plan.full_baseline);
    const auto rebuilds = s.server.counters().full_rebuilds;
    s.server.set_policy(RecoveryPolicy::Naive);
    EXPECT_TRUE(s.send(slots({1, 2})).full_baseline);
    EXPECT_EQ(s.server.counters().full_rebuilds, rebuilds + 1);
    EXPECT_FALSE(s.server.acked_seq().has_value());
}

TEST(DeltaBaseline, SettingThePolicyItAlreadyHasChangesNothing) {
    Stream s;
    for (int i = 0; i < 3; ++i) s.round(slots({1, 2}));
    const auto rebuilds = s.server.counters().full_rebuilds;
    const auto acked = s.server.acked_seq();
    s.server.set_policy(RecoveryPolicy::Acked);
    EXPECT_FALSE(s.send(slots({1, 2})).full_baseline);
    EXPECT_EQ(s.server.counters().full_rebuilds, rebuilds);
    EXPECT_EQ(s.server.acked_seq(), acked);
}

TEST(DeltaBaseline, UnackedCountsWhatIsStillInFlight) {
    Stream s;
    DeltaPlan first, second;
    s.server.plan(slots({1}), first);
    s.server.plan(slots({1}), second);
    s.send(slots({1}));
    EXPECT_EQ(s.server.unacked(), 3u);
    s.deliver(first);
    s.deliver(second);
    s.ack();
    EXPECT_EQ(s.server.unacked(), 1u);
}

TEST(DeltaBaseline, ARebuildStartsANewEpochThatOldReportsCannotConfirm) {
    Stream s;
    const Keys world = slots({4, 5, 6});
    for (int i = 0; i < 6; ++i) s.send(world);  // frames 0..5, nothing acknowledged yet
    s.deliver(s.plan);                          // frame 5 arrives...
    const AckReport late = *s.client.ack_report();
    s.server.request_full_baseline();
    const DeltaPlan rebuild = s.send(world);  // ...but the server rebuilds at 6 first
    EXPECT_EQ(rebuild.seq, 6u);
    EXPECT_TRUE(rebuild.full_baseline);
    EXPECT_EQ(rebuild.entered, world);
    // The report for 5 names the old epoch: it confirms nothing of the new one.
    EXPECT_EQ(s.server.observe_ack(late, 0.0), AckOutcome::Unchanged);
    EXPECT_FALSE(s.server.acked_seq().has_value());
    const DeltaPlan seventh = s.send(world);
    EXPECT_FALSE(seventh.full_baseline);
    EXPECT_EQ(seventh.baseline_seq, 6u);
    EXPECT_TRUE(seventh.entered.empty()) << "the epoch's keys are in flight in frame 6";
    // Frame 7 alone arriving opens the epoch: the client drops the old epoch's state.
    s.deliver(seventh);
    EXPECT_TRUE(s.held().empty());
    EXPECT_EQ(s.ack(), AckOutcome::Advanced);
    s.deliver(s.send(world));  // 6 is known lost: named again
    EXPECT_EQ(s.held(), world);
    EXPECT_EQ(s.server.counters().full_rebuilds, 2u);
}

TEST(DeltaBaseline, ASilentSubscriberIsThrottledToKeepalivesAndOneAckRestoresIt) {
    Stream s({.stalled_after_ms = 3000.0, .keepalive_every_ms = 1000.0});
    const Keys world = slots({1, 2, 3, 4});
    int sends_late = 0;
    double t = 0.0;
    for (; t < 10000.0; t += 62.0) {
        if (!s.server.should_send(t)) continue;
        s.send(world);
        if (t < 1000.0) {
            s.deliver(s.plan);
            s.server.observe_ack(*s.client.ack_report(), t);
        }
        if (t >= 5000.0) ++sends_late;
    }
    EXPECT_TRUE(s.server.stalled(t));
    EXPECT_GE(sends_late, 3);
    EXPECT_LE(sends_late, 7);
    // The client speaks again: that is the resume signal, and the next plan is full.
    s.deliver(s.plan);
    EXPECT_EQ(s.server.observe_ack(*s.client.ack_report(), t), AckOutcome::Resumed);
    ASSERT_TRUE(s.server.should_send(t));
    const DeltaPlan full = s.send(world);
    EXPECT_TRUE(full.full_baseline);
    s.deliver(full);
    s.server.observe_ack(*s.client.ack_report(), t + 62.0);
    ASSERT_TRUE(s.server.should_send(t + 62.0));
    const DeltaPlan& next = s.send(world);
    EXPECT_FALSE(next.full_baseline);
    EXPECT_TRUE(next.entered.empty());  // nothing spuriously re-sent
    EXPECT_EQ(s.held(), world);
    EXPECT_EQ(s.server.counters().resumes, 1u);
}

TEST(DeltaBaseline, WithoutFlowControlEveryRoundSends) {
    DeltaBaseline b;
    for (double t = 0.0; t < 60000.0; t += 62.0) {
        ASSERT_TRUE(b.should_send(t));
        ASSERT_FALSE(b.stalled(t));
    }
}

TEST(DeltaBaseline, AFreshSubscriberIsNotBornStalled) {
    DeltaBaseline b({.stalled_after_ms = 3000.0, .keepalive_every_ms = 1000.0});
    EXPECT_FALSE(b.stalled(3'600'000.0));  // before the first decision: a grace period
    EXPECT_TRUE(b.should_send(3'600'000.0));
    EXPECT_FALSE(b.stalled(3'600'100.0));
    b.reset();
    EXPECT_FALSE(b.stalled(7'200'000.0));
    EXPECT_TRUE(b.should_send(7'200'000.0));
    EXPECT_FALSE(b.stalled(7'200'100.0));
}

TEST(DeltaBaseline, AFreshSubscriberIsSentTheWholeSetNotADifference) {
    Stream s;
    XorShift rng(3);
    Keys world;
    for (int i = 0; i < 50; ++i) {
        world.clear();
        for (std::uint32_t k = 0; k < 40; ++k) {
            if (rng.chance(0.5f)) world.push_back(SlotKey{k, 0}.encode());
        }
        s.round(world);
    }
    // A new client takes the slot: reset, and a mirror of its own.
    s.server.reset();
    s.client = DeltaMirror<int>{};
    const DeltaPlan& p = s.send(world);
    EXPECT_TRUE(p.full_baseline);
    s.deliver(p);
    EXPECT_EQ(s.held(), world);
}

TEST(DeltaBaseline, AReusedSlotWithoutAResetHandsTheNewOccupantTheOldOnesState) {
    const Keys world = slots({2, 4, 8, 16});
    for (const bool with_reset : {false, true}) {
        Stream s;
        for (int i = 0; i < 10; ++i) s.round(world);
        s.client = DeltaMirror<int>{};  // the joiner
        if (with_reset) s.server.reset();
        s.deliver(s.send(world));
        if (with_reset) {
            EXPECT_EQ(s.held(), world);
        } else {
            EXPECT_TRUE(s.held().empty()) << "the joiner is told only what its predecessor lacked";
        }
    }
}

TEST(DeltaBaseline, ALostPacketIsSentAgainOnceAReportShowsIt) {
    Stream s;
    for (int i = 0; i < 3; ++i) s.round(slots({1, 2}));
    s.send(slots({1, 2, 9}));  // lost
    const DeltaPlan& in_flight = s.send(slots({1, 2, 9}));
    EXPECT_TRUE(in_flight.entered.empty()) << "9 may still arrive: not repeated";
    s.deliver(in_flight);
    s.ack();  // reports the frame after the lost one
    const DeltaPlan& next = s.send(slots({1, 2, 9}));
    EXPECT_EQ(next.entered, slots({9}));
    s.deliver(next);
    EXPECT_EQ(s.held(), slots({1, 2, 9}));
    EXPECT_EQ(s.server.counters().resent_lost, 1u);
}

// With spare room, changes in flight go again in the next frames, so a lost frame is repaired
// by the next one that arrives rather than a round trip later; a change never waits for them.
TEST(DeltaBaseline, SpareRoomRepeatsWhatIsInFlightSoTheNextFrameRepairs) {
    Stream s({}, true);
    for (int i = 0; i < 3; ++i) s.round(slots({1, 2}));
    s.send(slots({1, 2, 9}));  // lost
    const DeltaPlan& next = s.send(slots({1, 2, 9, 10}));
    EXPECT_EQ(next.entered, slots({9, 10})) << "10 is new, 9 is in flight and there is room";
    s.deliver(next);
    EXPECT_EQ(s.held(), slots({1, 2, 9, 10}));
    EXPECT_EQ(s.ack(), AckOutcome::Advanced);
    EXPECT_EQ(s.server.unsettled(), 0u) << "either arrival settles 9";
    EXPECT_TRUE(s.send(slots({1, 2, 9, 10})).entered.empty());
    EXPECT_EQ(s.server.counters().repeats, 1u);
    EXPECT_EQ(s.server.counters().resent_lost, 0u);
}

TEST(DeltaBaseline, TheNaivePolicyLosesALostPacketsContentsForever) {
    Stream s({.policy = RecoveryPolicy::Naive});
    for (int i = 0; i < 3; ++i) s.round(slots({1, 2}));
    s.send(slots({1, 2, 9}));  // lost
    for (int i = 0; i < 20; ++i) {
        EXPECT_EQ(s.round(slots({1, 2, 9})).entered, Keys{});
    }
    EXPECT_EQ(s.held(), slots({1, 2}));
    EXPECT_EQ(s.server.observe_ack(*s.client.ack_report(), 0.0), AckOutcome::Ignored);
}

TEST(DeltaBaseline, ADriftedMirrorIsCaughtByItsDigestAndRebuilt) {
    Stream s;
    const Keys world = slots({1, 2, 3});
    for (int i = 0; i < 3; ++i) s.round(world);
    EXPECT_EQ(s.server.counters().full_rebuilds, 1u);
    // Corrupt the client behind the protocol's back: it loses key 2.
    s.client.begin(*s.client.applied_seq(), false);
    s.client.remove(SlotKey{2, 0});
    EXPECT_EQ(s.ack(), AckOutcome::Drift);
    const DeltaPlan& repair = s.send(world);
    EXPECT_TRUE(repair.full_baseline);
    EXPECT_EQ(s.server.counters().full_rebuilds, 2u);  // the initial baseline plus the repair
    s.deliver(repair);
    EXPECT_EQ(s.held(), world);
}

TEST(DeltaBaseline, AMatchingDigestNeverForcesARebuild) {
    Stream s;
    XorShift rng(8);
    for (int i = 0; i < 30; ++i) {
        Keys world;
        for (std::uint32_t k = 0; k < 30; ++k) {
            if (rng.chance(0.6f)) world.push_back(SlotKey{k, 0}.encode());
        }
        s.send(world);
        s.deliver(s.plan);
        ASSERT_NE(s.ack(), AckOutcome::Drift) << "round " << i;
        ASSERT_EQ(s.held(), world);
    }
    EXPECT_EQ(s.server.counters().full_rebuilds, 1u);
}

TEST(DeltaBaseline, AKeyThatEntersAndLeavesInsideTheGapIsStillRetracted) {
    // Five keys, so the diff stays smaller than the whole set (which would be sent instead).
    Stream s;
    const Keys world = slots({1, 3, 5, 7, 9});
    for (int i = 0; i < 3; ++i) s.round(world);
    s.deliver(s.send(slots({1, 2, 3, 5, 7, 9})));  // 2 enters and arrives, but its ack is not back yet
    const DeltaPlan& p = s.send(world);            // 2 leaves inside the gap
    // 2 is in neither the acked set nor the current set; only the union finds it.
    EXPECT_FALSE(p.full_baseline);
    EXPECT_EQ(p.left, slots({2}));
    s.deliver(p);
    EXPECT_EQ(s.held(), world);
}

TEST(DeltaBaseline, ASlotsNewestWordDecidesWhatIsSentAgain) {
    Stream s;
    for (int i = 0; i < 3; ++i) s.round(slots({1, 5}));
    EXPECT_EQ(s.send(slots({1})).left, slots({5}));        // 5 leaves (lost)
    EXPECT_EQ(s.send(slots({1, 5})).entered, slots({5}));  // 5 comes back (lost)
    s.round(slots({1, 5}));                                // arrives, names nothing, reports both losses
    // The client may hold 5 or not: the newest word about it was lost, so it goes again.
    const DeltaPlan& p = s.send(slots({1, 5}));
    EXPECT_EQ(p.entered, slots({5}));
    s.deliver(p);
    EXPECT_EQ(s.held(), slots({1, 5}));
}

TEST(DeltaBaseline, AHistoryShorterThanTheRoundTripResendsButStillDelivers) {
    for (const std::size_t history : {std::size_t{4}, std::size_t{8}}) {
        Stream s({.history = history});
        Keys world = slots({3, 6, 9});
        std::vector<DeltaPlan> in_flight;
        for (int i = 0; i < 40; ++i) {
            if (i == 20) world = slots({3, 7, 9, 12});
            in_flight.push_back(s.send(world));
            if (in_flight.size() > 6) {  // six frames in flight: the round trip
                s.deliver(in_flight.front());
                ASSERT_NE(s.ack(), AckOutcome::Drift) << "history " << history << " frame " << i;
                in_flight.erase(in_flight.begin());
            }
        }
        for (const DeltaPlan& p : in_flight) s.deliver(p);
        EXPECT_EQ(s.held(), world) << "history " << history;
        if (history < 7) {
            EXPECT_GT(s.server.counters().late_acks, 10u);
            EXPECT_GT(s.server.counters().resent_timeout, 3u);
        } else {
            EXPECT_EQ(s.server.counters().late_acks, 0u);
            EXPECT_EQ(s.server.counters().resent_timeout, 0u);
        }
        EXPECT_EQ(s.server.counters().full_rebuilds, 1u);
    }
}

// With any received, silence never rebuilds: a change still unconfirmed after `history`
// frames is sent again (the retransmission timeout), and nothing else is.
TEST(DeltaBaseline, SilenceResendsUnconfirmedChangesAndNeverRebuilds) {
    Stream s({.history = 4});
    for (int i = 0; i < 3; ++i) s.round(slots({3, 6}));
    int named = 0;
    for (int i = 0; i < 12; ++i) {
        const DeltaPlan& p = s.send(slots({3, 6, 9}));  // silent: nothing delivered
        EXPECT_FALSE(p.full_baseline);
        named += static_cast<int>(p.entered.size());
    }
    EXPECT_EQ(named, 3) << "9 at frames 0, 5 and 10 of the silence";
    EXPECT_EQ(s.server.counters().resent_timeout, 2u);
    EXPECT_EQ(s.server.counters().full_rebuilds, 1u);
}

TEST(DeltaBaseline, WithTheContiguousFrontierNothingPastAGapIsConfirmed) {
    for (const AckFrontier frontier : {AckFrontier::Contiguous, AckFrontier::AnyReceived}) {
        Stream s({.frontier = frontier});
        DeltaPlan p0, p1, p2;
        s.server.plan(slots({1}), p0);
        s.server.plan(slots({1, 2}), p1);
        s.server.plan(slots({1, 2, 3}), p2);
        s.deliver(p0);
        s.deliver(p2);  // 1 is lost
        s.ack();
        const DeltaPlan& next = s.send(slots({1, 2, 3}));
        if (frontier == AckFrontier::Contiguous) {
            // Only frame 0 counts: 2 and 3 wait for their timeout.
            EXPECT_TRUE(next.entered.empty());
            EXPECT_EQ(s.server.unsettled(), 2u);
        } else {
            EXPECT_EQ(next.entered, slots({2})) << "3 arrived; 2 is known lost";
            EXPECT_EQ(s.server.unsettled(), 1u);
        }
    }
}

TEST(DeltaBaseline, TheDefaultFrontierConfirmsWhateverArrived) {
    EXPECT_EQ(DeltaBaselineOptions{}.frontier, AckFrontier::AnyReceived);
    Stream s;
    for (int i = 0; i < 3; ++i) s.round(slots({1, 2}));
    s.send(slots({1, 2, 3}));  // lost
    s.round(slots({1, 2, 3, 4}));
    EXPECT_EQ(s.held(), slots({1, 2, 4}));
    EXPECT_EQ(s.server.unsettled(), 1u) << "4 confirmed past the gap; 3 is known lost";
    s.round(slots({1, 2, 3, 4}));
    EXPECT_EQ(s.held(), slots({1, 2, 3, 4}));
    EXPECT_EQ(s.server.unsettled(), 0u);
}

TEST(DeltaBaseline, EveryAcknowledgementIsLivenessForFlowControl) {
    Stream s({.stalled_after_ms = 3000.0, .keepalive_every_ms = 1000.0});
    int sent = 0;
    for (double t = 0.0; t < 660 * 62.5; t += 62.5) {
        if (!s.server.should_send(t)) continue;
        ++sent;
        s.send(slots({1, 2}));
        s.deliver(s.plan);
        s.server.observe_ack(*s.client.ack_report(), t);
    }
    EXPECT_EQ(sent, 660);
    EXPECT_EQ(s.server.counters().keepalives, 0u);
}

TEST(DeltaBaseline, AnAckNamingAFrameNeverSentIsRejected) {
    Stream s;
    s.round(slots({1}));
    EXPECT_EQ(s.server.observe_ack({.newest = 50, .mask = 0, .digest = 0}, 0.0), AckOutcome::Rejected);
    EXPECT_EQ(s.server.observe_ack({.newest = 50, .mask = 0, .digest = 0}, 0.0), AckOutcome::Rejected);
    EXPECT_EQ(s.server.counters().rejected_acks, 2u);
    EXPECT_EQ(s.server.acked_seq(), 0u);
}

TEST(DeltaBaseline, AnEmptyMirrorAsksForAResyncThroughItsDigest) {
    Stream s;
    for (int i = 0; i < 3; ++i) s.round(slots({1, 2}));
    s.deliver(s.send(slots({1, 2})));
    s.client.clear();                  // the client drops its mirror
    s.deliver(s.send(slots({1, 2})));  // a delta with nothing in it
    EXPECT_EQ(s.ack(), AckOutcome::Drift);
    s.deliver(s.send(slots({1, 2})));
    EXPECT_TRUE(s.plan.full_baseline);
    EXPECT_EQ(s.held(), slots({1, 2}));
}

TEST(DeltaBaseline, ALongLossyRunStillConverges) {
    // 400 frames, a churning set of 24 keys for 300 of them, about 25% loss on frames and
    // acks, history 16.
    Stream s({.history = 16});
    std::uint32_t lcg = 12345;
    auto lose = [&] {
        lcg = lcg * 1103515245u + 12345u;
        return ((lcg >> 16) & 0x7FFFu) % 4 == 0;
    };
    XorShift rng(21);
    Keys world;
    int exact_from = -1;
    for (std::uint64_t seq = 0; seq < 400; ++seq) {
        if (seq < 300) {
            world.clear();
            for (std::uint32_t k = 0; k < 24; ++k) {
                if (rng.chance(0.5f)) world.push_back(SlotKey{k, 0}.encode());
            }
        }
        s.send(world);
        if (lose()) continue;
        s.deliver(s.plan);
        if (!lose()) {
            ASSERT_NE(s.ack(), AckOutcome::Drift) << "seq " << seq;
        }
        if (s.held() != world) {
            exact_from = -1;
        } else if (exact_from < 0) {
            exact_from = static_cast<int>(seq);
        }
    }
    EXPECT_GE(exact_from, 0);
    EXPECT_LT(exact_from, 310);
    EXPECT_EQ(s.server.counters().full_rebuilds, 1u);
}

TEST(DeltaBaseline, WithTheAnyReceivedFrontierALostFrameDoesNotStallTheStream) {
    Stream s({.frontier = AckFrontier::AnyReceived});
    for (int i = 0; i < 3; ++i) s.round(slots({1, 2}));
    s.send(slots({1, 2, 9}));       // lost: it carried 9
    s.round(slots({1, 2, 9, 10}));  // arrives and is acknowledged past the gap
    EXPECT_EQ(s.server.acked_seq(), s.plan.seq);
    EXPECT_EQ(s.held(), slots({1, 2, 10}));
    const DeltaPlan& next = s.send(slots({1, 2, 9, 10}));
    EXPECT_EQ(next.entered, slots({9}));  // only what the lost frame carried
    EXPECT_FALSE(next.full_baseline);
    s.deliver(next);
    EXPECT_EQ(s.held(), slots({1, 2, 9, 10}));
}

TEST(DeltaBaseline, WithTheContiguousFrontierALostFrameStallsTheBaselineUntilARebuild) {
    Stream s({.frontier = AckFrontier::Contiguous, .history = 8});
    for (int i = 0; i < 3; ++i) s.round(slots({1, 2}));
    const auto before = s.server.acked_seq();
    s.send(slots({1, 2, 9}));  // lost
    int fulls = 0;
    for (int i = 0; i < 10; ++i) fulls += s.round(slots({1, 2, 9})).full_baseline ? 1 : 0;
    EXPECT_EQ(fulls, 1) << "the stall ends only in a stale rebuild";
    EXPECT_NE(s.server.acked_seq(), before);
    EXPECT_EQ(s.held(), slots({1, 2, 9}));
}

TEST(DeltaBaseline, ALongLossyRunStillConvergesWithTheAnyReceivedFrontier) {
    Stream s({.frontier = AckFrontier::AnyReceived, .history = 16});
    XorShift loss(99), rng(22);
    Keys world;
    int exact_from = -1;
    for (std::uint64_t seq = 0; seq < 400; ++seq) {
        if (seq < 300) {  // then the world stands still
            world.clear();
            for (std::uint32_t k = 0; k < 24; ++k) {
                if (rng.chance(0.5f)) world.push_back(SlotKey{k, static_cast<std::uint16_t>(seq / 50)}.encode());
            }
        }
        s.send(world);
        if (loss.chance(0.4f)) continue;
        s.deliver(s.plan);
        if (!loss.chance(0.4f)) {
            ASSERT_NE(s.ack(), AckOutcome::Drift) << "seq " << seq;
        }
        if (s.held() != world) {
            exact_from = -1;
        } else if (exact_from < 0) {
            exact_from = static_cast<int>(seq);
        }
    }
    EXPECT_GE(exact_from, 0);
    EXPECT_LT(exact_from, 320) << "a few round trips of 40% loss each way";
    EXPECT_EQ(s.server.counters().stale_rebuilds, 0u);
    EXPECT_EQ(s.server.counters().full_rebuilds, 1u);
}

// --- frames that fit ---------------------------------------------------------------------------

// Keys 0, 3, 6, ... (a sparse set: index gaps of 3, generation 1).
Keys spaced(std::uint32_t n, std::uint32_t first = 0, std::uint32_t step = 3) {
    Keys out;
    for (std::uint32_t i = 0; i < n; ++i) out.push_back(SlotKey{first + i * step, 1}.encode());
    return out;
}

// What the frame costs on the wire with a position per entered key (6 bytes at most here).
std::size_t wire_bytes(const DeltaPlan& p) {
    ByteWriter w;
    const std::vector<Vec2> positions(p.entered.size(), Vec2{-1999.0f, 1999.0f});  // the widest
    encode_delta_frame(w, p, positions, {.max_frame_bytes = kMaxFrameBytesLimit});
    EXPECT_TRUE(w.ok());
    return w.size();
}

constexpr DeltaBaselineOptions kMtu{.max_frame_bytes = 1200, .entered_value_bytes = 6};

// 2,000 keys with positions were one 11,976-byte frame: now every frame fits 1,200 bytes and
// the set arrives over consecutive frames, the client ending with exactly the server's set.
TEST(DeltaBaseline, AFullSetLargerThanAFrameIsSpreadOverFramesThatFit) {
    Stream s(kMtu);
    const Keys world = spaced(2000);
    int frames = 0;
    for (; frames < 40 && s.held() != world; ++frames) {
        s.round(world);
        ASSERT_LE(wire_bytes(s.plan), 1200u) << "frame " << frames;
    }
    EXPECT_EQ(s.held(), world);
    EXPECT_LE(frames, 20);  // about 150 keys of 8 bytes per frame
    ::testing::Test::RecordProperty("frames", frames);
    EXPECT_GT(s.server.counters().spread_frames, 10u);
    EXPECT_EQ(s.server.counters().full_rebuilds, 1u);
    // Once there, a quiet world costs an empty diff.
    s.round(world);
    EXPECT_TRUE(s.plan.entered.empty() && s.plan.left.empty());
    EXPECT_EQ(s.client.digest(), SetDigest::from_keys(world).digest());
}

// A cold start too large for one frame spreads over the epoch's frames: the first is the full
// baseline's first part, the next ones carry the rest (never the same keys again while they
// are in flight), and any one of them arriving alone opens the epoch with its part.
TEST(DeltaBaseline, AColdStartTooLargeForAFrameSpreadsOverTheEpochsFrames) {
    Stream s(kMtu);
    const Keys world = spaced(2000);
    const Keys first = s.send(world).entered;
    EXPECT_TRUE(s.plan.full_baseline);
    EXPECT_LT(first.size(), world.size());
    EXPECT_TRUE(std::equal(first.begin(), first.end(), world.begin()));
    EXPECT_LE(wire_bytes(s.plan), 1200u);
    const DeltaPlan second = s.send(world);
    EXPECT_FALSE(second.full_baseline);
    EXPECT_EQ(second.baseline_seq, 0u);
    EXPECT_EQ(second.entered.front(), world[first.size()]) << "the next part, not the first again";
    s.deliver(second);  // the full baseline is lost
    EXPECT_EQ(s.held(), second.entered);
    EXPECT_EQ(s.ack(), AckOutcome::Advanced);
}

// The parts of a spread set travel as frames of their own: a client that received only some
// of them acknowledges those, the next diffs resend what the lost ones carried, and it ends
// with the exact server set (never a drift, never a rebuild).
TEST(DeltaBaseline, AClientThatGotOnlySomePartsOfASpreadSetEndsExact) {
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        for (AckFrontier frontier : {AckFrontier::Contiguous, AckFrontier::AnyReceived}) {
            DeltaBaselineOptions options = kMtu;
            options.frontier = frontier;
            Stream s(options);
            XorShift loss(seed);
            Keys world = spaced(600);
            int frame = 0;
            for (; frame < 150; ++frame) {
                if (frame == 20) world = spaced(500, 900, 2);  // a big change in the middle
                s.send(world);
                ASSERT_LE(wire_bytes(s.plan), 1200u) << "seed " << seed << " frame " << frame;
                if (frame < 40 && loss.chance(0.4f)) continue;  // lost on the way
                s.deliver(s.plan);
                if (frame < 40 && loss.chance(0.3f)) continue;  // its acknowledgement lost
                ASSERT_NE(s.ack(), AckOutcome::Drift) << "seed " << seed << " frame " << frame;
                if (frame >= 40 && s.held() == world) break;
            }
            EXPECT_EQ(s.held(), world) << "seed " << seed << " frontier " << static_cast<int>(frontier);
            EXPECT_EQ(s.server.counters().drift_detections, 0u) << "seed " << seed;
        }
    }
}

// A byte budget below the stream's need: each frame is planned into what the budget holds
// (nothing is sent while it holds less than a minimal frame), so the set arrives slowly but
// every frame is exact; once the budget allows, the stream converges and stays converged.
TEST(DeltaBaseline, AStreamUnderAByteBudgetConvergesOnceTheBudgetAllows) {
    Stream s(kMtu);
    ByteBudget budget({.bytes_per_sec = 400.0, .burst_bytes = 200.0});
    Keys world = spaced(600);
    int sent = 0, converged_at = -1;
    for (int frame = 0; frame < 400; ++frame) {
        const double now_ms = frame * 50.0;
        if (frame == 200) budget.set_options({.bytes_per_sec = 40000.0, .burst_bytes = 2400.0});
        if (frame % 50 == 25) world = spaced(600, 3 * static_cast<std::uint32_t>(frame / 50), 3);  // one out, one in
        budget.refill(now_ms);
        if (budget.available() < kMinFrameBytes) continue;
        s.server.plan(world, s.plan, budget.available());
        const std::size_t bytes = wire_bytes(s.plan);
        ASSERT_LE(bytes, budget.available()) << "frame " << frame;
        budget.spend(bytes);
        ++sent;
        s.deliver(s.plan);
        ASSERT_NE(s.ack(), AckOutcome::Drift) << "frame " << frame;
        if (frame < 200) {
            EXPECT_NE(s.held(), world) << "frame " << frame << ": 400 B/s cannot carry 600 keys in 10 s";
        } else if (s.held() == world) {
            if (converged_at < 0) converged_at = frame;
        } else if (converged_at >= 0 && frame % 50 != 25) {
            ADD_FAILURE() << "diverged again at frame " << frame;
        }
    }
    EXPECT_GT(sent, 100);
    EXPECT_GE(converged_at, 200);
    EXPECT_LT(converged_at, 210);  // the rest at up to 2,400 bytes per frame
}

TEST(DeltaBaselineOptions, HistoryForCoversTheRoundTripPlusJitter) {
    // 60 Hz, 300 ms each way, 20 ms jitter: 620 / 16.7 = 37.2 -> 38 frames, plus two.
    EXPECT_EQ(DeltaBaselineOptions::history_for(600.0, 20.0, 1000.0 / 60.0), 40u);
    EXPECT_EQ(DeltaBaselineOptions::history_for(0.0, 0.0, 50.0), 2u);
    EXPECT_EQ(DeltaBaselineOptions::history_for(5000.0, 0.0, 16.0), 64u);  // clamped to the window
    // The default 24 does not cover the 60 Hz with 300 ms each way; this does.
    EXPECT_GT(DeltaBaselineOptions::history_for(600.0, 0.0, 1000.0 / 60.0), 24u);
}

TEST(DeltaBaselineOptions, ValidateNamesTheFirstBadField) {
    EXPECT_EQ(DeltaBaselineOptions{}.validate(), "");
    EXPECT_NE(DeltaBaselineOptions{.history = 0}.validate(), "");
    EXPECT_NE(DeltaBaselineOptions{.history = 65}.validate(), "");
    EXPECT_NE(DeltaBaselineOptions{.stalled_after_ms = -1.0}.validate(), "");
    EXPECT_NE(DeltaBaselineOptions{.keepalive_every_ms = 0.0}.validate(), "");
    EXPECT_NE(DeltaBaselineOptions{.max_frame_bytes = 63}.validate(), "");
    EXPECT_NE(DeltaBaselineOptions{.max_frame_bytes = 65508}.validate(), "");
    EXPECT_NE(DeltaBaselineOptions{.entered_value_bytes = 17}.validate(), "");
}

// Misuse is checked in every build: this suite also runs at -O2 with NDEBUG (native-release).
#if GTEST_HAS_DEATH_TEST
#if VANTAGE_HOT_ASSERTS
// Unchecked, unsorted keys once turned one removal into "one entered, two left".
TEST(DeltaBaselineDeathTest, UnsortedKeysAreRejectedWithAClearMessage) {
    DeltaBaseline baseline;
    DeltaPlan plan;
    baseline.plan(slots({1, 2, 3}), plan);
    EXPECT_DEATH(baseline.plan(slots({3, 1}), plan), "DeltaBaseline::plan: keys must be ascending and unique");
}

TEST(DeltaBaselineDeathTest, DuplicateKeysAreRejected) {
    DeltaBaseline baseline;
    DeltaPlan plan;
    EXPECT_DEATH(baseline.plan(slots({1, 2, 2}), plan), "keys must be ascending and unique");
}
#endif

TEST(DeltaBaselineDeathTest, InvalidOptionsNameTheBadField) {
    EXPECT_DEATH({ DeltaBaseline baseline({.history = 0}); },
                 "DeltaBaseline: invalid DeltaBaselineOptions: history must be in \\[1, 64\\]");
}
#endif

}  // namespace
}  // namespace vantage
