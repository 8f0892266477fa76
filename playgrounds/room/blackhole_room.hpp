// BlackholeRoom: the black-hole arena as a real server. GameRoom (game_room.hpp) does what
// every room does; this is the game: one authoritative BlackholeWorld at the room's fixed
// tick, one hole per seat (the holes nobody plays follow their waypoints, as does a seated
// player on autopilot), and for each seat the same server half a page lane uses
// (BlackholeServerHalf) with the room's strategy: the full field, the field culled by view
// distance, or the AggregateTree's summaries walked from the seat's hole. Right after the
// welcome a seat is sent the join state (every pellet, unimpaired: a game sends it reliably),
// which the page's lanes hand their clients in memory. The truth a student may ask about is
// where the server's pellets are.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "blackhole/blackhole_server.hpp"
#include "blackhole/blackhole_sim.hpp"
#include "blackhole/blackhole_world.hpp"
#include "room/game_room.hpp"
#include "vantage/aggregate_tree.hpp"

namespace vantage::room {

struct BlackholeRoomOptions : RoomOptions {
    BlackholeRoomOptions() { seats = 8; }
    play::BlackholeSettings settings;                      // holes, pellets, theta, radius, rates, impairment
    play::LaneKind strategy = play::LaneKind::Aggregated;  // what every seat is sent

    std::string validate() const;  // empty when fine (seats up to 64, at most the holes)
    std::string describe() const;  // the settings in URL list form (what the welcome says)
};

// Parses 'k=v&...' through the black-hole simulation's own declared settings plus the
// room's keys and "strategy" (full, culled or aggregated). One message per refused part.
std::vector<std::string> apply_room_settings(BlackholeRoomOptions& options, std::string_view list);

class BlackholeRoom final : public GameRoom {
public:
    explicit BlackholeRoom(BlackholeRoomOptions options);
    ~BlackholeRoom() override;

    const BlackholeRoomOptions& options() const { return options_; }
    const play::BlackholeWorld& world() const { return world_; }

private:
    struct Seat;

    std::string describe() const override { return options_.describe(); }
    std::unique_ptr<RoomSeat> make_seat(const LossyLinkOptions& down, const LossyLinkOptions& up) override;
    void seated(RoomSeat& seat) override;
    void unseated(std::uint32_t index) override;
    void steer(RoomSeat& seat, Vec2 direction, bool autopilot) override;
    void step_world(double dt_s) override { world_.step(dt_s); }
    double world_ms() const override { return world_.time_s() * 1000.0; }
    void serve(std::span<RoomSeat* const> seated, double now_ms) override;
    void truth(std::span<const std::uint64_t> keys, std::vector<std::uint8_t>& alive,
               std::vector<Vec2>& positions) override;
    bool strategy(const play::CommandMessage& c, std::span<RoomSeat* const> seated, std::string& error) override;
    bool run_preset(const play::Preset& preset, std::span<RoomSeat* const> seated, std::string& error) override;
    void fill_table(play::SeatTableMessage& table) const override;
    Impairment default_impairment() const override;
    void set_default_impairment(const Impairment& i) override;

    BlackholeRoomOptions options_;
    play::BlackholeWorld world_;
    AggregateTree tree_;
    play::BlackholeServeScratch scratch_;
    double next_send_ms_ = 0;
};

}  // namespace vantage::room
