#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vantage/input_schedule.hpp"
#include "vantage/random.hpp"
#include "vantage/seat_table.hpp"

namespace vantage {
namespace {

TEST(SeatTable, AJoinerGetsTheLowestSeatAndARejoinGetsTheSameOne) {
    SeatTable<std::uint64_t> t(4);
    const Seating a = t.seat(100);
    const Seating b = t.seat(200);
    EXPECT_TRUE(a.is_fresh());
    EXPECT_EQ(a.index(), 0u);
    EXPECT_EQ(b.index(), 1u);
    const Seating again = t.seat(100);
    EXPECT_EQ(again.kind, Seating::Kind::Existing);
    EXPECT_EQ(again.token, a.token);
    EXPECT_EQ(t.counters().rejoins, 1u);
}

TEST(SeatTable, AFullTableRefusesRatherThanFailing) {
    SeatTable<std::uint64_t> t(2);
    t.seat(1);
    t.seat(2);
    EXPECT_TRUE(t.is_full());
    const Seating s = t.seat(3);
    EXPECT_EQ(s.kind, Seating::Kind::Full);
    EXPECT_FALSE(s.seated());
    EXPECT_EQ(t.counters().turned_away, 1u);
}

TEST(SeatTable, UnseatingIsIdempotentAndAStrangerIsNotAnError) {
    SeatTable<std::uint64_t> t(2);
    t.seat(1);
    EXPECT_TRUE(t.unseat(1));
    EXPECT_FALSE(t.unseat(1));
    EXPECT_FALSE(t.unseat(99));
    EXPECT_EQ(t.occupied_count(), 0u);
    EXPECT_EQ(t.counters().vacated, 1u);
}

// Per-seat state a game keeps: an input schedule and a score.
struct PlayerSeat {
    InputSchedule<int> inputs;
    int score = 0;
};

TEST(SeatTable, AReusedSeatHandsItsNewOccupantNothingOfTheOldOnesState) {
    SeatTable<std::string, PlayerSeat> t(1);
    const Seating alice = t.seat("alice");
    PlayerSeat* mine = t.state(alice.token);
    ASSERT_NE(mine, nullptr);
    mine->score = 37;
    mine->inputs.submit(10, 1, 5);  // an input still queued when she leaves
    mine->inputs.submit(11, 2, 5);
    t.unseat("alice");

    const Seating bob = t.seat("bob");
    ASSERT_TRUE(bob.is_fresh());
    EXPECT_EQ(bob.index(), alice.index());  // the same seat...
    EXPECT_NE(bob.token, alice.token);      // ...a different seating
    const PlayerSeat* his = t.state(bob.token);
    ASSERT_NE(his, nullptr);
    EXPECT_EQ(his->score, 0);
    EXPECT_EQ(his->inputs.queued(), 0u);
    EXPECT_EQ(his->inputs.counters().accepted, 0u);
    // Anything still holding alice's token (a shot in flight, a timer) reaches nobody.
    EXPECT_EQ(t.state(alice.token), nullptr);
    EXPECT_EQ(t.occupant(alice.token), nullptr);
    EXPECT_FALSE(t.is_current(alice.token));
    EXPECT_EQ(*t.occupant(bob.token), "bob");
}

TEST(SeatTable, TheTablesCountersSurviveVacating) {
    SeatTable<std::uint64_t> t(2);
    t.seat(1);
    t.seat(2);
    t.seat(3);
    t.unseat(1);
    t.clear();
    EXPECT_EQ(t.occupied_count(), 0u);
    EXPECT_EQ(t.counters().fresh_seatings, 2u);
    EXPECT_EQ(t.counters().turned_away, 1u);
    EXPECT_EQ(t.counters().vacated, 2u);
    EXPECT_TRUE(t.seat(3).is_fresh());
}

TEST(SeatTable, ATokenFromBeforeAClearNoLongerResolves) {
    SeatTable<std::uint64_t> t(2);
    const SeatToken old = t.seat(1).token;
    t.clear();
    const SeatToken again = t.seat(1).token;
    EXPECT_FALSE(t.is_current(old));
    EXPECT_TRUE(t.is_current(again));
    EXPECT_FALSE(t.is_current(SeatToken{57, 0}));  // out of range: bad data, not UB
}

TEST(SeatTable, OccupantsAreVisitedInSeatOrder) {
    SeatTable<std::uint64_t> t(4);
    t.seat(40);
    t.seat(30);
    t.seat(20);
    t.unseat(40);
    t.seat(10);  // takes seat 0
    std::vector<std::uint64_t> keys;
    t.for_each_occupant([&](const std::uint64_t& k, SeatToken) { keys.push_back(k); });
    EXPECT_EQ(keys, (std::vector<std::uint64_t>{10, 30, 20}));
}

TEST(SeatTable, MatchesABruteForceOracleOverManySeeds) {
    for (std::uint64_t seed = 1; seed <= 100; ++seed) {
        XorShift rng(seed);
        // Small tables, and tables that span several words of the free-seat mask; keys from
        // twice as many as there are seats, so the hash table sees collisions, long probe runs
        // and deletions from the middle of them.
        const std::uint32_t cap = seed % 2 == 1 ? 1 + static_cast<std::uint32_t>(rng.below(6))
                                                : 60 + static_cast<std::uint32_t>(rng.below(140));
        const std::uint64_t keys = std::max<std::uint64_t>(10, 2 * cap);
        SeatTable<std::uint64_t, int> t(cap);
        std::vector<std::uint64_t> oracle(cap, 0);  // 0 = empty seat; keys are 1..keys
        std::vector<SeatToken> issued;
        for (int step = 0; step < (cap > 6 ? 1500 : 200); ++step) {
            const std::uint64_t key = 1 + rng.below(static_cast<std::uint32_t>(keys));
            if (rng.chance(0.6f)) {
                std::size_t at = cap;
                for (std::size_t i = 0; i < cap; ++i) {
                    if (oracle[i] == key) at = i;
                }
                const bool was_seated = at < cap;
                if (!was_seated) {
                    for (std::size_t i = 0; i < cap && at == cap; ++i) {
                        if (oracle[i] == 0) at = i;
                    }
                }
                const Seating s = t.seat(key);
                if (at == cap) {
                    ASSERT_EQ(s.kind, Seating::Kind::Full) << "seed " << seed;
                    continue;
                }
                ASSERT_EQ(s.index(), at) << "seed " << seed;
                ASSERT_EQ(s.is_fresh(), !was_seated) << "seed " << seed;
                if (s.is_fresh()) {
                    ASSERT_EQ(*t.state(s.token), 0) << "seed " << seed << ": a fresh seat inherited state";
                }
                *t.state(s.token) += 1;
                oracle[at] = key;
                issued.push_back(s.token);
            } else {
                bool seated = false;
                for (std::uint64_t& k : oracle) {
                    if (k == key) {
                        k = 0;
                        seated = true;
                    }
                }
                ASSERT_EQ(t.unseat(key), seated) << "seed " << seed;
            }
            std::uint32_t occupied = 0;
            for (std::size_t i = 0; i < cap; ++i) {
                if (oracle[i] == 0) continue;
                ++occupied;
                const std::optional<SeatToken> tok = t.token_of(oracle[i]);
                ASSERT_TRUE(tok.has_value()) << "seed " << seed << ": key " << oracle[i] << " lost";
                ASSERT_EQ(tok->index, i) << "seed " << seed;
            }
            ASSERT_EQ(t.occupied_count(), occupied) << "seed " << seed;
            for (const SeatToken& tok : issued) {
                const std::uint64_t* who = t.occupant(tok);
                if (who != nullptr) {
                    ASSERT_EQ(oracle[tok.index], *who) << "seed " << seed;
                }
            }
        }
    }
}

}  // namespace
}  // namespace vantage
