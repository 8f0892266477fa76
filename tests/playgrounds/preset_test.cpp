#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <utility>

#include "common/catalog.hpp"
#include "common/host.hpp"
#include "common/preset.hpp"

namespace vantage::play {
namespace {

// Every preset of every playground: it loads, choosing it starts a fresh run, its verdict
// stays pending until its moment, and then it is judged once, holds, and stays frozen. The
// same judgement the page shows and the report prints.
TEST(Presets, EveryPresetIsARunJudgedOnceAtItsMomentAndItHolds) {
#if defined(__SANITIZE_ADDRESS__)
    // Under ASan (ten times slower) every other preset, the same half every run: the verdicts
    // are the native and wasm suites' to judge; here each playground's code still runs.
    constexpr std::size_t kStride = 2;
#else
    constexpr std::size_t kStride = 1;
#endif
    Host host(make_all_simulations());
    const std::vector<std::string> errors = load_all_presets(host, VANTAGE_PRESETS_DIR);
    ASSERT_TRUE(errors.empty()) << errors.front();
    int checked = 0;
    for (std::size_t i = 0; i < host.count(); ++i) {
        host.select(i);
        const std::vector<Preset> presets = host.presets();
        std::vector<std::pair<std::string, std::uint64_t>> checksums;
        for (std::size_t k = 0; k < presets.size(); ++k) {
            if (k % kStride != 0) continue;
            const Preset& p = presets[k];
            SCOPED_TRACE(std::string(host.current().name()) + "/" + p.name);
            ASSERT_EQ(host.set("seed", "1"), "");
            for (int t = 0; t < 7; ++t) host.single_step();  // an earlier run: the preset must not continue it
            const std::uint64_t run_before = host.run(i);
            ASSERT_EQ(host.set("preset", p.name), "");
            EXPECT_GT(host.run(i), run_before) << "choosing a preset starts a new run";
            EXPECT_EQ(host.current().time_s(), 0.0);
            ASSERT_NE(host.preset_run().preset, nullptr);
            EXPECT_EQ(host.preset_run().judgement.verdict, Verdict::Pending);
            EXPECT_DOUBLE_EQ(host.preset_run().remaining_s, p.seconds);
            const int ticks = static_cast<int>(p.seconds * host.context().tick_hz + 0.5);
            for (int t = 0; t + 1 < ticks; ++t) host.single_step();
            EXPECT_EQ(host.preset_run().judgement.verdict, Verdict::Pending) << "judged before its moment";
            EXPECT_GT(host.preset_run().remaining_s, 0.0);
            host.single_step();
            const Host::PresetRun run = host.preset_run();
            EXPECT_EQ(run.remaining_s, 0.0);
            EXPECT_EQ(run.judgement.verdict, Verdict::Holds) << run.judgement.text;
            EXPECT_EQ(run.judgement.text.rfind("holds: ", 0), 0u) << run.judgement.text;
            EXPECT_EQ(run.judgement.text.find('{'), std::string::npos) << run.judgement.text;
            EXPECT_NE(host.state_json().find("\"verdict\":\"holds\""), std::string::npos) << host.state_json();
            checksums.emplace_back(p.name, host.current().checksum());
            // Frozen: the meters move on, the verdict does not.
            for (int t = 0; t < host.context().tick_hz; ++t) host.single_step();
            EXPECT_EQ(host.preset_run().judgement.text, run.judgement.text);
            ++checked;
        }
        // A before and an after are different runs: no two presets of a playground end in
        // the same state.
        for (std::size_t a = 0; a < checksums.size(); ++a) {
            for (std::size_t b = a + 1; b < checksums.size(); ++b) {
                EXPECT_NE(checksums[a].second, checksums[b].second)
                    << checksums[a].first << " and " << checksums[b].first << " are the same run";
            }
        }
    }
    EXPECT_GT(checked, 0);
}

TEST(Presets, ARestartJudgesAgainAndAChangeByHandEndsTheRun) {
    Host host(make_all_simulations());
    load_all_presets(host, VANTAGE_PRESETS_DIR);
    ASSERT_EQ(host.set("playground", "meter"), "");
    ASSERT_EQ(host.set("preset", "window-settles"), "");
    const double seconds = host.active_preset()->seconds;
    const int ticks = static_cast<int>(seconds * host.context().tick_hz + 0.5);
    for (int t = 0; t < ticks; ++t) host.single_step();
    ASSERT_EQ(host.preset_run().judgement.verdict, Verdict::Holds);
    host.restart();
    EXPECT_EQ(host.preset_run().judgement.verdict, Verdict::Pending);
    EXPECT_DOUBLE_EQ(host.preset_run().remaining_s, seconds);
    EXPECT_NE(host.state_json().find("\"verdict\":\"pending\""), std::string::npos);
    ASSERT_EQ(host.set("burst", "0.9"), "");
    EXPECT_EQ(host.preset_run().preset, nullptr);
    EXPECT_NE(host.state_json().find("\"preset\":null"), std::string::npos);
}

TEST(Presets, ALinkNamingTheRunningPresetKeepsItsRun) {
    Host host(make_all_simulations());
    load_all_presets(host, VANTAGE_PRESETS_DIR);
    ASSERT_TRUE(host.apply_url("#meter/preset=steady-rate").empty());
    for (int t = 0; t < 30; ++t) host.single_step();
    const std::uint64_t run = host.run(host.active());
    ASSERT_TRUE(host.apply_url(host.url() + "&paused=1").empty());  // a follower's next link
    EXPECT_EQ(host.run(host.active()), run);
    EXPECT_GT(host.current().time_s(), 0.0);
    ASSERT_EQ(host.set("preset", "steady-rate"), "");  // the menu: the run starts over
    EXPECT_GT(host.run(host.active()), run);
    EXPECT_EQ(host.current().time_s(), 0.0);
}

TEST(Presets, AVerdictThatDoesNotHoldSaysSoInPlainWords) {
    Preset p;
    p.name = "x";
    p.check = "a.n > 10 * b.n";
    p.verdict = "the naive lane holds {a.n} phantoms, the acked lane {b.n}";
    const Judgement no = judge(p, {{"a.n", "", 40.4}, {"b.n", "", 7.0}});
    EXPECT_EQ(no.verdict, Verdict::DoesNotHold);
    EXPECT_EQ(no.text, "does not hold: the naive lane holds 40 phantoms, the acked lane 7");
    const Judgement yes = judge(p, {{"a.n", "", 75.97}, {"b.n", "", 7.0}});
    EXPECT_EQ(yes.text, "holds: the naive lane holds 76 phantoms, the acked lane 7");
    p.verdict = "{c.n} unknown";
    EXPECT_EQ(judge(p, {{"a.n", "", 1.0}, {"b.n", "", 1.0}}).verdict, Verdict::Pending);
}

TEST(Host, SettingChangesAreLoggedWithTheirTimeADragIsOneAndANewRunForgetsThem) {
    Host host(make_all_simulations());
    ASSERT_EQ(host.set("playground", "meter"), "");
    const std::size_t i = host.active();
    ASSERT_EQ(host.set("rate_kib", "60"), "");  // before the first step: the run's setup
    EXPECT_TRUE(host.changes(i).empty());
    for (int t = 0; t < 120; ++t) host.single_step();
    ASSERT_EQ(host.set("burst", "0.6"), "");
    for (int t = 0; t < 10; ++t) host.single_step();
    ASSERT_EQ(host.set("burst", "0.7"), "");  // the same slider within a second
    for (int t = 0; t < 120; ++t) host.single_step();
    ASSERT_EQ(host.set("rate_kib", "80"), "");
    ASSERT_EQ(host.set("speed", "2"), "");  // the clock's own settings are not the run's
    const std::vector<Host::SettingChange>& log = host.changes(i);
    ASSERT_EQ(log.size(), 2u);
    EXPECT_NEAR(log[0].t_s, 2.0, 1e-9);
    EXPECT_EQ(log[0].name, "burst");
    EXPECT_EQ(log[0].value, "0.7");
    EXPECT_EQ(log[1].name, "rate_kib");
    EXPECT_NEAR(log[1].t_s, 2.0 + 130.0 / 60.0, 1e-9);
    host.restart();
    EXPECT_TRUE(host.changes(i).empty());
}

TEST(PresetVerdict, ReadingsArePlainNumbers) {
    EXPECT_EQ(plain_number(75.97), "76");
    EXPECT_EQ(plain_number(183.7), "184");
    EXPECT_EQ(plain_number(2248500.0), "2,248,500");
    EXPECT_EQ(plain_number(-12345.0), "-12,345");
    EXPECT_EQ(plain_number(6010.0), "6010");
    EXPECT_EQ(plain_number(5.424), "5.4");
    EXPECT_EQ(plain_number(0.0195), "0.02");
    EXPECT_EQ(plain_number(0.0), "0");
    EXPECT_EQ(plain_number(std::nan("")), "n/a");
    std::string err;
    EXPECT_EQ(fill_readings("{a} and {b", {{"a", "", 3.0}}, &err), "3 and ");
    EXPECT_NE(err.find("unclosed"), std::string::npos);
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
    EXPECT_TRUE(evaluate_check("a.x > 2 * b.x and b.x < 5", m).holds);
    EXPECT_FALSE(evaluate_check("a.x > 2 * b.x and b.x < 3", m).holds);
    EXPECT_FALSE(evaluate_check("a.x > 2 * b.x and c.x < 3", m).valid);
}

}  // namespace
}  // namespace vantage::play
