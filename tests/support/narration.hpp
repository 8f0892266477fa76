// The packet inspector's narration property, shared by the wire tests and the fuzz bodies: the
// fields a decoder narrated tile the packet, in order, each at least one byte, nothing left out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/wire_trace.hpp"

namespace vantage::fuzz {

inline bool narration_tiles(std::span<const std::uint8_t> bytes, const std::vector<play::WireField>& fields) {
    std::size_t at = 0;
    for (const play::WireField& f : fields) {
        if (f.offset != at || f.size == 0) return false;
        at += f.size;
    }
    return at == bytes.size();
}

}  // namespace vantage::fuzz
