// LossyLink: a deterministic, seeded model of one direction of a datagram link.
//
// Netcode is only believable when it is shown failing, so every lane of a playground and
// every netcode test sends its bytes through one of these per direction instead of a socket.
// It models, in this order (GameNetworkingSockets' order of effects): random loss with
// Gilbert-Elliott burst loss, a token-bucket bandwidth cap with a bounded queue (tail drop),
// base latency, jitter, explicit reordering, and duplication.
//
// Time is an argument (ms, any origin, non-decreasing); the link never reads a clock. Each
// effect draws from its own XorShift stream derived from the seed, so the same seed loses
// the same packets whatever the jitter or reorder settings, and a run replays exactly.
//
// Jitter alone delays packets but never reorders them (a later packet is held until the one
// before it is out); reordering is its own knob, which holds a packet back by reorder_ms so
// that later ones overtake it. A duplicate is a second delivery of the same bytes, up to
// duplicate_ms later, and does not consume bandwidth (it happens inside the network).
//
// With `stream` on, the link models a TCP stream instead of datagrams: a packet the loss model
// loses is resent after a retransmission timeout (rto_ms, doubling for each consecutive loss
// of the same packet, as TCP backs off) and arrives late instead of never; nothing overtakes
// (head-of-line blocking: a late packet holds every later one), nothing arrives twice, and
// neither the queue limit nor the MTU drops anything (a stream segments and waits). Nothing
// is lost in stream mode. The first loss draw is the datagram mode's, so the same seed delays
// exactly the packets it would have lost; retransmissions draw from their own stream.
//
// Payload buffers are recycled: after warm-up, a steady send/poll loop does not allocate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "vantage/random.hpp"

namespace vantage {

struct LossyLinkOptions {
    std::uint64_t seed = 1;           // any value; equal seeds give equal runs
    double latency_ms = 0.0;          // one-way base delay, ms, [0, 60000]
    double jitter_ms = 0.0;           // extra delay uniform in [0, jitter_ms], ms, [0, 60000]
    float loss = 0.0f;                // loss probability per packet in the good state, [0, 1]
    float burst_enter = 0.0f;         // P(good -> bad) per packet, [0, 1]; 0 disables bursts (and ends one)
    float burst_exit = 0.25f;         // P(bad -> good) per packet, (0, 1]; mean burst 1/exit packets
    float burst_loss = 1.0f;          // loss probability per packet in the bad state, [0, 1]
    float reorder = 0.0f;             // probability a packet is held back, [0, 1]
    double reorder_ms = 30.0;         // how long a held-back packet waits extra, ms, [0, 60000]
    float duplicate = 0.0f;           // probability a delivered packet arrives twice, [0, 1]
    double duplicate_ms = 20.0;       // the copy arrives up to this much later, ms, [0, 60000]
    double rate_bytes_per_sec = 0.0;  // bandwidth cap, bytes/s, >= 0; 0 means unlimited
    double burst_bytes = 4096.0;      // token-bucket depth, bytes, >= 1 (sent at once after idle)
    double max_queue_ms = 1000.0;     // a packet that would queue longer is dropped, ms, >= 0
    std::size_t mtu_bytes = 0;        // largest packet carried, bytes, >= 0; 0 = any size; larger are dropped
    bool stream = false;              // a stream (TCP): losses are resent, late, in order; nothing is lost
    double rto_ms = 200.0;            // stream: wait before the first resend, ms, [1, 60000]; doubles per loss

    // Empty when every field is in range, otherwise a message naming the first bad field.
    std::string_view validate() const;
    // Long-run fraction of packets lost by the loss and burst model (ignores the cap).
    double expected_loss() const;
};

// Counters since construction or reset(). Duplicated deliveries count as delivered.
struct LossyLinkCounters {
    std::uint64_t packets_sent = 0;  // offered to send()
    std::uint64_t bytes_sent = 0;
    std::uint64_t packets_lost = 0;  // lost by the random and burst model
    std::uint64_t bytes_lost = 0;
    std::uint64_t packets_dropped = 0;  // dropped by the bandwidth cap's full queue
    std::uint64_t bytes_dropped = 0;
    std::uint64_t packets_duplicated = 0;
    std::uint64_t packets_oversize = 0;   // larger than mtu_bytes: dropped
    std::uint64_t packets_delivered = 0;  // handed out by poll()
    std::uint64_t bytes_delivered = 0;
    std::uint64_t retransmissions = 0;  // stream mode: resends (a packet lost twice counts two)
};

// Stream mode's retransmission: the backoff stops doubling after this many doublings (64x
// rto_ms, and never more than 60 s per wait), and the packet goes through after this many
// resends whatever the draws (TCP aborts the connection after 15; this link never aborts).
constexpr int kLossyLinkMaxBackoffDoublings = 6;
constexpr int kLossyLinkMaxRetransmissions = 15;

enum class SendFate : std::uint8_t {
    Scheduled,      // will be delivered (possibly twice)
    Retransmitted,  // stream mode: lost, resent, will be delivered late
    Lost,           // lost by the random or burst model
    Dropped,        // the bandwidth cap's queue was full
    Oversize,       // larger than mtu_bytes
};

// True when the packet will be delivered (on time or, resent, late).
constexpr bool arrives(SendFate fate) {
    return fate == SendFate::Scheduled || fate == SendFate::Retransmitted;
}

// Names for logs, readouts and test failures (core/docs/conventions.md).
constexpr const char* to_string(SendFate fate) {
    switch (fate) {
        case SendFate::Scheduled:
            return "scheduled";
        case SendFate::Retransmitted:
            return "retransmitted";
        case SendFate::Lost:
            return "lost";
        case SendFate::Dropped:
            return "dropped";
        case SendFate::Oversize:
            return "oversize";
    }
    return "unknown send fate";
}

class LossyLink {
public:
    explicit LossyLink(const LossyLinkOptions& options = {});

    // Offers one datagram at time now_ms. The bytes are copied.
    SendFate send(double now_ms, std::span<const std::uint8_t> bytes);
    // Moves the earliest datagram due at or before now_ms into out (replacing its contents)
    // and returns true; false when nothing is due. Ties deliver in send order.
    bool poll(double now_ms, std::vector<std::uint8_t>& out);
    // Replaces out with every datagram due at or before now_ms, in delivery order; returns
    // how many. Convenient in tests; poll() is the allocation-free path.
    std::size_t receive(double now_ms, std::vector<std::vector<std::uint8_t>>& out);

    // Changes the impairments live (a slider moved). Packets already in flight keep their
    // schedule; the random streams continue, so the seed is ignored here.
    void set_options(const LossyLinkOptions& options);
    const LossyLinkOptions& options() const { return options_; }
    // Forgets everything in flight, the counters and the burst state; reseeds from options.
    void reset();

    const LossyLinkCounters& counters() const { return counters_; }
    // Datagrams scheduled but not yet polled (duplicates included).
    std::size_t in_flight() const { return heap_.size(); }
    // Delivery time of the earliest datagram in flight, or a negative value when none is.
    double next_delivery_ms() const;
    // True while the Gilbert-Elliott model is in its bad (bursty) state.
    bool in_burst() const { return bad_state_; }

private:
    struct Pending {
        double at_ms;
        std::uint64_t serial;  // send order, to break ties deterministically
        std::uint32_t slot;    // index into payloads_
    };
    void schedule(double at_ms, std::span<const std::uint8_t> bytes);
    // Brings the token bucket up to now_ms; how long `size` bytes wait for tokens (0 uncapped).
    double cap_wait_ms(double now_ms, std::size_t size);
    SendFate send_stream(double now_ms, std::span<const std::uint8_t> bytes, bool lost, float jitter_draw);
    void pop_into(std::vector<std::uint8_t>& out);

    LossyLinkOptions options_;
    XorShift loss_rng_{1};
    XorShift burst_rng_{1};
    XorShift delay_rng_{1};
    XorShift reorder_rng_{1};
    XorShift duplicate_rng_{1};
    XorShift retransmit_rng_{1};
    bool bad_state_ = false;
    double tokens_ = 0.0;        // bytes; negative while a queue is draining
    double tokens_at_ms_ = 0.0;  // when tokens_ was last brought up to date
    bool started_ = false;
    double last_now_ms_ = 0.0;
    double order_floor_ms_ = 0.0;  // in-order packets are never delivered before this
    std::uint64_t next_serial_ = 0;
    std::vector<Pending> heap_;  // min-heap on (at_ms, serial)
    std::vector<std::vector<std::uint8_t>> payloads_;
    std::vector<std::uint32_t> free_slots_;
    std::size_t largest_payload_ = 0;  // bytes, the largest ever scheduled
    LossyLinkCounters counters_;
};

}  // namespace vantage
