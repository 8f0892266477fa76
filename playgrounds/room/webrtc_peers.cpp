#include "room/webrtc_peers.hpp"

#define GST_USE_UNSTABLE_API  // gst/webrtc's headers warn without it
#include <gst/gst.h>
#include <gst/sdp/sdp.h>
#include <gst/webrtc/webrtc.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <utility>

namespace vantage::room {

std::string WebRtcOptions::validate() const {
    if (addresses.empty()) return "addresses: at least one local address for ICE";
    for (const std::string& a : addresses) {
        if (a.empty() || a.find_first_not_of("0123456789abcdefABCDEF.:") != std::string::npos) {
            return "addresses: '" + a + "' is not an IP address";
        }
    }
    if ((min_port == 0) != (max_port == 0)) return "min_port, max_port: give both or neither";
    if (min_port > max_port) return "min_port must be <= max_port";
    if (max_peers < 0 || max_peers > 1024) return "max_peers must be in [0, 1024]";
    if (!(connect_timeout_ms > 0 && connect_timeout_ms <= 120000)) return "connect_timeout_ms must be in (0, 120000]";
    if (!(heartbeat_timeout_ms > 0 && heartbeat_timeout_ms <= 60000)) {
        return "heartbeat_timeout_ms must be in (0, 60000]";
    }
    if (!(max_inbound_per_s > 0)) return "max_inbound_per_s must be > 0";
    return {};
}

namespace {

std::int64_t now_us() {
    return g_get_monotonic_time();
}

// How a peer ended, for the counters.
enum class Ending { Owner, Error, Silent, Timeout, Closed };

}  // namespace

struct Peer;
using PeerRef = std::shared_ptr<Peer>;

// One browser's webrtcbin. Fields marked "loop" are touched on the loop thread only; the rest
// are shared with webrtcbin's threads (atomics, or `mutex`).
struct Peer {
    RtcPeerId id = 0;
    WebRtcPeers::Impl* impl = nullptr;
    GstElement* pipeline = nullptr;  // loop
    GstElement* webrtc = nullptr;    // loop (borrowed from pipeline); read by webrtcbin's callbacks before teardown
    GSource* bus_source = nullptr;   // loop
    std::mutex mutex;
    GstWebRTCDataChannel* channel = nullptr;  // mutex; one reference of ours
    std::vector<gulong> channel_handlers;     // mutex
    double tokens = 0;                        // mutex: the inbound token bucket
    std::int64_t tokens_us = 0;               // mutex
    std::atomic<bool> is_open{false};
    std::atomic<bool> torn{false};
    std::atomic<bool> owner_closed{false};
    std::atomic<std::int64_t> created_us{0}, heard_us{0};
};

struct WebRtcPeers::Impl {
    Impl(WebRtcOptions o, Post p, WebRtcEvents& e) : options(std::move(o)), post(std::move(p)), events(e) {}

    WebRtcOptions options;
    Post post;
    WebRtcEvents& events;
    std::shared_ptr<std::atomic<bool>> alive = std::make_shared<std::atomic<bool>>(true);
    GMainContext* context = nullptr;
    GMainLoop* loop = nullptr;
    GSource* timer = nullptr;
    std::thread thread;
    bool started = false;

    // The outbox: send() queues on the owner's thread and one sender thread hands the messages
    // to webrtcbin, whose send path (SCTP, DTLS, ICE, all synchronous) costs about 0.2 ms of
    // CPU a message: 64 pages' frames sent inline would take 25 ms of a 16.7 ms room tick.
    struct Outgoing {
        PeerRef peer;
        GBytes* bytes = nullptr;
    };
    std::mutex out_mutex;
    std::condition_variable out_ready;
    std::vector<Outgoing> outbox;  // out_mutex
    bool out_stop = false;         // out_mutex
    std::thread sender;
    void send_loop();
    std::size_t outbox_limit() const { return static_cast<std::size_t>(std::max(64, 4 * options.max_peers)); }

    std::unordered_map<RtcPeerId, PeerRef> owned;    // the owner's thread
    std::unordered_map<RtcPeerId, PeerRef> running;  // the loop thread
    std::atomic<std::size_t> live{0};

    struct Counters {
        std::atomic<std::uint64_t> opened{0}, closed_error{0}, closed_silent{0}, closed_timeout{0};
        std::atomic<std::uint64_t> messages_in{0}, bytes_in{0}, heartbeats_in{0}, dropped_in{0}, dropped_out{0};
        std::uint64_t messages_out = 0, bytes_out = 0, refused_out = 0;  // the owner's thread
    } counters;

    // Runs fn on the loop thread (at once when called there).
    void on_loop(std::function<void()> fn) {
        auto* boxed = new std::function<void()>(std::move(fn));
        g_main_context_invoke_full(
            context, G_PRIORITY_DEFAULT,
            [](gpointer data) -> gboolean {
                (*static_cast<std::function<void()>*>(data))();
                return G_SOURCE_REMOVE;
            },
            boxed, [](gpointer data) { delete static_cast<std::function<void()>*>(data); });
    }

    // Runs fn on the owner's thread, unless this object is gone by then.
    void to_owner(std::function<void()> fn) {
        post([flag = alive, fn = std::move(fn)] {
            if (flag->load()) fn();
        });
    }

    bool owns(const PeerRef& p) const {
        auto it = owned.find(p->id);
        return it != owned.end() && it->second == p;
    }

    void build(const PeerRef& p, GstSDPMessage* sdp);
    void teardown(const PeerRef& p, Ending ending, std::string why);
    void request_teardown(const PeerRef& p, Ending ending, std::string why) {
        if (p->torn.load()) return;
        on_loop([this, p, ending, why = std::move(why)]() mutable { teardown(p, ending, std::move(why)); });
    }
    void check_timeouts();
};

namespace {

// A strong reference to a peer, owned by a GLib closure, promise or source.
gpointer hold(const PeerRef& p) {
    return new PeerRef(p);
}
void release(gpointer data, GClosure* = nullptr) {
    delete static_cast<PeerRef*>(data);
}
void release_notify(gpointer data) {
    delete static_cast<PeerRef*>(data);
}
const PeerRef& held(gpointer data) {
    return *static_cast<PeerRef*>(data);
}

// --- webrtcbin's threads: copy, then hand over ---

void on_ice_candidate(GstElement*, guint, gchar* candidate, gpointer data) {
    const PeerRef& p = held(data);
    if (p->torn.load() || candidate == nullptr) return;
    WebRtcPeers::Impl* impl = p->impl;
    impl->to_owner([impl, p, text = std::string(candidate)]() mutable {
        if (impl->owns(p)) impl->events.rtc_signal(p->id, RtcSignalOut::Candidate, std::move(text));
    });
}

void on_message_data(GObject*, GBytes* bytes, gpointer data) {
    const PeerRef& p = held(data);
    if (p->torn.load() || bytes == nullptr) return;
    WebRtcPeers::Impl* impl = p->impl;
    gsize size = 0;
    const auto* raw = static_cast<const std::uint8_t*>(g_bytes_get_data(bytes, &size));
    const std::int64_t now = now_us();
    p->heard_us.store(now);
    if (size == 1 && raw[0] == kRtcHeartbeat) {
        impl->counters.heartbeats_in.fetch_add(1);
        return;
    }
    if (size == 0 || raw == nullptr) return;
    {
        std::lock_guard lock(p->mutex);
        const double rate = impl->options.max_inbound_per_s;
        p->tokens = std::min(rate, p->tokens + rate * static_cast<double>(now - p->tokens_us) / 1e6);
        p->tokens_us = now;
        if (p->tokens < 1.0) {
            impl->counters.dropped_in.fetch_add(1);
            return;
        }
        p->tokens -= 1.0;
    }
    impl->counters.messages_in.fetch_add(1);
    impl->counters.bytes_in.fetch_add(size);
    impl->to_owner([impl, p, message = std::vector<std::uint8_t>(raw, raw + size)] {
        if (impl->owns(p)) impl->events.rtc_message(p->id, message);
    });
}

void on_channel_close(GObject*, gpointer data) {
    const PeerRef& p = held(data);
    p->impl->request_teardown(p, Ending::Closed, "the page closed its DataChannel");
}

void on_channel_error(GObject*, GError* error, gpointer data) {
    const PeerRef& p = held(data);
    p->impl->request_teardown(p, Ending::Error,
                              std::string("DataChannel error: ") + (error ? error->message : "unknown"));
}

// Runs on webrtcbin's thread with webrtcbin's lock held: read none of its properties here.
void on_data_channel(GstElement*, GObject* object, gpointer data) {
    const PeerRef& p = held(data);
    if (p->torn.load()) return;
    WebRtcPeers::Impl* impl = p->impl;
    {
        std::lock_guard lock(p->mutex);
        if (p->channel != nullptr) return;  // a page offers one channel; a second is not used
        p->channel = GST_WEBRTC_DATA_CHANNEL(gst_object_ref(object));
        p->tokens = impl->options.max_inbound_per_s;
        p->tokens_us = now_us();
        p->channel_handlers.push_back(g_signal_connect_data(object, "on-message-data", G_CALLBACK(on_message_data),
                                                            hold(p), release, GConnectFlags{}));
        p->channel_handlers.push_back(
            g_signal_connect_data(object, "on-close", G_CALLBACK(on_channel_close), hold(p), release, GConnectFlags{}));
        p->channel_handlers.push_back(
            g_signal_connect_data(object, "on-error", G_CALLBACK(on_channel_error), hold(p), release, GConnectFlags{}));
    }
    p->heard_us.store(now_us());
    p->is_open.store(true);
    impl->counters.opened.fetch_add(1);
    impl->to_owner([impl, p] {
        if (impl->owns(p)) impl->events.rtc_open(p->id);
    });
}

void on_answer(GstPromise* promise, gpointer data) {
    const PeerRef& p = held(data);
    WebRtcPeers::Impl* impl = p->impl;
    if (p->torn.load()) return;
    const GstStructure* reply =
        gst_promise_wait(promise) == GST_PROMISE_RESULT_REPLIED ? gst_promise_get_reply(promise) : nullptr;
    GstWebRTCSessionDescription* answer = nullptr;
    if (reply != nullptr) {
        gst_structure_get(reply, "answer", GST_TYPE_WEBRTC_SESSION_DESCRIPTION, &answer, nullptr);
    }
    if (answer == nullptr) {
        std::string why = "the offer could not be answered";
        GError* error = nullptr;
        if (reply != nullptr && gst_structure_get(reply, "error", G_TYPE_ERROR, &error, nullptr) && error) {
            why += std::string(": ") + error->message;
            g_error_free(error);
        }
        impl->request_teardown(p, Ending::Error, why);
        return;
    }
    gchar* text = gst_sdp_message_as_text(answer->sdp);
    // The answer goes to the owner before set-local-description starts gathering, so the page
    // has it before the first candidate (both travel through `post`, in order).
    impl->to_owner([impl, p, sdp = std::string(text)]() mutable {
        if (impl->owns(p)) impl->events.rtc_signal(p->id, RtcSignalOut::Answer, std::move(sdp));
    });
    g_free(text);
    GstPromise* local = gst_promise_new();
    g_signal_emit_by_name(p->webrtc, "set-local-description", answer, local);
    gst_promise_unref(local);
    gst_webrtc_session_description_free(answer);
}

gboolean on_bus(GstBus*, GstMessage* message, gpointer data) {
    const PeerRef& p = held(data);
    if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR) {
        GError* error = nullptr;
        gst_message_parse_error(message, &error, nullptr);
        std::string why = std::string("the connection failed (") + (error ? error->message : "error") + ")";
        if (error) g_error_free(error);
        p->impl->teardown(p, Ending::Error, why);  // the bus watch runs on the loop thread
        return G_SOURCE_REMOVE;
    }
    return G_SOURCE_CONTINUE;
}

}  // namespace

// The loop thread.
void WebRtcPeers::Impl::build(const PeerRef& p, GstSDPMessage* sdp) {
    p->pipeline = gst_pipeline_new(nullptr);
    p->webrtc = gst_element_factory_make("webrtcbin", nullptr);
    if (p->webrtc == nullptr) {
        gst_sdp_message_free(sdp);
        teardown(p, Ending::Error, "webrtcbin could not be made");
        return;
    }
    gst_bin_add(GST_BIN(p->pipeline), p->webrtc);
    live.fetch_add(1);

    // ICE: only the room's addresses, UDP only, the configured port range, no UPnP.
    GObject* ice = nullptr;
    g_object_get(p->webrtc, "ice-agent", &ice, nullptr);
    if (ice != nullptr) {
        for (const std::string& address : options.addresses) {
            gboolean added = FALSE;
            g_signal_emit_by_name(ice, "add-local-ip-address", address.c_str(), &added);
        }
        if (g_object_class_find_property(G_OBJECT_GET_CLASS(ice), "ice-tcp")) {
            g_object_set(ice, "ice-tcp", FALSE, nullptr);
        }
        if (options.min_port != 0) {
            g_object_set(ice, "max-rtp-port", static_cast<guint>(options.max_port), "min-rtp-port",
                         static_cast<guint>(options.min_port), nullptr);
        }
        if (g_object_class_find_property(G_OBJECT_GET_CLASS(ice), "agent")) {
            GObject* agent = nullptr;
            g_object_get(ice, "agent", &agent, nullptr);
            if (agent != nullptr) {
                if (g_object_class_find_property(G_OBJECT_GET_CLASS(agent), "upnp")) {
                    g_object_set(agent, "upnp", FALSE, nullptr);
                }
                g_object_unref(agent);
            }
        }
        g_object_unref(ice);
    }

    g_signal_connect_data(p->webrtc, "on-ice-candidate", G_CALLBACK(on_ice_candidate), hold(p), release,
                          GConnectFlags{});
    g_signal_connect_data(p->webrtc, "on-data-channel", G_CALLBACK(on_data_channel), hold(p), release, GConnectFlags{});
    GstBus* bus = gst_pipeline_get_bus(GST_PIPELINE(p->pipeline));
    p->bus_source = gst_bus_create_watch(bus);
    g_source_set_callback(p->bus_source, reinterpret_cast<GSourceFunc>(reinterpret_cast<void (*)()>(on_bus)), hold(p),
                          release_notify);
    g_source_attach(p->bus_source, context);
    gst_object_unref(bus);

    if (gst_element_set_state(p->pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
        gst_sdp_message_free(sdp);
        teardown(p, Ending::Error, "webrtcbin would not start");
        return;
    }
    // webrtcbin runs its operations in order: the answer is created after the offer is set.
    GstWebRTCSessionDescription* offer = gst_webrtc_session_description_new(GST_WEBRTC_SDP_TYPE_OFFER, sdp);
    GstPromise* set = gst_promise_new();
    g_signal_emit_by_name(p->webrtc, "set-remote-description", offer, set);
    gst_promise_unref(set);
    gst_webrtc_session_description_free(offer);
    GstPromise* answer = gst_promise_new_with_change_func(on_answer, hold(p), release_notify);
    g_signal_emit_by_name(p->webrtc, "create-answer", nullptr, answer);
    gst_promise_unref(answer);
}

// The loop thread; idempotent.
void WebRtcPeers::Impl::teardown(const PeerRef& p, Ending ending, std::string why) {
    if (p->torn.exchange(true)) return;
    auto it = running.find(p->id);
    if (it != running.end() && it->second == p) running.erase(it);
    GstWebRTCDataChannel* channel = nullptr;
    std::vector<gulong> handlers;
    {
        std::lock_guard lock(p->mutex);
        channel = std::exchange(p->channel, nullptr);
        handlers.swap(p->channel_handlers);
        p->is_open.store(false);
    }
    if (channel != nullptr) {
        for (gulong h : handlers) g_signal_handler_disconnect(channel, h);
        gst_object_unref(channel);
    }
    if (p->bus_source != nullptr) {
        g_source_destroy(p->bus_source);
        g_source_unref(p->bus_source);
        p->bus_source = nullptr;
    }
    if (p->pipeline != nullptr) {
        // Here, on our own thread: webrtcbin joins its threads on the way to NULL. Dropping
        // the creation reference frees the pipeline (and libnice's thread with it).
        gst_element_set_state(p->pipeline, GST_STATE_NULL);
        gst_object_unref(p->pipeline);
        p->pipeline = nullptr;
        p->webrtc = nullptr;
        live.fetch_sub(1);
    }
    switch (ending) {
        case Ending::Error:
            counters.closed_error.fetch_add(1);
            break;
        case Ending::Silent:
            counters.closed_silent.fetch_add(1);
            break;
        case Ending::Timeout:
            counters.closed_timeout.fetch_add(1);
            break;
        case Ending::Owner:
        case Ending::Closed:
            break;
    }
    if (ending == Ending::Owner || p->owner_closed.load()) return;
    to_owner([this, p, why = std::move(why)]() mutable {
        auto o = owned.find(p->id);
        if (o == owned.end() || o->second != p) return;
        owned.erase(o);
        events.rtc_closed(p->id, std::move(why));
    });
}

void WebRtcPeers::Impl::check_timeouts() {
    const std::int64_t now = now_us();
    std::vector<std::pair<PeerRef, Ending>> ending;
    for (auto& [id, p] : running) {
        if (p->is_open.load()) {
            if (static_cast<double>(now - p->heard_us.load()) > options.heartbeat_timeout_ms * 1000.0) {
                ending.emplace_back(p, Ending::Silent);
            }
        } else if (static_cast<double>(now - p->created_us.load()) > options.connect_timeout_ms * 1000.0) {
            ending.emplace_back(p, Ending::Timeout);
        }
    }
    for (auto& [p, e] : ending) {
        char why[96];
        if (e == Ending::Silent) {
            std::snprintf(why, sizeof why, "the page went silent on its DataChannel for %.0f ms",
                          options.heartbeat_timeout_ms);
        } else {
            std::snprintf(why, sizeof why, "the DataChannel did not open within %.0f ms", options.connect_timeout_ms);
        }
        teardown(p, e, why);
    }
}

WebRtcPeers::WebRtcPeers(WebRtcOptions options, Post post, WebRtcEvents& events)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(post), events)) {}

WebRtcPeers::~WebRtcPeers() {
    Impl& m = *impl_;
    m.alive->store(false);
    if (!m.started) return;
    {
        std::lock_guard lock(m.out_mutex);
        m.out_stop = true;
    }
    m.out_ready.notify_one();
    m.sender.join();
    for (Impl::Outgoing& o : m.outbox) g_bytes_unref(o.bytes);
    m.outbox.clear();
    for (auto& [id, p] : m.owned) p->owner_closed.store(true);
    m.owned.clear();
    m.on_loop([&m] {
        std::vector<PeerRef> all;
        for (auto& [id, p] : m.running) all.push_back(p);
        for (auto& p : all) m.teardown(p, Ending::Owner, {});
        if (m.timer != nullptr) {
            g_source_destroy(m.timer);
            g_source_unref(m.timer);
            m.timer = nullptr;
        }
        g_main_loop_quit(m.loop);
    });
    m.thread.join();
    g_main_loop_unref(m.loop);
    g_main_context_unref(m.context);
}

std::string WebRtcPeers::start() {
    Impl& m = *impl_;
    if (m.started) return {};
    if (std::string e = m.options.validate(); !e.empty()) return e;
    GError* error = nullptr;
    if (!gst_init_check(nullptr, nullptr, &error)) {
        std::string why = std::string("GStreamer would not start: ") + (error ? error->message : "unknown");
        if (error) g_error_free(error);
        return why;
    }
    for (const char* factory : {"webrtcbin", "nicesrc", "dtlsdec", "sctpenc"}) {
        GstElementFactory* f = gst_element_factory_find(factory);
        if (f == nullptr) {
            return std::string("GStreamer has no '") + factory +
                   "' element: install gstreamer1.0-plugins-bad and gstreamer1.0-nice";
        }
        gst_object_unref(f);
    }
    // The DTLS certificate: dtlsdec generates the process's RSA key on first use (about 0.5 s).
    if (GstElement* dtls = gst_element_factory_make("dtlsdec", nullptr)) {
        gchar* pem = nullptr;
        g_object_get(dtls, "pem", &pem, nullptr);
        g_free(pem);
        gst_object_unref(dtls);
    }
    m.context = g_main_context_new();
    m.loop = g_main_loop_new(m.context, FALSE);
    m.timer = g_timeout_source_new(250);
    g_source_set_callback(
        m.timer,
        [](gpointer data) -> gboolean {
            static_cast<Impl*>(data)->check_timeouts();
            return G_SOURCE_CONTINUE;
        },
        &m, nullptr);
    g_source_attach(m.timer, m.context);
    m.thread = std::thread([&m] {
        g_main_context_push_thread_default(m.context);
        g_main_loop_run(m.loop);
        g_main_context_pop_thread_default(m.context);
    });
    m.sender = std::thread([&m] { m.send_loop(); });
    m.started = true;
    return {};
}

bool WebRtcPeers::started() const {
    return impl_->started;
}

std::string WebRtcPeers::offer(RtcPeerId id, std::string_view sdp_text) {
    Impl& m = *impl_;
    if (!m.started) return "DataChannels are off in this room";
    if (m.owned.count(id)) return "this page already has a DataChannel peer";
    if (static_cast<int>(m.owned.size()) >= m.options.max_peers) {
        return "the room holds all the DataChannel peers it can (" + std::to_string(m.options.max_peers) +
               "): this page plays over the WebSocket";
    }
    if (sdp_text.size() > 64 * 1024) return "the offer is too long";
    GstSDPMessage* sdp = nullptr;
    if (sdp_text.rfind("v=0", 0) != 0 ||
        gst_sdp_message_new_from_text(std::string(sdp_text).c_str(), &sdp) != GST_SDP_OK || sdp == nullptr) {
        return "the offer is not SDP";
    }
    bool application = false;
    for (guint i = 0; i < gst_sdp_message_medias_len(sdp); ++i) {
        const char* media = gst_sdp_media_get_media(gst_sdp_message_get_media(sdp, i));
        if (media != nullptr && std::string_view(media) == "application") application = true;
    }
    if (!application) {
        gst_sdp_message_free(sdp);
        return "the offer has no data channel (m=application)";
    }
    auto p = std::make_shared<Peer>();
    p->id = id;
    p->impl = &m;
    p->created_us.store(now_us());
    m.owned.emplace(id, p);
    m.on_loop([&m, p, sdp] {
        m.running[p->id] = p;
        m.build(p, sdp);
    });
    return {};
}

void WebRtcPeers::candidate(RtcPeerId id, std::string_view candidate) {
    Impl& m = *impl_;
    auto it = m.owned.find(id);
    if (it == m.owned.end() || candidate.empty()) return;
    m.on_loop([p = it->second, text = std::string(candidate)] {
        if (p->torn.load() || p->webrtc == nullptr) return;
        g_signal_emit_by_name(p->webrtc, "add-ice-candidate", 0u, text.c_str());
    });
}

bool WebRtcPeers::send(RtcPeerId id, std::span<const std::uint8_t> bytes) {
    Impl& m = *impl_;
    auto it = m.owned.find(id);
    if (it == m.owned.end() || bytes.empty() || bytes.size() > kMaxRtcMessageBytes || !it->second->is_open.load()) {
        ++m.counters.refused_out;
        return false;
    }
    {
        std::lock_guard lock(m.out_mutex);
        if (m.outbox.size() >= m.outbox_limit()) {
            // The sender is that far behind: a datagram is dropped rather than queued without
            // bound (the acknowledged delta stream repairs it).
            ++m.counters.refused_out;
            return false;
        }
        m.outbox.push_back({it->second, g_bytes_new(bytes.data(), bytes.size())});
    }
    m.out_ready.notify_one();
    ++m.counters.messages_out;
    m.counters.bytes_out += bytes.size();
    return true;
}

void WebRtcPeers::Impl::send_loop() {
    std::vector<Outgoing> batch;
    for (;;) {
        {
            std::unique_lock lock(out_mutex);
            out_ready.wait(lock, [this] { return out_stop || !outbox.empty(); });
            if (out_stop) return;
            batch.swap(outbox);
        }
        for (Outgoing& o : batch) {
            GstWebRTCDataChannel* channel = nullptr;
            if (o.peer->is_open.load()) {
                std::lock_guard lock(o.peer->mutex);
                if (o.peer->channel != nullptr) channel = GST_WEBRTC_DATA_CHANNEL(gst_object_ref(o.peer->channel));
            }
            bool ok = false;
            if (channel != nullptr) {
                GError* error = nullptr;
                ok = gst_webrtc_data_channel_send_data_full(channel, o.bytes, &error);
                if (error) g_error_free(error);
                gst_object_unref(channel);
            }
            if (!ok) ++counters.dropped_out;
            g_bytes_unref(o.bytes);
        }
        batch.clear();  // drops the peer references here, off the owner's thread's locks
    }
}

void WebRtcPeers::close(RtcPeerId id) {
    Impl& m = *impl_;
    auto it = m.owned.find(id);
    if (it == m.owned.end()) return;
    PeerRef p = it->second;
    m.owned.erase(it);
    p->owner_closed.store(true);
    m.on_loop([&m, p] { m.teardown(p, Ending::Owner, {}); });
}

bool WebRtcPeers::has(RtcPeerId id) const {
    return impl_->owned.count(id) != 0;
}

bool WebRtcPeers::open(RtcPeerId id) const {
    auto it = impl_->owned.find(id);
    return it != impl_->owned.end() && it->second->is_open.load();
}

std::size_t WebRtcPeers::peers() const {
    return impl_->owned.size();
}

std::size_t WebRtcPeers::live_pipelines() const {
    return impl_->live.load();
}

const WebRtcOptions& WebRtcPeers::options() const {
    return impl_->options;
}

WebRtcStats WebRtcPeers::stats() const {
    const Impl& m = *impl_;
    WebRtcStats s;
    s.peers = m.owned.size();
    s.opened = m.counters.opened.load();
    s.closed_error = m.counters.closed_error.load();
    s.closed_silent = m.counters.closed_silent.load();
    s.closed_timeout = m.counters.closed_timeout.load();
    s.messages_in = m.counters.messages_in.load();
    s.bytes_in = m.counters.bytes_in.load();
    s.heartbeats_in = m.counters.heartbeats_in.load();
    s.dropped_in = m.counters.dropped_in.load();
    s.messages_out = m.counters.messages_out;
    s.bytes_out = m.counters.bytes_out;
    s.refused_out = m.counters.refused_out;
    s.dropped_out = m.counters.dropped_out.load();
    return s;
}

}  // namespace vantage::room
