#include "blackhole/blackhole_server.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <optional>

namespace vantage::play {

const char* lane_name(LaneKind kind) {
    switch (kind) {
        case LaneKind::Full:
            return "full";
        case LaneKind::Culled:
            return "culled";
        case LaneKind::Aggregated:
            return "aggregated";
    }
    return "?";
}

void build_field_tree(AggregateTree& tree, std::span<const WeightedPoint> sources) {
    constexpr Vec2 kArenaCenter{kArenaSize * 0.5f, kArenaSize * 0.5f};
    constexpr int kTreeDepth = 10;
    tree.build_in(sources, kArenaCenter, kArenaSize, kTreeDepth);
}

void BlackholeServerHalf::plan_field(const BlackholeRound& round, Vec2 eye, const BlackholeServeOptions& options,
                                     BlackholeServeScratch& scratch) {
    FieldPacket& packet = scratch.packet;
    const float radius = options.view_radius;
    auto add_hole = [&](std::size_t s) {
        packet.holes.push_back({round.source_ids[s], round.sources[s].position(), round.sources[s].weight});
    };
    switch (options.kind) {
        case LaneKind::Full:
            for (std::size_t s = 0; s < round.sources.size(); ++s) add_hole(s);
            break;
        case LaneKind::Culled:
            for (std::size_t s = 0; s < round.sources.size(); ++s) {
                if ((round.sources[s].position() - eye).length_squared() <= radius * radius) add_hole(s);
            }
            break;
        case LaneKind::Aggregated: {
            assert(round.tree && "BlackholeServerHalf: the aggregated strategy needs the round's tree");
            if (options.disc_walk) {
                round.tree->summarize_around(eye, radius, options.theta, scratch.summaries);
            } else {
                round.tree->summarize(eye, options.theta, scratch.summaries);
            }
            for (const Summary& s : scratch.summaries) {
                if (s.exact()) {
                    add_hole(round.tree->members(s)[0]);
                } else {
                    packet.clusters.push_back(s.as_point());
                }
            }
            // Holes in id order, as the full lane sends them: at theta 0 the two lanes then
            // produce the same bytes and the same client, which a test pins.
            std::sort(packet.holes.begin(), packet.holes.end(),
                      [](const HoleState& a, const HoleState& b) { return a.id < b.id; });
            break;
        }
    }
}

PacketBytes BlackholeServerHalf::serve(const BlackholeRound& round, Vec2 eye, const BlackholeServeOptions& options,
                                       Transport& link, BlackholeServeScratch& scratch, Profiler* profiler) {
    std::optional<PhaseScope> phase(std::in_place, profiler, "aggregation");  // what to send
    FieldPacket& packet = scratch.packet;
    packet.clear();
    packet.sequence = ++sequence_;
    packet.server_time_ms = static_cast<std::uint32_t>(std::llround(round.now_ms));
    plan_field(round, eye, options, scratch);
    phase.reset();
    phase.emplace(profiler, "encode");
    const std::size_t pellets = round.pellet_positions.size();
    if (is_pending_.size() != pellets) {
        is_pending_.assign(pellets, 0);
        pending_.clear();
        pending_.reserve(pellets);
    }
    for (const std::uint16_t id : round.respawned) {
        if (id < pellets && !is_pending_[id]) {
            is_pending_[id] = 1;
            pending_.push_back(id);
        }
    }
    // One datagram: the field as planned, then as many pellet records as the rest holds
    // (each count may grow from one byte to three: four bytes spare).
    std::size_t room = 0;
    {
        const PacketBytes field_only = encode_field_packet(packet, scratch.writer);
        if (field_only.total + 4 < kMaxFieldPacketBytes)
            room = (kMaxFieldPacketBytes - field_only.total - 4) / kFieldPelletBytes;
    }
    const std::size_t spawns = std::min(room, pending_.size());
    for (std::size_t i = 0; i < spawns; ++i) {
        const std::uint16_t id = pending_[i];
        is_pending_[id] = 0;
        packet.spawned.push_back({id, round.pellet_positions[id], round.pellet_velocities[id]});
    }
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(spawns));
    const std::size_t corrections = std::min({options.corrections, pellets, room - spawns});
    for (std::size_t k = 0; k < corrections; ++k) {
        const std::size_t id = cursor_;
        cursor_ = (cursor_ + 1) % pellets;
        packet.corrections.push_back(
            {static_cast<std::uint16_t>(id), round.pellet_positions[id], round.pellet_velocities[id]});
    }
    const PacketBytes sizes = encode_field_packet(packet, scratch.writer);
    if (!sizes.ok) {
        // The field alone always fits (field_packet.hpp): nothing real gets here; never sent.
        ++refused_packets_;
        return sizes;
    }
    link.send(round.now_ms, scratch.writer.bytes());
    largest_packet_bytes_ = std::max(largest_packet_bytes_, sizes.total);
    return sizes;
}

}  // namespace vantage::play
