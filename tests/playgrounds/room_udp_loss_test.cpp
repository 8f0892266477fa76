// The lesson under real loss: a horde room whose two UDP seats and two WebSocket seats all
// lose one packet in five in the kernel (nftables on the input path of a private network
// namespace, TCP and UDP alike, both directions), then the loss stops. Over UDP a lost frame
// is gone and the next one, diffed against what the client acknowledged, repairs it: the
// newest frame held stays young and the mirror agrees again within a round trip of the loss
// stopping. Over the WebSocket (TCP) a lost segment holds every later frame until it is
// resent: nothing is lost, but the newest frame held ages by retransmission timeouts.
//
// The namespace is made by a forked child (support/private_net.hpp); where unshare or nft is
// refused the test is skipped, not passed. Nothing in the namespace reaches any other address.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "room/horde_room.hpp"
#include "room/room_bot.hpp"
#include "room/udp_room.hpp"
#include "support/live_room.hpp"
#include "support/private_net.hpp"

namespace vantage::room {
namespace {

using namespace std::chrono_literals;
using live::drive;

using test::kSkipNoNft;

struct LossLesson {
    int seated = 0;                               // bots seated, UDP ones on UDP, before the loss
    double udp_age_p99_ms = 0;                    // the worst UDP seat's frame age p99 under loss
    double ws_age_p99_ms = 0;                     // the worst WebSocket seat's
    std::uint64_t udp_stalls = 0, ws_stalls = 0;  // stalls under loss, summed
    std::uint64_t udp_lost = 0;                   // frames the UDP seats counted lost under loss
    int udp_still_on_udp = 0;                     // UDP seats still on UDP after the loss
    double udp_converge_ms = -1;                  // from the loss stopping to every UDP mirror agreeing on a new frame
};

bool start_loss() {
    return std::system(
               "printf '%s\\n' 'table inet vantage_room_loss {' 'chain in {'"
               " 'type filter hook input priority 0;'"
               " 'meta l4proto { tcp, udp } numgen random mod 100 < 20 counter drop' '}' '}'"
               " | nft -f - >/dev/null 2>&1") == 0;
}

bool stop_loss() {
    return std::system("nft delete table inet vantage_room_loss >/dev/null 2>&1") == 0;
}

// In the child, inside the namespace.
int run_lesson(LossLesson& out) {
    HordeRoomOptions o;
    o.seats = 4;
    o.settings.enemies = 600;
    o.settings.send_hz = 60.0;  // a frame every tick: the age a lost frame adds is one tick
    o.settings.latency_ms = 0.0;
    o.settings.jitter_ms = 0.0;
    live::LiveRoom<HordeRoom> live(o);
    UdpRoom udp(live.room, {.bind = UdpAddress::v4(127, 0, 0, 1, 0)});
    if (!udp.open().empty()) return 1;
    live::on_server_thread(*live.server, [&] {
        live.room.set_udp_door(&udp);
        return true;
    });
    std::vector<std::unique_ptr<HordeBot>> bots;
    for (int i = 0; i < 4; ++i) {
        bots.push_back(std::make_unique<HordeBot>(play::RoomRemoteOptions{.name = i < 2 ? "udp" : "ws"},
                                                  UdpSeatLinkOptions{.enabled = i < 2}));
        if (!bots.back()->join(live.url, live::now_ms()).empty()) return 1;
    }
    auto on_udp = [&](int i) { return bots[i]->remote().transport() == SeatTransport::Udp; };
    if (!drive(
            bots, [&] { return on_udp(0) && on_udp(1) && bots[3]->remote().frames() > 30; }, 8000ms))
        return 1;
    drive(
        bots, [] { return false; }, 1000ms);
    out.seated = 4;

    std::uint64_t stalls0[4], lost0[2];
    for (int i = 0; i < 4; ++i) stalls0[i] = bots[i]->remote().stalls();
    for (int i = 0; i < 2; ++i) lost0[i] = bots[i]->remote().frames_lost();
    if (!start_loss()) return kSkipNoNft;
    drive(
        bots, [] { return false; }, 4000ms);
    for (int i = 0; i < 4; ++i) {
        const play::HordeRemote& r = bots[i]->remote();
        const double p99 = r.frame_age_p99_ms().value_or(0.0);
        (i < 2 ? out.udp_age_p99_ms : out.ws_age_p99_ms) =
            std::max(i < 2 ? out.udp_age_p99_ms : out.ws_age_p99_ms, p99);
        (i < 2 ? out.udp_stalls : out.ws_stalls) += r.stalls() - stalls0[i];
        if (i < 2) out.udp_lost += r.frames_lost() - lost0[i];
    }

    stop_loss();
    const double stopped = live::now_ms();
    const std::uint64_t frames0[2] = {bots[0]->remote().frames(), bots[1]->remote().frames()};
    if (drive(
            bots,
            [&] {
                for (int i = 0; i < 2; ++i) {
                    if (bots[i]->remote().frames() == frames0[i] || !bots[i]->remote().client().agreed()) return false;
                }
                return true;
            },
            3000ms))
        out.udp_converge_ms = live::now_ms() - stopped;
    out.udp_still_on_udp = (on_udp(0) ? 1 : 0) + (on_udp(1) ? 1 : 0);
    live.stop();
    return 0;
}

// Eight UDP seats under the same real loss, the room's stream with acked recovery or naive
// (the server assumes every frame arrived): how often each mirror agreed with the server's set.
struct Recovery {
    int on_udp = 0;
    double agreed_under_loss = 0;  // fraction of the bots' updates whose mirror agreed
    double agreed_after = 0;       // the same over the second after the loss stopped
};

int run_recovery(bool acked, Recovery& out) {
    HordeRoomOptions o;
    o.seats = 8;
    o.settings.enemies = 600;
    o.settings.latency_ms = 0.0;
    o.settings.jitter_ms = 0.0;
    o.recovery = acked;
    live::LiveRoom<HordeRoom> live(o);
    UdpRoom udp(live.room, {.bind = UdpAddress::v4(127, 0, 0, 1, 0)});
    if (!udp.open().empty()) return 1;
    live::on_server_thread(*live.server, [&] {
        live.room.set_udp_door(&udp);
        return true;
    });
    std::vector<std::unique_ptr<HordeBot>> bots;
    for (int i = 0; i < 8; ++i) {
        bots.push_back(std::make_unique<HordeBot>(play::RoomRemoteOptions{.name = "udp"}, UdpSeatLinkOptions{}));
        if (!bots.back()->join(live.url, live::now_ms()).empty()) return 1;
    }
    auto all_on_udp = [&] {
        return std::all_of(bots.begin(), bots.end(),
                           [](const auto& b) { return b->remote().transport() == SeatTransport::Udp; });
    };
    if (!drive(bots, all_on_udp, 8000ms)) return 1;
    out.on_udp = 8;
    auto agreed_fraction = [&](std::chrono::milliseconds span) {
        std::uint64_t agreed = 0, samples = 0;
        drive(
            bots,
            [&] {
                for (const auto& b : bots) {
                    agreed += b->remote().client().agreed() ? 1 : 0;
                    ++samples;
                }
                return false;
            },
            span);
        return samples ? static_cast<double>(agreed) / static_cast<double>(samples) : 0.0;
    };
    if (!start_loss()) return kSkipNoNft;
    out.agreed_under_loss = agreed_fraction(3000ms);
    stop_loss();
    out.agreed_after = agreed_fraction(1000ms);
    live.stop();
    return 0;
}

TEST(RoomUdpLoss, EightUdpSeatsConvergeUnderRealLossWithAckedRecoveryAndNotWithNaive) {
    struct Runs {
        Recovery acked, naive;
    };
    const auto run = test::run_in_private_net<Runs>([](Runs& r) {
        const int status = run_recovery(true, r.acked);
        return status != 0 ? status : run_recovery(false, r.naive);
    });
    if (!run.skipped.empty()) GTEST_SKIP() << run.skipped;
    ASSERT_TRUE(run.failed.empty()) << run.failed;
    const Recovery runs[2] = {run.result.acked, run.result.naive};
    std::printf(
        "  8 udp seats, 20%% real loss: mirrors agreed acked %.1f%% (after %.1f%%), naive %.1f%% (after "
        "%.1f%%)\n",
        100.0 * runs[0].agreed_under_loss, 100.0 * runs[0].agreed_after, 100.0 * runs[1].agreed_under_loss,
        100.0 * runs[1].agreed_after);
    EXPECT_EQ(runs[0].on_udp, 8);
    EXPECT_EQ(runs[1].on_udp, 8);
    EXPECT_GT(runs[0].agreed_under_loss, 0.9);
    EXPECT_GT(runs[0].agreed_after, 0.95);
    EXPECT_LT(runs[1].agreed_under_loss, 0.5) << "naive recovery never repairs a lost enter or leave";
    EXPECT_LT(runs[1].agreed_after, 0.5) << "and stays wrong after the loss stops";
}

TEST(RoomUdpLoss, UnderRealLossDatagramSeatsStayFreshAndConvergeWhileWebSocketSeatsStall) {
    const auto run = test::run_in_private_net<LossLesson>([](LossLesson& l) { return run_lesson(l); });
    if (!run.skipped.empty()) GTEST_SKIP() << run.skipped;
    ASSERT_TRUE(run.failed.empty()) << run.failed;
    const LossLesson& lesson = run.result;
    std::printf(
        "  under 20%% real loss: frame age p99 udp %.0f ms, websocket %.0f ms; stalls udp %llu, websocket "
        "%llu; udp frames lost %llu; udp converged %.0f ms after the loss stopped\n",
        lesson.udp_age_p99_ms, lesson.ws_age_p99_ms, static_cast<unsigned long long>(lesson.udp_stalls),
        static_cast<unsigned long long>(lesson.ws_stalls), static_cast<unsigned long long>(lesson.udp_lost),
        lesson.udp_converge_ms);
    EXPECT_EQ(lesson.seated, 4);
    EXPECT_GT(lesson.udp_lost, 10u) << "the loss reached the UDP seats' frames";
    EXPECT_EQ(lesson.udp_still_on_udp, 2);
    EXPECT_GT(lesson.ws_age_p99_ms, lesson.udp_age_p99_ms) << "head-of-line blocking ages the websocket's frames";
    EXPECT_GT(lesson.ws_stalls, lesson.udp_stalls);
    ASSERT_GE(lesson.udp_converge_ms, 0.0) << "the UDP mirrors agreed again after the loss stopped";
    EXPECT_LT(lesson.udp_converge_ms, 250.0) << "within a round trip and a few ticks";
}

}  // namespace
}  // namespace vantage::room
