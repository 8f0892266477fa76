// vantage_rtc_load: how many browsers' DataChannels one room process holds. Two processes on
// this machine: the room's side (WebRtcPeers, as vantage_serve runs it, with a 60 Hz loop on
// the main thread that sends every open peer frame-sized messages) and a page side
// (N webrtcbins that offer {ordered: false, max-retransmits: 0} channels, like Chromium, and
// answer every frame with a 12-byte acknowledgement plus a heartbeat). Signalling crosses a
// socketpair. The page side shares the machine's cores, so the figures are pessimistic.
// Frames go out at --send-hz (default 16, the rooms' default send rate), every open peer in the
// same tick; --send-hz 60 is the stress case of one frame per tick.
// Prints, for the room's process: time to open every channel, late ticks, the loop's work per
// tick, CPU per message (sent and received), threads and resident memory. Figures come from
// here, never from a timed test.
//
//   vantage_rtc_load --help   (every flag and its range)
#define GST_USE_UNSTABLE_API
#include <gst/gst.h>
#include <gst/sdp/sdp.h>
#include <gst/webrtc/webrtc.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "room/process_stats.hpp"
#include "room/tool_flags.hpp"
#include "room/webrtc_peers.hpp"

using namespace vantage::room;
using Clock = std::chrono::steady_clock;

namespace {

// One signalling record on the socketpair: u32 peer id, u8 kind (1 offer, 2 answer, 3 candidate), text.
void put(int fd, std::uint32_t id, std::uint8_t kind, const std::string& text) {
    std::string record(5, '\0');
    std::memcpy(record.data(), &id, 4);
    record[4] = static_cast<char>(kind);
    record += text;
    if (::send(fd, record.data(), record.size(), 0) < 0) std::perror("send");
}

bool get(int fd, std::uint32_t& id, std::uint8_t& kind, std::string& text, bool wait) {
    char buf[65536];
    const ssize_t n = ::recv(fd, buf, sizeof buf, wait ? 0 : MSG_DONTWAIT);
    if (n < 5) return false;
    std::memcpy(&id, buf, 4);
    kind = static_cast<std::uint8_t>(buf[4]);
    text.assign(buf + 5, static_cast<std::size_t>(n - 5));
    return true;
}

// --- the page side (child process) ---

struct Page {
    std::uint32_t id = 0;
    int fd = -1;
    std::mutex* send_mutex = nullptr;
    GstElement* pipeline = nullptr;
    GstElement* webrtc = nullptr;
    GstWebRTCDataChannel* channel = nullptr;
};

void page_offer(GstPromise* promise, gpointer data) {
    auto* p = static_cast<Page*>(data);
    GstWebRTCSessionDescription* offer = nullptr;
    gst_structure_get(gst_promise_get_reply(promise), "offer", GST_TYPE_WEBRTC_SESSION_DESCRIPTION, &offer, nullptr);
    GstPromise* local = gst_promise_new();
    g_signal_emit_by_name(p->webrtc, "set-local-description", offer, local);
    gst_promise_unref(local);
    gchar* text = gst_sdp_message_as_text(offer->sdp);
    {
        std::lock_guard lock(*p->send_mutex);
        put(p->fd, p->id, 1, text);
    }
    g_free(text);
    gst_webrtc_session_description_free(offer);
}

void page_candidate(GstElement*, guint, gchar* candidate, gpointer data) {
    auto* p = static_cast<Page*>(data);
    std::lock_guard lock(*p->send_mutex);
    put(p->fd, p->id, 3, candidate);
}

// A frame arrived: answer it as a page would, with an acknowledgement of a dozen bytes.
void page_message(GObject*, GBytes*, gpointer data) {
    auto* p = static_cast<Page*>(data);
    static const std::uint8_t ack[12] = {0x41, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    GBytes* b = g_bytes_new_static(ack, sizeof ack);
    gst_webrtc_data_channel_send_data_full(p->channel, b, nullptr);
    g_bytes_unref(b);
}

int run_pages(int fd, int peers) {
    gst_init(nullptr, nullptr);
    std::mutex send_mutex;
    std::vector<Page> pages(static_cast<std::size_t>(peers));
    for (int i = 0; i < peers; ++i) {
        Page& p = pages[static_cast<std::size_t>(i)];
        p.id = static_cast<std::uint32_t>(i + 1);
        p.fd = fd;
        p.send_mutex = &send_mutex;
        p.pipeline = gst_pipeline_new(nullptr);
        p.webrtc = gst_element_factory_make("webrtcbin", nullptr);
        gst_bin_add(GST_BIN(p.pipeline), p.webrtc);
        g_object_set(p.webrtc, "bundle-policy", GST_WEBRTC_BUNDLE_POLICY_MAX_BUNDLE, nullptr);
        GObject* ice = nullptr;
        g_object_get(p.webrtc, "ice-agent", &ice, nullptr);
        gboolean added = FALSE;
        g_signal_emit_by_name(ice, "add-local-ip-address", "127.0.0.1", &added);
        g_object_unref(ice);
        g_signal_connect(p.webrtc, "on-ice-candidate", G_CALLBACK(page_candidate), &p);
        gst_element_set_state(p.pipeline, GST_STATE_PLAYING);
        GstStructure* init = gst_structure_new("application/data-channel", "ordered", G_TYPE_BOOLEAN, FALSE,
                                               "max-retransmits", G_TYPE_INT, 0, nullptr);
        g_signal_emit_by_name(p.webrtc, "create-data-channel", "vantage", init, &p.channel);
        gst_structure_free(init);
        g_signal_connect(p.channel, "on-message-data", G_CALLBACK(page_message), &p);
        GstPromise* promise = gst_promise_new_with_change_func(page_offer, &p, nullptr);
        g_signal_emit_by_name(p.webrtc, "create-offer", nullptr, promise);
        gst_promise_unref(promise);
    }
    std::uint32_t id = 0;
    std::uint8_t kind = 0;
    std::string text;
    while (get(fd, id, kind, text, true)) {
        if (id == 0 || id > pages.size()) continue;
        Page& p = pages[id - 1];
        if (kind == 2) {
            GstSDPMessage* sdp = nullptr;
            gst_sdp_message_new_from_text(text.c_str(), &sdp);
            GstWebRTCSessionDescription* answer = gst_webrtc_session_description_new(GST_WEBRTC_SDP_TYPE_ANSWER, sdp);
            GstPromise* promise = gst_promise_new();
            g_signal_emit_by_name(p.webrtc, "set-remote-description", answer, promise);
            gst_promise_unref(promise);
            gst_webrtc_session_description_free(answer);
        } else if (kind == 3) {
            g_signal_emit_by_name(p.webrtc, "add-ice-candidate", 0u, text.c_str());
        }
    }
    _exit(0);  // the room closed the socket: gone, as closed tabs go
}

// --- the room's side (this process) ---

struct Owner final : WebRtcEvents {
    std::mutex mutex;
    std::deque<std::function<void()>> queue;
    int fd = -1;
    std::size_t open = 0;
    std::uint64_t closed = 0;
    void rtc_signal(RtcPeerId id, RtcSignalOut kind, std::string text) override {
        put(fd, static_cast<std::uint32_t>(id), kind == RtcSignalOut::Answer ? 2 : 3, text);
    }
    void rtc_open(RtcPeerId) override { ++open; }
    void rtc_message(RtcPeerId, std::span<const std::uint8_t>) override {}
    void rtc_closed(RtcPeerId id, std::string why) override {
        ++closed;
        std::fprintf(stderr, "peer %llu closed: %s\n", static_cast<unsigned long long>(id), why.c_str());
    }
};

}  // namespace

int main(int argc, char** argv) {
    int peers = 64, bytes = 600;
    double seconds = 10, send_hz = 16;
    std::string markdown;
    ToolFlags flags("vantage_rtc_load",
                    "How many DataChannel peers one room process holds: N page-side webrtcbins in a child process,\n"
                    "the room's side sending each open peer one frame every 1/--send-hz s from a 60 Hz loop (16 Hz\n"
                    "is the rooms' default send rate). Prints late ticks, CPU per message, threads and RSS.");
    flags.count("--peers", "N", 1, 256, peers);
    flags.number("--seconds", "S", 1, 3600, seconds);
    flags.count("--bytes", "B", 1, static_cast<int>(kMaxRtcMessageBytes), bytes);
    flags.number("--send-hz", "HZ", 1, 60, send_hz);
    std::string ports;
    flags.text("--rtc-ports", "LO-HI", ports);
    flags.text("--markdown", "FILE", markdown);
    if (const int exit = flags.parse(argc, argv); exit >= 0) return exit;
    int lo = 0, hi = 0;
    if (!ports.empty() && (std::sscanf(ports.c_str(), "%d-%d", &lo, &hi) != 2 || lo < 1 || hi > 65535 || lo > hi))
        return flags.fail("--rtc-ports needs a range LO-HI of UDP ports, 1 <= LO <= HI <= 65535");
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, fds) != 0) {
        std::perror("socketpair");
        return 1;
    }
    const pid_t child = fork();
    if (child == 0) {
        ::close(fds[0]);
        return run_pages(fds[1], peers);
    }
    ::close(fds[1]);

    Owner owner;
    owner.fd = fds[0];
    WebRtcOptions options;
    options.max_peers = peers;
    options.connect_timeout_ms = 60000;
    options.max_inbound_per_s = 1000;
    options.min_port = static_cast<std::uint16_t>(lo);
    options.max_port = static_cast<std::uint16_t>(hi);
    const int threads0 = process_threads();
    const double rss0 = process_rss_mib();
    WebRtcPeers rtc(
        options,
        [&](std::function<void()> fn) {
            std::lock_guard lock(owner.mutex);
            owner.queue.push_back(std::move(fn));
        },
        owner);
    if (std::string e = rtc.start(); !e.empty()) {
        std::fprintf(stderr, "vantage_rtc_load: %s\n", e.c_str());
        return 1;
    }
    const int threads_started = process_threads();
    const double rss_started = process_rss_mib();

    const std::vector<std::uint8_t> frame(static_cast<std::size_t>(bytes), 0x48);
    const auto period = std::chrono::nanoseconds(16666667);
    const Clock::time_point start = Clock::now();
    double all_open_s = -1;
    Clock::time_point steady_start{};
    double steady_cpu0 = 0;
    std::uint64_t steady_out0 = 0, steady_in0 = 0;
    std::uint64_t ticks = 0, late = 0;
    std::vector<double> work_ms;
    double next_send_s = 0;
    bool sent = false;
    for (std::uint64_t n = 1;; ++n) {
        std::this_thread::sleep_until(start + n * period);
        const Clock::time_point woke = Clock::now();
        if (woke - (start + n * period) > period) ++late;
        // Signalling from the pages, then what GStreamer handed over.
        std::uint32_t id = 0;
        std::uint8_t kind = 0;
        std::string text;
        while (get(fds[0], id, kind, text, false)) {
            if (kind == 1) {
                if (std::string e = rtc.offer(id, text); !e.empty())
                    std::fprintf(stderr, "offer %u: %s\n", id, e.c_str());
            } else if (kind == 3) {
                rtc.candidate(id, text);
            }
        }
        std::deque<std::function<void()>> batch;
        {
            std::lock_guard lock(owner.mutex);
            batch.swap(owner.queue);
        }
        for (auto& fn : batch) fn();
        // Frames at the room's send rate, every seat in the same tick (as the rooms send).
        const double now_s = std::chrono::duration<double>(woke - start).count();
        sent = now_s + 1e-6 >= next_send_s;
        if (sent) {
            next_send_s += 1.0 / send_hz;
            if (next_send_s <= now_s) next_send_s = now_s + 1.0 / send_hz;
            for (RtcPeerId p = 1; p <= static_cast<RtcPeerId>(peers); ++p)
                if (rtc.open(p)) rtc.send(p, frame);
        }
        const double elapsed_s = std::chrono::duration<double>(Clock::now() - start).count();
        if (all_open_s < 0 && owner.open >= static_cast<std::size_t>(peers)) {
            all_open_s = elapsed_s;
            steady_start = Clock::now();
            steady_cpu0 = process_cpu_ms() / 1000.0;
            const WebRtcStats s = rtc.stats();
            steady_out0 = s.messages_out;
            steady_in0 = s.messages_in + s.heartbeats_in;
            ticks = late = 0;
            work_ms.clear();
        }
        if (all_open_s >= 0) {
            ++ticks;
            if (sent) work_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - woke).count());
            if (std::chrono::duration<double>(Clock::now() - steady_start).count() >= seconds) break;
        }
        if (all_open_s < 0 && elapsed_s > 60) {
            std::fprintf(stderr, "vantage_rtc_load: only %zu of %d channels opened in 60 s\n", owner.open, peers);
            break;
        }
    }
    const double steady_s = std::chrono::duration<double>(Clock::now() - steady_start).count();
    const double cpu = process_cpu_ms() / 1000.0 - steady_cpu0;
    const WebRtcStats s = rtc.stats();
    const double out = static_cast<double>(s.messages_out - steady_out0);
    const double in = static_cast<double>(s.messages_in + s.heartbeats_in - steady_in0);
    std::sort(work_ms.begin(), work_ms.end());
    const double p50 = work_ms.empty() ? 0 : work_ms[work_ms.size() / 2];
    const double p99 = work_ms.empty() ? 0 : work_ms[work_ms.size() * 99 / 100];
    const int threads = process_threads();
    const double rss = process_rss_mib();
    char line[512];
    if (all_open_s < 0) {
        // Never all open: no steady window to measure; the row says so instead of figures.
        std::snprintf(line, sizeof line,
                      "| %d | %d | %.0f | only %zu of %d opened in 60 s | - | - | - | - | %d (%d idle) | %.1f (%.1f "
                      "idle) | %llu | %llu |",
                      peers, bytes, send_hz, owner.open, peers, threads, threads_started, rss, rss_started,
                      static_cast<unsigned long long>(s.refused_out), static_cast<unsigned long long>(owner.closed));
    } else {
        std::snprintf(
            line, sizeof line,
            "| %d | %d | %.0f | %.1f | %llu of %llu | %.2f / %.2f | %.3f | %.0f%% | %d (%d idle) | %.1f (%.1f "
            "idle) | %llu | %llu |",
            peers, bytes, send_hz, all_open_s, static_cast<unsigned long long>(late),
            static_cast<unsigned long long>(ticks), p50, p99, (out + in) > 0 ? cpu * 1000.0 / (out + in) : 0.0,
            100.0 * cpu / std::max(steady_s, 1e-9), threads, threads_started, rss, rss_started,
            static_cast<unsigned long long>(s.refused_out), static_cast<unsigned long long>(owner.closed));
    }
    std::printf(
        "| peers | frame bytes | frames/s | all open (s) | late ticks | send tick p50 / p99 (ms) | CPU per message "
        "(ms) | "
        "room CPU | threads | RSS MiB | refused | closed |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n%s\n",
        line);
    std::printf(
        "(before start: %d threads, %.1f MiB; messages: %.0f out, %.0f in over %.1f s; %llu refused, %llu "
        "dropped by the channel)\n",
        threads0, rss0, out, in, steady_s, static_cast<unsigned long long>(s.refused_out),
        static_cast<unsigned long long>(s.dropped_out));
    // The payload over the whole run (setup included), for comparing with a socket counter.
    std::printf("payload: %llu bytes in %llu messages out, %llu bytes in %llu messages in (heartbeats included)\n",
                static_cast<unsigned long long>(s.bytes_out), static_cast<unsigned long long>(s.messages_out),
                static_cast<unsigned long long>(s.bytes_in + s.heartbeats_in),
                static_cast<unsigned long long>(s.messages_in + s.heartbeats_in));
    // Every peer closed by the room: their threads and memory go with them.
    for (RtcPeerId p = 1; p <= static_cast<RtcPeerId>(peers); ++p) rtc.close(p);
    const Clock::time_point closing = Clock::now();
    while ((rtc.live_pipelines() > 0 || process_threads() > threads_started + 1) &&
           Clock::now() - closing < std::chrono::seconds(20))
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::printf("after closing every peer: %d threads, %.1f MiB RSS (%.1f s)\n", process_threads(), process_rss_mib(),
                std::chrono::duration<double>(Clock::now() - closing).count());
    if (!markdown.empty()) {
        if (FILE* f = std::fopen(markdown.c_str(), "a")) {
            std::fprintf(f, "%s\n", line);
            std::fclose(f);
        }
    }
    ::close(fds[0]);  // the page side exits when its socket closes
    int status = 0;
    waitpid(child, &status, 0);
    return all_open_s >= 0 ? 0 : 1;
}
