// A room over real sockets on 127.0.0.1 for tests: the game room on a RoomServer (its own
// thread, an ephemeral port), and a driver that runs bots built from the page's client code
// on the test thread. Waits are polls with deadlines; the bots' clock is the steady clock
// (this is a real network), the world's tick is the room's own fixed step.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "room/room_bot.hpp"
#include "room/room_server.hpp"

namespace vantage::room::live {

inline double now_ms() {
    static const auto start = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

template <class Room>
struct LiveRoom {
    template <class Options>
    explicit LiveRoom(Options options, RoomServerOptions net = {}) : room(options) {
        net.port = 0;
        net.tick_hz = options.tick_hz;
        net.max_message_bytes = 16 * 1024;
        net.max_connections = options.connection_budget();
        server = std::make_unique<RoomServer>(net, room);
        room.attach(*server);
        const std::string e = server->listen();
        EXPECT_EQ(e, "");
        url = "ws://127.0.0.1:" + std::to_string(server->port()) + "/ws";
        thread = std::thread([this] { server->run(); });
    }
    ~LiveRoom() { stop(); }
    void stop() {
        if (!thread.joinable()) return;
        server->stop();
        thread.join();
    }
    Room room;
    std::unique_ptr<RoomServer> server;
    std::string url;
    std::thread thread;
};

// Runs every bot's frame at about 60 Hz until `done` or the limit.
template <class Bot, class Done>
bool drive(std::vector<std::unique_ptr<Bot>>& bots, Done&& done, std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    double last = now_ms();
    while (std::chrono::steady_clock::now() < deadline) {
        const double t = now_ms();
        for (auto& b : bots) b->update(t, static_cast<float>((t - last) / 1000.0));
        last = t;
        if (done()) return true;
        std::this_thread::sleep_for(std::chrono::microseconds(16667));
    }
    return done();
}

// Runs fn on the room server's thread (RoomServer::post) and waits for its answer: how a test
// reads the room's state while it runs.
template <class Fn>
auto on_server_thread(RoomServer& server, Fn&& fn) {
    std::promise<decltype(fn())> done;
    auto answer = done.get_future();
    server.post([&] { done.set_value(fn()); });
    EXPECT_EQ(answer.wait_for(std::chrono::seconds(3)), std::future_status::ready);
    return answer.get();
}

template <class Bot>
std::unique_ptr<Bot> join_bot(const std::string& url, const char* name = "bot") {
    auto b = std::make_unique<Bot>(play::RoomRemoteOptions{.name = name});
    EXPECT_EQ(b->join(url, now_ms()), "");
    return b;
}

}  // namespace vantage::room::live
