// ClassSession: the page's link to a room as its teacher ("#...&teach&token=...") or as a
// follower ("#...&follow"). It owns the platform's socket and the ClassClient; the app keeps
// showing its in-page playgrounds meanwhile (a teacher's console is one more tab; a follower
// applies each link the teacher's page shows).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app/room_socket.hpp"
#include "common/class_client.hpp"
#include "common/preset.hpp"
#include "common/room_link.hpp"

namespace vantage::play {

// The console's controls: what the teacher is about to send. They follow the room (the seat
// table message is the one source of its state) whenever the room's values change, by a
// preset, another console or this one, and keep unsent edits otherwise (ClassSession::update).
struct ConsoleControls {
    int target = 0;  // 0: everyone, else seat number (1-based)
    float loss = 0, latency = 30, jitter = 20;
    bool recovery = true;
    float theta = 1.5f, radius = 420;
    bool show_qr = false;
    // The room's values these controls last took.
    bool seen_any = false;
    bool seen_recovery = true;
    double seen_theta = -1, seen_radius = -1;
    int seen_target = -1;
    double seen_loss = -1, seen_latency = -1, seen_jitter = -1;
};

class ClassSession {
public:
    explicit ClassSession(RoomLink link);
    void update(double wall_s);
    void command(double wall_s, const CommandMessage& c);
    void leave();

    const RoomLink& link() const { return link_; }
    const ClassClient& client() const { return client_; }
    ClassClient& client() { return client_; }
    bool teacher() const { return link_.teach; }
    bool connected() const { return socket_ && socket_->state() == RoomSocket::State::Open; }
    std::string status_text() const;
    std::string state_json() const;

    // The teacher page's link, sent to followers when it changes (at most 4 times a second).
    void share_link(double wall_s, const std::string& hash);
    // The room presets a teacher can run (assets/presets/horde-room.ini).
    std::vector<Preset> presets;
    std::string last_shared;
    ConsoleControls controls;

private:
    RoomLink link_;
    std::unique_ptr<RoomSocket> socket_;
    ClassClient client_;
    bool hello_sent_ = false;
    double next_share_s_ = 0;
};

// Parses a teacher command as the page's JS API gives it ("impair", "seat=1&loss=30...";
// "strategy", "recovery=0&theta=1.5&view_radius=420"; "preset", "name=..."; "kick", "seat=2";
// "transport", "seat=2&to=websocket" (or datachannel, udp)).
// Seats are 1-based as the table shows them; seat=all or no seat is everyone. A strategy
// keeps what it does not name from `current`. Empty string when it parsed, else the reason.
std::string parse_teacher_command(std::string_view kind, std::string_view args, const SeatTableMessage& current,
                                  CommandMessage& out);

struct ViewContext;
// The teacher console tab (app/class_view.cpp).
void draw_class_console(ViewContext& v, ClassSession& session, double wall_s, float ui_scale);

}  // namespace vantage::play
