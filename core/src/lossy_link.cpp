#include "vantage/lossy_link.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "vantage/assert.hpp"

namespace vantage {
namespace {

bool probability(float p) {
    return std::isfinite(p) && p >= 0.0f && p <= 1.0f;
}
bool duration(double ms) {
    return std::isfinite(ms) && ms >= 0.0 && ms <= 60000.0;
}

// Orders the heap so that the front is the earliest delivery, ties in send order.
struct Later {
    template <class P>
    bool operator()(const P& a, const P& b) const {
        return a.at_ms != b.at_ms ? a.at_ms > b.at_ms : a.serial > b.serial;
    }
};

// Independent streams per effect: changing one knob must not reshuffle another's draws.
XorShift stream(std::uint64_t seed, std::uint64_t which) {
    return XorShift(mix64(seed ^ mix64(which + 0x51ED270B0A1ULL)));
}

}  // namespace

std::string_view LossyLinkOptions::validate() const {
    if (!duration(latency_ms)) return "latency_ms must be in [0, 60000]";
    if (!duration(jitter_ms)) return "jitter_ms must be in [0, 60000]";
    if (!probability(loss)) return "loss must be in [0, 1]";
    if (!probability(burst_enter)) return "burst_enter must be in [0, 1]";
    if (!probability(burst_exit) || burst_exit <= 0.0f) return "burst_exit must be in (0, 1]";
    if (!probability(burst_loss)) return "burst_loss must be in [0, 1]";
    if (!probability(reorder)) return "reorder must be in [0, 1]";
    if (!duration(reorder_ms)) return "reorder_ms must be in [0, 60000]";
    if (!probability(duplicate)) return "duplicate must be in [0, 1]";
    if (!duration(duplicate_ms)) return "duplicate_ms must be in [0, 60000]";
    if (!std::isfinite(rate_bytes_per_sec) || rate_bytes_per_sec < 0.0) return "rate_bytes_per_sec must be >= 0";
    if (!std::isfinite(burst_bytes) || burst_bytes < 1.0) return "burst_bytes must be >= 1";
    if (!duration(max_queue_ms)) return "max_queue_ms must be in [0, 60000]";
    if (!duration(rto_ms) || rto_ms < 1.0) return "rto_ms must be in [1, 60000]";
    return {};
}

double LossyLinkOptions::expected_loss() const {
    const double enter = burst_enter;
    const double exit = burst_exit;
    const double bad = enter > 0.0 ? enter / (enter + exit) : 0.0;
    return static_cast<double>(loss) * (1.0 - bad) + static_cast<double>(burst_loss) * bad;
}

LossyLink::LossyLink(const LossyLinkOptions& options) : options_(options) {
    VANTAGE_ASSERT_VALID(options, "LossyLink: invalid LossyLinkOptions");
    reset();
}

void LossyLink::reset() {
    const std::uint64_t seed = options_.seed;
    loss_rng_ = stream(seed, 1);
    burst_rng_ = stream(seed, 2);
    delay_rng_ = stream(seed, 3);
    reorder_rng_ = stream(seed, 4);
    duplicate_rng_ = stream(seed, 5);
    retransmit_rng_ = stream(seed, 6);
    bad_state_ = false;
    tokens_ = options_.burst_bytes;
    tokens_at_ms_ = 0.0;
    started_ = false;
    last_now_ms_ = 0.0;
    order_floor_ms_ = 0.0;
    next_serial_ = 0;
    heap_.clear();
    for (std::vector<std::uint8_t>& payload : payloads_) payload.clear();
    free_slots_.clear();
    for (std::uint32_t i = static_cast<std::uint32_t>(payloads_.size()); i > 0; --i) free_slots_.push_back(i - 1);
    counters_ = LossyLinkCounters{};
}

void LossyLink::set_options(const LossyLinkOptions& options) {
    VANTAGE_ASSERT_VALID(options, "LossyLink::set_options: invalid LossyLinkOptions");
    options_ = options;
    tokens_ = std::min(tokens_, options_.burst_bytes);
}

SendFate LossyLink::send(double now_ms, std::span<const std::uint8_t> bytes) {
    VANTAGE_ASSERT(std::isfinite(now_ms), "LossyLink::send: now_ms must be finite");
    VANTAGE_ASSERT(!started_ || now_ms >= last_now_ms_, "LossyLink::send: time went backwards");
    if (!started_) {
        started_ = true;
        tokens_at_ms_ = now_ms;
    }
    now_ms = std::max(now_ms, last_now_ms_);
    last_now_ms_ = now_ms;
    counters_.packets_sent += 1;
    counters_.bytes_sent += bytes.size();

    // Every stream is drawn the same number of times per packet, whatever the outcome, so one
    // knob's setting never shifts another's sequence.
    const bool leave_good = burst_rng_.chance(options_.burst_enter);
    const bool leave_bad = burst_rng_.chance(options_.burst_exit);
    // With bursts disabled (burst_enter 0) the bad state ends at once, so healing a link
    // live does not leave it stuck inside a burst.
    bad_state_ = options_.burst_enter > 0.0f && (bad_state_ ? !leave_bad : leave_good);
    const bool lost = loss_rng_.chance(bad_state_ ? options_.burst_loss : options_.loss);
    const float jitter_draw = delay_rng_.unit();
    const bool held_back = reorder_rng_.chance(options_.reorder);
    const bool doubled = duplicate_rng_.chance(options_.duplicate);
    const float duplicate_draw = duplicate_rng_.unit();

    if (options_.stream) return send_stream(now_ms, bytes, lost, jitter_draw);
    if (options_.mtu_bytes > 0 && bytes.size() > options_.mtu_bytes) {
        // After the draws, so an MTU never shifts the other streams.
        counters_.packets_oversize += 1;
        return SendFate::Oversize;
    }
    if (lost) {
        counters_.packets_lost += 1;
        counters_.bytes_lost += bytes.size();
        return SendFate::Lost;
    }

    const double wait_ms = cap_wait_ms(now_ms, bytes.size());
    if (wait_ms > options_.max_queue_ms) {
        counters_.packets_dropped += 1;
        counters_.bytes_dropped += bytes.size();
        return SendFate::Dropped;
    }
    if (options_.rate_bytes_per_sec > 0.0) tokens_ -= static_cast<double>(bytes.size());
    const double depart_ms = now_ms + wait_ms;

    const double arrive_ms = depart_ms + options_.latency_ms + options_.jitter_ms * static_cast<double>(jitter_draw);
    double at_ms = 0.0;
    if (held_back) {
        // Not bound by, and not raising, the order floor: later packets may overtake it.
        at_ms = arrive_ms + options_.reorder_ms;
    } else {
        at_ms = std::max(arrive_ms, order_floor_ms_);
        order_floor_ms_ = at_ms;
    }
    schedule(at_ms, bytes);
    if (doubled) {
        counters_.packets_duplicated += 1;
        schedule(at_ms + options_.duplicate_ms * static_cast<double>(duplicate_draw), bytes);
    }
    return SendFate::Scheduled;
}

SendFate LossyLink::send_stream(double now_ms, std::span<const std::uint8_t> bytes, bool lost, float jitter_draw) {
    // The resends: each waits the timeout, doubled per consecutive loss, and draws the loss
    // again from its own stream (with the good state's probability: a burst is usually over
    // a timeout later), so the first draws stay the datagram mode's.
    double resend_ms = 0.0;
    int resends = 0;
    bool again = lost;
    while (again) {
        const double backoff = static_cast<double>(1 << std::min(resends, kLossyLinkMaxBackoffDoublings));
        resend_ms += std::min(60000.0, options_.rto_ms * backoff);
        ++resends;
        again = resends < kLossyLinkMaxRetransmissions && retransmit_rng_.chance(options_.loss);
    }
    counters_.retransmissions += static_cast<std::uint64_t>(resends);

    // The cap charges the packet once and never drops: a stream's sender waits its turn.
    const double wait_ms = cap_wait_ms(now_ms, bytes.size());
    if (options_.rate_bytes_per_sec > 0.0) tokens_ -= static_cast<double>(bytes.size());
    const double depart_ms = now_ms + wait_ms;
    const double arrive_ms =
        depart_ms + options_.latency_ms + options_.jitter_ms * static_cast<double>(jitter_draw) + resend_ms;
    // Head-of-line blocking: nothing is handed out before the packet sent ahead of it.
    const double at_ms = std::max(arrive_ms, order_floor_ms_);
    order_floor_ms_ = at_ms;
    schedule(at_ms, bytes);
    return resends > 0 ? SendFate::Retransmitted : SendFate::Scheduled;
}

double LossyLink::cap_wait_ms(double now_ms, std::size_t size) {
    if (options_.rate_bytes_per_sec <= 0.0) return 0.0;
    const double rate_per_ms = options_.rate_bytes_per_sec / 1000.0;
    tokens_ = std::min(options_.burst_bytes, tokens_ + (now_ms - tokens_at_ms_) * rate_per_ms);
    tokens_at_ms_ = now_ms;
    const double bytes = static_cast<double>(size);
    return tokens_ >= bytes ? 0.0 : (bytes - tokens_) / rate_per_ms;
}

void LossyLink::schedule(double at_ms, std::span<const std::uint8_t> bytes) {
    std::uint32_t slot = 0;
    if (!free_slots_.empty()) {
        slot = free_slots_.back();
        free_slots_.pop_back();
    } else {
        slot = static_cast<std::uint32_t>(payloads_.size());
        payloads_.emplace_back();
    }
    // Payload buffers circulate (pop_into swaps them with the receiver's), so one that is
    // too small grows straight to the largest payload seen, rounded up to a power of two:
    // every buffer then grows a few times at most and a steady stream allocates nothing.
    largest_payload_ = std::max(largest_payload_, bytes.size());
    std::vector<std::uint8_t>& payload = payloads_[slot];
    if (payload.capacity() < bytes.size()) payload.reserve(std::bit_ceil(largest_payload_));
    payload.assign(bytes.begin(), bytes.end());
    heap_.push_back(Pending{at_ms, next_serial_++, slot});
    std::push_heap(heap_.begin(), heap_.end(), Later{});
}

void LossyLink::pop_into(std::vector<std::uint8_t>& out) {
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    const std::uint32_t slot = heap_.back().slot;
    heap_.pop_back();
    // Swap rather than copy: the caller's old buffer becomes the slot's spare capacity.
    out.swap(payloads_[slot]);
    payloads_[slot].clear();
    free_slots_.push_back(slot);
    counters_.packets_delivered += 1;
    counters_.bytes_delivered += out.size();
}

bool LossyLink::poll(double now_ms, std::vector<std::uint8_t>& out) {
    if (heap_.empty() || heap_.front().at_ms > now_ms) return false;
    pop_into(out);
    return true;
}

std::size_t LossyLink::receive(double now_ms, std::vector<std::vector<std::uint8_t>>& out) {
    out.clear();
    while (!heap_.empty() && heap_.front().at_ms <= now_ms) {
        out.emplace_back();
        pop_into(out.back());
    }
    return out.size();
}

double LossyLink::next_delivery_ms() const {
    return heap_.empty() ? -1.0 : heap_.front().at_ms;
}

}  // namespace vantage
