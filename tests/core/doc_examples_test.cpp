// Every example in core/docs compiles and runs: each ```cpp block of core/docs/*.md is either
// a region of a file in core/docs/examples/ (built into this test binary and run below), shown
// verbatim, or marked as a fragment (a declaration or a line that is not a program) with
// `<!-- fragment: why -->` on the line before it.
//
// A region is the text between `// doc-begin: NAME` and `// doc-end: NAME` in the example file,
// less the begin line's indentation; the block names it on the line before its fence:
// `<!-- example: examples/FILE.cpp#NAME -->`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace vantage::examples {
bool delta_stream_example();
bool relevance_example();
bool aggregate_example();
}  // namespace vantage::examples

namespace vantage {
namespace {

const std::filesystem::path kDocs = std::filesystem::path(VANTAGE_TESTS_DIR) / ".." / "core" / "docs";

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

bool starts_with(const std::string& s, const std::string& prefix) {
    return s.compare(0, prefix.size(), prefix) == 0;
}

// The region NAME of an example file, dedented; empty (with why set) when absent.
std::string region(const std::filesystem::path& file, const std::string& name, std::string& why) {
    const std::vector<std::string> lines = lines_of(read_file(file));
    if (lines.empty()) {
        why = "cannot read " + file.string();
        return {};
    }
    std::string out;
    std::size_t indent = std::string::npos;
    for (const std::string& line : lines) {
        const std::size_t first = line.find_first_not_of(' ');
        const std::string body = first == std::string::npos ? std::string() : line.substr(first);
        if (indent == std::string::npos) {
            if (body == "// doc-begin: " + name) indent = first;
            continue;
        }
        if (body == "// doc-end: " + name) return out;
        out += line.size() >= indent ? line.substr(indent) : std::string();
        out += '\n';
    }
    why = indent == std::string::npos ? "no `// doc-begin: " + name + "` in " + file.string()
                                      : "no `// doc-end: " + name + "` in " + file.string();
    return {};
}

TEST(DocExamples, TheDeltaStreamExampleConvergesOverALossyLink) {
    EXPECT_TRUE(examples::delta_stream_example());
}

TEST(DocExamples, TheRelevanceExampleSumsItsSpawnsAndDespawnsToTheFinalSet) {
    EXPECT_TRUE(examples::relevance_example());
}

TEST(DocExamples, TheAggregateExampleSendsEveryClientAllTheWeight) {
    EXPECT_TRUE(examples::aggregate_example());
}

TEST(DocExamples, EveryCppBlockInTheDocsIsACompiledExampleOrAMarkedFragment) {
    int blocks = 0, examples = 0;
    for (const auto& entry : std::filesystem::directory_iterator(kDocs)) {
        if (entry.path().extension() != ".md") continue;
        const std::string doc = entry.path().filename().string();
        const std::vector<std::string> lines = lines_of(read_file(entry.path()));
        for (std::size_t i = 0; i < lines.size(); ++i) {
            if (lines[i] != "```cpp") continue;
            ++blocks;
            std::string block;
            std::size_t end = i + 1;
            for (; end < lines.size() && lines[end] != "```"; ++end) block += lines[end] + "\n";
            const std::string marker = i > 0 ? lines[i - 1] : std::string();
            const std::string where = doc + ":" + std::to_string(i + 1);
            if (starts_with(marker, "<!-- fragment:") && marker.size() > 20) {
                // A fragment says why it is not a program.
            } else if (starts_with(marker, "<!-- example: ") && marker.size() > 18 &&
                       marker.compare(marker.size() - 4, 4, " -->") == 0) {
                const std::string ref = marker.substr(14, marker.size() - 18);
                const std::size_t hash = ref.find('#');
                ASSERT_NE(hash, std::string::npos) << where << ": write `<!-- example: examples/FILE.cpp#NAME -->`";
                std::string why;
                const std::string want = region(kDocs / ref.substr(0, hash), ref.substr(hash + 1), why);
                ASSERT_TRUE(why.empty()) << where << ": " << why;
                EXPECT_EQ(block, want) << where << " differs from " << ref << ": copy the region into the block";
                ++examples;
            } else {
                ADD_FAILURE() << where
                              << ": a ```cpp block needs `<!-- example: examples/FILE.cpp#NAME -->` (compiled "
                                 "and run by this test) or `<!-- fragment: why -->` on the line before it";
            }
            i = end;
        }
    }
    EXPECT_GT(blocks, 0);
    EXPECT_GE(examples, 3);
}

}  // namespace
}  // namespace vantage
