// UdpAddress: an IPv4 or IPv6 address and a port, as the datagram layer's state machines see a
// peer. Plain bytes, comparable, free of any socket library, so the connect token can carry
// the server's address and the server and client state machines can key peers by address
// without Asio (udp_socket.* converts to and from Asio's endpoints).
//
// Wire form (in the connect token, 19 bytes): family u8 (1 = IPv4, 2 = IPv6), 16 address
// bytes in network order (IPv4 uses the first 4; the other 12 are zero), port u16
// little-endian. udp.md describes it with the rest of the datagram wire.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace vantage::room {

enum class UdpFamily : std::uint8_t {
    None = 0,  // no address (a default-constructed UdpAddress)
    V4 = 1,
    V6 = 2,
};

constexpr const char* to_string(UdpFamily family) {
    switch (family) {
        case UdpFamily::None:
            return "none";
        case UdpFamily::V4:
            return "ipv4";
        case UdpFamily::V6:
            return "ipv6";
    }
    return "unknown udp family";
}

struct UdpAddress {
    UdpFamily family = UdpFamily::None;
    std::array<std::uint8_t, 16> bytes{};  // network order; IPv4 in bytes[0..3], the rest zero
    std::uint16_t port = 0;                // host order

    static UdpAddress v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d, std::uint16_t port) {
        UdpAddress address;
        address.family = UdpFamily::V4;
        address.bytes[0] = a;
        address.bytes[1] = b;
        address.bytes[2] = c;
        address.bytes[3] = d;
        address.port = port;
        return address;
    }
    static UdpAddress v6(const std::array<std::uint8_t, 16>& bytes, std::uint16_t port) {
        return UdpAddress{UdpFamily::V6, bytes, port};
    }

    // "1.2.3.4:5" or "[::1]:5" (hex groups, no zero compression), for logs and test messages.
    std::string to_string() const {
        static constexpr char kHex[] = "0123456789abcdef";
        std::string text;
        if (family == UdpFamily::V4) {
            for (std::size_t i = 0; i < 4; ++i) {
                if (i != 0) text += '.';
                text += std::to_string(bytes[i]);
            }
        } else if (family == UdpFamily::V6) {
            text += '[';
            for (std::size_t i = 0; i < 16; i += 2) {
                if (i != 0) text += ':';
                const unsigned group = (unsigned{bytes[i]} << 8) | bytes[i + 1];
                bool started = false;
                for (int shift = 12; shift >= 0; shift -= 4) {
                    const unsigned nibble = (group >> shift) & 0xFu;
                    if (nibble != 0 || started || shift == 0) {
                        text += kHex[nibble];
                        started = true;
                    }
                }
            }
            text += ']';
        } else {
            return "none";
        }
        return text + ':' + std::to_string(port);
    }

    friend bool operator==(const UdpAddress&, const UdpAddress&) = default;
};

}  // namespace vantage::room
