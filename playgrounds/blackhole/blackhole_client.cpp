#include "blackhole/blackhole_client.hpp"

namespace vantage::play {

BlackholeClientHalf::BlackholeClientHalf(GravityField field, std::span<const Vec2> positions,
                                         std::span<const Vec2> velocities)
    : field_(field), position_(positions.begin(), positions.end()), velocity_(velocities.begin(), velocities.end()) {}

std::size_t BlackholeClientHalf::integrate(float dt_s) {
    pull_.resize(position_.size());
    field_.at_each(position_, attractors_, pull_);
    for (std::size_t i = 0; i < position_.size(); ++i) {
        velocity_[i] += pull_[i] * dt_s;
        position_[i] += velocity_[i] * dt_s;
    }
    return position_.size() * attractors_.size();
}

std::size_t BlackholeClientHalf::receive(Transport& link, double now_ms, BlackholeClientScratch& scratch) {
    std::size_t applied = 0;
    while (link.poll(now_ms, scratch.datagram)) applied += apply_packet(scratch.datagram, now_ms, scratch) ? 1 : 0;
    return applied;
}

bool BlackholeClientHalf::apply_packet(std::span<const std::uint8_t> bytes, double now_ms,
                                       BlackholeClientScratch& scratch) {
    if (decode_field_packet(bytes, position_.size(), scratch.received) != WireError::Ok) {
        ++decode_errors_;
        return false;
    }
    if (scratch.received.sequence <= applied_) return false;  // older than what is held
    apply(scratch.received, now_ms);
    return true;
}

void BlackholeClientHalf::apply(const FieldPacket& packet, double now_ms) {
    applied_ = packet.sequence;
    attractors_.clear();
    hole_ids_.clear();
    for (const HoleState& h : packet.holes) {
        attractors_.push_back({h.position.x, h.position.y, h.weight});
        hole_ids_.push_back(h.id);
    }
    for (const WeightedPoint& c : packet.clusters) {
        attractors_.push_back(c);
        hole_ids_.push_back(kClusterId);
    }
    // States brought forward to now (this tick is already integrated), so the next
    // integrate() steps a correction once.
    const auto age_s = static_cast<float>((now_ms - packet.server_time_ms) / 1000.0);
    auto set = [&](const PelletState& p) {
        position_[p.id] = p.position + p.velocity * age_s;
        velocity_[p.id] = p.velocity;
    };
    for (const PelletState& p : packet.spawned) set(p);
    for (const PelletState& p : packet.corrections) set(p);
}

}  // namespace vantage::play
