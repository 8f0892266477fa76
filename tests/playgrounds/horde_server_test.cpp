// The horde's two halves over a scripted link (fixed delay, chosen frames dropped): what a
// lost entry costs once its repeats travel without positions (horde_wire.hpp), and what a
// client does with a repeat on its own (horde_client.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <vector>

#include "horde/horde_client.hpp"
#include "horde/horde_server.hpp"
#include "horde/horde_world.hpp"
#include "vantage/set_digest.hpp"
#include "vantage/slot_key.hpp"

namespace vantage::play {
namespace {

// One direction: every message delivered delay_ms after it was sent, unless drop(bytes) says not.
class ScriptedLink final : public Transport {
public:
    explicit ScriptedLink(double delay_ms) : delay_ms_(delay_ms) {}
    std::function<bool(std::span<const std::uint8_t>)> drop;
    void send(double now_ms, std::span<const std::uint8_t> bytes) override {
        if (drop && drop(bytes)) return;
        queue_.push_back({now_ms + delay_ms_, {bytes.begin(), bytes.end()}});
    }
    bool poll(double now_ms, std::vector<std::uint8_t>& out) override {
        if (queue_.empty() || queue_.front().due_ms > now_ms) return false;
        out = std::move(queue_.front().bytes);
        queue_.pop_front();
        return true;
    }

private:
    struct Message {
        double due_ms;
        std::vector<std::uint8_t> bytes;
    };
    double delay_ms_;
    std::deque<Message> queue_;
};

// A server end and a client end over two ScriptedLinks.
struct ScriptedPair {
    ScriptedLink down, up;
    struct End final : Transport {
        ScriptedLink& out;
        ScriptedLink& in;
        End(ScriptedLink& o, ScriptedLink& i) : out(o), in(i) {}
        void send(double now_ms, std::span<const std::uint8_t> bytes) override { out.send(now_ms, bytes); }
        bool poll(double now_ms, std::vector<std::uint8_t>& bytes) override { return in.poll(now_ms, bytes); }
    };
    End server{down, up}, client{up, down};
    explicit ScriptedPair(double delay_ms) : down(delay_ms), up(delay_ms) {}
};

// One player's stream at 16 Hz over 40 ms each way (a round trip of 80 ms, more than a frame):
// the first frame after warm-up that enters four keys or more with their positions is dropped, and with
// `drop_again` also the next frame that sends any of those positions. Returns how long after
// the drop the client first held every one of those keys still relevant, drawn, within 4 units
// of the truth (-1: never, in 8 s), and counts what the server sent for them.
struct Repair {
    double after_ms = -1;
    std::size_t repeats = 0, positioned_again = 0, absolute_corrections = 0;
    std::uint64_t unresolved = 0;
    bool agreed = false;
};

Repair lose_an_entry(bool drop_again) {
    HordeWorld world({.seed = 5, .enemies = 800, .players = 1});
    HordeRoundBuilder rounds;
    HordeServerHalf server(DeltaBaselineOptions{.history = 24});
    HordeClientHalf client;
    HordeServeScratch scratch;
    HordeClientScratch client_scratch;
    ScriptedPair link(40.0);
    Repair out;
    bool armed = false, dropped = false, dropped_again = false;
    std::vector<std::uint64_t> lost_keys;  // entered with positions by the dropped frame
    HordePacket decoded;
    link.down.drop = [&](std::span<const std::uint8_t> bytes) {
        if (decode_horde_packet(bytes, decoded) != WireError::Ok) return false;
        const DeltaPlan& plan = decoded.delta.plan;
        auto lost = [&](std::uint64_t k) { return std::binary_search(lost_keys.begin(), lost_keys.end(), k); };
        if (armed && !dropped && !plan.full_baseline) {
            for (std::size_t i = 0; i < plan.entered.size(); ++i) {
                if (decoded.repeated.empty() || decoded.repeated[i] == 0) lost_keys.push_back(plan.entered[i]);
            }
            // Several, so that round-robin turns alone would not repair them all in one frame.
            dropped = lost_keys.size() >= 4;
            if (!dropped) lost_keys.clear();
            return dropped;
        }
        if (!dropped) return false;
        bool positions = false;
        for (std::size_t i = 0; i < plan.entered.size(); ++i) {
            if (!lost(plan.entered[i])) continue;
            const bool repeat = !decoded.repeated.empty() && decoded.repeated[i] != 0;
            out.repeats += repeat ? 1 : 0;
            out.positioned_again += repeat ? 0 : 1;
            positions = positions || !repeat;
        }
        for (const HordeCorrection& c : decoded.corrections) {
            const bool for_lost = std::any_of(lost_keys.begin(), lost_keys.end(),
                                              [&](std::uint64_t k) { return SlotKey::decode(k)->index == c.index; });
            out.absolute_corrections += for_lost && c.age == 0 ? 1 : 0;
            positions = positions || (for_lost && c.age == 0);
        }
        if (drop_again && positions && !dropped_again) {
            dropped_again = true;
            return true;
        }
        return false;
    };

    const double dt_s = 1.0 / 60.0;
    double next_send_ms = 0, dropped_at_ms = -1;
    for (int tick = 0; tick < 60 * 8 && out.after_ms < 0; ++tick) {
        world.step(dt_s);
        const double now_ms = world.time_s() * 1000.0;
        armed = now_ms > 3000.0;
        if (now_ms + 1e-6 >= next_send_ms) {
            next_send_ms += 62.5;
            const bool before = dropped;
            server.serve(rounds.build(world, 420.0f, false, false, now_ms), 0, {}, link.server, scratch);
            if (!before && dropped) dropped_at_ms = now_ms;
        }
        client.receive(link.client, now_ms, client_scratch);
        client.advance(static_cast<float>(dt_s), world.tick());
        if (!dropped || now_ms <= dropped_at_ms) continue;
        bool all = true;
        for (std::uint64_t k : lost_keys) {
            const std::vector<std::uint64_t>& relevant = rounds.relevant(0);
            if (!world.alive(k) || !std::binary_search(relevant.begin(), relevant.end(), k)) continue;
            const HeldEnemy* h = client.mirror().get(*SlotKey::decode(k));
            if (!h || h->awaiting || distance(h->position, world.position_at(SlotKey::decode(k)->index)) > 4.0f) {
                all = false;
            }
        }
        if (all) out.after_ms = now_ms - dropped_at_ms;
    }
    out.unresolved = client.unresolved();
    out.agreed = client.agreed();
    return out;
}

// The lost entry's keys repeat without positions in the next frame (sent before any word of the
// loss); the frame after that is as many frames on as an acknowledgement takes to come back,
// with none for the entry, so it sends the positions again: lost at t, repaired by the frame
// sent at t + 125 ms, 40 ms on, within a tick or two.
TEST(HordeServerHalf, ALostEntryFrameIsRepairedAfterItsPositionlessRepeats) {
    const Repair r = lose_an_entry(false);
    EXPECT_GT(r.repeats, 0u);
    ASSERT_GE(r.after_ms, 0.0) << "never repaired";
    EXPECT_LE(r.after_ms, 2 * 62.5 + 40.0 + 2 * 1000.0 / 60.0);
    EXPECT_EQ(r.unresolved, 0u);
    EXPECT_TRUE(r.agreed);
}

// The positions sent again are lost too, after the client acknowledged holding the keys (the
// repeat arrived): they are no longer entered, and once the acknowledgements show both losses
// each gets an absolute correction in the next frame, not at its round-robin turn.
TEST(HordeServerHalf, AnEnemyHeldWithoutAPositionIsCorrectedFirstThing) {
    const Repair r = lose_an_entry(true);
    EXPECT_GT(r.repeats, 0u);
    EXPECT_GT(r.absolute_corrections, 0u);
    ASSERT_GE(r.after_ms, 0.0) << "never repaired";
    // Second loss at t + 125; its report reaches the server after t + 250, so the frame at
    // t + 312.5 corrects, 40 ms on (at round-robin turns alone the last of them waits until 416 ms).
    EXPECT_LE(r.after_ms, 5 * 62.5 + 40.0 + 2 * 1000.0 / 60.0);
    EXPECT_EQ(r.unresolved, 0u);
    EXPECT_TRUE(r.agreed);
}

// Without loss an entered key's second naming (its frame not yet acknowledged) is a repeat, and
// no client ever waits for a position.
TEST(HordeServerHalf, WithoutLossRepeatsTravelWithoutPositionsAndNothingAwaits) {
    HordeWorld world({.seed = 9, .enemies = 800, .players = 1});
    HordeRoundBuilder rounds;
    HordeServerHalf server(DeltaBaselineOptions{.history = 24});
    HordeClientHalf client;
    HordeServeScratch scratch;
    HordeClientScratch client_scratch;
    ScriptedPair link(40.0);
    std::size_t repeats = 0, entered = 0, awaiting_seen = 0;
    double next_send_ms = 0;
    for (int tick = 0; tick < 60 * 5; ++tick) {
        world.step(1.0 / 60.0);
        const double now_ms = world.time_s() * 1000.0;
        if (now_ms + 1e-6 >= next_send_ms) {
            next_send_ms += 62.5;
            const HordeSent s =
                server.serve(rounds.build(world, 420.0f, false, false, now_ms), 0, {}, link.server, scratch);
            repeats += s.repeats;
            entered += s.entered;
        }
        client.receive(link.client, now_ms, client_scratch);
        client.advance(1.0f / 60.0f, world.tick());
        awaiting_seen += client.awaiting();
    }
    EXPECT_GT(repeats, 0u);
    EXPECT_LT(repeats, entered);
    EXPECT_EQ(awaiting_seen, 0u);
    EXPECT_TRUE(client.agreed());
    EXPECT_EQ(client.unresolved(), 0u);
}

// The client on its own: frames built by hand and applied in the order given.
struct Frames {
    std::vector<Vec2> players{{0.0f, 0.0f}};
    std::vector<std::uint8_t> frame(std::uint64_t seq, std::uint64_t baseline, std::uint64_t time_ms,
                                    std::vector<std::uint64_t> entered, std::vector<Vec2> positions,
                                    std::vector<std::uint8_t> repeated, std::vector<std::uint64_t> set,
                                    std::vector<HordeCorrection> corrections = {}) {
        DeltaPlan plan;
        plan.seq = seq;
        plan.baseline_seq = baseline;
        plan.entered = std::move(entered);
        plan.digest = SetDigest::from_keys(set).digest();
        ByteWriter w, nested;
        const HordePacketBytes sizes = encode_horde_packet(w, nested, time_ms, plan, positions, players, 0,
                                                           CorrectionCoding::Predicted, corrections, {}, repeated);
        EXPECT_TRUE(sizes.ok);
        return {w.bytes().begin(), w.bytes().end()};
    }
};

TEST(HordeClientHalf, ARepeatOfAnEnemyItHoldsKeepsItsValue) {
    Frames f;
    const std::uint64_t k = SlotKey{7, 3}.encode();
    HordeClientHalf client;
    HordeClientScratch scratch;
    ASSERT_TRUE(client.apply_frame(f.frame(1, 0, 1000, {k}, {{100.0f, 50.0f}}, {}, {k}), 1000.0, scratch));
    client.advance(0.05f, 1);
    const HeldEnemy before = *client.mirror().get(SlotKey{7, 3});
    ASSERT_TRUE(client.apply_frame(f.frame(2, 0, 1062, {k}, {{0.0f, 0.0f}}, {1}, {k}), 1062.0, scratch));
    const HeldEnemy* after = client.mirror().get(SlotKey{7, 3});
    ASSERT_NE(after, nullptr);
    EXPECT_FALSE(after->awaiting);
    EXPECT_EQ(after->position, before.position);
    EXPECT_EQ(after->sent.count, before.sent.count);
    EXPECT_EQ(client.awaiting(), 0u);
    EXPECT_TRUE(client.agreed());
}

// A repeat that arrives before the frame with the position (or instead of it): the enemy is a
// member but awaits its position; the late frame, or an absolute correction, ends that.
TEST(HordeClientHalf, ARepeatOfAnEnemyItDoesNotHoldAwaitsItsPosition) {
    Frames f;
    const std::uint64_t k = SlotKey{7, 3}.encode();
    for (const bool late_entry : {true, false}) {
        HordeClientHalf client;
        HordeClientScratch scratch;
        ASSERT_TRUE(client.apply_frame(f.frame(2, 0, 1062, {k}, {{0.0f, 0.0f}}, {1}, {k}), 1062.0, scratch));
        const HeldEnemy* h = client.mirror().get(SlotKey{7, 3});
        ASSERT_NE(h, nullptr);
        EXPECT_TRUE(h->awaiting);
        EXPECT_EQ(client.awaiting(), 1u);
        EXPECT_TRUE(client.agreed()) << "membership is exact whatever the position";
        if (late_entry) {
            ASSERT_TRUE(client.apply_frame(f.frame(1, 0, 1000, {k}, {{100.0f, 50.0f}}, {}, {k}), 1062.0, scratch));
        } else {
            // Frame 3 names nothing new (the set is unchanged) and corrects slot 7 absolutely.
            ASSERT_TRUE(
                client.apply_frame(f.frame(3, 2, 1125, {}, {}, {}, {k}, {{7, 3, 0, 1600, 800}}), 1125.0, scratch));
        }
        h = client.mirror().get(SlotKey{7, 3});
        ASSERT_NE(h, nullptr);
        EXPECT_FALSE(h->awaiting) << (late_entry ? "late entry" : "correction");
        EXPECT_LT(distance(h->position, {100.0f, 50.0f}), 8.0f) << (late_entry ? "late entry" : "correction");
        EXPECT_EQ(client.awaiting(), 0u);
        if (late_entry) {
            EXPECT_NE(h->sent.find(2, 1), nullptr) << "the late entry's value can be named";
        }
    }
}

}  // namespace
}  // namespace vantage::play
