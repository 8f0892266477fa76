// SnapshotBuffer: a client's recent server snapshots of one remote entity, sampled at a
// render time that trails the server (entity interpolation).
//
// The client draws remotes at `render time = estimated server time - render delay`, so the
// instant drawn usually lies between two snapshots it already holds and the remote moves
// smoothly however the packets arrived. When the stream starves (loss, a jitter spike, a
// delay set too small) the render time passes the newest snapshot; the buffer then either
// holds the newest state or, for LinearState types, dead-reckons from the last two (first
// order) or fits a curve through the last three (second order, blended by `curve_trust`).
// Extrapolation is capped in *duration*: the entity coasts to the cap and holds there,
// because a guess that runs on for ever is worse than a pause.
//
// Every sample reports what it did (interpolated, held, extrapolated, capped) so a meter can
// count starvation instead of hiding it. Times are milliseconds (double, any origin).
// Capacity is fixed at construction; adding and sampling never allocate.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "vantage/assert.hpp"
#include "vantage/interpolatable.hpp"

namespace vantage {

enum class SnapshotAdd {
    Appended,   // newest so far
    Inserted,   // arrived out of order, placed by its timestamp
    Duplicate,  // a snapshot with this timestamp is held already: ignored
    TooOld,     // older than everything in a full buffer: ignored
    NonFinite,  // NaN or infinite time or state: ignored
};

enum class SampleKind {
    Exact,         // the render time sits on a snapshot
    Interpolated,  // between two snapshots
    HeldOldest,    // before the oldest snapshot: the oldest is shown
    HeldNewest,    // after the newest, extrapolation off or impossible: the newest is shown
    Extrapolated,  // after the newest, dead-reckoned within the cap
    Capped,        // after the newest, dead-reckoned to the cap and held there
};

// Names for logs, readouts and test failures (core/docs/conventions.md).
constexpr const char* to_string(SnapshotAdd add) {
    switch (add) {
        case SnapshotAdd::Appended:
            return "appended";
        case SnapshotAdd::Inserted:
            return "inserted";
        case SnapshotAdd::Duplicate:
            return "duplicate";
        case SnapshotAdd::TooOld:
            return "too old";
        case SnapshotAdd::NonFinite:
            return "non-finite";
    }
    return "unknown snapshot add";
}

constexpr const char* to_string(SampleKind kind) {
    switch (kind) {
        case SampleKind::Exact:
            return "exact";
        case SampleKind::Interpolated:
            return "interpolated";
        case SampleKind::HeldOldest:
            return "held oldest";
        case SampleKind::HeldNewest:
            return "held newest";
        case SampleKind::Extrapolated:
            return "extrapolated";
        case SampleKind::Capped:
            return "capped";
    }
    return "unknown sample kind";
}

template <class State>
struct SnapshotSample {
    State state{};
    SampleKind kind = SampleKind::Exact;
    // How far past the newest snapshot the render time is (ms, >= 0).
    double past_newest_ms = 0.0;
    // How far the state was projected (ms): past_newest_ms up to the cap, 0 unless extrapolated.
    double extrapolated_ms = 0.0;

    bool starved() const {
        return kind == SampleKind::HeldNewest || kind == SampleKind::Extrapolated || kind == SampleKind::Capped;
    }
};

struct ExtrapolationOptions {
    // Longest projection past the newest snapshot (ms, >= 0); beyond it the state holds.
    // The netcode playground uses 500.
    double max_extrapolation_ms = 500.0;
    // Fit a parabola through the last three snapshots instead of a line through two.
    bool second_order = false;
    // How much of the curve's departure from the line to apply (0 = line, 1 = full curve).
    float curve_trust = 1.0f;

    std::string_view validate() const {
        if (!(max_extrapolation_ms >= 0.0)) return "max_extrapolation_ms must be non-negative";
        if (!(curve_trust >= 0.0f && curve_trust <= 1.0f)) return "curve_trust must be in [0, 1]";
        return {};
    }
};

template <Interpolatable State>
class SnapshotBuffer {
public:
    struct Snapshot {
        double time_ms;
        State state;
    };

    // capacity >= 2: interpolation needs a pair.
    SnapshotBuffer() : SnapshotBuffer(32) {}
    explicit SnapshotBuffer(std::size_t capacity) : capacity_(capacity) {
        VANTAGE_ASSERT(capacity >= 2 && capacity <= kMaxCapacity, "SnapshotBuffer: capacity must be in [2, 2^20]");
        ring_.resize(std::bit_ceil(capacity_));
        mask_ = ring_.size() - 1;
    }

    // The append (every in-order packet) is kept small enough to inline everywhere; the
    // rest is out of line (in wasm the whole function as one call cost several times native).
    SnapshotAdd add_snapshot(double time_ms, const State& state) {
        if (!std::isfinite(time_ms) || !state_is_finite(state)) return SnapshotAdd::NonFinite;
        if (size_ != 0 && !(time_ms > at(size_ - 1).time_ms)) return add_out_of_order(time_ms, state);
        if (size_ == capacity_) drop_oldest();
        slot(size_++) = {time_ms, state};
        return SnapshotAdd::Appended;
    }

    // Interpolation only: past the newest snapshot the newest is held. Empty when the buffer
    // is empty or the time is not finite.
    std::optional<SnapshotSample<State>> sample(double render_ms) const {
        if (size_ == 0 || !std::isfinite(render_ms)) return std::nullopt;
        const Snapshot& newest = at(size_ - 1);
        if (render_ms > newest.time_ms) {
            return SnapshotSample<State>{newest.state, SampleKind::HeldNewest, render_ms - newest.time_ms, 0.0};
        }
        return inside(render_ms);
    }

    // Interpolation, then extrapolation up to the cap when the render time passes the newest
    // snapshot. Needs two snapshots for a line and three for a curve; with fewer it falls
    // back (curve to line, line to hold).
    std::optional<SnapshotSample<State>> sample(double render_ms,
                                                const ExtrapolationOptions& options) const requires LinearState<State> {
        VANTAGE_ASSERT_VALID(options, "SnapshotBuffer::sample: invalid ExtrapolationOptions");
        if (size_ == 0 || !std::isfinite(render_ms)) return std::nullopt;
        const std::size_t n = size_;
        const Snapshot& p2 = at(n - 1);
        if (render_ms <= p2.time_ms) return inside(render_ms);
        const double past = render_ms - p2.time_ms;
        if (n < 2 || options.max_extrapolation_ms <= 0.0) {
            return SnapshotSample<State>{p2.state, SampleKind::HeldNewest, past, 0.0};
        }
        const double h = std::min(past, options.max_extrapolation_ms);
        const Snapshot& p1 = at(n - 2);
        const double d1 = p2.time_ms - p1.time_ms;
        // Newton form through (t2, p2), (t1, p1), (t0, p0), evaluated at t2 + h:
        // p2 + s1*h + c*h*(h + d1), where s1 is the newest slope and c the curvature term.
        const State s1 = static_cast<State>((p2.state - p1.state) * static_cast<float>(1.0 / d1));
        State result = static_cast<State>(p2.state + s1 * static_cast<float>(h));
        if (options.second_order && n >= 3 && options.curve_trust > 0.0f) {
            const Snapshot& p0 = at(n - 3);
            const double d0 = p1.time_ms - p0.time_ms;
            const State s0 = static_cast<State>((p1.state - p0.state) * static_cast<float>(1.0 / d0));
            const State c = static_cast<State>((s1 - s0) * static_cast<float>(1.0 / (d1 + d0)));
            result = static_cast<State>(result + c * static_cast<float>(options.curve_trust * h * (h + d1)));
        }
        return SnapshotSample<State>{result, past > h ? SampleKind::Capped : SampleKind::Extrapolated, past, h};
    }

    std::optional<double> oldest_time_ms() const {
        if (size_ == 0) return std::nullopt;
        return at(0).time_ms;
    }
    std::optional<double> newest_time_ms() const {
        if (size_ == 0) return std::nullopt;
        return at(size_ - 1).time_ms;
    }
    const Snapshot* newest() const { return size_ == 0 ? nullptr : &at(size_ - 1); }
    std::size_t size() const { return size_; }
    std::size_t capacity() const { return capacity_; }
    bool empty() const { return size_ == 0; }
    void clear() {
        head_ = 0;
        size_ = 0;
    }

private:
    // Not newer than the newest: a duplicate, too old, or an insertion in time order.
    [[gnu::noinline]] SnapshotAdd add_out_of_order(double time_ms, const State& state) {
        const std::size_t k = lower_index(time_ms);
        if (k < size_ && at(k).time_ms == time_ms) return SnapshotAdd::Duplicate;
        if (k == 0 && size_ == capacity_) return SnapshotAdd::TooOld;
        // The rare path: shift the newer snapshots up by one (after dropping the oldest when
        // full, which moves the insertion point down with it).
        std::size_t at_k = k;
        if (size_ == capacity_) {
            drop_oldest();
            --at_k;
        }
        for (std::size_t i = size_; i > at_k; --i) slot(i) = at(i - 1);
        slot(at_k) = {time_ms, state};
        ++size_;
        return SnapshotAdd::Inserted;
    }

    // Logical index i (0 = oldest) to its place in the ring; i < capacity. The ring's size
    // is a power of two, so this is a mask (a compare and a select were on the critical path
    // of every append and every probe of a sample's search).
    std::size_t place(std::size_t i) const { return (head_ + i) & mask_; }
    const Snapshot& at(std::size_t i) const { return ring_[place(i)]; }
    Snapshot& slot(std::size_t i) { return ring_[place(i)]; }
    void drop_oldest() {
        head_ = place(1);
        --size_;
    }
    // The first logical index whose time is not below `time_ms` (size_ if none).
    std::size_t lower_index(double time_ms) const {
        std::size_t lo = 0, hi = size_;
        while (lo < hi) {
            const std::size_t mid = lo + (hi - lo) / 2;
            if (at(mid).time_ms < time_ms) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
    // render_ms <= newest time; buffer not empty.
    // Returns the optional the callers return, so the sample is built in their result: as a
    // bare SnapshotSample it came back through a temporary on the C stack, which in wasm
    // (no shrink-wrapping) made every sample() move the stack pointer, extrapolating or not.
    std::optional<SnapshotSample<State>> inside(double render_ms) const {
        const Snapshot& oldest = at(0);
        if (render_ms < oldest.time_ms) return SnapshotSample<State>{oldest.state, SampleKind::HeldOldest, 0.0, 0.0};
        // The first snapshot after render_ms (size_ if none), then the one at or before it.
        std::size_t lo = 0, hi = size_;
        while (lo < hi) {
            const std::size_t mid = lo + (hi - lo) / 2;
            if (!(render_ms < at(mid).time_ms)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        const Snapshot& a = at(lo - 1);  // last snapshot at or before render_ms
        if (a.time_ms == render_ms || lo == size_) return SnapshotSample<State>{a.state, SampleKind::Exact, 0.0, 0.0};
        const Snapshot& b = at(lo);
        const auto t = static_cast<float>((render_ms - a.time_ms) / (b.time_ms - a.time_ms));
        return SnapshotSample<State>{static_cast<State>(interpolate(a.state, b.state, t)), SampleKind::Interpolated,
                                     0.0, 0.0};
    }

    static constexpr std::size_t kMaxCapacity = std::size_t{1} << 20;
    std::size_t capacity_;
    std::size_t mask_ = 0;  // ring_.size() - 1, kept so place() is one load and an and
    // A ring of capacity_ snapshots in the first power of two slots at or above it: the
    // oldest at head_, ascending and strictly increasing times in logical order. Appending to a full buffer overwrites
    // the oldest (no shifting).
    std::vector<Snapshot> ring_;
    std::size_t head_ = 0;
    std::size_t size_ = 0;
};

}  // namespace vantage
