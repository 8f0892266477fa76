// Golden checksums shared by the native, wasm and browser suites: each playground pins one
// in tests/playgrounds/golden_<name>_checksum.txt (16 hex digits), which the browser test
// reads too, so one file states the value every platform must reproduce.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>

namespace vantage::play {

// Passes when `checksum` equals the pinned value; on failure prints the actual one so a
// deliberate change can re-pin it.
inline ::testing::AssertionResult matches_golden(const std::string& playground, std::uint64_t checksum) {
    const std::string path = std::string(VANTAGE_TESTS_DIR) + "/playgrounds/golden_" + playground + "_checksum.txt";
    std::FILE* f = std::fopen(path.c_str(), "r");
    if (!f) return ::testing::AssertionFailure() << "cannot read " << path;
    char golden[32] = {};
    const int read = std::fscanf(f, "%31s", golden);
    std::fclose(f);
    char got[32];
    std::snprintf(got, sizeof got, "%016llx", static_cast<unsigned long long>(checksum));
    if (read == 1 && std::string(got) == golden) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << path << " pins " << golden << ", actual checksum: " << got;
}

}  // namespace vantage::play
