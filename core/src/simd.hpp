// The library's private SIMD layer: which vector path a source file compiles, decided once.
// Private to core/src (never installed, never included by a public header). Every vector path
// has a standard C++ twin beside it that gives the same results bit for bit; with
// VANTAGE_PORTABLE=1 (CMake -DVANTAGE_PORTABLE=ON) only the twins are compiled, and the
// core's tests run that way too (./vantage test portable), so both stay tested.
//
//   VANTAGE_SIMD_SSE2  x86-64 natively (SSE2 is part of the ABI): <emmintrin.h>
//   VANTAGE_SIMD_WASM  WebAssembly built with -msimd128: <wasm_simd128.h>
//   neither            the standard C++ twins
#pragma once

#include "vantage/always_inline.hpp"  // VANTAGE_PORTABLE's default

#if defined(__SSE2__) && !defined(__EMSCRIPTEN__) && !VANTAGE_PORTABLE
#define VANTAGE_SIMD_SSE2 1
#include <emmintrin.h>
#else
#define VANTAGE_SIMD_SSE2 0
#endif

#if defined(__wasm_simd128__) && !VANTAGE_PORTABLE
#define VANTAGE_SIMD_WASM 1
#include <wasm_simd128.h>
#else
#define VANTAGE_SIMD_WASM 0
#endif
