// vantage_room_load: the room under load, over loopback. One process: the horde room on its
// own thread (the server, timed phase by phase), N bots on this thread (the page's client
// code over native sockets, autopilot on). Prints server ms per tick by phase, KiB/s per
// client on the socket, frames lost and resident memory; --every S prints a line every S
// seconds (the soak). Load and soak figures come from here, never from a timed test.
//
// --udp N makes the first N bots take their frames over UDP (the room's UDP door runs on the
// room's thread); the table then has a row per transport: frame age (p50, p99: the worst
// bot's), stalls, how often the mirror agreed with the frame's digest, and the process's
// threads, RSS and CPU per message. Real loss comes from outside: run it in a private network
// namespace with an nftables drop rule (udp.md, "Real loss on one machine"), which --loss-cmd
// runs once every bot is seated and on its transport (the measurement starts then); --clear-loss-at S
// runs --clear-loss-cmd (e.g. "nft flush ruleset") S seconds into the measurement and reports
// how long after it every mirror agreed on a newer frame.
//
//   vantage_room_load --help   (every flag, its range and what it does)
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/host.hpp"
#include "room/horde_room.hpp"
#include "room/process_stats.hpp"
#include "room/room_bot.hpp"
#include "room/room_server.hpp"
#include "room/tool_flags.hpp"
#include "room/udp_room.hpp"

using namespace vantage;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// CPU time of one thread (the room's), ms.
double thread_cpu_ms(std::thread& t) {
    clockid_t id;
    timespec ts{};
    if (pthread_getcpuclockid(t.native_handle(), &id) != 0 || clock_gettime(id, &ts) != 0) return 0;
    return static_cast<double>(ts.tv_sec) * 1000.0 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// Times the room's phases on the server thread; read under the mutex.
class PhaseTimer final : public play::Profiler {
public:
    void begin(const char* phase) override { open_[phase] = Clock::now(); }
    void end(const char* phase) override {
        const double ms = ms_since(open_[phase]);
        std::lock_guard lock(mutex_);
        total_ms_[phase] += ms;
    }
    void tick_done(double ms) {
        std::lock_guard lock(mutex_);
        ticks_ += 1;
        tick_ms_ += ms;
        worst_ms_ = std::max(worst_ms_, ms);
    }
    struct Snapshot {
        std::map<std::string, double> total_ms;
        double ticks = 0, tick_ms = 0, worst_ms = 0;
    };
    Snapshot take_and_reset() {
        std::lock_guard lock(mutex_);
        Snapshot s{total_ms_, ticks_, tick_ms_, worst_ms_};
        total_ms_.clear();
        ticks_ = tick_ms_ = worst_ms_ = 0;
        return s;
    }

private:
    std::map<const char*, Clock::time_point> open_;  // server thread only
    std::mutex mutex_;
    std::map<std::string, double> total_ms_;
    double ticks_ = 0, tick_ms_ = 0, worst_ms_ = 0;
};

// The room with its tick timed as a whole too.
class TimedRoom final : public room::RoomHandler {
public:
    TimedRoom(room::HordeRoom& room, PhaseTimer& timer) : room_(room), timer_(timer) {}
    void on_open(room::ConnectionId id, std::string_view a) override { room_.on_open(id, a); }
    void on_message(room::ConnectionId id, std::span<const std::uint8_t> b) override { room_.on_message(id, b); }
    void on_close(room::ConnectionId id) override { room_.on_close(id); }
    void on_tick(double now_ms) override {
        const auto t0 = Clock::now();
        room_.on_tick(now_ms);
        timer_.tick_done(ms_since(t0));
    }

private:
    room::HordeRoom& room_;
    PhaseTimer& timer_;
};

}  // namespace

int main(int argc, char** argv) {
    int bots_n = 32, udp_n = 0, enemies = 3000, udp_port = 0;
    double seconds = 10, every = 0, loss = 0, send_hz = 0, clear_at = -1, latency = -1, jitter = -1;
    std::string markdown, clear_cmd, loss_cmd, udp_public;
    room::ToolFlags flags(
        "vantage_room_load",
        "Bots built from the page's client code play one horde room over loopback; prints the\n"
        "server's ms per tick by phase, bandwidth, frame age and memory. See playgrounds/room/udp.md.");
    flags.count("--bots", "N", 1, 128, bots_n);
    flags.number("--seconds", "S", 0.1, 36000, seconds);
    flags.number("--every", "S", 0, 36000, every);
    flags.count("--udp", "N", 0, 128, udp_n);
    flags.count("--udp-port", "PORT", 0, 65535, udp_port);
    flags.text("--udp-public", "HOST:PORT", udp_public);
    flags.count("--enemies", "N", 200, 8000, enemies);
    flags.number("--loss", "PCT", 0, 40, loss);
    flags.number("--send-hz", "HZ", 1, 60, send_hz);
    flags.number("--latency", "MS", 0, 400, latency);
    flags.number("--jitter", "MS", 0, 150, jitter);
    flags.text("--loss-cmd", "CMD", loss_cmd);
    flags.number("--clear-loss-at", "S", 0, 36000, clear_at);
    flags.text("--clear-loss-cmd", "CMD", clear_cmd);
    flags.text("--markdown", "FILE", markdown);
    if (const int exit = flags.parse(argc, argv); exit >= 0) return exit;
    const auto usage = [&](const std::string& why) { return flags.fail(why); };
    const auto fatal = [](const std::string& why) {
        std::fprintf(stderr, "vantage_room_load: %s\n", why.c_str());
        return 1;
    };

    if (udp_n > bots_n) return usage("--udp cannot exceed --bots");
    if ((clear_at >= 0) != !clear_cmd.empty()) return usage("--clear-loss-at and --clear-loss-cmd go together");
    room::HordeRoomOptions game;
    game.seats = 128;
    game.settings.enemies = enemies;
    game.settings.loss_pct = loss;
    game.max_pending = 256;  // every bot comes from 127.0.0.1, and under real loss hellos arrive late
    game.max_pending_per_address = 256;
    if (send_hz > 0) game.settings.send_hz = send_hz;
    if (latency >= 0) game.settings.latency_ms = latency;  // the simulated link's, above the socket
    if (jitter >= 0) game.settings.jitter_ms = jitter;
    room::HordeRoom horde(game);
    PhaseTimer timer;
    horde.set_profiler(&timer);
    TimedRoom timed(horde, timer);
    room::RoomServerOptions net;
    net.port = 0;
    net.max_message_bytes = 16 * 1024;
    net.max_connections = game.connection_budget();
    room::RoomServer server(net, timed);
    horde.attach(server);
    if (std::string e = server.listen(); !e.empty()) return fatal(e);
    // --udp-public: tokens name a vantage_relay in front of the room's port instead.
    std::optional<room::UdpAddress> relay;
    if (!udp_public.empty()) {
        const std::size_t colon = udp_public.rfind(':');
        double p = 0;
        if (colon != std::string::npos && play::parse_value(udp_public.substr(colon + 1), p) && p >= 1 && p <= 65535)
            relay = room::parse_udp_v4(udp_public.substr(0, colon), static_cast<std::uint16_t>(p));
        if (!relay) return usage("--udp-public needs IPv4 HOST:PORT");
    }
    room::UdpRoom udp(horde, {.bind = room::UdpAddress::v4(127, 0, 0, 1, static_cast<std::uint16_t>(udp_port)),
                              .public_address = relay.value_or(room::UdpAddress{}),
                              .max_clients = 256});
    if (std::string e = udp.open(); !e.empty()) return fatal(e);
    horde.set_udp_door(&udp);
    std::thread thread([&] { server.run(); });
    const std::string url = "ws://127.0.0.1:" + std::to_string(server.port()) + "/ws";

    const auto t0 = Clock::now();
    std::vector<std::unique_ptr<room::HordeBot>> bots;
    for (int i = 0; i < bots_n; ++i) {
        bots.push_back(std::make_unique<room::HordeBot>(
            play::HordeRemoteOptions{.name = (i < udp_n ? "udp" : "ws") + std::to_string(i)},
            room::UdpSeatLinkOptions{.enabled = i < udp_n, .connect_timeout_ms = 5000.0}));
        if (std::string e = bots.back()->join(url, ms_since(t0)); !e.empty()) {
            server.stop();
            thread.join();
            return fatal("bot join: " + e);
        }
    }
    // Warm-up: every bot seated and receiving.
    double last = ms_since(t0);
    auto frame = [&] {
        const double t = ms_since(t0);
        for (auto& b : bots) b->update(t, static_cast<float>((t - last) / 1000.0));
        last = t;
        std::this_thread::sleep_for(std::chrono::milliseconds(4));
    };
    while (ms_since(t0) < (udp_n > 0 ? 4000 : 2000)) frame();
    timer.take_and_reset();
    if (!loss_cmd.empty() && std::system(loss_cmd.c_str()) != 0)
        std::fprintf(stderr, "room load: '%s' failed\n", loss_cmd.c_str());
    const double cpu0 = room::process_cpu_ms();
    const double server_cpu0 = thread_cpu_ms(thread);
    const room::UdpRoomStats udp0 = udp.stats();  // read while the room runs: counters only, a torn read is harmless
    std::uint64_t messages0 = 0;
    for (auto& b : bots) messages0 += b->remote().frames();
    // Agreement sampled every frame, per transport (after the loss clears, if it does).
    std::uint64_t agreed[2] = {0, 0}, samples[2] = {0, 0};
    double cleared_ms = -1, converged_ms[2] = {-1, -1};
    std::vector<std::uint64_t> frames_at_clear;
    std::uint64_t down0 = 0;
    for (auto& b : bots) down0 += b->remote().bytes_down();

    std::printf("room load: %d bots, %d enemies, %.0f%% loss, %.0f s measured (after 2 s warm-up)\n", bots_n, enemies,
                loss, seconds);
    const auto m0 = Clock::now();
    double next_line = every;
    PhaseTimer::Snapshot lines;  // what --every's lines took out of the timer, for the final table
    auto merge = [](PhaseTimer::Snapshot& into, const PhaseTimer::Snapshot& s) {
        for (const auto& [name, ms] : s.total_ms) into.total_ms[name] += ms;
        into.ticks += s.ticks;
        into.tick_ms += s.tick_ms;
        into.worst_ms = std::max(into.worst_ms, s.worst_ms);
    };
    while (ms_since(m0) < seconds * 1000.0) {
        frame();
        for (auto& b : bots) {
            const int t = b->remote().transport() == room::SeatTransport::Udp ? 1 : 0;
            samples[t] += 1;
            agreed[t] += b->remote().client().agreed() ? 1 : 0;
        }
        if (clear_at >= 0 && cleared_ms < 0 && ms_since(m0) >= clear_at * 1000.0) {
            if (std::system(clear_cmd.c_str()) != 0)
                std::fprintf(stderr, "room load: '%s' failed\n", clear_cmd.c_str());
            cleared_ms = ms_since(m0);
            for (auto& b : bots) frames_at_clear.push_back(b->remote().frames());
        }
        for (int t = 0; t < 2 && cleared_ms >= 0; ++t) {
            if (converged_ms[t] >= 0) continue;
            bool all = true;
            for (std::size_t i = 0; i < bots.size() && all; ++i) {
                const play::HordeRemote& r = bots[i]->remote();
                if (r.status() != play::HordeRemote::Status::Joined ||
                    (r.transport() == room::SeatTransport::Udp ? 1 : 0) != t)
                    continue;
                all = r.frames() > frames_at_clear[i] && r.client().agreed();
            }
            if (all) converged_ms[t] = ms_since(m0) - cleared_ms;
        }
        if (every > 0 && ms_since(m0) >= next_line * 1000.0) {
            const PhaseTimer::Snapshot s = timer.take_and_reset();
            merge(lines, s);
            std::printf("  t=%5.0f s  rss %.1f MiB  tick mean %.2f ms, worst %.2f ms\n", next_line,
                        room::process_rss_mib(), s.ticks > 0 ? s.tick_ms / s.ticks : 0.0, s.worst_ms);
            std::fflush(stdout);
            next_line += every;
        }
    }
    const double measured_s = ms_since(m0) / 1000.0;
    const double cpu = room::process_cpu_ms() - cpu0;
    const double server_cpu = thread_cpu_ms(thread) - server_cpu0;
    const room::UdpRoomStats udp1 = udp.stats();
    const int thread_count = room::process_threads();
    std::uint64_t messages = 0;
    for (auto& b : bots) messages += b->remote().frames();
    messages -= messages0;
    // Per transport: how many bots ended on it, the worst p99 frame age, median p50, stalls.
    struct PerTransport {
        int bots = 0;
        double p50_sum = 0, p99_worst = 0;
        std::uint64_t stalls = 0, lost = 0;
    };
    PerTransport per[2];
    for (auto& b : bots) {
        const int t = b->remote().transport() == room::SeatTransport::Udp ? 1 : 0;
        per[t].bots += 1;
        per[t].p50_sum += b->remote().frame_age_p50_ms().value_or(0.0);
        per[t].p99_worst = std::max(per[t].p99_worst, b->remote().frame_age_p99_ms().value_or(0.0));
        per[t].stalls += b->remote().stalls();
        per[t].lost += b->remote().frames_lost();
    }
    merge(lines, timer.take_and_reset());
    const PhaseTimer::Snapshot& s = lines;
    std::uint64_t down = 0, lost = 0, joined = 0;
    double rtt = 0;
    for (auto& b : bots) {
        down += b->remote().bytes_down();
        lost += b->remote().frames_lost();
        joined += b->remote().status() == play::HordeRemote::Status::Joined ? 1 : 0;
        rtt += b->remote().rtt_ms().value_or(0.0);
    }
    server.stop();
    thread.join();
    horde.set_udp_door(nullptr);
    // Bytes on the wire per transport, from the sockets' own counters over each seat's life
    // (the run has ended, so the room's reports may be read from here): the WebSocket's frame
    // headers on what its seats were sent; UDP's packet headers and AEAD tags (and keep-alives)
    // on the frames its paths carried, and the IP and UDP headers (28 bytes a datagram) apart.
    std::uint64_t ws_payload = 0, ws_wire = 0, udp_frames = 0;
    for (const room::SeatReport& r : horde.all_seat_reports()) {
        if (r.path_attaches > 0) {
            udp_frames += r.path_bytes;
        } else {
            ws_payload += r.socket_payload_bytes;
            ws_wire += r.socket_wire_bytes;
        }
    }

    std::string table;
    char line[1024];
    std::snprintf(line, sizeof line, "| bots | enemies | loss | ticks | tick mean ms | tick worst ms |");
    table += line;
    std::vector<std::string> phases;
    for (const auto& [name, ms] : s.total_ms) phases.push_back(name);
    for (const std::string& p : phases) table += " " + p + " ms |";
    table += " KiB/s per client | frames lost | RTT ms | RSS MiB |\n|";
    for (std::size_t i = 0; i < 10 + phases.size(); ++i) table += "---|";
    table += "\n";
    std::snprintf(line, sizeof line, "| %d | %d | %.0f%% | %.0f | %.3f | %.3f |", bots_n, enemies, loss, s.ticks,
                  s.ticks > 0 ? s.tick_ms / s.ticks : 0.0, s.worst_ms);
    table += line;
    for (const std::string& p : phases) {
        std::snprintf(line, sizeof line, " %.3f |", s.ticks > 0 ? s.total_ms.at(p) / s.ticks : 0.0);
        table += line;
    }
    std::snprintf(line, sizeof line, " %.1f | %llu | %.1f | %.1f |\n",
                  static_cast<double>(down - down0) / static_cast<double>(bots_n) / measured_s / 1024.0,
                  static_cast<unsigned long long>(lost), rtt / static_cast<double>(bots_n), room::process_rss_mib());
    table += line;
    table +=
        "\n| transport | bots | frame age p50 ms (mean) | frame age p99 ms (worst bot) | stalls | frames lost | "
        "mirror agreed % |\n|---|---|---|---|---|---|---|\n";
    for (int t = 1; t >= 0; --t) {
        if (per[t].bots == 0) continue;
        std::snprintf(line, sizeof line, "| %s | %d | %.1f | %.1f | %llu | %llu | %.1f |\n", t ? "udp" : "websocket",
                      per[t].bots, per[t].p50_sum / per[t].bots, per[t].p99_worst,
                      static_cast<unsigned long long>(per[t].stalls), static_cast<unsigned long long>(per[t].lost),
                      samples[t] ? 100.0 * static_cast<double>(agreed[t]) / static_cast<double>(samples[t]) : 0.0);
        table += line;
    }
    std::snprintf(line, sizeof line,
                  "\nprocess: %d threads, RSS %.1f MiB, CPU %.0f ms over %.1f s (%.1f%% of one core), %.2f us CPU per "
                  "frame delivered (%llu frames; server and bots in one process); the room's thread alone %.0f ms "
                  "(%.1f%% of one core, %.2f us per frame); udp: %u connected, %llu datagrams out, %llu in, %llu "
                  "refused\n",
                  thread_count, room::process_rss_mib(), cpu, measured_s, cpu / (measured_s * 10.0),
                  messages ? cpu * 1000.0 / static_cast<double>(messages) : 0.0,
                  static_cast<unsigned long long>(messages), server_cpu, server_cpu / (measured_s * 10.0),
                  messages ? server_cpu * 1000.0 / static_cast<double>(messages) : 0.0, udp1.connected,
                  static_cast<unsigned long long>(udp1.datagrams_out - udp0.datagrams_out),
                  static_cast<unsigned long long>(udp1.datagrams_in - udp0.datagrams_in),
                  static_cast<unsigned long long>(udp1.refused));
    table += line;
    if (ws_payload > 0) {
        std::snprintf(line, sizeof line,
                      "bytes on the wire: websocket %.2f%% over its payload (frame headers, TCP/IP not counted)\n",
                      100.0 * static_cast<double>(ws_wire - ws_payload) / static_cast<double>(ws_payload));
        table += line;
    }
    if (udp_frames > 0) {
        std::snprintf(line, sizeof line,
                      "bytes on the wire: udp %.2f%% over the frames it carried (packet header, AEAD tag, "
                      "keep-alives and the connect), +%.2f%% more for IP/UDP headers (%llu datagrams)\n",
                      100.0 * (static_cast<double>(udp1.bytes_out) - static_cast<double>(udp_frames)) /
                          static_cast<double>(udp_frames),
                      100.0 * 28.0 * static_cast<double>(udp1.datagrams_out) / static_cast<double>(udp_frames),
                      static_cast<unsigned long long>(udp1.datagrams_out));
        table += line;
    }
    if (cleared_ms >= 0) {
        std::snprintf(line, sizeof line,
                      "loss cleared at %.1f s; every mirror agreed on a newer frame: udp %.0f ms later, websocket %.0f "
                      "ms later\n",
                      cleared_ms / 1000.0, converged_ms[1], converged_ms[0]);
        table += line;
    }
    std::printf("%s", table.c_str());
    std::printf("%llu of %d bots seated at the end; tick budget at 60 Hz: 16.667 ms\n",
                static_cast<unsigned long long>(joined), bots_n);
    if (!markdown.empty()) {
        if (FILE* f = std::fopen(markdown.c_str(), "a")) {
            std::fputs(table.c_str(), f);
            std::fclose(f);
        }
    }
    return joined == static_cast<std::uint64_t>(bots_n) ? 0 : 1;
}
