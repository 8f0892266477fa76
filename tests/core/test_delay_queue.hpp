// A tiny deterministic delay/loss queue for the time-and-state tests: seeded loss, fixed
// latency plus uniform jitter, optional reordering. It is a test double, not core's
// LossyLink (which models bursts, duplication and rate limits); the tests here only need
// packets to arrive late, irregularly or not at all, reproducibly from a printed seed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "vantage/random.hpp"

namespace vantage::test_support {

template <class T>
class TestDelayQueue {
public:
    struct Options {
        double latency_ms = 0.0;  // one way
        double jitter_ms = 0.0;   // extra delay, uniform in [0, jitter_ms)
        float loss = 0.0f;        // probability a send is dropped
        bool ordered = true;      // a delivery never overtakes an earlier send
    };

    TestDelayQueue(Options options, std::uint64_t seed) : options_(options), rng_(seed) {}

    void send(double now_ms, const T& item) {
        ++sent_;
        if (rng_.chance(options_.loss)) {
            ++lost_;
            return;
        }
        double at = now_ms + options_.latency_ms + options_.jitter_ms * rng_.unit();
        if (options_.ordered) at = std::max(at, last_delivery_ms_);
        last_delivery_ms_ = at;
        flight_.push_back({at, next_order_++, item});
    }

    // Calls fn(const T&) for every item due at now_ms, in delivery order.
    template <class Fn>
    void deliver(double now_ms, Fn&& fn) {
        std::stable_sort(flight_.begin(), flight_.end(), [](const Flight& a, const Flight& b) {
            return a.at_ms != b.at_ms ? a.at_ms < b.at_ms : a.order < b.order;
        });
        std::size_t n = 0;
        while (n < flight_.size() && flight_[n].at_ms <= now_ms) fn(static_cast<const T&>(flight_[n++].item));
        flight_.erase(flight_.begin(), flight_.begin() + static_cast<std::ptrdiff_t>(n));
    }

    void set_latency(double latency_ms) { options_.latency_ms = latency_ms; }
    std::size_t in_flight() const { return flight_.size(); }
    std::uint64_t sent() const { return sent_; }
    std::uint64_t lost() const { return lost_; }

private:
    struct Flight {
        double at_ms;
        std::uint64_t order;
        T item;
    };
    Options options_;
    XorShift rng_;
    std::vector<Flight> flight_;
    double last_delivery_ms_ = 0.0;
    std::uint64_t next_order_ = 0;
    std::uint64_t sent_ = 0;
    std::uint64_t lost_ = 0;
};

}  // namespace vantage::test_support
