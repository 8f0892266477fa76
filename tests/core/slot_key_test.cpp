#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "vantage/slot_allocator.hpp"
#include "vantage/slot_key.hpp"

namespace vantage {
namespace {

TEST(SlotKey, AKeySurvivesTheRoundTrip) {
    for (const SlotKey k : {SlotKey{0, 0}, SlotKey{1, 2}, SlotKey{70000, 65535}, SlotKey{0xFFFFFFFFu, 0xFFFF}}) {
        EXPECT_EQ(SlotKey::decode(k.encode()), k);
    }
    EXPECT_EQ((SlotKey{5, 3}.encode()), (5u << 16) | 3u);
    EXPECT_EQ((SlotKey{0xFFFFFFFFu, 0xFFFF}.encode()), kMaxPackedSlotKey);
}

TEST(SlotKey, APackedValueWiderThanFortyEightBitsIsNoKey) {
    EXPECT_FALSE(SlotKey::decode(kMaxPackedSlotKey + 1).has_value());
    EXPECT_FALSE(SlotKey::decode(~std::uint64_t{0}).has_value());
}

TEST(SlotKey, AReusedSlotIsADifferentKey) {
    const SlotKey before{7, 0};
    const SlotKey after{7, 1};
    EXPECT_NE(before, after);
    EXPECT_NE(before.encode(), after.encode());
    EXPECT_TRUE(before.same_slot(after));
    EXPECT_FALSE(before.same_occupant(after));
}

TEST(SlotKey, DroppingTheGenerationMakesAReusedSlotIndistinguishable) {
    const SlotKey before{7, 0};
    const SlotKey after{7, 1};
    EXPECT_EQ(before.ungenerational(), after.ungenerational());
    EXPECT_EQ(before.ungenerational().encode(), after.ungenerational().encode());
}

TEST(SlotKey, KeysOrderBySlotThenOccupantAndTheEncodingSortsTheSame) {
    const std::vector<SlotKey> sorted{{0, 5}, {1, 0}, {1, 1}, {2, 65535}, {3, 0}};
    for (std::size_t i = 1; i < sorted.size(); ++i) {
        EXPECT_LT(sorted[i - 1], sorted[i]);
        EXPECT_LT(sorted[i - 1].encode(), sorted[i].encode());
    }
}

TEST(SlotAllocator, AFreedIndexComesBackUnderANewOccupant) {
    SlotAllocator a;
    const SlotKey first = a.alloc();
    ASSERT_TRUE(a.free(first));
    const SlotKey second = a.alloc();
    EXPECT_EQ(second.index, first.index);
    EXPECT_NE(second.generation, first.generation);
    EXPECT_FALSE(a.is_live(first));
    EXPECT_TRUE(a.is_live(second));
}

TEST(SlotAllocator, AStaleHandleCannotFreeWhoeverTookTheSlot) {
    SlotAllocator a;
    const SlotKey old = a.alloc();
    a.free(old);
    const SlotKey fresh = a.alloc();
    EXPECT_FALSE(a.free(old));
    EXPECT_TRUE(a.is_live(fresh));
    EXPECT_EQ(a.live_count(), 1u);
}

TEST(SlotAllocator, FreeingTwiceIsRefused) {
    SlotAllocator a;
    const SlotKey k = a.alloc();
    EXPECT_TRUE(a.free(k));
    EXPECT_FALSE(a.free(k));
    EXPECT_EQ(a.live_count(), 0u);
}

TEST(SlotAllocator, FreeingANeverAllocatedKeyIsRefused) {
    SlotAllocator a;
    EXPECT_FALSE(a.free(SlotKey{3, 0}));
    a.alloc();
    EXPECT_FALSE(a.free(SlotKey{0, 9}));
    EXPECT_EQ(a.live_count(), 1u);
}

TEST(SlotAllocator, TheGenerationBumpsOnFreeEvenIfTheSlotIsNeverReused) {
    SlotAllocator a;
    const SlotKey k = a.alloc();
    a.free(k);
    EXPECT_FALSE(a.is_live(k));
    EXPECT_FALSE(a.key(k.index).has_value());
    EXPECT_FALSE(a.is_occupied(k.index));
    // The next occupant of that index will carry generation 1.
    EXPECT_EQ(a.alloc().generation, 1u);
}

TEST(SlotAllocator, TheIndexSpaceSettlesAtTheHighWaterMark) {
    SlotAllocator a;
    std::vector<SlotKey> live;
    for (int i = 0; i < 1000; ++i) {
        if (live.size() == 10) {
            a.free(live.front());
            live.erase(live.begin());
        }
        live.push_back(a.alloc());
    }
    EXPECT_EQ(a.index_space(), 10u);
    EXPECT_EQ(a.live_count(), 10u);
}

TEST(SlotAllocator, TheReusePolicyDecidesTheOrderIndicesComeBack) {
    for (const ReusePolicy policy : {ReusePolicy::Lifo, ReusePolicy::Fifo}) {
        SlotAllocator a(policy);
        std::vector<SlotKey> keys;
        for (int i = 0; i < 4; ++i) keys.push_back(a.alloc());
        for (const SlotKey k : keys) a.free(k);
        EXPECT_EQ(a.alloc().index, policy == ReusePolicy::Lifo ? 3u : 0u);
    }
    EXPECT_EQ(SlotAllocator{}.policy(), ReusePolicy::Lifo);
}

TEST(SlotAllocator, TheFreeListKeepsItsOrderWhileItGrowsWrappedAround) {
    // The free list is a ring: take some from its front, then free enough to grow it while
    // its oldest entry is not at the start of the buffer.
    for (const ReusePolicy policy : {ReusePolicy::Lifo, ReusePolicy::Fifo}) {
        SlotAllocator a(policy);
        std::vector<SlotKey> keys;
        for (int i = 0; i < 40; ++i) keys.push_back(a.alloc());
        for (int i = 0; i < 10; ++i) a.free(keys[static_cast<std::size_t>(i)]);
        std::vector<std::uint32_t> first;
        for (int i = 0; i < 5; ++i) first.push_back(a.alloc().index);
        for (int i = 10; i < 40; ++i) a.free(keys[static_cast<std::size_t>(i)]);
        std::vector<std::uint32_t> rest;
        while (a.live_count() < 40) rest.push_back(a.alloc().index);
        std::vector<std::uint32_t> want_first, want_rest;
        if (policy == ReusePolicy::Fifo) {
            for (std::uint32_t i = 0; i < 5; ++i) want_first.push_back(i);
            for (std::uint32_t i = 5; i < 40; ++i) want_rest.push_back(i);
        } else {
            for (int i = 9; i >= 5; --i) want_first.push_back(static_cast<std::uint32_t>(i));
            for (int i = 39; i >= 10; --i) want_rest.push_back(static_cast<std::uint32_t>(i));
            for (int i = 4; i >= 0; --i) want_rest.push_back(static_cast<std::uint32_t>(i));
        }
        EXPECT_EQ(first, want_first) << (policy == ReusePolicy::Fifo ? "fifo" : "lifo");
        EXPECT_EQ(rest, want_rest) << (policy == ReusePolicy::Fifo ? "fifo" : "lifo");
        EXPECT_EQ(a.index_space(), 40u);
    }
}

TEST(SlotAllocator, LiveKeysAreEnumerableAndCountable) {
    SlotAllocator a;
    std::vector<SlotKey> keys;
    for (int i = 0; i < 5; ++i) keys.push_back(a.alloc());
    a.free(keys[1]);
    a.free(keys[3]);
    std::vector<SlotKey> live;
    a.live_keys(live);
    EXPECT_EQ(live, (std::vector<SlotKey>{keys[0], keys[2], keys[4]}));
    EXPECT_EQ(a.live_count(), 3u);
    EXPECT_EQ(a.key(2), keys[2]);
    EXPECT_TRUE(a.is_occupied(4));
    EXPECT_FALSE(a.is_occupied(99));
}

TEST(SlotAllocator, ClearingInvalidatesEveryOutstandingHandle) {
    SlotAllocator a;
    std::vector<SlotKey> keys;
    for (int i = 0; i < 6; ++i) keys.push_back(a.alloc());
    a.clear();
    EXPECT_EQ(a.live_count(), 0u);
    for (const SlotKey k : keys) {
        EXPECT_FALSE(a.is_live(k));
        EXPECT_FALSE(a.free(k));
    }
    for (int i = 0; i < 6; ++i) EXPECT_EQ(a.alloc().generation, 1u);
    EXPECT_EQ(a.index_space(), 6u);
}

TEST(SlotAllocator, TheGenerationWrapsAfterSixtyFiveThousandFiveHundredThirtySixReuses) {
    SlotAllocator a;
    SlotKey k = a.alloc();
    const SlotKey original = k;
    for (int i = 0; i < 65535; ++i) {
        a.free(k);
        k = a.alloc();
    }
    EXPECT_EQ(k.generation, 65535u);
    a.free(k);
    k = a.alloc();
    // The documented ceiling: the 65,536th reuse makes the original handle valid again.
    EXPECT_EQ(k.generation, 0u);
    EXPECT_TRUE(a.is_live(original));
}

}  // namespace
}  // namespace vantage
