// UdpSocket: the thin glue between the datagram state machines (UdpServer, UdpClient) and a
// real UDP socket (Asio, non-blocking). It only moves bytes: receive() hands every datagram
// waiting to a callback with its source address, send_all() puts an outbox on the wire. No
// thread, no timer: the caller polls it from its own loop (the room's tick, a bot's loop, a
// test), so time stays the caller's argument to the state machines.
//
// This header is Boost-free (pimpl), like the room server's.
//
// Not guaranteed: delivery (it is UDP). A send the kernel refuses (a full buffer, EPERM from
// a firewall on output) is dropped and counted in send_failures(), not retried.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "room/udp_address.hpp"
#include "room/udp_datagram_queue.hpp"

namespace vantage::room {

class UdpSocket {
public:
    UdpSocket();
    ~UdpSocket();
    UdpSocket(const UdpSocket&) = delete;
    UdpSocket& operator=(const UdpSocket&) = delete;

    // Binds to `bind` (port 0: an ephemeral port). Empty on success, else why not.
    std::string open(const UdpAddress& bind);
    bool is_open() const;
    // The bound address and port (after open).
    UdpAddress local_address() const;

    // Waits up to timeout_ms for a datagram to be readable (0: just checks). True when one is.
    bool wait(int timeout_ms);
    // Reads every datagram waiting, calling fn(from, bytes) for each; returns how many. A
    // datagram longer than the read buffer (2048 bytes, above any valid packet) arrives cut
    // short, which the decoders refuse.
    std::size_t receive(const std::function<void(const UdpAddress&, std::span<const std::uint8_t>)>& fn);
    // Sends one datagram; false when the kernel refused it (counted).
    bool send(const UdpAddress& to, std::span<const std::uint8_t> bytes);
    // Sends every datagram in `outbox` and clears it.
    void send_all(UdpDatagramQueue& outbox);

    std::uint64_t datagrams_sent() const { return datagrams_sent_; }
    std::uint64_t datagrams_received() const { return datagrams_received_; }
    std::uint64_t bytes_sent() const { return bytes_sent_; }  // UDP payload bytes (no IP/UDP headers)
    std::uint64_t bytes_received() const { return bytes_received_; }
    std::uint64_t send_failures() const { return send_failures_; }

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::uint64_t datagrams_sent_ = 0;
    std::uint64_t datagrams_received_ = 0;
    std::uint64_t bytes_sent_ = 0;
    std::uint64_t bytes_received_ = 0;
    std::uint64_t send_failures_ = 0;
};

}  // namespace vantage::room
