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

constexpr std::uint32_t slot_index(std::uint64_t packed) {
    return static_cast<std::uint32_t>(packed >> 16);
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
    if (max_keys < 1) return "max_keys must be >= 1";
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
    ring_.resize(kRing);
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

// --- bookkeeping --------------------------------------------------------------------------------

DeltaBaseline::Sent* DeltaBaseline::find_sent(std::uint64_t seq) {
    Sent& s = ring_[seq % kRing];
    return s.live && s.seq == seq ? &s : nullptr;
}

const DeltaBaseline::Sent* DeltaBaseline::find_sent(std::uint64_t seq) const {
    const Sent& s = ring_[seq % kRing];
    return s.live && s.seq == seq ? &s : nullptr;
}

DeltaBaseline::Slot* DeltaBaseline::find_slot(std::uint32_t index) {
    const auto it = std::lower_bound(slots_.begin(), slots_.end(), index,
                                     [](const Slot& s, std::uint32_t i) { return s.index < i; });
    return it != slots_.end() && it->index == index ? &*it : nullptr;
}

bool DeltaBaseline::settled(const Slot& slot) const {
    // Every mention from first_seq on names the current value, so the newest one that arrived
    // (which the client holds) names it whenever any of them did.
    return slot.confirmed && slot.held_seq >= slot.first_seq && !slot.unknowable;
}

void DeltaBaseline::set_sent(Slot& slot, std::uint64_t value, std::uint64_t seq) {
    if (!slot.named || value != slot.sent) slot.first_seq = seq;
    if (slot.named && slot.sent != kEmpty) sent_digest_.remove(slot.sent);
    if (value != kEmpty) {
        sent_digest_.insert(value);
        slot.name = value;
    }
    slot.sent = value;
    slot.sent_seq = seq;
    slot.named = true;
}

void DeltaBaseline::set_held(Slot& slot, std::uint64_t value, std::uint64_t seq) {
    if (slot.confirmed && slot.held != kEmpty) held_digest_.remove(slot.held);
    if (value != kEmpty) held_digest_.insert(value);
    slot.held = value;
    slot.held_seq = seq;
    slot.confirmed = true;
    if (slot.unknowable) {
        // A mention newer than the one that left the window unconfirmed: what that one said
        // no longer matters.
        slot.unknowable = false;
        unknowable_ -= 1;
    }
}

void DeltaBaseline::confirm(Sent& s) {
    s.received = true;
    if (next_seq_ - s.seq > options_.history) counters_.late_acks += 1;
    for (const Mention& m : s.mentions) {
        Slot* slot = find_slot(m.index);
        // No record: the slot settled empty on a newer mention, so this older word is moot.
        if (slot && (!slot->confirmed || s.seq > slot->held_seq)) set_held(*slot, m.value, s.seq);
    }
}

void DeltaBaseline::retire(Sent& s) {
    if (!s.live) return;
    s.live = false;
    if (s.received) return;
    // It may still arrive, and no report will ever say: where it was the newest word the
    // client may have, what the client holds there is unknowable until a newer one arrives.
    for (const Mention& m : s.mentions) {
        Slot* slot = find_slot(m.index);
        if (slot && !slot->unknowable && (!slot->confirmed || s.seq > slot->held_seq)) {
            slot->unknowable = true;
            unknowable_ += 1;
        }
    }
}

bool DeltaBaseline::lost(const Slot& slot) const {
    if (slot.unknowable || !find_sent(slot.sent_seq)) return true;
    // A newer frame was reported and this one was not (any received only; the contiguous
    // frontier ignores what arrived past a gap, so only the timeout resends there).
    return options_.frontier == AckFrontier::AnyReceived && reported_ && *reported_ > slot.sent_seq;
}

bool DeltaBaseline::waiting(const Slot& slot) const {
    return !lost(slot) && next_seq_ - slot.sent_seq <= options_.history;
}

std::size_t DeltaBaseline::unacked() const {
    std::size_t n = 0;
    for (const Sent& s : ring_) {
        if (s.live && (!reported_ || s.seq > *reported_)) ++n;
    }
    return n;
}

std::size_t DeltaBaseline::unsettled() const {
    std::size_t n = 0;
    for (const Slot& slot : slots_) {
        if (!slot.named || !settled(slot)) ++n;
    }
    return n;
}

// --- lifecycle ----------------------------------------------------------------------------------

void DeltaBaseline::rebuild() {
    // A new epoch: the client clears itself on its first frame of it, so nothing it held
    // before matters and no acknowledgement from before may confirm anything.
    epoch_ = next_seq_;
    slots_.clear();
    for (Sent& s : ring_) s.live = false;
    reported_.reset();
    contiguous_.reset();
    sent_digest_.clear();
    held_digest_.clear();
    unknowable_ = 0;
    cursor_ = 0;
    needs_full_ = false;
    counters_.full_rebuilds += 1;
}

void DeltaBaseline::reset() {
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

void DeltaBaseline::plan(std::span<const std::uint64_t> current, DeltaPlan& out) {
    plan(current, out, options_.max_frame_bytes);
}

void DeltaBaseline::plan(std::span<const std::uint64_t> current, DeltaPlan& out, std::size_t max_frame_bytes) {
    limit_ = std::clamp(max_frame_bytes, kMinFrameBytes, options_.max_frame_bytes);
    VANTAGE_ASSERT_HOT(strictly_ascending(current),
                       "DeltaBaseline::plan: keys must be ascending and unique (sort the relevant set first)");
    const bool recovering = options_.policy == RecoveryPolicy::Acked;
    bool stale = false;
    if (recovering && options_.frontier == AckFrontier::Contiguous && epoch_ && reported_) {
        // The first frame past the contiguous frontier: reported around and still missing
        // after a history's worth of frames, it will never let the frontier move.
        const std::uint64_t gap = contiguous_ ? *contiguous_ + 1 : *epoch_;
        stale = *reported_ > gap && next_seq_ - gap > options_.history;
    }
    if (stale && !needs_full_) counters_.stale_rebuilds += 1;
    if (needs_full_ || stale || !epoch_) rebuild();

    out.seq = next_seq_++;
    out.full_baseline = out.seq == *epoch_;
    out.baseline_seq.reset();
    if (!out.full_baseline && recovering) out.baseline_seq = epoch_;
    out.entered.clear();
    out.left.clear();

    // Every buffer at once, to the next power of two: relevant sets wander around a size, so
    // after warm-up a steady stream allocates nothing.
    if (const std::size_t n = slots_.size() + current.size(); n > room_) {
        room_ = std::bit_ceil(n);
        slots_.reserve(room_);
        next_slots_.reserve(room_);
        needed_.reserve(room_);
        spare_.reserve(room_);
    }
    if (out.entered.capacity() < room_) out.entered.reserve(room_);
    if (out.left.capacity() < room_) out.left.reserve(room_);

    // Every slot current or possibly held, in index order, and those to name this frame.
    next_slots_.clear();
    needed_.clear();
    spare_.clear();
    std::size_t i = 0, j = 0;
    while (i < slots_.size() || j < current.size()) {
        Slot slot;
        std::uint64_t want = kEmpty;
        if (j == current.size() || (i < slots_.size() && slots_[i].index < slot_index(current[j]))) {
            slot = slots_[i++];
        } else {
            want = current[j++];
            if (i < slots_.size() && slots_[i].index == slot_index(want)) {
                slot = slots_[i++];
            } else {
                slot.index = slot_index(want);
            }
        }
        bool name = false;
        bool repeat = false;  // in flight with its current value: may go again in spare room
        if (!slot.named) {
            name = want != kEmpty;
        } else if (want != slot.sent) {
            name = true;
        } else if (!settled(slot)) {
            name = !waiting(slot);
            repeat = !name;
        } else if (want == kEmpty) {
            continue;  // settled empty: nothing to remember
        }
        if (!slot.named && want == kEmpty) continue;
        next_slots_.push_back(slot);
        if (name) {
            // A slot is one item: its new occupant replaces the old in one entered key, and
            // emptying it is one left key naming the occupant last named.
            const bool resend = slot.named && want == slot.sent;
            needed_.push_back(Candidate{next_slots_.size() - 1, want != kEmpty ? want : slot.name, want != kEmpty,
                                        resend && lost(slot)});
        } else if (repeat && recovering && options_.repeat_in_flight) {
            spare_.push_back(
                Candidate{next_slots_.size() - 1, want != kEmpty ? want : slot.name, want != kEmpty, false});
        }
    }

    // As many as fit, in index order from the cursor (wrapping): needed_[start, start + tail) and
    // then needed_[0, k - tail), listed lowest first.
    const std::size_t p = needed_.size();
    const std::size_t start = static_cast<std::size_t>(
        std::lower_bound(needed_.begin(), needed_.end(), cursor_,
                         [&](const Candidate& t, std::uint32_t c) { return next_slots_[t.slot].index < c; }) -
        needed_.begin());
    auto take = [&](std::size_t k) {
        out.entered.clear();
        out.left.clear();
        const std::size_t tail = std::min(k, p - start);
        auto add = [&](std::size_t t) { (needed_[t].enters ? out.entered : out.left).push_back(needed_[t].key); };
        for (std::size_t t = 0; t < k - tail; ++t) add(t);
        for (std::size_t t = start; t < start + tail; ++t) add(t);
        return out.entered.size() <= options_.max_keys && out.left.size() <= options_.max_keys &&
               frame_bytes(out) <= limit_;
    };
    std::size_t k = p;
    if (!take(p)) {
        // The empty frame fits (validate() keeps room for a header); a frame only grows with
        // its part, so bisect.
        std::size_t lo = 0, hi = p;
        while (hi - lo > 1) {
            const std::size_t mid = lo + (hi - lo) / 2;
            (take(mid) ? lo : hi) = mid;
        }
        k = lo;
        take(k);
        counters_.spread_frames += 1;
        if (k > 0) {
            const std::size_t last = k <= p - start ? start + k - 1 : k - (p - start) - 1;
            cursor_ = next_slots_[needed_[last].slot].index + 1;
        }
    }

    // Spare room: changes still in flight go again, so a lost one is usually repaired by the
    // next frame rather than a round trip later. Lowest priority, and only once every slot
    // that needed naming is in the frame.
    std::size_t r = 0;
    if (k == p && !spare_.empty()) {
        auto with_repeats = [&](std::size_t n) {
            out.entered.clear();
            out.left.clear();
            std::size_t a = 0, b = 0;
            while (a < p || b < n) {
                const bool from_needed = b == n || (a < p && needed_[a].slot < spare_[b].slot);
                const Candidate& t = from_needed ? needed_[a++] : spare_[b++];
                (t.enters ? out.entered : out.left).push_back(t.key);
            }
            return out.entered.size() <= options_.max_keys && out.left.size() <= options_.max_keys &&
                   frame_bytes(out) <= limit_;
        };
        if (with_repeats(spare_.size())) {
            r = spare_.size();
        } else {
            std::size_t lo = 0, hi = spare_.size();
            while (hi - lo > 1) {
                const std::size_t mid = lo + (hi - lo) / 2;
                (with_repeats(mid) ? lo : hi) = mid;
            }
            r = lo;
            with_repeats(r);
        }
        counters_.repeats += r;
    }

    // Record what was named, in the slots and in the window.
    Sent& sent = ring_[out.seq % kRing];
    slots_.swap(next_slots_);  // find_slot() now sees this frame's slots; retire() needs them
    retire(sent);
    sent.seq = out.seq;
    sent.live = true;
    sent.received = false;
    sent.mentions.clear();
    if (const std::size_t named = k + r; named > mention_room_) {
        // Every entry of the window at once, to the next power of two of the most a frame named.
        mention_room_ = std::bit_ceil(named);
        for (Sent& e : ring_) e.mentions.reserve(mention_room_);
    }
    const std::size_t tail = std::min(k, p - start);
    auto record = [&](std::size_t t) {
        const Candidate& c = needed_[t];
        Slot& slot = slots_[c.slot];
        const std::uint64_t want = c.enters ? c.key : kEmpty;
        if (slot.named && want == slot.sent) (c.lost ? counters_.resent_lost : counters_.resent_timeout) += 1;
        set_sent(slot, want, out.seq);
        if (!recovering) set_held(slot, want, out.seq);  // Naive: assume it arrived
        sent.mentions.push_back(Mention{slot.index, want});
    };
    for (std::size_t t = 0; t < k - tail; ++t) record(t);
    for (std::size_t t = start; t < start + tail; ++t) record(t);
    for (std::size_t t = 0; t < r; ++t) {
        Slot& slot = slots_[spare_[t].slot];
        slot.sent_seq = out.seq;  // the newest mention; the value and its first frame stand
        sent.mentions.push_back(Mention{slot.index, slot.sent});
    }
    std::sort(sent.mentions.begin(), sent.mentions.end(),
              [](const Mention& a, const Mention& b) { return a.index < b.index; });
    out.digest = sent_digest_.digest();
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
    // A report from before this epoch began says nothing about it, nor one while a rebuild is
    // pending (the next frame starts a new epoch).
    if (!epoch_ || needs_full_ || report.newest < *epoch_) return AckOutcome::Unchanged;
    const AckWindow window = AckWindow::from_encoded(report.newest, report.mask);
    AckOutcome outcome = AckOutcome::Unchanged;
    const std::uint64_t oldest = std::max(*epoch_, report.newest >= kRing ? report.newest - kRing + 1 : 0);
    if (options_.frontier == AckFrontier::AnyReceived) {
        for (std::uint64_t seq = oldest; seq <= report.newest; ++seq) {
            Sent* s = find_sent(seq);
            if (s && !s->received && window.contains(seq)) {
                confirm(*s);
                outcome = AckOutcome::Advanced;
            }
        }
    } else {
        const std::uint64_t first = contiguous_ ? *contiguous_ + 1 : *epoch_;
        if (const std::optional<std::uint64_t> base =
                first <= report.newest ? window.contiguous_base(first) : std::nullopt) {
            for (std::uint64_t seq = first; seq <= *base; ++seq) {
                if (Sent* s = find_sent(seq); s && !s->received) {
                    confirm(*s);
                    outcome = AckOutcome::Advanced;
                }
            }
            contiguous_ = *base;
        }
    }
    if (!reported_ || report.newest > *reported_) reported_ = report.newest;
    // The client's digest against what the reports prove it holds: on the newest report only,
    // when no acknowledgement is unknowable and (Contiguous) nothing arrived past a gap.
    const bool provable = report.newest == *reported_ && unknowable_ == 0 &&
                          (options_.frontier == AckFrontier::AnyReceived || contiguous_ == report.newest);
    if (provable && held_digest_.digest() != report.digest) {
        needs_full_ = true;
        counters_.drift_detections += 1;
        outcome = AckOutcome::Drift;
    }
    return outcome;
}

}  // namespace vantage
