#include "common/packet_log.hpp"

#include <algorithm>

namespace vantage::play {

void PacketLog::record(bool up, std::uint64_t key, double sent_ms, bool lost, std::span<const std::uint8_t> bytes) {
    if (end_ - begin_ == capacity_) ++begin_;  // the oldest drops out; its slot keeps its buffer
    if (end_ == marks_.size()) {
        if (marks_.size() < 2 * capacity_) {
            marks_.emplace_back();
            marks_.back().bytes.reserve(reserved_);
        } else {
            // The live marks to the front, the dropped slots (and their buffers) after them.
            std::rotate(marks_.begin(), marks_.begin() + static_cast<std::ptrdiff_t>(begin_), marks_.end());
            end_ -= begin_;
            begin_ = 0;
        }
    }
    PacketMark& slot = marks_[end_++];  // fields set one by one: the byte buffer keeps its capacity
    slot.up = up;
    slot.key = key;
    slot.sent_ms = sent_ms;
    slot.arrived_ms = -1.0;
    slot.lost = lost;
    slot.ignored = false;
    slot.bytes.assign(bytes.begin(), bytes.end());
}

PacketMark* PacketLog::find(bool up, std::uint64_t key) {
    for (std::size_t i = end_; i > begin_; --i)
        if (marks_[i - 1].up == up && marks_[i - 1].key == key) return &marks_[i - 1];
    return nullptr;
}

bool PacketLog::arrived(bool up, std::uint64_t key, double at_ms, bool ignored) {
    PacketMark* m = find(up, key);
    if (!m) return false;
    if (m->arrived_ms >= 0.0) return true;  // a duplicate: the first arrival is what the receiver did
    m->arrived_ms = at_ms;
    m->ignored = ignored;
    return true;
}

const PacketMark* PacketLog::find_sent_at(bool up, double sent_ms) const {
    for (const PacketMark& m : marks())
        if (m.up == up && m.sent_ms == sent_ms) return &m;
    return nullptr;
}

}  // namespace vantage::play
