#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "test_delay_queue.hpp"
#include "vantage/input_schedule.hpp"

namespace vantage {
namespace {

using Schedule = InputSchedule<int>;

TEST(InputSchedule, AnInputWaitsForTheTickItNames) {
    Schedule s;
    EXPECT_EQ(s.submit(12, 7, 10), Submission::Scheduled);
    EXPECT_FALSE(s.execute_due(10));
    EXPECT_FALSE(s.execute_due(11));
    const auto due = s.execute_due(12);
    ASSERT_TRUE(due);
    EXPECT_EQ(due->input, 7);
    EXPECT_TRUE(due->fresh);
}

TEST(InputSchedule, TheHeldInputRepeatsUntilReplaced) {
    Schedule s;
    s.submit(10, 1, 10);
    s.submit(13, 2, 10);
    EXPECT_EQ(s.execute_due(10)->input, 1);
    const auto held = s.execute_due(11);
    EXPECT_EQ(held->input, 1);
    EXPECT_FALSE(held->fresh);
    EXPECT_EQ(s.execute_due(12)->input, 1);
    EXPECT_EQ(s.execute_due(13)->input, 2);
    EXPECT_EQ(s.counters().repeated, 2u);
}

TEST(InputSchedule, APlayoutDelayShiftsEveryInputAlike) {
    Schedule s(InputScheduleOptions{.playout_delay_ticks = 3});
    EXPECT_EQ(s.submit(10, 1, 10), Submission::Scheduled);
    EXPECT_FALSE(s.execute_due(12));
    EXPECT_EQ(s.execute_due(13)->named_tick, 10);
}

TEST(InputSchedule, AClosedTickIsRejectedNotCorrected) {
    Schedule s(InputScheduleOptions{.max_late_ticks = 4});
    EXPECT_EQ(s.submit(5, 1, 10), Submission::TickClosed);
    EXPECT_EQ(s.queued(), 0u);
    EXPECT_EQ(s.counters().rejected_closed, 1u);
    EXPECT_EQ(s.last_reject_margin(), -5);
}

TEST(InputSchedule, ParkingAnInputInTheFutureIsRejected) {
    Schedule s(InputScheduleOptions{.max_early_ticks = 10});
    EXPECT_EQ(s.submit(21, 1, 10), Submission::TooEarly);
    EXPECT_EQ(s.submit(20, 1, 10), Submission::Scheduled);
    EXPECT_EQ(s.counters().rejected_early, 1u);
    EXPECT_EQ(s.last_reject_margin(), 11);
}

TEST(InputSchedule, TheSplitSaysWhichWayAClientIsWrongAndTheMarginIsSigned) {
    Schedule s;
    EXPECT_FALSE(s.last_reject_margin());
    s.submit(0, 1, 100);
    s.submit(1, 1, 100);
    s.submit(500, 1, 100);
    EXPECT_EQ(s.counters().rejected_closed, 2u);
    EXPECT_EQ(s.counters().rejected_early, 1u);
    EXPECT_EQ(s.counters().rejected(), 3u);
    EXPECT_EQ(s.last_reject_margin(), 400);
}

TEST(InputSchedule, LateInsideTheWindowExecutesAtTheNextTickAndIsCounted) {
    Schedule s(InputScheduleOptions{.max_late_ticks = 4});
    EXPECT_EQ(s.submit(8, 3, 10), Submission::Late);
    EXPECT_TRUE(accepted(Submission::Late));
    EXPECT_EQ(s.counters().late, 1u);
    EXPECT_EQ(s.counters().accepted, 1u);
    const auto due = s.execute_due(10);
    ASSERT_TRUE(due);
    EXPECT_EQ(due->input, 3);
    EXPECT_EQ(due->named_tick, 8);
}

TEST(InputSchedule, AClientCannotReorderItsOwnHistory) {
    Schedule s;
    s.submit(10, 1, 10);
    s.execute_due(10);
    // An input for an earlier tick arrives after a later one executed: it would rewrite history.
    EXPECT_EQ(s.submit(9, 2, 11), Submission::Superseded);
    EXPECT_EQ(s.submit(10, 2, 11), Submission::Superseded);  // a duplicate, too
    EXPECT_EQ(s.counters().rejected_superseded, 2u);
    EXPECT_EQ(s.execute_due(11)->input, 1);
}

TEST(InputSchedule, WithinOneStepTheNewestDueInputWins) {
    Schedule s;
    s.submit(10, 1, 10);
    s.submit(11, 2, 10);
    s.submit(12, 3, 10);
    EXPECT_EQ(s.execute_due(12)->input, 3);
    EXPECT_EQ(s.counters().superseded_due, 2u);
    EXPECT_EQ(s.queued(), 0u);
}

TEST(InputSchedule, DiscreteActionsDueTogetherAreAllDeliveredInOrder) {
    Schedule s;
    s.submit(11, 2, 10);
    s.submit(10, 1, 10);
    s.submit(12, 3, 10);
    s.submit(15, 4, 10);
    std::vector<std::pair<int, Tick>> got;
    EXPECT_EQ(s.drain_due(12, [&](const int& in, Tick named) { got.emplace_back(in, named); }), 3u);
    EXPECT_EQ(got, (std::vector<std::pair<int, Tick>>{{1, 10}, {2, 11}, {3, 12}}));
    EXPECT_EQ(s.queued(), 1u);
}

TEST(InputSchedule, AFullQueueRefusesRatherThanGrowing) {
    Schedule s(InputScheduleOptions{.max_queued = 2});
    s.submit(11, 1, 10);
    s.submit(12, 1, 10);
    EXPECT_EQ(s.submit(13, 1, 10), Submission::Full);
    EXPECT_EQ(s.counters().rejected_full, 1u);
}

TEST(InputSchedule, ClearingAVacatedSeatKeepsTheSessionsCounters) {
    Schedule s;
    s.submit(10, 1, 10);
    s.submit(0, 1, 10);
    s.execute_due(10);
    s.clear();
    EXPECT_FALSE(s.held());
    EXPECT_FALSE(s.execute_due(11));
    EXPECT_EQ(s.counters().accepted, 1u);
    EXPECT_EQ(s.counters().rejected(), 1u);
    EXPECT_EQ(s.submit(7, 9, 6), Submission::Scheduled);  // history restarts with the seat
}

// Two players press on the same tick; one is 20 ms away, the other 180 ms with jitter. With a
// playout delay covering the slower link both inputs execute on the tick they named.
TEST(InputSchedule, TwoPlayersWhoPressedTogetherExecuteTogetherWhateverTheirPing) {
    constexpr double kTickMs = 16.0;
    const InputScheduleOptions options{.playout_delay_ticks = 14, .max_late_ticks = 4, .max_early_ticks = 30};
    Schedule near(options), far(options);
    struct Press {
        Tick tick;
        int value;
    };
    test_support::TestDelayQueue<Press> near_link({.latency_ms = 20.0, .jitter_ms = 5.0}, 71);
    test_support::TestDelayQueue<Press> far_link({.latency_ms = 180.0, .jitter_ms = 30.0}, 72);
    int both_same_tick = 0, presses = 0;
    for (Tick tick = 0; tick < 400; ++tick) {
        const double now = static_cast<double>(tick) * kTickMs;
        if (tick % 25 == 5 && tick < 350) {
            near_link.send(now, {tick, static_cast<int>(tick)});
            far_link.send(now, {tick, static_cast<int>(tick)});
            ++presses;
        }
        near_link.deliver(now, [&](const Press& p) { near.submit(p.tick, p.value, tick); });
        far_link.deliver(now, [&](const Press& p) { far.submit(p.tick, p.value, tick); });
        const auto a = near.execute_due(tick);
        const auto b = far.execute_due(tick);
        if (a && b && a->fresh && b->fresh && a->input == b->input) ++both_same_tick;
    }
    EXPECT_EQ(both_same_tick, presses);
    EXPECT_EQ(near.counters().late + far.counters().late + near.counters().rejected() + far.counters().rejected(), 0u);
}

}  // namespace
}  // namespace vantage
