// PredictedEntity: client-side prediction with server reconciliation for the entity a
// player controls.
//
// Waiting a round trip to see your own input move you feels broken, so the client applies
// each input at once with the same step function the server runs, and sends it numbered.
// The server answers with its authoritative state and the newest input sequence it has
// applied. The client then rewinds to that state and replays every input the server has not
// yet applied: if the server agreed with the prediction nothing visibly changes, and if it
// did not (a wall only the server knew about, another player's push) the prediction is
// corrected while keeping the inputs still in flight.
//
// Pending inputs live in a fixed ring (max_pending_inputs); overflowing it drops the oldest
// and counts it, because a replay missing inputs is no longer exact. Sequence numbers start
// at 1 and do not wrap within a session (2^32 inputs at 60 Hz is over two years).
//
// Reconciliation snaps the *simulation* state; pair it with CorrectionSmoother so the drawn
// state eases across the correction instead. Nothing here allocates after construction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "vantage/assert.hpp"

namespace vantage {

template <class Input>
struct SequencedInput {
    std::uint32_t seq = 0;
    Input input{};
};

struct PredictionOptions {
    // Inputs awaiting acknowledgement (>= 1). Size it as round trip / input interval plus a
    // margin: 256 covers 4 s of 60 Hz input.
    std::size_t max_pending_inputs = 256;

    std::string_view validate() const {
        if (max_pending_inputs == 0) return "max_pending_inputs must be at least 1";
        return {};
    }
};

// What one reconcile() did.
struct Reconciliation {
    enum class Outcome {
        Replayed,   // snapped to the authority and replayed the pending inputs
        Stale,      // acknowledged less than an earlier reconcile did (reordered): ignored
        FutureAck,  // acknowledged an input never sent (bad data): snapped, pending cleared
    };
    Outcome outcome = Outcome::Replayed;
    std::size_t acknowledged = 0;  // pending inputs retired by this acknowledgement
    std::size_t replayed = 0;      // pending inputs replayed on top of the authority
};

// Names for logs, readouts and test failures (core/docs/conventions.md).
constexpr const char* to_string(Reconciliation::Outcome outcome) {
    switch (outcome) {
        case Reconciliation::Outcome::Replayed:
            return "replayed";
        case Reconciliation::Outcome::Stale:
            return "stale";
        case Reconciliation::Outcome::FutureAck:
            return "future ack";
    }
    return "unknown reconciliation outcome";
}

// Counters since construction.
struct PredictedEntityCounters {
    // Inputs dropped unacknowledged because the ring was full (lifetime count).
    std::uint64_t overflowed = 0;
};

template <class State, class Input>
class PredictedEntity {
public:
    explicit PredictedEntity(const State& initial, PredictionOptions options = {})
        : options_(options), predicted_(initial), authoritative_(initial) {
        VANTAGE_ASSERT_VALID(options_, "PredictedEntity: invalid PredictionOptions");
        ring_.resize(options_.max_pending_inputs);
    }

    // Applies `input` to the prediction now and keeps it until acknowledged. `step` is the
    // simulation rule, called as step(State&, const Input&). Returns the input's sequence
    // number, to send with it.
    template <class Step>
    std::uint32_t apply_input(const Input& input, Step&& step) {
        const std::uint32_t seq = ++latest_seq_;
        if (count_ == ring_.size()) {
            pop_oldest();
            ++counters_.overflowed;
        }
        ring_[(head_ + count_) % ring_.size()] = {seq, input};
        ++count_;
        step(predicted_, input);
        return seq;
    }

    // The server says: after applying inputs up to `acked_seq`, the entity is `authoritative`.
    template <class Step>
    Reconciliation reconcile(const State& authoritative, std::uint32_t acked_seq, Step&& step) {
        Reconciliation r;
        if (acked_seq < acked_seq_) {
            r.outcome = Reconciliation::Outcome::Stale;
            return r;
        }
        authoritative_ = authoritative;
        if (acked_seq > latest_seq_) {
            r.outcome = Reconciliation::Outcome::FutureAck;
            r.acknowledged = count_;
            teleport(authoritative);
            acked_seq_ = latest_seq_;
            return r;
        }
        acked_seq_ = acked_seq;
        while (count_ > 0 && ring_[head_].seq <= acked_seq) {
            pop_oldest();
            ++r.acknowledged;
        }
        predicted_ = authoritative;
        for (std::size_t i = 0; i < count_; ++i) step(predicted_, ring_[(head_ + i) % ring_.size()].input);
        r.replayed = count_;
        return r;
    }

    // Moves the entity without a journey (spawn, respawn): the prediction and the authority
    // both become `state` and pending inputs are dropped, since replaying them would re-walk
    // a path that no longer starts here.
    void teleport(const State& state) {
        predicted_ = state;
        authoritative_ = state;
        head_ = 0;
        count_ = 0;
    }

    // The state to simulate and draw from (before correction smoothing).
    const State& predicted() const { return predicted_; }
    // The newest state the server confirmed.
    const State& authoritative() const { return authoritative_; }
    std::uint32_t latest_seq() const { return latest_seq_; }
    std::uint32_t acked_seq() const { return acked_seq_; }
    std::size_t pending_count() const { return count_; }
    // Pending input i, oldest first (i < pending_count()). A client that resends every
    // unacknowledged input in each packet (as Overwatch does) reads them here.
    const SequencedInput<Input>& pending(std::size_t i) const {
        VANTAGE_ASSERT(i < count_, "PredictedEntity::pending: index out of range (see pending_count())");
        return ring_[(head_ + i) % ring_.size()];
    }
    const PredictedEntityCounters& counters() const { return counters_; }

private:
    void pop_oldest() {
        head_ = (head_ + 1) % ring_.size();
        --count_;
    }

    PredictionOptions options_;
    State predicted_;
    State authoritative_;
    std::vector<SequencedInput<Input>> ring_;
    std::size_t head_ = 0;
    std::size_t count_ = 0;
    std::uint32_t latest_seq_ = 0;
    std::uint32_t acked_seq_ = 0;
    PredictedEntityCounters counters_;
};

}  // namespace vantage
