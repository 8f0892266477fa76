#include <gtest/gtest.h>

#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <vector>

#include "vantage/delta_mirror.hpp"
#include "vantage/random.hpp"
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

int value_of(std::size_t i, SlotKey key) {
    return static_cast<int>(key.index * 100 + i);
}

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

TEST(DeltaMirror, KeysAppliedInAnyOrderAreWalkedInSlotOrder) {
    DeltaMirror<int> m;
    const std::uint32_t far = DeltaMirror<int>::kDenseSlots + 5;  // kept in the map, not the array
    m.apply(frame(0, true, {{9, 0}, {far, 1}, {2, 0}, {40, 3}}), value_of);
    m.apply(frame(1, false, {{1, 0}, {far - 10, 0}}, {{9, 0}}), value_of);
    EXPECT_EQ(held(m), (Keys{SlotKey{1, 0}.encode(), SlotKey{2, 0}.encode(), SlotKey{40, 3}.encode(),
                             SlotKey{far - 10, 0}.encode(), SlotKey{far, 1}.encode()}));
    ASSERT_NE(m.get({far, 1}), nullptr);
    EXPECT_EQ(*m.get({far, 1}), static_cast<int>(far * 100 + 1));
    EXPECT_EQ(m.size(), 5u);
}

// The oracle: the mirror's semantics written the obvious way, one ordered map entry per slot
// ever spoken about (newest frame wins, tombstones, full baselines clear what no newer frame
// said), against the storage the mirror really uses, over random frames that arrive late,
// twice and out of order, with slot indices on both sides of the flat array's end.
struct OracleMirror {
    struct Slot {
        std::uint16_t generation = 0;
        std::uint64_t touched = 0;
        std::optional<int> value;
    };
    std::map<std::uint32_t, Slot> slots;
    std::optional<std::uint64_t> floor;

    void apply(const DeltaPlan& f) {
        if (floor && f.seq < *floor) return;
        if (f.full_baseline) {
            for (auto it = slots.begin(); it != slots.end();) {
                it = it->second.touched <= f.seq ? slots.erase(it) : std::next(it);
            }
            floor = f.seq;
        }
        for (std::uint64_t packed : f.left) {
            const SlotKey k = *SlotKey::decode(packed);
            Slot& s = slots[k.index];
            if (s.touched > f.seq) continue;
            s.touched = f.seq;
            s.value.reset();  // a retraction empties the slot, whatever occupant it held
        }
        for (std::size_t i = 0; i < f.entered.size(); ++i) {
            const SlotKey k = *SlotKey::decode(f.entered[i]);
            Slot& s = slots[k.index];
            if (s.touched > f.seq) continue;
            s = Slot{k.generation, f.seq, value_of(i, k)};
        }
    }
    Keys keys() const {
        Keys out;
        for (const auto& [index, s] : slots) {
            if (s.value) out.push_back(SlotKey{index, s.generation}.encode());
        }
        return out;
    }
};

TEST(DeltaMirror, MatchesTheOrderedMapOracleOverReorderedFrames) {
    for (std::uint64_t seed = 1; seed <= 60; ++seed) {
        XorShift rng(seed);
        DeltaMirror<int> mirror;
        OracleMirror oracle;
        std::vector<DeltaPlan> frames;
        for (std::uint64_t seq = 0; seq < 40; ++seq) {
            DeltaPlan f;
            f.seq = seq;
            f.full_baseline = seq == 0 || rng.chance(0.08f);
            const int n = static_cast<int>(rng.below(12));
            std::map<std::uint32_t, bool> used;  // one mention per slot per frame
            for (int j = 0; j < n; ++j) {
                const std::uint32_t index =
                    rng.chance(0.2f) ? DeltaMirror<int>::kDenseSlots + static_cast<std::uint32_t>(rng.below(8))
                                     : static_cast<std::uint32_t>(rng.below(300));
                if (used[index]) continue;
                used[index] = true;
                const SlotKey k{index, static_cast<std::uint16_t>(rng.below(3))};
                (rng.chance(0.35f) && !f.full_baseline ? f.left : f.entered).push_back(k.encode());
            }
            frames.push_back(f);
        }
        // Arrival order: mostly in order, some late, some twice.
        std::vector<std::size_t> order;
        for (std::size_t i = 0; i < frames.size(); ++i) {
            order.push_back(i);
            if (rng.chance(0.15f))
                order.push_back(static_cast<std::size_t>(rng.below(static_cast<std::uint32_t>(i + 1))));
        }
        for (std::size_t i = 1; i < order.size(); ++i) {
            if (rng.chance(0.2f)) std::swap(order[i - 1], order[i]);
        }
        for (std::size_t step = 0; step < order.size(); ++step) {
            const DeltaPlan& f = frames[order[step]];
            mirror.apply(f, value_of);
            oracle.apply(f);
            ASSERT_EQ(held(mirror), oracle.keys()) << "seed " << seed << " after arrival " << step;
            ASSERT_EQ(mirror.size(), oracle.keys().size()) << "seed " << seed;
            for (const auto& [index, s] : oracle.slots) {
                if (!s.value) continue;
                const int* v = mirror.get({index, s.generation});
                ASSERT_NE(v, nullptr) << "seed " << seed;
                ASSERT_EQ(*v, *s.value) << "seed " << seed;
            }
        }
        ASSERT_EQ(mirror.digest(), SetDigest::from_keys(oracle.keys()).digest()) << "seed " << seed;
    }
}

}  // namespace
}  // namespace vantage
