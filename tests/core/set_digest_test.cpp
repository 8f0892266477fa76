#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "vantage/random.hpp"
#include "vantage/set_digest.hpp"
#include "vantage/slot_key.hpp"

namespace vantage {
namespace {

TEST(SetDigest, TheFinalizerIsSplitMix64AndPinned) {
    // splitmix64's published first output for seed 1234567 is finalizer(1234567).
    EXPECT_EQ(splitmix64_finalizer(1234567), 6457827717110365317ULL);
    EXPECT_EQ(splitmix64_finalizer(0), 0xE220A8397B1DCDAFULL);
}

TEST(SetDigest, GoldenValuesAreStable) {
    // Pinned: both halves of a stream (and the reference toolkit, core/docs/background.md) must
    // agree bit for bit.
    EXPECT_EQ(SetDigest{}.digest(), 0xE220A8397B1DCDAFULL);  // the empty set is not 0
    const std::vector<std::uint64_t> one_two_three{1, 2, 3};
    EXPECT_EQ(SetDigest::from_keys(one_two_three).digest(), 0x58666C4B5B9ACC91ULL);
    const std::vector<std::uint64_t> zero{0};
    EXPECT_EQ(SetDigest::from_keys(zero).digest(), 0x732A85D5F21F916EULL);
    const std::vector<std::uint64_t> slots{SlotKey{5, 1}.encode(), SlotKey{7, 0}.encode()};
    EXPECT_EQ(SetDigest::from_keys(slots).digest(), 0x9C8E8EE573B0F5EFULL);
}

TEST(SetDigest, ADigestIgnoresOrderButNotContents) {
    const std::vector<std::uint64_t> a{10, 20, 30};
    const std::vector<std::uint64_t> b{30, 10, 20};
    const std::vector<std::uint64_t> c{10, 20, 31};
    EXPECT_EQ(SetDigest::from_keys(a).digest(), SetDigest::from_keys(b).digest());
    EXPECT_NE(SetDigest::from_keys(a).digest(), SetDigest::from_keys(c).digest());
}

TEST(SetDigest, DuplicatedKeysDoNotCancel) {
    const std::vector<std::uint64_t> twice{42, 42};
    EXPECT_EQ(SetDigest::from_keys(twice).digest(), 0xECF6519243418BE4ULL);
    EXPECT_NE(SetDigest::from_keys(twice).digest(), SetDigest{}.digest());
}

TEST(SetDigest, MaintainingItIncrementallyMatchesRebuildingIt) {
    XorShift rng(77);
    SetDigest running;
    std::vector<std::uint64_t> held;
    for (int step = 0; step < 2000; ++step) {
        if (!held.empty() && rng.chance(0.45f)) {
            const std::size_t i = static_cast<std::size_t>(rng.below(held.size()));
            running.remove(held[i]);
            held.erase(held.begin() + static_cast<std::ptrdiff_t>(i));
        } else {
            const std::uint64_t k = rng.next();
            if (std::find(held.begin(), held.end(), k) != held.end()) continue;
            running.insert(k);
            held.push_back(k);
        }
        ASSERT_EQ(running.digest(), SetDigest::from_keys(held).digest()) << "step " << step;
        ASSERT_EQ(running.size(), held.size());
    }
}

TEST(SetDigest, RemovingEverythingReturnsToTheEmptyDigest) {
    SetDigest d;
    d.insert(5);
    d.insert(9);
    d.remove(5);
    d.remove(9);
    EXPECT_TRUE(d.empty());
    EXPECT_EQ(d, SetDigest{});
    d.insert(3);
    d.clear();
    EXPECT_EQ(d.digest(), SetDigest{}.digest());
}

}  // namespace
}  // namespace vantage
