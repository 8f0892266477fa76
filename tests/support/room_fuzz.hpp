// Fuzz bodies for the room protocol's decoders (playgrounds/common/room_wire.hpp): what a
// server decodes from any client (decode_client_message) and what a client decodes from a
// server. Shared by the seeded corpus test (tests/playgrounds/room_wire_test.cpp, native,
// ASan and wasm) and the libFuzzer target (tests/fuzz/room_message_fuzz.cpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

#include "blackhole/field_packet.hpp"
#include "common/room_wire.hpp"
#include "support/delta_fuzz.hpp"
#include "support/narration.hpp"

namespace vantage::fuzz {

// The wire's text: at most `max` bytes of well-formed UTF-8 without control characters.
inline bool printable(const std::string& s, std::size_t max) {
    return s.size() <= max && play::valid_utf8(s) && std::all_of(s.begin(), s.end(), [](char c) {
               const auto b = static_cast<unsigned char>(c);
               return b >= 0x20 && b != 0x7f;
           });
}

// Signalling text: printable ASCII, CR and LF (SDP's line ends).
inline bool rtc_text(const std::string& s) {
    return s.size() <= play::kMaxRtcSignalBytes &&
           std::all_of(s.begin(), s.end(), [](char c) { return (c >= 0x20 && c <= 0x7e) || c == '\r' || c == '\n'; });
}

// Returns true when the bytes were accepted. An accepted message re-encodes to the same bytes
// (every field has one encoding).
inline bool fuzz_client_message(std::span<const std::uint8_t> bytes) {
    using namespace vantage::play;
    ClientMessage m;
    if (decode_client_message(bytes, m) != WireError::Ok) return false;
    ByteWriter w;
    switch (m.type) {
        case RoomMessage::Hello:
            fuzz_check(printable(m.hello.build, kMaxBuildBytes) && printable(m.hello.playground, kMaxPlaygroundBytes) &&
                           printable(m.hello.name, kMaxNameBytes),
                       "a hello string is not printable or too long");
            encode_hello(w, m.hello);
            break;
        case RoomMessage::Ack:
            return true;  // its body is the server half's (fuzz_ack)
        case RoomMessage::Input:
            fuzz_check(std::abs(m.input.direction.x) <= 1.0f && std::abs(m.input.direction.y) <= 1.0f,
                       "an input direction outside [-1, 1]");
            encode_input(w, m.input);
            break;
        case RoomMessage::Ping:
            encode_ping(w, m.ping_ms);
            break;
        case RoomMessage::Report:
            encode_report(w, m.report);
            break;
        case RoomMessage::TeacherHello:
            fuzz_check(printable(m.teacher.token, kMaxTokenBytes), "a token not printable or too long");
            encode_teacher_hello(w, m.teacher);
            break;
        case RoomMessage::FollowHello:
            encode_follow_hello(w, m.follow.protocol, m.follow.build);
            break;
        case RoomMessage::Command:
            if (m.command.kind == CommandMessage::Kind::Impair) {
                fuzz_check(m.command.loss_pct >= 0 && m.command.loss_pct <= 40 && m.command.latency_ms <= 400 &&
                               m.command.jitter_ms <= 150,
                           "an impairment outside its range");
            }
            if (m.command.kind == CommandMessage::Kind::Transport) {
                fuzz_check(static_cast<std::uint8_t>(m.command.transport) <= kMaxSeatTransport,
                           "a transport outside its range");
            }
            if (m.command.kind == CommandMessage::Kind::Strategy) {
                fuzz_check(m.command.theta >= 0 && m.command.theta <= 2 && m.command.view_radius >= 100 &&
                               m.command.view_radius <= 1500,
                           "a strategy outside its range");
            }
            encode_command(w, m.command);
            break;
        case RoomMessage::UdpRequest:
            encode_udp_request(w);
            break;
        case RoomMessage::TruthQuery:
            fuzz_check(m.truth_query.keys.size() <= kMaxTruthKeys, "a truth query over the limit");
            fuzz_check(ascending_slot_keys(m.truth_query.keys), "truth query keys not ascending SlotKeys");
            encode_truth_query(w, m.truth_query);
            break;
        case RoomMessage::RtcSignal:
            fuzz_check(rtc_text(m.rtc.text) && m.rtc.kind != RtcSignalKind::Answer,
                       "a page's signalling out of bounds");
            encode_rtc_signal(w, m.rtc);
            break;
        default:
            fuzz_fail("decode_client_message accepted a server-only type");
    }
    fuzz_check(w.ok() && std::equal(w.bytes().begin(), w.bytes().end(), bytes.begin(), bytes.end()),
               "an accepted client message does not re-encode to its bytes");
    return true;
}

// Every decoder a client runs on what a server sends; true when any accepted.
inline bool fuzz_server_message(std::span<const std::uint8_t> bytes) {
    using namespace vantage::play;
    bool any = false;
    WelcomeMessage welcome;
    if (decode_welcome(bytes, welcome) == WireError::Ok) {
        fuzz_check(welcome.seat < welcome.seats && printable(welcome.settings, kMaxSettingsBytes),
                   "a bad welcome accepted");
        any = true;
    }
    std::string reason;
    if (decode_refuse(bytes, reason) == WireError::Ok) {
        fuzz_check(printable(reason, kMaxReasonBytes), "a refusal reason not printable");
        any = true;
    }
    PongMessage pong;
    any = decode_pong(bytes, pong) == WireError::Ok || any;
    TruthMessage truth;
    if (decode_truth(bytes, truth) == WireError::Ok) {
        const auto alive = static_cast<std::size_t>(std::count(truth.alive.begin(), truth.alive.end(), true));
        fuzz_check(alive == truth.positions.size() && truth.alive.size() <= kMaxTruthKeys, "truth counts disagree");
        any = true;
    }
    std::string text;
    if (decode_error(bytes, text) == WireError::Ok) {
        fuzz_check(printable(text, kMaxReasonBytes), "an error reason not printable");
        any = true;
    }
    if (decode_link(bytes, text) == WireError::Ok) {
        fuzz_check(printable(text, kMaxLinkBytes), "a link not printable");
        any = true;
    }
    TransportStateMessage state;
    if (decode_transport_state(bytes, state) == WireError::Ok) {
        fuzz_check(printable(state.why, kMaxReasonBytes) &&
                       static_cast<std::uint8_t>(state.transport) <= kMaxSeatTransport &&
                       static_cast<std::uint8_t>(state.wanted) <= kMaxSeatTransport,
                   "a transport state outside its limits");
        ByteWriter again;
        encode_transport_state(again, state);
        fuzz_check(std::equal(again.bytes().begin(), again.bytes().end(), bytes.begin(), bytes.end()),
                   "an accepted transport state does not re-encode to its bytes");
        any = true;
    }
    std::vector<std::uint8_t> grant;
    if (decode_udp_grant(bytes, grant) == WireError::Ok) {
        ByteWriter again;
        encode_udp_grant(again, grant);
        fuzz_check(std::equal(again.bytes().begin(), again.bytes().end(), bytes.begin(), bytes.end()),
                   "an accepted udp grant does not re-encode to its bytes");
        any = true;
    }
    SeatTableMessage table;
    if (decode_seat_table(bytes, table) == WireError::Ok) {
        fuzz_check(table.rows.size() <= kMaxRosterSeats && table.theta <= 2 && table.view_radius <= 1500,
                   "a seat table outside its limits");
        for (const SeatRow& row : table.rows) {
            fuzz_check(printable(row.name, kMaxNameBytes) && row.loss_pct <= 40, "a seat row outside its limits");
        }
        ByteWriter again;
        encode_seat_table(again, table);
        fuzz_check(std::equal(again.bytes().begin(), again.bytes().end(), bytes.begin(), bytes.end()),
                   "an accepted seat table does not re-encode to its bytes");
        any = true;
    }
    ClassInfoMessage info;
    if (decode_class_info(bytes, info) == WireError::Ok) {
        for (const std::string& row : info.qr) fuzz_check(row.size() == info.qr.size(), "a QR code that is not square");
        any = true;
    }
    RtcSignalMessage rtc;
    if (decode_rtc_signal_out(bytes, rtc) == WireError::Ok) {
        fuzz_check(rtc_text(rtc.text) && rtc.kind != RtcSignalKind::Offer, "the room's signalling out of bounds");
        ByteWriter again;
        encode_rtc_signal_out(again, rtc);
        fuzz_check(std::equal(again.bytes().begin(), again.bytes().end(), bytes.begin(), bytes.end()),
                   "an accepted signalling message does not re-encode to its bytes");
        any = true;
    }
    std::vector<RosterEntry> roster;
    if (decode_roster(bytes, roster) == WireError::Ok) {
        fuzz_check(roster.size() <= kMaxRosterSeats, "a roster over the limit");
        for (const RosterEntry& e : roster) fuzz_check(printable(e.name, kMaxNameBytes), "a roster name not printable");
        any = true;
    }
    // The black-hole room's own: the join state and the field packet re-encode exactly.
    JoinState join;
    if (decode_join_state(bytes, join) == WireError::Ok) {
        ByteWriter again;
        encode_join_state(join.server_time_ms, join.positions, join.velocities, again);
        fuzz_check(std::equal(again.bytes().begin(), again.bytes().end(), bytes.begin(), bytes.end()),
                   "an accepted join state does not re-encode to its bytes");
        any = true;
    }
    FieldPacket packet;
    if (decode_field_packet(bytes, kMaxPellets, packet) == WireError::Ok) {
        fuzz_check(packet.holes.size() <= kMaxHoles && packet.clusters.size() <= kMaxHoles, "a field over the limits");
        ByteWriter again;
        const PacketBytes sizes = encode_field_packet(packet, again);
        fuzz_check(sizes.ok && std::equal(again.bytes().begin(), again.bytes().end(), bytes.begin(), bytes.end()),
                   "an accepted field packet does not re-encode to its bytes");
        std::vector<WireField> fields;
        fuzz_check(decode_field_packet(bytes, kMaxPellets, packet, &fields) == WireError::Ok,
                   "narrating a field packet changed its decode");
        fuzz_check(narration_tiles(bytes, fields), "the field packet's narration does not tile it");
        any = true;
    } else {
        std::vector<WireField> fields;
        fuzz_check(decode_field_packet(bytes, kMaxPellets, packet, &fields) != WireError::Ok,
                   "narrating a field packet changed its decode");
    }
    return any;
}

}  // namespace vantage::fuzz
