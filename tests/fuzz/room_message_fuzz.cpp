// libFuzzer target for the room protocol's decoders, both directions; the bodies are shared
// with the seeded corpus test (tests/support/room_fuzz.hpp). Build with -DVANTAGE_BUILD_FUZZ=ON
// and clang, then run e.g. ./build/fuzz/tests/room_message_fuzz -max_total_time=60
#include <cstddef>
#include <cstdint>
#include <span>

#include "support/room_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::span<const std::uint8_t> bytes(data, size);
    vantage::fuzz::fuzz_client_message(bytes);
    vantage::fuzz::fuzz_server_message(bytes);
    return 0;
}
