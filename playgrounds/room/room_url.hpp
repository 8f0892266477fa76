// Room URL: the one address form a native room client dials, "ws://HOST[:PORT][/PATH]".
// HOST is a name, an IPv4 address or a bracketed IPv6 address ("[::1]"); PORT defaults to 80
// and PATH to "/". No TLS (wss://), no user info, no fragment: each is refused with a message
// naming the problem, since the text usually comes from a user or a command line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace vantage::room {

struct RoomUrl {
    std::string host;                 // without brackets for IPv6
    std::uint16_t port = 80;          // [1, 65535]
    std::string path = "/";           // starts with '/', query kept
    std::string host_header() const;  // "host:port" ("[v6]:port"), as the Host header carries it
};

// Empty and `out` filled when `text` is a valid room URL, else an error message (and `out`
// left unchanged).
std::string parse_room_url(std::string_view text, RoomUrl& out);

}  // namespace vantage::room
