// libFuzzer target for preset and tour files (common/preset.hpp, common/tour.hpp): the parsers
// alone, so it runs at parser speed (text_fuzz drives URL hashes through a whole Host). The
// body is shared with the seeded corpus test (tests/support/text_fuzz.hpp). Build with
// -DVANTAGE_BUILD_FUZZ=ON and clang, then e.g. ./build/fuzz/tests/preset_fuzz -max_total_time=60
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "support/text_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    vantage::fuzz::fuzz_preset_text(std::string_view(reinterpret_cast<const char*>(data), size));
    return 0;
}
