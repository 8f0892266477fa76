// Names a student types, in any language: kept as UTF-8 through the room, never turned into
// '?', and refused with a clear message when the bytes are not UTF-8 at all.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/room_link.hpp"
#include "common/room_wire.hpp"
#include "room/horde_room.hpp"
#include "room/room_bot.hpp"
#include "room/room_client.hpp"
#include "support/live_room.hpp"

namespace vantage::play {
namespace {

using namespace std::chrono_literals;

TEST(DisplayName, LettersOfAnyLanguageSurviveSanitising) {
    EXPECT_EQ(sanitize_name("Jos\xc3\xa9 M\xc3\xbcller"), "Jos\xc3\xa9 M\xc3\xbcller");  // José Müller
    EXPECT_EQ(sanitize_name("Zo\xc3\xab \xe6\x9d\x8e"), "Zo\xc3\xab \xe6\x9d\x8e");      // Zoë 李
    EXPECT_EQ(sanitize_name("\xc5\x81ukasz \xc5\xbb\xc3\xb3\xc5\x82w"), "\xc5\x81ukasz \xc5\xbb\xc3\xb3\xc5\x82w");
}

TEST(DisplayName, InvisibleAndMalformedCharactersAreDroppedAndSpacesCollapse) {
    // A right-to-left override, a zero-width space, a no-break space and a lone continuation byte.
    EXPECT_EQ(sanitize_name("\xe2\x80\xae"
                            "Ann\xe2\x80\x8b\xc2\xa0\xc2\xa0Lee\x80"),
              "Ann Lee");
    EXPECT_EQ(sanitize_name("\xe2\x80\x8b"), "player");
}

TEST(DisplayName, TheByteLimitCutsBetweenCharactersNeverInsideOne) {
    std::string name;
    for (int i = 0; i < 20; ++i) name += "\xc3\xa9";  // 40 bytes of é
    const std::string kept = sanitize_name(name);
    EXPECT_EQ(kept.size(), kMaxNameBytes);  // 12 whole é
    EXPECT_TRUE(valid_utf8(kept));
    const std::string odd = "x" + name;  // 1 + 2k bytes: the cut falls before the 24th byte
    EXPECT_TRUE(valid_utf8(sanitize_name(odd)));
    EXPECT_EQ(sanitize_name(odd).size(), kMaxNameBytes - 1);
}

TEST(DisplayName, Utf8ValidationRefusesOverlongSurrogateAndTruncatedForms) {
    EXPECT_TRUE(valid_utf8("Zo\xc3\xab \xe6\x9d\x8e \xf0\x9f\x98\x80"));
    EXPECT_FALSE(valid_utf8("\xc0\xaf"));          // an overlong '/'
    EXPECT_FALSE(valid_utf8("\xed\xa0\x80"));      // a UTF-16 surrogate
    EXPECT_FALSE(valid_utf8("\xf4\x90\x80\x80"));  // past U+10FFFF
    EXPECT_FALSE(valid_utf8("Jos\xc3"));           // cut in the middle
    EXPECT_FALSE(valid_utf8("Jos\xe9"));           // Latin-1, not UTF-8
}

TEST(DisplayName, ALinkKeepsAUtf8NameAndRefusesBytesThatAreNot) {
    std::vector<std::string> errors;
    RoomLink link;
    split_room_link("horde/join&name=Zo%C3%AB%20%E6%9D%8E", link, errors);
    EXPECT_TRUE(errors.empty()) << errors.front();
    EXPECT_EQ(link.name, "Zo\xc3\xab \xe6\x9d\x8e");
    errors.clear();
    RoomLink bad;
    split_room_link("horde/join&name=Jos%E9", bad, errors);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_NE(errors[0].find("not valid UTF-8"), std::string::npos) << errors[0];
}

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
