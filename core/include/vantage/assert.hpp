// VANTAGE_ASSERT: checks for programmer misuse that stay on in release builds.
//
// Misuse is a precondition the calling code broke: options that fail validate(), keys that
// are not ascending, an index past a documented maximum, time that runs backwards. Carrying
// on past one gives wrong answers that surface far away (an unsorted key list once made one
// removal come out as "one entered, two left"), so the check is not compiled out by NDEBUG.
// A failed check calls the assert handler, which by default prints
//
//     vantage: file.cpp:123: check failed: <condition>: <message>
//
// to stderr and aborts. Bad *data* (bytes off the wire, a URL parameter) is not misuse: the
// decoders and parsers return a status for it, never assert.
//
// Two kinds, so that cost is a decision and not an accident:
//   VANTAGE_ASSERT(condition, message)      O(1) per call: always on.
//   VANTAGE_ASSERT_VALID(options, what)     options.validate() (a std::string_view, empty
//                                           when valid: core/docs/conventions.md) passes,
//                                           always on; the message is `what` plus
//                                           validate()'s own reason.
//   VANTAGE_ASSERT_HOT(condition, message)  checks repeated on a hot path (every key of a
//                                           plan or an encoded list, every encoded
//                                           coordinate): on by default; building with
//                                           VANTAGE_HOT_ASSERTS=0 (CMake option
//                                           VANTAGE_HOT_ASSERTS=OFF) compiles them out. Their
//                                           measured cost is in core/docs/asserts.md.
// The condition of a compiled-out check is not evaluated (it must still compile). message
// names the function and what was wrong (a string literal, or any string that outlives the
// call).
#pragma once

#include <cstddef>
#include <string_view>
#include <type_traits>

#ifndef VANTAGE_HOT_ASSERTS
#define VANTAGE_HOT_ASSERTS 1
#endif

namespace vantage {

// Called with the failed check's file, line, condition text and message. It may log and
// return (abort follows) or throw to unwind (a test harness can); it must not be used to
// carry on past the failed check.
using AssertHandler = void (*)(const char* file, int line, const char* condition, const char* message);

// Installs handler for every later failed check and returns the previous one; nullptr
// restores the default (print to stderr). Thread-safe; meant to be set once at start-up.
AssertHandler set_assert_handler(AssertHandler handler);
AssertHandler assert_handler();

// What the macros call on failure: the handler, then std::abort() if the handler returns.
[[noreturn]] void assert_failed(const char* file, int line, const char* condition, const char* message);
// VANTAGE_ASSERT_VALID's failure: the message is "<what>: <why>", why being why_size chars
// at why_data. The reason travels as two scalars rather than a std::string_view because the
// wasm C ABI passes a struct by pointer to a copy on the C stack, and wasm has no
// shrink-wrapping: a function with the check moved the C stack pointer on every call,
// failing or not (em++ -O2: a frame with the string_view, none with the two scalars).
[[noreturn]] void assert_invalid(const char* file, int line, const char* condition, const char* what,
                                 const char* why_data, std::size_t why_size);

}  // namespace vantage

#define VANTAGE_ASSERT(condition, message)                                     \
    do {                                                                       \
        if (!(condition)) [[unlikely]]                                         \
            ::vantage::assert_failed(__FILE__, __LINE__, #condition, message); \
    } while (false)

#define VANTAGE_ASSERT_VALID(options, what)                                                                  \
    do {                                                                                                     \
        static_assert(std::is_same_v<decltype((options).validate()), std::string_view>,                      \
                      "validate() returns std::string_view, empty when valid (core/docs/conventions.md)");   \
        const std::string_view vantage_why_ = (options).validate();                                          \
        if (!vantage_why_.empty()) [[unlikely]]                                                              \
            ::vantage::assert_invalid(__FILE__, __LINE__, #options ".validate()", what, vantage_why_.data(), \
                                      vantage_why_.size());                                                  \
    } while (false)

#if VANTAGE_HOT_ASSERTS
#define VANTAGE_ASSERT_HOT(condition, message) VANTAGE_ASSERT(condition, message)
#else
#define VANTAGE_ASSERT_HOT(condition, message)   \
    do {                                         \
        static_cast<void>(sizeof(!(condition))); \
    } while (false)
#endif
