// Compiler hints the headers' inline code uses, each guarded, each with a standard C++
// fallback (no intrinsics header is included here or in any public header):
//   VANTAGE_ALWAYS_INLINE, VANTAGE_ALWAYS_INLINE_LAMBDA  inline at every call site
//   VANTAGE_PREFETCH(address)                           start reading a cache line
//   VANTAGE_KEEP(value)                                 keep a load the result does not use
// VANTAGE_PORTABLE=1 (CMake: -DVANTAGE_PORTABLE=ON, a public definition so every translation
// unit agrees) compiles the fallbacks of these and of the library's private SIMD layer
// (core/src/simd.hpp); ./vantage test runs the core's tests built that way (suite portable).
//
// VANTAGE_ALWAYS_INLINE: `inline`, plus the compiler's promise to inline at every call site.
//
// A function declared `inline` is inlined only within the compiler's size budget, so whether
// a small hot function (a visitor-taking query, an insert with a rare slow path) inlined into
// its caller used to depend on the call site and the compiler: out of line, each call paid
// the call, and in wasm its arguments and results went through memory (the measurements are
// in the benchmark results' history, tests/bench/results/history.md).
#pragma once

#ifndef VANTAGE_PORTABLE
#define VANTAGE_PORTABLE 0
#endif

#ifndef VANTAGE_ALWAYS_INLINE
#if (defined(__GNUC__) || defined(__clang__)) && !VANTAGE_PORTABLE
#define VANTAGE_ALWAYS_INLINE [[gnu::always_inline]] inline
#elif defined(_MSC_VER) && !VANTAGE_PORTABLE
#define VANTAGE_ALWAYS_INLINE __forceinline
#else
#define VANTAGE_ALWAYS_INLINE inline
#endif
#endif

// The same promise for a lambda, written after its parameter list:
//   visit_band(n, reach, [&](std::uint32_t m) VANTAGE_ALWAYS_INLINE_LAMBDA { ... });
// A visitor whose body holds a push_back (a call on its growth path) was left out of line by
// clang in wasm and then cost a call per visited node.
#ifndef VANTAGE_ALWAYS_INLINE_LAMBDA
#if (defined(__GNUC__) || defined(__clang__)) && !VANTAGE_PORTABLE
#define VANTAGE_ALWAYS_INLINE_LAMBDA __attribute__((always_inline))
#else
#define VANTAGE_ALWAYS_INLINE_LAMBDA
#endif
#endif

// VANTAGE_PREFETCH(address): asks for the cache line holding *address to be read ahead, so
// that several misses overlap (the grid's queries start every row's first read this way).
// A hint only: no effect on results; nothing where the target has no prefetch (wasm).
#ifndef VANTAGE_PREFETCH
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__wasm__) && !VANTAGE_PORTABLE
#define VANTAGE_PREFETCH(address) __builtin_prefetch(address)
#else
#define VANTAGE_PREFETCH(address) static_cast<void>(address)
#endif
#endif

// VANTAGE_KEEP(value): an empty statement that claims to read value, so the load producing
// it is issued even though nothing uses it (wasm has no prefetch; an early load of a row's
// first element is its stand-in). Elsewhere, and in the portable build, nothing.
#ifndef VANTAGE_KEEP
#if (defined(__GNUC__) || defined(__clang__)) && defined(__wasm__) && !VANTAGE_PORTABLE
#define VANTAGE_KEEP(value) __asm__ volatile("" : : "r"(value))
#else
#define VANTAGE_KEEP(value) static_cast<void>(value)
#endif
#endif
