// The room protocol (playgrounds/common/room_wire.hpp, layout in room_wire.md): round trips,
// golden bytes, every refusal the decoders promise, and a seeded fuzz corpus over both
// directions. Runs natively, under ASan and in wasm.
#include <gtest/gtest.h>

#include <array>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "blackhole/field_packet.hpp"
#include "common/room_wire.hpp"
#include "support/fuzz_corpus.hpp"
#include "support/room_fuzz.hpp"
#include "vantage/slot_key.hpp"

namespace vantage::play {
namespace {

Bytes bytes_of(const ByteWriter& w) {
    return Bytes(w.bytes().begin(), w.bytes().end());
}

TEST(RoomWire, HelloRoundTripsAndHasGoldenBytes) {
    ByteWriter w;
    encode_hello(w, {.protocol = 1, .build = "ab", .playground = "horde", .name = "Ann"});
    const Bytes golden = {0x4a, 0x01, 0x02, 'a', 'b', 0x05, 'h', 'o', 'r', 'd', 'e', 0x03, 'A', 'n', 'n'};
    EXPECT_EQ(bytes_of(w), golden);
    ClientMessage m;
    ASSERT_EQ(decode_client_message(golden, m), WireError::Ok);
    EXPECT_EQ(m.type, RoomMessage::Hello);
    EXPECT_EQ(m.hello.build, "ab");
    EXPECT_EQ(m.hello.playground, "horde");
    EXPECT_EQ(m.hello.name, "Ann");
}

TEST(RoomWire, InputQuantizesDirectionsTo127thsAndRefusesTheUnwritableFloor) {
    ByteWriter w;
    encode_input(w, {.seq = 300, .autopilot = false, .direction = {1.0f, -0.5f}});
    const Bytes golden = {0x49, 0xac, 0x02, 0x00, 0x7f, static_cast<std::uint8_t>(-64)};
    EXPECT_EQ(bytes_of(w), golden);
    ClientMessage m;
    ASSERT_EQ(decode_client_message(golden, m), WireError::Ok);
    EXPECT_EQ(m.input.seq, 300u);
    EXPECT_FLOAT_EQ(m.input.direction.x, 1.0f);
    EXPECT_NEAR(m.input.direction.y, -0.5f, 1.0f / 127.0f);
    Bytes floor = golden;
    floor[4] = 0x80;  // -128
    EXPECT_EQ(decode_client_message(floor, m), WireError::OutOfRange);
    Bytes mode = golden;
    mode[3] = 2;
    EXPECT_EQ(decode_client_message(mode, m), WireError::OutOfRange);
}

TEST(RoomWire, NonFiniteInputDirectionsTravelAsZero) {
    ByteWriter w;
    encode_input(w, {.seq = 1, .autopilot = false, .direction = {std::numeric_limits<float>::quiet_NaN(), 5.0f}});
    ClientMessage m;
    ASSERT_EQ(decode_client_message(w.bytes(), m), WireError::Ok);
    EXPECT_EQ(m.input.direction.x, 0.0f);
    EXPECT_EQ(m.input.direction.y, 1.0f);  // clamped
}

TEST(RoomWire, TruthQueryKeysRoundTripAsIndexGapsAndGenerations) {
    TruthQueryMessage q{.id = 7, .keys = {SlotKey{3, 1}.encode(), SlotKey{4, 70}.encode(), SlotKey{400, 0}.encode()}};
    ByteWriter w;
    encode_truth_query(w, q);
    const Bytes golden = {0x51, 0x07, 0x03, 0x03, 0x01, 0x01, 0x46, 0x8c, 0x03, 0x00};
    EXPECT_EQ(bytes_of(w), golden);
    ClientMessage m;
    ASSERT_EQ(decode_client_message(golden, m), WireError::Ok);
    EXPECT_EQ(m.truth_query.keys, q.keys);
    Bytes repeated = golden;
    repeated[5] = 0x00;  // a zero gap after the first: the same slot twice
    EXPECT_EQ(decode_client_message(repeated, m), WireError::NotAscending);
}

TEST(RoomWire, AClaimedCountBeyondTheBytesIsRefusedBeforeAllocating) {
    const Bytes claim = {0x51, 0x01, 0xff, 0x3f};  // 8191 keys in zero bytes
    ClientMessage m;
    EXPECT_EQ(decode_client_message(claim, m), WireError::TooMany);
    const Bytes over = {0x51, 0x01, 0x81, 0x40};  // 8193 keys: over the limit
    EXPECT_EQ(decode_client_message(over, m), WireError::TooMany);
}

TEST(RoomWire, NamesMustBePrintableAndShort) {
    ByteWriter w;
    encode_hello(w, {.build = "b", .playground = "horde", .name = "ok"});
    Bytes control = bytes_of(w);
    control.back() = 0x07;  // BEL
    ClientMessage m;
    EXPECT_EQ(decode_client_message(control, m), WireError::Malformed);
    Bytes long_name = {0x4a, 0x01, 0x00, 0x00, 25};
    long_name.resize(long_name.size() + 25, 'x');
    EXPECT_EQ(decode_client_message(long_name, m), WireError::TooMany);
}

TEST(RoomWire, ServerOnlyTypesAndTrailingBytesAreRefused) {
    ClientMessage m;
    EXPECT_EQ(decode_client_message(Bytes{0x57, 0x01}, m), WireError::UnknownType);
    EXPECT_EQ(decode_client_message(Bytes{}, m), WireError::Truncated);
    EXPECT_EQ(decode_client_message(Bytes{0x50, 0x05, 0x00}, m), WireError::TrailingBytes);
}

TEST(RoomWire, WelcomeRoundTripsAndRefusesASeatOutsideTheRoom) {
    const WelcomeMessage w0{
        .build = "b", .playground = "horde", .seat = 2, .seats = 4, .tick_hz = 60, .settings = "enemies=3000"};
    ByteWriter w;
    encode_welcome(w, w0);
    WelcomeMessage out;
    ASSERT_EQ(decode_welcome(w.bytes(), out), WireError::Ok);
    EXPECT_EQ(out.seat, 2u);
    EXPECT_EQ(out.seats, 4u);
    EXPECT_EQ(out.settings, "enemies=3000");
    ByteWriter bad;
    encode_welcome(bad, {.build = "b", .playground = "horde", .seat = 4, .seats = 4, .tick_hz = 60, .settings = ""});
    EXPECT_EQ(decode_welcome(bad.bytes(), out), WireError::Malformed);
}

TEST(RoomWire, TruthCarriesABitmapAndOnePositionPerAliveKey) {
    const std::vector<std::uint8_t> alive = {1, 0, 0, 1, 0, 0, 0, 0, 1};
    const std::vector<Vec2> positions = {{1.0f, 2.0f}, {3.5f, 4.0f}, {100.0f, 0.0f}};
    ByteWriter w;
    encode_truth(w, 9, 12345, alive, positions);
    TruthMessage t;
    ASSERT_EQ(decode_truth(w.bytes(), t), WireError::Ok);
    EXPECT_EQ(t.id, 9u);
    EXPECT_EQ(t.server_ms, 12345u);
    ASSERT_EQ(t.alive.size(), 9u);
    EXPECT_TRUE(t.alive[0] && t.alive[3] && t.alive[8] && !t.alive[1]);
    ASSERT_EQ(t.positions.size(), 3u);
    EXPECT_FLOAT_EQ(t.positions[1].x, 3.5f);
    Bytes padded = bytes_of(w);
    // Set a padding bit in the second bitmap byte (bit 1 is past the ninth key).
    const std::size_t bitmap = 1 + 1 + 2 + 1;  // type, id, server_ms (2 bytes), count
    padded[bitmap + 1] |= 0x02;
    EXPECT_EQ(decode_truth(padded, t), WireError::Malformed);
}

TEST(RoomWire, RosterAndRefuseRoundTrip) {
    const std::vector<RosterEntry> entries = {{0, "ann"}, {3, "bob"}};
    ByteWriter w;
    encode_roster(w, entries);
    std::vector<RosterEntry> out;
    ASSERT_EQ(decode_roster(w.bytes(), out), WireError::Ok);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[1].seat, 3u);
    EXPECT_EQ(out[1].name, "bob");
    ByteWriter r;
    encode_refuse(r, "room is full (4 seats)");
    std::string reason;
    ASSERT_EQ(decode_refuse(r.bytes(), reason), WireError::Ok);
    EXPECT_EQ(reason, "room is full (4 seats)");
}

TEST(RoomWire, CommandsRoundTripAndRefuseValuesOutsideTheirRanges) {
    CommandMessage impair;
    impair.kind = CommandMessage::Kind::Impair;
    impair.seat = 3;
    impair.loss_pct = 12.5;
    impair.latency_ms = 80;
    impair.jitter_ms = 10;
    ByteWriter w;
    encode_command(w, impair);
    ClientMessage m;
    ASSERT_EQ(decode_client_message(w.bytes(), m), WireError::Ok);
    EXPECT_EQ(m.command.seat, 3u);
    EXPECT_DOUBLE_EQ(m.command.loss_pct, 12.5);
    EXPECT_DOUBLE_EQ(m.command.latency_ms, 80);
    Bytes bad = bytes_of(w);
    bad[3] = 0xa1;  // with the next byte: loss 41.29%, over 40
    bad.insert(bad.begin() + 4, 0x20);
    EXPECT_EQ(decode_client_message(bad, m), WireError::OutOfRange);
    CommandMessage everyone = impair;
    everyone.seat = kAllSeats;
    ByteWriter all;
    encode_command(all, everyone);
    ASSERT_EQ(decode_client_message(all.bytes(), m), WireError::Ok);
    EXPECT_EQ(m.command.seat, kAllSeats);
    const Bytes unknown_kind = {0x58, 0x09};
    EXPECT_EQ(decode_client_message(unknown_kind, m), WireError::OutOfRange);
}

TEST(RoomWire, RtcSignalCarriesSdpLinesAndRefusesTheWrongDirectionsKinds) {
    const RtcSignalMessage offer{.kind = RtcSignalKind::Offer, .text = "v=0\r\ns=-\r\n"};
    ByteWriter w;
    encode_rtc_signal(w, offer);
    EXPECT_EQ(bytes_of(w), (Bytes{0x72, 0x01, 0x0a, 'v', '=', '0', '\r', '\n', 's', '=', '-', '\r', '\n'}));
    ClientMessage m;
    ASSERT_EQ(decode_client_message(bytes_of(w), m), WireError::Ok);
    EXPECT_EQ(m.type, RoomMessage::RtcSignal);
    EXPECT_EQ(m.rtc.kind, RtcSignalKind::Offer);
    EXPECT_EQ(m.rtc.text, offer.text);
    // A page does not answer; kind 0 and 5 do not exist; a tab or NUL is not signalling text.
    for (int kind : {0, 2, 5})
        EXPECT_EQ(decode_client_message(Bytes{0x72, static_cast<std::uint8_t>(kind), 0x00}, m), WireError::OutOfRange);
    EXPECT_EQ(decode_client_message(Bytes{0x72, 0x03, 0x01, '\t'}, m), WireError::Malformed);
    EXPECT_EQ(decode_client_message(Bytes{0x72, 0x03, 0x01, 0x00}, m), WireError::Malformed);
    // Longer than kMaxRtcSignalBytes is refused from the count.
    ByteWriter big;
    big.write_u8(0x72);
    big.write_u8(0x01);
    big.write_varint(kMaxRtcSignalBytes + 1);
    EXPECT_NE(decode_client_message(bytes_of(big), m), WireError::Ok);
    // The room's direction: answers, candidates, byes; never an offer.
    ByteWriter out;
    encode_rtc_signal_out(out, {.kind = RtcSignalKind::Bye, .text = "the room holds 64 DataChannel peers"});
    RtcSignalMessage back;
    ASSERT_EQ(decode_rtc_signal_out(bytes_of(out), back), WireError::Ok);
    EXPECT_EQ(back.kind, RtcSignalKind::Bye);
    EXPECT_EQ(back.text, "the room holds 64 DataChannel peers");
    EXPECT_EQ(decode_rtc_signal_out(Bytes{0x73, 0x01, 0x00}, back), WireError::OutOfRange);
}

TEST(RoomWire, SeatTableAndClassInfoRoundTrip) {
    SeatTableMessage t{.server_ms = 1234,
                       .recovery = false,
                       .websocket_retransmits = true,
                       .theta = 1.5,
                       .view_radius = 420,
                       .preset = "clean-link",
                       .rows = {}};
    t.rows.push_back(
        {.seat = 2,
         .name = "bob",
         .meters = {.rtt_ms = 81.5, .down_kib_s = 9.75, .frames_lost = 3, .phantoms = -1, .err_mean_px = 1.25},
         .loss_pct = 30,
         .latency_ms = 30,
         .jitter_ms = 0});
    ByteWriter w;
    encode_seat_table(w, t);
    SeatTableMessage out;
    ASSERT_EQ(decode_seat_table(w.bytes(), out), WireError::Ok);
    ASSERT_EQ(out.rows.size(), 1u);
    EXPECT_EQ(out.rows[0].name, "bob");
    EXPECT_DOUBLE_EQ(out.rows[0].meters.rtt_ms, 81.5);
    EXPECT_LT(out.rows[0].meters.phantoms, 0.0);  // absent stays absent
    EXPECT_FALSE(out.recovery);
    EXPECT_TRUE(out.websocket_retransmits);
    EXPECT_EQ(out.preset, "clean-link");
    // The flags byte holds two bits: anything above them is refused.
    std::vector<std::uint8_t> bad(w.bytes().begin(), w.bytes().end());
    ASSERT_EQ(bad[3], 2u);  // type, varint 1234 (two bytes), flags
    bad[3] = 4;
    EXPECT_EQ(decode_seat_table(bad, out), WireError::OutOfRange);
    ClassInfoMessage info{.urls = {"http://192.0.2.2:8000/#horde/join"}, .qr = {"101", "010", "111"}};
    ByteWriter c;
    encode_class_info(c, info);
    ClassInfoMessage back;
    ASSERT_EQ(decode_class_info(c.bytes(), back), WireError::Ok);
    EXPECT_EQ(back.qr, info.qr);
    info.qr = {"10", "01", "11"};  // not square
    ByteWriter n;
    encode_class_info(n, info);
    EXPECT_EQ(decode_class_info(n.bytes(), back), WireError::Malformed);
}

TEST(RoomWire, SanitizedNamesArePrintableShortAndNeverEmpty) {
    EXPECT_EQ(sanitize_name("  Ann   Lee \n"), "Ann Lee");
    EXPECT_EQ(sanitize_name("<script>"), "?script?");
    EXPECT_EQ(sanitize_name("\x01\x02"), "player");
    EXPECT_EQ(sanitize_name(std::string(100, 'x')).size(), kMaxNameBytes);
    EXPECT_EQ(sanitize_name("caf\xc3\xa9"), "caf\xc3\xa9");  // UTF-8 letters stay (display_name_test.cpp)
}

Bytes valid_client_message(XorShift& rng) {
    ByteWriter w;
    switch (rng.below(8)) {
        case 7: {
            static const char* kTexts[] = {
                "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n",
                "candidate:1 1 UDP 2122260223 127.0.0.1 50000 typ host", "", "no udp"};
            const auto kind = static_cast<RtcSignalKind>(std::array{1, 3, 4}[static_cast<std::size_t>(rng.below(3))]);
            encode_rtc_signal(w, {.kind = kind, .text = kTexts[rng.below(4)]});
            break;
        }
        case 0:
            encode_hello(w, {.build = "abc", .playground = "horde", .name = "n" + std::to_string(rng.below(1000))});
            break;
        case 4:
            encode_report(w, {.rtt_ms = rng.range(0, 500),
                              .down_kib_s = rng.range(0, 50),
                              .frames_lost = rng.below(100),
                              .phantoms = rng.chance(0.5f) ? -1.0 : rng.range(0, 20),
                              .err_mean_px = rng.range(0, 9),
                              .transport = static_cast<SeatTransport>(rng.below(3)),
                              .frame_age_p50_ms = rng.range(0, 200),
                              .frame_age_p99_ms = rng.chance(0.3f) ? -1.0 : rng.range(0, 900),
                              .stalls = rng.below(50)});
            break;
        case 5:
            encode_teacher_hello(w, {.build = "abc", .token = "0123abcd"});
            break;
        case 6: {
            CommandMessage c;
            c.kind = static_cast<CommandMessage::Kind>(1 + rng.below(6));
            c.transport = static_cast<SeatTransport>(rng.below(3));
            c.seat = static_cast<std::uint32_t>(rng.below(8));
            c.loss_pct = rng.range(0, 40);
            c.latency_ms = rng.range(0, 400);
            c.theta = rng.range(0, 2);
            c.view_radius = rng.range(100, 1500);
            c.text = "clean-link";
            encode_command(w, c);
            break;
        }
        case 1:
            encode_input(w, {.seq = static_cast<std::uint32_t>(rng.below(100000)),
                             .autopilot = rng.chance(0.3f),
                             .direction = {rng.range(-1, 1), rng.range(-1, 1)}});
            break;
        case 2:
            encode_ping(w, rng.below(1u << 30));
            break;
        default: {
            TruthQueryMessage q{.id = static_cast<std::uint32_t>(rng.below(100)), .keys = {}};
            std::uint32_t index = static_cast<std::uint32_t>(rng.below(40));
            for (std::uint64_t i = 0, n = rng.below(20); i < n; ++i) {
                q.keys.push_back(SlotKey{index, static_cast<std::uint16_t>(rng.below(500))}.encode());
                index += 1 + static_cast<std::uint32_t>(rng.below(300));
            }
            encode_truth_query(w, q);
        }
    }
    return bytes_of(w);
}

TEST(RoomWire, ClientMessageDecoderSurvivesARandomAndMutatedCorpus) {
    static constexpr std::uint8_t kTypes[] = {0x4a, 0x49, 0x50, 0x51, 0x41, 0x4d, 0x43, 0x46, 0x58, 0x74, 0x72};
    int accepted = 0, refused = 0;
    for (std::uint64_t seed = 1; seed <= 3000; ++seed) {
        XorShift rng(mix64(seed));
        Bytes input = rng.chance(0.2f) ? noise(rng, kTypes[rng.below(11)]) : valid_client_message(rng);
        if (rng.chance(0.8f)) mutate(input, rng);
        SCOPED_TRACE(seed);
        (fuzz::fuzz_client_message(input) ? accepted : refused) += 1;
    }
    EXPECT_GT(accepted, 300);
    EXPECT_GT(refused, 1000);
}

TEST(RoomWire, TransportStateCarriesTheRoomsRetransmitSettingAndRefusesAnyOtherValue) {
    ByteWriter w;
    encode_transport_state(w, {.transport = SeatTransport::WebSocket,
                               .wanted = SeatTransport::DataChannel,
                               .websocket_retransmits = true,
                               .why = "frames over websocket"});
    TransportStateMessage m;
    ASSERT_EQ(decode_transport_state(w.bytes(), m), WireError::Ok);
    EXPECT_TRUE(m.websocket_retransmits);
    EXPECT_EQ(m.wanted, SeatTransport::DataChannel);
    EXPECT_EQ(m.why, "frames over websocket");
    std::vector<std::uint8_t> bad(w.bytes().begin(), w.bytes().end());
    bad[3] = 2;  // type, transport, wanted, then the setting: 0 or 1
    TransportStateMessage refused;
    EXPECT_EQ(decode_transport_state(bad, refused), WireError::OutOfRange);
}

TEST(RoomWire, ServerMessageDecodersSurviveARandomAndMutatedCorpus) {
    int accepted = 0;
    for (std::uint64_t seed = 1; seed <= 2000; ++seed) {
        XorShift rng(mix64(seed));
        ByteWriter w;
        switch (rng.below(12)) {
            case 9:
                encode_transport_state(
                    w, {.transport = SeatTransport::Udp, .wanted = SeatTransport::Udp, .why = "frames over udp"});
                break;
            case 10: {
                std::vector<std::uint8_t> token(kUdpGrantTokenBytes);
                for (auto& b : token) b = static_cast<std::uint8_t>(rng.below(256));
                encode_udp_grant(w, token);
                break;
            }
            case 11:
                encode_rtc_signal_out(w, {.kind = static_cast<RtcSignalKind>(2 + rng.below(3)),
                                          .text = "candidate:1 1 UDP 2122260223 127.0.0.1 50000 typ host\r\n"});
                break;
            case 7: {
                const std::vector<Vec2> p = {{rng.range(0, 3000), 5.0f}, {1.0f, 2.0f}, {2999.0f, 0.5f}};
                const std::vector<Vec2> v = {{-3.0f, 4.0f}, {0.0f, 0.0f}, {100.0f, -8000.0f}};
                encode_join_state(static_cast<std::uint32_t>(rng.below(100000)), p, v, w);
                break;
            }
            case 8: {
                FieldPacket f;
                f.sequence = static_cast<std::uint32_t>(rng.below(1000));
                f.holes.push_back({2, {100.0f, 200.0f}, 50.0f});
                f.clusters.push_back({1500.0f, 1500.0f, 400.0f});
                f.corrections.push_back({1, {10.0f, 20.0f}, {-1.0f, 2.0f}});
                encode_field_packet(f, w);
                break;
            }
            case 0:
                encode_welcome(
                    w, {.build = "b", .playground = "horde", .seat = 1, .seats = 8, .tick_hz = 60, .settings = "a=1"});
                break;
            case 4:
                encode_error(w, "only the teacher can change room settings");
                break;
            case 5:
                encode_link(w, "#netcode/seed=5&paused=1");
                break;
            case 6: {
                SeatTableMessage t{.server_ms = rng.below(100000),
                                   .recovery = true,
                                   .theta = 1.5,
                                   .view_radius = 420,
                                   .preset = "",
                                   .rows = {}};
                for (std::uint64_t i = 0, n = rng.below(4); i < n; ++i) {
                    t.rows.push_back({.seat = static_cast<std::uint32_t>(i),
                                      .name = "s",
                                      .meters = {},
                                      .loss_pct = 10,
                                      .latency_ms = 30,
                                      .jitter_ms = 5});
                }
                encode_seat_table(w, t);
                break;
            }
            case 1:
                encode_refuse(w, "room is full");
                break;
            case 2:
                encode_pong(w, {.client_ms = rng.below(1000), .server_ms = rng.below(100000)});
                break;
            default: {
                const std::vector<std::uint8_t> alive = {1, 0, 1};
                const std::vector<Vec2> positions = {{rng.range(0, 3000), 5.0f}, {1.0f, 2.0f}};
                encode_truth(w, 1, 2, alive, positions);
            }
        }
        Bytes input = bytes_of(w);
        if (rng.chance(0.8f)) mutate(input, rng);
        accepted += fuzz::fuzz_server_message(input) ? 1 : 0;
    }
    EXPECT_GT(accepted, 300);
}

// The wire document and the code agree: every golden example in room_wire.md decodes and
// re-encodes to its own bytes.
TEST(RoomWire, TheWireDocumentsGoldenExamplesMatchTheCode) {
    std::ifstream doc(std::string(VANTAGE_TESTS_DIR) + "/../playgrounds/common/room_wire.md");
    ASSERT_TRUE(doc) << "room_wire.md not found";
    std::string line;
    int checked = 0;
    bool in_examples = false;
    while (std::getline(doc, line)) {
        if (line.rfind("## Golden examples", 0) == 0) in_examples = true;
        if (!in_examples || line.rfind("    ", 0) != 0) continue;
        const std::size_t colon = line.find(':');
        ASSERT_NE(colon, std::string::npos) << line;
        const std::string name = line.substr(4, colon - 4);
        std::istringstream hex(line.substr(colon + 1));
        Bytes bytes;
        unsigned v = 0;
        while (hex >> std::hex >> v) bytes.push_back(static_cast<std::uint8_t>(v));
        SCOPED_TRACE(name);
        ByteWriter again;
        if (name == "refuse") {
            std::string reason;
            ASSERT_EQ(decode_refuse(bytes, reason), WireError::Ok);
            encode_refuse(again, reason);
        } else if (name == "pong") {
            PongMessage pong;
            ASSERT_EQ(decode_pong(bytes, pong), WireError::Ok);
            encode_pong(again, pong);
        } else {
            ClientMessage m;
            ASSERT_EQ(decode_client_message(bytes, m), WireError::Ok);
            ASSERT_TRUE(fuzz::fuzz_client_message(bytes));  // re-encodes to the same bytes
            ++checked;
            continue;
        }
        EXPECT_EQ(bytes_of(again), bytes);
        ++checked;
    }
    EXPECT_EQ(checked, 9);
}

}  // namespace
}  // namespace vantage::play
