// libFuzzer target for the netcode playground's input and state decoders (and their
// narration); the bodies are shared with the seeded corpus test (tests/support/netcode_fuzz.hpp).
// Build with -DVANTAGE_BUILD_FUZZ=ON and clang, then e.g.
// ./build/fuzz/tests/netcode_packet_fuzz -max_total_time=60
#include <cstddef>
#include <cstdint>
#include <span>

#include "support/netcode_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::span<const std::uint8_t> bytes(data, size);
    vantage::fuzz::fuzz_input_packet(bytes);
    vantage::fuzz::fuzz_state_packet(bytes);
    return 0;
}
