#include "horde/horde_client.hpp"

#include <algorithm>

#include "horde/horde_world.hpp"

namespace vantage::play {

namespace {
// The client's age-corrected copy of a position the server stamped at the frame's time.
Vec2 catch_up(Vec2 sent, std::uint64_t key, std::span<const Vec2> players, double age_s, std::uint32_t& target) {
    if (players.empty()) return sent;
    target = nearest_player(sent, players);
    return chase_step(sent, key, players[target], static_cast<float>(std::max(0.0, age_s)));
}
}  // namespace

bool HordeClientHalf::apply_frame(std::span<const std::uint8_t> bytes, double now_ms, HordeClientScratch& scratch) {
    if (decode_horde_packet(bytes, scratch.decoded) != WireError::Ok) {
        ++decode_errors_;
        return false;
    }
    const HordePacket& p = scratch.decoded;
    const double age_s = (now_ms - static_cast<double>(p.time_ms)) / 1000.0;
    if (!heard_ || p.time_ms >= newest_ms_) {
        heard_ = true;
        newest_ms_ = p.time_ms;
        players_ = p.players;
        crowd_ = p.crowd;
    }
    // The receiver also compares the digest when this is the newest frame ("mirror digest
    // mismatches"; the repair is the server's job).
    receiver_.apply(p.delta, [&](SlotKey key, Vec2 sent) {
        HeldEnemy held;
        held.position = catch_up(sent, key.encode(), p.players, age_s, held.target);
        return held;
    });
    agreed_ = receiver_.agreed();
    for (const HordeSample& s : p.samples) {
        const std::optional<SlotKey> key = SlotKey::decode(s.key);
        if (!key) continue;
        if (HeldEnemy* held = receiver_.mirror().get_mut(*key)) {
            held->position = catch_up(s.position, s.key, p.players, age_s, held->target);
        }
    }
    return true;
}

bool HordeClientHalf::encode_ack_into(ByteWriter& w) const {
    return receiver_.write_ack(w);
}

HordeReceived HordeClientHalf::receive(Transport& link, double now_ms, HordeClientScratch& scratch) {
    HordeReceived r;
    while (link.poll(now_ms, scratch.packet)) {
        if (!apply_frame(scratch.packet, now_ms, scratch)) continue;
        r.frames += 1;
        r.bytes_down += scratch.packet.size();
    }
    if (r.frames == 0) return r;
    if (encode_ack_into(scratch.writer)) {
        link.send(now_ms, scratch.writer.bytes());
        r.bytes_up = scratch.writer.size();
    }
    return r;
}

void HordeClientHalf::advance(float dt_s, std::uint64_t tick) {
    const std::span<const Vec2> players = players_;
    if (players.empty()) return;
    receiver_.mirror().for_each_mut([&](SlotKey key, HeldEnemy& h) {
        if ((key.index + tick) % static_cast<std::uint64_t>(horde::kRetargetTicks) == 0 || h.target >= players.size()) {
            h.target = nearest_player(h.position, players);
        }
        h.position = chase_step(h.position, key.encode(), players[h.target], dt_s);
    });
}

}  // namespace vantage::play
