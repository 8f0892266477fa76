// The horde's server half: what the server does for one subscriber.
//
// Each send round the world's owner computes what is shared by every subscriber (each
// player's relevant keys from the grid, the broadcast list, the crowd tree) into a
// HordeRound; then every subscriber's HordeServerHalf reads the acknowledgements its
// transport delivered into its DeltaStream, has the stream plan and encode the membership
// frame into what the rest of the packet leaves, picks round-robin corrections and crowd
// summaries, wraps the frame in one packet and sends it. The half owns only
// per-subscriber state; the same class serves a page lane (over a LinkPair) and a room seat
// (over the room's socket transport).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/simulation.hpp"
#include "common/transport.hpp"
#include "horde/horde_wire.hpp"
#include "horde/horde_world.hpp"
#include "vantage/aggregate_tree.hpp"
#include "vantage/assert.hpp"
#include "vantage/delta_stream.hpp"

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
};

// What one serve() sent, for the lane's meters.
struct HordeSent {
    bool sent = false;  // false: nothing due (flow control throttled the stream), or refused
    HordePacketBytes bytes;
    double uuid_bytes = 0;  // the same content with 16-byte ids and f32 positions
    std::size_t entered = 0, left = 0, samples = 0, blobs = 0;
    double coverage = 0;      // share of the enemies outside the view the blobs stand for
    bool summarised = false;  // theta > 0 and a tree was given
};

// Buffers one thread's serve() calls reuse, shared by every subscriber it serves (so a
// steady state allocates nothing, however many subscribers there are).
struct HordeServeScratch {
    std::vector<HordeSample> samples;
    std::vector<CrowdBlob> crowd;
    std::vector<Summary> summaries;
    ByteWriter writer, nested;  // the packet, and the membership frame the stream writes
    std::vector<std::uint8_t> packet;
};

class HordeServerHalf {
public:
    // Every entered key travels with its position (within two arenas of the origin, so at most
    // kHordePositionBytes each), and the membership frame is planned into the packet's limit.
    explicit HordeServerHalf(const DeltaBaselineOptions& options) : stream_(stream_options(options)) {
        VANTAGE_ASSERT(stream_.baseline().options().entered_value_bytes == kHordePositionBytes,
                       "HordeServerHalf: the stream must plan kHordePositionBytes per entered key");
    }

    // Reads the acknowledgements `link` delivered by round.now_ms, then (if flow control lets
    // one through now) one frame for player `player`. Acknowledgements are read first so the
    // plan diffs against the newest acknowledged state.
    HordeSent serve(const HordeRound& round, std::size_t player, const HordeServeOptions& options, Transport& link,
                    HordeServeScratch& scratch, Profiler* profiler = nullptr);

    DeltaStream& stream() { return stream_; }
    DeltaBaseline& baseline() { return stream_.baseline(); }
    const DeltaBaseline& baseline() const { return stream_.baseline(); }
    std::uint64_t frames() const { return frames_; }                            // frames sent
    std::uint64_t decode_errors() const { return decode_errors_; }              // acknowledgements refused
    std::uint64_t refused_frames() const { return refused_frames_; }            // frames the encoder refused (not sent)
    std::size_t largest_packet_bytes() const { return largest_packet_bytes_; }  // of those sent

private:
    static DeltaStreamOptions stream_options(const DeltaBaselineOptions& o) {
        return {.policy = o.policy,
                .frontier = o.frontier,
                .history = o.history,
                .stalled_after_ms = o.stalled_after_ms,
                .keepalive_every_ms = o.keepalive_every_ms,
                .max_frame_bytes = kMaxHordePacketBytes,
                .positions = true,
                .position_step = kSampleStep,
                .position_max_abs = 2.0f * horde::kArena};
    }
    DeltaStream stream_;
    std::uint64_t frames_ = 0;
    std::uint64_t decode_errors_ = 0;
    std::uint64_t refused_frames_ = 0;
    std::size_t largest_packet_bytes_ = 0;
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
