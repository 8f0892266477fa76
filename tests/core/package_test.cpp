// The library as a package: the umbrella header lists every public header, the public headers
// include only the standard library and each other (no intrinsics, platform or third-party
// header), and the README's "Using the library" example is tests/consumer/main.cpp verbatim (./vantage test builds and
// runs that file against the installed package, FetchContent and add_subdirectory).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "vantage/vantage.hpp"

namespace vantage {
namespace {

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

const std::filesystem::path kRepo = std::filesystem::path(VANTAGE_TESTS_DIR) / "..";

TEST(Package, TheUmbrellaHeaderIncludesEveryPublicHeader) {
    const std::filesystem::path dir = kRepo / "core" / "include" / "vantage";
    const std::string umbrella = read_file(dir / "vantage.hpp");
    ASSERT_FALSE(umbrella.empty()) << dir;
    int headers = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        const std::string name = entry.path().filename().string();
        if (entry.path().extension() != ".hpp" || name == "vantage.hpp") continue;
        ++headers;
        EXPECT_NE(umbrella.find("#include \"vantage/" + name + "\""), std::string::npos)
            << "core/include/vantage/vantage.hpp does not include " << name;
    }
    EXPECT_GT(headers, 30);
}

TEST(Package, PublicHeadersIncludeOnlyTheStandardLibraryAndEachOther) {
    // A standard C++ header is <name>: no directory, no .h (so <emmintrin.h>, <wasm_simd128.h>,
    // <SDL.h> and <boost/...> all fail); a header of the library is "vantage/<name>.hpp".
    const std::filesystem::path dir = kRepo / "core" / "include" / "vantage";
    int includes = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        if (entry.path().extension() != ".hpp") continue;
        std::istringstream in(read_file(entry.path()));
        for (std::string line; std::getline(in, line);) {
            const std::size_t at = line.find("#include");
            if (at == std::string::npos || line.find_first_not_of(" \t") != at) continue;
            ++includes;
            const std::size_t open = line.find_first_of("<\"", at);
            ASSERT_NE(open, std::string::npos) << entry.path().filename() << ": " << line;
            const std::size_t close = line.find(line[open] == '<' ? '>' : '"', open + 1);
            ASSERT_NE(close, std::string::npos) << entry.path().filename() << ": " << line;
            const std::string name = line.substr(open + 1, close - open - 1);
            if (line[open] == '"') {
                EXPECT_TRUE(name.rfind("vantage/", 0) == 0 && name.ends_with(".hpp"))
                    << entry.path().filename() << " includes \"" << name << "\", not a public header";
            } else {
                EXPECT_TRUE(name.find('/') == std::string::npos && name.find('.') == std::string::npos)
                    << entry.path().filename() << " includes <" << name << ">, not a standard C++ header";
            }
        }
    }
    EXPECT_GT(includes, 100);
}

TEST(Package, TheReadmeShowsTheConsumerExampleVerbatim) {
    const std::string example = read_file(kRepo / "tests" / "consumer" / "main.cpp");
    const std::string readme = read_file(kRepo / "README.md");
    ASSERT_FALSE(example.empty());
    EXPECT_NE(readme.find("```cpp\n" + example + "```\n"), std::string::npos)
        << "README.md's \"Using the library\" example differs from tests/consumer/main.cpp: copy the file into it";
}

}  // namespace
}  // namespace vantage
