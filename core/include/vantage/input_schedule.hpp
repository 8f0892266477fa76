// InputSchedule: one seat's inputs, addressed to the server tick they are meant for.
//
// Inputs executed on arrival inherit the link's jitter: two players who pressed together
// act on different ticks. Here the client names the tick, the schedule holds the input until
// that tick (plus a fixed playout delay that absorbs jitter), and the server takes what is
// due when it simulates. The window rejects and never corrects: an input further than
// `max_late_ticks` past its tick, or further than `max_early_ticks` ahead of the server, is
// refused and counted by direction (a client whose clock runs behind shows up as "late", one
// trying to park inputs in the future as "early"). A late input inside the window still
// executes, at the next tick simulated, and is counted.
//
// Two ways to consume:
//   - execute_due has *level* semantics, for held state (movement keys, aim): the newest due
//     input wins, older ones due in the same step are superseded, and when nothing new is due
//     the held input repeats until replaced.
//   - drain_due has *event* semantics, for discrete actions: every due input, in order.
// A client cannot reorder its own history: an input naming a tick at or before one whose
// input has already executed is refused as superseded (this also drops duplicates).
//
// `current` is always passed in, derived from the simulation clock, and means the next tick
// the server will simulate. Capacity is fixed; nothing allocates after construction.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "vantage/assert.hpp"

namespace vantage {

using Tick = std::int64_t;

struct InputScheduleOptions {
    // Ticks added to the tick an input names before it executes (>= 0). Every input from
    // every seat is shifted alike, so inputs pressed together still execute together.
    Tick playout_delay_ticks = 0;
    // An input may execute this many ticks after its (delayed) tick, late (>= 0).
    Tick max_late_ticks = 4;
    // An input may wait at most this many ticks ahead of `current` (>= 0).
    Tick max_early_ticks = 10;
    // Inputs buffered at once (>= 1); more are refused as Full.
    std::size_t max_queued = 32;

    std::string_view validate() const {
        if (playout_delay_ticks < 0) return "playout_delay_ticks must be non-negative";
        if (max_late_ticks < 0) return "max_late_ticks must be non-negative";
        if (max_early_ticks < 0) return "max_early_ticks must be non-negative";
        if (max_queued == 0) return "max_queued must be at least 1";
        return {};
    }
};

enum class Submission {
    Scheduled,   // buffered for its tick
    Late,        // buffered; its tick has passed, it runs at the next tick simulated
    TickClosed,  // refused: later than max_late_ticks
    TooEarly,    // refused: further ahead than max_early_ticks
    Superseded,  // refused: an input for this or a later tick has already executed
    Full,        // refused: the queue is at max_queued
};

// Names for logs, readouts and test failures (core/docs/conventions.md).
constexpr const char* to_string(Submission submission) {
    switch (submission) {
        case Submission::Scheduled:
            return "scheduled";
        case Submission::Late:
            return "late";
        case Submission::TickClosed:
            return "tick closed";
        case Submission::TooEarly:
            return "too early";
        case Submission::Superseded:
            return "superseded";
        case Submission::Full:
            return "full";
    }
    return "unknown submission";
}

constexpr bool accepted(Submission s) {
    return s == Submission::Scheduled || s == Submission::Late;
}

template <class Input>
struct ScheduledInput {
    Input input{};
    Tick named_tick = 0;  // the tick the client named
    // True on the tick it came due; false while it is being held (repeated).
    bool fresh = false;
};

// Counters since construction; clear() keeps them.
struct InputScheduleCounters {
    std::uint64_t accepted = 0;
    // Accepted inputs whose tick had already passed (a subset of accepted).
    std::uint64_t late = 0;
    std::uint64_t rejected_closed = 0;
    std::uint64_t rejected_early = 0;
    std::uint64_t rejected_superseded = 0;
    std::uint64_t rejected_full = 0;
    // Accepted inputs that came due in the same step as a newer one (level semantics).
    std::uint64_t superseded_due = 0;
    // Ticks at which the held input repeated because nothing new was due (starvation).
    std::uint64_t repeated = 0;
    std::uint64_t rejected() const { return rejected_closed + rejected_early + rejected_superseded + rejected_full; }
};

template <class Input>
class InputSchedule {
public:
    InputSchedule() : InputSchedule(InputScheduleOptions{}) {}
    explicit InputSchedule(InputScheduleOptions options) : options_(options) {
        VANTAGE_ASSERT_VALID(options_, "InputSchedule: invalid InputScheduleOptions");
        queue_.reserve(options_.max_queued);
    }

    Submission submit(Tick named_tick, const Input& input, Tick current) {
        const Tick due = named_tick + options_.playout_delay_ticks;
        Submission result;
        if (due + options_.max_late_ticks < current) {
            result = Submission::TickClosed;
            ++counters_.rejected_closed;
        } else if (due > current + options_.max_early_ticks) {
            result = Submission::TooEarly;
            ++counters_.rejected_early;
        } else if (executed_any_ && named_tick <= newest_executed_named_) {
            result = Submission::Superseded;
            ++counters_.rejected_superseded;
        } else if (queued() == options_.max_queued) {
            result = Submission::Full;
            ++counters_.rejected_full;
        } else {
            // Executed entries leave by moving head_; the storage is compacted only when an
            // insert would otherwise grow it, so a steady stream moves a few entries once per
            // max_queued submissions instead of the whole queue on every tick.
            if (head_ > 0 && queue_.size() == queue_.capacity()) {
                queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(head_));
                head_ = 0;
            }
            // Stable: equal due ticks keep arrival order.
            const auto it = std::upper_bound(queue_.begin() + static_cast<std::ptrdiff_t>(head_), queue_.end(), due,
                                             [](Tick t, const Entry& e) { return t < e.due; });
            queue_.insert(it, {due, named_tick, input});
            ++counters_.accepted;
            if (due < current) {
                ++counters_.late;
                return Submission::Late;
            }
            return Submission::Scheduled;
        }
        last_reject_margin_ = due - current;
        return result;
    }

    // Level semantics: the input in force at tick `current`. Empty until the first input
    // comes due (or after clear()).
    std::optional<ScheduledInput<Input>> execute_due(Tick current) {
        std::size_t end = head_;
        while (end < queue_.size() && queue_[end].due <= current) ++end;
        if (end > head_) {
            const Entry& newest = queue_[end - 1];
            held_ = ScheduledInput<Input>{newest.input, newest.named_tick, true};
            note_executed(newest.named_tick);
            counters_.superseded_due += end - head_ - 1;
            pop_front_to(end);
            return held_;
        }
        if (!held_) return std::nullopt;
        ++counters_.repeated;
        ScheduledInput<Input> repeat = *held_;
        repeat.fresh = false;
        return repeat;
    }

    // Event semantics: calls fn(const Input&, Tick named_tick) for every input due at
    // `current`, in tick order. Returns how many were delivered.
    template <class Fn>
    std::size_t drain_due(Tick current, Fn&& fn) {
        std::size_t end = head_;
        while (end < queue_.size() && queue_[end].due <= current) {
            fn(static_cast<const Input&>(queue_[end].input), queue_[end].named_tick);
            note_executed(queue_[end].named_tick);
            ++end;
        }
        const std::size_t delivered = end - head_;
        pop_front_to(end);
        return delivered;
    }

    // Drops queued and held inputs (a seat vacated or a world rebuilt). Counters survive:
    // they describe the session, and a caller wanting a clean slate for a new occupant
    // constructs a new schedule.
    void clear() {
        queue_.clear();
        head_ = 0;
        held_.reset();
        executed_any_ = false;
        newest_executed_named_ = 0;
    }

    std::size_t queued() const { return queue_.size() - head_; }
    const std::optional<ScheduledInput<Input>>& held() const { return held_; }

    const InputScheduleCounters& counters() const { return counters_; }
    // For the newest refusal: its due tick minus `current` (negative = late, positive =
    // early). Empty until something is refused.
    std::optional<Tick> last_reject_margin() const { return last_reject_margin_; }
    const InputScheduleOptions& options() const { return options_; }

private:
    struct Entry {
        Tick due;
        Tick named_tick;
        Input input;
    };
    // Drops the entries before `end` (executed): an emptied queue rewinds, otherwise the head moves.
    void pop_front_to(std::size_t end) {
        if (end == queue_.size()) {
            queue_.clear();
            head_ = 0;
        } else {
            head_ = end;
        }
    }
    void note_executed(Tick named_tick) {
        if (!executed_any_ || named_tick > newest_executed_named_) newest_executed_named_ = named_tick;
        executed_any_ = true;
    }

    InputScheduleOptions options_;
    std::vector<Entry> queue_;  // [head_, end) queued, ascending by due tick, arrival order within a tick
    std::size_t head_ = 0;      // entries before it were executed
    std::optional<ScheduledInput<Input>> held_;
    Tick newest_executed_named_ = 0;
    bool executed_any_ = false;
    InputScheduleCounters counters_;
    std::optional<Tick> last_reject_margin_;
};

}  // namespace vantage
