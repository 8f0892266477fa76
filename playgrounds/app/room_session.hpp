// RoomSession: the app as a client of a room (a page opened at "#horde/join" or
// "#blackhole/join", or the desktop app with --join ws://HOST:PORT/ws). It owns the
// platform's socket and the game's client with its view (make_room_game(), by the link's
// playground, from the playground list), feeds it the wall clock (a real network has no simulated time on this side),
// and turns its socket meters into the app's Meter list so the plots, the page's state() and
// the view read them the same way as an in-page playground's.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app/room_socket.hpp"
#include "app/views.hpp"
#include "common/room_link.hpp"
#include "common/simulation.hpp"

namespace vantage::play {

class RoomSession {
public:
    // The link's playground is a room (is_room() in common/catalog.hpp says which are).
    explicit RoomSession(RoomLink link);
    // One frame: connect progress, network in and out, what the client holds moved by dt_s.
    void update(double wall_s, float dt_s);
    void set_input(Vec2 direction, bool autopilot) { remote_->set_input(direction, autopilot); }
    void leave();
    // Sends a room command as this student's page (the server refuses it: only the teacher
    // changes the room); the answer shows in remote().last_error().
    void send_command(double wall_s, const CommandMessage& c);

    const RoomLink& link() const { return link_; }
    const RoomRemote& remote() const { return *remote_; }
    RoomRemote& remote() { return *remote_; }
    // The game's own words and drawing (views/<name>_view.cpp).
    const RoomWords& words() const { return game_.words; }
    WorldView draw_world(float side) const { return game_.draw_world(side); }
    bool connected() const { return socket_ && socket_->state() == RoomSocket::State::Open; }
    // What to show about the connection: connecting, joined, or why it ended.
    std::string status_text() const;
    void meters(std::vector<Meter>& out) const;
    // {"connected":..., "seat":..., "seats":..., "down_kib_s":..., "up_kib_s":..., "frames":...,
    //  "frames_lost":..., "rtt_ms":..., "phantoms":..., "err_mean_px":..., "truth_kib_s":...,
    //  "playground":..., "knows":..., "me":{x,y}, "roster":[...], "others":[{seat,name,x,y}] (the other
    //  seated players the page holds), "transport":"websocket"|"datachannel"|"udp",
    //  "transport_why":..., "datachannel":"off"|"connecting"|"open"|"failed"|"none", "datagram_frames":...}
    std::string state_json() const;

private:
    RoomLink link_;
    std::unique_ptr<RoomSocket> socket_;
    RoomGame game_;
    RoomRemote* remote_ = nullptr;  // game_.remote
    bool hello_sent_ = false;
    bool left_ = false;
};

struct ViewContext;
// The room's view (app/room_view.cpp): drawn instead of the tabs while the page is a client.
void draw_room_view(ViewContext& v, RoomSession& session);

}  // namespace vantage::play
