#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "test_delay_queue.hpp"
#include "vantage/input_schedule.hpp"
#include "vantage/random.hpp"

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

// The schedule against a plain model (a stable-sorted vector, erased from the front) over
// random submissions around the current tick, both ways of executing, and clears: small
// queues, so refusals when full and the storage's compaction happen often.
TEST(InputSchedule, MatchesAPlainModelOverManySeeds) {
    struct Queued {
        Tick due, named;
        int input;
    };
    for (std::uint64_t seed = 1; seed <= 200; ++seed) {
        XorShift rng(seed);
        InputScheduleOptions o;
        o.playout_delay_ticks = static_cast<Tick>(rng.below(3));
        o.max_late_ticks = static_cast<Tick>(rng.below(4));
        o.max_early_ticks = 2 + static_cast<Tick>(rng.below(8));
        o.max_queued = 1 + static_cast<std::size_t>(rng.below(8));
        Schedule s(o);
        std::vector<Queued> model;
        std::optional<int> held;
        bool executed_any = false;
        Tick newest_named = 0;
        Tick now = 0;
        int next_input = 0;
        for (int step = 0; step < 400; ++step) {
            const std::uint64_t what = rng.below(10);
            if (what < 6) {
                const Tick named = now - 6 + static_cast<Tick>(rng.below(20));
                const int input = ++next_input;
                const Tick due = named + o.playout_delay_ticks;
                Submission expect = Submission::Scheduled;
                if (due + o.max_late_ticks < now) {
                    expect = Submission::TickClosed;
                } else if (due > now + o.max_early_ticks) {
                    expect = Submission::TooEarly;
                } else if (executed_any && named <= newest_named) {
                    expect = Submission::Superseded;
                } else if (model.size() == o.max_queued) {
                    expect = Submission::Full;
                } else {
                    auto it = model.begin();
                    while (it != model.end() && it->due <= due) ++it;
                    model.insert(it, {due, named, input});
                    if (due < now) expect = Submission::Late;
                }
                ASSERT_EQ(s.submit(named, input, now), expect) << "seed " << seed << " step " << step;
            } else if (what < 9) {
                std::size_t n = 0;
                while (n < model.size() && model[n].due <= now) ++n;
                if (what < 8) {
                    const auto got = s.execute_due(now);
                    if (n > 0) {
                        held = model[n - 1].input;
                        ASSERT_TRUE(got && got->fresh) << "seed " << seed << " step " << step;
                    } else if (held) {
                        ASSERT_TRUE(got && !got->fresh) << "seed " << seed << " step " << step;
                    }
                    ASSERT_EQ(got.has_value(), held.has_value()) << "seed " << seed << " step " << step;
                    if (got) {
                        ASSERT_EQ(got->input, *held) << "seed " << seed << " step " << step;
                    }
                } else {
                    std::vector<int> delivered;
                    const std::size_t count =
                        s.drain_due(now, [&](const int& input, Tick) { delivered.push_back(input); });
                    ASSERT_EQ(count, n) << "seed " << seed << " step " << step;
                    ASSERT_EQ(delivered.size(), n);
                    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(delivered[i], model[i].input) << "seed " << seed;
                }
                for (std::size_t i = 0; i < n; ++i) {
                    if (!executed_any || model[i].named > newest_named) newest_named = model[i].named;
                    executed_any = true;
                }
                model.erase(model.begin(), model.begin() + static_cast<std::ptrdiff_t>(n));
                ++now;
            } else {
                s.clear();
                model.clear();
                held.reset();
                executed_any = false;
                newest_named = 0;
            }
            ASSERT_EQ(s.queued(), model.size()) << "seed " << seed << " step " << step;
        }
    }
}

}  // namespace
}  // namespace vantage
