// The room's transport seam (room/datagram_path.hpp) with a fake datagram path: a horde room
// over real sockets on 127.0.0.1 (support/live_room.hpp) whose seat is handed a path that
// carries frames to the test's own queue, while the bot's acknowledgements come back through
// GameRoom::on_datagram. The path is in-process and lossless; the seat's simulated link still
// drops frames above it, so convergence shows the acked stream working over the path.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "common/room_wire.hpp"
#include "common/transport.hpp"
#include "room/datagram_path.hpp"
#include "room/horde_room.hpp"
#include "room/room_bot.hpp"
#include "support/live_room.hpp"

namespace vantage::room {
namespace {

using namespace std::chrono_literals;
using live::drive;
using LiveRoom = live::LiveRoom<HordeRoom>;

// What the room's thread hands the fake path, read by the test thread.
struct PathQueue {
    std::mutex mutex;
    std::deque<std::vector<std::uint8_t>> down;
    std::atomic<std::uint64_t> sent{0};
    std::atomic<bool> refuse{false};
};

class FakePath final : public DatagramPath {
public:
    explicit FakePath(PathQueue& queue) : queue_(queue) {}
    SeatTransport kind() const override { return SeatTransport::Udp; }
    bool send(std::span<const std::uint8_t> bytes) override {
        if (queue_.refuse.load()) return false;
        std::lock_guard lock(queue_.mutex);
        queue_.down.emplace_back(bytes.begin(), bytes.end());
        queue_.sent += 1;
        return true;
    }

private:
    PathQueue& queue_;
};

// The bot's end of the fake path: frames from the queue; what the bot sends up is handed to
// the room's thread as a datagram from its connection.
class FakePathEnd final : public play::Transport {
public:
    FakePathEnd(PathQueue& queue, LiveRoom& live, ConnectionId id) : queue_(queue), live_(live), id_(id) {}
    void send(double, std::span<const std::uint8_t> bytes) override {
        live_.server->post([room = &live_.room, id = id_, b = std::vector<std::uint8_t>(bytes.begin(), bytes.end())] {
            room->on_datagram(id, b);
        });
    }
    bool poll(double, std::vector<std::uint8_t>& out) override {
        std::lock_guard lock(queue_.mutex);
        if (queue_.down.empty()) return false;
        out = std::move(queue_.down.front());
        queue_.down.pop_front();
        return true;
    }

private:
    PathQueue& queue_;
    LiveRoom& live_;
    ConnectionId id_;
};

template <class Fn>
auto on_room_thread(LiveRoom& live, Fn&& fn) {
    return live::on_server_thread(*live.server, std::forward<Fn>(fn));
}

HordeRoomOptions lossy_room() {
    HordeRoomOptions o;
    o.seats = 2;
    o.settings.enemies = 600;
    o.settings.loss_pct = 20.0;  // the seat's simulated link, above whatever carries the bytes
    o.settings.latency_ms = 10.0;
    o.settings.jitter_ms = 0.0;
    return o;
}

struct Seated {
    LiveRoom live{lossy_room()};
    std::vector<std::unique_ptr<HordeBot>> bots;
    ConnectionId id = 0;
    PathQueue queue;
    std::unique_ptr<FakePathEnd> end;

    Seated() {
        bots.push_back(live::join_bot<HordeBot>(live.url, "dgram"));
        EXPECT_TRUE(drive(
            bots, [&] { return bots[0]->remote().frames() > 5; }, 5000ms));
        id = on_room_thread(live, [&] {
            const std::vector<SeatReport> r = live.room.seat_reports();
            return r.empty() ? ConnectionId{0} : r[0].connection;
        });
        end = std::make_unique<FakePathEnd>(queue, live, id);
    }
    play::HordeRemote& remote() { return bots[0]->remote(); }
    SeatReport report() {
        return on_room_thread(live, [&] {
            const std::vector<SeatReport> r = live.room.seat_reports();
            return r.empty() ? SeatReport{} : r[0];
        });
    }
    void attach() {
        live.server->post([this] { live.room.attach_path(id, std::make_unique<FakePath>(queue)); });
        remote().set_datagram(end.get());
    }
};

TEST(RoomDatagram, AnAttachedPathCarriesTheFramesAndTheClientIsTold) {
    Seated s;
    s.attach();
    ASSERT_TRUE(drive(
        s.bots, [&] { return s.remote().transport() == SeatTransport::Udp; }, 3000ms));
    EXPECT_EQ(s.remote().transport_why(), "frames over udp");
    // Every frame sent after the TransportState takes the path (the WebSocket is ordered, so
    // frames queued before it arrived before it).
    const std::uint64_t over_socket = s.remote().frames() - s.remote().datagram_frames();
    ASSERT_TRUE(drive(
        s.bots, [&] { return s.remote().datagram_frames() >= 20; }, 5000ms));
    EXPECT_EQ(s.remote().frames() - s.remote().datagram_frames(), over_socket);
    const SeatReport r = s.report();
    EXPECT_EQ(r.transport, SeatTransport::Udp);
    EXPECT_GE(r.path_messages, 20u);
    EXPECT_EQ(r.path_messages, s.queue.sent.load());
}

TEST(RoomDatagram, AcknowledgementsOverThePathKeepTheLossyStreamConverging) {
    Seated s;
    s.attach();
    ASSERT_TRUE(drive(
        s.bots, [&] { return s.remote().datagram_frames() >= 60; }, 8000ms));
    // 20% of frames are dropped above the path; the stream repairs against what the acks
    // (all of them over the path) say the client holds.
    ASSERT_TRUE(drive(
        s.bots, [&] { return s.remote().client().agreed(); }, 3000ms));
    EXPECT_GT(s.remote().frames_lost(), 0u);
    const SeatReport r = s.report();
    EXPECT_GT(r.path_in_messages, 30u);
    EXPECT_GT(r.frames_lost, 0u);
    EXPECT_EQ(r.decode_errors, 0u);
}

TEST(RoomDatagram, DetachingFallsBackToTheWebSocketAndSaysWhy) {
    Seated s;
    s.attach();
    ASSERT_TRUE(drive(
        s.bots, [&] { return s.remote().datagram_frames() >= 10; }, 5000ms));
    s.live.server->post([&] { s.live.room.detach_path(s.id, "the path failed (test)"); });
    ASSERT_TRUE(drive(
        s.bots, [&] { return s.remote().transport() == SeatTransport::WebSocket; }, 3000ms));
    EXPECT_EQ(s.remote().transport_why(), "the path failed (test)");
    const std::uint64_t path_sent = s.queue.sent.load();
    const std::uint64_t over_socket = s.remote().frames() - s.remote().datagram_frames();
    ASSERT_TRUE(drive(
        s.bots, [&] { return s.remote().frames() - s.remote().datagram_frames() >= over_socket + 10; }, 5000ms));
    EXPECT_EQ(s.queue.sent.load(), path_sent);
    EXPECT_EQ(s.report().transport, SeatTransport::WebSocket);
}

TEST(RoomDatagram, FramesThePathRefusesAreCountedAsDropped) {
    Seated s;
    s.queue.refuse = true;
    s.attach();
    ASSERT_TRUE(drive(
        s.bots, [&] { return s.remote().transport() == SeatTransport::Udp; }, 3000ms));
    ASSERT_TRUE(drive(
        s.bots, [&] { return s.report().path_dropped >= 5; }, 3000ms));
    const SeatReport r = s.report();
    EXPECT_EQ(r.path_messages, 0u);
}

TEST(RoomDatagram, AUdpRequestInARoomWithoutUdpIsAnsweredWithTheReason) {
    Seated s;
    s.remote().request_udp(s.bots[0]->socket_transport(), live::now_ms());
    ASSERT_TRUE(drive(
        s.bots, [&] { return s.remote().transport_changes() > 0; }, 3000ms));
    EXPECT_EQ(s.remote().transport(), SeatTransport::WebSocket);
    EXPECT_EQ(s.remote().transport_why(), "this room has no UDP: playing over the websocket");
}

}  // namespace
}  // namespace vantage::room
