// The black-hole client half: what one client does with the bytes it is sent.
//
// It integrates every pellet it holds with the field it was last sent (the attractors: real
// holes and cluster stand-ins), then decodes every packet its transport delivered (a bad
// packet is counted and dropped, an older one ignored), adopts the newest field and brings
// the packet's pellet states forward by their age. It never sees the server's world after
// the welcome: truth-side readouts (pellet error against the exact field) are measured by
// whoever holds the truth, reading this half's pellets.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "blackhole/field_packet.hpp"
#include "common/transport.hpp"
#include "vantage/gravity_field.hpp"

namespace vantage::play {

// Buffers receive() reuses; clients on one thread (a page's lanes) share one.
struct BlackholeClientScratch {
    std::vector<std::uint8_t> datagram;
    FieldPacket received;
};

class BlackholeClientHalf {
public:
    static constexpr std::uint8_t kClusterId = 255;  // hole_ids() entry of a stand-in

    // The welcome: a client joins holding the world's pellets exactly (not metered), and
    // integrates them with `field` (the world's own pellet field constants).
    BlackholeClientHalf(GravityField field, std::span<const Vec2> positions, std::span<const Vec2> velocities);

    // One semi-implicit Euler step of every pellet with the attractors held; returns the
    // force evaluations it spent (pellets x attractors).
    std::size_t integrate(float dt_s);
    // Decodes and applies everything `link` delivered by now_ms; returns the packets applied.
    std::size_t receive(Transport& link, double now_ms, BlackholeClientScratch& scratch);
    // Decodes and applies one packet (a room's socket hands them over one by one); false when
    // it was refused (counted) or older than what is held.
    bool apply_packet(std::span<const std::uint8_t> bytes, double now_ms, BlackholeClientScratch& scratch);

    const std::vector<Vec2>& positions() const { return position_; }
    const std::vector<Vec2>& velocities() const { return velocity_; }
    const std::vector<WeightedPoint>& attractors() const { return attractors_; }
    // Hole id per attractor, kClusterId for a stand-in.
    const std::vector<std::uint8_t>& hole_ids() const { return hole_ids_; }
    std::uint32_t applied() const { return applied_; }  // newest sequence applied (0: none yet)
    std::uint64_t decode_errors() const { return decode_errors_; }

private:
    void apply(const FieldPacket& packet, double now_ms);

    GravityField field_;
    std::uint32_t applied_ = 0;
    std::vector<WeightedPoint> attractors_;
    std::vector<std::uint8_t> hole_ids_;
    std::vector<Vec2> position_;
    std::vector<Vec2> velocity_;
    std::vector<Vec2> pull_;  // integrate() scratch: the field at every pellet
    std::uint64_t decode_errors_ = 0;
};

}  // namespace vantage::play
