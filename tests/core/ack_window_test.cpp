#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "vantage/ack_window.hpp"
#include "vantage/random.hpp"

namespace vantage {
namespace {

AckWindow observed(std::initializer_list<std::uint64_t> seqs) {
    AckWindow w;
    for (std::uint64_t s : seqs) w.observe(s);
    return w;
}

TEST(AckWindow, ACleanRunRecordsEverything) {
    AckWindow w;
    for (std::uint64_t s = 0; s < 100; ++s) EXPECT_TRUE(w.observe(s));
    EXPECT_EQ(w.newest(), 99u);
    EXPECT_EQ(w.mask(), ~std::uint64_t{0});
    EXPECT_EQ(w.received_in_window(), 65u);
    for (std::uint64_t s = 35; s < 100; ++s) EXPECT_TRUE(w.contains(s)) << s;
    EXPECT_FALSE(w.contains(34));  // older than the window: not claimed
    EXPECT_FALSE(w.contains(100));
}

TEST(AckWindow, GapsAreReportedAndNothingElseIs) {
    const AckWindow w = observed({10, 11, 13, 16});
    std::vector<std::uint64_t> missing;
    w.missing_since(10, missing);
    EXPECT_EQ(missing, (std::vector<std::uint64_t>{12, 14, 15}));
    missing.clear();
    w.missing_since(14, missing);
    EXPECT_EQ(missing, (std::vector<std::uint64_t>{14, 15}));
}

TEST(AckWindow, MissingSinceIsClampedToTheWindow) {
    const AckWindow w = observed({200});
    std::vector<std::uint64_t> missing;
    w.missing_since(0, missing);
    ASSERT_EQ(missing.size(), 64u);
    EXPECT_EQ(missing.front(), 136u);
    EXPECT_EQ(missing.back(), 199u);
}

TEST(AckWindow, AStragglerLandsInItsOwnSlot) {
    AckWindow w = observed({1, 2, 4, 5});
    EXPECT_FALSE(w.contains(3));
    EXPECT_TRUE(w.observe(3));
    EXPECT_TRUE(w.contains(3));
    EXPECT_EQ(w.newest(), 5u);
    EXPECT_FALSE(w.observe(3));  // a duplicate is not new
    EXPECT_FALSE(w.observe(5));
}

TEST(AckWindow, AnythingOlderThanTheWindowIsRefused) {
    AckWindow w = observed({100});
    EXPECT_FALSE(w.observe(35));
    EXPECT_FALSE(w.contains(35));
    EXPECT_TRUE(w.observe(36));
}

TEST(AckWindow, ABigJumpForgetsTheOldWindowRatherThanLyingAboutIt) {
    AckWindow w = observed({1, 2, 3});
    w.observe(500);
    EXPECT_EQ(w.mask(), 0u);
    EXPECT_FALSE(w.contains(3));
    EXPECT_EQ(w.received_in_window(), 1u);
}

TEST(AckWindow, ShiftingExactlyTheWindowWidthIsNotOffByOne) {
    AckWindow w = observed({10});
    w.observe(74);  // 10 is now exactly 64 behind: the last slot
    EXPECT_TRUE(w.contains(10));
    EXPECT_EQ(w.mask(), std::uint64_t{1} << 63);
    AckWindow v = observed({10});
    v.observe(75);  // one further and it falls off
    EXPECT_FALSE(v.contains(10));
    EXPECT_EQ(v.mask(), 0u);
}

TEST(AckWindow, TheEncodingRoundTrips) {
    XorShift rng(5);
    for (int trial = 0; trial < 200; ++trial) {
        AckWindow w;
        for (int i = 0; i < 40; ++i) w.observe(rng.below(300));
        const auto e = w.encode();
        ASSERT_TRUE(e.has_value());
        const AckWindow back = AckWindow::from_encoded(e->first, e->second);
        for (std::uint64_t s = 0; s < 300; ++s) ASSERT_EQ(back.contains(s), w.contains(s)) << "trial " << trial;
    }
}

TEST(AckWindow, AnEmptyWindowEncodesToNothing) {
    AckWindow w;
    EXPECT_FALSE(w.encode().has_value());
    EXPECT_FALSE(w.newest().has_value());
    EXPECT_EQ(w.received_in_window(), 0u);
    w.observe(4);
    w.reset();
    EXPECT_FALSE(w.encode().has_value());
}

TEST(AckWindow, TheCostDoesNotGrowWithTheLossRate) {
    // The report is always newest + one 64-bit mask, whatever arrived.
    for (const float loss : {0.0f, 0.5f, 0.9f}) {
        XorShift rng(1);
        AckWindow w;
        for (std::uint64_t s = 0; s < 1000; ++s) {
            if (!rng.chance(loss)) w.observe(s);
        }
        EXPECT_EQ(sizeof(*w.encode()), 2 * sizeof(std::uint64_t));
    }
}

TEST(AckWindow, TheContiguousBaseStopsAtTheFirstGapNotTheNewestBit) {
    const AckWindow w = observed({1, 2, 3, 5, 6, 7});
    EXPECT_EQ(w.contiguous_base(1), 3u);
    EXPECT_EQ(w.newest(), 7u);
}

TEST(AckWindow, ARunThatReachesTheNewestReportsIt) {
    const AckWindow w = observed({4, 5, 6});
    EXPECT_EQ(w.contiguous_base(4), 6u);
    EXPECT_EQ(w.contiguous_base(6), 6u);
}

TEST(AckWindow, AProtocolNumberingFromZeroIsRepresentable) {
    const AckWindow w = observed({0, 1});
    EXPECT_TRUE(w.contains(0));
    EXPECT_EQ(w.contiguous_base(0), 1u);
}

TEST(AckWindow, AFilledGapLetsTheFrontierJumpPastIt) {
    AckWindow w = observed({1, 2, 4, 5, 6});
    EXPECT_EQ(w.contiguous_base(1), 2u);
    w.observe(3);
    EXPECT_EQ(w.contiguous_base(1), 6u);
}

TEST(AckWindow, ABaseOlderThanTheWindowIsReportedAsUnknowable) {
    AckWindow w;
    for (std::uint64_t s = 0; s <= 100; ++s) w.observe(s);
    EXPECT_FALSE(w.contiguous_base(10).has_value());
    EXPECT_EQ(w.contiguous_base(36), 100u);
}

TEST(AckWindow, AMissingOrFutureFirstHasNoRunAtAll) {
    const AckWindow w = observed({1, 3});
    EXPECT_FALSE(w.contiguous_base(2).has_value());
    EXPECT_FALSE(w.contiguous_base(9).has_value());
    EXPECT_FALSE(AckWindow{}.contiguous_base(0).has_value());
}

TEST(AckWindow, TheFrontierCostsAtMostAWindowRegardlessOfTheGap) {
    // A gap of a billion sequences: the answer comes from the window alone.
    AckWindow w = observed({5});
    w.observe(1'000'000'000);
    EXPECT_FALSE(w.contiguous_base(6).has_value());
    EXPECT_EQ(w.contiguous_base(1'000'000'000), 1'000'000'000u);
}

}  // namespace
}  // namespace vantage
