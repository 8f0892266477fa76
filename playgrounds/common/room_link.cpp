#include "common/room_link.hpp"

#include <cstdio>

#include "common/playground_list.hpp"
#include "common/room_wire.hpp"

namespace vantage::play {

namespace {
// "%20" and "+" in a name typed into a link; anything else stays as typed (the server
// sanitises names in any case).
std::string url_decode(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        auto hex = [](char c) {
            return c >= '0' && c <= '9'   ? c - '0'
                   : c >= 'a' && c <= 'f' ? c - 'a' + 10
                   : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                          : -1;
        };
        if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
            out.push_back(static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2])));
            i += 2;
        } else {
            out.push_back(s[i] == '+' ? ' ' : s[i]);
        }
    }
    return out;
}
}  // namespace

std::string split_room_link(std::string_view hash, RoomLink& link, std::vector<std::string>& errors) {
    link = RoomLink{};
    if (!hash.empty() && hash[0] == '#') hash.remove_prefix(1);
    const std::size_t slash = hash.find('/');
    link.playground = std::string(hash.substr(0, slash));
    if (slash == std::string_view::npos) return std::string(hash);
    std::string rest = link.playground + "/";
    bool first = true;
    std::string_view list = hash.substr(slash + 1);
    while (!list.empty()) {
        const std::size_t amp = list.find('&');
        const std::string_view part = list.substr(0, amp);
        list = amp == std::string_view::npos ? std::string_view{} : list.substr(amp + 1);
        if (part == "join") {
            link.join = true;
        } else if (part.rfind("name=", 0) == 0) {
            const std::string name = url_decode(part.substr(5));
            if (name.empty() || name.size() > kMaxNameBytes) {
                errors.push_back("'name' must be 1 to 24 bytes of UTF-8 (24 letters of English, fewer of others)");
            } else if (!valid_utf8(name)) {
                errors.push_back("'name' is not valid UTF-8: percent-encode its letters' UTF-8 bytes");
            } else {
                link.name = sanitize_name(name);
            }
        } else if (part == "teach") {
            link.teach = true;
        } else if (part == "follow") {
            link.follow = true;
        } else if (part.rfind("token=", 0) == 0) {
            const std::string_view token = part.substr(6);
            if (token.empty() || token.size() > kMaxTokenBytes ||
                token.find_first_not_of("0123456789abcdefABCDEF") != std::string_view::npos) {
                errors.push_back("'token' must be the hex token `vantage serve` printed");
            } else {
                link.token = std::string(token);
            }
        } else if (part.rfind("room=", 0) == 0) {
            const std::string url = url_decode(part.substr(5));
            if (url.rfind("ws://", 0) != 0 && url.rfind("wss://", 0) != 0) {
                errors.push_back("'room' must be a ws:// URL (got '" + url + "')");
            } else {
                link.url = url;
            }
        } else if (!part.empty()) {
            rest += (first ? "" : "&") + std::string(part);
            first = false;
        }
    }
    return rest;
}

std::string class_link_suffix(const RoomLink& link) {
    if (link.teach) return "&teach&token=" + link.token;
    if (link.follow) return "&follow";
    return {};
}

std::string room_link_hash(const RoomLink& link) {
    std::string out = "#" + (link.playground.empty() ? std::string(kDefaultRoom) : link.playground) + "/join";
    if (!link.name.empty()) {
        out += "&name=";
        for (char c : link.name) {
            if (c == ' ')
                out += "%20";
            else if (c == '&' || c == '#' || c == '%') {
                char buf[4];
                std::snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(c));
                out += buf;
            } else {
                out.push_back(c);
            }
        }
    }
    return out;
}

}  // namespace vantage::play
