// ClassClient: the teacher's console and the follower's link to a room, UI-free and
// socket-free (the platform hands it the socket as a Transport, as for HordeRemote).
//
// A teacher says hello with the token `vantage serve` printed and is then sent the class
// URLs and QR code once, and the seat table twice a second (each student's meters as its page
// measures them, and its impairment); its commands change impairment per seat or for
// everyone, the room's strategy, run a room preset, or remove a seat. A follower says hello
// and is sent the teacher page's link whenever it changes, which it applies to its own
// in-page playgrounds (so following works for every playground, not only the room's).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/room_wire.hpp"
#include "common/transport.hpp"

namespace vantage::play {

class ClassClient {
public:
    enum class Role { Teacher, Follower };
    enum class Status { Connecting, Open, Refused, Closed };

    ClassClient(Role role, std::string token) : role_(role), token_(std::move(token)) {}

    void open(Transport& socket, double local_ms);
    void update(Transport& socket, double local_ms);
    void closed(std::string reason);
    // Teacher only; a follower's command is never sent.
    void command(Transport& socket, double local_ms, const CommandMessage& c);

    Role role() const { return role_; }
    Status status() const { return status_; }
    const std::string& reason() const { return reason_; }
    const std::string& last_error() const { return last_error_; }
    const SeatTableMessage& table() const { return table_; }
    std::uint64_t tables() const { return tables_; }
    const ClassInfoMessage& info() const { return info_; }
    // Per seat name: the reported phantoms and render error over the last two minutes (one
    // sample per seat table), for the room plot.
    struct SeatHistory {
        std::vector<float> phantoms, err_px;
    };
    const std::map<std::string, SeatHistory>& history() const { return history_; }
    // Follower: the newest link the teacher's page showed, once (false when none is new).
    bool take_link(std::string& out);
    std::uint64_t links() const { return links_; }

private:
    Role role_;
    std::string token_;
    Status status_ = Status::Connecting;
    double next_ping_ms_ = 0;  // a follower's next Ping (local ms)
    std::string reason_, last_error_;
    SeatTableMessage table_;
    ClassInfoMessage info_;
    std::map<std::string, SeatHistory> history_;
    std::uint64_t tables_ = 0, links_ = 0;
    std::string link_;
    bool link_new_ = false;
    ByteWriter writer_;
    std::vector<std::uint8_t> message_;
};

}  // namespace vantage::play
