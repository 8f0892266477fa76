#include "vantage/delta_baseline.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "vantage/assert.hpp"
#include "vantage/delta_wire.hpp"
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

// out = what write(first) writes from first on, at most bound keys. The set algorithms write
// through a pointer into the sized buffer: a back_inserter is a capacity check per key, and
// clang leaves its operator= out of line in wasm, a call per key.
template <class Write>
void write_keys(std::vector<std::uint64_t>& out, std::size_t bound, Write write) {
    out.clear();
    out.resize(bound);
    out.resize(static_cast<std::size_t>(write(out.data()) - out.data()));
}

using Keys = std::span<const std::uint64_t>;

// The parts of two sets a set operation keeps.
enum SetPart : unsigned { kOnlyA = 1, kBoth = 2, kOnlyB = 4 };

// out = the keys of a and b that lie in the parts `keep` names, both ascending. The lists are
// mostly the same keys (a frame's set against the last one's, or against what was
// acknowledged: a few dozen changes in a thousand), so the walk tests equality first: one
// well-predicted compare per shared key, where the standard algorithms test less-than both
// ways. It walks local pointers: natively a key stored through the output may alias a span's
// size (both 64-bit integers), which made every store reload both spans.
template <unsigned keep>
void keep_parts(Keys a, Keys b, std::vector<std::uint64_t>& out) {
    constexpr bool only_both = keep == kBoth;
    const std::size_t bound =
        only_both ? std::min(a.size(), b.size()) : ((keep & kOnlyA) ? a.size() : 0) + ((keep & kOnlyB) ? b.size() : 0);
    write_keys(out, bound, [a, b](std::uint64_t* o) {
        const std::uint64_t *i = a.data(), *const i_end = i + a.size();
        const std::uint64_t *j = b.data(), *const j_end = j + b.size();
        while (i != i_end && j != j_end) {
            const std::uint64_t x = *i, y = *j;
            if (x == y) {
                if constexpr ((keep & kBoth) != 0) *o++ = x;
                ++i;
                ++j;
            } else if (x < y) {
                if constexpr ((keep & kOnlyA) != 0) *o++ = x;
                ++i;
            } else {
                if constexpr ((keep & kOnlyB) != 0) *o++ = y;
                ++j;
            }
        }
        if constexpr ((keep & kOnlyA) != 0) o = std::copy(i, i_end, o);
        if constexpr ((keep & kOnlyB) != 0) o = std::copy(j, j_end, o);
        return o;
    });
}

// out = a - b, both ascending.
void difference(Keys a, Keys b, std::vector<std::uint64_t>& out) {
    keep_parts<kOnlyA>(a, b, out);
}

// out = a and b, both ascending.
void intersection(Keys a, Keys b, std::vector<std::uint64_t>& out) {
    keep_parts<kBoth>(a, b, out);
}

// out = a or b, both ascending.
void union_of(Keys a, Keys b, std::vector<std::uint64_t>& out) {
    keep_parts<kOnlyA | kBoth | kOnlyB>(a, b, out);
}

// out = a and b merged, disjoint and ascending.
void merge(Keys a, Keys b, std::vector<std::uint64_t>& out) {
    write_keys(out, a.size() + b.size(),
               [&](std::uint64_t* first) { return std::merge(a.begin(), a.end(), b.begin(), b.end(), first); });
}

}  // namespace

std::string_view DeltaBaselineOptions::validate() const {
    if (history < 1 || history > AckWindow::kWindow) return "history must be in [1, 64]";
    if (frontier != AckFrontier::Contiguous && frontier != AckFrontier::AnyReceived)
        return "frontier is not an AckFrontier";
    if (!std::isfinite(stalled_after_ms) || stalled_after_ms < 0.0) return "stalled_after_ms must be >= 0";
    if (!std::isfinite(keepalive_every_ms) || keepalive_every_ms <= 0.0) return "keepalive_every_ms must be > 0";
    if (max_frame_bytes < kMinFrameBytes || max_frame_bytes > kMaxFrameBytesLimit)
        return "max_frame_bytes must be in [64, 65507]";
    if (entered_value_bytes > 16) return "entered_value_bytes must be in [0, 16]";
    return {};
}

std::size_t DeltaBaselineOptions::history_for(double round_trip_ms, double jitter_ms, double send_interval_ms) {
    VANTAGE_ASSERT(std::isfinite(round_trip_ms) && round_trip_ms >= 0.0 && std::isfinite(jitter_ms) &&
                       jitter_ms >= 0.0 && std::isfinite(send_interval_ms) && send_interval_ms > 0.0,
                   "history_for: times must be finite, >= 0, and the interval > 0");
    // The acknowledgement of frame n names n once a round trip (plus jitter) has passed, while
    // frames keep going out: that many frames, one more for the frame in hand and one for the
    // acknowledgement's own send tick.
    const double frames = std::ceil((round_trip_ms + jitter_ms) / send_interval_ms) + 2.0;
    return static_cast<std::size_t>(std::clamp(frames, 1.0, static_cast<double>(AckWindow::kWindow)));
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
    for (std::vector<std::uint64_t>* v : {&acked_, &send_base_, &assumed_held_, &scratch_, &target_, &must_enter_,
                                          &must_leave_, &may_enter_, &may_leave_, &progress_, &taken_})
        v->reserve(room_);
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

std::size_t DeltaBaseline::frame_bytes(const DeltaPlan& plan) const {
    return delta_frame_bytes(plan, options_.entered_value_bytes);
}

void DeltaBaseline::plan_full(std::span<const std::uint64_t> current, DeltaPlan& out) {
    out.full_baseline = true;
    out.baseline_seq.reset();
    out.left.clear();
    const std::size_t max = limit_;
    const std::size_t value = options_.entered_value_bytes;
    std::size_t n = current.size();
    if (delta_frame_bytes(out.seq, std::nullopt, current, {}, value) > max) {
        // The longest prefix that fits; a frame only grows with its prefix, so bisect. The
        // empty prefix fits (validate() keeps room for a header and one key).
        std::size_t lo = 0;
        std::size_t hi = n;
        while (hi - lo > 1) {
            const std::size_t mid = lo + (hi - lo) / 2;
            (delta_frame_bytes(out.seq, std::nullopt, current.first(mid), {}, value) <= max ? lo : hi) = mid;
        }
        n = lo;
        counters_.spread_frames += 1;
    }
    make_room(n);
    reserve_at_least(out.entered, n, room_);
    out.entered.assign(current.begin(), current.begin() + static_cast<std::ptrdiff_t>(n));
    target_.assign(out.entered.begin(), out.entered.end());
}

bool DeltaBaseline::plan_diff(std::span<const std::uint64_t> current, std::span<const std::uint64_t> certain,
                              std::span<const std::uint64_t> held, DeltaPlan& out) {
    const std::size_t max = limit_;
    const std::size_t value = options_.entered_value_bytes;
    out.full_baseline = false;
    // The caller made room for current + held: no buffer (certain and held among them) moves.
    reserve_at_least(out.entered, current.size(), room_);
    reserve_at_least(out.left, held.size(), room_);
    difference(current, certain, out.entered);
    difference(held, current, out.left);
    const std::size_t diff_bytes = frame_bytes(out);
    // Pricing the whole set is a pass over it, skipped when even its floor is no smaller than
    // the diff (the steady state: a few changes against a large set).
    const bool full_may_be_smaller =
        delta_frame_bytes_floor(out.seq, std::nullopt, current.size(), 0, value) < diff_bytes;
    const std::size_t full_bytes =
        full_may_be_smaller ? delta_frame_bytes(out.seq, std::nullopt, current, {}, value) : 0;
    if (full_may_be_smaller && full_bytes <= max && full_bytes < diff_bytes) {
        // Far behind (or many changes in flight): the whole set says it in fewer bytes. A full
        // baseline is an exact state like any other, so the epoch continues.
        out.full_baseline = true;
        out.baseline_seq.reset();
        out.left.clear();
        out.entered.assign(current.begin(), current.end());
        target_.assign(current.begin(), current.end());
        counters_.full_smaller_frames += 1;
        return true;
    }
    if (diff_bytes <= max) {
        target_.assign(current.begin(), current.end());
        return true;
    }

    // Spread. Uncertain keys (possibly held, not certainly) must be named whatever the
    // target, or the client's state after this frame would not be one known set; the other
    // changes are progress, and as many as fit go, in key order from the cursor.
    difference(held, certain, scratch_);
    intersection(out.entered, scratch_, must_enter_);
    intersection(out.left, scratch_, must_leave_);
    difference(out.entered, scratch_, may_enter_);
    difference(out.left, scratch_, may_leave_);
    merge(may_enter_, may_leave_, progress_);

    const std::size_t p = progress_.size();
    const std::size_t start =
        static_cast<std::size_t>(std::lower_bound(progress_.begin(), progress_.end(), cursor_) - progress_.begin());
    // The first k changes from the cursor on, wrapping, into out: progress_[0, k - tail) and
    // progress_[start, start + tail), the first below the second. Each list of progress keeps
    // its part of those two key ranges, merged with its mandatory keys: linear in the lists.
    auto take = [&](std::size_t k) {
        const std::size_t tail = std::min(k, p - start);
        auto pick = [&](const std::vector<std::uint64_t>& must, const std::vector<std::uint64_t>& may,
                        std::vector<std::uint64_t>& list) {
            // Where the keys from progress_[i] on begin in may.
            auto cut = [&](std::size_t i) {
                return i >= p ? may.end() : std::lower_bound(may.begin(), may.end(), progress_[i]);
            };
            const auto head_end = cut(k - tail);
            const auto tail_begin = cut(start);
            const auto tail_end = cut(start + tail);
            taken_.assign(may.begin(), head_end);
            taken_.insert(taken_.end(), tail_begin, tail_end);
            merge(must, taken_, list);
        };
        pick(must_enter_, may_enter_, out.entered);
        pick(must_leave_, may_leave_, out.left);
        return frame_bytes(out);
    };
    if (take(0) > max) return false;
    std::size_t lo = 0;
    std::size_t hi = p;  // take(p) is the whole diff, which does not fit
    while (hi - lo > 1) {
        const std::size_t mid = lo + (hi - lo) / 2;
        (take(mid) <= max ? lo : hi) = mid;
    }
    take(lo);
    if (lo > 0) cursor_ = progress_[(start + lo - 1) % p] + 1;
    counters_.spread_frames += 1;
    // target = (certain + entered) - left: certain keys not retracted yet stay, changes not
    // carried yet wait.
    union_of(certain, out.entered, scratch_);
    difference(scratch_, out.left, target_);
    return true;
}

void DeltaBaseline::plan(std::span<const std::uint64_t> current, DeltaPlan& out) {
    plan(current, out, options_.max_frame_bytes);
}

void DeltaBaseline::plan(std::span<const std::uint64_t> current, DeltaPlan& out, std::size_t max_frame_bytes) {
    limit_ = std::clamp(max_frame_bytes, kMinFrameBytes, options_.max_frame_bytes);
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
        plan_full(current, out);
    } else if (recovering) {
        // Send against the least the client can hold, retract against the most.
        make_room(acked_.size());
        send_base_.assign(acked_.begin(), acked_.end());
        assumed_held_.assign(acked_.begin(), acked_.end());
        for (std::size_t i = 0; i < ring_count_; ++i) {
            const Sent& s = sent_at(i);
            if (s.seq <= *acked_seq_) continue;
            make_room(std::min(send_base_.size(), s.keys.size()));
            intersection(send_base_, s.keys, scratch_);
            send_base_.swap(scratch_);
            make_room(assumed_held_.size() + s.keys.size());
            union_of(assumed_held_, s.keys, scratch_);
            assumed_held_.swap(scratch_);
        }
        out.baseline_seq = acked_seq_;
        make_room(current.size() + assumed_held_.size());
        if (!plan_diff(current, send_base_, assumed_held_, out)) {
            // More uncertain keys than a frame holds: start over from a full baseline.
            counters_.oversize_rebuilds += 1;
            rebuild();
            plan_full(current, out);
        }
    } else {
        // Naive: against the last frame sent, whether or not it arrived (nothing uncertain).
        make_room(current.size() + (ring_count_ > 0 ? sent_at(ring_count_ - 1).keys.size() : 0));
        const std::span<const std::uint64_t> last = ring_count_ > 0
                                                        ? std::span<const std::uint64_t>(sent_at(ring_count_ - 1).keys)
                                                        : std::span<const std::uint64_t>{};
        plan_diff(current, last, last, out);
    }

    const std::uint64_t digest = SetDigest::from_keys(target_).digest();
    out.digest = digest;
    Sent& s = push_sent();
    s.seq = out.seq;
    s.digest = digest;
    make_room(target_.size());
    s.keys.assign(target_.begin(), target_.end());
    recount_unacked();
}

// --- acknowledgements ---------------------------------------------------------------------------

AckOutcome DeltaBaseline::observe_ack(const AckReport& report, double now_ms) {
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

}  // namespace vantage
