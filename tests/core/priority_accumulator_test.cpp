#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "vantage/assert.hpp"
#include "vantage/priority_accumulator.hpp"
#include "vantage/slot_key.hpp"

namespace vantage {
namespace {

std::vector<std::uint64_t> keys_0_to(std::uint32_t n) {
    std::vector<std::uint64_t> out;
    for (std::uint32_t i = 0; i < n; ++i) out.push_back(SlotKey{i, 0}.encode());
    return out;
}

TEST(PriorityAccumulator, PriorityGrowsWithWeightTimesTimeAndSendingResetsIt) {
    PriorityAccumulator acc;
    const std::vector<std::uint64_t> keys = keys_0_to(3);
    const std::vector<float> weights{1.0f, 0.5f, 0.0f};
    acc.accumulate(keys, weights, 0.5);
    acc.accumulate(keys, weights, 0.5);
    EXPECT_DOUBLE_EQ(acc.priority(keys[0]), 1.0);
    EXPECT_DOUBLE_EQ(acc.priority(keys[1]), 0.5);
    EXPECT_DOUBLE_EQ(acc.priority(keys[2]), 0.0);
    std::vector<std::uint64_t> order;
    acc.ranked(order);
    EXPECT_EQ(order, keys);
    acc.sent(keys[0]);
    EXPECT_DOUBLE_EQ(acc.priority(keys[0]), 0.0);
    acc.ranked(order);
    EXPECT_EQ(order.front(), keys[1]);
}

TEST(PriorityAccumulator, AKeyNoLongerListedIsForgottenAndStartsAgainFromZero) {
    PriorityAccumulator acc;
    const std::vector<std::uint64_t> keys = keys_0_to(3);
    acc.accumulate(keys, {}, 1.0);
    acc.accumulate(std::vector<std::uint64_t>{keys[0], keys[2]}, {}, 1.0);
    EXPECT_EQ(acc.size(), 2u);
    EXPECT_DOUBLE_EQ(acc.priority(keys[1]), 0.0);
    acc.accumulate(keys, {}, 1.0);
    EXPECT_DOUBLE_EQ(acc.priority(keys[1]), 1.0);
    EXPECT_DOUBLE_EQ(acc.priority(keys[0]), 3.0);
}

// One key per tick out of 100, weights from 0.01 to 1: the heavy ones go often, and nobody
// waits longer than its weight allows (a waiting key's priority grows without bound).
TEST(PriorityAccumulator, UnderABudgetEveryKeyIsSentAndTheWeightyOnesMoreOften) {
    PriorityAccumulator acc;
    const std::vector<std::uint64_t> keys = keys_0_to(100);
    std::vector<float> weights;
    for (std::size_t i = 0; i < keys.size(); ++i) weights.push_back(0.01f + 0.99f * static_cast<float>(i) / 99.0f);
    std::vector<int> sent(keys.size(), 0), last(keys.size(), 0), worst_wait(keys.size(), 0);
    std::vector<std::uint64_t> order;
    for (int tick = 1; tick <= 5000; ++tick) {
        acc.accumulate(keys, weights, 1.0 / 60.0);
        acc.ranked(order);
        const std::uint64_t k = order.front();
        acc.sent(k);
        const std::size_t i = SlotKey::decode(k)->index;
        sent[i] += 1;
        worst_wait[i] = std::max(worst_wait[i], tick - last[i]);
        last[i] = tick;
    }
    for (std::size_t i = 0; i < keys.size(); ++i) {
        EXPECT_GT(sent[i], 0) << "key " << i << " starved";
        EXPECT_LT(worst_wait[i], 5000) << "key " << i;
    }
    EXPECT_GT(sent[99], 5 * sent[0]);
}

TEST(ByteBudget, RefillsAtItsRateUpToItsDepth) {
    ByteBudget budget({.bytes_per_sec = 1000.0, .burst_bytes = 300.0});
    budget.refill(0.0);
    EXPECT_EQ(budget.available(), 300u);  // starts full
    budget.spend(300);
    EXPECT_EQ(budget.available(), 0u);
    budget.refill(100.0);
    EXPECT_EQ(budget.available(), 100u);
    budget.refill(10000.0);
    EXPECT_EQ(budget.available(), 300u);
    budget.set_options({.bytes_per_sec = 10.0, .burst_bytes = 50.0});
    EXPECT_EQ(budget.available(), 50u);
}

TEST(ByteBudgetOptions, ValidateNamesTheFirstBadField) {
    EXPECT_EQ(ByteBudgetOptions{}.validate(), "");
    EXPECT_NE(ByteBudgetOptions{.bytes_per_sec = 0.0}.validate(), "");
    EXPECT_NE(ByteBudgetOptions{.burst_bytes = 0.5}.validate(), "");
}

}  // namespace
}  // namespace vantage
