#include "horde/horde_remote.hpp"

#include <algorithm>

#include "horde/horde_world.hpp"

namespace vantage::play {

std::optional<Vec2> HordeRemote::player(std::uint32_t seat) const {
    const std::vector<Vec2>& players = client_.players();
    if (seat >= players.size()) return std::nullopt;
    return players[seat];
}

std::optional<std::uint64_t> HordeRemote::frame_stamp(std::span<const std::uint8_t> frame) const {
    ByteReader r(frame);
    r.read_u8();
    const std::uint64_t t = r.read_varint();
    if (!r.ok()) return std::nullopt;
    return t;
}

bool HordeRemote::apply_frame(std::span<const std::uint8_t> frame, double server_ms) {
    return client_.apply_frame(frame, server_ms, scratch_);
}

bool HordeRemote::draw_truth(std::vector<std::uint64_t>& keys, double) {
    const std::size_t held = client_.mirror().size();
    if (held == 0) return false;
    // A strided sample when the client holds more than one query carries; the mirror walks
    // in slot order, so the keys come out ascending.
    const std::size_t stride = (held + kMaxTruthSample - 1) / kMaxTruthSample;
    asked_positions_.clear();
    std::size_t i = 0;
    client_.mirror().for_each([&](SlotKey key, const HeldEnemy& h) {
        if (h.awaiting || i++ % stride != 0) return;  // one awaiting its position is not drawn
        keys.push_back(key.encode());
        asked_positions_.push_back(h.position);
    });
    asked_keys_ = keys;
    asked_players_ = client_.players();
    return true;
}

void HordeRemote::score_truth(const TruthMessage& truth, double asked_server_ms, std::optional<double>& phantoms,
                              std::optional<double>& err_mean_px) {
    // The truth is where enemies were when the query reached the server; move what was drawn
    // at the query by the same rule over the same span, so both stand for one instant.
    const float span_s =
        static_cast<float>(std::max(0.0, (static_cast<double>(truth.server_ms) - asked_server_ms) / 1000.0));
    std::size_t next_position = 0;
    double err_sum = 0;
    std::size_t err_n = 0;
    // A key the server calls dead is a phantom only if this client still holds it a grace
    // later (a round trip and two frames): the answer is newer than the newest frame applied
    // (the frames carrying the latest deaths may still be on the way; a wave may fall between),
    // so on a clean link deaths in flight spiked the reading to hundreds every few seconds.
    // Naive recovery never repairs a lost removal, so those stay until the slot is reused;
    // acked recovery repairs it within a round trip or two. The reading reported here is the
    // last one judged (advance() judges each answer's suspects when their grace is over).
    if (suspects_due_ms_ >= 0.0) judge_suspects();
    phantoms = judged_phantoms_;
    suspects_.clear();
    for (std::size_t k = 0; k < truth.alive.size(); ++k) {
        if (!truth.alive[k]) {
            const std::optional<SlotKey> key = SlotKey::decode(asked_keys_[k]);
            if (key && client_.mirror().contains(*key)) suspects_.push_back(asked_keys_[k]);
            continue;
        }
        Vec2 drawn = asked_positions_[k];
        if (!asked_players_.empty()) {
            const std::uint32_t target = nearest_player(drawn, asked_players_);
            drawn = chase_step(drawn, asked_keys_[k], asked_players_[target], span_s);
        }
        err_sum += static_cast<double>(distance(drawn, truth.positions[next_position++]));
        ++err_n;
    }
    suspect_scale_ = std::max(1.0, static_cast<double>(client_.mirror().size()) /
                                       static_cast<double>(std::max<std::size_t>(1, truth.alive.size())));
    const double grace_ms = rtt_ms().value_or(100.0) + 150.0;
    suspects_due_ms_ = static_cast<double>(truth.server_ms) + grace_ms;
    err_mean_px = err_n > 0 ? err_sum / static_cast<double>(err_n) : 0.0;
}

void HordeRemote::judge_suspects() {
    std::size_t still_held = 0;
    for (const std::uint64_t key : suspects_) {
        const std::optional<SlotKey> k = SlotKey::decode(key);
        if (k && client_.mirror().contains(*k)) ++still_held;
    }
    judged_phantoms_ = static_cast<double>(still_held) * suspect_scale_;
    suspects_due_ms_ = -1.0;
}

void HordeRemote::advance(float dt_s, double server_ms) {
    client_.advance(dt_s, tick_++);
    if (suspects_due_ms_ >= 0.0 && server_ms >= suspects_due_ms_) judge_suspects();
}

}  // namespace vantage::play
