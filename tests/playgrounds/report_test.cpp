// The playgrounds' reports (`./vantage report PLAYGROUND key=value ...`): the given settings
// reach every simulation a report builds, and the shared pieces behind them (apply_settings,
// ReportTable) behave as the report tool relies on.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>

#include "common/catalog.hpp"
#include "common/host.hpp"
#include "common/report_table.hpp"

namespace vantage::play {
namespace {

// Runs `report` into memory and returns what it printed.
std::string capture(void (*report)(const ReportOptions&, std::FILE*), const ReportOptions& options) {
    char* data = nullptr;
    std::size_t size = 0;
    std::FILE* out = open_memstream(&data, &size);
    report(options, out);
    std::fclose(out);
    std::string text(data, size);
    std::free(data);
    return text;
}

// The CSV rows, without the '#' lines (titles and the settings line, which name the settings).
std::string rows(const std::string& csv) {
    std::istringstream in(csv);
    std::string line, out;
    while (std::getline(in, line)) {
        if (!line.empty() && line[0] != '#') out += line + "\n";
    }
    return out;
}

// Per playground with a report: settings that keep its runs cheap, and one more setting that
// no table sweeps. A report added to the catalog without an entry here fails the test.
const std::map<std::string, std::pair<std::string, std::string>> kCheap = {
    {"blackhole", {"pellets=200&clients=1&holes=2", "loss_pct=40"}},
    {"horde", {"enemies=200&players=1", "latency_ms=200"}},
    {"netcode", {"", "server_hz=30"}},
    {"proximity", {"creatures=300", "creature_speed=300"}},
};

ReportOptions short_csv(std::string settings) {
    ReportOptions o;
    o.seconds = 1.0;
    o.csv = true;
    o.settings = std::move(settings);
    return o;
}

TEST(Report, GivenSettingChangesOutput) {
    for (const PlaygroundEntry& e : playground_catalog()) {
        if (!e.report) continue;
        const auto it = kCheap.find(e.name);
        ASSERT_NE(it, kCheap.end()) << "add settings for the '" << e.name << "' report to kCheap";
        const auto& [base, extra] = it->second;
        const std::string with = base.empty() ? extra : base + "&" + extra;
        const std::string before = rows(capture(e.report, short_csv(base)));
        const std::string after = rows(capture(e.report, short_csv(with)));
        EXPECT_FALSE(before.empty()) << e.name;
        EXPECT_NE(before, after) << e.name << ": '" << extra << "' did not change a single row";
    }
}

TEST(Report, HeaderNamesTheGivenSettingsAndTheTablesThatOverrideThem) {
    const PlaygroundEntry* netcode = nullptr;
    for (const PlaygroundEntry& e : playground_catalog()) netcode = e.name == std::string("netcode") ? &e : netcode;
    ASSERT_NE(netcode, nullptr);
    ReportOptions o;
    o.seconds = 0.5;
    const std::string plain = capture(netcode->report, o);
    EXPECT_EQ(plain.find("settings:"), std::string::npos) << plain;
    EXPECT_EQ(plain.find("overrides"), std::string::npos) << plain;
    o.settings = "server_hz=30&shots_per_s=2";
    const std::string given = capture(netcode->report, o);
    EXPECT_NE(given.find("settings: server_hz=30 shots_per_s=2"), std::string::npos) << given;
    // Only the extrapolation tables sweep the server rate; the others run at the given one.
    EXPECT_NE(given.find("loss 5% (its sweep overrides the given server_hz=30)"), std::string::npos) << given;
    EXPECT_NE(given.find("30 Hz server, jitter 0"), std::string::npos) << given;
}

TEST(Report, SweptSettingIsOverriddenInItsTableOnly) {
    // The horde loss table sweeps "loss": given loss changes the other tables, not that one.
    const PlaygroundEntry* horde = nullptr;
    for (const PlaygroundEntry& e : playground_catalog()) horde = e.name == std::string("horde") ? &e : horde;
    ASSERT_NE(horde, nullptr);
    auto section = [](const std::string& text, const char* from, const char* to) {
        const std::size_t a = text.find(from), b = text.find(to);
        return a == std::string::npos || b == std::string::npos ? std::string() : text.substr(a, b - a);
    };
    ReportOptions o = short_csv("enemies=200&players=1");
    o.csv = false;
    const std::string base = capture(horde->report, o);
    o.settings += "&loss=25";
    const std::string lossy = capture(horde->report, o);
    const std::string loss_table = "(per client: phantoms";
    EXPECT_EQ(section(base, loss_table.c_str(), "## 3."), section(lossy, loss_table.c_str(), "## 3."));
    EXPECT_NE(section(base, "## 1.", "## 2."), section(lossy, "## 1.", "## 2."));
    EXPECT_NE(lossy.find("(its sweep overrides the given loss=25)"), std::string::npos) << lossy;
}

TEST(ApplySettings, ReturnsOneReasonPerRejectedSettingAndAppliesTheRest) {
    for (auto& sim : make_all_simulations()) {
        if (sim->name() != "blackhole") continue;
        const std::vector<std::string> errors = apply_settings(*sim, "holes=abc&holes=99&nope=1&oops&&pellets=300");
        ASSERT_EQ(errors.size(), 4u);
        std::string all;
        for (const std::string& e : errors) all += e + "\n";
        EXPECT_NE(all.find("'oops': expected key=value"), std::string::npos) << all;
        EXPECT_NE(all.find("'holes' needs a number, got 'abc'"), std::string::npos) << all;
        EXPECT_NE(all.find("'holes'"), all.rfind("'holes'")) << all;  // the out-of-range one too
        EXPECT_NE(all.find("unknown setting 'nope' for playground 'blackhole'"), std::string::npos) << all;
        for (const Param& p : sim->params()) {
            if (p.name == "pellets") {
                EXPECT_EQ(p.get(), 300.0);
            }
            if (p.name == "holes") {
                EXPECT_EQ(p.get(), 8.0);  // both bad values left the default
            }
        }
        return;
    }
    FAIL() << "no blackhole playground";
}

TEST(ReportTable, ColonDigitsSetAWidthOtherColonsAreNames) {
    char* data = nullptr;
    std::size_t size = 0;
    std::FILE* out = open_memstream(&data, &size);
    {
        ReportTable t(out, false, {"a:4", "interp:rewound"});
        t.cell("%d", 1);
        t.cell("%s", "x");
        t.end_row();
    }
    std::fclose(out);
    const std::string text(data, size);
    std::free(data);
    // "a:4" is 4 wide (N replaces the default 7); "interp:rewound" is a name.
    EXPECT_EQ(text,
              "   a  interp:rewound\n"
              "----  --------------\n"
              "   1               x\n");
}

TEST(ReportTable, CsvJoinsCellsWithCommas) {
    char* data = nullptr;
    std::size_t size = 0;
    std::FILE* out = open_memstream(&data, &size);
    {
        ReportTable t(out, true, {"players:9", "KiB/s"}, {.min_width = 8, .gap_after_last = true});
        t.row({"spread", "1.5"});
    }
    std::fclose(out);
    const std::string text(data, size);
    std::free(data);
    EXPECT_EQ(text, "players,KiB/s\nspread,1.5\n");
}

}  // namespace
}  // namespace vantage::play
