#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <set>
#include <utility>
#include <vector>

#include "vantage/random.hpp"
#include "vantage/visibility_set.hpp"

namespace vantage {
namespace {

std::vector<std::uint32_t> members(const VisibilitySet& s) {
    return {s.begin(), s.end()};
}

TEST(VisibilitySet, InsertsAndContainsAcrossWords) {
    VisibilitySet s;
    s.insert(70);
    s.insert(3);
    EXPECT_TRUE(s.contains(3));
    EXPECT_TRUE(s.contains(70));
    EXPECT_FALSE(s.contains(4));
    EXPECT_FALSE(s.contains(100000));
    EXPECT_EQ(s.count(), 2u);
    EXPECT_EQ(members(s), (std::vector<std::uint32_t>{3, 70}));
}

TEST(VisibilitySet, TheDiffReportsSpawnsAndDespawns) {
    VisibilitySet previous, current;
    for (std::uint32_t i : {1u, 2u, 3u}) previous.insert(i);
    for (std::uint32_t i : {2u, 3u, 4u, 100u}) current.insert(i);
    std::vector<std::uint32_t> entered, left;
    current.diff(previous, entered, left);
    EXPECT_EQ(entered, (std::vector<std::uint32_t>{4, 100}));
    EXPECT_EQ(left, (std::vector<std::uint32_t>{1}));
}

TEST(VisibilitySet, DiffReplacesWhatTheOutputsHeld) {
    VisibilitySet previous, current;
    current.insert(5);
    std::vector<std::uint32_t> entered = {99}, left = {7};
    current.diff(previous, entered, left);
    EXPECT_EQ(entered, (std::vector<std::uint32_t>{5}));
    EXPECT_TRUE(left.empty());
}

TEST(VisibilitySet, RemovingClearsABitSoAReusedSlotReadsAsAFreshArrival) {
    VisibilitySet previous, current;
    previous.insert(7);
    current.insert(7);
    current.remove(7);
    current.remove(5000);  // absent and beyond the words: a no-op
    std::vector<std::uint32_t> entered, left;
    current.diff(previous, entered, left);
    EXPECT_EQ(left, (std::vector<std::uint32_t>{7}));
    current.insert(7);
    entered.clear();
    left.clear();
    VisibilitySet empty;
    current.diff(empty, entered, left);
    EXPECT_EQ(entered, (std::vector<std::uint32_t>{7}));
}

TEST(VisibilitySet, ClearKeepsTheWords) {
    VisibilitySet s(1000);
    for (std::uint32_t i = 0; i <= VisibilitySet::kListLimit; ++i) s.insert(999 - 3 * i);
    ASSERT_TRUE(s.is_bitset());
    const std::uint64_t* words = s.words().data();
    s.clear();
    EXPECT_TRUE(s.empty());
    EXPECT_FALSE(s.is_bitset());
    EXPECT_EQ(s.count(), 0u);
    EXPECT_EQ(s.words().data(), words);
    EXPECT_EQ(s.begin(), s.end());
    for (std::uint32_t i = 0; i <= VisibilitySet::kListLimit; ++i) s.insert(998 - 2 * i);
    EXPECT_TRUE(s.is_bitset());
    EXPECT_EQ(s.words().data(), words);
}

// A small set is a sorted list however it is filled, and one member past kListLimit moves
// it into the bitset with every member kept; equality ignores the representation.
TEST(VisibilitySet, OneMemberPastTheListLimitMovesTheSetIntoItsBitset) {
    VisibilitySet grown, listed;
    for (std::uint32_t i = 0; i < VisibilitySet::kListLimit; ++i) {
        grown.insert((i * 7919u) % 50000u);
        listed.insert((i * 7919u) % 50000u);
    }
    EXPECT_FALSE(grown.is_bitset());
    EXPECT_TRUE(grown.words().empty());  // a list needs no words
    grown.insert(49999);
    EXPECT_TRUE(grown.is_bitset());
    EXPECT_EQ(grown.count(), VisibilitySet::kListLimit + 1);
    EXPECT_FALSE(grown == listed);
    grown.remove(49999);
    EXPECT_TRUE(grown.is_bitset());
    EXPECT_TRUE(grown == listed);
    EXPECT_TRUE(listed == grown);
    std::vector<std::uint32_t> entered, left;
    grown.diff(listed, entered, left);
    EXPECT_TRUE(entered.empty() && left.empty());
    listed.insert(1);
    grown.diff(listed, entered, left);
    EXPECT_EQ(left, (std::vector<std::uint32_t>{1}));
    EXPECT_TRUE(std::is_sorted(grown.begin(), grown.end()));
}

// Over a small index range a bitset is only a few words, so a set moves into it sooner.
TEST(VisibilitySet, ASetOverFewWordsMovesIntoItsBitsetSooner) {
    EXPECT_EQ(VisibilitySet::list_limit(999), 16u);
    EXPECT_EQ(VisibilitySet::list_limit(10000), 39u);
    EXPECT_EQ(VisibilitySet::list_limit(VisibilitySet::kMaxIndex - 1), VisibilitySet::kListLimit);
    VisibilitySet s;
    for (std::uint32_t i = 0; i < 16; ++i) s.insert(999 - i);
    EXPECT_FALSE(s.is_bitset());
    s.insert(0);
    EXPECT_TRUE(s.is_bitset());
    EXPECT_EQ(s.count(), 17u);
}

TEST(VisibilitySet, InsertingAMemberAgainChangesNothing) {
    VisibilitySet s;
    for (const std::uint32_t i : {5u, 5u, 3u, 5u, 3u, 9u, 3u, 9u, 1u, 5u}) s.insert(i);
    EXPECT_EQ(members(s), (std::vector<std::uint32_t>{1, 3, 5, 9}));
    EXPECT_EQ(s.count(), 4u);
}

TEST(VisibilitySet, SwapExchangesMembership) {
    VisibilitySet a, b;
    a.insert(1);
    b.insert(200);
    a.swap(b);
    EXPECT_EQ(members(a), (std::vector<std::uint32_t>{200}));
    EXPECT_EQ(members(b), (std::vector<std::uint32_t>{1}));
}

// Random sets of different sizes: diff, count and iteration agree with std::set algebra.
TEST(VisibilitySet, DiffReproducesSetDifferencesForManySeeds) {
    for (std::uint64_t seed = 1; seed <= 200; ++seed) {
        XorShift rng(seed);
        const auto limit_a = static_cast<std::uint32_t>(1 + rng.below(700));
        const auto limit_b = static_cast<std::uint32_t>(1 + rng.below(700));
        std::set<std::uint32_t> a, b;
        VisibilitySet sa, sb;
        const float density = rng.unit();
        for (std::uint32_t i = 0; i < limit_a; ++i)
            if (rng.chance(density)) {
                a.insert(i);
                sa.insert(i);
            }
        for (std::uint32_t i = 0; i < limit_b; ++i)
            if (rng.chance(density)) {
                b.insert(i);
                sb.insert(i);
            }
        std::vector<std::uint32_t> want_entered, want_left, entered, left;
        std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(want_entered));
        std::set_difference(b.begin(), b.end(), a.begin(), a.end(), std::back_inserter(want_left));
        sa.diff(sb, entered, left);
        ASSERT_EQ(entered, want_entered) << "seed " << seed;
        ASSERT_EQ(left, want_left) << "seed " << seed;
        ASSERT_EQ(sa.count(), a.size()) << "seed " << seed;
        ASSERT_EQ(members(sa), std::vector<std::uint32_t>(a.begin(), a.end())) << "seed " << seed;
        std::vector<std::uint32_t> visited;
        sb.for_each([&](std::uint32_t i) { visited.push_back(i); });
        ASSERT_EQ(visited, std::vector<std::uint32_t>(b.begin(), b.end())) << "seed " << seed;
    }
}

// Sets of up to kListLimit members (lists) and beyond (bitsets), reused through clear() and
// thinned by remove(): every operation agrees with std::set algebra whichever
// representation each side is in, including a diff between a list and a bitset.
TEST(VisibilitySet, ListedAndSpreadSetsAgreeWithSetAlgebraThroughReuse) {
    for (std::uint64_t seed = 1; seed <= 120; ++seed) {
        XorShift rng(seed);
        VisibilitySet sa, sb;
        std::set<std::uint32_t> a, b;
        for (int round = 0; round < 6; ++round) {
            sa.swap(sb);
            std::swap(a, b);
            sa.clear();
            a.clear();
            // 0 .. ~150 members spread over up to 20,000 slots: from one word to ~150 words.
            const auto size = static_cast<std::uint32_t>(rng.below(150));
            const auto limit = static_cast<std::uint32_t>(1 + rng.below(20000));
            for (std::uint32_t k = 0; k < size; ++k) {
                const auto i = static_cast<std::uint32_t>(rng.below(limit));
                a.insert(i);
                sa.insert(i);
            }
            for (std::uint32_t k = 0; k < size / 3; ++k) {
                const auto i = static_cast<std::uint32_t>(rng.below(limit));
                a.erase(i);
                sa.remove(i);
            }
            std::vector<std::uint32_t> want_entered, want_left, entered, left;
            std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(want_entered));
            std::set_difference(b.begin(), b.end(), a.begin(), a.end(), std::back_inserter(want_left));
            sa.diff(sb, entered, left);
            ASSERT_EQ(entered, want_entered) << "seed " << seed << " round " << round;
            ASSERT_EQ(left, want_left) << "seed " << seed << " round " << round;
            ASSERT_EQ(sa.count(), a.size()) << "seed " << seed << " round " << round;
            ASSERT_EQ(sa.empty(), a.empty()) << "seed " << seed << " round " << round;
            std::vector<std::uint32_t> visited;
            sa.for_each([&](std::uint32_t i) { visited.push_back(i); });
            ASSERT_EQ(visited, std::vector<std::uint32_t>(a.begin(), a.end())) << "seed " << seed << " round " << round;
            ASSERT_EQ(members(sa), visited) << "seed " << seed << " round " << round;
            for (const std::uint32_t i : b) ASSERT_EQ(sb.contains(i), true) << "seed " << seed;
        }
    }
}

// A set that empties a word by remove() and fills it again reads the same as one built fresh.
TEST(VisibilitySet, EmptyingAWordAndRefillingItKeepsOneEntry) {
    VisibilitySet s, fresh;
    s.insert(130);
    s.remove(130);
    EXPECT_TRUE(s.empty());
    s.insert(131);
    s.insert(5);
    fresh.insert(5);
    fresh.insert(131);
    std::vector<std::uint32_t> entered, left;
    s.diff(fresh, entered, left);
    EXPECT_TRUE(entered.empty());
    EXPECT_TRUE(left.empty());
    EXPECT_EQ(s.count(), 2u);
    EXPECT_EQ(members(s), (std::vector<std::uint32_t>{5, 131}));
}

TEST(VisibilitySet, TheLargestIndexBelowTheMaximumIsHeld) {
    VisibilitySet s;
    s.insert(VisibilitySet::kMaxIndex - 1);
    EXPECT_TRUE(s.contains(VisibilitySet::kMaxIndex - 1));
    for (std::uint32_t i = 0; i < VisibilitySet::kListLimit; ++i) s.insert(i);
    EXPECT_TRUE(s.contains(VisibilitySet::kMaxIndex - 1));
    EXPECT_EQ(s.words().size(), VisibilitySet::kMaxIndex / 64);  // 2 MiB, the documented ceiling
}

#if GTEST_HAS_DEATH_TEST
// Unchecked in release builds, a wild index allocated its bits silently: 32 MiB near 2^28,
// 512 MiB near 2^32.
TEST(VisibilitySetDeathTest, AnIndexAtOrBeyondTheMaximumIsRejectedBeforeAllocating) {
    VisibilitySet s;
    EXPECT_DEATH(s.insert(VisibilitySet::kMaxIndex), "VisibilitySet::insert: index must be below kMaxIndex");
    EXPECT_DEATH(s.insert((1u << 28) - 5), "VisibilitySet::insert: index must be below kMaxIndex");
    EXPECT_DEATH({ VisibilitySet big(VisibilitySet::kMaxIndex + 1); },
                 "VisibilitySet: index_capacity beyond kMaxIndex");
    EXPECT_TRUE(s.words().empty());
}
#endif

}  // namespace
}  // namespace vantage
