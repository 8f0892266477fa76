#include "blackhole/blackhole_remote.hpp"

#include <algorithm>

#include "blackhole/blackhole_sim.hpp"
#include "blackhole/blackhole_world.hpp"
#include "common/host.hpp"
#include "vantage/slot_key.hpp"

namespace vantage::play {

std::optional<Vec2> BlackholeRemote::player(std::uint32_t seat) const {
    if (!client_) return std::nullopt;
    const std::vector<std::uint8_t>& ids = client_->hole_ids();
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] == seat) return client_->attractors()[i].position();
    }
    return std::nullopt;  // not sent (dead, or not yet heard)
}

float BlackholeRemote::view_radius() const {
    std::vector<std::string_view> malformed;
    for (const auto& [name, value] : split_settings(welcome().settings, malformed)) {
        double v = 0;
        if (name == "view_radius" && parse_value(value, v) && v > 0.0) return static_cast<float>(v);
    }
    return static_cast<float>(BlackholeSettings{}.view_radius);
}

std::optional<std::uint64_t> BlackholeRemote::frame_stamp(std::span<const std::uint8_t> frame) const {
    ByteReader r(frame);
    r.read_u8();
    r.read_varint();  // sequence
    const std::uint64_t t = r.read_varint();
    if (!r.ok()) return std::nullopt;
    return t;
}

bool BlackholeRemote::join_state(std::span<const std::uint8_t> bytes) {
    JoinState join;
    if (client_ || decode_join_state(bytes, join) != WireError::Ok) return false;
    client_.emplace(GravityField{BlackholeWorld::kG, BlackholeWorld::kSoftening}, join.positions, join.velocities);
    return true;
}

bool BlackholeRemote::apply_frame(std::span<const std::uint8_t> frame, double server_ms) {
    if (!client_) return false;  // a packet before the join state: nothing to correct yet
    if (!client_->apply_packet(frame, server_ms, scratch_)) return false;
    newest_ = client_->applied();
    ++applied_;
    return true;
}

void BlackholeRemote::advance(float dt_s, double) {
    // The server's own fixed step, however often the page draws: a slow frame takes several
    // steps, not one long one (a 200 ms Euler step near a hole flings pellets). A stall longer
    // than kMaxCatchUpS is not caught up; the corrections bring those pellets back.
    constexpr double kMaxCatchUpS = 0.5;
    if (!client_ || !(dt_s > 0.0f)) return;
    const double step = 1.0 / static_cast<double>(std::clamp<std::uint32_t>(welcome().tick_hz, 10, 120));
    pending_s_ = std::min(pending_s_ + static_cast<double>(dt_s), kMaxCatchUpS);
    while (pending_s_ >= step) {
        client_->integrate(static_cast<float>(step));
        pending_s_ -= step;
    }
}

bool BlackholeRemote::draw_truth(std::vector<std::uint64_t>& keys, double) {
    const std::optional<Vec2> eye = me();
    if (!client_ || !eye) return false;
    const float r = view_radius();
    const std::vector<Vec2>& held = client_->positions();
    std::size_t in_view = 0;
    for (const Vec2 p : held) in_view += (p - *eye).length_squared() <= r * r ? 1 : 0;
    if (in_view == 0) return false;
    const std::size_t stride = (in_view + kMaxTruthSample - 1) / kMaxTruthSample;
    asked_positions_.clear();
    asked_velocities_.clear();
    std::size_t n = 0;
    for (std::size_t i = 0; i < held.size(); ++i) {
        if ((held[i] - *eye).length_squared() > r * r || n++ % stride != 0) continue;
        keys.push_back(SlotKey{static_cast<std::uint32_t>(i), 0}.encode());  // a pellet is its index
        asked_positions_.push_back(held[i]);
        asked_velocities_.push_back(client_->velocities()[i]);
    }
    return true;
}

// phantoms stays empty: a pellet is never gone, so none can be held after it is. The error is
// the pellets' median distance (in the room's error slot), the statistic the playground's
// lanes show: a few pellets a hole just swallowed or respawned sit far off, and a mean of
// 320-520 px on a clean link beside the lanes' 20-40 px median told a different story.
void BlackholeRemote::score_truth(const TruthMessage& truth, double asked_server_ms, std::optional<double>&,
                                  std::optional<double>& err_px) {
    const float span_s =
        static_cast<float>(std::max(0.0, (static_cast<double>(truth.server_ms) - asked_server_ms) / 1000.0));
    distances_.clear();
    std::size_t next = 0;
    for (std::size_t k = 0; k < truth.alive.size() && k < asked_positions_.size(); ++k) {
        if (!truth.alive[k]) continue;
        const Vec2 drawn = asked_positions_[k] + asked_velocities_[k] * span_s;
        distances_.push_back(distance(drawn, truth.positions[next++]));
    }
    if (distances_.empty()) {
        err_px = 0.0;
        return;
    }
    const auto middle = distances_.begin() + static_cast<std::ptrdiff_t>(distances_.size() / 2);
    std::nth_element(distances_.begin(), middle, distances_.end());
    err_px = static_cast<double>(*middle);
}

}  // namespace vantage::play
