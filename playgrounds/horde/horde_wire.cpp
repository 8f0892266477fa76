#include "horde/horde_wire.hpp"

#include <cassert>

#include "vantage/slot_key.hpp"

namespace vantage::play {

namespace {

// Everything after the membership frame: players, corrections, crowd, then the end.
WireError decode_after_membership(ByteReader& r, HordePacket& out) {
    const std::size_t players = r.read_count(kMaxHordePlayers, 2);
    for (std::size_t i = 0; i < players && r.ok(); ++i) out.players.push_back(r.read_fixed2(kSampleStep));

    const std::size_t samples = r.read_count(65536, 4);
    std::uint64_t index = 0;
    for (std::size_t i = 0; i < samples && r.ok(); ++i) {
        const std::uint64_t gap = r.read_varint_max(UINT32_MAX);
        if (r.ok() && i > 0 && gap == 0) r.fail(WireError::NotAscending);
        index += gap;
        if (r.ok() && index > UINT32_MAX) r.fail(WireError::OutOfRange);
        const std::uint64_t generation = r.read_varint_max(0xffffu);
        const Vec2 p = r.read_fixed2(kSampleStep);
        if (!r.ok()) break;
        out.samples.push_back(
            {SlotKey{static_cast<std::uint32_t>(index), static_cast<std::uint16_t>(generation)}.encode(), p});
    }

    const std::size_t blobs = r.read_count(65536, 3);
    for (std::size_t i = 0; i < blobs && r.ok(); ++i) {
        const Vec2 p = r.read_fixed2(kCrowdStep);
        const std::uint32_t count = r.read_varint_u32();
        if (r.ok() && count == 0) r.fail(WireError::Malformed);
        out.crowd.push_back({p, count});
    }
    if (!r.finish()) {
        out.players.clear();
        out.samples.clear();
        out.crowd.clear();
        return r.error();
    }
    return WireError::Ok;
}

}  // namespace

HordePacketBytes encode_horde_packet(ByteWriter& w, ByteWriter& scratch, std::uint64_t time_ms, const DeltaPlan& plan,
                                     std::span<const Vec2> entered_positions, std::span<const Vec2> players,
                                     std::span<const HordeSample> samples, std::span<const CrowdBlob> crowd) {
    scratch.clear();
    encode_delta_frame(scratch, plan, entered_positions);
    HordePacketBytes sizes = encode_horde_packet(w, scratch.bytes(), time_ms, players, samples, crowd);
    sizes.ok = sizes.ok && scratch.ok();
    return sizes;
}

HordePacketBytes encode_horde_packet(ByteWriter& w, std::span<const std::uint8_t> delta_frame, std::uint64_t time_ms,
                                     std::span<const Vec2> players, std::span<const HordeSample> samples,
                                     std::span<const CrowdBlob> crowd) {
    HordePacketBytes sizes;
    w.clear();
    w.write_u8(kHordePacketType);
    w.write_varint(time_ms);
    w.write_varint(delta_frame.size());
    sizes.header = w.size();
    w.write_bytes(delta_frame);
    sizes.membership = delta_frame.size();

    std::size_t mark = w.size();
    w.write_varint(players.size());
    for (Vec2 p : players) w.write_fixed2(p, kSampleStep);
    sizes.players = w.size() - mark;

    mark = w.size();
    w.write_varint(samples.size());
    std::uint32_t previous = 0;
    for (std::size_t i = 0; i < samples.size(); ++i) {
        const SlotKey key = *SlotKey::decode(samples[i].key);
        assert((i == 0 || key.index > previous) && "encode_horde_packet: samples must ascend by slot");
        w.write_varint(i == 0 ? key.index : key.index - previous);
        w.write_varint(key.generation);
        w.write_fixed2(samples[i].position, kSampleStep);
        previous = key.index;
    }
    sizes.samples = w.size() - mark;

    mark = w.size();
    w.write_varint(crowd.size());
    for (const CrowdBlob& b : crowd) {
        w.write_fixed2(b.position, kCrowdStep);
        w.write_varint(b.count);
    }
    sizes.crowd = w.size() - mark;
    sizes.ok = w.ok() && w.size() <= kMaxHordePacketBytes;
    return sizes;
}

WireError decode_horde_packet(std::span<const std::uint8_t> bytes, HordePacket& out) {
    out.players.clear();
    out.samples.clear();
    out.crowd.clear();
    if (bytes.size() > kMaxHordePacketBytes) return WireError::TooLarge;
    ByteReader r(bytes);
    if (r.read_u8() != kHordePacketType) {
        if (!r.ok()) return r.error();
        return WireError::UnknownType;
    }
    out.time_ms = r.read_varint();
    const std::size_t frame_len = r.read_count(bytes.size(), 1);
    if (!r.ok()) return r.error();
    const WireError frame_error = decode_delta_frame(bytes.subspan(r.position(), frame_len), out.delta);
    if (frame_error != WireError::Ok) return frame_error;
    // read_count checked frame_len against the bytes left, so the rest starts inside the span.
    ByteReader rest(bytes.subspan(r.position() + frame_len));
    return decode_after_membership(rest, out);
}

}  // namespace vantage::play
