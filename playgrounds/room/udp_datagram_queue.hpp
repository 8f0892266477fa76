// UdpDatagramQueue: datagrams waiting to be sent or read, each with its peer's address and
// (for a server's inbox) the slot it came from. The bytes live in one buffer, so a steady
// stream allocates nothing once the buffer has grown; clear() keeps the capacity.
//
// The state machines (UdpServer, UdpClient) fill an outbox and an inbox of payloads and never
// touch a socket; the socket glue (UdpSocket) drains the outbox onto the wire. Spans from
// bytes() stay valid until the next push or clear.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "room/udp_address.hpp"

namespace vantage::room {

class UdpDatagramQueue {
public:
    struct Entry {
        UdpAddress peer;
        std::uint32_t slot = 0;  // the server's client index for a received payload, else 0
        std::size_t offset = 0;
        std::size_t size = 0;
    };

    void push(const UdpAddress& peer, std::uint32_t slot, std::span<const std::uint8_t> bytes) {
        entries_.push_back({peer, slot, bytes_.size(), bytes.size()});
        bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
    }
    std::size_t size() const { return entries_.size(); }
    bool empty() const { return entries_.empty(); }
    const Entry& entry(std::size_t i) const { return entries_[i]; }
    std::span<const std::uint8_t> bytes(std::size_t i) const {
        return std::span(bytes_).subspan(entries_[i].offset, entries_[i].size);
    }
    void clear() {
        entries_.clear();
        bytes_.clear();
    }

private:
    std::vector<Entry> entries_;
    std::vector<std::uint8_t> bytes_;
};

}  // namespace vantage::room
