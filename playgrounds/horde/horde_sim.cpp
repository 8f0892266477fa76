#include "horde/horde_sim.hpp"

#include "common/settings_schema.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <span>

namespace vantage::play {

namespace {

std::vector<HordeLaneConfig> default_lanes() {
    return {
        HordeLaneConfig{"naive", false, true, false, 0.0f, std::nullopt, CorrectionCoding::Predicted, std::nullopt},
        HordeLaneConfig{"acked", true, true, false, 0.0f, std::nullopt, CorrectionCoding::Predicted, std::nullopt},
        HordeLaneConfig{"crowd", true, true, true, 0.0f, std::nullopt, CorrectionCoding::Predicted, std::nullopt},
    };
}

}  // namespace

HordeLane::HordeLane(HordeLaneConfig config, int clients, const DeltaBaselineOptions& baseline,
                     const LossyLinkOptions& link, std::uint64_t seed)
    : config_(std::move(config)) {
    for (int c = 0; c < clients; ++c) {
        LossyLinkOptions down = link;
        down.seed = down_link_seed(seed, static_cast<std::uint64_t>(c));
        LossyLinkOptions up = link;
        up.seed = up_link_seed(seed, static_cast<std::uint64_t>(c));
        seats_.push_back(std::make_unique<HordeSeat>(baseline, down, up));
    }
}

HordeSim::HordeSim() : HordeSim(default_lanes()) {}

HordeSim::HordeSim(std::vector<HordeLaneConfig> lanes) : lane_configs_(std::move(lanes)) {
    add_params();
    reset(1);
}

namespace {

// Every setting of the page, declared once (the sliders, the URL check); the per-lane ones
// once for all lanes.
const SettingsSchema<HordeSettings>& horde_schema() {
    static const SettingsSchema<HordeSettings> schema = [] {
        using S = HordeSettings;
        SettingsSchema<S> d;
        d.integer("enemies", &S::enemies,
                  {.label = "enemies",
                   .min = 200,
                   .max = 8000,
                   .help = "alive enemies the waves keep the arena at",
                   .restart = true});
        d.integer("players", &S::players,
                  {.label = "players",
                   .min = 1,
                   .max = 128,
                   .help = "players (each one a client); player 0 is yours",
                   .restart = true});
        d.flag("spread", &S::spread,
               {.label = "players spread",
                .help = "players roam their own part of the arena; off: all at the centre",
                .restart = true,
                .apply = true});
        d.flag("combat", &S::combat,
               {.label = "combat", .help = "shots, novas, deaths and respawn waves (the churn)", .apply = true});
        d.real("view_radius", &S::view_radius,
               {.label = "view radius",
                .unit = "units",
                .min = 100,
                .max = 1500,
                .help = "what each client is told about, around its player",
                .apply = true});
        d.real("send_hz", &S::send_hz,
               {.label = "send rate",
                .unit = "Hz",
                .min = 1,
                .max = 60,
                .help = "frames per second to each client",
                .apply = true});
        d.real("sample_hz", &S::sample_hz,
               {.label = "correction rate",
                .unit = "Hz",
                .min = 1,
                .max = 60,
                .help = "corrections per second per held enemy, round-robin",
                .apply = true});
        d.real("latency_ms", &S::latency_ms,
               {.label = "latency",
                .unit = "ms",
                .min = 0,
                .max = 400,
                .help = "one way, both directions",
                .apply = true});
        d.real("jitter_ms", &S::jitter_ms,
               {.label = "jitter",
                .unit = "ms",
                .min = 0,
                .max = 150,
                .help = "extra one-way delay, uniform",
                .apply = true});
        d.real("loss", &S::loss_pct,
               {.label = "packet loss",
                .unit = "%",
                .min = 0,
                .max = 40,
                .help = "per packet, both directions, the same packets in every lane",
                .apply = true});
        d.real("theta", &S::theta,
               {.label = "crowd theta",
                .min = 0,
                .max = 2,
                .help = "opening angle of the crowd summaries (0: none)",
                .apply = true});
        d.real("budget", &S::budget_kib_s,
               {.label = "budget per client",
                .unit = "KiB/s",
                .min = 0,
                .max = 64,
                .help = "downstream bytes per second each client may be sent (0: unlimited); membership "
                        "first, then corrections of the closest and longest-waiting enemies",
                .apply = true});
        d.flag("any_received", &S::any_received,
               {.label = "ack frontier: any received",
                .help = "acked lanes diff against the newest frame that arrived (off: the newest contiguous one)",
                .restart = true,
                .apply = true});
        return d;
    }();
    return schema;
}

const SettingsSchema<HordeLaneConfig>& horde_lane_schema() {
    static const SettingsSchema<HordeLaneConfig> schema = [] {
        SettingsSchema<HordeLaneConfig> d;
        d.flag("recovery", &HordeLaneConfig::recovery,
               {.label = "recover from loss",
                .help = "diff against what the client acknowledged (off: against what was sent)",
                .apply = true});
        return d;
    }();
    return schema;
}

}  // namespace

void HordeSim::add_params() {
    horde_schema().bind(settings_, params_, [this] { apply_settings(); });
    for (HordeLaneConfig& config : lane_configs_) {
        horde_lane_schema().bind(config, params_, [this] { apply_settings(); },
                                 {config.name + "_", config.name + ": "});
    }
}

LossyLinkOptions HordeSim::link_options(std::uint64_t seed) const {
    LossyLinkOptions o;
    o.seed = seed;
    o.latency_ms = settings_.latency_ms;
    o.jitter_ms = settings_.jitter_ms;
    o.loss = static_cast<float>(settings_.loss_pct / 100.0);
    return o;
}

float HordeSim::lane_theta(const HordeLaneConfig& c) const {
    return c.follows_theta ? static_cast<float>(settings_.theta) : c.theta;
}

HordeServeOptions HordeSim::serve_options(const HordeLaneConfig& c) const {
    return {.relevance = c.relevance,
            .theta = lane_theta(c),
            .view_radius = settings_.view_radius,
            .send_hz = settings_.send_hz,
            .sample_hz = settings_.sample_hz,
            .coding = c.coding,
            .budget_bytes_per_sec = 1024.0 * std::max(0.0, c.budget_kib_s.value_or(settings_.budget_kib_s))};
}

void HordeSim::reset(std::uint64_t seed) {
    world_ = std::make_unique<HordeWorld>(HordeWorldOptions{.seed = seed,
                                                            .enemies = settings_.enemies,
                                                            .players = settings_.players,
                                                            .spread = settings_.spread,
                                                            .combat = settings_.combat});
    lanes_.clear();
    for (const HordeLaneConfig& config : lane_configs_) {
        const AckFrontier frontier =
            config.frontier.value_or(settings_.any_received ? AckFrontier::AnyReceived : AckFrontier::Contiguous);
        // History from time: at least 24 frames, more when the round trip (both ways, with
        // jitter) at the send rate needs it. Sized at restart; a latency raised live beyond it
        // shows on late_acks (changes then go twice).
        const std::size_t history = std::max<std::size_t>(
            24, DeltaBaselineOptions::history_for(2.0 * settings_.latency_ms, 2.0 * settings_.jitter_ms,
                                                  1000.0 / std::clamp(settings_.send_hz, 1.0, 60.0)));
        const DeltaBaselineOptions baseline{.policy = config.recovery ? RecoveryPolicy::Acked : RecoveryPolicy::Naive,
                                            .frontier = frontier,
                                            .history = history,
                                            .stalled_after_ms = 3000.0,
                                            .keepalive_every_ms = 1000.0};
        lanes_.push_back(std::make_unique<HordeLane>(config, settings_.players, baseline, link_options(0), seed));
    }
    round_.clear(static_cast<std::size_t>(settings_.players));
    next_send_ms_ = 0;
    send_rounds_ = 0;
    restart_measurement();
}

void HordeSim::apply_settings() {
    if (!world_) return;
    world_->set_combat(settings_.combat);
    for (std::size_t i = 0; i < lanes_.size(); ++i) {
        HordeLane& lane = *lanes_[i];
        lane.config_.recovery = lane_configs_[i].recovery;
        for (auto& seat : lane.seats_) {
            seat->link.set_impairment(link_options(0));
            seat->server.baseline().set_policy(lane.config_.recovery ? RecoveryPolicy::Acked : RecoveryPolicy::Naive);
        }
    }
}

void HordeSim::restart_measurement() {
    const double now_ms = time_s() * 1000.0;
    for (auto& lane : lanes_) {
        lane->run_start_ms_ = now_ms;
        lane->at_start_ = {};
        for (auto& seat : lane->seats_) {
            lane->at_start_.mismatches += seat->client.mirror().counters().divergences;
            lane->at_start_.lost += seat->client.mirror().counters().frames_lost;
            lane->at_start_.rebuilds += seat->server.baseline().counters().full_rebuilds;
            lane->at_start_.unresolved += seat->client.unresolved();
        }
        for (Reading* r : lane->readings()) r->begin_measurement();
        lane->err_run_ = {};
    }
}

void HordeSim::step(double dt_s) {
    {
        PhaseScope phase(profiler_, "world");
        world_->step(dt_s);
    }
    const double now_ms = world_->time_s() * 1000.0;
    const bool send_tick = now_ms + 1e-6 >= next_send_ms_;
    if (send_tick) {
        const double interval = 1000.0 / std::clamp(settings_.send_hz, 1.0, 60.0);
        next_send_ms_ += interval;
        if (next_send_ms_ <= now_ms) next_send_ms_ = now_ms + interval;  // the rate was raised
        send_round(now_ms);
    }
    PhaseScope phase(profiler_, "client");
    const float dt = static_cast<float>(dt_s);
    for (auto& lane : lanes_) {
        for (auto& seat : lane->seats_) {
            const HordeReceived r = seat->client.receive(seat->link.client_end(), now_ms, client_scratch_);
            if (r.bytes_up > 0) lane->up_bytes_.add(static_cast<double>(r.bytes_up));
        }
        for (auto& seat : lane->seats_) seat->client.advance(dt, world_->tick());
        measure(*lane, now_ms, send_tick);
    }
}

void HordeSim::send_round(double now_ms) {
    bool any_broadcast = false;
    bool any_crowd = false;
    for (const auto& lane : lanes_) {
        any_broadcast = any_broadcast || !lane->config_.relevance;
        any_crowd = any_crowd || lane_theta(lane->config_) > 0.0f;
    }
    const HordeRound& round = round_.build(*world_, static_cast<float>(settings_.view_radius), any_broadcast, any_crowd,
                                           now_ms, {}, profiler_);
    for (auto& lane : lanes_) {
        const HordeServeOptions options = serve_options(lane->config_);
        for (std::size_t c = 0; c < lane->seats_.size(); ++c) {
            HordeSeat& seat = *lane->seats_[c];
            count_sent(*lane, seat.server.serve(round, c, options, seat.link.server_end(), scratch_, profiler_));
        }
    }
    ++send_rounds_;
}

void HordeSim::count_sent(HordeLane& lane, const HordeSent& sent) {
    if (!sent.sent) return;
    lane.bytes_.add(static_cast<double>(sent.bytes.total()));
    lane.uuid_bytes_.add(sent.uuid_bytes);
    lane.crowd_bytes_.add(static_cast<double>(sent.bytes.crowd));
    lane.sample_bytes_.add(static_cast<double>(sent.bytes.samples));
    lane.membership_bytes_.add(static_cast<double>(sent.bytes.membership));
    lane.header_bytes_.add(static_cast<double>(sent.bytes.header));
    lane.player_bytes_.add(static_cast<double>(sent.bytes.players));
    lane.corrections_.add(static_cast<double>(sent.samples));
    lane.predicted_.add(static_cast<double>(sent.predicted));
    lane.ids_.add(static_cast<double>(sent.entered + sent.left + sent.samples));
    lane.spawns_.add(static_cast<double>(sent.entered));
    lane.despawns_.add(static_cast<double>(sent.left));
    if (sent.summarised) {
        lane.blobs_.add(static_cast<double>(sent.blobs));
        lane.coverage_.add(sent.coverage);
    }
}

void HordeSim::measure(HordeLane& lane, double now_ms, bool send_tick) {
    const HordeWorld& w = *world_;
    double phantoms = 0, held = 0, err_sum = 0, err_n = 0, err_worst = 0;
    double missing = 0, relevant = 0, awaiting = 0;
    for (std::size_t c = 0; c < lane.seats_.size(); ++c) {
        const HordeClientHalf& client = lane.seats_[c]->client;
        // On a send tick, what this client should hold: ascending packed keys, as the mirror
        // walks its own, so one merge finds the relevant ones it lacks or holds without a
        // position (a lookup per key was a scattered read per key, 6% of the largest tick).
        std::span<const std::uint64_t> keys;
        if (send_tick) keys = lane.config_.relevance ? round_.relevant(c) : *round_.round().everyone;
        std::size_t next = 0;
        client.mirror().for_each([&](SlotKey key, const HeldEnemy& h) {
            const std::uint64_t packed = key.encode();
            while (next < keys.size() && keys[next] < packed) {
                missing += 1;  // relevant, not held
                ++next;
            }
            if (next < keys.size() && keys[next] == packed) {
                ++next;
                missing += h.awaiting ? 1 : 0;
                awaiting += h.awaiting ? 1 : 0;
            }
            Vec2 truth;
            if (const Vec2* alive = w.alive_position(key)) {
                truth = *alive;
            } else {
                phantoms += 1;  // a member of the set, drawn or not
                if (h.awaiting || !w.death_position(packed, truth)) {
                    if (!h.awaiting) held += 1;
                    return;
                }
            }
            // One awaiting its position is not drawn: not held, not measured, and missing below.
            if (h.awaiting) return;
            held += 1;
            const double err = static_cast<double>(distance(h.position, truth));
            err_sum += err;
            err_n += 1;
            err_worst = std::max(err_worst, err);
        });
        missing += static_cast<double>(keys.size() - next);  // past the last one held
        relevant += static_cast<double>(keys.size());
    }
    const double clients = static_cast<double>(std::max<std::size_t>(1, lane.seats_.size()));
    for (Reading* r : lane.readings()) r->elapsed(now_ms);
    lane.phantoms_.add(phantoms / clients);
    lane.held_.add(held / clients);
    if (err_n > 0) lane.err_.add(err_sum / err_n);
    lane.err_worst_acc_ = std::max(lane.err_worst_acc_, err_worst);
    if (now_ms >= lane.err_worst_until_ms_) {
        lane.err_worst_recent_ = lane.err_worst_acc_;
        lane.err_worst_acc_ = 0;
        lane.err_worst_until_ms_ = now_ms + 1000.0;
    }
    HordeLane::PooledError& run = lane.err_run_;
    run.sum += err_sum;
    run.n += err_n;
    run.worst = std::max(run.worst, err_worst);
    if (send_tick) {
        lane.missing_.add(missing / clients);
        lane.awaiting_.add(awaiting / clients);
        lane.relevant_.add(relevant / clients);
    }
}

HordeLaneTotals HordeSim::totals(std::size_t i) const {
    const HordeLane& lane = *lanes_[i];
    HordeLaneTotals t;
    t.seconds = time_s() - lane.run_start_ms_ / 1000.0;
    // KiB/s over the run as the report has always divided it (not Reading::run_per_sec,
    // whose rounding differs in the last bits).
    const double per_s = t.seconds > 0 ? 1.0 / (t.seconds * 1024.0) : 0.0;
    const double bytes = lane.bytes_.run_total();
    t.kib_s = bytes * per_s;
    t.uuid_kib_s = lane.uuid_bytes_.run_total() * per_s;
    t.up_kib_s = lane.up_bytes_.run_total() * per_s;
    t.crowd_kib_s = lane.crowd_bytes_.run_total() * per_s;
    t.samples_share = bytes > 0 ? lane.sample_bytes_.run_total() / bytes : 0;
    t.membership_share = bytes > 0 ? lane.membership_bytes_.run_total() / bytes : 0;
    const double b_s = t.seconds > 0 ? 1.0 / t.seconds : 0.0;
    t.header_b_s = lane.header_bytes_.run_total() * b_s;
    t.membership_b_s = lane.membership_bytes_.run_total() * b_s;
    t.players_b_s = lane.player_bytes_.run_total() * b_s;
    t.samples_b_s = lane.sample_bytes_.run_total() * b_s;
    t.crowd_b_s = lane.crowd_bytes_.run_total() * b_s;
    const double clients = static_cast<double>(std::max<std::size_t>(1, lane.seats_.size()));
    t.corrections_per_s = lane.corrections_.run_total() * b_s / clients;
    t.predicted_share =
        lane.corrections_.run_total() > 0 ? lane.predicted_.run_total() / lane.corrections_.run_total() : 0.0;
    t.phantoms = lane.phantoms_.run_mean();
    t.held = lane.held_.run_mean();
    t.missing = lane.missing_.run_mean();
    t.awaiting = lane.awaiting_.run_mean();
    t.relevant = lane.relevant_.run_mean();
    t.err_mean_px = lane.err_run_.n > 0 ? lane.err_run_.sum / lane.err_run_.n : 0;
    t.err_worst_px = lane.err_run_.worst;
    std::uint64_t mismatches = 0, lost = 0, rebuilds = 0, unresolved = 0;
    for (const auto& seat : lane.seats_) {
        mismatches += seat->client.mirror().counters().divergences;
        lost += seat->client.mirror().counters().frames_lost;
        rebuilds += seat->server.baseline().counters().full_rebuilds;
        unresolved += seat->client.unresolved();
    }
    t.unresolved = unresolved - lane.at_start_.unresolved;
    t.mismatches = mismatches - lane.at_start_.mismatches;
    t.frames_lost = lost - lane.at_start_.lost;
    // The first full baseline of each client is its join, not a resync.
    const std::uint64_t floor = std::max<std::uint64_t>(lane.at_start_.rebuilds, lane.seats_.size());
    t.resyncs = rebuilds > floor ? rebuilds - floor : 0;
    t.entities_per_packet = lane.ids_.run_mean();
    t.spawns_per_packet = lane.spawns_.run_mean();
    t.despawns_per_packet = lane.despawns_.run_mean();
    t.summaries = lane.blobs_.run_mean();
    t.coverage = lane.coverage_.run_mean();
    return t;
}

void HordeSim::meters(std::vector<Meter>& out) const {
    const HordeWorld& w = *world_;
    const double alive = static_cast<double>(w.alive_count());
    out.push_back({"alive", "", alive});
    out.push_back({"killed", "", static_cast<double>(w.kills())});
    out.push_back({"last_pulse_kills", "", static_cast<double>(w.last_nova_kills())});
    out.push_back({"biggest_pulse_kills", "", static_cast<double>(w.biggest_nova_kills())});
    double relevant = 0;
    for (std::size_t c = 0; c < round_.players(); ++c) relevant += static_cast<double>(round_.relevant(c).size());
    relevant /= static_cast<double>(std::max<std::size_t>(1, round_.players()));
    out.push_back({"relevant", "", relevant});
    out.push_back({"culled_pct", "%", alive > 0 ? 100.0 * (1.0 - relevant / alive) : 0.0});
    for (std::size_t i = 0; i < lanes_.size(); ++i) {
        const HordeLane& lane = *lanes_[i];
        const std::string p = lane.config_.name + ".";
        std::uint64_t mismatches = 0, lost = 0, rebuilds = 0, stale = 0, decode_errors = 0, late = 0;
        std::uint64_t resent = 0, spread = 0, refused = 0, unresolved = 0;
        std::size_t largest = 0;
        for (const auto& seat : lane.seats_) {
            const DeltaBaselineCounters& c = seat->server.baseline().counters();
            late += c.late_acks;
            resent += c.resent_lost + c.resent_timeout;
            spread += seat->server.baseline().counters().spread_frames;
            refused += seat->server.refused_frames();
            unresolved += seat->client.unresolved();
            largest = std::max(largest, seat->server.largest_packet_bytes());
            mismatches += seat->client.mirror().counters().divergences;
            lost += seat->client.mirror().counters().frames_lost;
            rebuilds += seat->server.baseline().counters().full_rebuilds;
            stale += seat->client.mirror().counters().stale_refs;
            decode_errors += seat->client.decode_errors() + seat->server.decode_errors();
        }
        const double kib = lane.bytes_.per_sec() / 1024.0;
        const double uuid = lane.uuid_bytes_.per_sec() / 1024.0;
        out.push_back({p + "kib_s", "KiB/s", kib});
        out.push_back({p + "lifetime_kib_s", "KiB/s", lane.bytes_.lifetime_per_sec() / 1024.0});
        out.push_back({p + "uuid_kib_s", "KiB/s", uuid});
        out.push_back({p + "saved_pct", "%", uuid > 0 ? 100.0 * (1.0 - kib / uuid) : 0.0});
        out.push_back({p + "up_kib_s", "KiB/s", lane.up_bytes_.per_sec() / 1024.0});
        out.push_back({p + "knows", "", lane.held_.window_mean()});
        out.push_back({p + "entities_per_packet", "", lane.ids_.window_mean()});
        // Since restart_measurement(), as they always were (the run, not the window).
        out.push_back({p + "spawns_per_packet", "", lane.spawns_.run_mean()});
        out.push_back({p + "despawns_per_packet", "", lane.despawns_.run_mean()});
        out.push_back({p + "mismatches", "", static_cast<double>(mismatches)});
        out.push_back({p + "frames_lost", "", static_cast<double>(lost)});
        out.push_back({p + "phantoms", "", lane.phantoms_.window_mean()});
        out.push_back({p + "missing", "", lane.missing_.window_mean()});
        out.push_back({p + "resyncs", "",
                       static_cast<double>(rebuilds > lane.seats_.size() ? rebuilds - lane.seats_.size() : 0)});
        out.push_back({p + "err_mean_px", "px", lane.err_.window_mean()});
        out.push_back({p + "err_worst_px", "px", lane.err_worst_recent_});
        out.push_back({p + "stale_refs", "", static_cast<double>(stale)});
        // Frames acknowledged after their retransmission timeout: nonzero and growing means the
        // history is shorter than the round trip (changes are sent twice).
        out.push_back({p + "late_acks", "", static_cast<double>(late)});
        // Enemies named again because the frame that named them was lost or timed out.
        out.push_back({p + "resent", "", static_cast<double>(resent)});
        // Frames that carried part of a change too large for one datagram (the rest follows).
        out.push_back({p + "spread_frames", "", static_cast<double>(spread)});
        out.push_back({p + "largest_packet_bytes", "B", static_cast<double>(largest)});
        out.push_back({p + "refused_frames", "", static_cast<double>(refused)});
        out.push_back({p + "decode_errors", "", static_cast<double>(decode_errors)});
        const double corrections = lane.corrections_.per_sec();
        out.push_back(
            {p + "predicted_pct", "%", corrections > 0 ? 100.0 * lane.predicted_.per_sec() / corrections : 0.0});
        out.push_back({p + "unresolved", "", static_cast<double>(unresolved)});
        const double held = lane.held_.window_mean() * static_cast<double>(lane.seats_.size());
        out.push_back({p + "bytes_per_held_s", "B/s", held > 0 ? lane.bytes_.per_sec() / held : 0.0});
        if (lane_theta(lane.config_) > 0.0f || lane.config_.follows_theta) {
            out.push_back({p + "summaries", "", lane.blobs_.window_mean()});
            out.push_back({p + "coverage_pct", "%", 100.0 * lane.coverage_.window_mean()});
            out.push_back({p + "crowd_kib_s", "KiB/s", lane.crowd_bytes_.per_sec() / 1024.0});
        }
    }
}

std::uint64_t HordeSim::checksum() const {
    std::uint64_t h = world_->checksum();
    h = fold(h, send_rounds_);
    for (const auto& lane : lanes_) {
        // The run's sums, exactly as the former per-lane tallies folded them.
        h = fold(h, lane->bytes_.run_total());
        h = fold(h, lane->phantoms_.run_total());
        h = fold(h, lane->err_run_.sum);
        for (const auto& seat : lane->seats_) {
            h = fold(h, seat->client.mirror().digest());
            h = fold(h, seat->server.baseline().next_seq());
            h = fold(h, seat->client.mirror().counters().divergences);
        }
    }
    return h;
}

std::span<const MeterInfo> HordeSim::glossary() const {
    static constexpr MeterInfo kGlossary[] = {
        {"kib_s", "sent", "bytes per second this lane sends its clients now (a windowed rate)"},
        {"lifetime_kib_s", "sent, session", "bytes per second this lane sent over the whole run"},
        {"uuid_kib_s", "sent as uuid+f32", "what the same frames would cost with 16-byte ids and float positions"},
        {"saved_pct", "saved", "share of the uuid+f32 cost the compact wire saves"},
        {"up_kib_s", "acks up", "bytes per second the clients send back (acknowledgements)"},
        {"knows", "held", "enemies a client of this lane holds (mean over its clients)"},
        {"entities_per_packet", "per frame", "entities in a frame to one client"},
        {"spawns_per_packet", "entered per frame", "enemies a frame tells a client about for the first time"},
        {"despawns_per_packet", "left per frame", "enemies a frame tells a client to forget"},
        {"mismatches", "mismatches", "frames whose set digest disagreed with the server's (the client's set is wrong)"},
        {"frames_lost", "frames lost", "frames the link dropped on the way to this lane's clients"},
        {"phantoms", "phantoms", "enemies a client still draws that the server no longer has"},
        {"missing", "missing", "relevant enemies a client does not hold"},
        {"resyncs", "resyncs",
         "full baselines sent after the join: nothing the client acknowledged was left to diff against"},
        {"err_mean_px", "mean error", "mean distance between a held enemy and its true position"},
        {"err_worst_px", "worst error", "largest distance between a held enemy and its true position, recently"},
        {"stale_refs", "stale keys", "references to an enemy slot since reused (generation mismatch), caught"},
        {"late_acks", "late acks",
         "frames acknowledged after their retransmission timeout (history shorter than the round trip)"},
        {"decode_errors", "decode errors", "frames the client refused as malformed"},
        {"resent", "resent", "enemies named again because the frame that named them was lost or timed out"},
        {"spread_frames", "spread frames", "frames that carried part of a set too large for one datagram"},
        {"largest_packet_bytes", "largest packet", "the largest packet sent to a client of this lane"},
        {"refused_frames", "refused frames", "frames the encoder refused (they would not fit or decode)"},
        {"predicted_pct", "predicted",
         "share of corrections sent as a small change from a value the client acknowledged"},
        {"unresolved", "unresolved",
         "predicted corrections a client dropped because it did not hold the value they named"},
        {"bytes_per_held_s", "per held enemy", "bytes per second sent per enemy a client holds (all clients)"},
        {"summaries", "crowd summaries", "blobs standing in for the enemies outside the view"},
        {"coverage_pct", "crowd coverage", "share of the enemies outside the view the summaries account for"},
        {"crowd_kib_s", "crowd bytes", "bytes per second the summaries cost"},
        {"alive", "alive", "enemies alive on the server"},
        {"killed", "killed", "enemies killed since the start"},
        {"last_pulse_kills", "last nova", "enemies the last nova killed"},
        {"biggest_pulse_kills", "largest nova", "most enemies one nova killed"},
        {"relevant", "relevant", "enemies within some client's view"},
        {"culled_pct", "culled", "share of the horde a client is not told about"},
    };
    return kGlossary;
}

}  // namespace vantage::play
