// The room's door over real loopback sockets: what one mischievous laptop can hold open (silent
// sockets, followers, a client re-opening sockets as fast as it can) must not keep a student or
// the teacher out, each quota refuses with its own sentence, and a server out of descriptors
// neither spins nor stays deaf. Attackers dial from their own loopback addresses (127.0.0.2,
// ...: all of 127/8 is this machine), as laptops on a LAN would; the student and the teacher
// from 127.0.0.1.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/class_client.hpp"
#include "common/room_wire.hpp"
#include "room/horde_room.hpp"
#include "room/room_bot.hpp"
#include "room/room_client.hpp"
#include "room/room_server.hpp"
#include "support/live_room.hpp"

namespace vantage::room {
namespace {

using namespace std::chrono_literals;
using live::now_ms;
using LiveRoom = live::LiveRoom<HordeRoom>;

// --- a raw WebSocket client from a chosen source address ------------------------------------

int dial_from(const char* source, std::uint16_t port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in local{};
    local.sin_family = AF_INET;
    ::inet_pton(AF_INET, source, &local.sin_addr);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0) {
        ::close(fd);
        return -1;
    }
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        ::close(fd);
        return -1;
    }
    timeval tv{2, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return fd;
}

void send_all(int fd, const std::string& data) {
    std::size_t at = 0;
    while (at < data.size()) {
        const ssize_t n = ::send(fd, data.data() + at, data.size() - at, MSG_NOSIGNAL);
        if (n <= 0) return;
        at += static_cast<std::size_t>(n);
    }
}

std::string read_head(int fd) {
    std::string out;
    char c;
    while (out.find("\r\n\r\n") == std::string::npos && ::recv(fd, &c, 1, 0) == 1) out += c;
    return out;
}

std::string read_to_end(int fd) {
    std::string out;
    char buf[1024];
    for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) out.append(buf, static_cast<std::size_t>(n));
    return out;
}

// Opens a WebSocket; the response head ("HTTP/1.1 101 ..." or a refusal with its body).
std::string upgrade(int fd, std::uint16_t port) {
    send_all(fd, "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
                     "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");
    std::string head = read_head(fd);
    if (head.rfind("HTTP/1.1 101", 0) != 0) head += read_to_end(fd);  // the refusal's sentence
    return head;
}

// One masked binary frame (a client must mask; the mask here is zero, which is allowed).
void send_frame(int fd, const std::vector<std::uint8_t>& payload) {
    std::string f;
    f += static_cast<char>(0x82);
    f += static_cast<char>(0x80 | payload.size());  // < 126 bytes
    f.append(4, '\0');
    f.append(payload.begin(), payload.end());
    send_all(fd, f);
}

// Reads server frames until a binary one starting with `type` or a close frame; returns the
// Refuse's or Error's text, or the close reason.
std::string read_reason(int fd) {
    for (;;) {
        std::uint8_t h[2];
        if (::recv(fd, h, 2, MSG_WAITALL) != 2) return "(no frame)";
        std::size_t n = h[1] & 0x7f;
        if (n == 126) {
            std::uint8_t e[2];
            if (::recv(fd, e, 2, MSG_WAITALL) != 2) return "(short)";
            n = static_cast<std::size_t>(e[0]) << 8 | e[1];
        }
        std::vector<std::uint8_t> p(n);
        if (n > 0 && ::recv(fd, p.data(), n, MSG_WAITALL) != static_cast<ssize_t>(n)) return "(short)";
        const int opcode = h[0] & 0x0f;
        if (opcode == 8) return n > 2 ? std::string(p.begin() + 2, p.end()) : "(close)";
        if (opcode == 2 && !p.empty() && p[0] == static_cast<std::uint8_t>(play::RoomMessage::Refuse)) {
            std::string reason;
            if (play::decode_refuse(p, reason) == WireError::Ok) return reason;
        }
    }
}

std::vector<std::uint8_t> follow_hello() {
    ByteWriter w;
    play::encode_follow_hello(w, play::kRoomProtocol, play::room_build_id());
    return {w.bytes().begin(), w.bytes().end()};
}

struct Console {
    Console(const std::string& url, play::ClassClient::Role role, std::string token) : client(role, std::move(token)) {
        EXPECT_EQ(socket.connect(url), "");
        client.open(transport, now_ms());
    }
    void update() {
        client.update(transport, now_ms());
        if (!socket.connected()) client.closed(socket.close_reason());
    }
    RoomClient socket;
    ClientSocketTransport transport{socket};
    play::ClassClient client;
};

HordeRoomOptions class_room() {
    HordeRoomOptions o;
    o.seats = 4;
    o.settings.enemies = 200;
    o.teacher_token = "sesame";
    return o;
}

template <class Pred>
bool wait_until(Pred&& pred, std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!pred()) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(2ms);
    }
    return true;
}

std::uint16_t port_of(const LiveRoom& live) {
    return live.server->port();
}

// --- the door under a held siege --------------------------------------------------------------

TEST(RoomAdmission, HeldConnectionsKeepNeitherAStudentNorTheTeacherOut) {
    LiveRoom live(class_room(), RoomServerOptions{});  // the door's default limits
    const std::uint16_t port = port_of(live);
    std::vector<int> held;

    // 48 sockets that never say hello, from one laptop: 24 get in (the per-address limit),
    // 4 of those may wait for a hello (the per-address pending quota).
    std::vector<std::string> silent;
    for (int i = 0; i < 48; ++i) {
        const int fd = dial_from("127.0.0.2", port);
        ASSERT_GE(fd, 0);
        silent.push_back(upgrade(fd, port));
        held.push_back(fd);
    }
    // 48 followers from two laptops: 32 are followers (their quota), the rest are refused.
    int followers_refused = 0;
    std::string follower_sentence;
    for (const char* source : {"127.0.0.3", "127.0.0.4"}) {
        for (int i = 0; i < 24; ++i) {
            const int fd = dial_from(source, port);
            ASSERT_GE(fd, 0);
            ASSERT_EQ(upgrade(fd, port).rfind("HTTP/1.1 101", 0), 0u);
            send_frame(fd, follow_hello());
            held.push_back(fd);
        }
    }
    ASSERT_TRUE(wait_until([&] { return live.room.followers() == 32u; }, 3000ms));
    // The followers past the quota were refused with the quota's sentence.
    for (std::size_t i = held.size() - 24; i < held.size(); ++i) {
        timeval tv{0, 20000};
        ::setsockopt(held[i], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        const std::string r = read_reason(held[i]);
        if (r.find("the room has all the followers it can take (32)") != std::string::npos) {
            ++followers_refused;
            follower_sentence = r;
        }
    }
    EXPECT_EQ(followers_refused, 16) << follower_sentence;
    EXPECT_EQ(live.room.followers(), 32u);

    // A laptop re-opening sockets as fast as it can, while the student and the teacher join.
    std::atomic<bool> stop{false};
    std::atomic<int> reopened{0}, rate_refused{0};
    std::thread reopener([&] {
        while (!stop.load()) {
            const int fd = dial_from("127.0.0.5", port);
            if (fd < 0) continue;
            const std::string r = upgrade(fd, port);
            if (r.find("too many new connections from your address: wait a few seconds") != std::string::npos)
                ++rate_refused;
            ++reopened;
            ::close(fd);
        }
    });

    // Let it use up its burst and be refused for its rate before the student arrives.
    ASSERT_TRUE(wait_until([&] { return rate_refused.load() > 0; }, 3000ms));
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::unique_ptr<HordeBot>> bots;
    bots.push_back(live::join_bot<HordeBot>(live.url, "ann"));
    Console teacher(live.url, play::ClassClient::Role::Teacher, "sesame");
    const bool joined = live::drive(
        bots,
        [&] {
            teacher.update();
            return bots[0]->remote().status() == play::HordeRemote::Status::Joined &&
                   teacher.client.status() == play::ClassClient::Status::Open;
        },
        1000ms);
    const double join_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    stop = true;
    reopener.join();
    EXPECT_TRUE(joined) << "student " << static_cast<int>(bots[0]->remote().status()) << " ("
                        << bots[0]->remote().reason() << "), teacher " << static_cast<int>(teacher.client.status())
                        << " (" << teacher.client.reason() << ")";
    std::printf("      student and teacher joined in %.0f ms while %d sockets were re-opened (%d refused)\n", join_ms,
                reopened.load(), rate_refused.load());

    // The silent laptop: 24 in, then "429 too many connections from your address".
    int in = 0, per_address = 0, pending_refused = 0;
    for (std::size_t i = 0; i < silent.size(); ++i) {
        if (silent[i].rfind("HTTP/1.1 101", 0) == 0) ++in;
        if (silent[i].find("429") != std::string::npos &&
            silent[i].find("too many connections from your address (24 at once): close other tabs") !=
                std::string::npos)
            ++per_address;
    }
    EXPECT_EQ(in, 24);
    EXPECT_EQ(per_address, 24);
    for (std::size_t i = 0; i < 48; ++i) {
        if (silent[i].rfind("HTTP/1.1 101", 0) != 0) continue;
        timeval tv{0, 20000};
        ::setsockopt(held[i], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        if (read_reason(held[i]).find("too many connections from your address have not said hello (4)") !=
            std::string::npos)
            ++pending_refused;
    }
    EXPECT_EQ(pending_refused, 20);

    // A third teacher console finds both teacher places taken... by the teacher and one more.
    Console second(live.url, play::ClassClient::Role::Teacher, "sesame");
    Console third(live.url, play::ClassClient::Role::Teacher, "sesame");
    ASSERT_TRUE(wait_until(
        [&] {
            second.update();
            third.update();
            return third.client.status() == play::ClassClient::Status::Refused;
        },
        2000ms));
    EXPECT_EQ(third.client.reason(), "the teacher console is already open 2 times: close one, then reload");
    for (int fd : held) ::close(fd);
}

TEST(RoomAdmission, TheLongestSilentConnectionGivesWayWhenThePendingQuotaIsFull) {
    HordeRoomOptions o = class_room();
    o.max_pending = 2;
    LiveRoom live(o, RoomServerOptions{});
    const std::uint16_t port = port_of(live);
    std::vector<int> fds;
    for (const char* source : {"127.0.0.6", "127.0.0.7", "127.0.0.8"}) {
        const int fd = dial_from(source, port);
        ASSERT_GE(fd, 0);
        ASSERT_EQ(upgrade(fd, port).rfind("HTTP/1.1 101", 0), 0u);
        fds.push_back(fd);
        std::this_thread::sleep_for(20ms);  // opened in this order
    }
    EXPECT_EQ(read_reason(fds[0]),
              "closed: too many connections waiting to say hello, and yours waited longest; reload");
    for (int fd : fds) ::close(fd);
}

TEST(RoomAdmission, AQuietFollowerIsClosedWithTheReason) {
    HordeRoomOptions o = class_room();
    o.follower_idle_ms = 1000;
    LiveRoom live(o);
    const std::uint16_t port = port_of(live);
    const int fd = dial_from("127.0.0.1", port);
    ASSERT_EQ(upgrade(fd, port).rfind("HTTP/1.1 101", 0), 0u);
    send_frame(fd, follow_hello());
    timeval tv{3, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    EXPECT_EQ(read_reason(fd), "a follower sends a Ping at least every 1 s: reload the page");
    ::close(fd);
}

TEST(RoomAdmission, WrongTeacherTokensAreSlowedPerAddress) {
    LiveRoom live(class_room());
    std::vector<std::string> reasons;
    for (int i = 0; i < 2; ++i) {  // the second comes at once: inside the first's 0.5 s wait
        Console guess(live.url, play::ClassClient::Role::Teacher, "guess");
        ASSERT_TRUE(wait_until(
            [&] {
                guess.update();
                return guess.client.status() == play::ClassClient::Status::Refused;
            },
            2000ms));
        reasons.push_back(guess.client.reason());
    }
    EXPECT_EQ(reasons[0], "wrong teacher token: use the teacher console URL the room printed");
    EXPECT_EQ(reasons[1].rfind("too many wrong teacher tokens from your address: wait 1 s", 0), 0u) << reasons[1];
}

// --- out of descriptors ------------------------------------------------------------------------

// Says nothing; on its first tick it reports the port through a pipe, so the parent knows the
// server is running (and every sanitizer check of a tick has been made once, while
// descriptors were still free: UBSan's first vptr check of a type needs a pipe).
struct Quiet : RoomHandler {
    int report_fd = -1;
    std::uint16_t port = 0;
    void on_open(ConnectionId, std::string_view) override {}
    void on_message(ConnectionId, std::span<const std::uint8_t>) override {}
    void on_close(ConnectionId) override {}
    void on_tick(double) override {
        if (report_fd < 0) return;
        if (::write(report_fd, &port, sizeof port) != sizeof port) ::_exit(1);
        ::close(report_fd);
        report_fd = -1;
    }
};

double cpu_seconds(pid_t pid) {  // user + system time of a process, from /proc
    std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    std::istringstream rest(text.substr(text.rfind(')') + 2));
    std::string field;
    unsigned long long utime = 0, stime = 0;
    for (int i = 3; i <= 15 && rest >> field; ++i) {
        if (i == 14) utime = std::stoull(field);
        if (i == 15) stime = std::stoull(field);
    }
    return static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

TEST(RoomAdmission, OutOfDescriptorsTheServerNeitherSpinsNorStaysDeaf) {
    int pipe_fds[2];
    ASSERT_EQ(::pipe(pipe_fds), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {  // the server, with 40 descriptors
        ::close(pipe_fds[0]);
        rlimit lim{40, 40};
        ::setrlimit(RLIMIT_NOFILE, &lim);
        Quiet quiet;
        RoomServer server({.port = 0,
                           .tick_hz = 10,
                           .max_per_address = 1000,
                           .new_per_address_per_s = 1e6,
                           .handshake_timeout_s = 30},
                          quiet);
        if (!server.listen().empty()) ::_exit(1);
        quiet.port = server.port();
        quiet.report_fd = pipe_fds[1];
        server.set_handle_signals(true);
        server.run();
        ::_exit(0);
    }
    ::close(pipe_fds[1]);
    std::uint16_t port = 0;
    ASSERT_EQ(::read(pipe_fds[0], &port, sizeof port), static_cast<ssize_t>(sizeof port));
    ::close(pipe_fds[0]);

    // 60 connections that say nothing: the kernel completes them all, the server runs out of
    // descriptors part way and the rest wait in the backlog.
    std::vector<int> held;
    for (int i = 0; i < 60; ++i) held.push_back(dial_from("127.0.0.1", port));
    std::this_thread::sleep_for(300ms);
    const double before = cpu_seconds(child);
    std::this_thread::sleep_for(1500ms);
    const double used = cpu_seconds(child) - before;
    std::printf("      out of descriptors: %.3f s of CPU in 1.5 s\n", used);
    EXPECT_LT(used, 0.15) << "the accept loop spins while out of descriptors";

    for (int fd : held) ::close(fd);
    // Served again: a request gets its answer (404: this server has no files).
    std::string response;
    const auto deadline = std::chrono::steady_clock::now() + 3s;
    while (response.rfind("HTTP/1.1 404", 0) != 0 && std::chrono::steady_clock::now() < deadline) {
        const int fd = dial_from("127.0.0.1", port);
        send_all(fd, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
        response = read_to_end(fd);
        ::close(fd);
    }
    EXPECT_EQ(response.rfind("HTTP/1.1 404", 0), 0u) << response;
    ::kill(child, SIGTERM);
    int status = 0;
    ::waitpid(child, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

}  // namespace
}  // namespace vantage::room
