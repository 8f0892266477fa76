// The room protocol: the messages a room's server and its clients exchange over a WebSocket,
// besides the lane's own messages, which travel unchanged (the horde's 'H' frame and the
// delta stream's 'A' acknowledgement). One WebSocket binary message is one message; its
// first byte is its type. Full layout, limits and the session's order: room_wire.md.
//
// Decoding is validation, as everywhere on this project's wire: a truncated, over-long,
// out-of-range or malformed message returns a WireError and changes nothing on the server.
// The server decodes every message a client sends through decode_client_message(); nothing
// a client sends can change the room's settings.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vantage/byte_io.hpp"
#include "vantage/vec.hpp"

namespace vantage::play {

// Bumped whenever a message below changes shape. The build id (a digest of every wire
// source, computed by the build) catches the rest: a page built from other sources than the
// server is told to reload instead of being fed bytes it would misread.
inline constexpr std::uint32_t kRoomProtocol = 5;
const char* room_build_id();

inline constexpr std::size_t kMaxNameBytes = 24;
inline constexpr std::size_t kMaxReasonBytes = 200;
inline constexpr std::size_t kMaxSettingsBytes = 1024;
inline constexpr std::size_t kMaxBuildBytes = 64;
inline constexpr std::size_t kMaxPlaygroundBytes = 16;
inline constexpr std::size_t kMaxTruthKeys = 8192;
inline constexpr std::size_t kMaxRosterSeats = 256;
inline constexpr float kTruthStep = 1.0f / 16.0f;  // world units
inline constexpr std::size_t kMaxTokenBytes = 64;
inline constexpr std::size_t kMaxLinkBytes = 2048;
inline constexpr std::size_t kMaxUrls = 8;
inline constexpr std::size_t kMaxQrRows = 177;
inline constexpr std::size_t kMaxRtcSignalBytes = 4096;  // an SDP or a candidate line
// A UDP connect token's bytes (room/udp_token.hpp, kUdpTokenBytes): opaque to this layer.
inline constexpr std::size_t kUdpGrantTokenBytes = 271;

enum class RoomMessage : std::uint8_t {
    // client -> server
    Hello = 0x4a,         // 'J'
    Ack = 0x41,           // 'A' (the delta stream's acknowledgement, core/docs/delta.md)
    Input = 0x49,         // 'I'
    Ping = 0x50,          // 'P'
    TruthQuery = 0x51,    // 'Q'
    Report = 0x4d,        // 'M' a student's own meters, for the teacher's table
    TeacherHello = 0x43,  // 'C'
    FollowHello = 0x46,   // 'F'
    Command = 0x58,       // 'X' teacher only
    UdpRequest = 0x74,    // 't' a seat asks for a UDP connect token
    RtcSignal = 0x72,     // 'r' WebRTC signalling, page -> room (the DataChannel transport)
    // server -> client
    Welcome = 0x57,         // 'W'
    Refuse = 0x52,          // 'R'
    Frame = 0x48,           // 'H' (the horde's frame: horde_wire.hpp)
    FieldFrame = 0xb1,      // the black-hole FieldPacket (field_packet.hpp)
    JoinState = 0x47,       // 'G' a black-hole client's pellets, once after the welcome (field_packet.hpp)
    Pong = 0x4f,            // 'O'
    Truth = 0x54,           // 'T'
    Roster = 0x53,          // 'S'
    Error = 0x45,           // 'E' a refused request; the connection stays
    SeatTable = 0x59,       // 'Y' to teachers
    ClassInfo = 0x55,       // 'U' to a teacher, once: the join URLs and a QR code
    Link = 0x4c,            // 'L' to followers: the teacher's page link
    UdpGrant = 0x6b,        // 'k' the UDP connect token answering a UdpRequest
    RtcSignalOut = 0x73,    // 's' WebRTC signalling, room -> page (the DataChannel transport)
    TransportState = 0x6e,  // 'n' which transport the seat's frames use now, and why
};

// How a seat's frames and acknowledgements travel (datagram_path.hpp): the WebSocket, which
// every seat has, or a datagram path beside it.
enum class SeatTransport : std::uint8_t { WebSocket = 0, DataChannel = 1, Udp = 2 };
inline constexpr std::uint8_t kMaxSeatTransport = 2;
std::string_view transport_name(SeatTransport t);  // "websocket", "datachannel", "udp"

// A lane's frame (what the frame meters count): the horde's 'H' or the black hole's FieldPacket.
constexpr bool is_frame_type(std::uint8_t type) {
    return type == static_cast<std::uint8_t>(RoomMessage::Frame) ||
           type == static_cast<std::uint8_t>(RoomMessage::FieldFrame);
}

struct HelloMessage {
    std::uint32_t protocol = kRoomProtocol;
    std::string build;       // room_build_id() of the page
    std::string playground;  // "horde", "blackhole"
    std::string name;        // display name, <= kMaxNameBytes of UTF-8 (sanitize_name)
};

struct InputMessage {
    std::uint32_t seq = 0;   // increasing per connection; older ones are ignored
    bool autopilot = false;  // the server's bot steers this seat's player
    Vec2 direction;          // components in [-1, 1] (quantized to 1/127)
};

struct WelcomeMessage {
    std::uint32_t protocol = kRoomProtocol;
    std::string build;
    std::string playground;
    std::uint32_t seat = 0;   // this client's seat = its player index
    std::uint32_t seats = 0;  // the room's capacity
    std::uint32_t tick_hz = 60;
    std::string settings;  // the room's settings in URL list form ("enemies=3000&...")
};

struct PongMessage {
    std::uint64_t client_ms = 0;  // echoed from the ping
    std::uint64_t server_ms = 0;  // the room's simulated time when the ping was answered
};

// Truth, for teaching only: the client asks about the keys it holds; the server says which
// are alive and where they are now. Its bytes are counted apart from the stream's.
struct TruthQueryMessage {
    std::uint32_t id = 0;
    std::vector<std::uint64_t> keys;  // packed SlotKeys, strictly ascending
};

struct TruthMessage {
    std::uint32_t id = 0;
    std::uint64_t server_ms = 0;
    std::vector<bool> alive;      // one per queried key, in the query's order
    std::vector<Vec2> positions;  // one per alive key, in order
};

// A student's meters as its page measures them (absent ones are negative).
struct ReportMessage {
    double rtt_ms = -1;
    double down_kib_s = -1;
    std::uint64_t frames_lost = 0;
    double phantoms = -1;
    double err_mean_px = -1;
    SeatTransport transport = SeatTransport::WebSocket;  // what its frames arrive over now
    double frame_age_p50_ms = -1;                        // age of the newest frame held, over the window
    double frame_age_p99_ms = -1;
    std::uint64_t stalls = 0;  // times no new frame came for more than three frame intervals
};

// The room tells a seat which transport its frames use now (after attaching or detaching a
// datagram path, or refusing one), and which one the room wants it on: when `wanted` differs
// from `transport` the client starts that datagram path if it can (or, for WebSocket, stops
// its own).
struct TransportStateMessage {
    SeatTransport transport = SeatTransport::WebSocket;
    SeatTransport wanted = SeatTransport::WebSocket;
    // The room's simulated loss is resent as TCP would on its WebSocket seats (the room setting
    // websocket_retransmits), so the page can say how its simulated loss behaves; sent again
    // when the setting changes.
    bool websocket_retransmits = false;
    std::string why;  // a sentence for the page, <= kMaxReasonBytes
};

struct TeacherHelloMessage {
    std::uint32_t protocol = kRoomProtocol;
    std::string build;
    std::string token;
};

// What a teacher may ask. Seat kAllSeats means every seat.
inline constexpr std::uint32_t kAllSeats = 0xffffffffu;
struct CommandMessage {
    enum class Kind : std::uint8_t { Impair = 1, Strategy = 2, Preset = 3, Kick = 4, Link = 5, Transport = 6 };
    Kind kind = Kind::Impair;
    std::uint32_t seat = kAllSeats;                      // Impair, Kick, Transport (one seat)
    double loss_pct = 0, latency_ms = 0, jitter_ms = 0;  // Impair: [0, 40] %, [0, 400] ms, [0, 150] ms
    bool recovery = true;                                // Strategy: acked (true) or naive
    double theta = 0;                                    // Strategy: [0, 2]
    double view_radius = 420;                            // Strategy: [100, 1500] units
    std::string text{};                                  // Preset: its name; Link: the teacher page's hash
    SeatTransport transport = SeatTransport::WebSocket;  // Transport: where the seat's frames should go
};

struct SeatRow {
    std::uint32_t seat = 0;
    std::string name;
    ReportMessage meters;                                // as the student's page last reported
    double loss_pct = 0, latency_ms = 0, jitter_ms = 0;  // this seat's simulated impairment
    SeatTransport transport = SeatTransport::WebSocket;  // as the room routes its frames now
    double socket_loss_pct = -1;  // frames lost on the socket itself (client-counted minus simulated), or absent
};

struct SeatTableMessage {
    std::uint64_t server_ms = 0;
    bool recovery = true;
    bool websocket_retransmits = false;  // WebSocket seats' simulated loss is resent, as TCP would
    double theta = 0, view_radius = 420;
    std::string preset;  // the preset last run for the room, or empty
    std::vector<SeatRow> rows;
};

struct ClassInfoMessage {
    std::vector<std::string> urls;  // join URLs, the first is the QR's
    std::vector<std::string> qr;    // rows of '0'/'1', square
};

// WebRTC signalling on the WebSocket (a page's DataChannel; room_wire.md, "DataChannels"). The
// page offers and sends its candidates; the room answers and sends its own; either says bye
// (text: why) to give the channel up, after which the seat's frames use the WebSocket.
enum class RtcSignalKind : std::uint8_t { Offer = 1, Answer = 2, Candidate = 3, Bye = 4 };
struct RtcSignalMessage {
    RtcSignalKind kind = RtcSignalKind::Offer;
    std::string text;  // SDP (CR LF lines), "candidate:..." (empty: end of candidates) or a reason;
                       // printable ASCII, CR and LF, <= kMaxRtcSignalBytes
};

struct RosterEntry {
    std::uint32_t seat = 0;
    std::string name;
};

// What a client may send, decoded (the variant the server dispatches on).
struct ClientMessage {
    RoomMessage type = RoomMessage::Hello;
    HelloMessage hello;
    InputMessage input;
    std::uint64_t ping_ms = 0;
    TruthQueryMessage truth_query;
    ReportMessage report;
    TeacherHelloMessage teacher;
    HelloMessage follow;  // its protocol and build; name and playground unused
    CommandMessage command;
    RtcSignalMessage rtc;  // RtcSignal: Offer, Candidate or Bye
    // UdpRequest has no body.
    // Ack: the raw bytes are handed on to the server half, which decodes them itself.
};

void encode_hello(ByteWriter& w, const HelloMessage& m);
void encode_input(ByteWriter& w, const InputMessage& m);
void encode_ping(ByteWriter& w, std::uint64_t client_ms);
void encode_truth_query(ByteWriter& w, const TruthQueryMessage& m);
void encode_welcome(ByteWriter& w, const WelcomeMessage& m);
void encode_refuse(ByteWriter& w, std::string_view reason);
void encode_pong(ByteWriter& w, const PongMessage& m);
// alive: one 0/1 per queried key; positions: one per alive key (a NaN or out-of-range position
// marks w failed).
void encode_truth(ByteWriter& w, std::uint32_t id, std::uint64_t server_ms, std::span<const std::uint8_t> alive,
                  std::span<const Vec2> positions);
void encode_roster(ByteWriter& w, std::span<const RosterEntry> entries);
void encode_report(ByteWriter& w, const ReportMessage& m);
void encode_teacher_hello(ByteWriter& w, const TeacherHelloMessage& m);
void encode_follow_hello(ByteWriter& w, std::uint32_t protocol, std::string_view build);
void encode_command(ByteWriter& w, const CommandMessage& m);
void encode_error(ByteWriter& w, std::string_view reason);
void encode_seat_table(ByteWriter& w, const SeatTableMessage& m);
void encode_class_info(ByteWriter& w, const ClassInfoMessage& m);
void encode_link(ByteWriter& w, std::string_view hash);
// A page's signalling (kind Offer, Candidate or Bye) and the room's (Answer, Candidate or
// Bye); text longer than kMaxRtcSignalBytes, or with other bytes than printable ASCII, CR
// and LF, is a caller's bug (asserted).
void encode_rtc_signal(ByteWriter& w, const RtcSignalMessage& m);
void encode_rtc_signal_out(ByteWriter& w, const RtcSignalMessage& m);
void encode_udp_request(ByteWriter& w);
// token: exactly kUdpGrantTokenBytes (encode_udp_token's bytes).
void encode_udp_grant(ByteWriter& w, std::span<const std::uint8_t> token);
void encode_transport_state(ByteWriter& w, const TransportStateMessage& m);

// Every message a client may send. An Ack is only checked for its type byte here (its body
// is decoded by the server half). Anything else is UnknownType.
WireError decode_client_message(std::span<const std::uint8_t> bytes, ClientMessage& out);

WireError decode_welcome(std::span<const std::uint8_t> bytes, WelcomeMessage& out);
WireError decode_refuse(std::span<const std::uint8_t> bytes, std::string& reason);
WireError decode_pong(std::span<const std::uint8_t> bytes, PongMessage& out);
WireError decode_truth(std::span<const std::uint8_t> bytes, TruthMessage& out);
WireError decode_roster(std::span<const std::uint8_t> bytes, std::vector<RosterEntry>& out);
WireError decode_error(std::span<const std::uint8_t> bytes, std::string& reason);
WireError decode_seat_table(std::span<const std::uint8_t> bytes, SeatTableMessage& out);
WireError decode_class_info(std::span<const std::uint8_t> bytes, ClassInfoMessage& out);
WireError decode_link(std::span<const std::uint8_t> bytes, std::string& hash);
WireError decode_rtc_signal_out(std::span<const std::uint8_t> bytes, RtcSignalMessage& out);
// The token's bytes, unread (decode_udp_token validates them).
WireError decode_udp_grant(std::span<const std::uint8_t> bytes, std::vector<std::uint8_t>& token);
WireError decode_transport_state(std::span<const std::uint8_t> bytes, TransportStateMessage& out);

// A display name made safe: letters of any language kept as UTF-8 ("José Müller", "Zoë 李");
// control, format and invisible characters and malformed bytes dropped; '<' '>' '&' '"' become
// '?'; runs of spaces one space, trimmed; at most kMaxNameBytes, cut between characters; empty
// becomes "player".
std::string sanitize_name(std::string_view name);
// True when `text` is well-formed UTF-8 (no overlong forms, surrogates or code points past
// U+10FFFF). Every string on the wire must be (a hello whose name is not is refused).
bool valid_utf8(std::string_view text);

}  // namespace vantage::play
