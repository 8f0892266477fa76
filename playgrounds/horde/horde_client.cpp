#include "horde/horde_client.hpp"

#include <algorithm>
#include <bit>

#include "horde/horde_world.hpp"

namespace vantage::play {

namespace {
// The client's age-corrected copy of a position the server stamped at the frame's time
// (chase_step, with the enemy's own chase_offset).
Vec2 catch_up(Vec2 sent, Vec2 offset, std::span<const Vec2> players, double age_s, std::uint32_t& target) {
    if (players.empty()) return sent;
    target = nearest_player(sent, players);
    return chase_toward(sent, players[target] + offset, static_cast<float>(std::max(0.0, age_s)));
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
    const std::uint64_t seq = p.delta.plan.seq;
    const std::vector<Vec2>& positions = p.delta.entered_positions;
    // The newest frame seen, this one included: no value held is newer (ages count from it).
    const std::uint64_t newest = std::max(seq, mirror_.applied_seq().value_or(seq));
    const std::vector<std::uint8_t>& repeated = p.repeated;
    auto is_repeat = [&](std::size_t i) { return i < repeated.size() && repeated[i] != 0; };
    // Every held enemy starts here, carrying its key's chase offset.
    auto fresh = [](SlotKey key) {
        HeldEnemy held;
        held.offset = chase_offset(key.encode());
        return held;
    };
    const bool applied = mirror_.apply(p.delta.plan, [&](std::size_t i, SlotKey key) {
        if (is_repeat(i)) {
            // A repeat: the same occupant keeps what it holds; one not held awaits its position.
            if (const HeldEnemy* before = mirror_.get(key)) return *before;
            HeldEnemy held = fresh(key);
            held.awaiting = true;
            return held;
        }
        HeldEnemy held = fresh(key);
        const Vec2 sent = i < positions.size() ? positions[i] : Vec2{};
        held.position = catch_up(sent, held.offset, p.players, age_s, held.target);
        // An entry starts the enemy's values afresh, as the server's record does; values of the
        // same occupant from newer frames (arrived before this late one) still stand.
        held.sent.push(HordeRef::at(seq, p.time_ms, quantize(sent.x, kSampleStep).value_or(0),
                                    quantize(sent.y, kSampleStep).value_or(0)),
                       newest);
        if (const HeldEnemy* before = mirror_.get(key)) {
            for (std::size_t r = 0; r < before->sent.count; ++r) {
                if (before->sent.refs[r].age(newest) < newest - seq) held.sent.push(before->sent.refs[r], newest);
            }
        }
        return held;
    });
    // A positioned entry that arrived after a repeat of it (the mirror kept the newer frame's
    // word on membership): its value still counts, and ends an awaiting position.
    for (std::size_t i = 0; applied && i < p.delta.plan.entered.size(); ++i) {
        if (is_repeat(i)) continue;
        const std::optional<SlotKey> key = SlotKey::decode(p.delta.plan.entered[i]);
        HeldEnemy* held = key ? mirror_.get_mut(*key) : nullptr;
        if (!held || held->sent.find(newest, static_cast<std::uint32_t>(newest - seq))) continue;
        const Vec2 sent = i < positions.size() ? positions[i] : Vec2{};
        const HordeRef ref = HordeRef::at(seq, p.time_ms, quantize(sent.x, kSampleStep).value_or(0),
                                          quantize(sent.y, kSampleStep).value_or(0));
        const bool newer = held->awaiting || held->sent.count == 0 ||
                           held->sent.refs[held->sent.count - 1].age(newest) > ref.age(newest);
        if (newer) {
            held->position = catch_up(sent, held->offset, p.players, age_s, held->target);
            held->awaiting = false;
        }
        held->sent.push(ref, newest);
    }
    for (std::uint64_t packed : p.delta.plan.entered) {
        const std::optional<SlotKey> key = SlotKey::decode(packed);
        if (!key || key->index >= kMaxTrackedSlot || !mirror_.contains(*key)) continue;
        if (generation_at_.size() <= key->index) {
            // Whole powers of two: a world's slots fill them once, not one new index at a time.
            generation_at_.resize(std::max<std::size_t>(4096, std::bit_ceil(std::size_t{key->index} + 1)), 0);
        }
        generation_at_[key->index] = key->generation;
    }
    // The digest describes the server's whole set after this frame: compare when this is the
    // newest frame ("mirror digest mismatches"; the repair is the server's job).
    if (mirror_.applied_seq() == seq) agreed_ = mirror_.settle(p.delta.plan.digest).agreed;
    for (const HordeCorrection& c : p.corrections) {
        SlotKey key{c.index, c.generation};
        HeldEnemy* held = nullptr;
        std::int64_t qx = c.x, qy = c.y;
        if (c.age == 0) {
            held = mirror_.get_mut(key);
        } else {
            if (c.index >= generation_at_.size()) continue;
            key.generation = generation_at_[c.index];
            if (!mirror_.contains(key)) continue;  // not held (any more): nothing to correct
            held = mirror_.get_mut(key);
            const HordeRef* base = c.age <= seq ? held->sent.find(seq, c.age) : nullptr;
            std::int32_t px = 0, py = 0;
            if (!base ||
                !predict_enemy_quanta(base->x, base->y, key.encode(), p.players, base->age_s(p.time_ms), px, py)) {
                ++unresolved_;
                continue;
            }
            qx += px;
            qy += py;
            if (!quantum_round_trips(qx, kSampleStep) || !quantum_round_trips(qy, kSampleStep)) {
                ++unresolved_;
                continue;
            }
        }
        if (!held) continue;
        const Vec2 at{dequantize(static_cast<std::int32_t>(qx), kSampleStep),
                      dequantize(static_cast<std::int32_t>(qy), kSampleStep)};
        held->position = catch_up(at, held->offset, p.players, age_s, held->target);
        held->awaiting = false;
        held->sent.push(HordeRef::at(seq, p.time_ms, static_cast<std::int32_t>(qx), static_cast<std::int32_t>(qy)),
                        newest);
    }
    return true;
}

std::size_t HordeClientHalf::awaiting() const {
    std::size_t n = 0;
    mirror_.for_each([&](SlotKey, const HeldEnemy& h) { n += h.awaiting ? 1 : 0; });
    return n;
}

bool HordeClientHalf::encode_ack_into(ByteWriter& w) const {
    const auto report = mirror_.ack_report();
    if (!report) return false;
    w.clear();
    encode_ack(w, *report);
    return true;
}

HordeReceived HordeClientHalf::receive(Transport& link, double now_ms, HordeClientScratch& scratch) {
    HordeReceived r;
    while (link.poll(now_ms, scratch.packet)) {
        const bool applied = apply_frame(scratch.packet, now_ms, scratch);
        if (applied) {
            r.frames += 1;
            r.bytes_down += scratch.packet.size();
        }
        // The link swaps its buffers with this one, so they circulate: handing back only
        // datagram-sized ones makes every buffer in the pool one after a round or two, and no
        // later packet, however large, has to grow one.
        if (scratch.packet.capacity() < kMaxHordePacketBytes) {
            scratch.packet.reserve(std::bit_ceil(kMaxHordePacketBytes));
        }
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
    // (index + tick) % kRetargetTicks == 0, with the tick's part taken once: a 64-bit
    // remainder per enemy is a division in wasm (no 128-bit product to multiply it away).
    constexpr auto kTicks = static_cast<std::uint32_t>(horde::kRetargetTicks);
    const auto due = static_cast<std::uint32_t>((kTicks - tick % kTicks) % kTicks);
    mirror_.for_each_mut([&](SlotKey key, HeldEnemy& h) {
        if (h.awaiting) return;
        if (key.index % kTicks == due || h.target >= players.size()) {
            h.target = nearest_player(h.position, players);
        }
        h.position = chase_toward(h.position, players[h.target] + h.offset, dt_s);
    });
}

}  // namespace vantage::play
