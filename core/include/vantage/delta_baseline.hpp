// DeltaBaseline: what one subscriber must be told this frame, and against what baseline.
//
// The server keeps one per subscriber and hands it the subscriber's current relevant set
// (ascending packed SlotKeys) each frame; plan() returns entered/left. It never learns what a
// key means. The obvious scheme diffs against what was last *sent*, which assumes every
// packet arrives: one lost frame leaves the client permanently missing whatever it carried.
// RecoveryPolicy::Naive keeps exactly that behaviour, so the failure can be demonstrated.
// RecoveryPolicy::Acked (the default) diffs against what the client *acknowledged*, and the
// four details that make it correct are load-bearing:
//
// 1. The baseline is an acknowledged state, chosen by the frontier rule (AckFrontier). By
//    default it is the newest frame of the epoch that arrived (AnyReceived), which the two
//    baselines below make sound; Contiguous (the reference toolkit's rule) waits for every
//    frame since the last adoption and is kept, measured, for comparison.
// 2. Keys carry generations (SlotKey), because a retraction re-derived frames later must
//    not name a slot's new occupant.
// 3. The two halves of the diff use baselines built by opposite operations. What to *send*
//    assumes the least the client holds: the acked state intersected with every state sent
//    since. What to *retract* assumes the most: the acked state unioned with every state sent
//    since, because a key that entered and left inside the gap is in neither the acked nor
//    the current set, yet the client may hold it.
// 4. Cold start is a decision: until the first acknowledgement every frame is a full
//    baseline, because there is no acknowledged state to diff against.
//
// Around those: a rebuild (reset(), request_full_baseline(), a policy change, a digest
// mismatch, or an acknowledgement so old that a state sent after it has left the history)
// starts a new epoch: the sent history is cleared so that acknowledgements from before it
// are never adopted, and full baselines continue until one acknowledgement round trip ends
// them. The drift check compares the client's digest with the acked state's whenever the
// client's newest frame is the acked frame (no gaps), on every report. Flow control throttles
// a subscriber that has been silent for stalled_after_ms to one keepalive frame per
// keepalive_every_ms; its next acknowledgement is the resume signal and rebuilds. There is one
// acknowledgement entry point, observe_ack(report, now_ms): every report is also liveness.
//
// Frames that fit: every plan encodes (delta_wire) to at most max_frame_bytes. A full set or
// a diff too large for one frame is spread over consecutive frames, each an ordinary exact
// frame towards an intermediate target: the uncertain keys (those the acked state and the
// states sent since disagree on) are always named, then as many of the remaining changes as
// fit, resuming each frame where the last one stopped. Each frame records its target, not the
// relevant set, as the state it sent, so acknowledgements, the two baselines and the drift
// check stay exact across the parts, and a lost part is resent by the next diff against the
// acknowledged state. A full set smaller than the diff is sent as a full baseline instead.
//
// Sequence numbers are the subscriber's own, consecutive, assigned by plan() and never
// reused (not even across reset()), so an acknowledgement always names one frame.
//
// Cost per plan: O(n * k) for n keys and k states sent since the acknowledgement (k is at
// most the history length, about one round trip of frames in steady state). Scratch and
// history buffers are reused: after warm-up a steady stream allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "vantage/ack_window.hpp"
#include "vantage/delta_plan.hpp"

namespace vantage {

enum class RecoveryPolicy : std::uint8_t {
    Naive,  // diff against the last frame sent; loses a lost frame's contents for good
    Acked,  // diff against an acknowledged state (default); see AckFrontier
};

// How far one acknowledgement report moves the acknowledged state (Acked policy only).
enum class AckFrontier : std::uint8_t {
    // The newest b such that every frame from the acknowledged one to b arrived (the
    // reference toolkit's rule, core/docs/background.md). A lost frame stops the frontier
    // before it for good: diffs then grow against the old state until it leaves the history
    // and a stale rebuild sends the full set, which under sustained loss with frames that fit
    // keeps the client behind (core/docs/delta.md measures 910 of 1,006 keys held at 2% loss,
    // 521 at 25%, for 2 to 2.4x AnyReceived's bytes). Kept for comparison.
    Contiguous,
    // The newest frame of the epoch that arrived, like Quake 3's delta-from-last-acked (the
    // default). Sound here, where it is not with raw baselines, for three reasons:
    // - every delta names a baseline b adopted from the client's own report, so the client
    //   held b's state (or a newer one reached from it) before the delta can arrive;
    // - the delta is built against the intersection (what to send) and the union (what to
    //   retract) of b and every state sent since, so applied to any state reachable from b by
    //   a subset of those frames it lands exactly on its own state: a key it does not mention
    //   was in all of them (no frame between removed it) or in none (no frame added it);
    // - DeltaMirror resolves late and duplicate frames per slot (the newest frame that spoke
    //   about a slot wins), so an older frame arriving after it changes nothing.
    // A lost frame then costs only the churn it carried, which the next frame re-derives. The
    // oracle property test (tests/core/delta_oracle_test.cpp) checks both rules over loss,
    // bursts, reordering, duplication and flow control.
    AnyReceived,
};

struct DeltaBaselineOptions {
    RecoveryPolicy policy = RecoveryPolicy::Acked;
    AckFrontier frontier = AckFrontier::AnyReceived;  // Acked only; see AckFrontier
    std::size_t history = 24;                         // sent states kept, frames, [1, 64] (64 = AckWindow width)
    double stalled_after_ms = 0.0;                    // silence before throttling, ms, >= 0; 0 disables flow control
    double keepalive_every_ms = 1000.0;               // one frame per this while stalled, ms, > 0
    // Every planned frame encodes to at most this, bytes, [64, 65507] (delta_wire's
    // kMinFrameBytes..kMaxFrameBytesLimit); set WireOptions::max_frame_bytes to the same value.
    std::size_t max_frame_bytes = 1200;
    // Bytes each entered key carries besides the key itself, an upper bound, [0, 64]: 0 without
    // positions, WireOptions::position_bytes_bound(world half-extent) with them.
    std::size_t entered_value_bytes = 0;

    // Empty when valid, otherwise a message naming the first bad field.
    std::string_view validate() const;

    // The history (frames) that covers one round trip plus jitter at this send interval, with
    // one frame of slack each way, clamped to [1, 64]. A history shorter than the round trip in
    // frames makes every frame a full baseline (counted in acks_outside_history).
    static std::size_t history_for(double round_trip_ms, double jitter_ms, double send_interval_ms);
};

enum class AckOutcome : std::uint8_t {
    Ignored,    // Naive policy: acknowledgements change nothing
    Unchanged,  // accepted; the acknowledged state did not move
    Advanced,   // the acknowledged state moved forward
    Drift,      // the client's digest disagrees with the acked state: the next plan is full
    Resumed,    // a stalled subscriber spoke again: rebuilt, the next plan is full
    Rejected,   // names a frame never sent: bad data, ignored
};

// Names for logs, readouts and test failures (core/docs/conventions.md).
constexpr const char* to_string(RecoveryPolicy policy) {
    switch (policy) {
        case RecoveryPolicy::Naive:
            return "naive";
        case RecoveryPolicy::Acked:
            return "acked";
    }
    return "unknown recovery policy";
}

constexpr const char* to_string(AckFrontier frontier) {
    switch (frontier) {
        case AckFrontier::Contiguous:
            return "contiguous";
        case AckFrontier::AnyReceived:
            return "any received";
    }
    return "unknown ack frontier";
}

constexpr const char* to_string(AckOutcome outcome) {
    switch (outcome) {
        case AckOutcome::Ignored:
            return "ignored";
        case AckOutcome::Unchanged:
            return "unchanged";
        case AckOutcome::Advanced:
            return "advanced";
        case AckOutcome::Drift:
            return "drift";
        case AckOutcome::Resumed:
            return "resumed";
        case AckOutcome::Rejected:
            return "rejected";
    }
    return "unknown ack outcome";
}

struct DeltaBaselineCounters {
    std::uint64_t full_rebuilds = 0;     // every rebuild, including the first frame's
    std::uint64_t stale_rebuilds = 0;    // rebuilds because the ack fell out of the history
    std::uint64_t drift_detections = 0;  // digest mismatches on a gapless report
    std::uint64_t resumes = 0;           // stalled subscribers that acknowledged again
    std::uint64_t keepalives = 0;        // frames let through while stalled
    std::uint64_t rejected_acks = 0;     // reports naming frames never sent
    // Reports whose every frame has already left the history: nothing in them can become a
    // baseline. Growing steadily, the history is shorter than the round trip in frames and
    // every frame stays a full baseline: lengthen `history` (or lower the send rate).
    std::uint64_t acks_outside_history = 0;
    // Full baselines sent because no frame of the epoch was acknowledged yet, after the
    // epoch's first (cold start, or the round trip after each rebuild).
    std::uint64_t unacked_full_frames = 0;
    // Frames that carried only part of the change because the whole did not fit
    // max_frame_bytes (the rest follows in the next frames).
    std::uint64_t spread_frames = 0;
    // Full baselines sent because the full set encoded smaller than the diff against the
    // acknowledged state (no rebuild: the epoch and its acknowledgements continue).
    std::uint64_t full_smaller_frames = 0;
    // Rebuilds because the uncertain keys alone no longer fit a frame (rare: needs more keys
    // in flight than one frame holds).
    std::uint64_t oversize_rebuilds = 0;
};

class DeltaBaseline {
public:
    explicit DeltaBaseline(const DeltaBaselineOptions& options = {});

    // Flow control: call once per send opportunity; when it returns false skip plan() for
    // this subscriber this round. Always true without flow control. The first call starts
    // the grace period, so a subscriber is never born stalled.
    bool should_send(double now_ms);
    // Silent for at least stalled_after_ms since the grace start or its last
    // acknowledgement. False without flow control and before the first should_send().
    bool stalled(double now_ms) const;

    // Plans the next frame for `current` (ascending, unique packed keys) into out, reusing
    // out's buffers, and records it as sent.
    void plan(std::span<const std::uint64_t> current, DeltaPlan& out);
    // The same within a tighter limit for this frame only (bytes, clamped to
    // [kMinFrameBytes, options().max_frame_bytes]): a caller that wraps the frame in a larger
    // datagram (the horde's packet) passes what its other parts leave.
    void plan(std::span<const std::uint64_t> current, DeltaPlan& out, std::size_t max_frame_bytes);

    // Takes the client's report, received at now_ms (ms, the clock should_send() sees). Every
    // report is also liveness for flow control: one from a stalled subscriber is its resume
    // signal and rebuilds instead (Resumed). A report naming a frame never sent is Rejected
    // and changes nothing. Under Naive it changes nothing else (Ignored).
    AckOutcome observe_ack(const AckReport& report, double now_ms);

    // Forgets everything about the client (sent history, acknowledgements, flow grace) and
    // makes the next plan a full baseline. Call it whenever a new client takes this
    // subscriber's slot: without it the newcomer is sent diffs against its predecessor's
    // state and receives nothing it did not already hold.
    void reset();
    void request_full_baseline() { needs_full_ = true; }
    // Changing the policy rebuilds; setting the policy it already has changes nothing.
    void set_policy(RecoveryPolicy policy);
    RecoveryPolicy policy() const { return options_.policy; }
    const DeltaBaselineOptions& options() const { return options_; }

    std::optional<std::uint64_t> acked_seq() const { return acked_seq_; }
    // Frames sent (still in the history) newer than the newest report: truly in flight.
    std::size_t unacked() const { return unacked_; }
    // The sequence the next plan() will use.
    std::uint64_t next_seq() const { return next_seq_; }
    const DeltaBaselineCounters& counters() const { return counters_; }

private:
    struct Sent {
        std::uint64_t seq = 0;
        std::uint64_t digest = 0;
        std::vector<std::uint64_t> keys;
    };
    const Sent& sent_at(std::size_t i) const;  // i = 0 is the oldest
    const Sent* find_sent(std::uint64_t seq) const;
    Sent& push_sent();
    void clear_epoch();
    void rebuild();
    void recount_unacked();
    void make_room(std::size_t n);  // raises room_ to hold n keys
    // Fills out (seq set) as a full baseline of the longest prefix of current that fits, and
    // target_ with it.
    void plan_full(std::span<const std::uint64_t> current, DeltaPlan& out);
    // Fills out (seq and baseline set) with a diff from certain-in keys `certain` and possibly
    // held keys `held` (certain is a subset of held) towards current, spread when too large:
    // false when even the uncertain keys alone do not fit.
    bool plan_diff(std::span<const std::uint64_t> current, std::span<const std::uint64_t> certain,
                   std::span<const std::uint64_t> held, DeltaPlan& out);
    std::size_t frame_bytes(const DeltaPlan& plan) const;

    DeltaBaselineOptions options_;
    std::vector<Sent> ring_;     // capacity options_.history
    std::size_t ring_head_ = 0;  // index of the oldest entry
    std::size_t ring_count_ = 0;
    // Newest sequence trimmed from the history this epoch: an acknowledgement older than it
    // can no longer be diffed against (a state sent after it is gone).
    std::optional<std::uint64_t> newest_trimmed_;

    std::optional<std::uint64_t> acked_seq_;
    std::uint64_t acked_digest_ = 0;
    std::vector<std::uint64_t> acked_;
    std::optional<AckWindow> window_;
    std::size_t unacked_ = 0;
    bool needs_full_ = true;
    std::uint64_t next_seq_ = 0;

    bool grace_started_ = false;
    double grace_start_ms_ = 0.0;
    std::optional<double> last_heard_ms_;
    std::optional<double> last_keepalive_ms_;

    std::vector<std::uint64_t> send_base_;
    std::vector<std::uint64_t> assumed_held_;
    std::vector<std::uint64_t> scratch_;
    std::vector<std::uint64_t> target_;  // the state the frame being planned leads to
    // A spread frame's changes, ascending: the uncertain keys it must name (entered and
    // left), the others (progress: as many as fit go), and progress in one list.
    std::vector<std::uint64_t> must_enter_;
    std::vector<std::uint64_t> must_leave_;
    std::vector<std::uint64_t> may_enter_;
    std::vector<std::uint64_t> may_leave_;
    std::vector<std::uint64_t> progress_;
    std::vector<std::uint64_t> taken_;  // the part of one list of progress a frame carries
    // Where a spread frame stopped: the next one resumes at the first change from this key
    // on (then wraps), so no change waits behind a stream of lower-keyed ones.
    std::uint64_t cursor_ = 0;
    std::size_t limit_ = 0;  // the frame being planned fits this, bytes
    // Keys every buffer above can hold without growing. Relevant sets wander around a size,
    // so after warm-up a steady stream allocates nothing.
    std::size_t room_ = 0;
    DeltaBaselineCounters counters_;
};

}  // namespace vantage
