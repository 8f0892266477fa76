#include <gtest/gtest.h>

#include <cstdio>
#include <stdexcept>
#include <string_view>

#include "vantage/assert.hpp"

namespace vantage {
namespace {

TEST(Assert, APassingCheckEvaluatesItsConditionOnceAndCarriesOn) {
    int evaluations = 0;
    VANTAGE_ASSERT(++evaluations == 1, "evaluated once");
    EXPECT_EQ(evaluations, 1);
}

TEST(Assert, AHotCheckIsEvaluatedOnlyWhenHotChecksAreOn) {
    int evaluations = 0;
    VANTAGE_ASSERT_HOT(++evaluations == 1, "evaluated once when on");
    EXPECT_EQ(evaluations, VANTAGE_HOT_ASSERTS ? 1 : 0);
}

TEST(Assert, SetAssertHandlerReturnsThePreviousOneAndNullRestoresTheDefault) {
    const AssertHandler original = assert_handler();
    const AssertHandler mine = +[](const char*, int, const char*, const char*) {};
    EXPECT_EQ(set_assert_handler(mine), original);
    EXPECT_EQ(assert_handler(), mine);
    EXPECT_EQ(set_assert_handler(nullptr), mine);
    EXPECT_EQ(assert_handler(), original);
}

#if defined(__cpp_exceptions) && !defined(__EMSCRIPTEN__)
TEST(Assert, AHandlerMayThrowToUnwindInsteadOfAborting) {
    const AssertHandler previous = set_assert_handler(
        +[](const char*, int, const char*, const char* message) { throw std::runtime_error(message); });
    EXPECT_THROW(VANTAGE_ASSERT(false, "unwound"), std::runtime_error);
    set_assert_handler(previous);
}
#endif

#if GTEST_HAS_DEATH_TEST
TEST(AssertDeathTest, TheDefaultHandlerPrintsFileLineConditionAndMessageThenAborts) {
    EXPECT_DEATH(VANTAGE_ASSERT(1 + 1 == 3, "arithmetic is broken"),
                 "vantage: .*assert_test\\.cpp:[0-9]+: check failed: 1 \\+ 1 == 3: arithmetic is broken");
}

TEST(AssertDeathTest, AHandlerThatReturnsIsFollowedByAbort) {
    EXPECT_DEATH(
        {
            set_assert_handler(+[](const char*, int line, const char*, const char* message) {
                std::fprintf(stderr, "custom handler: %s at line %d\n", message, line);
            });
            VANTAGE_ASSERT(false, "told");
        },
        "custom handler: told at line [0-9]+");
}

TEST(AssertDeathTest, AFailedValidateNamesTheCallerAndTheReason) {
    struct Options {
        std::string_view validate() const { return "history must be in [1, 64]"; }
    };
    EXPECT_DEATH(
        VANTAGE_ASSERT_VALID(Options{}, "Thing: invalid Options"),
        "check failed: Options\\{\\}\\.validate\\(\\): Thing: invalid Options: history must be in \\[1, 64\\]");
}
#else
TEST(AssertDeathTest, SkippedWithoutDeathTests) {
    GTEST_SKIP() << "death tests need fork(); this build has none (wasm)";
}
#endif

}  // namespace
}  // namespace vantage
