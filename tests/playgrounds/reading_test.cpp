// Reading: one metric recorded once, read as a window (the page), a total since reset and a
// run since begin_measurement() (the report); and the measured-run helper every report uses.
#include <gtest/gtest.h>

#include <limits>
#include <memory>

#include "common/catalog.hpp"
#include "common/reading.hpp"
#include "common/simulation.hpp"

namespace vantage::play {
namespace {

TEST(Reading, TheRunCountsFromResetUntilBeginMeasurementRestartsIt) {
    Reading r;
    r.elapsed(0.0);
    r.add(10.0);
    r.add(30.0);
    EXPECT_EQ(r.run_samples(), 2u);
    EXPECT_DOUBLE_EQ(r.run_mean(), 20.0);
    EXPECT_DOUBLE_EQ(r.run_max(), 30.0);
    r.elapsed(1000.0);
    r.begin_measurement();
    r.add(4.0);
    r.elapsed(3000.0);
    EXPECT_EQ(r.run_samples(), 1u);
    EXPECT_DOUBLE_EQ(r.run_total(), 4.0);
    EXPECT_DOUBLE_EQ(r.run_max(), 4.0);
    EXPECT_DOUBLE_EQ(r.run_per_sec(), 2.0);  // 4 over the 2 s since the run began
    // The total since reset and the window are not the run's.
    EXPECT_DOUBLE_EQ(r.total(), 44.0);
    EXPECT_EQ(r.samples(), 3u);
    EXPECT_DOUBLE_EQ(r.last(), 4.0);
}

TEST(Reading, TheRecentMeanIsOverTheLastSamplesOnly) {
    Reading r;
    for (std::size_t i = 0; i < Reading::kRecent; ++i) r.add(100.0);
    EXPECT_DOUBLE_EQ(r.recent_mean(), 100.0);
    for (std::size_t i = 0; i < Reading::kRecent; ++i) r.add(2.0);
    EXPECT_DOUBLE_EQ(r.recent_mean(), 2.0);
    EXPECT_DOUBLE_EQ(r.run_mean(), 51.0);
}

TEST(Reading, ANonFiniteSampleIsIgnored) {
    Reading r;
    r.add(1.0);
    r.add(std::numeric_limits<double>::quiet_NaN());
    r.add(std::numeric_limits<double>::infinity());
    EXPECT_EQ(r.samples(), 1u);
    EXPECT_EQ(r.run_samples(), 1u);
    EXPECT_DOUBLE_EQ(r.recent_mean(), 1.0);
}

TEST(Reading, AnEmptyRunReadsZero) {
    const Reading r;
    EXPECT_EQ(r.run_mean(), 0.0);
    EXPECT_EQ(r.run_max(), 0.0);
    EXPECT_EQ(r.run_per_sec(), 0.0);
    EXPECT_EQ(r.recent_mean(), 0.0);
}

// A simulation that counts what the helper does to it.
class Counting final : public Simulation {
public:
    std::string_view name() const override { return "counting"; }
    std::string_view title() const override { return "Counting"; }
    void reset(std::uint64_t seed) override {
        seed_ = seed;
        ticks = 0;
        begun_at = -1;
    }
    void step(double) override { ++ticks; }
    void meters(std::vector<Meter>&) const override {}
    std::span<const MeterInfo> glossary() const override { return {}; }
    std::uint64_t checksum() const override { return seed_; }
    double time_s() const override { return static_cast<double>(ticks) / 60.0; }
    void begin_measurement() override { begun_at = ticks; }
    long ticks = 0;
    long begun_at = -1;

private:
    std::uint64_t seed_ = 0;
};

TEST(RunMeasured, ResetsWarmsUpBeginsThenMeasuresWholeTicks) {
    Counting sim;
    int seen = 0;
    run_measured(sim,
                 {.warmup_s = 3.0, .measure_s = 5.0, .tick_hz = 60, .seed = 9, .each_measured_tick = [&] { ++seen; }});
    EXPECT_EQ(sim.checksum(), 9u);
    EXPECT_EQ(sim.begun_at, 180);
    EXPECT_EQ(sim.ticks, 480);
    EXPECT_EQ(seen, 300);
    continue_measured(sim, 0.5, 0.25, 20);
    EXPECT_EQ(sim.begun_at, 490);
    EXPECT_EQ(sim.ticks, 495);
}

TEST(RunMeasured, EveryPlaygroundAcceptsBeginMeasurementMidRun) {
    for (const PlaygroundEntry& e : playground_catalog()) {
        std::unique_ptr<Simulation> sim = e.make();
        run_measured(*sim, {.warmup_s = 0.5, .measure_s = 0.5, .tick_hz = 60, .seed = 3});
        EXPECT_NEAR(sim->time_s(), 1.0, 1e-9) << e.name;
    }
}

}  // namespace
}  // namespace vantage::play
