// The seeded corpus for the text decoders (tests/support/text_fuzz.hpp): the real preset and
// tour files, the real links, mutated, and URL values a hand or a script gets wrong.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/catalog.hpp"
#include "support/fuzz_corpus.hpp"
#include "support/text_fuzz.hpp"

namespace vantage::play {
namespace {

std::string text_of(const Bytes& b) {
    return std::string(b.begin(), b.end());
}
Bytes bytes_of(const std::string& s) {
    return Bytes(s.begin(), s.end());
}

TEST(TextFuzz, PresetAndTourFilesSurviveMutation) {
    std::size_t kept = 0;
    for (const char* name : {"horde", "horde-tour", "horde-room", "blackhole", "blackhole-tour", "netcode",
                             "netcode-tour", "meter", "meter-tour", "proximity", "proximity-tour"}) {
        const std::string text = read_text_file(std::string(VANTAGE_PRESETS_DIR) + "/" + name + ".ini");
        ASSERT_FALSE(text.empty()) << name;
        EXPECT_GT(fuzz::fuzz_preset_text(text), 0u) << name;
        XorShift rng(mix64(text.size()));
        for (int i = 0; i < 150; ++i) {
            Bytes b = bytes_of(text);
            mutate(b, rng);
            kept += fuzz::fuzz_preset_text(text_of(b));
        }
    }
    EXPECT_GT(kept, 1000u);  // most mutations leave most sections standing
}

TEST(TextFuzz, ASecondSectionOfOneNameIsReportedAndIgnored) {
    const PresetFile f = parse_presets("[a]\ntitle = A\n[b]\ntitle = B\n[a]\ntitle = A again\nseconds = 5\n");
    ASSERT_EQ(f.presets.size(), 2u);
    EXPECT_EQ(f.presets[0].title, "A");
    EXPECT_EQ(f.presets[0].seconds, 30.0);
    ASSERT_EQ(f.errors.size(), 1u);
    EXPECT_EQ(f.errors[0], "line 5: a second [a]: its lines are ignored");
}

// Links as pages and teachers write them, then broken: every refused part is named, and the
// URL the host reports afterwards reproduces itself.
TEST(TextFuzz, UrlsAndTheirValuesNeverLeaveTheHostInAStateItsOwnLinkCannotReproduce) {
    Host host(make_all_simulations());
    load_all_presets(host, VANTAGE_PRESETS_DIR);
    std::vector<std::string> seeds = {"#horde/seed=5&loss=25&recovery=0", "#netcode/latency_ms=200&paused=1",
                                      "#blackhole/theta=1.2&holes=30", "#meter/preset=window-settles",
                                      "#proximity/seed=9"};
    for (std::size_t i = 0; i < host.count(); ++i) {
        const std::string name(host.sim(i).name());
        ASSERT_EQ(host.set("playground", name), "");
        seeds.push_back(host.url());
        for (const Preset& p : host.presets()) seeds.push_back("#" + name + "/" + p.settings);
    }
    const char* values[] = {
        "nan", "-nan", "inf", "-inf",     "1e309", "-1e308", "", "0x10", " 5", "5 ", "1e-320", "99999999999999999999",
        "-0",  "+3",   "1,5", "\xff\xfe", "%41",   "true",   "="};
    int clean = 0;
    XorShift rng(11);
    for (int i = 0; i < 400; ++i) {
        std::string url = seeds[static_cast<std::size_t>(rng.below(seeds.size()))];
        if (rng.chance(0.5f)) {
            // A value replaced by one of the classics.
            const std::size_t eq = url.find('=', static_cast<std::size_t>(rng.below(url.size())));
            if (eq != std::string::npos) {
                const std::size_t end = url.find('&', eq);
                url.replace(eq + 1, end == std::string::npos ? std::string::npos : end - eq - 1,
                            values[rng.below(std::size(values))]);
            }
        } else {
            Bytes b = bytes_of(url);
            mutate(b, rng);
            url = text_of(b);
        }
        clean += fuzz::fuzz_url(host, url) ? 1 : 0;
    }
    EXPECT_GT(clean, 20);
    EXPECT_LT(clean, 380);
}

}  // namespace
}  // namespace vantage::play
