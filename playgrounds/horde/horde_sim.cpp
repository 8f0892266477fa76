#include "horde/horde_sim.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace vantage::play {

namespace {

constexpr std::uint64_t kDownSalt = 0x646f776eULL;
constexpr std::uint64_t kUpSalt = 0x7570ULL;
// Counterfactual wire: a 16-byte id per key and two f32 per position.
constexpr double kUuidBytes = 16.0;
constexpr double kFloatPositionBytes = 8.0;
constexpr double kUuidCrowdBytes = 8.0 + 4.0;  // f32 position and a u32 headcount

std::vector<HordeLaneConfig> default_lanes() {
    return {
        HordeLaneConfig{"naive", false, true, false, 0.0f, std::nullopt},
        HordeLaneConfig{"acked", true, true, false, 0.0f, std::nullopt},
        HordeLaneConfig{"crowd", true, true, true, 0.0f, std::nullopt},
    };
}

// The client's age-corrected copy of a position the server stamped at time_ms.
Vec2 catch_up(Vec2 sent, std::uint64_t key, std::span<const Vec2> players, double age_s, std::uint32_t& target) {
    if (players.empty()) return sent;
    target = nearest_player(sent, players);
    return chase_step(sent, key, players[target], static_cast<float>(std::max(0.0, age_s)));
}

}  // namespace

HordeLane::HordeLane(HordeLaneConfig config, int clients, const DeltaBaselineOptions& baseline,
                     const LossyLinkOptions& link, std::uint64_t seed)
    : config_(std::move(config)) {
    for (int c = 0; c < clients; ++c) {
        LossyLinkOptions down = link;
        down.seed = mix64(seed ^ kDownSalt ^ static_cast<std::uint64_t>(c));
        LossyLinkOptions up = link;
        up.seed = mix64(seed ^ kUpSalt ^ (static_cast<std::uint64_t>(c) << 20));
        clients_.push_back(std::make_unique<Client>(Client{DeltaBaseline(baseline), LossyLink(down), LossyLink(up), {}, {}, {}, 0, false, 0, 0}));
    }
}

HordeSim::HordeSim() : HordeSim(default_lanes()) {}

HordeSim::HordeSim(std::vector<HordeLaneConfig> lanes) : lane_configs_(std::move(lanes)) {
    add_params();
    reset(1);
}

void HordeSim::add_params() {
    auto add = [this](const char* name, const char* label, const char* unit, const char* help, Param::Kind kind,
                      double lo, double hi, bool restart, auto get, auto set) {
        params_.push_back(Param{name, label, unit, help, kind, lo, hi, restart, get, set});
    };
    auto real = [&](const char* name, const char* label, const char* unit, const char* help, double lo, double hi,
                    double HordeSettings::*field) {
        add(name, label, unit, help, Param::Kind::Real, lo, hi, false, [this, field] { return settings_.*field; },
            [this, field](double v) {
                settings_.*field = v;
                apply_settings();
            });
    };
    auto flag = [&](const char* name, const char* label, const char* help, bool restart, bool HordeSettings::*field) {
        add(name, label, "", help, Param::Kind::Bool, 0.0, 1.0, restart,
            [this, field] { return settings_.*field ? 1.0 : 0.0; },
            [this, field](double v) {
                settings_.*field = v != 0.0;
                apply_settings();
            });
    };
    add("enemies", "enemies", "", "alive enemies the waves keep the arena at", Param::Kind::Int, 200, 8000, true,
        [this] { return static_cast<double>(settings_.enemies); },
        [this](double v) { settings_.enemies = static_cast<int>(v); });
    add("players", "players", "", "players (each one a client); player 0 is yours", Param::Kind::Int, 1, 128, true,
        [this] { return static_cast<double>(settings_.players); },
        [this](double v) { settings_.players = static_cast<int>(v); });
    flag("spread", "players spread", "players roam their own part of the arena; off: all at the centre", true,
         &HordeSettings::spread);
    flag("combat", "combat", "shots, novas, deaths and respawn waves (the churn)", false, &HordeSettings::combat);
    real("view_radius", "view radius", "units", "what each client is told about, around its player", 100, 1500,
         &HordeSettings::view_radius);
    real("send_hz", "send rate", "Hz", "frames per second to each client", 1, 60, &HordeSettings::send_hz);
    real("sample_hz", "correction rate", "Hz", "corrections per second per held enemy, round-robin", 1, 60,
         &HordeSettings::sample_hz);
    real("latency_ms", "latency", "ms", "one way, both directions", 0, 400, &HordeSettings::latency_ms);
    real("jitter_ms", "jitter", "ms", "extra one-way delay, uniform", 0, 150, &HordeSettings::jitter_ms);
    real("loss", "packet loss", "%", "per packet, both directions, the same packets in every lane", 0, 40,
         &HordeSettings::loss_pct);
    real("theta", "crowd theta", "", "opening angle of the crowd summaries (0: none)", 0, 2, &HordeSettings::theta);
    flag("any_received", "ack frontier: any received",
         "acked lanes diff against the newest frame that arrived (off: the newest contiguous one)", true,
         &HordeSettings::any_received);
    for (std::size_t i = 0; i < lane_configs_.size(); ++i) {
        const std::string name = lane_configs_[i].name + "_recovery";
        const std::string label = lane_configs_[i].name + ": recover from loss";
        add(name.c_str(), label.c_str(), "", "diff against what the client acknowledged (off: against what was sent)",
            Param::Kind::Bool, 0.0, 1.0, false, [this, i] { return lane_configs_[i].recovery ? 1.0 : 0.0; },
            [this, i](double v) {
                lane_configs_[i].recovery = v != 0.0;
                apply_settings();
            });
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

void HordeSim::reset(std::uint64_t seed) {
    seed_ = seed;
    world_ = std::make_unique<HordeWorld>(HordeWorldOptions{.seed = seed,
                                                            .enemies = settings_.enemies,
                                                            .players = settings_.players,
                                                            .spread = settings_.spread,
                                                            .combat = settings_.combat});
    lanes_.clear();
    for (const HordeLaneConfig& config : lane_configs_) {
        const AckFrontier frontier =
            config.frontier.value_or(settings_.any_received ? AckFrontier::AnyReceived : AckFrontier::Contiguous);
        const DeltaBaselineOptions baseline{.policy = config.recovery ? RecoveryPolicy::Acked : RecoveryPolicy::Naive,
                                            .frontier = frontier,
                                            .history = 24,
                                            .stalled_after_ms = 3000.0,
                                            .keepalive_every_ms = 1000.0};
        lanes_.push_back(std::make_unique<HordeLane>(config, settings_.players, baseline, link_options(0), seed));
    }
    relevant_.assign(static_cast<std::size_t>(settings_.players), {});
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
        for (auto& client : lane.clients_) {
            LossyLinkOptions down = link_options(client->down.options().seed);
            client->down.set_options(down);
            client->up.set_options(link_options(client->up.options().seed));
            client->baseline.set_policy(lane.config_.recovery ? RecoveryPolicy::Acked : RecoveryPolicy::Naive);
        }
    }
}

void HordeSim::restart_measurement() {
    const double now_ms = time_s() * 1000.0;
    for (auto& lane : lanes_) {
        HordeLane::Stats s;
        s.start_ms = now_ms;
        for (auto& c : lane->clients_) {
            s.mismatches_at_start += c->mirror.counters().divergences;
            s.lost_at_start += c->mirror.counters().frames_lost;
            s.rebuilds_at_start += c->baseline.full_rebuilds();
        }
        lane->stats_ = s;
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
    for (auto& lane : lanes_) {
        for (auto& client : lane->clients_) receive(*lane, *client, now_ms);
        simulate_and_measure(*lane, static_cast<float>(dt_s), now_ms, send_tick);
    }
}

void HordeSim::send_round(double now_ms) {
    const HordeWorld& w = *world_;
    const float radius = static_cast<float>(settings_.view_radius);
    {
        PhaseScope phase(profiler_, "relevance");
        for (std::size_t c = 0; c < relevant_.size(); ++c) {
            std::vector<std::uint64_t>& keys = relevant_[c];
            keys.clear();
            w.grid().for_each_in_radius(w.player_positions()[c], radius,
                                        [&](std::uint32_t id, Vec2) { keys.push_back(w.key_at(id)); });
            std::sort(keys.begin(), keys.end());
        }
    }
    bool any_broadcast = false;
    bool any_crowd = false;
    for (const auto& lane : lanes_) {
        any_broadcast = any_broadcast || !lane->config_.relevance;
        any_crowd = any_crowd || lane_theta(lane->config_) > 0.0f;
    }
    if (any_broadcast) {
        everyone_.clear();
        for (std::uint32_t id : w.alive_ids()) everyone_.push_back(w.key_at(id));  // ascending slot = ascending key
    }
    tree_built_ = false;
    if (any_crowd) {
        PhaseScope phase(profiler_, "aggregation");
        points_.clear();
        for (Vec2 p : w.alive_positions()) points_.push_back({p.x, p.y, 1.0f});
        tree_.build_in(points_, {horde::kArena * 0.5f, horde::kArena * 0.5f}, horde::kArena, 10);
        tree_built_ = true;
    }
    for (auto& lane : lanes_) {
        for (std::size_t c = 0; c < lane->clients_.size(); ++c) send_to(*lane, c, now_ms);
    }
    ++send_rounds_;
}

void HordeSim::send_to(HordeLane& lane, std::size_t c, double now_ms) {
    HordeLane::Client& client = *lane.clients_[c];
    HordeLane::Stats& stats = lane.stats_;
    std::optional<PhaseScope> phase(std::in_place, profiler_, "delta");
    // Acknowledgements first, so the plan diffs against the newest acknowledged state.
    while (client.up.poll(now_ms, packet_)) {
        AckReport report;
        if (decode_ack(packet_, report) != WireError::None) {
            ++client.decode_errors;
            continue;
        }
        client.baseline.observe_ack_at(report, now_ms);
    }
    if (!client.baseline.should_send(now_ms)) return;
    const HordeWorld& w = *world_;
    const std::vector<std::uint64_t>& keys = lane.config_.relevance ? relevant_[c] : everyone_;
    client.baseline.plan(keys, plan_);
    phase.reset();
    phase.emplace(profiler_, "encode");

    entered_positions_.clear();
    for (std::uint64_t k : plan_.entered) entered_positions_.push_back(w.position_at(SlotKey::decode(k)->index));

    // Round-robin corrections: each relevant enemy every `ratio` frames, except those whose
    // entry (with its position) is in this frame already.
    samples_.clear();
    const auto ratio = static_cast<std::uint64_t>(
        std::max(1.0, std::round(std::clamp(settings_.send_hz, 1.0, 60.0) / std::clamp(settings_.sample_hz, 1.0, 60.0))));
    std::size_t e = 0;
    for (std::uint64_t k : keys) {
        while (e < plan_.entered.size() && plan_.entered[e] < k) ++e;
        if (e < plan_.entered.size() && plan_.entered[e] == k) continue;
        const std::uint32_t index = SlotKey::decode(k)->index;
        if ((index + client.frames) % ratio != 0) continue;
        samples_.push_back({k, w.position_at(index)});
    }

    crowd_.clear();
    const float theta = lane_theta(lane.config_);
    double coverage = 0;
    if (theta > 0.0f && tree_built_) {
        phase.reset();
        phase.emplace(profiler_, "aggregation");
        const Vec2 eye = w.player_positions()[c];
        const float r2 = static_cast<float>(settings_.view_radius * settings_.view_radius);
        tree_.summarize(eye, theta, summaries_);
        double covered = 0;
        for (const Summary& s : summaries_) {
            if ((s.position() - eye).length_squared() <= r2) continue;  // inside the view: sent exactly
            crowd_.push_back({s.position(), s.count});
            covered += s.count;
        }
        const double distant = static_cast<double>(w.alive_count()) - static_cast<double>(relevant_[c].size());
        coverage = distant > 0 ? std::min(1.0, covered / distant) : 1.0;
        phase.reset();
        phase.emplace(profiler_, "encode");
    }

    const HordePacketBytes sizes =
        encode_horde_packet(writer_, scratch_, static_cast<std::uint64_t>(std::llround(now_ms)), plan_,
                            entered_positions_, w.player_positions(), samples_, crowd_);
    if (!sizes.ok) return;  // positions are finite and inside the arena, so this does not happen
    client.down.send(now_ms, writer_.bytes());
    ++client.frames;

    const double bytes = static_cast<double>(sizes.total());
    const double ids = static_cast<double>(plan_.entered.size() + plan_.left.size() + samples_.size());
    const double positions = static_cast<double>(plan_.entered.size() + samples_.size() + w.player_positions().size());
    const double uuid_bytes = static_cast<double>(sizes.header) + 8.0 /* seq */ + 8.0 /* digest */ +
                              ids * kUuidBytes + positions * kFloatPositionBytes +
                              static_cast<double>(crowd_.size()) * kUuidCrowdBytes;
    lane.kib_.add(bytes);
    lane.uuid_kib_.add(uuid_bytes);
    lane.crowd_kib_.add(static_cast<double>(sizes.crowd));
    lane.packets_.add(ids);
    stats.bytes += bytes;
    stats.uuid_bytes += uuid_bytes;
    stats.crowd_bytes += static_cast<double>(sizes.crowd);
    stats.sample_bytes += static_cast<double>(sizes.samples);
    stats.membership_bytes += static_cast<double>(sizes.membership);
    stats.packets += 1;
    stats.entities += ids;
    stats.spawns += static_cast<double>(plan_.entered.size());
    stats.despawns += static_cast<double>(plan_.left.size());
    if (theta > 0.0f) {
        lane.blobs_.add(static_cast<double>(crowd_.size()));
        lane.coverage_.add(coverage);
        stats.blobs += static_cast<double>(crowd_.size());
        stats.coverage += coverage;
        stats.crowd_packets += 1;
    }
}

void HordeSim::receive(HordeLane& lane, HordeLane::Client& client, double now_ms) {
    bool any = false;
    while (client.down.poll(now_ms, packet_)) {
        if (decode_horde_packet(packet_, decoded_) != WireError::None) {
            ++client.decode_errors;
            continue;
        }
        any = true;
        const HordePacket& p = decoded_;
        const double age_s = (now_ms - static_cast<double>(p.time_ms)) / 1000.0;
        const bool newest = !client.heard || p.time_ms >= client.newest_ms;
        if (newest) {
            client.heard = true;
            client.newest_ms = p.time_ms;
            client.players = p.players;
            client.crowd = p.crowd;
        }
        const std::vector<Vec2>& positions = p.delta.entered_positions;
        client.mirror.apply(p.delta.plan, [&](std::size_t i, SlotKey key) {
            HeldEnemy held;
            const Vec2 sent = i < positions.size() ? positions[i] : Vec2{};
            held.position = catch_up(sent, key.encode(), p.players, age_s, held.target);
            return held;
        });
        // The digest describes the server's whole set after this frame: compare when this is
        // the newest frame ("mirror digest mismatches"; the repair is the server's job).
        if (client.mirror.applied_seq() == p.delta.plan.seq) client.mirror.settle(p.delta.plan.digest);
        for (const HordeSample& s : p.samples) {
            const std::optional<SlotKey> key = SlotKey::decode(s.key);
            if (!key) continue;
            if (HeldEnemy* held = client.mirror.get_mut(*key)) {
                held->position = catch_up(s.position, s.key, p.players, age_s, held->target);
            }
        }
    }
    if (!any) return;
    if (const auto report = client.mirror.ack_report()) {
        writer_.clear();
        encode_ack(writer_, *report);
        client.up.send(now_ms, writer_.bytes());
        lane.up_kib_.add(static_cast<double>(writer_.size()));
        lane.stats_.up_bytes += static_cast<double>(writer_.size());
    }
}

void HordeSim::simulate_and_measure(HordeLane& lane, float dt, double now_ms, bool send_tick) {
    const HordeWorld& w = *world_;
    const std::uint64_t tick = w.tick();
    double phantoms = 0, held = 0, err_sum = 0, err_n = 0, err_worst = 0;
    double missing = 0, relevant = 0;
    for (std::size_t c = 0; c < lane.clients_.size(); ++c) {
        HordeLane::Client& client = *lane.clients_[c];
        const std::span<const Vec2> players = client.players;
        client.mirror.for_each_mut([&](SlotKey key, HeldEnemy& h) {
            const std::uint64_t packed = key.encode();
            if (!players.empty()) {
                if ((key.index + tick) % static_cast<std::uint64_t>(horde::kRetargetTicks) == 0 ||
                    h.target >= players.size()) {
                    h.target = nearest_player(h.position, players);
                }
                h.position = chase_step(h.position, packed, players[h.target], dt);
            }
            held += 1;
            Vec2 truth;
            if (w.alive(packed)) {
                truth = w.position_at(key.index);
            } else {
                phantoms += 1;
                if (!w.death_position(packed, truth)) return;
            }
            const double err = static_cast<double>(distance(h.position, truth));
            err_sum += err;
            err_n += 1;
            err_worst = std::max(err_worst, err);
        });
        if (send_tick) {
            const std::vector<std::uint64_t>& keys = lane.config_.relevance ? relevant_[c] : everyone_;
            for (std::uint64_t k : keys) {
                if (!client.mirror.contains(*SlotKey::decode(k))) missing += 1;
            }
            relevant += static_cast<double>(keys.size());
        }
    }
    const double clients = static_cast<double>(std::max<std::size_t>(1, lane.clients_.size()));
    for (RateMeter* m : {&lane.kib_, &lane.uuid_kib_, &lane.up_kib_, &lane.crowd_kib_, &lane.phantoms_, &lane.held_,
                         &lane.missing_, &lane.err_, &lane.packets_, &lane.blobs_, &lane.coverage_}) {
        m->elapsed(now_ms);
    }
    lane.phantoms_.add(phantoms / clients);
    lane.held_.add(held / clients);
    if (err_n > 0) lane.err_.add(err_sum / err_n);
    lane.err_worst_acc_ = std::max(lane.err_worst_acc_, err_worst);
    if (now_ms >= lane.err_worst_until_ms_) {
        lane.err_worst_recent_ = lane.err_worst_acc_;
        lane.err_worst_acc_ = 0;
        lane.err_worst_until_ms_ = now_ms + 1000.0;
    }
    HordeLane::Stats& s = lane.stats_;
    s.phantoms += phantoms / clients;
    s.held += held / clients;
    s.ticks += 1;
    s.err_sum += err_sum;
    s.err_n += err_n;
    s.err_worst = std::max(s.err_worst, err_worst);
    if (send_tick) {
        lane.missing_.add(missing / clients);
        s.missing += missing / clients;
        s.relevant += relevant / clients;
        s.sends += 1;
    }
}

HordeLaneTotals HordeSim::totals(std::size_t i) const {
    const HordeLane& lane = *lanes_[i];
    const HordeLane::Stats& s = lane.stats_;
    HordeLaneTotals t;
    t.seconds = time_s() - s.start_ms / 1000.0;
    const double per_s = t.seconds > 0 ? 1.0 / (t.seconds * 1024.0) : 0.0;
    t.kib_s = s.bytes * per_s;
    t.uuid_kib_s = s.uuid_bytes * per_s;
    t.up_kib_s = s.up_bytes * per_s;
    t.crowd_kib_s = s.crowd_bytes * per_s;
    t.samples_share = s.bytes > 0 ? s.sample_bytes / s.bytes : 0;
    t.membership_share = s.bytes > 0 ? s.membership_bytes / s.bytes : 0;
    t.phantoms = s.ticks > 0 ? s.phantoms / s.ticks : 0;
    t.held = s.ticks > 0 ? s.held / s.ticks : 0;
    t.missing = s.sends > 0 ? s.missing / s.sends : 0;
    t.relevant = s.sends > 0 ? s.relevant / s.sends : 0;
    t.err_mean_px = s.err_n > 0 ? s.err_sum / s.err_n : 0;
    t.err_worst_px = s.err_worst;
    std::uint64_t mismatches = 0, lost = 0, rebuilds = 0;
    for (const auto& c : lane.clients_) {
        mismatches += c->mirror.counters().divergences;
        lost += c->mirror.counters().frames_lost;
        rebuilds += c->baseline.full_rebuilds();
    }
    t.mismatches = mismatches - s.mismatches_at_start;
    t.frames_lost = lost - s.lost_at_start;
    // The first full baseline of each client is its join, not a resync.
    const std::uint64_t floor = std::max<std::uint64_t>(s.rebuilds_at_start, lane.clients_.size());
    t.resyncs = rebuilds > floor ? rebuilds - floor : 0;
    t.entities_per_packet = s.packets > 0 ? s.entities / s.packets : 0;
    t.spawns_per_packet = s.packets > 0 ? s.spawns / s.packets : 0;
    t.despawns_per_packet = s.packets > 0 ? s.despawns / s.packets : 0;
    t.summaries = s.crowd_packets > 0 ? s.blobs / s.crowd_packets : 0;
    t.coverage = s.crowd_packets > 0 ? s.coverage / s.crowd_packets : 0;
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
    for (const auto& r : relevant_) relevant += static_cast<double>(r.size());
    relevant /= static_cast<double>(std::max<std::size_t>(1, relevant_.size()));
    out.push_back({"relevant", "", relevant});
    out.push_back({"culled_pct", "%", alive > 0 ? 100.0 * (1.0 - relevant / alive) : 0.0});
    for (std::size_t i = 0; i < lanes_.size(); ++i) {
        const HordeLane& lane = *lanes_[i];
        const std::string p = lane.config_.name + ".";
        std::uint64_t mismatches = 0, lost = 0, rebuilds = 0, stale = 0, decode_errors = 0;
        for (const auto& c : lane.clients_) {
            mismatches += c->mirror.counters().divergences;
            lost += c->mirror.counters().frames_lost;
            rebuilds += c->baseline.full_rebuilds();
            stale += c->mirror.counters().stale_refs;
            decode_errors += c->decode_errors;
        }
        const double kib = lane.kib_.per_sec() / 1024.0;
        const double uuid = lane.uuid_kib_.per_sec() / 1024.0;
        const double spawns = lane.stats_.packets > 0 ? lane.stats_.spawns / lane.stats_.packets : 0.0;
        const double despawns = lane.stats_.packets > 0 ? lane.stats_.despawns / lane.stats_.packets : 0.0;
        out.push_back({p + "kib_s", "KiB/s", kib});
        out.push_back({p + "lifetime_kib_s", "KiB/s", lane.kib_.lifetime_per_sec() / 1024.0});
        out.push_back({p + "uuid_kib_s", "KiB/s", uuid});
        out.push_back({p + "saved_pct", "%", uuid > 0 ? 100.0 * (1.0 - kib / uuid) : 0.0});
        out.push_back({p + "up_kib_s", "KiB/s", lane.up_kib_.per_sec() / 1024.0});
        out.push_back({p + "knows", "", lane.held_.mean()});
        out.push_back({p + "entities_per_packet", "", lane.packets_.mean()});
        out.push_back({p + "spawns_per_packet", "", spawns});
        out.push_back({p + "despawns_per_packet", "", despawns});
        out.push_back({p + "mismatches", "", static_cast<double>(mismatches)});
        out.push_back({p + "frames_lost", "", static_cast<double>(lost)});
        out.push_back({p + "phantoms", "", lane.phantoms_.mean()});
        out.push_back({p + "missing", "", lane.missing_.mean()});
        out.push_back({p + "resyncs", "",
                       static_cast<double>(rebuilds > lane.clients_.size() ? rebuilds - lane.clients_.size() : 0)});
        out.push_back({p + "err_mean_px", "px", lane.err_.mean()});
        out.push_back({p + "err_worst_px", "px", lane.err_worst_recent_});
        out.push_back({p + "stale_refs", "", static_cast<double>(stale)});
        out.push_back({p + "decode_errors", "", static_cast<double>(decode_errors)});
        if (lane_theta(lane.config_) > 0.0f || lane.config_.follows_theta) {
            out.push_back({p + "summaries", "", lane.blobs_.mean()});
            out.push_back({p + "coverage_pct", "%", 100.0 * lane.coverage_.mean()});
            out.push_back({p + "crowd_kib_s", "KiB/s", lane.crowd_kib_.per_sec() / 1024.0});
        }
    }
}

std::uint64_t HordeSim::checksum() const {
    std::uint64_t h = world_->checksum();
    h = fold(h, send_rounds_);
    for (const auto& lane : lanes_) {
        h = fold(h, lane->stats_.bytes);
        h = fold(h, lane->stats_.phantoms);
        h = fold(h, lane->stats_.err_sum);
        for (const auto& c : lane->clients_) {
            h = fold(h, c->mirror.digest());
            h = fold(h, c->baseline.next_seq());
            h = fold(h, c->mirror.counters().divergences);
        }
    }
    return h;
}

}  // namespace vantage::play
