// DeltaStream and DeltaReceiver: the relevance-to-delta step end to end, over a simulated
// lossy link where it matters (seeds printed), and frame by frame where the test decides what
// arrives. The oracle property over many loss patterns runs through the same pair
// (tests/support/delta_scenario.hpp, tests/core/delta_oracle_test.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <vector>

#include "support/delta_scenario.hpp"
#include "vantage/delta_stream.hpp"
#include "vantage/lossy_link.hpp"
#include "vantage/set_digest.hpp"
#include "vantage/visibility_set.hpp"

namespace vantage {
namespace {

using Keys = std::vector<std::uint64_t>;

Keys slots(std::initializer_list<std::uint32_t> indices, std::uint16_t generation = 0) {
    Keys out;
    for (std::uint32_t i : indices) out.push_back(SlotKey{i, generation}.encode());
    return out;
}

Vec2 position_of(SlotKey key) {
    return {static_cast<float>(key.index), static_cast<float>(key.generation)};
}

std::vector<SlotKey> unpacked(const Keys& keys) {
    std::vector<SlotKey> out;
    for (std::uint64_t k : keys) out.push_back(*SlotKey::decode(k));
    return out;
}

// A stream and a receiver with the test carrying the bytes (and deciding what is lost).
struct Pair {
    explicit Pair(const DeltaStreamOptions& options = {}) : server(options), client(options) {}

    StreamStatus send(const Keys& relevant, double now_ms = 0.0) {
        return server.frame(relevant, position_of, now_ms, frame);
    }
    WireError deliver() { return client.apply(frame.bytes()); }
    void ack(double now_ms = 0.0) {
        ASSERT_TRUE(client.write_ack(ack_bytes));
        ASSERT_EQ(server.receive_ack(ack_bytes.bytes(), now_ms), WireError::Ok);
    }
    void round(const Keys& relevant, double now_ms = 0.0) {
        ASSERT_EQ(send(relevant, now_ms), StreamStatus::Ok);
        ASSERT_EQ(deliver(), WireError::Ok);
        ack(now_ms);
    }
    Keys held() const {
        Keys out;
        client.mirror().keys(out);
        return out;
    }

    DeltaStream server;
    DeltaReceiver<Vec2> client;
    ByteWriter frame, ack_bytes;
};

TEST(DeltaStream, TheDefaultFrontierIsAnyReceived) {
    EXPECT_EQ(DeltaStreamOptions{}.frontier, AckFrontier::AnyReceived);
    EXPECT_EQ(DeltaBaselineOptions{}.frontier, AckFrontier::AnyReceived);
    EXPECT_EQ(DeltaStream{}.baseline().options().frontier, AckFrontier::AnyReceived);
}

TEST(DeltaStream, OneSetOfOptionsGivesThePlannerAndTheWireTheSameFrameLimit) {
    const DeltaStreamOptions o{.max_frame_bytes = 300, .position_step = 0.5f, .position_max_abs = 1000.0f};
    EXPECT_TRUE(o.validate().empty());
    EXPECT_EQ(o.baseline().max_frame_bytes, 300u);
    EXPECT_EQ(o.wire().max_frame_bytes, 300u);
    EXPECT_EQ(o.baseline().entered_value_bytes, o.wire().position_bytes_bound(1000.0f));
    EXPECT_EQ(DeltaStreamOptions{.positions = false}.baseline().entered_value_bytes, 0u);
    EXPECT_FALSE(DeltaStreamOptions{.max_frame_bytes = 10}.validate().empty());
    EXPECT_FALSE(DeltaStreamOptions{.position_max_abs = 0.0f}.validate().empty());
    EXPECT_FALSE(DeltaStreamOptions{.history = 0}.validate().empty());
    EXPECT_STREQ(to_string(StreamStatus::Throttled), "throttled");
}

TEST(DeltaStream, AFrameCarriesTheEnteredKeysWithTheirPositions) {
    Pair p;
    p.round(slots({3, 5, 8}));
    EXPECT_EQ(p.held(), slots({3, 5, 8}));
    ASSERT_NE(p.client.mirror().get(SlotKey{5, 0}), nullptr);
    EXPECT_EQ(*p.client.mirror().get(SlotKey{5, 0}), (Vec2{5.0f, 0.0f}));
    EXPECT_TRUE(p.client.agreed());
    EXPECT_EQ(p.server.counters().frames, 1u);
    EXPECT_EQ(p.server.counters().frame_bytes, p.frame.size());
    EXPECT_EQ(p.server.counters().acks, 1u);
    EXPECT_EQ(p.client.counters().frames, 1u);
}

TEST(DeltaStream, EnteredAndLeftNameWhatEachFrameChanged) {
    Pair p;
    p.round(slots({1, 2, 3}));
    EXPECT_EQ(p.client.entered(), unpacked(slots({1, 2, 3})));
    EXPECT_TRUE(p.client.left().empty());
    p.round(slots({2, 3, 4}));
    EXPECT_EQ(p.client.entered(), unpacked(slots({4})));
    EXPECT_EQ(p.client.left(), unpacked(slots({1})));
    p.round(slots({2, 3, 4}));  // nothing changed
    EXPECT_TRUE(p.client.entered().empty());
    EXPECT_TRUE(p.client.left().empty());
}

TEST(DeltaStream, ASlotsNewOccupantLeavesTheOldOneAndEntersTheNew) {
    Pair p;
    p.round(slots({1, 2}));
    // Slot 2 is reused: its old occupant died and the new one is relevant in the same frame.
    p.round({SlotKey{1, 0}.encode(), SlotKey{2, 1}.encode()});
    EXPECT_EQ(p.client.entered(), (std::vector<SlotKey>{{2, 1}}));
    EXPECT_EQ(p.client.left(), (std::vector<SlotKey>{{2, 0}}));
    EXPECT_EQ(p.held(), (Keys{SlotKey{1, 0}.encode(), SlotKey{2, 1}.encode()}));
}

TEST(DeltaStream, AFullBaselineReportsTheDifferenceFromWhatWasHeld) {
    Pair p;
    p.round(slots({1, 2, 3}));
    p.server.baseline().request_full_baseline();
    p.round(slots({2, 3, 9}));
    EXPECT_TRUE(p.server.last_plan().full_baseline);
    EXPECT_EQ(p.client.entered(), unpacked(slots({9})));
    EXPECT_EQ(p.client.left(), unpacked(slots({1})));
}

TEST(DeltaStream, ALostFrameIsCarriedAgainByTheNextOne) {
    Pair p;
    p.round(slots({1, 2}));
    ASSERT_EQ(p.send(slots({1, 2, 7})), StreamStatus::Ok);  // lost
    p.round(slots({1, 2, 7, 8}));
    EXPECT_EQ(p.held(), slots({1, 2, 7, 8}));
    EXPECT_EQ(p.client.entered(), unpacked(slots({7, 8})));
    EXPECT_TRUE(p.client.agreed());
}

TEST(DeltaStream, AVisibilitySetAndItsKeyFunctionGiveTheSameFrameAsPackedKeys) {
    DeltaStream by_keys, by_set;
    ByteWriter a, b;
    std::vector<std::uint16_t> generation(200, 0);
    for (std::uint32_t i = 0; i < 200; i += 3) generation[i] = static_cast<std::uint16_t>(i % 7);
    VisibilitySet set;
    Keys keys;
    for (std::uint32_t i : {4u, 9u, 33u, 150u, 151u, 199u}) {
        set.insert(i);
        keys.push_back(SlotKey{i, generation[i]}.encode());
    }
    ASSERT_EQ(by_keys.frame(keys, position_of, 0.0, a), StreamStatus::Ok);
    ASSERT_EQ(by_set.frame(
                  set,
                  [&](std::uint32_t i) {
                      return SlotKey{i, generation[i]};
                  },
                  position_of, 0.0, b),
              StreamStatus::Ok);
    EXPECT_EQ(std::vector<std::uint8_t>(a.bytes().begin(), a.bytes().end()),
              std::vector<std::uint8_t>(b.bytes().begin(), b.bytes().end()));
}

TEST(DeltaStream, ASetTooLargeForOneFrameIsSpreadOverFramesThatFit) {
    const DeltaStreamOptions options{.max_frame_bytes = 96, .position_max_abs = 512.0f};
    Pair p(options);
    Keys world;
    for (std::uint32_t i = 0; i < 120; ++i) world.push_back(SlotKey{i * 3, 0}.encode());
    int frames = 0;
    while (p.held() != world && frames < 100) {
        p.round(world);
        EXPECT_LE(p.frame.size(), 96u) << "frame " << frames;
        ++frames;
    }
    EXPECT_EQ(p.held(), world);
    EXPECT_GT(frames, 5) << "120 keys with positions cannot fit one 96-byte frame";
    EXPECT_GT(p.server.baseline().counters().spread_frames, 0u);
    EXPECT_LE(p.server.counters().largest_frame_bytes, 96u);
    EXPECT_EQ(p.server.counters().refused, 0u);
}

TEST(DeltaStream, APerCallLimitTightensOneFrameOnly) {
    Pair p;
    Keys world;
    for (std::uint32_t i = 0; i < 100; ++i) world.push_back(SlotKey{i, 0}.encode());
    ASSERT_EQ(p.server.frame(world, position_of, 0.0, p.frame, 80), StreamStatus::Ok);
    EXPECT_LE(p.frame.size(), 80u);
    EXPECT_LT(p.server.last_plan().entered.size(), world.size());
    ASSERT_EQ(p.deliver(), WireError::Ok);
    p.ack();
    // The next frame has the whole 1,200 bytes again and carries the rest.
    p.round(world);
    EXPECT_GT(p.frame.size(), 80u);
    EXPECT_EQ(p.held(), world);
}

TEST(DeltaStream, ASilentSubscriberIsThrottledToKeepalivesAndItsNextAckResumesIt) {
    Pair p({.stalled_after_ms = 3000.0, .keepalive_every_ms = 1000.0});
    const Keys world = slots({1, 2, 3});
    int written = 0;
    double t = 0.0;
    for (; t < 10000.0; t += 50.0) {
        const StreamStatus s = p.send(world, t);
        if (s == StreamStatus::Ok && t < 500.0) {
            ASSERT_EQ(p.deliver(), WireError::Ok);
            p.ack(t);
        }
        if (t >= 5000.0 && s == StreamStatus::Ok) ++written;
        if (s == StreamStatus::Throttled) {
            EXPECT_EQ(p.frame.size(), 0u);
        }
    }
    EXPECT_TRUE(p.server.baseline().stalled(t));
    EXPECT_GE(written, 4);
    EXPECT_LE(written, 6);  // one keepalive a second
    EXPECT_GT(p.server.counters().throttled, 100u);
    // The client speaks again: the resume signal, and the next frame is a full baseline.
    ASSERT_TRUE(p.client.write_ack(p.ack_bytes));
    EXPECT_EQ(p.server.observe_ack(*p.client.report(), t), AckOutcome::Resumed);
    ASSERT_EQ(p.send(world, t), StreamStatus::Ok);
    EXPECT_TRUE(p.server.last_plan().full_baseline);
}

// The trap the single entry point removes: acknowledging without the time left a flow-
// controlled subscriber silent to its baseline, throttled to keepalives while it acked every
// frame. Every report now counts as liveness.
TEST(DeltaStream, AnAcknowledgingSubscriberUnderFlowControlIsNeverThrottled) {
    Pair p({.stalled_after_ms = 3000.0, .keepalive_every_ms = 1000.0});
    const Keys world = slots({1, 2, 3});
    int written = 0;
    for (double t = 0.0; t < 660 * 62.5; t += 62.5) {
        if (p.send(world, t) != StreamStatus::Ok) continue;
        ++written;
        ASSERT_EQ(p.deliver(), WireError::Ok);
        p.ack(t);
    }
    EXPECT_EQ(written, 660);
    EXPECT_EQ(p.server.counters().throttled, 0u);
}

TEST(DeltaStream, BadBytesAreRefusedByBothEndsAndChangeNothing) {
    Pair p;
    p.round(slots({1, 2}));
    const Keys before = p.held();
    const std::uint64_t acks = p.server.counters().acks;
    ASSERT_EQ(p.send(slots({1, 2, 5})), StreamStatus::Ok);
    std::vector<std::uint8_t> bytes(p.frame.bytes().begin(), p.frame.bytes().end());
    // Truncated, a wrong type, trailing garbage, nothing at all.
    EXPECT_EQ(p.client.apply(std::span(bytes).first(bytes.size() - 1)), WireError::Truncated);
    std::vector<std::uint8_t> wrong = bytes;
    wrong[0] = 0x00;
    EXPECT_EQ(p.client.apply(wrong), WireError::UnknownType);
    std::vector<std::uint8_t> trailing = bytes;
    trailing.push_back(0);
    EXPECT_EQ(p.client.apply(trailing), WireError::TrailingBytes);
    EXPECT_NE(p.client.apply(std::span<const std::uint8_t>{}), WireError::Ok);
    EXPECT_EQ(p.held(), before);
    EXPECT_TRUE(p.client.entered().empty());
    EXPECT_EQ(p.client.counters().bad_frames, 4u);
    // The server refuses a bad acknowledgement and one naming a frame never sent.
    const std::vector<std::uint8_t> junk{0x41, 0xff};
    EXPECT_NE(p.server.receive_ack(junk, 0.0), WireError::Ok);
    EXPECT_EQ(p.server.observe_ack({.newest = 999, .mask = 0, .digest = 0}, 0.0), AckOutcome::Rejected);
    EXPECT_EQ(p.server.counters().bad_acks, 2u);
    EXPECT_EQ(p.server.counters().acks, acks);
    // The good frame still applies.
    EXPECT_EQ(p.client.apply(bytes), WireError::Ok);
    EXPECT_EQ(p.held(), slots({1, 2, 5}));
}

TEST(DeltaStream, AFrameTheEncoderRefusesIsEmptyAndCountsAsLost) {
    Pair p;
    p.round(slots({1}));
    const auto nan_at_4 = [](SlotKey k) {
        return k.index == 4 ? Vec2{std::numeric_limits<float>::quiet_NaN(), 0.0f} : position_of(k);
    };
    EXPECT_EQ(p.server.frame(slots({1, 4}), nan_at_4, 0.0, p.frame), StreamStatus::Refused);
    EXPECT_EQ(p.frame.size(), 0u);
    EXPECT_EQ(p.server.counters().refused, 1u);
    // The next frame re-derives what the refused one carried.
    p.round(slots({1, 4}));
    EXPECT_EQ(p.held(), slots({1, 4}));
}

TEST(DeltaStream, WithoutPositionsAReceiverMakesItsOwnValues) {
    const DeltaStreamOptions options{.positions = false};
    DeltaStream server(options);
    DeltaReceiver<int> client(options);
    ByteWriter frame;
    ASSERT_EQ(server.frame(slots({2, 6}), 0.0, frame), StreamStatus::Ok);
    ASSERT_EQ(client.apply(frame.bytes(), [](SlotKey k, Vec2) { return static_cast<int>(k.index) * 10; }),
              WireError::Ok);
    ASSERT_NE(client.mirror().get(SlotKey{6, 0}), nullptr);
    EXPECT_EQ(*client.mirror().get(SlotKey{6, 0}), 60);
}

// The pair over a real (simulated) lossy link both ways: a churning world, 20% loss,
// reordering and duplication, then a healed link; the client must end holding the server's
// relevant set exactly, with its digest agreeing, and the entered/left events alone must
// rebuild the same set.
TEST(DeltaStream, OverALossyLinkTheReceiverConvergesToTheServersSet) {
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        scenario::ChurnWorld world(
            {.seed = seed, .entities = 200, .world_size = 600.0f, .deaths_per_sec = 0.3f, .speed = 40.0f});
        const DeltaStreamOptions options{
            .stalled_after_ms = 3000.0, .max_frame_bytes = 400, .position_max_abs = 400.0f};
        DeltaStream server(options);
        DeltaReceiver<Vec2> client(options);
        LossyLinkOptions lossy{.seed = seed,
                               .latency_ms = 40.0,
                               .jitter_ms = 20.0,
                               .loss = 0.2f,
                               .reorder = 0.1f,
                               .reorder_ms = 30.0,
                               .duplicate = 0.05f};
        LossyLink down(lossy);
        lossy.seed = mix64(seed);
        LossyLink up(lossy);
        Keys relevant, held;
        std::set<std::uint64_t> from_events;
        ByteWriter out;
        std::vector<std::uint8_t> packet;
        for (int f = 0; f < 300; ++f) {
            const double now = f * 50.0;
            if (f == 200) {
                down.set_options(scenario::healed(down.options()));
                up.set_options(scenario::healed(up.options()));
            }
            while (up.poll(now, packet)) server.receive_ack(packet, now);
            world.step(0.05f);
            if (f < 280) world.relevant(relevant);  // the world holds still for the last frames
            const StreamStatus s = server.frame(
                relevant, [&](SlotKey k) { return world.position(k.encode()); }, now, out);
            ASSERT_NE(s, StreamStatus::Refused) << "seed " << seed;
            if (s == StreamStatus::Ok) {
                ASSERT_LE(out.size(), 400u) << "seed " << seed;
                down.send(now, out.bytes());
            }
            bool any = false;
            while (down.poll(now, packet)) {
                ASSERT_EQ(client.apply(packet), WireError::Ok) << "seed " << seed;
                // The events replayed on their own reproduce what the mirror holds, through
                // reordering, duplicates and full baselines.
                for (SlotKey k : client.left()) ASSERT_EQ(from_events.erase(k.encode()), 1u) << "seed " << seed;
                for (SlotKey k : client.entered())
                    ASSERT_TRUE(from_events.insert(k.encode()).second) << "seed " << seed;
                any = true;
            }
            if (any && client.write_ack(out)) up.send(now, out.bytes());
        }
        held.clear();
        client.mirror().keys(held);
        EXPECT_EQ(held, relevant) << "seed " << seed;
        EXPECT_EQ(held, Keys(from_events.begin(), from_events.end())) << "seed " << seed;
        EXPECT_TRUE(client.agreed()) << "seed " << seed;
        EXPECT_GT(client.mirror().counters().frames_lost, 0u) << "seed " << seed;
    }
}

#if GTEST_HAS_DEATH_TEST
TEST(DeltaStreamDeathTest, InvalidOptionsAreMisuse) {
    EXPECT_DEATH(DeltaStream({.max_frame_bytes = 10}), "DeltaStream: invalid DeltaStreamOptions");
    EXPECT_DEATH(DeltaReceiver<Vec2>({.history = 99}), "DeltaReceiver: invalid DeltaStreamOptions");
}

TEST(DeltaStreamDeathTest, AFrameWithoutItsPositionsIsMisuse) {
    DeltaStream stream;
    ByteWriter out;
    EXPECT_DEATH(stream.frame(slots({1}), 0.0, out), "needs a position_of");
}

#if VANTAGE_HOT_ASSERTS
TEST(DeltaStreamDeathTest, UnsortedKeysAndAKeyFunctionThatRenamesTheIndexAreMisuse) {
    DeltaStream stream;
    ByteWriter out;
    EXPECT_DEATH(stream.frame(slots({5, 2}), position_of, 0.0, out), "ascending");
    VisibilitySet set;
    set.insert(3);
    EXPECT_DEATH(stream.frame(
                     set,
                     [](std::uint32_t i) {
                         return SlotKey{i + 1, 0};
                     },
                     position_of, 0.0, out),
                 "key_of\\(index\\) must keep the index");
}
#endif
#endif

}  // namespace
}  // namespace vantage
