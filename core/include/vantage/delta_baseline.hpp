// DeltaBaseline: what one subscriber must be told this frame, and what it is known to hold.
//
// The server keeps one per subscriber and hands it the subscriber's current relevant set
// (ascending packed SlotKeys) each frame; plan() returns entered/left. It never learns what a
// key means. The obvious scheme diffs against what was last *sent*, which assumes every
// packet arrives: one lost frame leaves the client permanently missing whatever it carried.
// RecoveryPolicy::Naive keeps exactly that behaviour, so the failure can be demonstrated.
// RecoveryPolicy::Acked (the default) tracks, per slot, what the client acknowledged:
//
// 1. Frames speak about slots. The client's mirror (DeltaMirror) keeps, per slot, the word of
//    the newest frame that spoke about it: an entered key puts that occupant in (replacing any
//    other), a left key empties the slot whatever generation it held. So what the client holds
//    is a function of which frames arrived, and the server can compute it from reports.
// 2. Per slot the planner keeps the newest value it sent and the value of the newest mention
//    the client acknowledged. A slot is named again only when its value changed, or when its
//    newest mention is known lost (a report newer than it lacks it) or unconfirmed for
//    `history` frames (the retransmission timeout). Changes in flight are never repeated in
//    place of new ones, so a stream moves a frame of changes per frame, not per round trip;
//    only the room a frame has left after every change carries them again
//    (repeat_in_flight), so that a lost frame is usually repaired by the next one.
// 3. A slot is one item: its old and new occupant are never split across frames (the new one
//    replaces the old in one entered key; the slot empties with one left key).
// 4. Epochs instead of exact full frames: a rebuild (cold start, reset(), a policy change, a
//    digest mismatch, a resume) starts an epoch at the next sequence. Every frame names its
//    epoch (the first frame is the full baseline; later ones carry it as baseline_seq), and a
//    mirror that sees a newer epoch clears itself before applying, so a lost first frame costs
//    nothing and a set larger than a frame spreads over the epoch's frames with no retraction.
//
// Frames that fit: every plan encodes (delta_wire) to at most max_frame_bytes and names at
// most max_keys keys per list. The slots to name go in key order from a cursor that resumes
// where the last frame stopped, so no slot waits behind a stream of lower-keyed ones. Each
// frame's digest is the SetDigest of the state it leads to if every frame sent so far
// arrives. The drift check compares a report's digest with the state the reports prove the
// client holds, whenever no acknowledgement is unknowable (a frame that left the 64-frame
// acknowledgement window unconfirmed while it was the newest word about a slot). Flow control
// throttles a subscriber silent for stalled_after_ms to one keepalive frame per
// keepalive_every_ms; its next acknowledgement is the resume signal and rebuilds.
//
// Convergence: once the link delivers frames again, every change is sent within
// ceil(pending changes / changes per frame) frames of the cursor reaching it and confirmed a
// round trip later; a lost frame's slots are named again in the first frame after a report
// shows the loss. Whenever the link carries more changes per round trip than the set churns,
// the client holds the whole set within a bounded number of round trips (core/docs/delta.md).
//
// Sequence numbers are the subscriber's own, consecutive, assigned by plan() and never
// reused (not even across reset()), so an acknowledgement always names one frame.
//
// Cost per plan: O(n + m) for n relevant keys and m slots the client may hold, plus the
// chosen changes' encoding estimate; per report, O(mentions newly confirmed * log m).
// Buffers are reused: after warm-up a steady stream allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "vantage/ack_window.hpp"
#include "vantage/delta_plan.hpp"
#include "vantage/set_digest.hpp"

namespace vantage {

enum class RecoveryPolicy : std::uint8_t {
    Naive,  // diff against the last frame sent; loses a lost frame's contents for good
    Acked,  // track what the client acknowledged per slot (default); see AckFrontier
};

// Which acknowledged frames count as received (Acked policy only).
enum class AckFrontier : std::uint8_t {
    // Only frames up to the newest b such that every frame of the epoch up to b arrived (the
    // reference toolkit's rule, core/docs/background.md). A lost frame stops the frontier
    // before it for good: everything sent after it stays unconfirmed and is resent at each
    // timeout, and once the gap is older than `history` frames the stream rebuilds (a stale
    // rebuild). Kept for comparison: it costs bytes and rebuilds under loss.
    Contiguous,
    // Every frame a report shows as received, like Quake 3's delta-from-last-acked (the
    // default). Sound because the mirror resolves each slot by the newest frame that spoke
    // about it: a frame's arrival settles exactly the slots it was the newest word about,
    // whatever arrived around it. The oracle property test (tests/core/delta_oracle_test.cpp)
    // checks both rules over loss, bursts, reordering, duplication and flow control.
    AnyReceived,
};

struct DeltaBaselineOptions {
    RecoveryPolicy policy = RecoveryPolicy::Acked;
    AckFrontier frontier = AckFrontier::AnyReceived;  // Acked only; see AckFrontier
    // Retransmission timeout, frames, [1, 64] (64 = AckWindow width): a slot whose newest
    // mention is unconfirmed this many frames after it was sent is named again. Shorter than
    // the round trip in frames, every change is sent about round trip / history times (counted
    // in late_acks); see history_for.
    std::size_t history = 24;
    double stalled_after_ms = 0.0;       // silence before throttling, ms, >= 0; 0 disables flow control
    double keepalive_every_ms = 1000.0;  // one frame per this while stalled, ms, > 0
    // Every planned frame encodes to at most this, bytes, [64, 65507] (delta_wire's
    // kMinFrameBytes..kMaxFrameBytesLimit); set WireOptions::max_frame_bytes to the same value.
    std::size_t max_frame_bytes = 1200;
    // Bytes each entered key carries besides the key itself, an upper bound, [0, 16]: 0 without
    // positions, WireOptions::position_bytes_bound(world half-extent) with them.
    std::size_t entered_value_bytes = 0;
    // Keys per list (entered, left) in one frame, >= 1: WireOptions::max_keys, which the
    // receiver refuses beyond.
    std::size_t max_keys = 65536;
    // Fill the room a frame has left after every change with changes still in flight (their
    // frames not yet confirmed), so a lost frame is usually repaired by the next one instead of
    // a round trip later. Costs those bytes; never displaces a change (Acked only).
    bool repeat_in_flight = true;

    // Empty when valid, otherwise a message naming the first bad field.
    std::string_view validate() const;

    // The history (frames) that covers one round trip plus jitter at this send interval, with
    // one frame of slack each way, clamped to [1, 64]. A shorter history resends every change
    // that is still in flight when it times out (counted in late_acks).
    static std::size_t history_for(double round_trip_ms, double jitter_ms, double send_interval_ms);
};

enum class AckOutcome : std::uint8_t {
    Ignored,    // Naive policy: acknowledgements change nothing
    Unchanged,  // accepted; nothing new was confirmed
    Advanced,   // confirmed at least one frame not confirmed before
    Drift,      // the client's digest disagrees with what it is known to hold: the next plan rebuilds
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
    std::uint64_t full_rebuilds = 0;     // epochs started, including the first frame's
    std::uint64_t stale_rebuilds = 0;    // Contiguous: rebuilds because a gap outlived the history
    std::uint64_t drift_detections = 0;  // digest mismatches against the proven state
    std::uint64_t resumes = 0;           // stalled subscribers that acknowledged again
    std::uint64_t keepalives = 0;        // frames let through while stalled
    std::uint64_t rejected_acks = 0;     // reports naming frames never sent
    // Frames that could not carry every slot waiting to be named (the rest follow).
    std::uint64_t spread_frames = 0;
    // Slots named again because their newest mention was lost (a report newer than it lacked
    // it, or it left the acknowledgement window unconfirmed).
    std::uint64_t resent_lost = 0;
    // Slots named again because their newest mention stayed unconfirmed for `history` frames.
    std::uint64_t resent_timeout = 0;
    // Slots in flight named again in a frame's spare room (repeat_in_flight).
    std::uint64_t repeats = 0;
    // Frames confirmed after their timeout had passed. Growing steadily, the history is
    // shorter than the round trip in frames and changes are sent more than once: lengthen
    // `history` (or lower the send rate).
    std::uint64_t late_acks = 0;
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

    // Forgets everything about the client (what it holds, acknowledgements, flow grace) and
    // makes the next plan a full baseline. Call it whenever a new client takes this
    // subscriber's slot: without it the newcomer is sent diffs against its predecessor's
    // state and receives nothing it did not already hold.
    void reset();
    void request_full_baseline() { needs_full_ = true; }
    // Changing the policy rebuilds; setting the policy it already has changes nothing.
    void set_policy(RecoveryPolicy policy);
    RecoveryPolicy policy() const { return options_.policy; }
    const DeltaBaselineOptions& options() const { return options_; }

    // The first frame of the current epoch (nullopt before the first plan).
    std::optional<std::uint64_t> epoch() const { return epoch_; }
    // The newest frame of the epoch a report named (nullopt until one did).
    std::optional<std::uint64_t> acked_seq() const { return reported_; }
    // Frames of the epoch sent after the newest report: truly in flight.
    std::size_t unacked() const;
    // Slots the client may hold something other than what was last sent for (in flight, lost
    // or not yet sent): zero when the client is known to hold the whole sent state.
    std::size_t unsettled() const;
    // The sequence the next plan() will use.
    std::uint64_t next_seq() const { return next_seq_; }
    const DeltaBaselineCounters& counters() const { return counters_; }

    // The packed key that stands for an empty slot in a frame's record (no SlotKey encodes it).
    static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};

private:
    // What the planner knows of one slot. Values are packed keys or kEmpty.
    struct Slot {
        std::uint32_t index = 0;
        std::uint64_t sent = kEmpty;  // the newest value named (kEmpty before any, this epoch)
        std::uint64_t held = kEmpty;  // the value of the newest mention confirmed received
        std::uint64_t name = kEmpty;  // the newest occupant named, to retract by
        std::uint64_t sent_seq = 0;   // the newest frame that named `sent` (valid when named)
        std::uint64_t first_seq = 0;  // the first frame that named `sent` since it last changed
        std::uint64_t held_seq = 0;   // the frame that named `held` (valid when confirmed)
        bool named = false;           // some frame of the epoch named this slot
        bool confirmed = false;       // some frame of the epoch that named it arrived
        bool unknowable = false;      // a mention newer than held left the window unconfirmed
    };
    // One slot a frame named and what it said.
    struct Mention {
        std::uint32_t index = 0;
        std::uint64_t value = kEmpty;
    };
    // A frame in the acknowledgement window.
    struct Sent {
        std::uint64_t seq = 0;
        bool live = false;      // holds a frame of the current epoch
        bool received = false;  // a report showed it arrived (and, Contiguous, all before it)
        std::vector<Mention> mentions;
    };
    static constexpr std::size_t kRing = 64;  // AckWindow::kWindow

    // A slot to name this frame: its position in next_slots_ and the key to name.
    struct Candidate {
        std::size_t slot = 0;
        std::uint64_t key = 0;
        bool enters = false;  // entered (the slot's occupant) or left (the slot empties)
        bool lost = false;    // a resend because its newest mention was lost (else timed out)
    };

    Sent* find_sent(std::uint64_t seq);
    const Sent* find_sent(std::uint64_t seq) const;
    Slot* find_slot(std::uint32_t index);
    void rebuild();
    void retire(Sent& s);  // s leaves the window
    void confirm(Sent& s);
    bool settled(const Slot& slot) const;  // the client is known to hold its current value
    bool lost(const Slot& slot) const;     // its newest mention is known lost or unknowable
    bool waiting(const Slot& slot) const;  // its newest mention may still arrive
    void set_sent(Slot& slot, std::uint64_t value, std::uint64_t seq);
    void set_held(Slot& slot, std::uint64_t value, std::uint64_t seq);
    std::size_t frame_bytes(const DeltaPlan& plan) const;

    DeltaBaselineOptions options_;
    std::vector<Sent> ring_;
    std::vector<Slot> slots_;  // ascending index: every slot current or possibly held
    std::vector<Slot> next_slots_;
    std::optional<std::uint64_t> epoch_;
    std::optional<std::uint64_t> reported_;    // newest frame of the epoch a report named
    std::optional<std::uint64_t> contiguous_;  // Contiguous: every frame of the epoch to here arrived
    SetDigest sent_digest_;                    // of every slot's `sent`
    SetDigest held_digest_;                    // of every slot's `held`
    std::size_t unknowable_ = 0;               // slots with `unknowable` set
    bool needs_full_ = true;
    std::uint64_t next_seq_ = 0;

    bool grace_started_ = false;
    double grace_start_ms_ = 0.0;
    std::optional<double> last_heard_ms_;
    std::optional<double> last_keepalive_ms_;

    std::vector<Candidate> needed_;  // the slots to name this frame, ascending
    std::vector<Candidate> spare_;   // slots in flight with their current value, ascending
    // Where a spread frame stopped: the next one resumes at the first slot from this index on
    // (then wraps), so no slot waits behind a stream of lower-keyed ones.
    std::uint32_t cursor_ = 0;
    std::size_t limit_ = 0;         // the frame being planned fits this, bytes
    std::size_t room_ = 0;          // slots every buffer holds without growing
    std::size_t mention_room_ = 0;  // mentions every window entry holds without growing
    DeltaBaselineCounters counters_;
};

}  // namespace vantage
