// AckWindow: which of the last 64 sequence numbers arrived, as newest + a 64-bit mask.
//
// The receiver observes every frame it gets and reports (newest, mask) back; the sender
// rebuilds the same window from that report. Bit i of the mask means newest - 1 - i arrived,
// so the window covers newest and the 64 sequences before it. It costs the same whatever the
// loss rate, and a report repeats each acknowledgement 64 times, so losing acks costs
// nothing until 64 frames in a row are lost.
//
// The question DeltaBaseline asks is contiguous_base(first): the newest b such that every
// sequence from first to b arrived. That, not the newest bit set, is the state a receiver
// applying deltas can be assumed to hold: receiving N+1 after losing N does not put it in the
// state N+1 implies. Anything older than the window is unknowable and reported as such.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace vantage {

class AckWindow {
public:
    static constexpr std::uint64_t kWindow = 64;

    constexpr AckWindow() = default;
    // Rebuilds a window from a report (the sender's side).
    static constexpr AckWindow from_encoded(std::uint64_t newest, std::uint64_t mask) {
        AckWindow w;
        w.newest_ = newest;
        w.mask_ = mask;
        w.any_ = true;
        return w;
    }

    // Records seq. Returns true when it was not already recorded and is inside the window
    // (a duplicate, or anything older than newest - 64, returns false and changes nothing).
    bool observe(std::uint64_t seq);
    // (newest, mask), or nullopt before anything arrived: there is nothing to report.
    std::optional<std::pair<std::uint64_t, std::uint64_t>> encode() const;

    bool contains(std::uint64_t seq) const;
    std::optional<std::uint64_t> newest() const { return any_ ? std::optional<std::uint64_t>(newest_) : std::nullopt; }
    std::uint64_t mask() const { return mask_; }
    // How many of the 65 sequences the window covers arrived (0 when empty).
    std::uint32_t received_in_window() const;
    // Replaces out with, ascending, every sequence from max(oldest, newest - 64) to newest that did not
    // arrive. Nothing is reported for sequences the window cannot see.
    void missing_since(std::uint64_t oldest, std::vector<std::uint64_t>& out) const;
    // The newest b such that first..=b all arrived; nullopt when first did not arrive, is
    // newer than newest, or is older than the window (unknowable). At most 64 steps.
    std::optional<std::uint64_t> contiguous_base(std::uint64_t first) const;

    void reset() { *this = AckWindow{}; }

private:
    std::uint64_t newest_ = 0;
    std::uint64_t mask_ = 0;
    bool any_ = false;
};

}  // namespace vantage
