// libFuzzer target for the horde packet's decoder with the re-encode property; the body is
// shared with the seeded corpus test (tests/support/horde_fuzz.hpp). Build with
// -DVANTAGE_BUILD_FUZZ=ON and clang, then e.g. ./build/fuzz/tests/horde_packet_fuzz -max_total_time=60
#include <cstddef>
#include <cstdint>
#include <span>

#include "support/horde_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    vantage::fuzz::fuzz_horde_packet(std::span<const std::uint8_t>(data, size));
    return 0;
}
