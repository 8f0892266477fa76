#include "vantage/delta_baseline.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <iterator>

#include "vantage/assert.hpp"
#include "vantage/set_digest.hpp"

namespace vantage {
namespace {

[[maybe_unused]] bool strictly_ascending(std::span<const std::uint64_t> keys) {
    for (std::size_t i = 1; i < keys.size(); ++i) {
        if (keys[i] <= keys[i - 1]) return false;
    }
    return true;
}

// v with room for n keys: a caller's buffer (the plan's lists) grows to the history's room.
void reserve_at_least(std::vector<std::uint64_t>& v, std::size_t n, std::size_t room) {
    if (v.capacity() < n) v.reserve(std::max(n, room));
}

// out = a - b, both ascending.
void difference(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b, std::vector<std::uint64_t>& out) {
    out.clear();
    std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
}

}  // namespace

const char* DeltaBaselineOptions::validate() const {
    if (history < 1 || history > AckWindow::kWindow) return "history must be in [1, 64]";
    if (frontier != AckFrontier::Contiguous && frontier != AckFrontier::AnyReceived)
        return "frontier is not an AckFrontier";
    if (!std::isfinite(stalled_after_ms) || stalled_after_ms < 0.0) return "stalled_after_ms must be >= 0";
    if (!std::isfinite(keepalive_every_ms) || keepalive_every_ms <= 0.0) return "keepalive_every_ms must be > 0";
    return nullptr;
}

DeltaBaseline::DeltaBaseline(const DeltaBaselineOptions& options) : options_(options) {
    VANTAGE_ASSERT_VALID(options, "DeltaBaseline: invalid DeltaBaselineOptions");
    options_.history = std::clamp<std::size_t>(options_.history, 1, AckWindow::kWindow);
    ring_.resize(options_.history);
}

// --- flow control -----------------------------------------------------------------------------

bool DeltaBaseline::stalled(double now_ms) const {
    if (options_.stalled_after_ms <= 0.0 || !grace_started_) return false;
    const double heard = last_heard_ms_ ? std::max(grace_start_ms_, *last_heard_ms_) : grace_start_ms_;
    return now_ms - heard >= options_.stalled_after_ms;
}

bool DeltaBaseline::should_send(double now_ms) {
    if (!grace_started_) {
        grace_started_ = true;
        grace_start_ms_ = now_ms;
    }
    if (!stalled(now_ms)) return true;
    if (!last_keepalive_ms_ || now_ms - *last_keepalive_ms_ >= options_.keepalive_every_ms) {
        last_keepalive_ms_ = now_ms;
        counters_.keepalives += 1;
        return true;
    }
    return false;
}

// --- history ------------------------------------------------------------------------------------

const DeltaBaseline::Sent& DeltaBaseline::sent_at(std::size_t i) const {
    return ring_[(ring_head_ + i) % ring_.size()];
}

const DeltaBaseline::Sent* DeltaBaseline::find_sent(std::uint64_t seq) const {
    if (ring_count_ == 0) return nullptr;
    // Entries are consecutive sequences within an epoch, so the position is arithmetic.
    const std::uint64_t oldest = sent_at(0).seq;
    if (seq < oldest || seq - oldest >= ring_count_) return nullptr;
    const Sent& s = sent_at(static_cast<std::size_t>(seq - oldest));
    return s.seq == seq ? &s : nullptr;
}

DeltaBaseline::Sent& DeltaBaseline::push_sent() {
    if (ring_count_ == ring_.size()) {
        newest_trimmed_ = ring_[ring_head_].seq;
        Sent& reused = ring_[ring_head_];
        ring_head_ = (ring_head_ + 1) % ring_.size();
        return reused;
    }
    ++ring_count_;
    return ring_[(ring_head_ + ring_count_ - 1) % ring_.size()];
}

void DeltaBaseline::recount_unacked() {
    unacked_ = 0;
    for (std::size_t i = 0; i < ring_count_; ++i) {
        if (!window_ || sent_at(i).seq > *window_->newest()) ++unacked_;
    }
}

void DeltaBaseline::make_room(std::size_t n) {
    if (n <= room_) return;
    // Every buffer at once, to the next power of two: the history's buffers take turns, and
    // growing them one by one would spread the allocations over the next `history` frames.
    room_ = std::bit_ceil(n);
    for (Sent& s : ring_) s.keys.reserve(room_);
    for (std::vector<std::uint64_t>* v : {&acked_, &send_base_, &assumed_held_, &scratch_}) v->reserve(room_);
}

// --- lifecycle ----------------------------------------------------------------------------------

void DeltaBaseline::clear_epoch() {
    ring_head_ = 0;
    ring_count_ = 0;
    newest_trimmed_.reset();
    acked_seq_.reset();
    acked_.clear();
    acked_digest_ = 0;
    window_.reset();
    unacked_ = 0;
}

void DeltaBaseline::rebuild() {
    // A new epoch: nothing sent before this point may become a baseline again.
    clear_epoch();
    needs_full_ = false;
    counters_.full_rebuilds += 1;
}

void DeltaBaseline::reset() {
    clear_epoch();
    needs_full_ = true;
    grace_started_ = false;
    last_heard_ms_.reset();
    last_keepalive_ms_.reset();
}

void DeltaBaseline::set_policy(RecoveryPolicy policy) {
    if (policy == options_.policy) return;
    options_.policy = policy;
    reset();
}

// --- planning -----------------------------------------------------------------------------------

void DeltaBaseline::plan(std::span<const std::uint64_t> current, DeltaPlan& out) {
    VANTAGE_ASSERT_HOT(strictly_ascending(current),
                       "DeltaBaseline::plan: keys must be ascending and unique (sort the relevant set first)");
    const bool recovering = options_.policy == RecoveryPolicy::Acked;
    const bool stale = recovering && acked_seq_ && newest_trimmed_ && *newest_trimmed_ > *acked_seq_;
    const bool rebuilding = needs_full_ || stale;
    if (stale && !needs_full_) counters_.stale_rebuilds += 1;
    if (rebuilding) rebuild();
    const bool unknown = recovering && !acked_seq_;

    out.seq = next_seq_++;
    out.full_baseline = rebuilding || unknown;
    if (unknown && !rebuilding && ring_count_ > 0) counters_.unacked_full_frames += 1;
    out.baseline_seq.reset();
    out.entered.clear();
    out.left.clear();

    if (out.full_baseline) {
        make_room(current.size());
        reserve_at_least(out.entered, current.size(), room_);
        out.entered.assign(current.begin(), current.end());
    } else if (recovering) {
        // Send against the least the client can hold, retract against the most.
        make_room(acked_.size());
        send_base_.assign(acked_.begin(), acked_.end());
        assumed_held_.assign(acked_.begin(), acked_.end());
        for (std::size_t i = 0; i < ring_count_; ++i) {
            const Sent& s = sent_at(i);
            if (s.seq <= *acked_seq_) continue;
            scratch_.clear();
            make_room(std::min(send_base_.size(), s.keys.size()));
            std::set_intersection(send_base_.begin(), send_base_.end(), s.keys.begin(), s.keys.end(),
                                  std::back_inserter(scratch_));
            send_base_.swap(scratch_);
            scratch_.clear();
            make_room(assumed_held_.size() + s.keys.size());
            std::set_union(assumed_held_.begin(), assumed_held_.end(), s.keys.begin(), s.keys.end(),
                           std::back_inserter(scratch_));
            assumed_held_.swap(scratch_);
        }
        make_room(std::max(current.size(), assumed_held_.size()));
        reserve_at_least(out.entered, current.size(), room_);
        reserve_at_least(out.left, assumed_held_.size(), room_);
        difference(current, send_base_, out.entered);
        difference(assumed_held_, current, out.left);
        out.baseline_seq = acked_seq_;
    } else {
        // Naive: against the last frame sent, whether or not it arrived.
        if (ring_count_ > 0) {
            const Sent& last = sent_at(ring_count_ - 1);
            make_room(std::max(current.size(), last.keys.size()));
            reserve_at_least(out.entered, current.size(), room_);
            reserve_at_least(out.left, last.keys.size(), room_);
            difference(current, last.keys, out.entered);
            difference(last.keys, current, out.left);
        } else {
            make_room(current.size());
            reserve_at_least(out.entered, current.size(), room_);
            out.entered.assign(current.begin(), current.end());
        }
    }

    const std::uint64_t digest = SetDigest::from_keys(current).digest();
    out.digest = digest;
    Sent& s = push_sent();
    s.seq = out.seq;
    s.digest = digest;
    make_room(current.size());
    s.keys.assign(current.begin(), current.end());
    recount_unacked();
}

// --- acknowledgements ---------------------------------------------------------------------------

AckOutcome DeltaBaseline::observe_ack(const AckReport& report) {
    if (report.newest >= next_seq_) {
        counters_.rejected_acks += 1;
        return AckOutcome::Rejected;
    }
    if (options_.policy == RecoveryPolicy::Naive) return AckOutcome::Ignored;

    const AckWindow window = AckWindow::from_encoded(report.newest, report.mask);
    AckOutcome outcome = AckOutcome::Unchanged;
    std::optional<std::uint64_t> base;
    if (acked_seq_ && options_.frontier == AckFrontier::Contiguous) {
        base = window.contiguous_base(*acked_seq_ + 1);
    } else {
        // The newest frame of this epoch that arrived. At cold start every frame so far was
        // a full baseline, so this is a state the client holds exactly. With AnyReceived it is
        // sound later too: every delta names an acknowledged baseline the client held when the
        // delta arrived, and the two baselines make one frame enough to reach its state.
        for (std::size_t i = ring_count_; i > 0; --i) {
            if (window.contains(sent_at(i - 1).seq)) {
                base = sent_at(i - 1).seq;
                break;
            }
        }
    }
    if (!base && newest_trimmed_ && report.newest <= *newest_trimmed_) counters_.acks_outside_history += 1;
    if (base && (!acked_seq_ || *base > *acked_seq_)) {
        if (const Sent* s = find_sent(*base)) {
            make_room(s->keys.size());
            acked_.assign(s->keys.begin(), s->keys.end());
            acked_seq_ = s->seq;
            acked_digest_ = s->digest;
            outcome = AckOutcome::Advanced;
        }
    }
    // Only a gapless report describes exactly the acked state; check it on every such report.
    if (acked_seq_ && *acked_seq_ == report.newest && acked_digest_ != report.digest) {
        needs_full_ = true;
        counters_.drift_detections += 1;
        outcome = AckOutcome::Drift;
    }
    if (!window_ || report.newest >= *window_->newest()) window_ = window;
    recount_unacked();
    return outcome;
}

AckOutcome DeltaBaseline::observe_ack_at(const AckReport& report, double now_ms) {
    if (report.newest >= next_seq_) {
        counters_.rejected_acks += 1;
        return AckOutcome::Rejected;
    }
    if (stalled(now_ms)) {
        counters_.resumes += 1;
        reset();
        return AckOutcome::Resumed;
    }
    last_heard_ms_ = now_ms;
    return observe_ack(report);
}

}  // namespace vantage
