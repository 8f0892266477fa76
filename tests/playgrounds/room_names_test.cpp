// Names in any language through a real room (display_name_test.cpp has the rules): they arrive
// byte for byte, and a hello whose name is not UTF-8 is refused with the reason.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/room_wire.hpp"
#include "room/horde_room.hpp"
#include "room/room_bot.hpp"
#include "room/room_client.hpp"
#include "support/live_room.hpp"

namespace vantage::play {
namespace {

using namespace std::chrono_literals;

// Through a real room: both names arrive in every roster byte for byte; a hello whose name is
// not UTF-8 is refused with the reason.
TEST(DisplayName, UnicodeNamesSurviveTheRoomAndMalformedOnesAreRefused) {
    room::HordeRoomOptions options;
    options.seats = 3;
    options.settings.enemies = 200;
    room::live::LiveRoom<room::HordeRoom> live(options);
    const std::string jose = "Jos\xc3\xa9 M\xc3\xbcller", zoe = "Zo\xc3\xab \xe6\x9d\x8e";
    std::vector<std::unique_ptr<room::HordeBot>> bots;
    bots.push_back(room::live::join_bot<room::HordeBot>(live.url, jose.c_str()));
    bots.push_back(room::live::join_bot<room::HordeBot>(live.url, zoe.c_str()));
    ASSERT_TRUE(room::live::drive(
        bots, [&] { return bots[0]->remote().roster().size() == 2 && bots[1]->remote().roster().size() == 2; },
        5000ms));
    for (const auto& b : bots) {
        EXPECT_EQ(b->remote().roster()[0].name, jose);
        EXPECT_EQ(b->remote().roster()[1].name, zoe);
    }

    room::RoomClient c;
    ASSERT_EQ(c.connect(live.url), "");
    ByteWriter w;
    encode_hello(w, {.protocol = kRoomProtocol, .build = "", .playground = "horde", .name = "Jos\xe9"});
    c.send(w.bytes());
    std::string reason;
    std::vector<std::uint8_t> msg;
    for (const auto deadline = std::chrono::steady_clock::now() + 3s;
         reason.empty() && std::chrono::steady_clock::now() < deadline;) {
        c.poll();
        while (c.receive(msg)) {
            if (!msg.empty() && msg[0] == static_cast<std::uint8_t>(RoomMessage::Refuse)) {
                ASSERT_EQ(decode_refuse(msg, reason), WireError::Ok);
            }
        }
        std::this_thread::sleep_for(2ms);
    }
    EXPECT_NE(reason.find("hello refused (malformed message)"), std::string::npos) << reason;
    EXPECT_NE(reason.find("UTF-8"), std::string::npos) << reason;
}

}  // namespace
}  // namespace vantage::play
