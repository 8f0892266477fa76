// VANTAGE_ALWAYS_INLINE: `inline`, plus the compiler's promise to inline at every call site.
//
// A function declared `inline` is inlined only within the compiler's size budget, so whether
// a small hot function (a visitor-taking query, an insert with a rare slow path) inlined into
// its caller used to depend on the call site and the compiler: out of line, each call paid
// the call, and in wasm its arguments and results went through memory. Measured where it is
// used (core/docs/relevance.md): 1.2x to 6x for the grid's radius query, 1.3x for the
// visibility set's insert in wasm.
#pragma once

#ifndef VANTAGE_ALWAYS_INLINE
#if defined(__GNUC__) || defined(__clang__)
#define VANTAGE_ALWAYS_INLINE [[gnu::always_inline]] inline
#else
#define VANTAGE_ALWAYS_INLINE inline
#endif
#endif

// The same promise for a lambda, written after its parameter list:
//   visit_band(n, reach, [&](std::uint32_t m) VANTAGE_ALWAYS_INLINE_LAMBDA { ... });
// A visitor whose body holds a push_back (a call on its growth path) was left out of line by
// clang in wasm and then cost a call per visited node.
#ifndef VANTAGE_ALWAYS_INLINE_LAMBDA
#if defined(__GNUC__) || defined(__clang__)
#define VANTAGE_ALWAYS_INLINE_LAMBDA __attribute__((always_inline))
#else
#define VANTAGE_ALWAYS_INLINE_LAMBDA
#endif
#endif
