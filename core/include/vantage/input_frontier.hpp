// InputFrontier: the server half of sequenced inputs applied on arrival.
//
// A client numbers its inputs (PredictedEntity) and, over an unreliable link, may resend
// them, lose some and deliver others out of order. The server applies an input only if it
// is newer than every input it has applied from that client, and acknowledges the newest
// applied sequence with each state it sends. Duplicates and reordered stragglers are refused;
// a jump in the sequence is counted as inputs that never arrived (the client's replay still
// includes them, so prediction and authority disagree by exactly what was lost).
//
// This is the "apply on arrival" model; InputSchedule is the tick-addressed alternative.
#pragma once

#include <cstdint>

namespace vantage {

// Counters since construction or reset().
struct InputFrontierCounters {
    std::uint64_t accepted = 0;
    // Duplicates and out-of-order inputs not applied.
    std::uint64_t refused = 0;
    // Sequence numbers jumped over: inputs lost or overtaken on the way.
    std::uint64_t skipped = 0;
};

class InputFrontier {
public:
    // True when `seq` is new and should be applied; it becomes the acknowledged frontier.
    bool accept(std::uint32_t seq) {
        if (seq <= newest_) {
            ++counters_.refused;
            return false;
        }
        counters_.skipped += seq - newest_ - 1;
        newest_ = seq;
        ++counters_.accepted;
        return true;
    }
    // The newest applied sequence: what to acknowledge (0 before any).
    std::uint32_t acked_seq() const { return newest_; }
    const InputFrontierCounters& counters() const { return counters_; }
    void reset() { *this = InputFrontier{}; }

private:
    std::uint32_t newest_ = 0;
    InputFrontierCounters counters_;
};

}  // namespace vantage
