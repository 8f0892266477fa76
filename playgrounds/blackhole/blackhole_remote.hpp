// BlackholeRemote: a client of a black-hole room, UI-free and socket-free.
//
// RoomRemote (common/room_remote.hpp) does what every room client does; this is the black
// holes' part: the same client half as a page lane (BlackholeClientHalf), created from the
// join state the room sends after the welcome and fed every FieldPacket the socket delivers.
// Between packets it integrates every pellet it holds with the field it was last sent, at the
// room's own fixed tick (the welcome's tick_hz), however often the page draws.
// Frames lost are the sequence numbers it never applied. Its truth sample is the pellets
// within the room's view radius of its own hole (at most kMaxTruthSample, strided): each
// one's distance from the server's pellet, with what was drawn moved by its own velocity to
// the instant of the answer, is the pellet error. There are no phantoms here: a pellet is
// never gone, only elsewhere.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "blackhole/blackhole_client.hpp"
#include "common/room_remote.hpp"

namespace vantage::play {

class BlackholeRemote final : public RoomRemote {
public:
    explicit BlackholeRemote(RoomRemoteOptions options = {}) : RoomRemote(std::move(options)) {}

    std::string_view playground() const override { return "blackhole"; }
    // The client half, once the join state arrived.
    const BlackholeClientHalf* client() const { return client_ ? &*client_ : nullptr; }
    std::uint64_t frames_lost() const override { return newest_ > applied_ ? newest_ - applied_ : 0; }
    std::size_t held() const override { return client_ ? client_->positions().size() : 0; }
    std::optional<Vec2> player(std::uint32_t seat) const override;
    // The room's view radius (from the welcome's settings): the truth sample's disc.
    float view_radius() const;
    std::uint64_t decode_errors() const { return client_ ? client_->decode_errors() : 0; }

private:
    std::optional<std::uint64_t> frame_stamp(std::span<const std::uint8_t> frame) const override;
    bool apply_frame(std::span<const std::uint8_t> frame, double server_ms) override;
    bool join_state(std::span<const std::uint8_t> bytes) override;
    bool ready() const override { return client_ && client_->applied() > 0; }
    bool draw_truth(std::vector<std::uint64_t>& keys, double server_ms) override;
    void score_truth(const TruthMessage& truth, double asked_server_ms, std::optional<double>& phantoms,
                     std::optional<double>& err_mean_px) override;
    void advance(float dt_s, double) override;

    std::optional<BlackholeClientHalf> client_;
    BlackholeClientScratch scratch_;
    std::uint64_t newest_ = 0;   // newest sequence applied
    std::uint64_t applied_ = 0;  // packets applied
    double pending_s_ = 0;       // wall time not yet integrated (less than one step)
    std::vector<Vec2> asked_positions_, asked_velocities_;
    std::vector<float> distances_;  // score_truth's scratch: each living pellet's error
};

}  // namespace vantage::play
