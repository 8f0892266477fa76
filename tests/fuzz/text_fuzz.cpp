// libFuzzer target for URL hashes with their values, applied to a host of every playground (the
// preset and tour parsers have their own, faster target: preset_fuzz). The body is shared with
// the seeded corpus test (tests/support/text_fuzz.hpp). Build with -DVANTAGE_BUILD_FUZZ=ON and clang, then e.g.
// ./build/fuzz/tests/text_fuzz -max_total_time=60
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "common/catalog.hpp"
#include "support/text_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    // One host for the run (building every world per input would drown the fuzzer); each input
    // starts from wherever the last left it, which is what a page's host sees too.
    static const std::unique_ptr<vantage::play::Host> host =
        std::make_unique<vantage::play::Host>(vantage::play::make_all_simulations());
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    vantage::fuzz::fuzz_url(*host, text);
    return 0;
}
