// GameRoom: what every room does, whatever world it plays. A RoomServer carries the bytes;
// a GameRoom seats connections (SeatTable: a fresh occupant inherits nothing), checks the
// versioned hello, puts every seat behind a LinkPair that impairs the real messages in both
// directions (loss, latency, jitter per seat: a lost frame is a message never sent), answers
// pings, rate-limits truth queries, keeps the teacher console and its followers, and counts
// every seat's bytes. The game (HordeRoom, BlackholeRoom) adds its world and its server half
// through the hooks below; nothing a student sends changes the room's settings.
//
// No sockets here (room_server.hpp is Boost-free), so this compiles with the game code.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/preset.hpp"
#include "common/room_wire.hpp"
#include "common/simulation.hpp"
#include "common/transport.hpp"
#include "room/datagram_path.hpp"
#include "room/room_server.hpp"
#include "vantage/seat_table.hpp"

namespace vantage::room {

// What every room is told on the command line, whatever it plays.
struct RoomOptions {
    int seats = 16;              // the room's capacity, [1, the game's maximum]
    std::uint64_t seed = 1;      // the world's seed
    int tick_hz = 60;            // the world's fixed tick, [10, 120]
    double truth_max_hz = 10.0;  // truth answers per seat per second, [0, 20]; 0 = none
    // On: the simulated loss on a seat whose frames ride the WebSocket is resent, late and in
    // order, as TCP would (LossyLink's stream mode), while datagram seats (UDP, DataChannel)
    // keep plain loss. Off: every seat loses what the loss drops (the simulation of old).
    bool websocket_retransmits = false;
    double hello_timeout_ms = 3000.0;  // a connection that has not said hello by then is closed, (0, 60000]
    // Admission quotas, one per kind of connection (room_wire.md, "Admission"): a kind that is
    // full refuses with a sentence and never takes another kind's place.
    int max_pending = 16;                 // connections that have not said hello yet; a newcomer past
                                          // it closes the oldest of them, [1, 256]
    int max_pending_per_address = 4;      // of those, from one source address; more are refused, [1, 256]
    int max_followers = 32;               // follower pages (FollowHello), [0, 1024]
    double follower_idle_ms = 60000.0;    // a follower that sends nothing this long is closed, [1000, 600000]
    int max_teachers = 2;                 // teacher consoles: their own places, [1, 8]
    std::string teacher_token;            // opens the teacher console; empty: no console
    std::vector<std::string> class_urls;  // the join URLs a teacher is shown (and the first as a QR)
    std::vector<play::Preset> presets;    // what a teacher can run for the whole room

    std::string validate(int max_seats) const;  // empty when fine
    // Every place the quotas allow at once (the RoomServer's max_connections): seats,
    // followers, teachers and the connections still to say hello.
    std::size_t connection_budget() const {
        return static_cast<std::size_t>(seats + max_followers + max_teachers + max_pending);
    }
};

// Parses the room's own keys out of 'k=v&...' ("truth_max_hz", "seed", "tick_hz", "seats");
// returns true when `name` was one of them (an error, if any, is appended).
bool apply_room_key(RoomOptions& options, std::string_view name, std::string_view value,
                    std::vector<std::string>& errors);

struct SeatReport {
    std::uint32_t seat = 0;
    ConnectionId connection = 0;
    std::string name;
    std::uint64_t frames = 0;                            // frames the server half encoded
    std::uint64_t frame_bytes = 0;                       // their bytes (the encoder's count)
    std::uint64_t frames_lost = 0;                       // dropped by the seat's down link (impairment)
    std::uint64_t frames_resent = 0;                     // lost by it, resent late (websocket_retransmits)
    std::uint64_t sent_messages = 0;                     // messages handed to the socket
    std::uint64_t sent_bytes = 0;                        // their payload bytes
    std::uint64_t dropped = 0;                           // refused by the socket's queue (slow reader)
    std::uint64_t truth_bytes = 0;                       // truth answers' bytes
    std::uint64_t decode_errors = 0;                     // client messages refused
    std::uint64_t join_bytes = 0;                        // the join state sent after the welcome
    play::ReportMessage reported;                        // the student's own meters, as its page last reported them
    double loss_pct = 0, latency_ms = 0, jitter_ms = 0;  // this seat's impairment
    std::uint64_t frame_socket_bytes = 0;                // frames' bytes handed to the socket (the encoder's bytes)
    // The socket's own counts (RoomServer), as of the last tick.
    std::uint64_t socket_messages = 0, socket_payload_bytes = 0, socket_wire_bytes = 0;
    // The seat's transport (datagram_path.hpp): where its frames go now, and what its path carried.
    SeatTransport transport = SeatTransport::WebSocket;
    std::string transport_why;           // the last TransportState's sentence
    std::uint64_t path_attaches = 0;     // datagram paths attached over the seat's life
    std::uint64_t path_messages = 0;     // frames handed to a datagram path
    std::uint64_t path_bytes = 0;        // their bytes
    std::uint64_t path_dropped = 0;      // refused by the path (closed, full)
    std::uint64_t path_in_messages = 0;  // client messages that arrived over a datagram path
    std::uint64_t udp_grants = 0;        // UDP connect tokens issued to this seat
};

// What issues the room's UDP connect tokens and runs its UDP socket (udp_room.hpp); the
// GameRoom asks it, on the server thread.
class UdpDoor {
public:
    virtual ~UdpDoor() = default;
    // A connect token for the seat on WebSocket connection `id` (kUdpGrantTokenBytes, encoded);
    // false with a sentence in `why` when none can be given (the room's UDP is full, off).
    virtual bool grant(ConnectionId id, std::uint32_t seat, std::vector<std::uint8_t>& token, std::string& why) = 0;
    // Reads the socket, runs the connections (which may attach, feed and detach paths), sends.
    // Called at the start of every tick.
    virtual void pump(double now_ms) = 0;
};

// What answers the room's WebRTC signalling (webrtc_door.hpp: a page's DataChannel). The
// GameRoom hands it a seat's RtcSignal messages and says when any connection closed; server
// thread only.
class RtcDoor {
public:
    virtual ~RtcDoor() = default;
    virtual void signal(ConnectionId id, const play::RtcSignalMessage& m) = 0;
    virtual void left(ConnectionId id) = 0;
};

// One seated connection: its links (the impairment) and an inbox of the acknowledgements its
// up link delivered, which the game's server half reads as its transport (frames go down the
// impaired link). A game derives its seat to add its server half.
struct RoomSeat : play::Transport {
    RoomSeat(const LossyLinkOptions& down, const LossyLinkOptions& up) : link(down, up) {}
    ~RoomSeat() override = default;

    void send(double now_ms, std::span<const std::uint8_t> bytes) override;
    bool poll(double now_ms, std::vector<std::uint8_t>& out) override;
    // Client messages the game's server half refused (added to the report's).
    virtual std::uint64_t half_decode_errors() const { return 0; }

    ConnectionId connection = 0;
    std::uint32_t index = 0;
    std::string name;
    play::LinkPair link;
    std::deque<std::vector<std::uint8_t>> acks;
    std::uint32_t input_seq = 0;
    bool any_input = false;
    std::unique_ptr<DatagramPath> path;                    // set: the seat's frames go here instead of the WebSocket
    bool websocket_only = false;                           // the teacher keeps this seat on the WebSocket
    bool teacher_moved = false;                            // the next path attached is the one the teacher asked for
    SeatTransport told_wanted = SeatTransport::WebSocket;  // the last TransportState's wanted
    double next_truth_ms = 0;
    SeatReport report;
};

struct Impairment {
    double loss_pct = 0, latency_ms = 0, jitter_ms = 0;
};

class GameRoom : public RoomHandler {
public:
    ~GameRoom() override;
    void attach(RoomServer& server) { server_ = &server; }
    // The join URLs a teacher is shown, and the QR modules of the first (lan.hpp's qr_modules).
    void set_class_urls(std::vector<std::string> urls, std::vector<std::string> qr);

    void on_open(ConnectionId id, std::string_view remote_address) override;
    void on_message(ConnectionId id, std::span<const std::uint8_t> bytes) override;
    void on_close(ConnectionId id) override;
    void on_tick(double now_ms) override;

    // --- the transport seam (datagram_path.hpp); server thread only ---
    // The seat on WebSocket connection `id` sends its frames over `path` from now on (replacing
    // any path it had) and is told so (TransportState). No seat on `id`: the path is dropped.
    void attach_path(ConnectionId id, std::unique_ptr<DatagramPath> path);
    // Back to the WebSocket (the path failed, the peer went, the teacher moved the seat); the
    // client is told why. Nothing happens when the seat has no path.
    void detach_path(ConnectionId id, std::string_view why);
    // A client message that arrived over that seat's datagram path (acknowledgements, inputs):
    // decoded as over the WebSocket, after crossing the seat's impaired up link.
    void on_datagram(ConnectionId id, std::span<const std::uint8_t> bytes);
    // Where UdpRequests get their tokens and the UDP socket is run from; null: no UDP (a
    // UdpRequest is answered that the room has none).
    void set_udp_door(UdpDoor* door) { udp_door_ = door; }
    // Where a seat's RtcSignal messages go; null: none (an offer is answered with a bye that
    // says the room has no DataChannels).
    void set_rtc_door(RtcDoor* door) { rtc_door_ = door; }
    // The room's signalling to the page on connection `id` (RtcSignalOut), unimpaired.
    void send_rtc_signal(ConnectionId id, const play::RtcSignalMessage& m);
    // The seat's transport now, by its WebSocket connection (WebSocket when not seated).
    SeatTransport transport_of(ConnectionId id);
    std::uint32_t occupied() const { return seats_.occupied_count(); }
    std::uint64_t ticks() const { return ticks_; }
    std::size_t teachers() const { return teachers_.size(); }
    std::size_t followers() const { return followers_.size(); }
    std::uint64_t refused_commands() const { return refused_commands_; }  // students asking to change the room
    std::vector<SeatReport> seat_reports() const;
    // Every seat this room has had: the seated ones and those that left, in seating order.
    // Read it from the server thread, or after run() returned.
    std::vector<SeatReport> all_seat_reports() const;
    // Quiet: the world keeps ticking and what is in flight is delivered, but nothing new is
    // sent (no frames, pongs or truth). Tests use it to drain the links before counting bytes.
    // Any thread.
    void set_quiet(bool quiet) { quiet_.store(quiet); }
    bool quiet() const { return quiet_.load(); }
    // Phase marks of each tick, for the bench.
    void set_profiler(play::Profiler* profiler) { profiler_ = profiler; }

protected:
    // `room` is the derived game's own options (it may not be constructed yet: it is read
    // only after construction); `seats` is its capacity.
    GameRoom(RoomOptions& room, int seats, std::string_view playground);

    // --- what the game provides ---
    // The room's settings in URL list form, for the welcome.
    virtual std::string describe() const = 0;
    virtual std::unique_ptr<RoomSeat> make_seat(const LossyLinkOptions& down, const LossyLinkOptions& up) = 0;
    // A seat was taken (after the welcome was sent) or given back (before its state goes).
    virtual void seated(RoomSeat& seat) = 0;
    virtual void unseated(std::uint32_t index) = 0;
    virtual void steer(RoomSeat& seat, Vec2 direction, bool autopilot) = 0;
    virtual void step_world(double dt_s) = 0;
    virtual double world_ms() const = 0;
    // Plans, encodes and sends what is due to the seated seats (through each seat's Transport).
    virtual void serve(std::span<RoomSeat* const> seated, double now_ms) = 0;
    // Fills the truth answer to `keys` (alive flag per key, positions of the alive ones).
    virtual void truth(std::span<const std::uint64_t> keys, std::vector<std::uint8_t>& alive,
                       std::vector<Vec2>& positions) = 0;
    // A teacher's Strategy command; false (with `error`) when the game refuses it.
    virtual bool strategy(const play::CommandMessage& c, std::span<RoomSeat* const> seated, std::string& error) = 0;
    // A teacher's preset: what it may change in a running room (strategy and every seat's
    // impairment, through impair()); false with `error` when its settings are refused.
    virtual bool run_preset(const play::Preset& preset, std::span<RoomSeat* const> seated, std::string& error) = 0;
    virtual void fill_table(play::SeatTableMessage& table) const = 0;
    virtual Impairment default_impairment() const = 0;
    virtual void set_default_impairment(const Impairment& i) = 0;

    // --- what the game may use ---
    // Also sets whether the seat's links resend (websocket_retransmits, on the WebSocket now).
    void impair(RoomSeat& seat, const Impairment& i);
    // Whether the simulated loss on `seat` is resent as TCP would (it rides the WebSocket).
    bool retransmits(const RoomSeat& seat) const { return room_.websocket_retransmits && !seat.path; }
    // Sends to the socket directly, unimpaired (the join state: a real game sends it reliably).
    SendResult send_direct(ConnectionId id, std::span<const std::uint8_t> bytes);
    play::Profiler* profiler() const { return profiler_; }
    ByteWriter& writer() { return writer_; }

private:
    struct SeatSlot {
        std::unique_ptr<RoomSeat> seat;  // value-initialised (empty) on every fresh seating
    };
    struct Pending {
        ConnectionId id = 0;
        double opened_ms = 0;
        std::string address;  // the source address, without the port
    };
    struct Follower {
        ConnectionId id = 0;
        double heard_ms = 0;  // when it last sent anything
    };
    struct TokenTries {
        int wrong = 0;           // wrong teacher tokens from this address
        double next_try_ms = 0;  // a teacher hello before this is refused unread
    };

    void hello(ConnectionId id, std::span<const std::uint8_t> bytes);
    void teacher_hello(ConnectionId id);
    bool teacher_token_ok(ConnectionId id);
    void command(ConnectionId teacher, const play::CommandMessage& c);
    void send_seat_table();
    void error(ConnectionId id, const std::string& reason);
    void refuse(ConnectionId id, const std::string& reason);
    void dispatch(RoomSeat& seat, std::span<const std::uint8_t> bytes);
    void broadcast_roster();
    void udp_request(RoomSeat& seat);
    void rtc_signal(RoomSeat& seat, std::span<const std::uint8_t> bytes);
    void tell_transport(RoomSeat& seat, SeatTransport wanted, std::string_view why);
    void reimpair(RoomSeat& seat);  // the seat's own impairment again, for its transport now
    void snapshot_socket(RoomSeat& seat) const;
    std::vector<RoomSeat*>& seated_scratch();
    RoomSeat* seat_of(ConnectionId id);
    LossyLinkOptions link_options(std::uint64_t seed) const;

    RoomOptions& room_;
    std::string playground_;
    RoomServer* server_ = nullptr;
    UdpDoor* udp_door_ = nullptr;
    RtcDoor* rtc_door_ = nullptr;
    std::vector<std::uint8_t> grant_;
    SeatTable<ConnectionId, SeatSlot> seats_;
    std::vector<Pending> pending_;
    std::unordered_map<ConnectionId, std::string> address_of_;  // every open connection's source address
    std::unordered_map<std::string, TokenTries> token_tries_;
    play::Profiler* profiler_ = nullptr;
    std::uint64_t ticks_ = 0;
    std::uint64_t links_made_ = 0;  // seeds each new seat's links apart
    ByteWriter writer_;
    std::vector<std::uint8_t> message_;
    play::ClientMessage decoded_;
    std::vector<std::uint8_t> alive_;
    std::vector<Vec2> positions_;
    std::vector<SeatReport> departed_;
    std::vector<RoomSeat*> seated_;  // seated_scratch()'s buffer
    std::vector<ConnectionId> teachers_;
    std::vector<Follower> followers_;
    std::string preset_;  // last preset run for the room
    std::string teacher_link_;
    std::vector<std::string> class_qr_;  // the teacher page's link, sent to each new follower
    double next_table_ms_ = 0;
    std::uint64_t refused_commands_ = 0;
    std::atomic<bool> quiet_{false};
};

}  // namespace vantage::room
