#include <gtest/gtest.h>

#include "common/catalog.hpp"
#include "common/host.hpp"
#include "common/preset.hpp"

namespace vantage::play {
namespace {

// Every preset of every playground: it loads, it applies cleanly, and after its simulated
// seconds the finding it claims holds (the same check the page shows and the report prints).
TEST(Presets, EveryPresetLoadsAppliesAndItsClaimedFindingHolds) {
    Host host(make_all_simulations());
    const std::vector<std::string> errors = load_all_presets(host, VANTAGE_PRESETS_DIR);
    ASSERT_TRUE(errors.empty()) << errors.front();
    int checked = 0;
    for (std::size_t i = 0; i < host.count(); ++i) {
        host.select(i);
        const std::vector<Preset> presets = host.presets();
        for (const Preset& p : presets) {
            SCOPED_TRACE(std::string(host.current().name()) + "/" + p.name);
            const auto errs = host.apply_url("#" + std::string(host.current().name()) + "/seed=1&preset=" + p.name);
            ASSERT_TRUE(errs.empty()) << errs.front();
            host.restart();
            ASSERT_NE(host.active_preset(), nullptr);
            const int ticks = static_cast<int>(p.seconds * host.context().tick_hz + 0.5);
            for (int t = 0; t < ticks; ++t) host.single_step();
            std::vector<Meter> meters;
            host.current().meters(meters);
            const CheckResult r = evaluate_check(p.check, meters);
            EXPECT_TRUE(r.valid) << r.text;
            EXPECT_TRUE(r.holds) << r.text;
            ++checked;
        }
    }
    EXPECT_GT(checked, 0);
}

TEST(Presets, AShareableLinkKeepsThePresetAndAChangeEndsIt) {
    Host host(make_all_simulations());
    load_all_presets(host, VANTAGE_PRESETS_DIR);
    ASSERT_TRUE(host.apply_url("#meter/preset=average-lags-a-step").empty()) << host.url();
    const std::string link = host.url();
    EXPECT_NE(link.find("preset=average-lags-a-step"), std::string::npos) << link;
    Host other(make_all_simulations());
    load_all_presets(other, VANTAGE_PRESETS_DIR);
    ASSERT_TRUE(other.apply_url(link).empty());
    EXPECT_EQ(other.url(), link);
    ASSERT_EQ(other.set("burst", "0.9"), "");
    EXPECT_EQ(other.active_preset(), nullptr);
}

TEST(Presets, APresetStartsFromTheDefaultsNotFromEarlierChanges) {
    Host host(make_all_simulations());
    load_all_presets(host, VANTAGE_PRESETS_DIR);
    ASSERT_EQ(host.set("playground", "netcode"), "");
    const bool ghost_default = host.state_json().find("\"show_ghost\":1") != std::string::npos;
    ASSERT_EQ(host.set("show_ghost", ghost_default ? "0" : "1"), "");  // not named by the preset
    ASSERT_EQ(host.set("preset", "prediction-hides-latency"), "");
    EXPECT_EQ(host.state_json().find("\"show_ghost\":1") != std::string::npos, ghost_default) << host.state_json();
}

TEST(Presets, UnknownPresetIsRefusedWithTheNamesThatExist) {
    Host host(make_all_simulations());
    load_all_presets(host, VANTAGE_PRESETS_DIR);
    ASSERT_EQ(host.set("playground", "meter"), "");
    const std::string err = host.set("preset", "nope");
    EXPECT_NE(err.find("unknown preset 'nope'"), std::string::npos) << err;
    EXPECT_NE(err.find("average-lags-a-step"), std::string::npos) << err;
}

TEST(PresetFile, MalformedLinesAreReportedWithTheirLineNumbers) {
    const PresetFile f =
        parse_presets("title = orphan\n[Bad Name]\n[ok]\ntitle = Fine\nnonsense\nseconds = -3\ncolour = red\n");
    ASSERT_EQ(f.presets.size(), 1u);
    EXPECT_EQ(f.presets[0].title, "Fine");
    ASSERT_EQ(f.errors.size(), 5u);
    EXPECT_NE(f.errors[0].find("line 1"), std::string::npos);
    EXPECT_NE(f.errors[1].find("line 2"), std::string::npos);
    EXPECT_NE(f.errors[2].find("line 5"), std::string::npos);
    EXPECT_NE(f.errors[3].find("line 6"), std::string::npos);
    EXPECT_NE(f.errors[4].find("unknown key 'colour'"), std::string::npos);
}

TEST(PresetCheck, ComparesAMeterWithANumberOrAScaledMeter) {
    const std::vector<Meter> m = {{"a.x", "", 10.0}, {"b.x", "", 4.0}};
    EXPECT_TRUE(evaluate_check("a.x > 2 * b.x", m).holds);
    EXPECT_FALSE(evaluate_check("a.x > 3 * b.x", m).holds);
    EXPECT_TRUE(evaluate_check("b.x <= 4", m).holds);
    EXPECT_TRUE(evaluate_check("b.x < a.x", m).holds);
    EXPECT_FALSE(evaluate_check("c.x < 1", m).valid);
    EXPECT_FALSE(evaluate_check("a.x ~ 1", m).valid);
    EXPECT_FALSE(evaluate_check("a.x > 2 x b.x", m).valid);
}

}  // namespace
}  // namespace vantage::play
