// A horde room with its UDP door (room/udp_room.hpp) over real sockets on 127.0.0.1: bots
// built from the page's client code ask for a connect token over their WebSocket, connect,
// and take their seat's frames and acknowledgements over UDP (room/udp_seat_link.hpp),
// beside bots that stay on the WebSocket; and every way UDP can fail to form leaves the seat
// playing over the WebSocket, saying why.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/room_wire.hpp"
#include "room/horde_room.hpp"
#include "room/process_stats.hpp"
#include "room/room_bot.hpp"
#include "room/room_client.hpp"
#include "room/udp_room.hpp"
#include "support/live_room.hpp"

namespace vantage::room {
namespace {

using namespace std::chrono_literals;
using live::drive;
using LiveRoom = live::LiveRoom<HordeRoom>;

HordeRoomOptions small_room(int seats) {
    HordeRoomOptions o;
    o.seats = seats;
    o.settings.enemies = 600;
    o.teacher_token = "sesame";
    return o;
}

// The room and its UDP door, opened on 127.0.0.1 (an ephemeral port) and handed to the room
// on its own thread.
struct UdpLiveRoom {
    explicit UdpLiveRoom(HordeRoomOptions o, UdpRoomOptions u = {}) : live(o) {
        if (u.bind.family == UdpFamily::None) u.bind = UdpAddress::v4(127, 0, 0, 1, 0);
        udp.emplace(live.room, u);
        EXPECT_EQ(udp->open(), "");
        live::on_server_thread(*live.server, [&] {
            live.room.set_udp_door(&*udp);
            return true;
        });
    }
    ~UdpLiveRoom() {
        live.stop();
        udp.reset();
    }
    UdpRoomStats stats() {
        return live::on_server_thread(*live.server, [&] { return udp->stats(); });
    }
    std::vector<SeatReport> seats() {
        return live::on_server_thread(*live.server, [&] { return live.room.seat_reports(); });
    }
    LiveRoom live;
    std::optional<UdpRoom> udp;
};

std::unique_ptr<HordeBot> udp_bot(const std::string& url, const char* name, double timeout_ms = 3000.0) {
    auto b = std::make_unique<HordeBot>(play::RoomRemoteOptions{.name = name},
                                        UdpSeatLinkOptions{.enabled = true, .connect_timeout_ms = timeout_ms});
    EXPECT_EQ(b->join(url, live::now_ms()), "");
    return b;
}

TEST(RoomUdp, UdpBotsAndWebSocketSeatsShareARoomAndAllConverge) {
    UdpLiveRoom room(small_room(6));
    std::vector<std::unique_ptr<HordeBot>> bots;
    for (const char* name : {"u1", "u2", "u3"}) bots.push_back(udp_bot(room.live.url, name));
    for (const char* name : {"w1", "w2"}) bots.push_back(live::join_bot<HordeBot>(room.live.url, name));
    ASSERT_TRUE(drive(
        bots,
        [&] {
            for (int i = 0; i < 3; ++i) {
                if (bots[i]->remote().datagram_frames() < 30) return false;
            }
            return bots[3]->remote().frames() >= 30 && bots[4]->remote().frames() >= 30;
        },
        10000ms));
    for (int i = 0; i < 5; ++i) {
        SCOPED_TRACE(i);
        const play::HordeRemote& r = bots[i]->remote();
        EXPECT_EQ(r.transport(), i < 3 ? SeatTransport::Udp : SeatTransport::WebSocket);
        EXPECT_EQ(r.datagram_frames() > 0, i < 3);
        EXPECT_TRUE(r.client().agreed());
        EXPECT_EQ(r.protocol_errors(), 0u);
    }
    const UdpRoomStats s = room.stats();
    EXPECT_EQ(s.connected, 3u);
    EXPECT_EQ(s.grants, 3u);
    EXPECT_EQ(s.refused, 0u);
    for (const SeatReport& r : room.seats()) {
        SCOPED_TRACE(r.name);
        EXPECT_EQ(r.transport, r.name[0] == 'u' ? SeatTransport::Udp : SeatTransport::WebSocket);
        if (r.name[0] == 'u') {
            EXPECT_GT(r.path_in_messages, 10u);  // acks and inputs came over UDP
        }
    }
}

TEST(RoomUdp, ARoomWithoutUdpKeepsTheSeatOnTheWebSocketAndSaysSo) {
    LiveRoom live(small_room(2));
    std::vector<std::unique_ptr<HordeBot>> bots;
    bots.push_back(udp_bot(live.url, "u"));
    ASSERT_TRUE(drive(
        bots, [&] { return bots[0]->udp().phase() == UdpSeatLink::Phase::Failed; }, 5000ms));
    EXPECT_EQ(bots[0]->remote().transport(), SeatTransport::WebSocket);
    EXPECT_EQ(bots[0]->remote().transport_why(), "this room has no UDP: playing over the websocket");
    ASSERT_TRUE(drive(
        bots, [&] { return bots[0]->remote().frames() > 10; }, 5000ms));
}

TEST(RoomUdp, AUdpPortNobodyAnswersFallsBackToTheWebSocketWithinTheTimeout) {
    // Tokens name a port the room does not listen on: the request goes nowhere.
    UdpRoomOptions u;
    u.public_address = UdpAddress::v4(127, 0, 0, 1, 9);  // discard
    UdpLiveRoom room(small_room(2), u);
    std::vector<std::unique_ptr<HordeBot>> bots;
    bots.push_back(udp_bot(room.live.url, "u", 800.0));
    ASSERT_TRUE(drive(
        bots, [&] { return bots[0]->udp().phase() == UdpSeatLink::Phase::Failed; }, 5000ms));
    EXPECT_EQ(bots[0]->remote().transport_why(), "udp could not connect within 1 s: playing over the websocket");
    EXPECT_EQ(bots[0]->remote().transport(), SeatTransport::WebSocket);
    ASSERT_TRUE(drive(
        bots, [&] { return bots[0]->remote().frames() > 10; }, 5000ms));
}

TEST(RoomUdp, AFullUdpDoorSaysSoAndTheSeatPlaysOverTheWebSocket) {
    UdpRoomOptions u;
    u.max_clients = 1;
    UdpLiveRoom room(small_room(3), u);
    std::vector<std::unique_ptr<HordeBot>> bots;
    bots.push_back(udp_bot(room.live.url, "u1"));
    ASSERT_TRUE(drive(
        bots, [&] { return bots[0]->remote().transport() == SeatTransport::Udp; }, 5000ms));
    bots.push_back(udp_bot(room.live.url, "u2"));
    ASSERT_TRUE(drive(
        bots, [&] { return bots[1]->udp().phase() == UdpSeatLink::Phase::Failed; }, 5000ms));
    EXPECT_EQ(bots[1]->remote().transport_why(), "the room's UDP is full (1 connections): playing over the websocket");
}

TEST(RoomUdp, TheTeacherMovesASeatToTheWebSocketAndBack) {
    UdpLiveRoom room(small_room(2));
    std::vector<std::unique_ptr<HordeBot>> bots;
    bots.push_back(udp_bot(room.live.url, "u"));
    ASSERT_TRUE(drive(
        bots, [&] { return bots[0]->remote().transport() == SeatTransport::Udp; }, 5000ms));
    RoomClient teacher;
    ASSERT_EQ(teacher.connect(room.live.url), "");
    auto command = [&](SeatTransport t) {
        ByteWriter w;
        play::encode_teacher_hello(w, {.build = "", .token = "sesame"});
        if (t == SeatTransport::WebSocket) teacher.send(w.bytes());
        w.clear();
        play::encode_command(w, {.kind = play::CommandMessage::Kind::Transport, .seat = 0, .transport = t});
        teacher.send(w.bytes());
        teacher.poll();
    };
    command(SeatTransport::WebSocket);
    ASSERT_TRUE(drive(
        bots, [&] { return bots[0]->remote().transport() == SeatTransport::WebSocket; }, 5000ms));
    EXPECT_EQ(bots[0]->remote().transport_why(), "the teacher moved this seat to the websocket");
    ASSERT_TRUE(drive(
        bots, [&] { return room.stats().connected == 0; }, 3000ms));
    const std::uint64_t over_udp = bots[0]->remote().datagram_frames();
    ASSERT_TRUE(drive(
        bots, [&] { return bots[0]->remote().frames() - bots[0]->remote().datagram_frames() > 40; }, 5000ms));
    EXPECT_EQ(bots[0]->remote().datagram_frames(), over_udp);
    command(SeatTransport::Udp);
    ASSERT_TRUE(drive(
        bots, [&] { return bots[0]->remote().transport() == SeatTransport::Udp; }, 5000ms));
    EXPECT_EQ(bots[0]->remote().transport_why(), "frames over udp: the teacher moved this seat to it");
    EXPECT_EQ(room.stats().grants, 2u);
}

TEST(RoomUdp, ALeavingSeatFreesItsUdpConnection) {
    UdpLiveRoom room(small_room(2));
    std::vector<std::unique_ptr<HordeBot>> bots;
    bots.push_back(udp_bot(room.live.url, "u"));
    ASSERT_TRUE(drive(
        bots, [&] { return bots[0]->remote().transport() == SeatTransport::Udp; }, 5000ms));
    EXPECT_EQ(room.stats().connected, 1u);
    bots[0]->leave();
    bots.clear();
    std::vector<std::unique_ptr<HordeBot>> none;
    // The slot ends at once; its Disconnected event is handled at the next tick.
    ASSERT_TRUE(drive(
        none,
        [&] {
            const UdpRoomStats s = room.stats();
            return s.connected == 0 && s.disconnects >= 1;
        },
        3000ms));
}

TEST(RoomUdp, TwentyUdpSeatsJoiningAndLeavingLeaveNoConnectionOrThreadBehind) {
    UdpLiveRoom room(small_room(2));
    const int threads = process_threads();
    for (int cycle = 0; cycle < 20; ++cycle) {
        SCOPED_TRACE(cycle);
        std::vector<std::unique_ptr<HordeBot>> bots;
        bots.push_back(udp_bot(room.live.url, "u"));
        ASSERT_TRUE(drive(
            bots, [&] { return bots[0]->remote().transport() == SeatTransport::Udp; }, 5000ms));
        bots[0]->leave();
    }
    std::vector<std::unique_ptr<HordeBot>> none;
    ASSERT_TRUE(drive(
        none,
        [&] {
            const UdpRoomStats s = room.stats();
            return s.connected == 0 && s.disconnects == 20;
        },
        3000ms));
    EXPECT_EQ(room.stats().connects, 20u);
    EXPECT_TRUE(room.seats().empty());
    EXPECT_EQ(process_threads(), threads) << "UDP runs on the room's thread: no thread per peer";
}

}  // namespace
}  // namespace vantage::room
