#include <gtest/gtest.h>

#include "common/catalog.hpp"
#include "common/host.hpp"

namespace vantage::play {
namespace {

// A host showing the meter playground (these tests use its settings).
Host make_host() {
    Host h(make_all_simulations());
    h.select(static_cast<std::size_t>(h.find("meter")));
    return h;
}

TEST(Host, UrlRoundTripsEverySetting) {
    Host a = make_host();
    ASSERT_EQ(a.set("seed", "77"), "");
    ASSERT_EQ(a.set("rate_kib", "123.5"), "");
    ASSERT_EQ(a.set("tick_hz", "30"), "");
    Host b = make_host();
    EXPECT_TRUE(b.apply_url(a.url()).empty());
    EXPECT_EQ(b.url(), a.url());
    EXPECT_EQ(b.context().seed, 77u);
    EXPECT_EQ(b.context().tick_hz, 30);
}

// A link carries the host's own settings and the playground's side by side, so no playground
// setting may take a host name ("speed" once meant both: proximity's creature speed was read
// back as the clock's and refused).
TEST(Host, NoPlaygroundSettingShadowsAHostSetting) {
    Host host(make_all_simulations());
    for (std::size_t i = 0; i < host.count(); ++i) {
        for (const Param& p : host.sim(i).params()) {
            for (const char* taken : {"seed", "tick_hz", "speed", "paused", "playground", "preset"})
                EXPECT_NE(p.name, taken) << host.sim(i).name();
        }
    }
}

TEST(Host, BadUrlParametersAreReportedAndTheRestStillApplies) {
    Host h = make_host();
    const auto errors = h.apply_url("#meter/rate_kib=abc&burst=0.25&nonsense=1&step_at_s=99999&oops");
    ASSERT_EQ(errors.size(), 4u);
    std::string all;
    for (const auto& e : errors) all += e + "\n";
    EXPECT_NE(all.find("'rate_kib' needs a number"), std::string::npos) << all;
    EXPECT_NE(all.find("'oops': expected key=value"), std::string::npos) << all;
    EXPECT_NE(all.find("unknown setting 'nonsense'"), std::string::npos) << all;
    EXPECT_NE(all.find("'step_at_s' must be between"), std::string::npos) << all;
    EXPECT_NE(h.state_json().find("\"burst\":0.25"), std::string::npos);
    EXPECT_NE(h.state_json().find("\"rate_kib\":64"), std::string::npos);  // unchanged default
}

TEST(Host, UnknownPlaygroundIsRejectedWithoutChangingAnything) {
    Host h = make_host();
    const std::string before = h.url();
    const auto errors = h.apply_url("#nowhere/seed=5");
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_NE(errors[0].find("unknown playground 'nowhere'"), std::string::npos);
    EXPECT_EQ(h.url(), before);
}

TEST(Host, NonFiniteAndMalformedValuesAreRefused) {
    Host h = make_host();
    EXPECT_NE(h.set("rate_kib", "nan"), "");
    EXPECT_NE(h.set("rate_kib", "inf"), "");
    EXPECT_NE(h.set("rate_kib", "1e999"), "");
    EXPECT_NE(h.set("rate_kib", "0x10"), "");
    EXPECT_NE(h.set("rate_kib", ""), "");
    EXPECT_NE(h.set("rate_kib", "12abc"), "");
    EXPECT_NE(h.set("seed", "-1"), "");
    EXPECT_NE(h.set("seed", "1.5"), "");
    EXPECT_NE(h.set("tick_hz", "1000"), "");
    EXPECT_NE(h.set("paused", "2"), "");
    EXPECT_EQ(h.set("paused", "true"), "");
    EXPECT_TRUE(h.context().paused);
}

TEST(Host, AdvanceRunsWholeFixedTicksAndCarriesTheRemainder) {
    Host h = make_host();
    EXPECT_EQ(h.advance(0.010), 0);  // 10 ms < one 60 Hz tick
    EXPECT_EQ(h.advance(0.010), 1);  // 20 ms: one tick, 3.3 ms carried
    EXPECT_EQ(h.advance(1.0), 8);    // capped, backlog dropped
    h.set_paused(true);
    EXPECT_EQ(h.advance(1.0), 0);
    h.single_step();
    EXPECT_EQ(h.ticks(), 10u);
}

// A tab's tick counter is its own: the tab shown counts, a hidden one (which does not run)
// keeps its count for when it is shown again, and a reset of one tab restarts only its own.
TEST(Host, EachPlaygroundCountsItsOwnTicks) {
    Host h(make_all_simulations());
    ASSERT_EQ(h.set("playground", "meter"), "");
    for (int i = 0; i < 30; ++i) h.single_step();
    ASSERT_EQ(h.set("playground", "netcode"), "");
    EXPECT_EQ(h.ticks(), 0u);
    EXPECT_NE(h.state_json().find("\"tick\":0,"), std::string::npos) << h.state_json();
    for (int i = 0; i < 5; ++i) h.single_step();
    EXPECT_EQ(h.ticks(), 5u);
    ASSERT_EQ(h.set("playground", "meter"), "");
    EXPECT_EQ(h.ticks(), 30u);
    ASSERT_EQ(h.set("seed", "4"), "");  // a new world for every tab
    EXPECT_EQ(h.ticks(), 0u);
}

TEST(Host, StateJsonCarriesSettingsMetersAndChecksum) {
    Host h = make_host();
    for (int i = 0; i < 120; ++i) h.single_step();
    const std::string json = h.state_json();
    EXPECT_NE(json.find("\"playground\":\"meter\""), std::string::npos);
    EXPECT_NE(json.find("\"windowed_kib_s\":"), std::string::npos);
    EXPECT_NE(json.find("\"checksum\":\""), std::string::npos);
    EXPECT_EQ(json.find("nan"), std::string::npos);
}

TEST(ParseValue, AcceptsPlainDecimalsAndSwitchWords) {
    double v = 0;
    EXPECT_TRUE(parse_value("1.5e2", v));
    EXPECT_EQ(v, 150.0);
    EXPECT_TRUE(parse_value("-3", v));
    EXPECT_TRUE(parse_value("on", v));
    EXPECT_EQ(v, 1.0);
    EXPECT_FALSE(parse_value("1 ", v));
    EXPECT_FALSE(parse_value("infinity", v));
}

}  // namespace
}  // namespace vantage::play
