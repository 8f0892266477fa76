// vantage::bit_cast: std::bit_cast for the toolchains we build with. Emscripten 3.1.6's
// libc++ has no std::bit_cast, so this is the portable memcpy form (same semantics for
// trivially copyable types of equal size; not constexpr).
#pragma once

#include <cstring>
#include <type_traits>

namespace vantage {

template <class To, class From>
To bit_cast(const From& from) {
    static_assert(sizeof(To) == sizeof(From), "bit_cast needs types of equal size");
    static_assert(std::is_trivially_copyable_v<To> && std::is_trivially_copyable_v<From>);
    To to;
    std::memcpy(&to, &from, sizeof(To));
    return to;
}

}  // namespace vantage
