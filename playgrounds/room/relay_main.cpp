// vantage_relay: a small impairing UDP relay between native room clients and a room's UDP port,
// for the delay and jitter the kernel here cannot add (it has no netem; loss comes from
// nftables, udp.md "Real loss on one machine"). A tool for a curious user and for benchmarks,
// not part of the room: it reads no packet, it only holds each datagram for latency + a
// uniform jitter (seeded) before passing it on, both directions, so datagrams may also
// reorder. Each client address gets its own upstream socket, so the room sees one source per
// client. The room must put the relay's address in its tokens (vantage_serve --udp-public).
//
//   vantage_relay --listen PORT --to HOST:PORT [--latency MS] [--jitter MS] [--seed N]
//
// Single-threaded, polled every half millisecond; runs until killed. Not guaranteed: timing
// finer than about a millisecond.
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <queue>
#include <string>
#include <thread>
#include <vector>

#include "common/host.hpp"
#include "room/tool_flags.hpp"
#include "room/udp_room.hpp"
#include "room/udp_socket.hpp"
#include "vantage/random.hpp"

using namespace vantage;
using Clock = std::chrono::steady_clock;

namespace {

struct Held {
    double due_ms = 0;
    std::uint64_t order = 0;  // ties keep their arrival order
    room::UdpSocket* out = nullptr;
    room::UdpAddress to;
    std::vector<std::uint8_t> bytes;
    bool operator>(const Held& o) const { return due_ms != o.due_ms ? due_ms > o.due_ms : order > o.order; }
};

}  // namespace

int main(int argc, char** argv) {
    int listen_port = -1;
    std::string to_text;
    double latency_ms = 0, jitter_ms = 0, seed = 1;
    room::ToolFlags flags("vantage_relay",
                          "An impairing UDP relay in front of a room: holds each datagram for --latency plus a seeded\n"
                          "uniform jitter, both ways (it may reorder). Required: --listen and --to.");
    flags.count("--listen", "PORT", 1, 65535, listen_port);
    flags.text("--to", "HOST:PORT", to_text);
    flags.number("--latency", "MS", 0, 2000, latency_ms);
    flags.number("--jitter", "MS", 0, 1000, jitter_ms);
    flags.number("--seed", "N", 0, 4294967295.0, seed);
    if (const int exit = flags.parse(argc, argv); exit >= 0) return exit;
    const auto usage = [&](const std::string& why) { return flags.fail(why); };
    const std::size_t colon = to_text.rfind(':');
    double to_port = 0;
    if (listen_port < 0 || colon == std::string::npos || !play::parse_value(to_text.substr(colon + 1), to_port) ||
        to_port < 1 || to_port > 65535)
        return usage("--listen PORT and --to HOST:PORT are required (IPv4)");
    const std::optional<room::UdpAddress> server =
        room::parse_udp_v4(to_text.substr(0, colon), static_cast<std::uint16_t>(to_port));
    if (!server) return usage("--to needs an IPv4 address and a port");

    room::UdpSocket front;
    if (std::string e = front.open(room::UdpAddress::v4(server->bytes[0], server->bytes[1], server->bytes[2],
                                                        server->bytes[3], static_cast<std::uint16_t>(listen_port)));
        !e.empty()) {
        std::fprintf(stderr, "vantage_relay: %s\n", e.c_str());
        return 1;
    }
    std::printf("vantage_relay: %s -> %s, latency %.1f ms + jitter [0, %.1f] ms each way (seed %.0f)\n",
                front.local_address().to_string().c_str(), server->to_string().c_str(), latency_ms, jitter_ms, seed);
    std::fflush(stdout);

    XorShift rng(mix64(static_cast<std::uint64_t>(seed)));
    std::map<std::vector<std::uint8_t>, std::unique_ptr<room::UdpSocket>> upstream;  // by client address bytes
    std::map<room::UdpSocket*, room::UdpAddress> client_of;
    std::priority_queue<Held, std::vector<Held>, std::greater<>> held;
    std::uint64_t order = 0;
    const auto t0 = Clock::now();
    auto now_ms = [&] { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); };
    auto hold = [&](room::UdpSocket* out, const room::UdpAddress& to, std::span<const std::uint8_t> bytes) {
        const double delay = latency_ms + jitter_ms * static_cast<double>(rng.unit());
        held.push({now_ms() + delay, order++, out, to, {bytes.begin(), bytes.end()}});
    };
    for (;;) {
        front.receive([&](const room::UdpAddress& from, std::span<const std::uint8_t> bytes) {
            std::vector<std::uint8_t> key(from.bytes.begin(), from.bytes.end());
            key.push_back(static_cast<std::uint8_t>(from.port & 0xff));
            key.push_back(static_cast<std::uint8_t>(from.port >> 8));
            auto& up = upstream[key];
            if (!up) {
                up = std::make_unique<room::UdpSocket>();
                if (!up->open(room::UdpAddress::v4(server->bytes[0], server->bytes[1], server->bytes[2],
                                                   server->bytes[3], 0))
                         .empty()) {
                    upstream.erase(key);
                    return;
                }
                client_of[up.get()] = from;
            }
            hold(up.get(), *server, bytes);
        });
        for (auto& [socket, client] : client_of) {
            room::UdpSocket* s = socket;
            const room::UdpAddress c = client;
            s->receive([&](const room::UdpAddress&, std::span<const std::uint8_t> bytes) { hold(&front, c, bytes); });
        }
        const double now = now_ms();
        while (!held.empty() && held.top().due_ms <= now) {
            const Held& h = held.top();
            h.out->send(h.to, h.bytes);
            held.pop();
        }
        std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
}
