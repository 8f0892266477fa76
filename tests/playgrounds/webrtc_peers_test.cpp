// The room's WebRTC side (playgrounds/room/webrtc_peers.hpp) against a second webrtcbin in
// the same process that plays the browser: it creates one channel {ordered: false,
// max-retransmits: 0}, offers, and trades candidates through the test's thread, as a page
// would through the room's WebSocket. Real ICE, DTLS and SCTP over 127.0.0.1; bounded waits.
#include <gtest/gtest.h>

#define GST_USE_UNSTABLE_API
#include <gst/gst.h>
#include <gst/sdp/sdp.h>
#include <gst/webrtc/webrtc.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "room/process_stats.hpp"
#include "room/webrtc_peers.hpp"

namespace vantage::room {
namespace {

// The owner's thread: the test's own, pumping what `post` queued.
struct OwnerQueue {
    std::mutex mutex;
    std::condition_variable cv;
    std::deque<std::function<void()>> queue;

    void post(std::function<void()> fn) {
        {
            std::lock_guard lock(mutex);
            queue.push_back(std::move(fn));
        }
        cv.notify_one();
    }
    // Runs what arrives until pred() holds or timeout_s passes; whether it held.
    template <class Pred>
    bool pump_until(Pred pred, double timeout_s) {
        const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
        while (true) {
            std::deque<std::function<void()>> batch;
            {
                std::unique_lock lock(mutex);
                cv.wait_for(lock, std::chrono::milliseconds(5), [&] { return !queue.empty(); });
                batch.swap(queue);
            }
            for (auto& fn : batch) fn();
            if (pred()) return true;
            if (std::chrono::steady_clock::now() > end) return false;
        }
    }
};

// The browser's side: a webrtcbin that offers one unordered, no-retransmit channel. Its
// callbacks run on its own threads and only post to the owner's queue.
class FakePage {
public:
    FakePage(OwnerQueue& owner, WebRtcPeers& peers, RtcPeerId id) : owner_(owner), peers_(peers), id_(id) {
        pipeline_ = gst_pipeline_new(nullptr);
        webrtc_ = gst_element_factory_make("webrtcbin", nullptr);
        gst_bin_add(GST_BIN(pipeline_), webrtc_);
        g_object_set(webrtc_, "bundle-policy", GST_WEBRTC_BUNDLE_POLICY_MAX_BUNDLE, nullptr);
        GObject* ice = nullptr;
        g_object_get(webrtc_, "ice-agent", &ice, nullptr);
        gboolean added = FALSE;
        g_signal_emit_by_name(ice, "add-local-ip-address", "127.0.0.1", &added);
        g_object_unref(ice);
        g_signal_connect(webrtc_, "on-ice-candidate", G_CALLBACK(&FakePage::on_candidate), this);
        gst_element_set_state(pipeline_, GST_STATE_PLAYING);
        GstStructure* init = gst_structure_new("application/data-channel", "ordered", G_TYPE_BOOLEAN, FALSE,
                                               "max-retransmits", G_TYPE_INT, 0, nullptr);
        g_signal_emit_by_name(webrtc_, "create-data-channel", "vantage", init, &channel_);
        gst_structure_free(init);
        g_signal_connect(channel_, "on-open", G_CALLBACK(&FakePage::on_open), this);
        g_signal_connect(channel_, "on-message-data", G_CALLBACK(&FakePage::on_message), this);
        GstPromise* promise = gst_promise_new_with_change_func(&FakePage::on_offer, this, nullptr);
        g_signal_emit_by_name(webrtc_, "create-offer", nullptr, promise);
        gst_promise_unref(promise);
    }
    ~FakePage() { leave(); }

    // The page vanishes without a word (a closed tab): no close, no bye.
    void leave() {
        if (pipeline_ == nullptr) return;
        g_signal_handlers_disconnect_by_data(channel_, this);
        g_signal_handlers_disconnect_by_data(webrtc_, this);
        gst_element_set_state(pipeline_, GST_STATE_NULL);
        gst_object_unref(channel_);
        gst_object_unref(pipeline_);
        pipeline_ = nullptr;
    }

    void answer(const std::string& text) {
        GstSDPMessage* sdp = nullptr;
        ASSERT_EQ(gst_sdp_message_new_from_text(text.c_str(), &sdp), GST_SDP_OK);
        GstWebRTCSessionDescription* answer = gst_webrtc_session_description_new(GST_WEBRTC_SDP_TYPE_ANSWER, sdp);
        GstPromise* promise = gst_promise_new();
        g_signal_emit_by_name(webrtc_, "set-remote-description", answer, promise);
        gst_promise_unref(promise);
        gst_webrtc_session_description_free(answer);
    }
    void candidate(const std::string& text) { g_signal_emit_by_name(webrtc_, "add-ice-candidate", 0u, text.c_str()); }
    bool send(std::vector<std::uint8_t> bytes) {
        GBytes* data = g_bytes_new(bytes.data(), bytes.size());
        GError* error = nullptr;
        const bool ok = gst_webrtc_data_channel_send_data_full(channel_, data, &error);
        if (error) g_error_free(error);
        g_bytes_unref(data);
        return ok;
    }

    bool open = false;                                // the owner's thread
    std::vector<std::vector<std::uint8_t>> received;  // the owner's thread
    std::string offer_error;

private:
    static void on_offer(GstPromise* promise, gpointer data) {
        auto* self = static_cast<FakePage*>(data);
        const GstStructure* reply = gst_promise_get_reply(promise);
        GstWebRTCSessionDescription* offer = nullptr;
        gst_structure_get(reply, "offer", GST_TYPE_WEBRTC_SESSION_DESCRIPTION, &offer, nullptr);
        GstPromise* local = gst_promise_new();
        g_signal_emit_by_name(self->webrtc_, "set-local-description", offer, local);
        gst_promise_unref(local);
        gchar* text = gst_sdp_message_as_text(offer->sdp);
        self->owner_.post([self, sdp = std::string(text)] { self->offer_error = self->peers_.offer(self->id_, sdp); });
        g_free(text);
        gst_webrtc_session_description_free(offer);
    }
    static void on_candidate(GstElement*, guint, gchar* candidate, gpointer data) {
        auto* self = static_cast<FakePage*>(data);
        self->owner_.post([self, text = std::string(candidate)] { self->peers_.candidate(self->id_, text); });
    }
    static void on_open(GObject*, gpointer data) {
        auto* self = static_cast<FakePage*>(data);
        self->owner_.post([self] { self->open = true; });
    }
    static void on_message(GObject*, GBytes* bytes, gpointer data) {
        auto* self = static_cast<FakePage*>(data);
        gsize size = 0;
        const auto* raw = static_cast<const std::uint8_t*>(g_bytes_get_data(bytes, &size));
        self->owner_.post([self, m = std::vector<std::uint8_t>(raw, raw + size)] { self->received.push_back(m); });
    }

    OwnerQueue& owner_;
    WebRtcPeers& peers_;
    RtcPeerId id_;
    GstElement* pipeline_ = nullptr;
    GstElement* webrtc_ = nullptr;
    GstWebRTCDataChannel* channel_ = nullptr;
};

// The owner: routes the answer and candidates to the page with that id, keeps what arrived.
struct Room : WebRtcEvents {
    std::unordered_map<RtcPeerId, FakePage*> pages;
    std::unordered_map<RtcPeerId, bool> opened;
    std::unordered_map<RtcPeerId, std::vector<std::vector<std::uint8_t>>> messages;
    std::unordered_map<RtcPeerId, std::string> closed;

    void rtc_signal(RtcPeerId id, RtcSignalOut kind, std::string text) override {
        auto it = pages.find(id);
        if (it == pages.end()) return;
        if (kind == RtcSignalOut::Answer) it->second->answer(text);
        if (kind == RtcSignalOut::Candidate) it->second->candidate(text);
    }
    void rtc_open(RtcPeerId id) override { opened[id] = true; }
    void rtc_message(RtcPeerId id, std::span<const std::uint8_t> bytes) override {
        messages[id].emplace_back(bytes.begin(), bytes.end());
    }
    void rtc_closed(RtcPeerId id, std::string why) override { closed[id] = std::move(why); }
};

struct Rig {
    OwnerQueue owner;
    Room room;
    WebRtcPeers peers;
    explicit Rig(WebRtcOptions options)
        : peers(
              std::move(options), [this](std::function<void()> fn) { owner.post(std::move(fn)); }, room) {
        const std::string error = peers.start();
        EXPECT_EQ(error, "");
    }
    // A page for `id` whose channel opened on both sides.
    std::unique_ptr<FakePage> connect(RtcPeerId id) {
        auto page = std::make_unique<FakePage>(owner, peers, id);
        room.pages[id] = page.get();
        const bool up = owner.pump_until([&] { return page->open && room.opened[id]; }, 15.0);
        EXPECT_TRUE(up) << "peer " << id << " did not open (offer error: '" << page->offer_error << "')";
        return page;
    }
};

WebRtcOptions quick_options() {
    WebRtcOptions o;
    o.heartbeat_timeout_ms = 1500;
    o.connect_timeout_ms = 15000;
    return o;
}

TEST(WebRtcPeers, OptionsRefuseAnEmptyAddressListAndHalfAPortRange) {
    WebRtcOptions o;
    EXPECT_EQ(o.validate(), "");
    o.addresses.clear();
    EXPECT_NE(o.validate().find("addresses"), std::string::npos);
    o = WebRtcOptions{};
    o.min_port = 50000;
    EXPECT_NE(o.validate().find("min_port"), std::string::npos);
    o.max_port = 49999;
    EXPECT_NE(o.validate().find("min_port must be <= max_port"), std::string::npos);
    o = WebRtcOptions{};
    o.addresses = {"example.org"};
    EXPECT_NE(o.validate().find("not an IP address"), std::string::npos);
}

TEST(WebRtcPeers, RefusesAnOfferThatIsNotSdpOrHasNoDataChannel) {
    Rig rig(quick_options());
    EXPECT_EQ(rig.peers.offer(1, "hello"), "the offer is not SDP");
    const std::string audio_only =
        "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n";
    EXPECT_EQ(rig.peers.offer(1, audio_only), "the offer has no data channel (m=application)");
    EXPECT_EQ(rig.peers.peers(), 0u);
    EXPECT_EQ(rig.peers.live_pipelines(), 0u);
}

TEST(WebRtcPeers, AnswersAPageAndCarriesMessagesBothWaysUnordered) {
    Rig rig(quick_options());
    auto page = rig.connect(7);
    ASSERT_TRUE(rig.peers.open(7));
    // The page's messages reach the room; the one-byte heartbeat is consumed, not delivered.
    for (std::uint8_t i = 1; i <= 20; ++i) ASSERT_TRUE(page->send({0x41, i}));
    ASSERT_TRUE(page->send({kRtcHeartbeat}));
    EXPECT_TRUE(rig.owner.pump_until([&] { return rig.room.messages[7].size() >= 20; }, 5.0));
    EXPECT_EQ(rig.room.messages[7].size(), 20u);  // loopback loses nothing; the heartbeat is not among them
    EXPECT_TRUE(rig.owner.pump_until([&] { return rig.peers.stats().heartbeats_in == 1; }, 2.0));
    // The room's messages reach the page, up to the size limit; a larger one is refused.
    std::vector<std::uint8_t> big(kMaxRtcMessageBytes, 0x48);
    EXPECT_TRUE(rig.peers.send(7, big));
    EXPECT_TRUE(rig.peers.send(7, std::vector<std::uint8_t>{0x48, 1, 2, 3}));
    big.push_back(0);
    EXPECT_FALSE(rig.peers.send(7, big));
    EXPECT_TRUE(rig.owner.pump_until([&] { return page->received.size() >= 2; }, 5.0));
    ASSERT_EQ(page->received.size(), 2u);
    EXPECT_EQ(page->received[0].size(), kMaxRtcMessageBytes);
    EXPECT_EQ(page->received[1], (std::vector<std::uint8_t>{0x48, 1, 2, 3}));
    const WebRtcStats s = rig.peers.stats();
    EXPECT_EQ(s.opened, 1u);
    EXPECT_EQ(s.messages_out, 2u);
    EXPECT_EQ(s.refused_out, 1u);
}

TEST(WebRtcPeers, RefusesAnOfferBeyondMaxPeersWithASentence) {
    WebRtcOptions o = quick_options();
    o.max_peers = 1;
    Rig rig(o);
    auto page = rig.connect(1);
    FakePage second(rig.owner, rig.peers, 2);
    rig.room.pages[2] = &second;
    EXPECT_TRUE(rig.owner.pump_until([&] { return !second.offer_error.empty(); }, 10.0));
    EXPECT_EQ(second.offer_error,
              "the room holds all the DataChannel peers it can (1): this page plays over the WebSocket");
    EXPECT_EQ(rig.peers.peers(), 1u);
}

// A page that vanishes is noticed (the association's bus error or the heartbeat, whichever
// comes first), and after pages come and go the process has the threads it had before.
TEST(WebRtcPeers, DepartedPagesAreNoticedAndLeaveNoThreadBehind) {
    Rig rig(quick_options());
    {
        auto warm = rig.connect(100);  // GStreamer's own first-use threads start here, once
        rig.peers.close(100);
    }
    rig.owner.pump_until([&] { return rig.peers.live_pipelines() == 0; }, 5.0);
    const int threads0 = process_threads();
    [[maybe_unused]] const double rss0 = process_rss_mib();  // unread under ASan (below)
    constexpr int kCycles = 4;
    for (RtcPeerId id = 1; id <= kCycles; ++id) {
        auto page = rig.connect(id);
        ASSERT_TRUE(rig.peers.open(id));
        EXPECT_GT(process_threads(), threads0);
        page->leave();  // gone without a close
        EXPECT_TRUE(rig.owner.pump_until([&] { return rig.room.closed.count(id) == 1; }, 8.0))
            << "peer " << id << " was not noticed leaving";
        EXPECT_FALSE(rig.peers.has(id));
    }
    EXPECT_TRUE(rig.owner.pump_until([&] { return rig.peers.live_pipelines() == 0; }, 5.0));
    // webrtcbin's and libnice's threads end with their pipelines (a few ms after NULL).
    EXPECT_TRUE(rig.owner.pump_until([&] { return process_threads() <= threads0; }, 5.0))
        << "threads: " << threads0 << " before, " << process_threads() << " after " << kCycles << " peers";
#if !defined(__SANITIZE_ADDRESS__)  // ASan's quarantine holds freed memory back: RSS means nothing there
    EXPECT_LT(process_rss_mib() - rss0, 6.0) << "RSS grew from " << rss0 << " MiB to " << process_rss_mib() << " MiB";
#endif
    const WebRtcStats s = rig.peers.stats();
    EXPECT_EQ(s.closed_error + s.closed_silent, static_cast<std::uint64_t>(kCycles));
}

}  // namespace
}  // namespace vantage::room
