// Names a student types, in any language: kept as UTF-8 through the room, never turned into
// '?', and refused with a clear message when the bytes are not UTF-8 at all. Through a real
// room: room_names_test.cpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/room_link.hpp"
#include "common/room_wire.hpp"

namespace vantage::play {
namespace {

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

}  // namespace
}  // namespace vantage::play
