// HistoricalStateBuffer: per-entity rolling history of server states, queryable by time.
//
// Lag compensation is built on it. A client draws remote entities in the past (entity
// interpolation), so it aims at where a target *was*; the server records every entity each
// tick and, when a shot arrives stamped with the time the shooter was seeing, rewinds the
// target to that instant and judges the hit there.
//
// History is bounded twice: by count (a ring per entity, allocated once on the entity's
// first record) and by age relative to the entity's newest record. Size the count as
// (max client latency + interpolation delay) / tick interval, plus a margin.
//
// Unlike the reference toolkit (core/docs/background.md), a query outside the recorded span
// is *reported*: the result carries its coverage (exact, between, before the oldest, after
// the newest) and how far outside it fell, so the caller decides whether a shot from beyond
// the history is a miss, a clamp or a metric. clamp_rewind() applies a caller-chosen rewind
// cap such as Source's 1 s (sv_maxunlag) before the query.
//
// Times are milliseconds (double, any origin) and must be strictly increasing per entity.
// Not thread-safe. Queries do not allocate; record_state allocates only for a new entity.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "vantage/assert.hpp"
#include "vantage/interpolatable.hpp"

namespace vantage {

struct HistoryOptions {
    // Records kept per entity (>= 1). The oldest is evicted first.
    std::size_t max_records_per_entity = 64;
    // Records older than the entity's newest record minus this are evicted (ms, > 0; use
    // infinity to bound by count only).
    double max_age_ms = 1000.0;

    // Empty when valid, otherwise the reason.
    std::string_view validate() const {
        if (max_records_per_entity == 0) return "max_records_per_entity must be at least 1";
        if (!(max_age_ms > 0.0)) return "max_age_ms must be positive";
        return {};
    }
};

enum class RecordResult {
    Ok,
    Stale,      // not strictly newer than the entity's newest record: ignored
    NonFinite,  // NaN or infinite time or state: ignored
};

// Where a query time fell relative to one entity's recorded span [oldest, newest].
enum class HistoryCoverage {
    Exact,         // a record sits at exactly the query time
    Between,       // inside the span, between two records
    BeforeOldest,  // older than anything kept: evicted or never recorded
    AfterNewest,   // newer than the newest record
};

// Names for logs, readouts and test failures (core/docs/conventions.md).
constexpr const char* to_string(RecordResult result) {
    switch (result) {
        case RecordResult::Ok:
            return "ok";
        case RecordResult::Stale:
            return "stale";
        case RecordResult::NonFinite:
            return "non-finite";
    }
    return "unknown record result";
}

constexpr const char* to_string(HistoryCoverage coverage) {
    switch (coverage) {
        case HistoryCoverage::Exact:
            return "exact";
        case HistoryCoverage::Between:
            return "between";
        case HistoryCoverage::BeforeOldest:
            return "before oldest";
        case HistoryCoverage::AfterNewest:
            return "after newest";
    }
    return "unknown history coverage";
}

template <class State>
struct HistorySample {
    State state{};
    // Time of the state returned: the query time when interpolated inside the span, else the
    // time of the record returned (the edge record when outside).
    double time_ms = 0.0;
    HistoryCoverage coverage = HistoryCoverage::Exact;
    // How far outside the span the query fell (ms, >= 0); 0 when inside.
    double outside_by_ms = 0.0;

    bool inside() const { return coverage == HistoryCoverage::Exact || coverage == HistoryCoverage::Between; }
};

// A rewind time after a caller-chosen cap. `adjusted_by_ms` is target minus requested:
// positive when a too-old request was pulled forward to the cap, negative when a request
// from the future was pulled back to now.
struct RewindTarget {
    double time_ms = 0.0;
    double adjusted_by_ms = 0.0;
    bool clamped() const { return adjusted_by_ms != 0.0; }
};

// Limits a requested rewind to [now - max_rewind_ms, now]. A non-finite request (bad data
// off the wire) becomes `now` and is reported as clamped by nothing: adjusted_by_ms is 0 only
// for an in-range request, so callers that count clamps should also validate the input.
inline RewindTarget clamp_rewind(double now_ms, double requested_ms, double max_rewind_ms) {
    VANTAGE_ASSERT(max_rewind_ms >= 0.0, "clamp_rewind: max_rewind_ms must be >= 0");
    if (!std::isfinite(requested_ms)) return {now_ms, 0.0};
    const double earliest = now_ms - max_rewind_ms;
    double t = requested_ms;
    if (t < earliest) t = earliest;
    if (t > now_ms) t = now_ms;
    return {t, t - requested_ms};
}

// Counters since construction; clear() keeps them.
struct HistoricalStateBufferCounters {
    // Records ignored for not being newer than the entity's newest (lifetime count).
    std::uint64_t stale_records = 0;
    // Records ignored for a NaN or infinite time or state (lifetime count).
    std::uint64_t nonfinite_records = 0;
};

template <class Id, class State>
class HistoricalStateBuffer {
public:
    HistoricalStateBuffer() : HistoricalStateBuffer(HistoryOptions{}) {}
    explicit HistoricalStateBuffer(HistoryOptions options) : options_(options) {
        VANTAGE_ASSERT_VALID(options_, "HistoricalStateBuffer: invalid HistoryOptions");
    }

    // Records `state` for `id` at `time_ms`. Evicts by age, then by count.
    RecordResult record_state(const Id& id, double time_ms, const State& state) {
        if (!std::isfinite(time_ms) || !state_is_finite(state)) {
            ++counters_.nonfinite_records;
            return RecordResult::NonFinite;
        }
        Track& track = tracks_[id];
        if (track.ring.empty()) track.ring.resize(options_.max_records_per_entity);
        if (track.count > 0 && time_ms <= track.newest().time_ms) {
            ++counters_.stale_records;
            return RecordResult::Stale;
        }
        const double oldest_allowed = time_ms - options_.max_age_ms;
        while (track.count > 0 && track.at(0).time_ms < oldest_allowed) track.pop_oldest();
        if (track.count == track.ring.size()) track.pop_oldest();
        track.push({time_ms, state});
        return RecordResult::Ok;
    }

    // The newest record at or before `time_ms`. Outside the span the edge record is returned
    // with its coverage, never silently. Empty for an unknown id or a non-finite time.
    std::optional<HistorySample<State>> get_state_at_or_before(const Id& id, double time_ms) const {
        const Track* track = find(id);
        if (track == nullptr || !std::isfinite(time_ms)) return std::nullopt;
        if (auto edge = outside(*track, time_ms)) return edge;
        const Record& r = track->at(track->last_at_or_before(time_ms));
        return HistorySample<State>{r.state, r.time_ms,
                                    r.time_ms == time_ms ? HistoryCoverage::Exact : HistoryCoverage::Between, 0.0};
    }

    // The state at `time_ms`, blended between the two records around it. Outside the span
    // the edge record is returned with its coverage. Empty for an unknown id or a non-finite
    // time.
    std::optional<HistorySample<State>> get_interpolated_state(const Id& id,
                                                               double time_ms) const requires Interpolatable<State> {
        const Track* track = find(id);
        if (track == nullptr || !std::isfinite(time_ms)) return std::nullopt;
        if (auto edge = outside(*track, time_ms)) return edge;
        const std::size_t i = track->last_at_or_before(time_ms);
        const Record& a = track->at(i);
        if (a.time_ms == time_ms) return HistorySample<State>{a.state, a.time_ms, HistoryCoverage::Exact, 0.0};
        const Record& b = track->at(i + 1);  // exists: time_ms < newest and not exactly at a
        const auto t = static_cast<float>((time_ms - a.time_ms) / (b.time_ms - a.time_ms));
        return HistorySample<State>{static_cast<State>(interpolate(a.state, b.state, t)), time_ms,
                                    HistoryCoverage::Between, 0.0};
    }

    // Forgets one entity. Returns whether it had any history (an unknown id is not an error).
    bool remove_entity_history(const Id& id) { return tracks_.erase(id) > 0; }
    // Forgets every entity; counters are kept.
    void clear_all_history() { tracks_.clear(); }

    // Drops every record older than now_ms - max_age_ms, and entities left with none (an
    // entity that stopped being recorded, e.g. despawned without remove_entity_history).
    // Returns the number of records dropped. O(entities).
    std::size_t expire(double now_ms) {
        std::size_t dropped = 0;
        const double oldest_allowed = now_ms - options_.max_age_ms;
        for (auto it = tracks_.begin(); it != tracks_.end();) {
            Track& track = it->second;
            while (track.count > 0 && track.at(0).time_ms < oldest_allowed) {
                track.pop_oldest();
                ++dropped;
            }
            it = track.count == 0 ? tracks_.erase(it) : std::next(it);
        }
        return dropped;
    }

    std::size_t entity_count() const { return tracks_.size(); }
    std::size_t record_count(const Id& id) const {
        const Track* track = find(id);
        return track != nullptr ? track->count : 0;
    }
    std::optional<double> oldest_time_ms(const Id& id) const {
        const Track* track = find(id);
        if (track == nullptr || track->count == 0) return std::nullopt;
        return track->at(0).time_ms;
    }
    std::optional<double> newest_time_ms(const Id& id) const {
        const Track* track = find(id);
        if (track == nullptr || track->count == 0) return std::nullopt;
        return track->newest().time_ms;
    }
    const HistoricalStateBufferCounters& counters() const { return counters_; }
    const HistoryOptions& options() const { return options_; }

private:
    struct Record {
        double time_ms;
        State state;
    };
    // A ring of records in time order; logical index 0 is the oldest.
    struct Track {
        std::vector<Record> ring;
        std::size_t head = 0;
        std::size_t count = 0;

        const Record& at(std::size_t i) const { return ring[(head + i) % ring.size()]; }
        Record& at(std::size_t i) { return ring[(head + i) % ring.size()]; }
        const Record& newest() const { return at(count - 1); }
        void pop_oldest() {
            head = (head + 1) % ring.size();
            --count;
        }
        void push(const Record& r) {
            ring[(head + count) % ring.size()] = r;
            ++count;
        }
        // Index of the last record with time <= t; requires at(0).time_ms <= t.
        std::size_t last_at_or_before(double t) const {
            std::size_t lo = 0, hi = count;  // answer in [lo, hi)
            while (hi - lo > 1) {
                const std::size_t mid = lo + (hi - lo) / 2;
                if (at(mid).time_ms <= t)
                    lo = mid;
                else
                    hi = mid;
            }
            return lo;
        }
    };

    const Track* find(const Id& id) const {
        const auto it = tracks_.find(id);
        return it != tracks_.end() && it->second.count > 0 ? &it->second : nullptr;
    }
    // The edge sample when `t` falls outside the track's span, else nothing.
    static std::optional<HistorySample<State>> outside(const Track& track, double t) {
        const Record& oldest = track.at(0);
        const Record& newest = track.newest();
        if (t < oldest.time_ms)
            return HistorySample<State>{oldest.state, oldest.time_ms, HistoryCoverage::BeforeOldest,
                                        oldest.time_ms - t};
        if (t > newest.time_ms)
            return HistorySample<State>{newest.state, newest.time_ms, HistoryCoverage::AfterNewest, t - newest.time_ms};
        return std::nullopt;
    }

    HistoryOptions options_;
    std::unordered_map<Id, Track> tracks_;
    HistoricalStateBufferCounters counters_;
};

}  // namespace vantage
