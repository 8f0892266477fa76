#include <gtest/gtest.h>

#include "common/catalog.hpp"
#include "common/host.hpp"
#include "common/tour.hpp"

namespace vantage::play {
namespace {

// Every playground has a tour; every step parses, its settings apply as by hand, and every
// meter it points at exists once the step is shown.
TEST(Tours, EveryPlaygroundHasATourWhoseStepsApplyAndWhoseMetersExist) {
    Host host(make_all_simulations());
    for (std::size_t i = 0; i < host.count(); ++i) {
        host.select(i);
        const std::string name(host.current().name());
        SCOPED_TRACE(name);
        const Tour tour = load_tour(VANTAGE_PRESETS_DIR, name);
        ASSERT_TRUE(tour.errors.empty()) << tour.errors.front();
        ASSERT_GE(tour.steps.size(), 2u);
        host.restart();
        for (const TourStep& step : tour.steps) {
            SCOPED_TRACE(step.name);
            const std::vector<std::string> errors = apply_tour_step(host, step);
            EXPECT_TRUE(errors.empty()) << errors.front();
            for (int t = 0; t < 10; ++t) host.single_step();
            std::vector<Meter> meters;
            host.current().meters(meters);
            for (const std::string& w : step.watch) {
                bool found = false;
                for (const Meter& m : meters) found = found || m.name == w;
                EXPECT_TRUE(found) << "step watches '" << w << "', which is not a meter";
            }
        }
    }
}

TEST(Tours, MalformedStepsAreReported) {
    const Tour t = parse_tour("[one]\nsay = hello\nwatch = a b\n[two]\nask = why?\ncolour = red\n");
    ASSERT_EQ(t.steps.size(), 2u);
    EXPECT_EQ(t.steps[0].watch, (std::vector<std::string>{"a", "b"}));
    ASSERT_EQ(t.errors.size(), 2u);
    EXPECT_NE(t.errors[0].find("line 6: unknown key 'colour'"), std::string::npos) << t.errors[0];
    EXPECT_NE(t.errors[1].find("step 'two' has nothing to say"), std::string::npos) << t.errors[1];
}

}  // namespace
}  // namespace vantage::play
