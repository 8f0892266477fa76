// The playground list's runtime table (common/catalog.hpp): which playgrounds are rooms comes
// from their lines there, and each room's client is the one its playground's name says.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "common/catalog.hpp"
#include "common/playground_list.hpp"

namespace vantage::play {
namespace {

TEST(Catalog, EveryRoomsClientPlaysItsOwnPlayground) {
    int rooms = 0;
    for (const PlaygroundEntry& e : playground_catalog()) {
        if (!e.room()) continue;
        ++rooms;
        const std::unique_ptr<RoomRemote> remote = e.make_remote({.name = "ann"});
        ASSERT_NE(remote, nullptr) << e.name;
        EXPECT_EQ(remote->playground(), e.name);
    }
    EXPECT_GE(rooms, 2);
}

TEST(Catalog, IsRoomAnswersFromTheListAndRefusesOtherNames) {
    for (const PlaygroundEntry& e : playground_catalog()) EXPECT_EQ(is_room(e.name), e.room()) << e.name;
    EXPECT_TRUE(is_room("horde"));
    EXPECT_FALSE(is_room("netcode"));  // a playground that is not a room
    EXPECT_FALSE(is_room("nope"));
    EXPECT_FALSE(is_room(""));
}

TEST(Catalog, DefaultRoomIsARoom) {
    EXPECT_TRUE(is_room(kDefaultRoom));
}

TEST(Catalog, RoomNamesListsEachRoomOnceInListOrder) {
    std::string expected;
    std::set<std::string> seen;
    for (const PlaygroundEntry& e : playground_catalog()) {
        if (!e.room()) continue;
        EXPECT_TRUE(seen.insert(e.name).second) << e.name;
        expected += (expected.empty() ? "" : "|") + std::string(e.name);
    }
    EXPECT_EQ(room_names("|"), expected);
}

TEST(Catalog, FindPlaygroundReturnsNullForAnUnknownName) {
    EXPECT_EQ(find_playground("nope"), nullptr);
    ASSERT_NE(find_playground("meter"), nullptr);
    EXPECT_STREQ(find_playground("meter")->name, "meter");
}

}  // namespace
}  // namespace vantage::play
