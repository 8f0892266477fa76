// RoomServer over real sockets on 127.0.0.1 (port 0), the server on its own thread, driven
// by RoomClient and, for what a well-behaved client cannot send, raw POSIX sockets. Waits are
// polls with deadlines, never fixed sleeps; the whole suite runs in a few seconds.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "room/room_client.hpp"
#include "room/room_server.hpp"

namespace vantage::room {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// Records every callback. Test threads read it under the mutex; the server thread writes.
struct Recorder : RoomHandler {
    RoomServer* server = nullptr;
    bool echo = true;
    std::function<void(RoomServer&)> on_tick_fn;  // runs on the server thread

    mutable std::mutex mutex;
    std::vector<ConnectionId> opened, closed;
    std::vector<std::string> remotes;
    std::vector<double> tick_ms;
    ServerStats stats;  // snapshot taken every tick
    std::size_t open_now = 0;
    ConnectionStats first_stats;  // of the first connection, every tick while it is open

    void on_open(ConnectionId id, std::string_view remote) override {
        std::lock_guard lock(mutex);
        opened.push_back(id);
        remotes.emplace_back(remote);
    }
    void on_message(ConnectionId id, std::span<const std::uint8_t> bytes) override {
        if (echo) server->send(id, bytes);
    }
    void on_close(ConnectionId id) override {
        std::lock_guard lock(mutex);
        closed.push_back(id);
    }
    void on_tick(double now_ms) override {
        if (on_tick_fn) on_tick_fn(*server);
        std::lock_guard lock(mutex);
        tick_ms.push_back(now_ms);
        stats = server->stats();
        open_now = server->open_connections();
        if (!opened.empty() && server->connection_stats(opened[0]).messages_out > 0) {
            first_stats = server->connection_stats(opened[0]);
        }
    }
    template <class F>
    auto with(F&& f) const {
        std::lock_guard lock(mutex);
        return f();
    }
};

template <class Pred>
bool wait_for(Pred&& pred, std::chrono::milliseconds limit = 3000ms) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!pred()) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(1ms);
    }
    return true;
}

std::vector<std::uint8_t> bytes_of(std::size_t n, std::uint8_t seed) {
    std::vector<std::uint8_t> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>(seed + i * 7);
    return v;
}

// --- raw sockets, for requests a RoomClient would never send ----------------------------------

int dial(std::uint16_t port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        ::close(fd);
        return -1;
    }
    timeval tv{3, 0};  // no test waits longer than this for a byte
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return fd;
}

void send_all(int fd, std::string_view data) {
    while (!data.empty()) {
        const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
        if (n <= 0) return;
        data.remove_prefix(static_cast<std::size_t>(n));
    }
}

// Reads until the peer closes (or the 3 s receive timeout).
std::string read_to_end(int fd) {
    std::string out;
    char buf[4096];
    for (;;) {
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) break;
        out.append(buf, static_cast<std::size_t>(n));
    }
    return out;
}

std::string read_head(int fd) {  // up to the end of the response head
    std::string out;
    char c;
    while (out.find("\r\n\r\n") == std::string::npos && ::recv(fd, &c, 1, 0) == 1) out += c;
    return out;
}

std::string http_exchange(std::uint16_t port, std::string_view request) {
    const int fd = dial(port);
    if (fd < 0) return "connect failed";
    send_all(fd, request);
    std::string response = read_to_end(fd);
    ::close(fd);
    return response;
}

std::string get(std::uint16_t port, std::string_view target, std::string_view extra_headers = "") {
    return http_exchange(port, "GET " + std::string(target) + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" +
                                   std::string(extra_headers) + "\r\n");
}

std::string status_line(const std::string& response) {
    return response.substr(0, response.find("\r\n"));
}

std::string header(const std::string& response, std::string_view name) {  // value of the first match
    const std::string key = "\r\n" + std::string(name) + ": ";
    const std::size_t at = response.find(key);
    if (at == std::string::npos || at > response.find("\r\n\r\n")) return {};
    const std::size_t start = at + key.size();
    return response.substr(start, response.find("\r\n", start) - start);
}

std::string body(const std::string& response) {
    const std::size_t at = response.find("\r\n\r\n");
    return at == std::string::npos ? std::string() : response.substr(at + 4);
}

std::string upgrade_request(std::string_view target, std::string_view host, std::string_view extra = "") {
    return "GET " + std::string(target) + " HTTP/1.1\r\nHost: " + std::string(host) +
           "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
           "Sec-WebSocket-Version: 13\r\n" +
           std::string(extra) + "\r\n";
}

// --- fixture -------------------------------------------------------------------------------------

class RoomServerTest : public ::testing::Test {
protected:
    void start(RoomServerOptions options = {}) {
        options.port = 0;
        server_ = std::make_unique<RoomServer>(options, handler_);
        handler_.server = server_.get();
        ASSERT_EQ(server_->listen(), "");
        port_ = server_->port();
        ASSERT_NE(port_, 0);
        thread_ = std::thread([this] { server_->run(); });
    }
    void stop() {
        if (!server_) return;
        server_->stop();
        thread_.join();
    }
    void TearDown() override {
        if (thread_.joinable()) stop();
    }
    std::string url() const { return "ws://127.0.0.1:" + std::to_string(port_) + "/ws"; }
    std::string host() const { return "127.0.0.1:" + std::to_string(port_); }
    std::size_t opened() const {
        return handler_.with([&] { return handler_.opened.size(); });
    }
    std::size_t closed() const {
        return handler_.with([&] { return handler_.closed.size(); });
    }
    ServerStats stats() const {
        return handler_.with([&] { return handler_.stats; });
    }
    std::size_t ticks() const {
        return handler_.with([&] { return handler_.tick_ms.size(); });
    }
    bool receive(RoomClient& c, std::vector<std::uint8_t>& out, std::chrono::milliseconds limit = 3000ms) {
        return wait_for(
            [&] {
                c.poll();
                return c.receive(out);
            },
            limit);
    }

    Recorder handler_;
    std::unique_ptr<RoomServer> server_;
    std::thread thread_;
    std::uint16_t port_ = 0;
};

TEST_F(RoomServerTest, EchoesBinaryMessages) {
    start();
    RoomClient client;
    ASSERT_EQ(client.connect(url()), "");
    for (const std::size_t size : {std::size_t{1}, std::size_t{125}, std::size_t{126}, std::size_t{4096}}) {
        const auto sent = bytes_of(size, static_cast<std::uint8_t>(size));
        client.send(sent);
        std::vector<std::uint8_t> got;
        ASSERT_TRUE(receive(client, got)) << size;
        EXPECT_EQ(got, sent);
    }
    EXPECT_EQ(client.payload_bytes_in(), 1u + 125 + 126 + 4096);
    EXPECT_EQ(client.payload_bytes_out(), 1u + 125 + 126 + 4096);
}

TEST_F(RoomServerTest, WireBytesCountTheFrameHeader) {
    start();
    RoomClient client;
    ASSERT_EQ(client.connect(url()), "");
    client.send(bytes_of(10, 1));
    client.send(bytes_of(300, 2));
    std::vector<std::uint8_t> got;
    ASSERT_TRUE(receive(client, got));
    ASSERT_TRUE(receive(client, got));
    ASSERT_TRUE(wait_for([&] { return handler_.with([&] { return handler_.first_stats.messages_out == 2; }); }));
    const ConnectionStats s = handler_.with([&] { return handler_.first_stats; });
    EXPECT_EQ(s.payload_bytes_out, 310u);
    EXPECT_EQ(s.wire_bytes_out, 10u + 2 + 300 + 4);
    EXPECT_EQ(s.messages_in, 2u);
    EXPECT_EQ(s.payload_bytes_in, 310u);
}

TEST_F(RoomServerTest, OpenAndCloseArePairedIncludingAtStop) {
    start();
    RoomClient a, b, c;
    ASSERT_EQ(a.connect(url()), "");
    ASSERT_EQ(b.connect(url()), "");
    ASSERT_EQ(c.connect(url()), "");
    ASSERT_TRUE(wait_for([&] { return opened() == 3; }));
    EXPECT_EQ(handler_.with([&] { return std::set(handler_.opened.begin(), handler_.opened.end()).size(); }), 3u);
    EXPECT_EQ(handler_.with([&] { return handler_.remotes[0].rfind("127.0.0.1:", 0); }), 0u);
    a.close();
    b.close();
    ASSERT_TRUE(wait_for([&] { return closed() == 2; }));
    stop();  // c is still open: stop() closes it, with on_close
    const auto [open_ids, closed_ids] = handler_.with([&] {
        return std::pair(std::multiset(handler_.opened.begin(), handler_.opened.end()),
                         std::multiset(handler_.closed.begin(), handler_.closed.end()));
    });
    EXPECT_EQ(open_ids, closed_ids);
    EXPECT_EQ(server_->open_connections(), 0u);
}

TEST_F(RoomServerTest, ConnectionCapRefusesWithTheReason) {
    start({.max_connections = 2});
    RoomClient a, b, c;
    ASSERT_EQ(a.connect(url()), "");
    ASSERT_EQ(b.connect(url()), "");
    const std::string error = c.connect(url());
    EXPECT_NE(error.find("503"), std::string::npos) << error;
    EXPECT_NE(error.find("the room is full (2 connections): wait a few seconds"), std::string::npos) << error;
    EXPECT_FALSE(c.connected());
    ASSERT_TRUE(wait_for([&] { return stats().refused == 1; }));
    a.close();
    ASSERT_TRUE(wait_for([&] { return closed() == 1; }));
    RoomClient d;
    EXPECT_EQ(d.connect(url()), "");  // a seat came free
}

TEST_F(RoomServerTest, OneAddressPastItsLimitGets429WithTheReason) {
    start({.max_per_address = 2, .limit_own_machine = true});
    RoomClient a, b, c;
    ASSERT_EQ(a.connect(url()), "");
    ASSERT_EQ(b.connect(url()), "");
    const std::string error = c.connect(url());
    EXPECT_NE(error.find("429 too many connections from your address (2 at once): close other tabs"), std::string::npos)
        << error;
    EXPECT_TRUE(wait_for([&] { return stats().refused_sockets == 1; }));
}

TEST_F(RoomServerTest, TheRoomsOwnMachineIsNotHeldToThePerAddressLimit) {
    start({.max_per_address = 2});
    RoomClient a, b, c;
    ASSERT_EQ(a.connect(url()), "");
    ASSERT_EQ(b.connect(url()), "");
    EXPECT_EQ(c.connect(url()), "");  // 127.0.0.1: the teacher's own tabs
}

TEST_F(RoomServerTest, OversizedMessageClosesOnlyThatConnection) {
    start({.max_message_bytes = 100});
    RoomClient big, good;
    ASSERT_EQ(big.connect(url()), "");
    ASSERT_EQ(good.connect(url()), "");
    big.send(bytes_of(101, 0));
    ASSERT_TRUE(wait_for([&] {
        big.poll();
        return !big.connected();
    }));
    EXPECT_EQ(big.close_code(), 1009) << big.close_reason();
    good.send(bytes_of(100, 3));
    std::vector<std::uint8_t> got;
    ASSERT_TRUE(receive(good, got));
    EXPECT_EQ(got, bytes_of(100, 3));
    ASSERT_TRUE(wait_for([&] { return closed() == 1 && stats().closed_protocol == 1; }));
}

TEST_F(RoomServerTest, TextMessageClosesWith1003) {
    start();
    RoomClient client;
    ASSERT_EQ(client.connect(url()), "");
    client.send_text("hello");
    ASSERT_TRUE(wait_for([&] {
        client.poll();
        return !client.connected();
    }));
    EXPECT_EQ(client.close_code(), 1003);
    EXPECT_EQ(client.close_reason(), "binary messages only");
    ASSERT_TRUE(wait_for([&] { return closed() == 1; }));
}

TEST_F(RoomServerTest, CloseSends1008WithTheReason) {
    start();
    handler_.echo = false;
    handler_.on_tick_fn = [](RoomServer& s) {
        if (s.open_connections() > 0) s.close(1, "kicked: spamming");  // ids start at 1
    };
    RoomClient client;
    ASSERT_EQ(client.connect(url()), "");
    ASSERT_TRUE(wait_for([&] {
        client.poll();
        return !client.connected();
    }));
    EXPECT_EQ(client.close_code(), 1008);
    EXPECT_EQ(client.close_reason(), "kicked: spamming");
    ASSERT_TRUE(wait_for([&] { return closed() == 1; }));
}

TEST_F(RoomServerTest, GarbageHttpGets400AndTheServerKeepsTicking) {
    start();
    const std::string response = http_exchange(port_, std::string("\x01\x02 garbage \x7f\r\n\r\n", 17));
    EXPECT_EQ(status_line(response).substr(0, 12), "HTTP/1.1 400") << response;
    const std::size_t before = ticks();
    ASSERT_TRUE(wait_for([&] { return ticks() > before + 3; }));
    EXPECT_GE(stats().http_errors, 1u);
    RoomClient client;
    EXPECT_EQ(client.connect(url()), "");
}

TEST_F(RoomServerTest, GarbageWebSocketFrameClosesThatConnection) {
    start();
    const int fd = dial(port_);
    ASSERT_GE(fd, 0);
    send_all(fd, upgrade_request("/ws", host()));
    ASSERT_EQ(status_line(read_head(fd)), "HTTP/1.1 101 Switching Protocols");
    ASSERT_TRUE(wait_for([&] { return opened() == 1; }));
    send_all(fd, std::string("\x82\x05hello", 7));  // unmasked client frame: a protocol error (1002)
    const std::string rest = read_to_end(fd);
    ::close(fd);
    ASSERT_GE(rest.size(), 4u);
    EXPECT_EQ(static_cast<unsigned char>(rest[0]), 0x88);  // a close frame
    EXPECT_EQ((static_cast<unsigned char>(rest[2]) << 8) | static_cast<unsigned char>(rest[3]), 1002);
    ASSERT_TRUE(wait_for([&] { return closed() == 1 && stats().closed_protocol == 1; }));
}

TEST_F(RoomServerTest, TruncatedHandshakeTimesOut) {
    start({.handshake_timeout_s = 0.3});
    const int fd = dial(port_);
    ASSERT_GE(fd, 0);
    send_all(fd, "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n");  // never finished
    const auto t0 = std::chrono::steady_clock::now();
    const std::string response = read_to_end(fd);  // ends when the server drops us
    const auto waited = std::chrono::steady_clock::now() - t0;
    ::close(fd);
    EXPECT_EQ(response, "");
    EXPECT_LT(waited, 2s);
    EXPECT_EQ(opened(), 0u);
}

TEST_F(RoomServerTest, SlowReaderIsDroppedThenClosedWhileOthersKeepReceiving) {
    std::atomic<std::uint64_t> dropped{0};
    handler_.echo = false;
    const auto big = bytes_of(64 * 1024, 9);
    const auto small = bytes_of(8, 1);
    handler_.on_tick_fn = [&](RoomServer& s) {
        // Connection 1 is the slow reader: 1 MiB a tick; connection 2 gets one small message.
        for (int i = 0; i < 16; ++i) {
            if (s.send(1, big) == SendResult::Dropped) ++dropped;
        }
        s.send(2, small);
    };
    start({.max_queue_messages = 8, .slow_reader_close_s = 0.3});
    RoomClient slow, fast;
    ASSERT_EQ(slow.connect(url()), "");
    slow.set_paused_reading(true);  // and never polled: its socket buffers fill up
    ASSERT_EQ(fast.connect(url()), "");
    std::size_t fast_received = 0;
    std::vector<std::uint8_t> got;
    const auto pump = [&] {
        fast.poll();
        while (fast.receive(got)) ++fast_received;
    };
    ASSERT_TRUE(wait_for(
        [&] {
            pump();
            return closed() == 1;
        },
        5000ms));
    EXPECT_EQ(handler_.with([&] { return handler_.closed[0]; }), 1u);
    EXPECT_GT(dropped.load(), 0u);
    const std::size_t at_close = fast_received;
    ASSERT_TRUE(wait_for([&] {
        pump();
        return fast_received > at_close + 5;
    }));
    EXPECT_TRUE(fast.connected());
    ASSERT_TRUE(wait_for([&] { return stats().closed_slow == 1; }));
    stop();  // before the locals the tick callback uses go away
}

TEST_F(RoomServerTest, ConnectDisconnectCyclesLeaveNothingOpen) {
    start();
    for (int i = 0; i < 200; ++i) {
        RoomClient client;
        ASSERT_EQ(client.connect(url()), "") << "cycle " << i;
        if (i % 2 == 0) client.close();  // odd cycles just drop the client (no close handshake)
    }
    ASSERT_TRUE(wait_for([&] { return closed() == 200; }, 5000ms)) << closed();
    // The stats are a per-tick snapshot: wait for one taken after the last close.
    ASSERT_TRUE(wait_for([&] {
        return handler_.with([&] { return handler_.stats.accepted == 200 && handler_.stats.connections == 0; });
    }));
    EXPECT_EQ(handler_.with([&] { return handler_.open_now; }), 0u);
    EXPECT_EQ(opened(), 200u);
}

TEST_F(RoomServerTest, OriginMustMatchHost) {
    start();
    std::string response = http_exchange(port_, upgrade_request("/ws", host(), "Origin: http://evil.example\r\n"));
    EXPECT_EQ(status_line(response).substr(0, 12), "HTTP/1.1 403") << response;
    const int fd = dial(port_);  // the same-origin page is let in (and then stays open: read the head only)
    ASSERT_GE(fd, 0);
    send_all(fd, upgrade_request("/ws", host(), "Origin: http://" + host() + "\r\n"));
    response = read_head(fd);
    ::close(fd);
    EXPECT_EQ(status_line(response), "HTTP/1.1 101 Switching Protocols") << response;
    response = http_exchange(port_, upgrade_request("/elsewhere", host()));
    EXPECT_EQ(status_line(response).substr(0, 12), "HTTP/1.1 404") << response;
}

TEST_F(RoomServerTest, TicksSixtyTimesASecond) {
    start({.tick_hz = 60});
    ASSERT_TRUE(wait_for(
        [&] { return handler_.with([&] { return !handler_.tick_ms.empty() && handler_.tick_ms.back() > 1005; }); }));
    const auto counted = handler_.with([&] {
        std::size_t n = 0;
        for (const double t : handler_.tick_ms) n += t <= 1005.0;
        return n;
    });
    EXPECT_NEAR(static_cast<double>(counted), 60.0, 2.0);
}

TEST(RoomServerOptions, ValidateNamesTheField) {
    EXPECT_EQ(RoomServerOptions{}.validate(), "");
    EXPECT_NE(RoomServerOptions{.tick_hz = 0}.validate().find("tick_hz"), std::string::npos);
    EXPECT_NE(RoomServerOptions{.tick_hz = 241}.validate().find("tick_hz"), std::string::npos);
    EXPECT_NE(RoomServerOptions{.max_queue_messages = 0}.validate().find("max_queue_messages"), std::string::npos);
    EXPECT_NE(RoomServerOptions{.idle_timeout_s = -1}.validate().find("idle_timeout_s"), std::string::npos);
}

TEST(RoomServerListen, ReportsAPortInUse) {
    Recorder h1, h2;
    RoomServer first({.port = 0}, h1);
    ASSERT_EQ(first.listen(), "");
    RoomServer second({.port = first.port()}, h2);
    EXPECT_EQ(second.listen(), "port " + std::to_string(first.port()) + " is in use");
    RoomServer bad({.bind = "not-an-address", .port = 0}, h2);
    EXPECT_NE(bad.listen().find("bind"), std::string::npos);
}

// --- static files ---------------------------------------------------------------------------------

class RoomStaticFilesTest : public RoomServerTest {
protected:
    void SetUp() override {
        base_ = fs::temp_directory_path() / ("vantage_room_" + std::to_string(::getpid()));
        fs::remove_all(base_);
        fs::create_directories(base_ / "web" / "sub");
        fs::create_directories(base_ / "outside");
        write(base_ / "web" / "index.html", "<!doctype html><p>room</p>");
        write(base_ / "web" / "app.wasm", std::string("\0asm\x01\0\0\0", 8));
        write(base_ / "web" / "app.js", "console.log('plain');");
        write(base_ / "web" / "app.js.gz", "pretend-gzip-bytes");
        write(base_ / "web" / "sub" / "index.html", "sub");
        write(base_ / "outside" / "secret.txt", "secret");
        write(base_ / "x", "one level up");
        write(base_ / "web" / "cmake_install.cmake", "# /home/someone/vantage/build");
        fs::create_directories(base_ / "web" / "CMakeFiles");
        write(base_ / "web" / "CMakeFiles" / "CMakeOutput.log", "paths of the machine");
        fs::create_symlink(base_ / "outside" / "secret.txt", base_ / "web" / "link.txt");
        start({.web_root = (base_ / "web").string(),
               .files = {"index.html", "app.wasm", "app.js", "sub/index.html", "link.txt"}});
    }
    void TearDown() override {
        RoomServerTest::TearDown();
        fs::remove_all(base_);
    }
    static void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }
    fs::path base_;
};

TEST_F(RoomStaticFilesTest, ServesIndexHtmlWithTypeEtagAndNoCache) {
    const std::string r = get(port_, "/");
    EXPECT_EQ(status_line(r), "HTTP/1.1 200 OK") << r;
    EXPECT_EQ(header(r, "Content-Type"), "text/html; charset=utf-8");
    EXPECT_EQ(header(r, "Cache-Control"), "no-cache");
    EXPECT_EQ(header(r, "ETag").front(), '"');
    EXPECT_EQ(body(r), "<!doctype html><p>room</p>");
    EXPECT_EQ(body(get(port_, "/sub/")), "sub");
    const std::string wasm = get(port_, "/app.wasm");
    EXPECT_EQ(header(wasm, "Content-Type"), "application/wasm");
    EXPECT_EQ(body(wasm).size(), 8u);
    EXPECT_EQ(status_line(get(port_, "/missing.txt")).substr(0, 12), "HTTP/1.1 404");
}

TEST_F(RoomStaticFilesTest, HeadHasLengthButNoBodyAndPostIs405) {
    const std::string head =
        http_exchange(port_, "HEAD /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    EXPECT_EQ(status_line(head), "HTTP/1.1 200 OK") << head;
    EXPECT_EQ(header(head, "Content-Length"), "26");
    EXPECT_EQ(body(head), "");
    const std::string post = http_exchange(port_, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    EXPECT_EQ(status_line(post).substr(0, 12), "HTTP/1.1 405") << post;
}

TEST_F(RoomStaticFilesTest, RefusesTraversalEncodedTraversalAndNul) {
    for (const char* target :
         {"/../x", "/%2e%2e/x", "/%2E%2E%2Fx", "/sub/../../x", "//etc/passwd", "/index.html%00.txt"}) {
        const std::string r = get(port_, target);
        EXPECT_EQ(status_line(r).substr(0, 12), "HTTP/1.1 403") << target << "\n" << r;
        EXPECT_EQ(r.find("one level up"), std::string::npos) << target;
    }
    EXPECT_EQ(status_line(get(port_, "/%zz")).substr(0, 12), "HTTP/1.1 400");
}

TEST_F(RoomStaticFilesTest, RefusesASymlinkLeavingTheRoot) {
    const std::string r = get(port_, "/link.txt");
    EXPECT_EQ(status_line(r).substr(0, 12), "HTTP/1.1 403") << r;
    EXPECT_EQ(r.find("secret"), std::string::npos);
}

TEST_F(RoomStaticFilesTest, ServesTheGzipVariantAndAnswers304ForItsEtag) {
    const std::string plain = get(port_, "/app.js");
    EXPECT_EQ(body(plain), "console.log('plain');");
    EXPECT_EQ(header(plain, "Content-Encoding"), "");
    EXPECT_EQ(header(plain, "Vary"), "Accept-Encoding");
    EXPECT_EQ(header(plain, "Content-Type"), "text/javascript; charset=utf-8");

    const std::string gz = get(port_, "/app.js", "Accept-Encoding: br, gzip\r\n");
    EXPECT_EQ(body(gz), "pretend-gzip-bytes");
    EXPECT_EQ(header(gz, "Content-Encoding"), "gzip");
    EXPECT_EQ(header(gz, "Vary"), "Accept-Encoding");
    EXPECT_EQ(header(gz, "Content-Type"), "text/javascript; charset=utf-8");
    EXPECT_EQ(header(gz, "X-Decoded-Length"), "21");  // the plain file's size, for the progress bar
    const std::string etag = header(gz, "ETag");
    EXPECT_NE(etag, header(plain, "ETag"));  // one strong tag per variant

    const std::string again = get(port_, "/app.js", "Accept-Encoding: gzip\r\nIf-None-Match: " + etag + "\r\n");
    EXPECT_EQ(status_line(again), "HTTP/1.1 304 Not Modified") << again;
    EXPECT_EQ(body(again), "");
    // The plain variant's request does not match the gzip tag.
    const std::string other = get(port_, "/app.js", "If-None-Match: " + etag + "\r\n");
    EXPECT_EQ(status_line(other), "HTTP/1.1 200 OK");
}

TEST_F(RoomStaticFilesTest, OnlyThePagesOwnFilesAreServed) {
    for (const char* target : {"/cmake_install.cmake", "/CMakeFiles/CMakeOutput.log", "/CMakeFiles/", "/x",
                               "/page-files.txt", "/sub/other.html"}) {
        const std::string r = get(port_, target);
        EXPECT_EQ(status_line(r).substr(0, 12), "HTTP/1.1 404") << target << "\n" << r;
        EXPECT_EQ(r.find("/home/someone"), std::string::npos) << target;
    }
    EXPECT_EQ(status_line(get(port_, "/sub")), "HTTP/1.1 200 OK");  // a listed directory's index
}

TEST_F(RoomStaticFilesTest, AForeignHostIsRefusedForFilesAndTheSocket) {
    const std::string port = std::to_string(port_);
    const std::string file =
        http_exchange(port_, "GET / HTTP/1.1\r\nHost: evil.example:" + port + "\r\nConnection: close\r\n\r\n");
    EXPECT_EQ(status_line(file).substr(0, 12), "HTTP/1.1 403") << file;
    EXPECT_EQ(body(file), "this room answers only to its own addresses: open the URL the room printed\n");
    const std::string ws = http_exchange(
        port_, upgrade_request("/ws", "evil.example:" + port, "Origin: http://evil.example:" + port + "\r\n"));
    EXPECT_EQ(status_line(ws).substr(0, 12), "HTTP/1.1 403") << ws;
    const std::string none = http_exchange(port_, "GET / HTTP/1.0\r\n\r\n");
    EXPECT_EQ(status_line(none).substr(0, 12), "HTTP/1.0 403") << none;
    for (const std::string& host :
         {"localhost:" + port, "LOCALHOST.:" + port, "[::1]:" + port, std::string("127.0.0.1")}) {
        const std::string r = http_exchange(port_, "GET / HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");
        EXPECT_EQ(status_line(r), "HTTP/1.1 200 OK") << host;
    }
}

TEST(RoomServerListen, ServesTheListTheWebBuildWroteAndNeedsIt) {
    const fs::path web = fs::temp_directory_path() / ("vantage_room_list_" + std::to_string(::getpid()));
    fs::remove_all(web);
    fs::create_directories(web);
    std::ofstream(web / "index.html") << "page";
    std::ofstream(web / "cmake_install.cmake") << "secret";
    Recorder handler;
    {
        RoomServer without({.port = 0, .web_root = web.string()}, handler);
        EXPECT_NE(without.listen().find("page-files.txt"), std::string::npos);
    }
    std::ofstream(web / "page-files.txt") << "index.html\n";
    RoomServer server({.port = 0, .web_root = web.string()}, handler);
    handler.server = &server;
    ASSERT_EQ(server.listen(), "");
    std::thread t([&] { server.run(); });
    EXPECT_EQ(body(get(server.port(), "/")), "page");
    EXPECT_EQ(status_line(get(server.port(), "/cmake_install.cmake")).substr(0, 12), "HTTP/1.1 404");
    server.stop();
    t.join();
    fs::remove_all(web);
}

TEST(RoomServerListen, AnswersToTheHostsItIsGiven) {
    Recorder handler;
    RoomServer server({.port = 0, .hosts = {"192.0.2.7", "Room.Lan"}}, handler);
    handler.server = &server;
    ASSERT_EQ(server.listen(), "");
    std::thread t([&] { server.run(); });
    for (const char* host : {"192.0.2.7:8000", "room.lan", "127.0.0.1"}) {
        const std::string r = http_exchange(
            server.port(), "GET / HTTP/1.1\r\nHost: " + std::string(host) + "\r\nConnection: close\r\n\r\n");
        EXPECT_EQ(status_line(r).substr(0, 12), "HTTP/1.1 404") << host;  // let in; no files
    }
    const std::string r =
        http_exchange(server.port(), "GET / HTTP/1.1\r\nHost: 192.0.2.8\r\nConnection: close\r\n\r\n");
    EXPECT_EQ(status_line(r).substr(0, 12), "HTTP/1.1 403") << r;
    server.stop();
    t.join();
}

}  // namespace
}  // namespace vantage::room
