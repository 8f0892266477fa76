// HordeRemote: a client of a horde room, UI-free and socket-free.
//
// RoomRemote (common/room_remote.hpp) does what every room client does; this is the horde's
// part: the same client half as a page lane (HordeClientHalf), fed by the socket instead of a
// LossyLink. It applies every frame and acknowledges each batch. Its truth sample is the
// enemies it holds (a strided sample when it holds more than one query carries): a key the
// server says is gone is a phantom, and each live one's distance from where the client drew
// it, moved by the enemies' own chase rule to the instant of the answer, is its render error.
// A key called dead counts as a phantom only while the client still holds it a round trip
// and two frames later: the answer can be newer than the newest frame applied.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "common/room_remote.hpp"
#include "horde/horde_client.hpp"

namespace vantage::play {

using HordeRemoteOptions = RoomRemoteOptions;

class HordeRemote final : public RoomRemote {
public:
    explicit HordeRemote(HordeRemoteOptions options = {}) : RoomRemote(std::move(options)) {}

    std::string_view playground() const override { return "horde"; }
    const HordeClientHalf& client() const { return client_; }
    std::uint64_t frames_lost() const override { return client_.mirror().counters().frames_lost; }
    std::size_t held() const override { return client_.mirror().size(); }
    std::optional<Vec2> player(std::uint32_t seat) const override;

private:
    std::optional<std::uint64_t> frame_stamp(std::span<const std::uint8_t> frame) const override;
    bool apply_frame(std::span<const std::uint8_t> frame, double server_ms) override;
    bool encode_ack(ByteWriter& out) override { return client_.encode_ack_into(out); }
    bool ready() const override { return client_.heard(); }
    bool draw_truth(std::vector<std::uint64_t>& keys, double server_ms) override;
    void score_truth(const TruthMessage& truth, double asked_server_ms, std::optional<double>& phantoms,
                     std::optional<double>& err_mean_px) override;
    void advance(float dt_s, double server_ms) override;
    void judge_suspects();

    HordeClientHalf client_;
    HordeClientScratch scratch_;
    std::uint64_t tick_ = 0;
    std::vector<std::uint64_t> asked_keys_;
    std::vector<Vec2> asked_positions_;  // what this client drew for each key when it asked
    std::vector<Vec2> asked_players_;
    std::vector<std::uint64_t> suspects_;    // held keys the last answer called dead
    double suspect_scale_ = 1.0;             // held enemies per sampled key at that answer
    double suspects_due_ms_ = -1.0;          // server ms when they are judged; negative: judged
    std::optional<double> judged_phantoms_;  // suspects still held at their judgement, scaled (none yet)
};

}  // namespace vantage::play
