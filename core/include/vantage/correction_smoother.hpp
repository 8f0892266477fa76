// CorrectionSmoother: eases what is *drawn* across a reconciliation correction, leaving the
// simulation state exact.
//
// When reconciliation moves the predicted state, drawing the new value at once shows a
// jump. The smoother keeps a visual offset instead: at a correction it absorbs the jump
// (offset += before - after), so the drawn state `logical + offset` is continuous, and then
// it decays the offset each frame. The simulation never reads the offset (principle: the
// simulation never reads presentation).
//
// Decay is a retained fraction per 60 Hz frame, raised to dt * 60 so that 30, 60 and 144 fps
// shed the same error in the same wall time. It is adaptive: small errors keep
// `retain_small` (gentle, invisible), large ones `retain_large` (closed quickly), blended
// between the two magnitudes. A fixed-duration ease is deliberately not offered: with
// corrections every 33 ms a 250 ms ease never finishes and the smoother itself becomes the
// error (the horde lesson). An offset larger than `snap_error` is dropped at once: that is a
// teleport, not a correction.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>

#include "vantage/assert.hpp"
#include "vantage/interpolatable.hpp"

namespace vantage {

struct CorrectionSmoothingOptions {
    // Fraction of the offset kept per 60 Hz frame at or below `small_error`, in [0, 1].
    float retain_small = 0.95f;
    // Fraction kept per 60 Hz frame at or above `large_error`, in [0, 1].
    float retain_large = 0.85f;
    // Offset magnitudes (state units, e.g. px; 0 <= small <= large) between which the
    // retained fraction blends linearly.
    float small_error = 2.0f;
    float large_error = 32.0f;
    // An offset above this magnitude is dropped at once (state units, > 0).
    float snap_error = std::numeric_limits<float>::infinity();
    // An offset below this magnitude is zeroed, ending the ease (state units, >= 0).
    float settled_error = 0.01f;

    std::string_view validate() const {
        if (!(retain_small >= 0.0f && retain_small <= 1.0f)) return "retain_small must be in [0, 1]";
        if (!(retain_large >= 0.0f && retain_large <= 1.0f)) return "retain_large must be in [0, 1]";
        if (!(small_error >= 0.0f && small_error <= large_error)) return "need 0 <= small_error <= large_error";
        if (!(snap_error > 0.0f)) return "snap_error must be positive";
        if (!(settled_error >= 0.0f)) return "settled_error must be non-negative";
        return {};
    }
};

// Counters since construction; reset() keeps them.
struct CorrectionSmootherCounters {
    std::uint64_t corrections = 0;
    std::uint64_t snaps = 0;
};

template <LinearState State>
class CorrectionSmoother {
public:
    CorrectionSmoother() : CorrectionSmoother(CorrectionSmoothingOptions{}) {}
    explicit CorrectionSmoother(CorrectionSmoothingOptions options) : options_(options) {
        VANTAGE_ASSERT_VALID(options_, "CorrectionSmoother: invalid CorrectionSmoothingOptions");
    }

    // The logical state jumped from `before` to `after`: keep drawing from where it was.
    // A zero or non-finite jump (bad data) is ignored.
    void add_correction(const State& before, const State& after) {
        const State jump = static_cast<State>(before - after);
        if (!state_is_finite(jump) || magnitude(jump) == 0.0f) return;
        ++counters_.corrections;
        offset_ = static_cast<State>(offset_ + jump);
        if (magnitude(offset_) > options_.snap_error) {
            offset_ = State{};
            ++counters_.snaps;
        }
    }

    // Local time passed (ms, >= 0): decay the offset.
    void advance(double dt_ms) {
        VANTAGE_ASSERT(dt_ms >= 0.0, "CorrectionSmoother::advance: dt_ms must be >= 0 (time went backwards, or NaN)");
        const float error = magnitude(offset_);
        if (error == 0.0f || !(dt_ms > 0.0)) return;
        const double frames = dt_ms * 60.0 / 1000.0;
        offset_ = static_cast<State>(offset_ * static_cast<float>(std::pow(retain_for(error), frames)));
        if (magnitude(offset_) <= options_.settled_error) offset_ = State{};
    }

    // The state to draw for the simulation's `logical` state.
    State render(const State& logical) const { return static_cast<State>(logical + offset_); }
    const State& offset() const { return offset_; }
    float error() const { return magnitude(offset_); }
    bool is_easing() const { return magnitude(offset_) > 0.0f; }
    // The per-60 Hz-frame retained fraction for an offset of this magnitude.
    float retain_for(float error) const {
        const float span = options_.large_error - options_.small_error;
        const float w = span > 0.0f ? std::clamp((error - options_.small_error) / span, 0.0f, 1.0f)
                                    : (error >= options_.large_error ? 1.0f : 0.0f);
        return options_.retain_small + (options_.retain_large - options_.retain_small) * w;
    }
    const CorrectionSmootherCounters& counters() const { return counters_; }
    // Drops the offset (teleport, respawn); counters are kept.
    void reset() { offset_ = State{}; }

private:
    CorrectionSmoothingOptions options_;
    State offset_{};
    CorrectionSmootherCounters counters_;
};

}  // namespace vantage
