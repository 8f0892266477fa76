// The lesson on a clean network: the room's simulated loss (per seat, above the socket) with
// websocket_retransmits on. A seat whose frames ride the WebSocket is treated as TCP would
// treat it: what the loss drops is resent a retransmission timeout later and holds every later
// frame (LossyLink's stream mode), so nothing is lost but the newest frame held ages. A seat on
// UDP in the same room, under the same loss, loses frames, the acked stream repairs them, and
// its newest frame stays young. Real sockets on 127.0.0.1, no namespace, a few seconds; the
// teacher turns the loss on with the room preset that teaches it.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

#include "common/class_client.hpp"
#include "common/preset.hpp"
#include "room/horde_room.hpp"
#include "room/room_bot.hpp"
#include "room/room_client.hpp"
#include "room/udp_room.hpp"
#include "support/live_room.hpp"

namespace vantage::room {
namespace {

using namespace std::chrono_literals;
using live::drive;

TEST(RoomRetransmit, TheSettingIsZeroOrOneAndTheWelcomeNamesItWhenOn) {
    HordeRoomOptions o;
    EXPECT_FALSE(o.websocket_retransmits);
    EXPECT_EQ(o.describe().find("websocket_retransmits"), std::string::npos);
    std::vector<std::string> errors = apply_room_settings(o, "websocket_retransmits=2");
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_NE(errors[0].find("'websocket_retransmits' is 0"), std::string::npos) << errors[0];
    EXPECT_FALSE(o.websocket_retransmits);
    errors = apply_room_settings(o, "loss=20&websocket_retransmits=1");
    EXPECT_TRUE(errors.empty());
    EXPECT_TRUE(o.websocket_retransmits);
    EXPECT_NE(o.describe().find("&websocket_retransmits=1"), std::string::npos);
}

struct Seen {
    std::uint64_t lost = 0, stalls = 0;  // counted by the bot since the loss began
    double age_p50_ms = 0, age_p99_ms = 0;
    double agreed = 0;  // fraction of the bot's updates whose mirror agreed with the server's set
};

// A teacher's console on its own socket (the room's Command messages).
struct Console {
    explicit Console(const std::string& url) : client(play::ClassClient::Role::Teacher, "sesame") {
        EXPECT_EQ(socket.connect(url), "");
        client.open(transport, live::now_ms());
    }
    void update() { client.update(transport, live::now_ms()); }
    void command(const play::CommandMessage& c) { client.command(transport, live::now_ms(), c); }
    RoomClient socket;
    ClientSocketTransport transport{socket};
    play::ClassClient client;
};

TEST(RoomRetransmit, UnderTheTwoTransportPresetTheWebSocketSeatLosesNothingAndAgesWhileTheUdpSeatStaysYoung) {
    HordeRoomOptions o;
    o.seats = 4;
    o.settings.enemies = 600;
    o.settings.send_hz = 60.0;  // a frame every tick: one frame interval is 17 ms
    o.settings.loss_pct = 0.0;  // clean until every seat is on its transport
    o.teacher_token = "sesame";
    const play::PresetFile presets = play::load_presets(VANTAGE_PRESETS_DIR, "horde-room");
    o.presets = presets.presets;
    live::LiveRoom<HordeRoom> live(o);
    UdpRoom udp(live.room, {.bind = UdpAddress::v4(127, 0, 0, 1, 0)});
    ASSERT_EQ(udp.open(), "");
    live::on_server_thread(*live.server, [&] {
        live.room.set_udp_door(&udp);
        return true;
    });
    std::vector<std::unique_ptr<HordeBot>> bots;  // 0, 1 on UDP; 2, 3 on the WebSocket
    for (int i = 0; i < 4; ++i) {
        bots.push_back(std::make_unique<HordeBot>(play::RoomRemoteOptions{.name = i < 2 ? "udp" : "ws"},
                                                  UdpSeatLinkOptions{.enabled = i < 2}));
        ASSERT_EQ(bots.back()->join(live.url, live::now_ms()), "");
    }
    Console teacher(live.url);
    auto on_udp = [&](int i) { return bots[i]->remote().transport() == SeatTransport::Udp; };
    ASSERT_TRUE(drive(
        bots,
        [&] {
            teacher.update();
            return on_udp(0) && on_udp(1) && bots[3]->remote().frames() > 30 && teacher.client.table().rows.size() == 4;
        },
        8000ms));
    EXPECT_FALSE(teacher.client.table().websocket_retransmits);
    std::uint64_t changes0[4];
    for (int i = 0; i < 4; ++i) {
        EXPECT_FALSE(bots[i]->remote().websocket_retransmits());
        changes0[i] = bots[i]->remote().transport_changes();
    }

    // One frame in five lost on every seat, resent on the WebSocket ones (20% loss, 30 ms each
    // way, 10 ms of jitter: a 200 ms timeout).
    play::CommandMessage run;
    run.kind = play::CommandMessage::Kind::Preset;
    run.text = "same-loss-two-transports";
    teacher.command(run);
    ASSERT_TRUE(drive(
        bots,
        [&] {
            teacher.update();
            return teacher.client.table().preset == run.text;
        },
        3000ms));
    EXPECT_TRUE(teacher.client.table().websocket_retransmits);
    // Every seat learns it from the room (its page says how its loss behaves), and none of them
    // takes that for a change of transport.
    ASSERT_TRUE(drive(
        bots,
        [&] {
            return std::all_of(bots.begin(), bots.end(),
                               [](const auto& b) { return b->remote().websocket_retransmits(); });
        },
        3000ms));
    for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(bots[i]->remote().transport_changes(), changes0[i]) << "seat " << i;
        EXPECT_EQ(on_udp(i), i < 2) << "seat " << i;
    }

    Seen seen[4];
    std::uint64_t lost0[4], stalls0[4], agreed[4] = {}, samples = 0;
    for (int i = 0; i < 4; ++i) {
        lost0[i] = bots[i]->remote().frames_lost();
        stalls0[i] = bots[i]->remote().stalls();
    }
    drive(
        bots,
        [&] {
            teacher.update();
            for (int i = 0; i < 4; ++i) agreed[i] += bots[i]->remote().client().agreed() ? 1 : 0;
            ++samples;
            return false;
        },
        4000ms);
    for (int i = 0; i < 4; ++i) {
        const play::HordeRemote& r = bots[i]->remote();
        seen[i] = {.lost = r.frames_lost() - lost0[i],
                   .stalls = r.stalls() - stalls0[i],
                   .age_p50_ms = r.frame_age_p50_ms().value_or(0.0),
                   .age_p99_ms = r.frame_age_p99_ms().value_or(0.0),
                   .agreed = static_cast<double>(agreed[i]) / static_cast<double>(samples)};
        std::printf(
            "  %s seat %d, 20%% simulated loss: frames lost %llu, frame age p50 %.0f ms, p99 %.0f ms, "
            "stalls %llu, "
            "mirror agreed %.0f%%\n",
            i < 2 ? "udp" : "websocket", i, static_cast<unsigned long long>(seen[i].lost), seen[i].age_p50_ms,
            seen[i].age_p99_ms, static_cast<unsigned long long>(seen[i].stalls), 100.0 * seen[i].agreed);
    }
    const std::vector<SeatReport> reports =
        live::on_server_thread(*live.server, [&] { return live.room.seat_reports(); });
    EXPECT_TRUE(on_udp(0) && on_udp(1)) << "the UDP seats stayed on UDP";
    live.stop();

    ASSERT_EQ(reports.size(), 4u);
    for (const SeatReport& r : reports) {
        SCOPED_TRACE(r.name);
        if (r.name == "ws") {
            EXPECT_EQ(r.transport, SeatTransport::WebSocket);
            EXPECT_EQ(r.frames_lost, 0u) << "the room lost nothing on a websocket seat";
            EXPECT_GT(r.frames_resent, 20u) << "it resent what the loss dropped";
            EXPECT_EQ(r.dropped, 0u) << "nor did its socket's queue: the link holds what waits";
        } else {
            EXPECT_EQ(r.transport, SeatTransport::Udp);
            EXPECT_GT(r.frames_lost, 20u) << "a datagram seat loses what the loss drops";
            EXPECT_EQ(r.frames_resent, 0u);
        }
    }
    for (int i = 2; i < 4; ++i) {
        SCOPED_TRACE(i);
        EXPECT_EQ(seen[i].lost, 0u) << "no sequence gap on the websocket";
        EXPECT_GE(seen[i].age_p99_ms, 150.0) << "a resend holds every later frame: many frame intervals";
    }
    // Frame ages are wall-clock measures on a shared machine: under load every seat's grow, so
    // the UDP seats' youth is judged against the WebSocket seats' (the lesson's comparison).
    double worst_udp_p99 = 0, worst_ws_p99 = 0;
    for (int i = 0; i < 2; ++i) {
        SCOPED_TRACE(i);
        EXPECT_GT(seen[i].lost, 10u);
        EXPECT_GT(seen[i].agreed, 0.8) << "the acked stream repairs what was lost";
        for (int j = 2; j < 4; ++j) EXPECT_GT(seen[j].age_p99_ms, seen[i].age_p99_ms) << "websocket seat " << j;
        worst_udp_p99 = std::max(worst_udp_p99, seen[i].age_p99_ms);
        worst_ws_p99 = std::max(worst_ws_p99, seen[i + 2].age_p99_ms);
    }
    EXPECT_GT(worst_ws_p99, 2.0 * worst_udp_p99) << "resends age the websocket's frames by timeouts";
}

}  // namespace
}  // namespace vantage::room
