#include <gtest/gtest.h>

#include "room/room_url.hpp"

namespace vantage::room {
namespace {

TEST(RoomUrl, ParsesHostPortAndPath) {
    RoomUrl url;
    ASSERT_EQ(parse_room_url("ws://127.0.0.1:8000/ws", url), "");
    EXPECT_EQ(url.host, "127.0.0.1");
    EXPECT_EQ(url.port, 8000);
    EXPECT_EQ(url.path, "/ws");
    EXPECT_EQ(url.host_header(), "127.0.0.1:8000");
}

TEST(RoomUrl, DefaultsPortAndPathAndKeepsTheQuery) {
    RoomUrl url;
    ASSERT_EQ(parse_room_url("ws://example.com", url), "");
    EXPECT_EQ(url.port, 80);
    EXPECT_EQ(url.path, "/");
    ASSERT_EQ(parse_room_url("ws://example.com?room=2", url), "");
    EXPECT_EQ(url.path, "/?room=2");
}

TEST(RoomUrl, ParsesABracketedIpv6Host) {
    RoomUrl url;
    ASSERT_EQ(parse_room_url("ws://[::1]:9000/ws", url), "");
    EXPECT_EQ(url.host, "::1");
    EXPECT_EQ(url.port, 9000);
    EXPECT_EQ(url.host_header(), "[::1]:9000");
}

TEST(RoomUrl, RefusesBadInputWithAMessageAndLeavesTheOutputAlone) {
    const struct {
        const char* text;
        const char* message_part;
    } cases[] = {
        {"http://x/ws", "ws://"}, {"wss://x/ws", "TLS"},        {"ws://", "no host"},       {"ws://:80/ws", "no host"},
        {"ws://x:0/ws", "port"},  {"ws://x:65536/ws", "port"},  {"ws://x:12ab/ws", "port"}, {"ws://x:/ws", "port"},
        {"ws://[::1/ws", "]"},    {"ws://u@x/ws", "user info"}, {"ws://x/w s", "space"},    {"ws://x/ws#f", "fragment"},
    };
    for (const auto& c : cases) {
        RoomUrl url;
        url.host = "unchanged";
        const std::string error = parse_room_url(c.text, url);
        EXPECT_NE(error.find(c.message_part), std::string::npos) << c.text << ": " << error;
        EXPECT_EQ(url.host, "unchanged") << c.text;
    }
}

}  // namespace
}  // namespace vantage::room
