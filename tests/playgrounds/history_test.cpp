#include <gtest/gtest.h>

#include "common/history.hpp"

namespace vantage::play {
namespace {

TEST(MeterHistory, KeepsTheNewestSamplesWithTheirTimes) {
    MeterHistory h(3);
    for (int i = 0; i < 5; ++i) h.record({{"a", "", 10.0 * i}, {"b", "", -1.0 * i}}, 0.25 * i);
    std::vector<float> v, t;
    ASSERT_TRUE(h.values("a", v));
    EXPECT_EQ(v, (std::vector<float>{20.0f, 30.0f, 40.0f}));
    h.times(h.capacity(), t);
    EXPECT_EQ(t, (std::vector<float>{0.5f, 0.75f, 1.0f}));
    h.times(2, t);
    EXPECT_EQ(t, (std::vector<float>{0.75f, 1.0f}));
    EXPECT_FALSE(h.values("c", v));
    EXPECT_EQ(h.size(), 3u);
    h.clear();
    EXPECT_EQ(h.size(), 0u);
    h.times(h.capacity(), t);
    EXPECT_TRUE(t.empty());
}

TEST(MeterHistory, ExportsEverySampleAsCsv) {
    MeterHistory h(4);
    h.record({{"kib_s", "KiB/s", 1.5}, {"phantoms", "", 3.0}}, 0.0);
    h.record({{"kib_s", "KiB/s", 2.25}, {"phantoms", "", 4.0}}, 0.25);
    EXPECT_EQ(h.csv(), "time_s,kib_s,phantoms\n0.000,1.5,3\n0.250,2.25,4\n");
}

}  // namespace
}  // namespace vantage::play
