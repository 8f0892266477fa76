// DeltaStream and DeltaReceiver: one subscriber's relevant set, streamed loss-proof.
//
// The two ends of core/docs/delta.md's loop, with the pieces inside them. The server keeps one
// DeltaStream per subscriber and hands it, every send tick, the subscriber's relevant set as
// relevance produces it (ascending packed SlotKeys, or a VisibilitySet of slot indices and the
// world's index -> SlotKey function) and a way to read each key's position; frame() packs the
// keys, plans against what the client acknowledged (DeltaBaseline), and encodes one frame that
// fits a datagram (delta_wire), spreading a change too large for one frame over the next ones.
// Acknowledgements come back through one entry point, observe_ack(report, now_ms) (or
// receive_ack(bytes, now_ms), which decodes first). The client keeps one DeltaReceiver per
// connection: apply(bytes) decodes, applies to its DeltaMirror, compares the set digest and
// records the acknowledgement that report() / write_ack() send back; entered() and left() are
// what the last frame changed.
//
// Nothing here touches a clock, a socket or a thread: time is an argument and bytes are spans.
// Misuse (options that fail validate(), keys that are not ascending, a key function that
// renames the index) asserts; bad bytes return a WireError and change nothing. After warm-up a
// steady stream allocates nothing at either end (the buffers are reused).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "vantage/assert.hpp"
#include "vantage/byte_io.hpp"
#include "vantage/delta_baseline.hpp"
#include "vantage/delta_mirror.hpp"
#include "vantage/delta_plan.hpp"
#include "vantage/delta_wire.hpp"
#include "vantage/slot_key.hpp"
#include "vantage/vec.hpp"
#include "vantage/visibility_set.hpp"

namespace vantage {

// Both ends' settings in one struct, so the planner's and the wire's frame limits cannot
// disagree: give the server's stream and the client's receiver the same value.
struct DeltaStreamOptions {
    RecoveryPolicy policy = RecoveryPolicy::Acked;
    AckFrontier frontier = AckFrontier::AnyReceived;  // see AckFrontier (Acked only)
    std::size_t history = 24;                         // retransmission timeout, frames, [1, 64]; see history_for
    double stalled_after_ms = 0.0;                    // silence before throttling, ms, >= 0; 0: no flow control
    double keepalive_every_ms = 1000.0;               // one frame per this while stalled, ms, > 0
    std::size_t max_frame_bytes = 1200;               // every frame, bytes, [64, 65507]
    bool positions = true;                            // each entered key carries its position
    float position_step = 1.0f / 16.0f;               // position resolution, world units, > 0
    // Every coordinate of a position lies within [-position_max_abs, position_max_abs], world
    // units, > 0: it bounds a position's bytes when frames are planned to fit. A position
    // beyond it may make a frame too long, which the encoder refuses (StreamStatus::Refused).
    float position_max_abs = 4096.0f;
    std::size_t max_keys = 65536;  // per list, >= 1; the receiver refuses a frame claiming more

    // Empty when valid, otherwise a message naming the first bad field.
    std::string_view validate() const;
    // The planner's and the wire's options these amount to.
    DeltaBaselineOptions baseline() const;
    WireOptions wire() const;
};

// What one DeltaStream::frame() call did.
enum class StreamStatus : std::uint8_t {
    Ok,         // out holds one encoded frame: send it
    Throttled,  // flow control let nothing through this round; out is empty
    Refused,    // the encoder refused the frame (a position off the wire's range); out is
                // empty and the frame counts as lost (the next diffs carry its changes)
};
constexpr const char* to_string(StreamStatus status) {
    switch (status) {
        case StreamStatus::Ok:
            return "ok";
        case StreamStatus::Throttled:
            return "throttled";
        case StreamStatus::Refused:
            return "refused";
    }
    return "unknown stream status";
}

struct DeltaStreamCounters {
    std::uint64_t frames = 0;             // frames written
    std::uint64_t frame_bytes = 0;        // their bytes
    std::size_t largest_frame_bytes = 0;  // of those written
    std::uint64_t throttled = 0;          // frame() calls flow control skipped
    std::uint64_t refused = 0;            // frames the encoder refused
    std::uint64_t acks = 0;               // reports observed (any outcome but Rejected)
    std::uint64_t bad_acks = 0;           // receive_ack messages that did not decode, or Rejected
};

class DeltaStream {
public:
    explicit DeltaStream(const DeltaStreamOptions& options = {});

    // One frame for the relevant set `relevant` (ascending, unique packed SlotKeys), written
    // into out (cleared first). position_of(SlotKey) -> Vec2 is called once per entered key
    // when options().positions (never otherwise). max_frame_bytes > 0 tightens the limit for
    // this frame only (clamped to [kMinFrameBytes, options().max_frame_bytes]): a caller that
    // wraps the frame in a larger datagram passes what its other parts leave.
    template <class PositionOf>
    StreamStatus frame(std::span<const std::uint64_t> relevant, PositionOf&& position_of, double now_ms,
                       ByteWriter& out, std::size_t max_frame_bytes = 0) {
        out.clear();
        if (!baseline_.should_send(now_ms)) {
            counters_.throttled += 1;
            return StreamStatus::Throttled;
        }
        plan(relevant, max_frame_bytes);
        positions_.clear();
        if (options_.positions) {
            for (const std::uint64_t k : plan_.entered) positions_.push_back(position_of(*SlotKey::decode(k)));
        }
        return encode(out);
    }
    // The same for a relevant set of slot indices (a VisibilitySet, as relevance.md builds
    // it): key_of(index) -> SlotKey names the index's current occupant (asserted to keep the
    // index).
    template <class KeyOf, class PositionOf>
    StreamStatus frame(const VisibilitySet& relevant, KeyOf&& key_of, PositionOf&& position_of, double now_ms,
                       ByteWriter& out, std::size_t max_frame_bytes = 0) {
        keys_.clear();
        relevant.for_each([&](std::uint32_t index) {
            const SlotKey key = key_of(index);
            VANTAGE_ASSERT_HOT(key.index == index, "DeltaStream::frame: key_of(index) must keep the index");
            keys_.push_back(key.encode());
        });
        return frame(std::span<const std::uint64_t>(keys_), position_of, now_ms, out, max_frame_bytes);
    }
    // Without positions (options().positions must be false).
    StreamStatus frame(std::span<const std::uint64_t> relevant, double now_ms, ByteWriter& out,
                       std::size_t max_frame_bytes = 0);

    // The client's report, received at now_ms (the clock frame() sees): the one
    // acknowledgement entry point (DeltaBaseline::observe_ack).
    AckOutcome observe_ack(const AckReport& report, double now_ms);
    // Decodes one acknowledgement message and observes it. A message that does not decode
    // changes nothing and returns its error (counted in bad_acks).
    WireError receive_ack(std::span<const std::uint8_t> bytes, double now_ms);

    // Forgets the client: call it when a new client takes this subscriber's slot.
    void reset() { baseline_.reset(); }

    // The last frame's plan (its entered keys in the order of their positions), valid until
    // the next frame().
    const DeltaPlan& last_plan() const { return plan_; }
    // The planner, for its counters and its controls (set_policy, request_full_baseline).
    DeltaBaseline& baseline() { return baseline_; }
    const DeltaBaseline& baseline() const { return baseline_; }
    const DeltaStreamOptions& options() const { return options_; }
    const WireOptions& wire() const { return wire_; }
    const DeltaStreamCounters& counters() const { return counters_; }

private:
    void plan(std::span<const std::uint64_t> relevant, std::size_t max_frame_bytes);
    StreamStatus encode(ByteWriter& out);

    DeltaStreamOptions options_;
    WireOptions wire_;
    DeltaBaseline baseline_;
    DeltaPlan plan_;
    std::vector<Vec2> positions_;
    std::vector<std::uint64_t> keys_;  // a VisibilitySet's keys, packed
    DeltaStreamCounters counters_;
};

struct DeltaReceiverCounters {
    std::uint64_t frames = 0;       // frames decoded (including superseded ones)
    std::uint64_t frame_bytes = 0;  // their bytes
    std::uint64_t bad_frames = 0;   // messages the decoder refused (dropped)
};

// The client half. E is what the mirror holds per key; value_for(SlotKey, Vec2 position) -> E
// makes it from what a frame carries (the position is Vec2{} when frames carry none). With
// E = Vec2 (or anything constructible from one) apply(bytes) needs no value_for.
template <class E = Vec2>
class DeltaReceiver {
public:
    explicit DeltaReceiver(const DeltaStreamOptions& options = {}) : wire_(options.wire()) {
        VANTAGE_ASSERT_VALID(options, "DeltaReceiver: invalid DeltaStreamOptions");
    }

    // Decodes one frame and applies it. Bad bytes return their error, are counted and change
    // nothing (entered() and left() are then empty).
    template <class ValueFor>
    WireError apply(std::span<const std::uint8_t> bytes, ValueFor&& value_for) {
        entered_.clear();
        left_.clear();
        const WireError error = decode_delta_frame(bytes, frame_, wire_);
        if (error != WireError::Ok) {
            counters_.bad_frames += 1;
            return error;
        }
        counters_.frame_bytes += bytes.size();
        apply(frame_, value_for);
        return WireError::Ok;
    }
    WireError apply(std::span<const std::uint8_t> bytes) requires std::is_constructible_v<E, Vec2> {
        return apply(bytes, [](SlotKey, Vec2 position) { return E(position); });
    }
    // A frame another decoder already took out of an enclosing message (decode_delta_frame
    // validated it). False when a newer full baseline superseded it (nothing changed).
    template <class ValueFor>
    bool apply(const DeltaFrame& frame, ValueFor&& value_for) {
        entered_.clear();
        left_.clear();
        counters_.frames += 1;
        const DeltaPlan& plan = frame.plan;
        const std::span<const Vec2> positions = frame.entered_positions;
        const bool opens = mirror_.opens_epoch(plan.seq, plan.full_baseline, plan.baseline_seq);
        if (opens) {
            before_.clear();
            mirror_.keys(before_);
        }
        if (!mirror_.begin(plan.seq, plan.full_baseline, plan.baseline_seq)) return false;
        for (const std::uint64_t packed : plan.left) {
            const std::optional<SlotKey> key = SlotKey::decode(packed);
            if (!key) continue;  // the decoder refuses such keys; another source may not
            const std::optional<SlotKey> held = mirror_.held_at(key->index);
            if (mirror_.retract(*key) && held) left_.push_back(*held);
        }
        for (std::size_t i = 0; i < plan.entered.size(); ++i) {
            const std::optional<SlotKey> key = SlotKey::decode(plan.entered[i]);
            if (!key) continue;
            const std::optional<SlotKey> previous = mirror_.held_at(key->index);
            if (!mirror_.insert(*key, value_for(*key, i < positions.size() ? positions[i] : Vec2{}))) continue;
            if (previous != key) entered_.push_back(*key);
            if (previous && *previous != *key) left_.push_back(*previous);  // the slot's new occupant
        }
        if (opens) full_events();
        std::sort(left_.begin(), left_.end());
        // The digest describes the state every frame sent so far leads to: it applies when this
        // is the newest frame the mirror has (a late frame is judged by the newer one).
        if (mirror_.applied_seq() == plan.seq) agreed_ = mirror_.settle(plan.digest).agreed;
        return true;
    }

    // What to send back (the ack window and the mirror's digest); nullopt before any frame.
    std::optional<AckReport> report() const { return mirror_.ack_report(); }
    // Encodes report() into out (cleared first); false, with out empty, before any frame.
    bool write_ack(ByteWriter& out) const {
        out.clear();
        const std::optional<AckReport> r = report();
        if (!r) return false;
        encode_ack(out, *r);
        return true;
    }

    // What the last apply changed, ascending: keys that began to be held, and keys that
    // stopped (removed, replaced by a slot's new occupant, or dropped by a full baseline).
    const std::vector<SlotKey>& entered() const { return entered_; }
    const std::vector<SlotKey>& left() const { return left_; }
    // Whether the newest frame's digest matched the held set after it was applied (false
    // before any frame): a converged client holds exactly the server's set for that frame.
    bool agreed() const { return agreed_; }

    // The held keys and values (DeltaMirror: get, contains, for_each, keys, size). The mutable
    // one is for a game's own updates (get_mut, for_each_mut), not for applying frames.
    const DeltaMirror<E>& mirror() const { return mirror_; }
    DeltaMirror<E>& mirror() { return mirror_; }
    const WireOptions& wire() const { return wire_; }
    const DeltaReceiverCounters& counters() const { return counters_; }

private:
    // A full baseline: entered and left are the difference between the held sets before and
    // after (O(held); full baselines are the cold start and rebuilds).
    void full_events() {
        entered_.clear();
        left_.clear();
        after_.clear();
        mirror_.keys(after_);
        std::size_t i = 0, j = 0;
        while (i < before_.size() || j < after_.size()) {
            if (j == after_.size() || (i < before_.size() && before_[i] < after_[j])) {
                left_.push_back(*SlotKey::decode(before_[i++]));
            } else if (i == before_.size() || after_[j] < before_[i]) {
                entered_.push_back(*SlotKey::decode(after_[j++]));
            } else {
                ++i;
                ++j;
            }
        }
    }

    WireOptions wire_;
    DeltaMirror<E> mirror_;
    DeltaFrame frame_;
    std::vector<SlotKey> entered_;
    std::vector<SlotKey> left_;
    std::vector<std::uint64_t> before_;  // a full baseline's held keys before and after
    std::vector<std::uint64_t> after_;
    bool agreed_ = false;
    DeltaReceiverCounters counters_;
};

}  // namespace vantage
