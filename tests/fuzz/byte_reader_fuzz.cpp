// libFuzzer target for the ByteReader primitives; the body is shared with the seeded corpus test
// (tests/support/delta_fuzz.hpp). Build with -DVANTAGE_BUILD_FUZZ=ON and clang, then run
// e.g. ./build/fuzz/tests/byte_reader_fuzz -max_total_time=60
#include <cstddef>
#include <cstdint>
#include <span>

#include "support/delta_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    vantage::fuzz::require(vantage::fuzz::fuzz_byte_reader(std::span<const std::uint8_t>(data, size)));
    return 0;
}
