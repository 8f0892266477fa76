// The measuring tools' command line (room/tool_flags.hpp): --help answers with exit 0, and a
// bad command line gets exit 2, one sentence naming the flag, and assigns nothing.
#include "room/tool_flags.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace vantage::room {
namespace {

struct Line {
    std::vector<std::string> words;
    std::vector<char*> argv;
    explicit Line(std::vector<std::string> w) : words(std::move(w)) {
        argv.push_back(const_cast<char*>("tool"));
        for (std::string& word : words) argv.push_back(word.data());
    }
    int argc() const { return static_cast<int>(argv.size()); }
};

struct Tool {
    int bots = 32;
    double hz = 16;
    std::string file = "none";
    ToolFlags flags{"tool", "A tool for the test."};
    Tool() {
        flags.count("--bots", "N", 1, 128, bots);
        flags.number("--send-hz", "HZ", 1, 60, hz);
        flags.text("--markdown", "FILE", file);
    }
    int parse(std::vector<std::string> words) {
        Line line(std::move(words));
        return flags.parse(line.argc(), line.argv.data());
    }
};

TEST(ToolFlags, AGoodCommandLineSetsEveryFlagAndGoesOn) {
    Tool t;
    EXPECT_EQ(t.parse({"--bots", "64", "--send-hz", "30.5", "--markdown", "out.md"}), -1);
    EXPECT_EQ(t.bots, 64);
    EXPECT_DOUBLE_EQ(t.hz, 30.5);
    EXPECT_EQ(t.file, "out.md");
}

TEST(ToolFlags, HelpExitsZeroAndListsEveryFlagWithItsRange) {
    Tool t;
    EXPECT_EQ(t.parse({"--help"}), 0);
    EXPECT_EQ(t.parse({"-h"}), 0);
    const std::string usage = t.flags.usage();
    EXPECT_NE(usage.find("--bots N"), std::string::npos);
    EXPECT_NE(usage.find("1 to 128, whole"), std::string::npos);
    EXPECT_NE(usage.find("--send-hz HZ"), std::string::npos);
    EXPECT_NE(usage.find("1 to 60"), std::string::npos);
}

TEST(ToolFlags, EveryKindOfBadCommandLineExitsTwoAndAssignsNothing) {
    const std::vector<std::vector<std::string>> bad = {
        {"--nope", "1"},                      // unknown
        {"--bots"},                           // no value
        {"--bots", "3.5"},                    // a fraction for a count
        {"--bots", "0"},                      // below the range
        {"--bots", "129"},                    // above it
        {"--send-hz", "nan"},                 // not a number
        {"--send-hz", "inf"},                 // nor that
        {"--send-hz", "12abc"},               // trailing junk
        {"--markdown", ""},                   // an empty text
        {"--bots", "64", "--send-hz", "99"},  // one good flag, then a bad one
        {"64"},                               // a value without its flag
    };
    for (const auto& words : bad) {
        Tool t;
        EXPECT_EQ(t.parse(words), 2) << words.front();
        EXPECT_EQ(t.bots, 32) << words.front();
        EXPECT_DOUBLE_EQ(t.hz, 16) << words.front();
        EXPECT_EQ(t.file, "none") << words.front();
    }
}

}  // namespace
}  // namespace vantage::room
