// The black-hole server half: what the server does for one subscriber.
//
// Each send round the world's owner builds what every subscriber shares (the alive holes as
// weighted sources, the AggregateTree over them, the pellets that respawned since the last
// round) into a BlackholeRound; then every subscriber's BlackholeServerHalf picks the field
// for its client (every hole, the holes within view, or the tree's summaries walked from the
// client's eye), adds the respawns and a round-robin slice of pellet corrections, encodes one
// FieldPacket and sends it. The half owns only per-subscriber state (its sequence and its
// correction cursor); the same class would serve a room seat over a socket transport.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "blackhole/field_packet.hpp"
#include "common/simulation.hpp"
#include "common/transport.hpp"
#include "vantage/aggregate_tree.hpp"
#include "vantage/byte_io.hpp"

namespace vantage::play {

// A lane's strategy: which field a client is sent.
enum class LaneKind { Full, Culled, Aggregated };
// "full", "culled", "aggregated": a lane's meter prefix and a room's strategy setting.
const char* lane_name(LaneKind kind);

// What every subscriber of one send round shares (computed once per round by the world's owner).
struct BlackholeRound {
    std::span<const WeightedPoint> sources;    // alive holes, weight = effective mass
    std::span<const std::uint8_t> source_ids;  // hole index per source
    const AggregateTree* tree = nullptr;       // over `sources`; needed by the aggregated strategy
    std::span<const Vec2> pellet_positions;    // every pellet, the server's truth
    std::span<const Vec2> pellet_velocities;   // units/s
    std::span<const std::uint16_t> respawned;  // pellets respawned since the last round
    double now_ms = 0;                         // server time the states describe
};

// How one subscriber is served.
struct BlackholeServeOptions {
    LaneKind kind = LaneKind::Full;
    float theta = 0.5f;            // the aggregated strategy's opening angle, [0, 1.5]
    bool disc_walk = true;         // hold theta from every point of the view disc, not only the eye
    float view_radius = 620.0f;    // culling distance, world units
    std::size_t corrections = 40;  // pellet corrections per packet (at most the pellet count)
};

// Buffers one thread's serve() calls reuse, shared by every subscriber it serves, so a
// steady send round allocates nothing.
struct BlackholeServeScratch {
    FieldPacket packet;  // the packet last sent: the owner may probe it against the truth
    std::vector<Summary> summaries;
    ByteWriter writer;
};

// Builds the send round's tree over the alive holes: the whole arena, depth 10.
void build_field_tree(AggregateTree& tree, std::span<const WeightedPoint> sources);

class BlackholeServerHalf {
public:
    // Plans, encodes and sends one packet for the client whose view is centred on `eye`. The
    // packet stays in scratch.packet until the next serve(); the bytes are what was sent.
    PacketBytes serve(const BlackholeRound& round, Vec2 eye, const BlackholeServeOptions& options, Transport& link,
                      BlackholeServeScratch& scratch, Profiler* profiler = nullptr);

    std::uint32_t sequence() const { return sequence_; }                        // of the newest packet sent (0: none)
    std::size_t pending_spawns() const { return pending_.size(); }              // respawns waiting for room
    std::uint64_t refused_packets() const { return refused_packets_; }          // too long to send (not sent)
    std::size_t largest_packet_bytes() const { return largest_packet_bytes_; }  // of those sent

private:
    // The field part of the packet: holes sent exactly and cluster stand-ins.
    static void plan_field(const BlackholeRound& round, Vec2 eye, const BlackholeServeOptions& options,
                           BlackholeServeScratch& scratch);

    std::uint32_t sequence_ = 0;
    std::size_t cursor_ = 0;  // round-robin correction cursor
    // Respawned pellets not sent yet (oldest first, each once): a round with more respawns
    // than a packet holds sends the rest in the next ones, with the pellet's state then.
    std::vector<std::uint16_t> pending_;
    std::vector<std::uint8_t> is_pending_;  // per pellet
    std::uint64_t refused_packets_ = 0;
    std::size_t largest_packet_bytes_ = 0;
};

}  // namespace vantage::play
