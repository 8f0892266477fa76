#include "room/lan.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <qrencode.h>
#include <sys/random.h>

#include <cstdio>

namespace vantage::room {

std::vector<std::string> lan_addresses() {
    std::vector<std::string> out;
    ifaddrs* list = nullptr;
    if (getifaddrs(&list) != 0) return out;
    for (ifaddrs* a = list; a; a = a->ifa_next) {
        if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET) continue;
        if (!(a->ifa_flags & IFF_UP) || (a->ifa_flags & IFF_LOOPBACK)) continue;
        const auto* in = reinterpret_cast<const sockaddr_in*>(a->ifa_addr);
        const std::uint32_t host = ntohl(in->sin_addr.s_addr);
        if ((host >> 16) == 0xa9fe) continue;  // 169.254/16: link-local
        if ((host >> 24) == 127) continue;
        char text[INET_ADDRSTRLEN] = {};
        if (inet_ntop(AF_INET, &in->sin_addr, text, sizeof text)) out.emplace_back(text);
    }
    freeifaddrs(list);
    return out;
}

std::vector<std::string> qr_modules(const std::string& text) {
    std::vector<std::string> rows;
    QRcode* code = QRcode_encodeString(text.c_str(), 0, QR_ECLEVEL_M, QR_MODE_8, 1);
    if (!code) return rows;
    const int n = code->width;
    for (int y = 0; y < n; ++y) {
        std::string row(static_cast<std::size_t>(n), '0');
        for (int x = 0; x < n; ++x) {
            if (code->data[y * n + x] & 1) row[static_cast<std::size_t>(x)] = '1';
        }
        rows.push_back(std::move(row));
    }
    QRcode_free(code);
    return rows;
}

std::string qr_terminal(const std::string& text) {
    const std::vector<std::string> rows = qr_modules(text);
    if (rows.empty()) return {};
    constexpr int quiet = 2;
    const int n = static_cast<int>(rows.size());
    auto dark = [&](int x, int y) {
        if (x < 0 || y < 0 || x >= n || y >= n) return false;
        return rows[static_cast<std::size_t>(y)][static_cast<std::size_t>(x)] == '1';
    };
    std::string out;
    for (int y = -quiet; y < n + quiet; y += 2) {
        out += "\033[30;47m";  // black on white, whatever the terminal's colours
        for (int x = -quiet; x < n + quiet; ++x) {
            const bool top = dark(x, y), bottom = dark(x, y + 1);
            out += top && bottom ? "\u2588" : top ? "\u2580" : bottom ? "\u2584" : " ";
        }
        out += "\033[0m\n";
    }
    return out;
}

std::string random_token(std::size_t bytes) {
    std::string out;
    unsigned char buf[64];
    if (bytes > sizeof buf) bytes = sizeof buf;
    std::size_t got = 0;
    while (got < bytes) {
        const ssize_t r = getrandom(buf + got, bytes - got, 0);
        if (r <= 0) break;
        got += static_cast<std::size_t>(r);
    }
    char hex[3];
    for (std::size_t i = 0; i < got; ++i) {
        std::snprintf(hex, sizeof hex, "%02x", buf[i]);
        out += hex;
    }
    return out;
}

}  // namespace vantage::room
