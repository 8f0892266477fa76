#include <gtest/gtest.h>

#include "vantage/input_frontier.hpp"

namespace vantage {
namespace {

TEST(InputFrontier, NewerInputsAreAppliedAndBecomeTheAcknowledgement) {
    InputFrontier f;
    EXPECT_EQ(f.acked_seq(), 0u);
    EXPECT_TRUE(f.accept(1));
    EXPECT_TRUE(f.accept(2));
    EXPECT_EQ(f.acked_seq(), 2u);
    EXPECT_EQ(f.counters().accepted, 2u);
}

TEST(InputFrontier, DuplicatesAndStragglersAreRefused) {
    InputFrontier f;
    f.accept(5);
    EXPECT_FALSE(f.accept(5));
    EXPECT_FALSE(f.accept(3));
    EXPECT_EQ(f.counters().refused, 2u);
    EXPECT_EQ(f.acked_seq(), 5u);
}

TEST(InputFrontier, AJumpCountsTheInputsThatNeverArrived) {
    InputFrontier f;
    f.accept(1);
    f.accept(4);
    EXPECT_EQ(f.counters().skipped, 2u);
    f.reset();
    EXPECT_EQ(f.counters().skipped, 0u);
    EXPECT_EQ(f.acked_seq(), 0u);
}

}  // namespace
}  // namespace vantage
