// The same seeded computation gives the same checksum natively (-O0, -O2, ASan) and in wasm.
// The golden value is printed on failure so a deliberate change can re-pin it.
#include <gtest/gtest.h>

#include <cstdio>
#include "vantage/bit_cast.hpp"

#include "vantage/random.hpp"
#include "vantage/rate_meter.hpp"
#include "vantage/vec.hpp"

namespace vantage {
namespace {

std::uint64_t seeded_workload(std::uint64_t seed) {
    XorShift rng(seed);
    RateMeter meter;
    Vec2 p{0.0f, 0.0f};
    Vec2 v{1.0f, 0.5f};
    std::uint64_t h = 0;
    for (int tick = 0; tick < 20000; ++tick) {
        meter.elapsed(tick * (1000.0 / 60.0));
        meter.add(static_cast<double>(rng.below(1500)));
        const Vec2 accel{rng.range(-1.0f, 1.0f), rng.range(-1.0f, 1.0f)};
        v = (v + accel * (1.0f / 60.0f)) * 0.999f;
        p += v * (1.0f / 60.0f);
        if (tick % 100 == 0) {
            h = mix64(h ^ vantage::bit_cast<std::uint64_t>(meter.per_sec()));
            h = mix64(h ^ vantage::bit_cast<std::uint32_t>(p.x) ^
                      (std::uint64_t{vantage::bit_cast<std::uint32_t>(p.y)} << 32));
            h = mix64(h ^ vantage::bit_cast<std::uint32_t>(p.normalize().length() + v.length()));
        }
    }
    return h;
}

TEST(Determinism, GoldenChecksumMatchesOnEveryPlatform) {
    const std::uint64_t got = seeded_workload(0x5EED);
    constexpr std::uint64_t kGolden = 0x2d40e9082cdd1217ULL;
    EXPECT_EQ(got, kGolden) << "actual checksum: 0x" << std::hex << got;
}

TEST(Determinism, TwinRunsWithTheSameSeedAgree) {
    EXPECT_EQ(seeded_workload(99), seeded_workload(99));
    EXPECT_NE(seeded_workload(99), seeded_workload(100));
}

}  // namespace
}  // namespace vantage
