#include "horde/horde_server.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

namespace vantage::play {

namespace {
// Counterfactual wire: a 16-byte id per key and two f32 per position.
constexpr double kUuidBytes = 16.0;
constexpr double kFloatPositionBytes = 8.0;
constexpr double kUuidCrowdBytes = 8.0 + 4.0;  // f32 position and a u32 headcount
}  // namespace

const HordeRound& HordeRoundBuilder::build(const HordeWorld& w, float view_radius, bool need_everyone, bool need_tree,
                                           double now_ms, std::span<const std::uint8_t> wanted, Profiler* profiler) {
    const std::size_t players = w.player_positions().size();
    if (relevant_.size() != players) relevant_.resize(players);
    {
        PhaseScope phase(profiler, "relevance");
        for (std::size_t c = 0; c < players; ++c) {
            std::vector<std::uint64_t>& keys = relevant_[c];
            keys.clear();
            if (!wanted.empty() && (c >= wanted.size() || wanted[c] == 0)) continue;
            w.grid().for_each_in_radius(w.player_positions()[c], view_radius,
                                        [&](std::uint32_t id, Vec2) { keys.push_back(w.key_at(id)); });
            std::sort(keys.begin(), keys.end());
        }
    }
    if (need_everyone) {
        everyone_.clear();
        for (std::uint32_t id : w.alive_ids()) everyone_.push_back(w.key_at(id));  // ascending slot = ascending key
    }
    round_.tree = nullptr;
    if (need_tree) {
        PhaseScope phase(profiler, "aggregation");
        points_.clear();
        for (Vec2 p : w.alive_positions()) points_.push_back({p.x, p.y, 1.0f});
        tree_.build_in(points_, {horde::kArena * 0.5f, horde::kArena * 0.5f}, horde::kArena, 10);
        round_.tree = &tree_;
    }
    round_.world = &w;
    round_.relevant = &relevant_;
    round_.everyone = &everyone_;
    round_.now_ms = now_ms;
    return round_;
}

HordeSent HordeServerHalf::serve(const HordeRound& round, std::size_t player, const HordeServeOptions& options,
                                 Transport& link, HordeServeScratch& scratch, Profiler* profiler) {
    HordeSent sent;
    const double now_ms = round.now_ms;
    std::vector<HordeSample>& samples_ = scratch.samples;
    std::vector<CrowdBlob>& crowd_ = scratch.crowd;
    std::vector<Summary>& summaries_ = scratch.summaries;
    std::vector<std::uint8_t>& packet_ = scratch.packet;  // short local names for the shared buffers
    std::optional<PhaseScope> phase(std::in_place, profiler, "delta");
    while (link.poll(now_ms, packet_)) {
        if (stream_.receive_ack(packet_, now_ms) != WireError::Ok) ++decode_errors_;
    }
    const HordeWorld& w = *round.world;
    const std::vector<std::uint64_t>& relevant = (*round.relevant)[player];
    const std::vector<std::uint64_t>& keys = options.relevance ? relevant : *round.everyone;

    // The packet fits one datagram: players and crowd first (they do not depend on the plan),
    // the delta into what they leave, then as many corrections as the rest holds.
    const std::uint64_t time_ms = static_cast<std::uint64_t>(std::llround(now_ms));
    const std::size_t players = w.player_positions().size();
    std::size_t used = 1 + varint_size(time_ms) + 2 /* frame length: < 16384 */ + varint_size(players) +
                       players * kHordePositionBytes + 3 /* sample count: < 2^21 */;
    crowd_.clear();
    if (options.theta > 0.0f && round.tree) {
        phase.reset();
        phase.emplace(profiler, "aggregation");
        const Vec2 eye = w.player_positions()[player];
        const float r2 = static_cast<float>(options.view_radius * options.view_radius);
        round.tree->summarize(eye, options.theta, summaries_);
        double covered = 0;
        // Leave the delta at least its minimum frame; blobs beyond that wait (coverage shows it).
        std::size_t crowd_bytes = 3;  // count: < 2^21
        for (const Summary& s : summaries_) {
            if ((s.position() - eye).length_squared() <= r2) continue;  // inside the view: sent exactly
            const std::size_t blob = kCrowdPositionBytes + varint_size(s.count);
            if (used + crowd_bytes + blob + kMinFrameBytes > kMaxHordePacketBytes) break;
            crowd_bytes += blob;
            crowd_.push_back({s.position(), s.count});
            covered += s.count;
        }
        used += crowd_bytes;
        const double distant = static_cast<double>(w.alive_count()) - static_cast<double>(relevant.size());
        sent.coverage = distant > 0 ? std::min(1.0, covered / distant) : 1.0;
        sent.summarised = true;
        phase.reset();
        phase.emplace(profiler, "delta");
    } else {
        used += 1;
    }
    // Flow control decides inside frame(): a throttled subscriber gets nothing this round.
    const StreamStatus status = stream_.frame(
        keys, [&](SlotKey key) { return w.position_at(key.index); }, now_ms, scratch.nested,
        kMaxHordePacketBytes - std::min(used, kMaxHordePacketBytes - kMinFrameBytes));
    if (status == StreamStatus::Throttled) return HordeSent{};
    if (status == StreamStatus::Refused) {
        // The encoder refused what no client could decode (a position off the wire's range, a
        // list over its limit): counted, never sent; the stream treats it as lost.
        ++refused_frames_;
        return HordeSent{};
    }
    const DeltaPlan& plan_ = stream_.last_plan();
    used += delta_frame_bytes(plan_, kHordePositionBytes);
    phase.reset();
    phase.emplace(profiler, "encode");

    // Round-robin corrections: each relevant enemy every `ratio` frames, except those whose
    // entry (with its position) is in this frame already, while the packet has room (one that
    // does not fit waits for its next turn).
    samples_.clear();
    const auto ratio = static_cast<std::uint64_t>(
        std::max(1.0, std::round(std::clamp(options.send_hz, 1.0, 60.0) / std::clamp(options.sample_hz, 1.0, 60.0))));
    std::size_t e = 0;
    std::uint32_t previous = 0;
    for (std::uint64_t k : keys) {
        while (e < plan_.entered.size() && plan_.entered[e] < k) ++e;
        if (e < plan_.entered.size() && plan_.entered[e] == k) continue;
        const SlotKey slot = *SlotKey::decode(k);
        if ((slot.index + frames_) % ratio != 0) continue;
        const std::size_t bytes = varint_size(samples_.empty() ? slot.index : slot.index - previous) +
                                  varint_size(slot.generation) + kHordePositionBytes;
        if (used + bytes > kMaxHordePacketBytes) break;
        used += bytes;
        previous = slot.index;
        samples_.push_back({k, w.position_at(slot.index)});
    }

    sent.bytes =
        encode_horde_packet(scratch.writer, scratch.nested.bytes(), time_ms, w.player_positions(), samples_, crowd_);
    if (!sent.bytes.ok) {
        // Longer than one datagram: counted, never sent; the stream treats it as lost.
        ++refused_frames_;
        return sent;
    }
    link.send(now_ms, scratch.writer.bytes());
    largest_packet_bytes_ = std::max(largest_packet_bytes_, scratch.writer.size());
    ++frames_;
    sent.sent = true;
    sent.entered = plan_.entered.size();
    sent.left = plan_.left.size();
    sent.samples = samples_.size();
    sent.blobs = crowd_.size();
    const double ids = static_cast<double>(sent.entered + sent.left + sent.samples);
    const double positions = static_cast<double>(sent.entered + sent.samples + w.player_positions().size());
    sent.uuid_bytes = static_cast<double>(sent.bytes.header) + 8.0 /* seq */ + 8.0 /* digest */ + ids * kUuidBytes +
                      positions * kFloatPositionBytes + static_cast<double>(sent.blobs) * kUuidCrowdBytes;
    return sent;
}

}  // namespace vantage::play
