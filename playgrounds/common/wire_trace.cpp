#include "common/wire_trace.hpp"

#include <cstdio>

namespace vantage::play {

std::string wire_ms_text(double ms) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.10g ms", ms);
    return buf;
}

std::string wire_vec_text(Vec2 v, const char* unit) {
    char buf[80];
    std::snprintf(buf, sizeof buf, "(%.10g, %.10g)%s%s", static_cast<double>(v.x), static_cast<double>(v.y),
                  *unit ? " " : "", unit);
    return buf;
}

std::string wire_int_text(std::uint64_t v) {
    return std::to_string(v);
}

std::string wire_hex(std::span<const std::uint8_t> bytes, std::size_t offset, std::size_t size) {
    std::string hex;
    for (std::size_t i = offset; i < offset + size && i < bytes.size(); ++i) {
        char b[4];
        std::snprintf(b, sizeof b, "%02X ", bytes[i]);
        hex += b;
    }
    return hex;
}

}  // namespace vantage::play
