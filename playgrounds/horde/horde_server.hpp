// The horde's server half: what the server does for one subscriber.
//
// Each send round the world's owner computes what is shared by every subscriber (each
// player's relevant keys from the grid, the broadcast list, the crowd tree) into a
// HordeRound; then every subscriber's HordeServerHalf reads the acknowledgements its
// transport delivered, plans a delta against its DeltaBaseline, picks corrections (round-robin,
// or by priority under a byte budget) and crowd summaries, encodes one packet and sends it.
// Corrections are predicted from the newest value this client acknowledged for the enemy: the
// half keeps the newest kHordeRefs values it sent per relevant enemy and which frames the
// acknowledgements say arrived (horde_wire.hpp). An entered key the baseline names again while
// the frame with its position is in flight (not yet acknowledged, not known lost) is sent as a
// repeat, without the position; once that frame is known lost the position travels again, in
// the next entry of the key or, when the client already acknowledged holding it, in an absolute
// correction ahead of every other. The half owns only per-subscriber state; the
// same class serves a page lane (over a LinkPair) and a room seat (over the room's socket
// transport).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "common/simulation.hpp"
#include "common/transport.hpp"
#include "horde/horde_wire.hpp"
#include "horde/horde_world.hpp"
#include "vantage/aggregate_tree.hpp"
#include "vantage/delta_baseline.hpp"
#include "vantage/priority_accumulator.hpp"

namespace vantage::play {

// What every subscriber of one send round shares (computed once per round).
struct HordeRound {
    const HordeWorld* world = nullptr;
    const std::vector<std::vector<std::uint64_t>>* relevant = nullptr;  // per player, ascending keys
    const std::vector<std::uint64_t>* everyone = nullptr;               // every alive key (broadcast lanes)
    const AggregateTree* tree = nullptr;                                // null when no subscriber summarises
    double now_ms = 0;
};

// How one subscriber is served (a lane's strategy plus the rates and radius).
struct HordeServeOptions {
    bool relevance = true;       // false: every alive enemy is relevant (the broadcast)
    float theta = 0.0f;          // crowd summaries' opening angle, 0 = none
    double view_radius = 420.0;  // units
    double send_hz = 16.0;       // [1, 60]
    double sample_hz = 4.0;      // corrections per second per held enemy, [1, 60]
    CorrectionCoding coding = CorrectionCoding::Predicted;
    // Downstream budget of this subscriber, bytes/s, >= 0; 0 = unlimited (every frame up to a
    // datagram, corrections round-robin). Under a budget each frame is filled to what the
    // budget holds: players and membership first, then corrections by priority (time since
    // the enemy's last value, weighted by closeness to the player).
    double budget_bytes_per_sec = 0.0;
};

// What one serve() sent, for the lane's meters.
struct HordeSent {
    bool sent = false;  // false: nothing due (the baseline was not ready to send)
    HordePacketBytes bytes;
    double uuid_bytes = 0;  // the same content with 16-byte ids and f32 positions
    std::size_t entered = 0, left = 0, samples = 0, blobs = 0;
    std::size_t repeats = 0;    // of the entered, those sent without a position (an earlier one is on its way)
    std::size_t predicted = 0;  // of the samples, those sent against an acknowledged value
    double coverage = 0;        // share of the enemies outside the view the blobs stand for
    bool summarised = false;    // theta > 0 and a tree was given
};

// Buffers one thread's serve() calls reuse, shared by every subscriber it serves (so a
// steady state allocates nothing, however many subscribers there are).
struct HordeServeScratch {
    DeltaPlan plan;
    std::vector<Vec2> entered_positions;
    std::vector<std::uint8_t> repeated;  // parallel to plan.entered: sent without a position
    std::vector<Vec2> players;           // as the client decodes them
    std::vector<HordeCorrection> samples;
    std::vector<std::uint64_t> sample_keys;  // parallel to samples
    std::vector<std::uint64_t> ranked;
    std::vector<float> weights;
    std::vector<std::size_t> picked;
    std::vector<CrowdBlob> crowd;
    std::vector<Summary> summaries;
    ByteWriter writer, nested;
    std::vector<std::uint8_t> packet;
};

class HordeServerHalf {
public:
    // Every entered key travels with its position, so the planner counts kHordePositionBytes
    // for each whatever options says.
    explicit HordeServerHalf(const DeltaBaselineOptions& options) : baseline_(with_positions(options)) {}

    // Reads the acknowledgements `link` delivered by round.now_ms, then (if the baseline
    // sends now) one frame for player `player`. Acknowledgements are read first so the plan
    // diffs against the newest acknowledged state.
    HordeSent serve(const HordeRound& round, std::size_t player, const HordeServeOptions& options, Transport& link,
                    HordeServeScratch& scratch, Profiler* profiler = nullptr);

    DeltaBaseline& baseline() { return baseline_; }
    const DeltaBaseline& baseline() const { return baseline_; }
    std::uint64_t frames() const { return frames_; }                            // frames sent
    std::uint64_t decode_errors() const { return decode_errors_; }              // acknowledgements refused
    std::uint64_t refused_frames() const { return refused_frames_; }            // frames the encoder refused (not sent)
    std::size_t largest_packet_bytes() const { return largest_packet_bytes_; }  // of those sent

    // Enemies with a value this client may hold (the relevant set at the last frame).
    std::size_t tracked() const { return refs_.size(); }

private:
    struct KeyRefs {
        std::uint64_t key = 0;
        HordeRefs refs;
        // The frame whose entry carried this enemy's position since it last became relevant
        // (or since the last full baseline), if one did: later entries of it repeat without
        // the position while that frame is not known lost.
        std::uint64_t entry_seq = 0;
        bool entry_sent = false;
        // A repeat was sent since it became relevant: the client may hold it without a position.
        bool repeated = false;
    };
    // Frames the client reported receiving, the newest kArrivedWindow sequences.
    static constexpr std::uint64_t kArrivedWindow = 256;
    void note_arrived(const AckReport& report);
    bool arrived(std::uint64_t seq) const;
    // A report newer than seq arrived without it: lost (or so late it may as well be).
    bool known_lost(std::uint64_t seq) const;
    // Whether an entry of this enemy in frame seq may leave its position out: its positioned
    // entry arrived, or is fewer frames back than an acknowledgement takes to come back (so no
    // word of it is expected yet) and not known lost. An entry older than that with no word of
    // it was most likely lost: its position travels again rather than leave the client waiting
    // another round trip.
    bool may_repeat(const KeyRefs* refs, std::uint64_t seq) const;
    // The round trip in frames: how many frames later the server first reads a report whose
    // newest is a given frame (next_seq - newest when a report's newest is the newest yet),
    // smoothed. Counted in frames, not ms, because reports are read once per frame.
    void note_round_trip(const AckReport& report);
    // Whether the client may hold this enemy without any value: a repeat of it was sent, its
    // newest positioned entry is known lost and so is every value sent since. It gets an
    // absolute correction first thing.
    bool needs_value(const KeyRefs& refs, std::uint64_t seq) const;
    // The correction for `key` (at slot position p) this frame: predicted against the newest
    // acknowledged value when there is one and the residual is small, absolute otherwise.
    HordeCorrection correction_for(const KeyRefs* refs, std::uint64_t key, Vec2 p, std::uint64_t seq,
                                   std::uint64_t time_ms, std::span<const Vec2> players, CorrectionCoding coding) const;
    const KeyRefs* refs_of(std::uint64_t key) const;
    KeyRefs* refs_of(std::uint64_t key);

    static DeltaBaselineOptions with_positions(DeltaBaselineOptions options) {
        options.entered_value_bytes = kHordePositionBytes;
        return options;
    }
    DeltaBaseline baseline_;
    std::uint64_t frames_ = 0;
    std::uint64_t decode_errors_ = 0;
    std::uint64_t refused_frames_ = 0;
    std::size_t largest_packet_bytes_ = 0;
    std::vector<KeyRefs> refs_, refs_next_;  // ascending key: the relevant set at the last frame
    std::array<std::uint64_t, kArrivedWindow / 64> arrived_{};
    std::uint64_t arrived_newest_ = 0;
    bool any_arrived_ = false;
    double ack_frames_ = 0;  // smoothed round trip, frames; 0 before any report

    std::optional<ByteBudget> budget_;
    PriorityAccumulator priority_;
    double last_serve_ms_ = -1.0;
    double last_sent_ms_ = -1.0;
};

// Shared per-round work: relevant keys per player (grid radius query), the broadcast list
// and the crowd tree, each only when some subscriber needs it.
class HordeRoundBuilder {
public:
    // Queries every player of the world, or only those with wanted[p] != 0 when `wanted` is
    // not empty (a room queries occupied seats only; the others' lists stay empty).
    const HordeRound& build(const HordeWorld& world, float view_radius, bool need_everyone, bool need_tree,
                            double now_ms, std::span<const std::uint8_t> wanted = {}, Profiler* profiler = nullptr);
    const HordeRound& round() const { return round_; }
    const std::vector<std::uint64_t>& relevant(std::size_t player) const { return relevant_[player]; }
    std::size_t players() const { return relevant_.size(); }
    void clear(std::size_t players) { relevant_.assign(players, {}); }

private:
    HordeRound round_;
    std::vector<std::vector<std::uint64_t>> relevant_;
    std::vector<std::uint64_t> everyone_;
    AggregateTree tree_;
    std::vector<WeightedPoint> points_;
};

}  // namespace vantage::play
