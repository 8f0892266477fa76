#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "vantage/delta_mirror.hpp"
#include "vantage/set_digest.hpp"
#include "vantage/slot_key.hpp"

namespace vantage {
namespace {

using Keys = std::vector<std::uint64_t>;

Keys held(const DeltaMirror<int>& m) {
    Keys out;
    m.keys(out);
    return out;
}

DeltaPlan frame(std::uint64_t seq, bool full, std::vector<SlotKey> entered, std::vector<SlotKey> left = {}) {
    DeltaPlan p;
    p.seq = seq;
    p.full_baseline = full;
    for (SlotKey k : entered) p.entered.push_back(k.encode());
    for (SlotKey k : left) p.left.push_back(k.encode());
    return p;
}

int value_of(std::size_t i, SlotKey key) { return static_cast<int>(key.index * 100 + i); }

TEST(DeltaMirror, WhatTheServerSentIsWhatTheMirrorHolds) {
    DeltaMirror<int> m;
    m.apply(frame(0, true, {{1, 0}, {3, 0}, {7, 2}}), value_of);
    m.apply(frame(1, false, {{4, 1}}, {{3, 0}}), value_of);
    EXPECT_EQ(held(m), (Keys{SlotKey{1, 0}.encode(), SlotKey{4, 1}.encode(), SlotKey{7, 2}.encode()}));
    ASSERT_NE(m.get({4, 1}), nullptr);
    EXPECT_EQ(*m.get({4, 1}), 400);
    EXPECT_EQ(m.size(), 3u);
    EXPECT_FALSE(m.contains({3, 0}));
}

TEST(DeltaMirror, AReferenceToADeadOccupantIsRejectedNotAppliedToItsReplacement) {
    DeltaMirror<int> m;
    m.apply(frame(0, true, {{5, 1}}), value_of);  // slot 5's second occupant
    m.begin(1, false);
    EXPECT_FALSE(m.remove({5, 0}));  // a retraction naming the first occupant
    EXPECT_TRUE(m.contains({5, 1}));
    EXPECT_EQ(m.counters().stale_refs, 1u);
    EXPECT_EQ(m.get_mut({5, 0}), nullptr);
    EXPECT_EQ(m.counters().stale_refs, 2u);
}

TEST(DeltaMirror, WithoutGenerationsTheSameReferenceCorruptsTheMirror) {
    DeltaMirror<int> m;
    m.set_generations(false);
    m.apply(frame(0, true, {{5, 1}}), value_of);
    m.begin(1, false);
    EXPECT_TRUE(m.remove({5, 0}));  // hits the replacement
    EXPECT_TRUE(m.empty());
    EXPECT_EQ(m.counters().stale_refs, 0u);
}

TEST(DeltaMirror, IgnoringGenerationsMakesARecycledSlotLookLikeItsPredecessor) {
    DeltaMirror<int> m;
    m.set_generations(false);
    m.apply(frame(0, true, {{9, 3}}), value_of);
    EXPECT_TRUE(m.contains({9, 0}));
    EXPECT_TRUE(m.contains({9, 7}));
    EXPECT_FALSE(m.generational());
}

TEST(DeltaMirror, SwitchingClearsTheMirrorBecauseTheOldKeysAreUnreachable) {
    DeltaMirror<int> m;
    m.apply(frame(0, true, {{1, 2}, {2, 2}}), value_of);
    m.set_generations(false);
    EXPECT_TRUE(m.empty());
    EXPECT_EQ(m.digest(), SetDigest{}.digest());
}

TEST(DeltaMirror, SwitchingToTheSchemeItAlreadyHasKeepsEverything) {
    DeltaMirror<int> m;
    m.apply(frame(0, true, {{1, 2}, {2, 2}}), value_of);
    m.set_generations(true);
    EXPECT_EQ(m.size(), 2u);
}

TEST(DeltaMirror, AGapInTheSequenceIsCountedAsALostFrame) {
    DeltaMirror<int> m;
    for (std::uint64_t seq : {1u, 2u, 5u}) m.apply(frame(seq, false, {}), value_of);
    EXPECT_EQ(m.counters().frames_lost, 2u);
    EXPECT_EQ(m.applied_seq(), 5u);
}

TEST(DeltaMirror, AFullBaselineReplacesTheMirrorRatherThanMergingIntoIt) {
    DeltaMirror<int> m;
    m.apply(frame(0, true, {{1, 0}, {2, 0}, {3, 0}}), value_of);
    m.apply(frame(1, true, {{3, 0}, {4, 0}}), value_of);
    EXPECT_EQ(held(m), (Keys{SlotKey{3, 0}.encode(), SlotKey{4, 0}.encode()}));
}

TEST(DeltaMirror, TheDigestAgreesWhenBothSidesHoldTheSameSet) {
    DeltaMirror<int> m;
    m.apply(frame(0, true, {{1, 0}, {6, 4}}), value_of);
    m.apply(frame(1, false, {{2, 0}}, {{1, 0}}), value_of);
    const Keys server{SlotKey{2, 0}.encode(), SlotKey{6, 4}.encode()};
    const Agreement a = m.settle(SetDigest::from_keys(server).digest());
    EXPECT_TRUE(a);
    EXPECT_EQ(m.counters().divergences, 0u);
}

TEST(DeltaMirror, ADriftedMirrorIsCaughtByTheDigestAndCanSayHow) {
    DeltaMirror<int> m;
    m.apply(frame(0, true, {{1, 0}, {2, 0}}), value_of);
    const Keys server{SlotKey{2, 0}.encode(), SlotKey{3, 0}.encode()};
    const Agreement a = m.settle(SetDigest::from_keys(server).digest());
    EXPECT_FALSE(a);
    EXPECT_EQ(a.held, m.digest());
    EXPECT_EQ(a.expected, SetDigest::from_keys(server).digest());
    EXPECT_EQ(m.counters().divergences, 1u);
    Divergence d;
    m.divergence_from(server, d);
    EXPECT_EQ(d.extra, (Keys{SlotKey{1, 0}.encode()}));
    EXPECT_EQ(d.missing, (Keys{SlotKey{3, 0}.encode()}));
}

TEST(DeltaMirror, ApplyingTheSamePacketTwiceChangesNothing) {
    DeltaMirror<int> m;
    m.apply(frame(0, true, {{1, 0}, {2, 0}}), value_of);
    const DeltaPlan f = frame(1, false, {{3, 0}}, {{1, 0}});
    m.apply(f, value_of);
    const Keys once = held(m);
    const std::uint64_t digest = m.digest();
    m.apply(f, value_of);
    EXPECT_EQ(held(m), once);
    EXPECT_EQ(m.digest(), digest);
    EXPECT_EQ(m.counters().duplicates, 1u);
}

TEST(DeltaMirror, AcknowledgementsTrackWhatActuallyArrived) {
    DeltaMirror<int> m;
    EXPECT_FALSE(m.ack_report().has_value());
    for (std::uint64_t seq : {0u, 1u, 3u}) m.apply(frame(seq, seq == 0, {}), value_of);
    const AckReport r = *m.ack_report();
    EXPECT_EQ(r.newest, 3u);
    EXPECT_TRUE(m.acks().contains(0));
    EXPECT_TRUE(m.acks().contains(1));
    EXPECT_FALSE(m.acks().contains(2));
    EXPECT_EQ(r.digest, m.digest());
}

TEST(DeltaMirror, ALateFrameNeverUndoesANewerOne) {
    DeltaMirror<int> m;
    m.apply(frame(0, true, {{1, 0}}), value_of);
    const DeltaPlan enters = frame(1, false, {{2, 0}});
    const DeltaPlan leaves = frame(2, false, {}, {{2, 0}});
    m.apply(leaves, value_of);  // reordered: the retraction arrives first...
    m.apply(enters, value_of);  // ...and the older entry must not resurrect it
    EXPECT_EQ(held(m), (Keys{SlotKey{1, 0}.encode()}));
    // The same holds for a slot whose occupant changed.
    m.apply(frame(4, false, {{1, 1}}, {{1, 0}}), value_of);
    m.apply(frame(3, false, {{1, 0}}), value_of);
    EXPECT_EQ(held(m), (Keys{SlotKey{1, 1}.encode()}));
}

TEST(DeltaMirror, AFrameOlderThanTheNewestFullBaselineIsIgnored) {
    DeltaMirror<int> m;
    m.apply(frame(5, true, {{1, 0}}), value_of);
    EXPECT_FALSE(m.apply(frame(4, false, {{9, 0}}, {{1, 0}}), value_of));
    EXPECT_EQ(held(m), (Keys{SlotKey{1, 0}.encode()}));
    EXPECT_EQ(m.counters().frames_superseded, 1u);
    EXPECT_TRUE(m.acks().contains(4));  // still acknowledged: it did arrive
}

TEST(DeltaMirror, AFullBaselineKeepsWhatANewerFrameAlreadySaid) {
    DeltaMirror<int> m;
    m.apply(frame(0, true, {{1, 0}}), value_of);
    m.apply(frame(3, false, {{2, 0}}), value_of);
    m.apply(frame(2, true, {{1, 0}, {7, 0}}), value_of);  // a full baseline overtaken by 3
    EXPECT_EQ(held(m), (Keys{SlotKey{1, 0}.encode(), SlotKey{2, 0}.encode(), SlotKey{7, 0}.encode()}));
}

TEST(DeltaMirror, ClearingDropsTheEntitiesButKeepsTheAcknowledgements) {
    DeltaMirror<int> m;
    m.apply(frame(0, true, {{1, 0}}), value_of);
    m.clear();
    EXPECT_TRUE(m.empty());
    EXPECT_EQ(m.digest(), SetDigest{}.digest());
    EXPECT_TRUE(m.acks().contains(0));
    EXPECT_EQ(m.ack_report()->digest, SetDigest{}.digest());
}

TEST(DeltaMirror, AnUnpackableKeyIsCountedNotApplied) {
    DeltaMirror<int> m;
    DeltaPlan p = frame(0, true, {{1, 0}});
    p.entered.push_back(kMaxPackedSlotKey + 1);
    m.apply(p, value_of);
    EXPECT_EQ(m.size(), 1u);
    EXPECT_EQ(m.counters().invalid_keys, 1u);
}

TEST(DeltaMirror, ValuesCanBeUpdatedInPlace) {
    DeltaMirror<int> m;
    m.apply(frame(0, true, {{1, 0}, {2, 0}}), value_of);
    *m.get_mut({2, 0}) = 42;
    int sum = 0;
    m.for_each([&](SlotKey, const int& v) { sum += v; });
    EXPECT_EQ(sum, 100 + 42);
    m.for_each_mut([](SlotKey, int& v) { v = 1; });
    EXPECT_EQ(*m.get({1, 0}), 1);
}

}  // namespace
}  // namespace vantage
