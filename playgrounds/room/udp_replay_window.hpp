// UdpReplayWindow: which of the last 256 sequence numbers of one direction of a connection
// have been received, so a recorded packet sent again is refused.
//
// A packet is refused when its sequence is older than the newest received minus 255 (too old
// to tell) or was received already. The check comes before decryption (cheap) and the record
// after it succeeds, so a forged packet cannot fill the window. 256 entries hold about four
// seconds at 60 packets a second: a packet delayed longer than that is refused as a replay,
// which for game state that old costs nothing.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace vantage::room {

class UdpReplayWindow {
public:
    static constexpr std::size_t kSize = 256;

    // True when `sequence` must be refused: received already, or too old to know.
    bool already_received(std::uint64_t sequence) const {
        if (!any_) return false;
        if (sequence + kSize <= newest_) return true;
        return received_[sequence % kSize] == sequence;
    }
    // Records an authentic packet's sequence (after already_received said false).
    void record(std::uint64_t sequence) {
        if (!any_ || sequence > newest_) {
            newest_ = sequence;
            any_ = true;
        }
        received_[sequence % kSize] = sequence;
    }
    std::uint64_t newest() const { return newest_; }

private:
    // Slot s % kSize holds the last sequence recorded there; kEmpty marks a slot never used
    // (no sequence reaches it: a connection sends far fewer than 2^64 packets).
    static constexpr std::uint64_t kEmpty = std::numeric_limits<std::uint64_t>::max();
    std::array<std::uint64_t, kSize> received_ = filled();
    std::uint64_t newest_ = 0;
    bool any_ = false;

    static constexpr std::array<std::uint64_t, kSize> filled() {
        std::array<std::uint64_t, kSize> slots{};
        slots.fill(kEmpty);
        return slots;
    }
};

}  // namespace vantage::room
