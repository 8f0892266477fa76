// HordeRoom: the horde world as a real server. GameRoom (game_room.hpp) does what every room
// does (seats, hello, impaired links, pings, truth, the teacher console); this is the game:
// one authoritative HordeWorld at the room's fixed tick, one player per seat, and for each
// seat the same server half a page lane uses (HordeServerHalf), whose acknowledgements come
// from the seat's inbox. Unoccupied seats' players are driven by the bot.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "horde/horde_server.hpp"
#include "horde/horde_sim.hpp"
#include "room/game_room.hpp"

namespace vantage::room {

struct HordeRoomOptions : RoomOptions {
    play::HordeSettings settings;  // enemies, rates, radius, theta, impairment (every seat's default)
    bool recovery = true;          // acked delta recovery (false: naive)

    std::string validate() const;  // empty when fine (seats up to 128)
    // The settings in URL list form (what the welcome tells clients).
    std::string describe() const;
};

// Parses 'k=v&...' (the page's URL format) into options, through the horde simulation's own
// declared settings (so ranges and names are the page's) plus the room's "recovery" and
// "truth_max_hz". Returns one message per refused part.
std::vector<std::string> apply_room_settings(HordeRoomOptions& options, std::string_view list);

using HordeSeatReport = SeatReport;

class HordeRoom final : public GameRoom {
public:
    explicit HordeRoom(HordeRoomOptions options);
    ~HordeRoom() override;

    const HordeRoomOptions& options() const { return options_; }
    const play::HordeWorld& world() const { return *world_; }

private:
    struct Seat;

    std::string describe() const override { return options_.describe(); }
    std::unique_ptr<RoomSeat> make_seat(const LossyLinkOptions& down, const LossyLinkOptions& up) override;
    void seated(RoomSeat& seat) override;
    void unseated(std::uint32_t index) override;
    void steer(RoomSeat& seat, Vec2 direction, bool autopilot) override;
    void step_world(double dt_s) override { world_->step(dt_s); }
    double world_ms() const override { return world_->time_s() * 1000.0; }
    void serve(std::span<RoomSeat* const> seated, double now_ms) override;
    void truth(std::span<const std::uint64_t> keys, std::vector<std::uint8_t>& alive,
               std::vector<Vec2>& positions) override;
    bool strategy(const play::CommandMessage& c, std::span<RoomSeat* const> seated, std::string& error) override;
    bool run_preset(const play::Preset& preset, std::span<RoomSeat* const> seated, std::string& error) override;
    void fill_table(play::SeatTableMessage& table) const override;
    Impairment default_impairment() const override;
    void set_default_impairment(const Impairment& i) override;

    HordeRoomOptions options_;
    std::unique_ptr<play::HordeWorld> world_;
    std::vector<std::uint8_t> occupied_mask_;  // per seat, for the round's relevance queries
    play::HordeRoundBuilder round_;
    play::HordeServeScratch scratch_;
    double next_send_ms_ = 0;
};

}  // namespace vantage::room
