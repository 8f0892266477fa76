// The room's protocol number guards its bytes: every message a room sends or reads, the lanes'
// frames included (the horde's frame, the black hole's FieldPacket and JoinState, the delta
// stream's Ack), is encoded from fixed values, and the digest of all those bytes is pinned per
// protocol number in golden_room_protocol.txt. A wire change without a bump of kRoomProtocol
// fails here; a bump asks for its own line (the old lines are never edited).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "blackhole/field_packet.hpp"
#include "common/room_wire.hpp"
#include "horde/horde_wire.hpp"
#include "vantage/delta_wire.hpp"
#include "vantage/slot_key.hpp"

namespace vantage::play {
namespace {

using Golden = std::pair<std::string, std::vector<std::uint8_t>>;

template <class Encode>
Golden golden(std::string name, Encode&& encode) {
    ByteWriter w;
    encode(w);
    EXPECT_TRUE(w.ok()) << name;
    return {std::move(name), {w.bytes().begin(), w.bytes().end()}};
}

std::vector<Golden> every_message() {
    std::vector<Golden> g;
    // client -> server
    g.push_back(golden("hello", [](ByteWriter& w) {
        encode_hello(w, {.protocol = kRoomProtocol, .build = "0123456789ab", .playground = "horde", .name = "Ann"});
    }));
    g.push_back(golden("teacher_hello", [](ByteWriter& w) {
        encode_teacher_hello(w, {.protocol = kRoomProtocol, .build = "", .token = "sesame"});
    }));
    g.push_back(golden("follow_hello", [](ByteWriter& w) { encode_follow_hello(w, kRoomProtocol, ""); }));
    g.push_back(golden("input", [](ByteWriter& w) {
        encode_input(w, {.seq = 300, .autopilot = false, .direction = {1.0f, -0.5f}});
    }));
    g.push_back(golden("ping", [](ByteWriter& w) { encode_ping(w, 1000); }));
    g.push_back(golden("truth_query", [](ByteWriter& w) {
        encode_truth_query(w, {.id = 7, .keys = {SlotKey{3, 1}.encode(), SlotKey{70, 400}.encode()}});
    }));
    g.push_back(golden("report", [](ByteWriter& w) {
        encode_report(w, {.rtt_ms = 104.2,
                          .down_kib_s = -1,
                          .frames_lost = 2,
                          .phantoms = 0,
                          .err_mean_px = 1.5,
                          .transport = SeatTransport::Udp,
                          .frame_age_p50_ms = 70.5,
                          .frame_age_p99_ms = 130,
                          .stalls = 3});
    }));
    g.push_back(golden("udp_request", [](ByteWriter& w) { encode_udp_request(w); }));
    g.push_back(golden("command_transport", [](ByteWriter& w) {
        encode_command(w,
                       {.kind = CommandMessage::Kind::Transport, .seat = 2, .transport = SeatTransport::DataChannel});
    }));
    g.push_back(golden("command_impair", [](ByteWriter& w) {
        encode_command(
            w, {.kind = CommandMessage::Kind::Impair, .seat = 2, .loss_pct = 5, .latency_ms = 120, .jitter_ms = 15.5});
    }));
    g.push_back(golden("command_strategy", [](ByteWriter& w) {
        encode_command(w,
                       {.kind = CommandMessage::Kind::Strategy, .recovery = false, .theta = 0.5, .view_radius = 420});
    }));
    g.push_back(golden("command_preset", [](ByteWriter& w) {
        encode_command(w, {.kind = CommandMessage::Kind::Preset, .text = "lossy"});
    }));
    g.push_back(golden("command_kick",
                       [](ByteWriter& w) { encode_command(w, {.kind = CommandMessage::Kind::Kick, .seat = 3}); }));
    g.push_back(golden("command_link", [](ByteWriter& w) {
        encode_command(w, {.kind = CommandMessage::Kind::Link, .text = "#horde/watch"});
    }));
    g.push_back(golden("ack", [](ByteWriter& w) {
        encode_ack(w, {.newest = 70, .mask = ~std::uint64_t{1}, .digest = 0x1122334455667788ULL});
    }));
    // server -> client
    g.push_back(golden("welcome", [](ByteWriter& w) {
        encode_welcome(w, {.protocol = kRoomProtocol,
                           .build = "0123456789ab",
                           .playground = "horde",
                           .seat = 1,
                           .seats = 16,
                           .tick_hz = 60,
                           .settings = "enemies=3000"});
    }));
    g.push_back(golden("refuse", [](ByteWriter& w) { encode_refuse(w, "the room is full (16 seats)"); }));
    g.push_back(golden("pong", [](ByteWriter& w) { encode_pong(w, {.client_ms = 1000, .server_ms = 4000}); }));
    g.push_back(golden("truth", [](ByteWriter& w) {
        const std::uint8_t alive[] = {1, 0, 1};
        const Vec2 positions[] = {{1.0f, 2.0f}, {-3.5f, 100.0f}};
        encode_truth(w, 7, 4000, alive, positions);
    }));
    g.push_back(golden("roster", [](ByteWriter& w) {
        const RosterEntry entries[] = {{0, "Ann"}, {3, "Bob"}};
        encode_roster(w, entries);
    }));
    g.push_back(golden("error", [](ByteWriter& w) { encode_error(w, "only the teacher can change room settings"); }));
    g.push_back(golden("seat_table", [](ByteWriter& w) {
        SeatTableMessage t{
            .server_ms = 4000, .recovery = true, .theta = 0.5, .view_radius = 420, .preset = "lossy", .rows = {}};
        t.rows.push_back(
            {.seat = 0,
             .name = "Ann",
             .meters = {.rtt_ms = 50, .down_kib_s = 12.5, .frames_lost = 1, .phantoms = 2, .err_mean_px = 3},
             .loss_pct = 5,
             .latency_ms = 100,
             .jitter_ms = 10,
             .transport = SeatTransport::Udp,
             .socket_loss_pct = 19.5});
        encode_seat_table(w, t);
    }));
    g.push_back(golden("class_info", [](ByteWriter& w) {
        encode_class_info(w, {.urls = {"http://192.0.2.9:8000/#horde/join"}, .qr = {"101", "010", "111"}});
    }));
    g.push_back(golden("link", [](ByteWriter& w) { encode_link(w, "#horde/watch"); }));
    g.push_back(golden("udp_grant", [](ByteWriter& w) {
        std::vector<std::uint8_t> token(kUdpGrantTokenBytes);
        for (std::size_t i = 0; i < token.size(); ++i) token[i] = static_cast<std::uint8_t>(i * 7);
        encode_udp_grant(w, token);
    }));
    g.push_back(golden("transport_state", [](ByteWriter& w) {
        encode_transport_state(w, {.transport = SeatTransport::WebSocket,
                                   .wanted = SeatTransport::Udp,
                                   .why = "udp could not connect: playing over the websocket"});
    }));
    // the lanes' frames
    g.push_back(golden("horde_frame", [](ByteWriter& w) {
        DeltaPlan plan;
        plan.seq = 3;
        plan.baseline_seq = 2;
        plan.digest = 0x0102030405060708ULL;
        plan.entered = {SlotKey{1, 0}.encode()};
        plan.left = {SlotKey{4, 1}.encode()};
        const Vec2 entered[] = {{1.5f, 2.0f}};
        const Vec2 players[] = {{10.0f, 20.0f}};
        const HordeCorrection corrections[] = {{2, 0, 0, 48, -64}, {9, 0, 4, 3, -1}};
        const CrowdBlob crowd[] = {{{100.0f, 200.0f}, 5}};
        ByteWriter scratch;
        encode_horde_packet(w, scratch, 1000, plan, entered, players, 0, CorrectionCoding::Predicted, corrections,
                            crowd);
    }));
    g.push_back(golden("field_frame", [](ByteWriter& w) {
        FieldPacket p;
        p.sequence = 300;
        p.server_time_ms = 1000;
        p.holes.push_back({5, {kArenaSize, 0.0f}, 105.25f});
        p.clusters.push_back({kArenaSize * 0.5f, kArenaSize, 2000.0f});
        p.corrections.push_back({7, {0.0f, kArenaSize}, {-1.0f, 2.5f}});
        encode_field_packet(p, w);
    }));
    g.push_back(golden("join_state", [](ByteWriter& w) {
        const Vec2 positions[] = {{0.0f, kArenaSize}, {kArenaSize * 0.5f, 0.0f}};
        const Vec2 velocities[] = {{-1.0f, 2.5f}, {0.0f, 0.25f}};
        encode_join_state(1000, positions, velocities, w);
    }));
    return g;
}

std::string hex(const std::vector<std::uint8_t>& bytes) {
    std::string s;
    char b[4];
    for (std::uint8_t v : bytes) {
        std::snprintf(b, sizeof b, "%02x ", v);
        s += b;
    }
    if (!s.empty()) s.pop_back();
    return s;
}

// FNV-1a 64 over every message's name and bytes, in order.
std::string digest(const std::vector<Golden>& all) {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    const auto mix = [&](std::uint8_t b) { h = (h ^ b) * 0x100000001b3ULL; };
    for (const auto& [name, bytes] : all) {
        for (char c : name) mix(static_cast<std::uint8_t>(c));
        mix(0);
        for (std::uint8_t b : bytes) mix(b);
        mix(0xff);
    }
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
    return text;
}

TEST(RoomProtocol, EveryMessagesBytesArePinnedToTheProtocolNumber) {
    const std::vector<Golden> all = every_message();
    EXPECT_EQ(all.size(), 29u);  // 25 room messages (6 commands), the Ack, the lanes' 3 frames
    const std::string actual = digest(all);
    std::ifstream file(std::string(VANTAGE_TESTS_DIR) + "/playgrounds/golden_room_protocol.txt");
    ASSERT_TRUE(file) << "golden_room_protocol.txt not found";
    std::string pinned;
    for (std::string line; std::getline(file, line);) {
        std::istringstream in(line);
        std::uint32_t protocol = 0;
        std::string value;
        if (line.empty() || line[0] == '#' || !(in >> protocol >> value)) continue;
        if (protocol == kRoomProtocol) pinned = value;
    }
    std::string listing;
    for (const auto& [name, bytes] : all) listing += "  " + name + ": " + hex(bytes) + "\n";
    ASSERT_FALSE(pinned.empty()) << "protocol " << kRoomProtocol << " has no line in golden_room_protocol.txt: add '"
                                 << kRoomProtocol << " " << actual << "'\n"
                                 << listing;
    EXPECT_EQ(actual, pinned) << "the room's wire changed but kRoomProtocol (room_wire.hpp) is still " << kRoomProtocol
                              << ": bump it, add the line '" << kRoomProtocol + 1 << " " << actual
                              << "' to golden_room_protocol.txt and update room_wire.md. The bytes now:\n"
                              << listing;
}

}  // namespace
}  // namespace vantage::play
