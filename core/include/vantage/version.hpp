// The library's version, the one place it is written: CMake reads these three lines for the
// project, the package version file (find_package(vantage 0.1)) and vantage.pc.
#pragma once

#define VANTAGE_VERSION_MAJOR 0
#define VANTAGE_VERSION_MINOR 1
#define VANTAGE_VERSION_PATCH 0

namespace vantage {

// The version of the headers this code was compiled against. (Not `major`/`minor`: glibc
// defines macros with those names.)
inline constexpr int kVersionMajor = VANTAGE_VERSION_MAJOR;
inline constexpr int kVersionMinor = VANTAGE_VERSION_MINOR;
inline constexpr int kVersionPatch = VANTAGE_VERSION_PATCH;

}  // namespace vantage
