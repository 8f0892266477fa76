#include "common/packet_log.hpp"

#include <algorithm>

namespace vantage::play {

void PacketLog::record(bool up, std::uint64_t key, double sent_ms, bool lost, std::span<const std::uint8_t> bytes) {
    if (marks_.size() >= capacity_) {
        std::rotate(marks_.begin(), marks_.begin() + 1, marks_.end());  // the oldest's buffer goes last
    } else {
        marks_.emplace_back();
        marks_.back().bytes.reserve(reserved_);
    }
    PacketMark& slot = marks_.back();  // fields set one by one: the byte buffer keeps its capacity
    slot.up = up;
    slot.key = key;
    slot.sent_ms = sent_ms;
    slot.arrived_ms = -1.0;
    slot.lost = lost;
    slot.ignored = false;
    slot.bytes.assign(bytes.begin(), bytes.end());
}

PacketMark* PacketLog::find(bool up, std::uint64_t key) {
    for (auto it = marks_.rbegin(); it != marks_.rend(); ++it)
        if (it->up == up && it->key == key) return &*it;
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
    for (const PacketMark& m : marks_)
        if (m.up == up && m.sent_ms == sent_ms) return &m;
    return nullptr;
}

}  // namespace vantage::play
