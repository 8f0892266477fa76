#include "vantage/assert.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace vantage {
namespace {

void print_to_stderr(const char* file, int line, const char* condition, const char* message) {
    std::fprintf(stderr, "vantage: %s:%d: check failed: %s: %s\n", file, line, condition, message);
    std::fflush(stderr);
}

std::atomic<AssertHandler> g_handler{nullptr};  // nullptr: print_to_stderr

}  // namespace

AssertHandler set_assert_handler(AssertHandler handler) {
    const AssertHandler previous = g_handler.exchange(handler);
    return previous ? previous : print_to_stderr;
}

AssertHandler assert_handler() {
    const AssertHandler handler = g_handler.load();
    return handler ? handler : print_to_stderr;
}

void assert_failed(const char* file, int line, const char* condition, const char* message) {
    assert_handler()(file, line, condition, message);
    std::abort();
}

void assert_invalid(const char* file, int line, const char* condition, const char* what, const char* why_data,
                    std::size_t why_size) {
    // One message per thread; the handler runs before anything else can fail on this thread.
    thread_local char message[256];
    std::snprintf(message, sizeof message, "%s: %.*s", what, static_cast<int>(why_size), why_data);
    assert_failed(file, line, condition, message);
}

}  // namespace vantage
