#include "room/room_url.hpp"

#include <charconv>

namespace vantage::room {

std::string RoomUrl::host_header() const {
    const bool v6 = host.find(':') != std::string::npos;
    return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

std::string parse_room_url(std::string_view text, RoomUrl& out) {
    for (const char c : text) {
        if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return "url contains a space or control character";
    }
    constexpr std::string_view scheme = "ws://";
    if (text.substr(0, 6) == "wss://") return "wss:// is not supported (no TLS): use ws://";
    if (text.substr(0, scheme.size()) != scheme) return "url must start with ws:// (got \"" + std::string(text) + "\")";
    std::string_view rest = text.substr(scheme.size());
    if (rest.find('#') != std::string_view::npos) return "url must not contain a fragment (#)";

    const std::size_t slash = rest.find_first_of("/?");
    std::string_view authority = rest.substr(0, slash);
    std::string path = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
    if (path[0] == '?') path.insert(path.begin(), '/');
    if (authority.find('@') != std::string_view::npos) return "url must not contain user info (@)";
    if (authority.empty()) return "url has no host";

    RoomUrl url;
    std::string_view port_text;
    if (authority[0] == '[') {
        const std::size_t close = authority.find(']');
        if (close == std::string_view::npos) return "IPv6 host needs a closing ]";
        url.host = std::string(authority.substr(1, close - 1));
        if (url.host.empty()) return "url has no host";
        std::string_view after = authority.substr(close + 1);
        if (!after.empty()) {
            if (after[0] != ':') return "unexpected text after the IPv6 host";
            port_text = after.substr(1);
            if (port_text.empty()) return "port is empty";
        }
    } else {
        const std::size_t colon = authority.find(':');
        url.host = std::string(authority.substr(0, colon));
        if (url.host.empty()) return "url has no host";
        if (colon != std::string_view::npos) {
            port_text = authority.substr(colon + 1);
            if (port_text.empty()) return "port is empty";
        }
    }
    if (!port_text.empty()) {
        unsigned value = 0;
        const auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), value);
        if (ec != std::errc() || end != port_text.data() + port_text.size() || value < 1 || value > 65535) {
            return "port must be a number in [1, 65535] (got \"" + std::string(port_text) + "\")";
        }
        url.port = static_cast<std::uint16_t>(value);
    }
    url.path = std::move(path);
    out = std::move(url);
    return {};
}

}  // namespace vantage::room
