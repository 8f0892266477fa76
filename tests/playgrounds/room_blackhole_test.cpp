// A black-hole room over real sockets on 127.0.0.1 (support/live_room.hpp): the BlackholeRoom
// on a RoomServer, and bots built from the page's client code (BlackholeBot =
// BlackholeRemote over a RoomClient). Also the room's settings, refused with reasons.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "room/blackhole_room.hpp"
#include "room/room_bot.hpp"
#include "support/live_room.hpp"

namespace vantage::room {
namespace {

using namespace std::chrono_literals;
using play::BlackholeRemote;
using play::LaneKind;
using play::RoomRemote;
using LiveRoom = live::LiveRoom<BlackholeRoom>;

BlackholeRoomOptions small_room(int seats, LaneKind strategy) {
    BlackholeRoomOptions o;
    o.seats = seats;
    o.settings.pellets = 1500;
    o.strategy = strategy;
    return o;
}

TEST(BlackholeRoom, BotsJoinHoldEveryPelletAndFollowTheServer) {
    LiveRoom live(small_room(4, LaneKind::Full));
    std::vector<std::unique_ptr<BlackholeBot>> bots;
    for (const char* name : {"ann", "bob", "cy"}) bots.push_back(live::join_bot<BlackholeBot>(live.url, name));
    live::drive(
        bots, [] { return false; }, 6000ms);
    // Drain: nothing new is sent, what is in flight arrives.
    live.room.set_quiet(true);
    live::drive(
        bots, [] { return false; }, 400ms);
    for (std::size_t i = 0; i < bots.size(); ++i) {
        const BlackholeRemote& r = bots[i]->remote();
        ASSERT_EQ(r.status(), RoomRemote::Status::Joined) << i << ": " << r.reason();
        EXPECT_EQ(r.seat(), i);
        ASSERT_NE(r.client(), nullptr) << "no join state";
        EXPECT_EQ(r.held(), 1500u);
        EXPECT_EQ(r.roster().size(), 3u);
        EXPECT_GT(r.frames(), 40u) << i;  // 16 Hz for 6 s is 96; fewer on a loaded machine
        EXPECT_EQ(r.frames_lost(), 0u) << i;
        EXPECT_TRUE(r.me().has_value()) << "its own hole is in every full field";
        EXPECT_EQ(r.client()->attractors().size(), 8u);  // the full field: every hole
        EXPECT_GT(r.truth_answers(), 3u);
        // The full field at 80 ms: the pellets a client integrates drift from the server's
        // only as far as the page's full lane does (8 holes: median 34 px, p90 451 px, so a
        // mean near 100), corrected round-robin.
        ASSERT_TRUE(r.err_mean_px().has_value()) << i << ": no truth answer scored";
        EXPECT_GE(*r.err_mean_px(), 0.0);
        EXPECT_LT(*r.err_mean_px(), 200.0) << i;
        EXPECT_FALSE(r.phantoms().has_value()) << "not measured here: a pellet is never gone, so none is held after";
        EXPECT_EQ(r.protocol_errors(), 0u);
        EXPECT_EQ(r.decode_errors(), 0u);
        ASSERT_TRUE(r.rtt_ms().has_value()) << i << ": no pong";
        EXPECT_GT(*r.rtt_ms(), 0.0);
    }
    live.stop();
    const std::vector<SeatReport> reports = live.room.all_seat_reports();
    ASSERT_EQ(reports.size(), 3u);
    for (std::size_t i = 0; i < bots.size(); ++i) {
        const BlackholeRemote& r = bots[i]->remote();
        const SeatReport& s = reports[r.seat()];
        EXPECT_EQ(r.frame_bytes(), s.frame_bytes) << i;  // every packet, the encoder's bytes
        EXPECT_EQ(s.frame_bytes, s.frame_socket_bytes) << i;
        EXPECT_EQ(r.bytes_down(), s.socket_payload_bytes) << i;
        EXPECT_EQ(s.join_bytes, 4u + 10u * 1500u - 1u + 1u) << i;  // kind, a 1-2 byte stamp, count, 10 per pellet
        std::printf("[ room     ] black hole seat %u: %.1f KiB join state, %llu packets, %.1f px pellet error\n",
                    r.seat(), static_cast<double>(s.join_bytes) / 1024.0, static_cast<unsigned long long>(r.frames()),
                    *r.err_mean_px());
    }
}

TEST(BlackholeRoom, CullingTheFieldCostsAccuracyOverTheSocketToo) {
    // The playground's finding, measured on real sockets: a client sent only the holes in
    // view integrates its pellets with the wrong field, and drifts from the server's.
    double error[2] = {0, 0};
    for (const LaneKind kind : {LaneKind::Full, LaneKind::Culled}) {
        BlackholeRoomOptions o = small_room(2, kind);
        o.settings.view_radius = 300;  // so most of the pull comes from outside the view
        o.settings.corrections = 10;
        LiveRoom live(o);
        std::vector<std::unique_ptr<BlackholeBot>> bots;
        bots.push_back(live::join_bot<BlackholeBot>(live.url));
        live::drive(
            bots, [] { return false; }, 6000ms);
        const std::optional<double> err = bots[0]->remote().err_mean_px();
        ASSERT_TRUE(err.has_value()) << "no truth answer scored";
        ASSERT_GE(*err, 0.0);
        error[kind == LaneKind::Full ? 0 : 1] = *err;
    }
    std::printf("[ room     ] pellet error over the socket: full field %.1f px, culled %.1f px\n", error[0], error[1]);
    EXPECT_GT(error[1], 1.5 * error[0]);  // 2.5 to 3.4 times in the recorded runs
}

TEST(BlackholeRoom, ASteeredPlayerMovesItsOwnHole) {
    LiveRoom live(small_room(2, LaneKind::Aggregated));
    std::vector<std::unique_ptr<BlackholeBot>> bots;
    bots.push_back(live::join_bot<BlackholeBot>(live.url));
    ASSERT_TRUE(live::drive(
        bots, [&] { return bots[0]->remote().me().has_value(); }, 3000ms));
    const Vec2 start = *bots[0]->remote().me();
    const float dir = start.x > 1500.0f ? -1.0f : 1.0f;  // away from the nearer wall
    bots[0]->remote().set_input({dir, 0.0f}, false);
    live::drive(
        bots, [] { return false; }, 1500ms);
    const Vec2 end = *bots[0]->remote().me();
    EXPECT_GT((end.x - start.x) * dir, 150.0f) << "210 units/s for 1.5 s, less the other holes' pull";
}

TEST(BlackholeRoom, AHordePageIsRefusedWithTheReason) {
    LiveRoom live(small_room(2, LaneKind::Aggregated));
    std::vector<std::unique_ptr<HordeBot>> bots;
    bots.push_back(live::join_bot<HordeBot>(live.url));
    ASSERT_TRUE(live::drive(
        bots, [&] { return bots[0]->remote().status() == RoomRemote::Status::Refused; }, 3000ms));
    EXPECT_EQ(bots[0]->remote().reason(), "this room plays blackhole, not horde");
}

TEST(BlackholeRoomSettings, AreThePagesWithTheRoomsOwnAndRefusedWithReasons) {
    BlackholeRoomOptions o;
    EXPECT_TRUE(apply_room_settings(o, "theta=0.8&strategy=culled&holes=16&seats=12&loss_pct=5").empty());
    EXPECT_EQ(o.settings.theta, 0.8);
    EXPECT_EQ(o.strategy, LaneKind::Culled);
    EXPECT_EQ(o.seats, 12);
    EXPECT_EQ(o.validate(), "");
    EXPECT_NE(o.describe().find("strategy=culled"), std::string::npos);
    EXPECT_NE(o.describe().find("holes=16"), std::string::npos);

    BlackholeRoomOptions bad;
    const std::vector<std::string> errors =
        apply_room_settings(bad, "strategy=everything&clients=3&autopilot=0&theta=9&nonsense");
    ASSERT_EQ(errors.size(), 5u);
    EXPECT_EQ(errors[0], "'strategy' is full, culled or aggregated (got 'everything')");
    EXPECT_EQ(errors[1], "'clients' is the room's seats: use --seats");
    EXPECT_NE(errors[3].find("theta"), std::string::npos);
    EXPECT_EQ(bad.strategy, LaneKind::Aggregated);  // nothing refused was applied

    BlackholeRoomOptions crowded;
    crowded.seats = 9;  // 8 holes
    EXPECT_EQ(crowded.validate(), "seats (9) must be at most the holes (8): each player is a hole");
}

}  // namespace
}  // namespace vantage::room
