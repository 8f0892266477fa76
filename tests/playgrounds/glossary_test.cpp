#include <gtest/gtest.h>

#include <set>
#include <string>

#include "common/catalog.hpp"
#include "common/host.hpp"

namespace vantage::play {
namespace {

// Every meter a playground shows has a readable name and a line saying what it measures,
// and the glossary names no meter that does not exist (a renamed meter cannot leave a
// stale description behind).
TEST(Glossary, EveryMeterOfEveryPlaygroundIsDescribedAndEveryDescriptionIsUsed) {
    Host host(make_all_simulations());
    for (std::size_t i = 0; i < host.count(); ++i) {
        Simulation& sim = host.sim(i);
        SCOPED_TRACE(std::string(sim.name()));
        for (int t = 0; t < 30; ++t) sim.step(1.0 / 60.0);
        std::vector<Meter> meters;
        sim.meters(meters);
        ASSERT_FALSE(meters.empty());
        std::set<std::string_view> used;
        for (const Meter& m : meters) {
            const MeterInfo* info = find_meter_info(sim.glossary(), m.name);
            ASSERT_NE(info, nullptr) << "meter '" << m.name << "' has no glossary entry";
            EXPECT_FALSE(info->label.empty()) << m.name;
            EXPECT_GT(info->help.size(), 10u) << m.name;
            EXPECT_EQ(info->help.find('\n'), std::string_view::npos) << m.name;
            used.insert(info->key);
        }
        for (const MeterInfo& g : sim.glossary()) EXPECT_TRUE(used.count(g.key)) << "unused entry '" << g.key << "'";
    }
}

TEST(Glossary, ALaneMeterIsFoundByItsNameAfterTheLane) {
    static constexpr MeterInfo g[] = {{"phantoms", "phantoms", "drawn but gone"}, {"truth.ticks", "ticks", "server"}};
    ASSERT_NE(find_meter_info(g, "naive.phantoms"), nullptr);
    EXPECT_EQ(find_meter_info(g, "naive.phantoms")->label, "phantoms");
    EXPECT_EQ(find_meter_info(g, "truth.ticks")->key, "truth.ticks");
    EXPECT_EQ(find_meter_info(g, "naive.missing"), nullptr);
    // The readable name the meter table and the tours show: the lane, then the label.
    EXPECT_EQ(meter_label(g, "naive.phantoms"), "naive: phantoms");
    EXPECT_EQ(meter_label(g, "acked.phantoms", " "), "acked phantoms");
    EXPECT_EQ(meter_label(g, "truth.ticks"), "ticks");  // described by its whole name
    EXPECT_EQ(meter_label(g, "phantoms"), "phantoms");
    EXPECT_EQ(meter_label(g, "naive.missing"), "naive.missing");
}

}  // namespace
}  // namespace vantage::play
