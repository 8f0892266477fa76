// PacketLog: the newest packets of one connection as the inspector and the packet strip show
// them: when each was sent, its bytes, and then whether it arrived (and when), was lost, or
// arrived and was ignored (older than what the receiver held). UI-free.
//
// Capacity is fixed at construction. The marks live in twice that many slots, the newest
// capacity of them contiguous (oldest first), and once every slot has been used each record
// reuses a slot and its byte buffer, so a running stream logs without allocating after
// warm-up. When the live marks reach the last slot they are moved to the front, once per
// capacity records, so a record costs O(1) amortised (it was a rotation of the whole log).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace vantage::play {

struct PacketMark {
    bool up = false;           // client to server
    std::uint64_t key = 0;     // what the receiver names it by (a sequence, a stamp)
    double sent_ms = 0.0;      // sender's clock
    double arrived_ms = -1.0;  // sender's clock; negative while in flight or when lost
    bool lost = false;
    bool ignored = false;             // arrived, and the receiver dropped it (older than what it held)
    std::vector<std::uint8_t> bytes;  // the packet as sent
};

class PacketLog {
public:
    explicit PacketLog(std::size_t capacity = 192, std::size_t bytes_reserved = 768)
        : capacity_(capacity == 0 ? 1 : capacity), reserved_(bytes_reserved) {}

    // Appends a sent packet (its bytes copied; in flight unless `lost`), dropping the oldest
    // when full.
    void record(bool up, std::uint64_t key, double sent_ms, bool lost, std::span<const std::uint8_t> bytes);
    // The newest packet with this direction and key, or nullptr.
    PacketMark* find(bool up, std::uint64_t key);
    // Marks the newest packet with this key as arrived at `at_ms` (ignored when `ignored`);
    // false when no logged packet has the key.
    bool arrived(bool up, std::uint64_t key, double at_ms, bool ignored = false);
    // Oldest first.
    std::span<const PacketMark> marks() const { return {marks_.data() + begin_, end_ - begin_}; }
    // The packet sent in this direction at exactly `sent_ms` (a pick), or nullptr.
    const PacketMark* find_sent_at(bool up, double sent_ms) const;
    void clear() { begin_ = end_ = 0; }  // the slots and their buffers stay
    std::size_t capacity() const { return capacity_; }

private:
    std::size_t capacity_;
    std::size_t reserved_;
    std::vector<PacketMark> marks_;  // up to 2 x capacity slots; live: [begin_, end_), oldest first
    std::size_t begin_ = 0;
    std::size_t end_ = 0;
};

}  // namespace vantage::play
