// Test-side adapter over NearbyDetector::events(): the oracle tests and the benchmarks feed
// the detector and their brute-force baselines through one "became / stopped" interface, so
// each call's events are handed to a NearbySink and cleared right after the call. The
// detector itself has no sink (core/docs/conventions.md, rule 3).
#pragma once

#include <cstdint>

#include "vantage/nearby_detector.hpp"

namespace vantage::nearby_test {

class NearbySink {
public:
    virtual ~NearbySink() = default;
    virtual void became_nearby(std::uint32_t a, std::uint32_t b) = 0;
    virtual void stopped_being_nearby(std::uint32_t a, std::uint32_t b) = 0;
};

// Drops every event, for callers that only read neighbors().
class NullNearbySink final : public NearbySink {
public:
    void became_nearby(std::uint32_t, std::uint32_t) override {}
    void stopped_being_nearby(std::uint32_t, std::uint32_t) override {}
};

inline void deliver(NearbyDetector& d, NearbySink& sink) {
    for (const NearbyEvent& e : d.events()) {
        if (e.kind == NearbyEventKind::BecameNearby) {
            sink.became_nearby(e.a, e.b);
        } else {
            sink.stopped_being_nearby(e.a, e.b);
        }
    }
    d.clear_events();
}

inline NearbyStatus insert(NearbyDetector& d, std::uint32_t id, const NearbyDetector::Box& box, NearbySink& sink) {
    const NearbyStatus status = d.insert(id, box);
    deliver(d, sink);
    return status;
}
inline NearbyStatus update(NearbyDetector& d, std::uint32_t id, const NearbyDetector::Box& box, NearbySink& sink) {
    const NearbyStatus status = d.update(id, box);
    deliver(d, sink);
    return status;
}
inline NearbyStatus remove(NearbyDetector& d, std::uint32_t id, NearbySink& sink) {
    const NearbyStatus status = d.remove(id);
    deliver(d, sink);
    return status;
}

}  // namespace vantage::nearby_test
