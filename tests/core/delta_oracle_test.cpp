// The oracle property of delta streaming, against the server's own record of what it meant
// the client to hold (the brute-force oracle: the whole relevant set per frame).
//
// Each seed draws a link (loss 0..90%, Gilbert-Elliott bursts, latency, jitter, reordering,
// duplication), a churning world (entities moving across the relevance edge, dying, slots
// reused under new generations), and runs a lossy phase followed by a healed link. With acked
// recovery the client's mirror must equal the server's set for the frame it last applied,
// from at most kOracleBoundFrames after the heal to the end; under Naive the same harness
// must leave clients diverged, holding entities that are dead on the server, for good. The run
// itself lives in tests/support/delta_scenario.hpp, shared with the benchmark's sweep; its lane
// is the library's DeltaStream and DeltaReceiver over two LossyLinks, so these tests cover the
// pair as users get it. Both frontiers run: AnyReceived (the default) and Contiguous.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "support/delta_scenario.hpp"

namespace vantage {
namespace {

using scenario::draw_oracle_conditions;
using scenario::kOracleBoundFrames;
using scenario::OracleOutcome;
using scenario::run_oracle;

void check_acked_converges(std::uint64_t first, std::uint64_t last, AckFrontier frontier,
                           std::size_t max_frame_bytes = 1200) {
    int worst = 0;
    std::uint64_t spread = 0;
    for (std::uint64_t seed = first; seed <= last; ++seed) {
        const OracleOutcome o = run_oracle(seed, RecoveryPolicy::Acked, true, frontier, max_frame_bytes);
        // Every frame fits: none refused by the encoder, none dropped by the link's MTU.
        ASSERT_LE(o.largest_frame, max_frame_bytes) << "seed " << seed;
        ASSERT_EQ(o.encode_failures, 0u) << "seed " << seed;
        ASSERT_EQ(o.oversize_packets, 0u) << "seed " << seed;
        spread += o.spread_frames;
        ASSERT_TRUE(o.converged) << "seed " << seed << " (loss " << draw_oracle_conditions(seed).link.loss
                                 << "): equal since frame " << o.converged_after << " after the heal, bound "
                                 << kOracleBoundFrames;
        ASSERT_EQ(o.end_phantoms, 0u) << "seed " << seed;
        ASSERT_FALSE(o.lagging) << "seed " << seed;
        ASSERT_FALSE(o.stalled) << "seed " << seed;
        ASSERT_EQ(o.decode_errors, 0u) << "seed " << seed;
        worst = std::max(worst, o.converged_after);
    }
    ::testing::Test::RecordProperty("worst_frames_to_converge", worst);
    ::testing::Test::RecordProperty("spread_frames", static_cast<int>(spread));
    // A tight limit must actually spread sets over frames, or the test proves nothing.
    if (max_frame_bytes < 200) {
        EXPECT_GT(spread, (last - first + 1) * 2) << "too few spread frames";
    }
}

// The MTU-limited link: 64-byte frames (a header and a handful of keys with positions) over a
// link that drops anything larger, against the same draws (every loss pattern: uniform loss
// 0..90%, Gilbert-Elliott bursts, reordering, duplication, flow control). The cold start's
// full set (about 20 keys) and every large diff after a loss spread over several frames.
constexpr std::size_t kTightFrameBytes = 64;

// Split so each test stays well under a second at -O0 and under ASan; together they cover
// 200 seeds per frontier. The benchmark's sweep (BM_DeltaOracleSweep) runs thousands.
TEST(DeltaOracle, AckedRecoveryConvergesAfterTheLinkHealsSeeds1To50) {
    check_acked_converges(1, 50, AckFrontier::Contiguous);
}
TEST(DeltaOracle, AckedRecoveryConvergesAfterTheLinkHealsSeeds51To100) {
    check_acked_converges(51, 100, AckFrontier::Contiguous);
}
TEST(DeltaOracle, AckedRecoveryConvergesAfterTheLinkHealsSeeds101To150) {
    check_acked_converges(101, 150, AckFrontier::Contiguous);
}
TEST(DeltaOracle, AckedRecoveryConvergesAfterTheLinkHealsSeeds151To200) {
    check_acked_converges(151, 200, AckFrontier::Contiguous);
}
TEST(DeltaOracle, AnyReceivedFrontierConvergesAfterTheLinkHealsSeeds1To100) {
    check_acked_converges(1, 100, AckFrontier::AnyReceived);
}
TEST(DeltaOracle, AnyReceivedFrontierConvergesAfterTheLinkHealsSeeds101To200) {
    check_acked_converges(101, 200, AckFrontier::AnyReceived);
}

TEST(DeltaOracle, SpreadFramesFitAndConvergeOnAnMtuLimitedLinkSeeds1To50) {
    check_acked_converges(1, 50, AckFrontier::Contiguous, kTightFrameBytes);
}
TEST(DeltaOracle, SpreadFramesFitAndConvergeOnAnMtuLimitedLinkSeeds51To100) {
    check_acked_converges(51, 100, AckFrontier::Contiguous, kTightFrameBytes);
}
TEST(DeltaOracle, SpreadFramesFitAndConvergeOnAnMtuLimitedLinkSeeds101To150) {
    check_acked_converges(101, 150, AckFrontier::Contiguous, kTightFrameBytes);
}
TEST(DeltaOracle, SpreadFramesFitAndConvergeOnAnMtuLimitedLinkSeeds151To200) {
    check_acked_converges(151, 200, AckFrontier::Contiguous, kTightFrameBytes);
}
TEST(DeltaOracle, SpreadFramesFitAndConvergeOnAnMtuLimitedLinkAnyReceivedSeeds1To100) {
    check_acked_converges(1, 100, AckFrontier::AnyReceived, kTightFrameBytes);
}
TEST(DeltaOracle, SpreadFramesFitAndConvergeOnAnMtuLimitedLinkAnyReceivedSeeds101To200) {
    check_acked_converges(101, 200, AckFrontier::AnyReceived, kTightFrameBytes);
}

TEST(DeltaOracle, NaiveDiffingDivergesForGoodAndStrandsDeadEntities) {
    int lossy = 0, diverged = 0, stranded = 0;
    for (std::uint64_t seed = 1; seed <= 60; ++seed) {
        if (draw_oracle_conditions(seed).link.loss < 0.2f) continue;
        ++lossy;
        // Without flow control: a stalled subscriber's resume rebuilds, which would repair
        // Naive too and hide the failure this test is about.
        const OracleOutcome o = run_oracle(seed, RecoveryPolicy::Naive, false);
        // Not equal to the server's set from the bound to the end: the heal did not help.
        if (!o.converged) ++diverged;
        // Held yet dead on the server: no later frame will ever name that occupant again.
        if (o.end_phantoms > 0) ++stranded;
    }
    ASSERT_GT(lossy, 30);
    EXPECT_EQ(diverged, lossy) << diverged << " of " << lossy << " lossy seeds diverged";
    EXPECT_GE(stranded * 4, lossy * 3) << stranded << " of " << lossy << " lossy seeds hold dead entities";
}

TEST(DeltaOracle, NaiveAndAckedAgreeOnAPerfectLink) {
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
        if (draw_oracle_conditions(seed).link.loss > 0.0f || draw_oracle_conditions(seed).link.burst_enter > 0.0f ||
            draw_oracle_conditions(seed).link.reorder > 0.0f || draw_oracle_conditions(seed).link.duplicate > 0.0f) {
            continue;
        }
        EXPECT_TRUE(run_oracle(seed, RecoveryPolicy::Naive).end_equal) << "seed " << seed;
    }
}

}  // namespace
}  // namespace vantage
