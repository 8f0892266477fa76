// HordeRoom: the horde world as a real server. A RoomServer carries the bytes; this is the
// game: one authoritative HordeWorld at the room's fixed tick, one seat per connection
// (SeatTable: a fresh occupant inherits nothing), and for each seat the same server half a
// page lane uses (HordeServerHalf), behind a LinkPair that impairs the real frames in both
// directions (loss, latency, jitter per seat: a lost frame is a message never sent).
//
// A connection first sends a hello (protocol, build, playground, name); a full room, another
// playground, or a page built from other sources is refused with a reason and closed. Once
// seated, every message goes through the seat's up link, then decode_client_message(): acks
// to the server half, inputs steer the seat's player (newest sequence wins), pings are
// answered, truth queries answered at most truth_max_hz. Nothing a client sends changes the
// room's settings. Unoccupied seats' players are driven by the bot.
//
// No sockets here (room_server.hpp is Boost-free), so this compiles with the game code.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "common/preset.hpp"
#include "common/room_wire.hpp"
#include "common/simulation.hpp"
#include "common/transport.hpp"
#include "horde/horde_server.hpp"
#include "horde/horde_sim.hpp"
#include "room/room_server.hpp"
#include "vantage/rate_meter.hpp"
#include "vantage/seat_table.hpp"

namespace vantage::room {

struct HordeRoomOptions {
    int seats = 16;                       // players in the world = the room's capacity, [1, 128]
    std::uint64_t seed = 1;               // the world's seed
    int tick_hz = 60;                     // the world's fixed tick, [10, 120]
    play::HordeSettings settings;         // enemies, rates, radius, theta, impairment (every seat's default)
    bool recovery = true;                 // acked delta recovery (false: naive)
    double truth_max_hz = 10.0;           // truth answers per seat per second, [0, 20]; 0 = none
    double hello_timeout_ms = 5000.0;     // a connection that has not said hello by then is closed
    std::string teacher_token;            // opens the teacher console; empty: no console
    std::vector<std::string> class_urls;  // the join URLs a teacher is shown (and the first as a QR)
    std::vector<play::Preset> presets;    // what a teacher can run for the whole room

    std::string validate() const;  // empty when fine
    // The settings in URL list form (what the welcome tells clients).
    std::string describe() const;
};

// Parses 'k=v&...' (the page's URL format) into options, through the horde simulation's own
// declared settings (so ranges and names are the page's) plus the room's "recovery" and
// "truth_max_hz". Returns one message per refused part.
std::vector<std::string> apply_room_settings(HordeRoomOptions& options, std::string_view list);

struct HordeSeatReport {
    std::uint32_t seat = 0;
    ConnectionId connection = 0;
    std::string name;
    std::uint64_t frames = 0;                            // frames the server half encoded
    std::uint64_t frame_bytes = 0;                       // their bytes (the encoder's count)
    std::uint64_t frames_lost = 0;                       // dropped by the seat's down link (impairment)
    std::uint64_t sent_messages = 0;                     // messages handed to the socket
    std::uint64_t sent_bytes = 0;                        // their payload bytes
    std::uint64_t dropped = 0;                           // refused by the socket's queue (slow reader)
    std::uint64_t truth_bytes = 0;                       // truth answers' bytes
    std::uint64_t decode_errors = 0;                     // client messages refused
    play::ReportMessage reported;                        // the student's own meters, as its page last reported them
    double loss_pct = 0, latency_ms = 0, jitter_ms = 0;  // this seat's impairment
    std::uint64_t frame_socket_bytes = 0;                // frames' bytes handed to the socket (the encoder's bytes)
    // The socket's own counts (RoomServer), as of the last tick.
    std::uint64_t socket_messages = 0, socket_payload_bytes = 0, socket_wire_bytes = 0;
};

class HordeRoom final : public RoomHandler {
public:
    explicit HordeRoom(HordeRoomOptions options);
    ~HordeRoom() override;
    void attach(RoomServer& server) { server_ = &server; }
    // The join URLs a teacher is shown, and the QR modules of the first (lan.hpp's qr_modules).
    void set_class_urls(std::vector<std::string> urls, std::vector<std::string> qr);

    void on_open(ConnectionId id, std::string_view remote_address) override;
    void on_message(ConnectionId id, std::span<const std::uint8_t> bytes) override;
    void on_close(ConnectionId id) override;
    void on_tick(double now_ms) override;

    const HordeRoomOptions& options() const { return options_; }
    const play::HordeWorld& world() const { return *world_; }
    std::uint32_t occupied() const { return seats_.occupied_count(); }
    std::uint64_t ticks() const { return ticks_; }
    std::size_t teachers() const { return teachers_.size(); }
    std::size_t followers() const { return followers_.size(); }
    std::uint64_t refused_commands() const { return refused_commands_; }  // students asking to change the room
    std::vector<HordeSeatReport> seat_reports() const;
    // Every seat this room has had: the seated ones and those that left, in seating order.
    // Read it from the server thread, or after run() returned.
    std::vector<HordeSeatReport> all_seat_reports() const;
    // Quiet: the world keeps ticking and what is in flight is delivered, but nothing new is
    // sent (no frames, pongs or truth). Tests use it to drain the links before counting bytes.
    // Any thread.
    void set_quiet(bool quiet) { quiet_.store(quiet); }
    // Phase marks of each tick (world, relevance, delta, encode, aggregation, send), for the bench.
    void set_profiler(play::Profiler* profiler) { profiler_ = profiler; }

private:
    struct Seat;
    struct SeatSlot {
        std::unique_ptr<Seat> seat;  // value-initialised (empty) on every fresh seating
    };
    struct Pending {
        ConnectionId id = 0;
        double opened_ms = 0;
    };

    void hello(ConnectionId id, std::span<const std::uint8_t> bytes);
    void teacher_hello(ConnectionId id);
    void command(ConnectionId teacher, const play::CommandMessage& c);
    void impair(Seat& seat, double loss_pct, double latency_ms, double jitter_ms);
    void send_seat_table();
    void error(ConnectionId id, const std::string& reason);
    void refuse(ConnectionId id, const std::string& reason);
    void dispatch(Seat& seat, std::span<const std::uint8_t> bytes);
    void broadcast_roster();
    void snapshot_socket(Seat& seat) const;
    std::vector<Seat*>& seated_scratch();
    Seat* seat_of(ConnectionId id);
    LossyLinkOptions link_options(std::uint64_t seed) const;
    double world_ms() const { return world_->time_s() * 1000.0; }

    HordeRoomOptions options_;
    RoomServer* server_ = nullptr;
    std::unique_ptr<play::HordeWorld> world_;
    SeatTable<ConnectionId, SeatSlot> seats_;
    std::vector<Pending> pending_;
    std::vector<std::uint8_t> occupied_mask_;  // per seat, for the round's relevance queries
    play::HordeRoundBuilder round_;
    play::HordeServeScratch scratch_;
    play::Profiler* profiler_ = nullptr;
    double next_send_ms_ = 0;
    std::uint64_t ticks_ = 0;
    std::uint64_t links_made_ = 0;  // seeds each new seat's links apart
    ByteWriter writer_;
    std::vector<std::uint8_t> message_;
    play::ClientMessage decoded_;
    std::vector<std::uint8_t> alive_;
    std::vector<HordeSeatReport> departed_;
    std::vector<Seat*> seated_;  // seated_scratch()'s buffer
    std::vector<ConnectionId> teachers_, followers_;
    std::string preset_;  // last preset run for the room
    std::string teacher_link_;
    std::vector<std::string> class_qr_;  // the teacher page's link, sent to each new follower
    double next_table_ms_ = 0;
    std::uint64_t refused_commands_ = 0;
    std::atomic<bool> quiet_{false};  // per queried key, 0/1
    std::vector<Vec2> positions_;
};

}  // namespace vantage::room
