#include "blackhole/blackhole_sim.hpp"

#include "common/settings_schema.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace vantage::play {
namespace {

constexpr Vec2 kArenaCenter{kArenaSize * 0.5f, kArenaSize * 0.5f};
constexpr int kTreeDepth = 10;
constexpr double kScriptStep = 0.03;  // the player's autopilot: angle per tick, radians
constexpr float kCoreFraction = 0.22f;  // pellets are swallowed within this fraction of the radius

// Rounds to a fixed binary grid so that a last-ulp difference between platforms' log, sin
// and cos (glibc against Emscripten's musl) cannot reach the simulation.
float snap(double v, double steps) { return static_cast<float>(std::round(v * steps) / steps); }

Vec2 clamp_length(Vec2 v, float max_len) {
    const float len2 = v.length_squared();
    if (len2 <= max_len * max_len) return v;
    return v * (max_len / std::sqrt(len2));
}

Vec2 direction_to(Vec2 from, Vec2 to) {
    const Vec2 d = to - from;
    const float len2 = d.length_squared();
    return len2 > 1e-6f ? d * (1.0f / std::sqrt(len2)) : Vec2{};
}

const char* lane_name(LaneKind kind) {
    switch (kind) {
        case LaneKind::Full: return "full";
        case LaneKind::Culled: return "culled";
        case LaneKind::Aggregated: return "aggregated";
    }
    return "?";
}

// Median, 90th percentile and worst of `v` (reordered in place).
ErrorStats percentiles(std::vector<float>& v) {
    ErrorStats s;
    s.samples = v.size();
    if (v.empty()) return s;
    auto at = [&v](double q) {
        const auto k = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1));
        std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
        return static_cast<double>(v[k]);
    };
    s.median = at(0.5);
    s.p90 = at(0.9);
    s.worst = static_cast<double>(*std::max_element(v.begin(), v.end()));
    return s;
}

// Every setting of the playground, declared once: its range here is the slider's, the URL
// check's and validate()'s.
const SettingsSchema<BlackholeSettings>& blackhole_schema() {
    static const SettingsSchema<BlackholeSettings> schema = [] {
        using S = BlackholeSettings;
        SettingsSchema<S> d;
        d.real("theta", &S::theta,
               {.label = "theta",
                .min = 0.0,
                .max = 1.5,
                .help = "aggregated lane: opening angle; 0 sends every hole exactly"});
        d.flag("disc_walk", &S::disc_walk,
               {.label = "disc walk",
                .help = "aggregated lane: hold the angle from every point of the view disc (summarize_around), not "
                        "just the hole"});
        d.real("view_radius", &S::view_radius,
               {.label = "view radius",
                .unit = "px",
                .min = 200.0,
                .max = 1500.0,
                .help = "culling distance, and the disc the pellet error is measured in"});
        d.integer("holes", &S::holes,
                  {.label = "black holes",
                   .min = 2,
                   .max = static_cast<double>(kMaxHoles),
                   .help = "holes in the arena (rebuilds the world)",
                   .restart = true});
        d.integer("pellets", &S::pellets,
                  {.label = "pellets",
                   .min = 200,
                   .max = 6000,
                   .help = "pellets in the arena (rebuilds the world)",
                   .restart = true});
        d.integer("clients", &S::clients,
                  {.label = "clients/lane",
                   .min = 1,
                   .max = 8,
                   .help = "clients served by every lane, playing holes 0.. (rebuilds the world)",
                   .restart = true});
        d.integer("corrections", &S::corrections,
                  {.label = "corrections",
                   .min = 0,
                   .max = 300,
                   .help = "pellet states per packet, round-robin over every pellet"});
        d.real(
            "send_hz", &S::send_hz,
            {.label = "send rate", .unit = "Hz", .min = 1.0, .max = 60.0, .help = "packets per second to each client"});
        d.real("latency_ms", &S::latency_ms,
               {.label = "latency",
                .unit = "ms",
                .min = 0.0,
                .max = 400.0,
                .help = "one-way link latency",
                .apply = true});
        d.real("jitter_ms", &S::jitter_ms,
               {.label = "jitter",
                .unit = "ms",
                .min = 0.0,
                .max = 150.0,
                .help = "extra one-way delay, uniform in [0, jitter]",
                .apply = true});
        d.real("loss_pct", &S::loss_pct,
               {.label = "packet loss",
                .unit = "%",
                .min = 0.0,
                .max = 40.0,
                .help = "packets lost at random on every link",
                .apply = true});
        d.flag("autopilot", &S::autopilot,
               {.label = "autopilot", .help = "your hole circles by script; off: steer it with WASD or the arrows"});
        return d;
    }();
    return schema;
}

}  // namespace

std::string BlackholeSettings::validate() const {
    return blackhole_schema().validate(*this);
}

BlackholeSim::BlackholeSim() {
    blackhole_schema().bind(settings_, params_, [this] { apply_link_options(); });
}

float BlackholeSim::effective_mass(float mass) {
    // The reference game's uncapped curve (core/docs/background.md); snapped so every
    // platform's log agrees.
    return snap(400.0 * std::log1p(static_cast<double>(std::max(mass, 0.0f)) / 400.0), 1024.0);
}

float BlackholeSim::hole_radius(const Hole& h) const { return 6.0f + 2.4f * std::sqrt(effective_mass(h.mass)); }

void BlackholeSim::steer(Vec2 direction) { steer_ = clamp_length(direction, 1.0f); }

void BlackholeSim::apply_link_options() {
    const LossyLinkOptions o{.latency_ms = settings_.latency_ms,
                             .jitter_ms = settings_.jitter_ms,
                             .loss = static_cast<float>(settings_.loss_pct / 100.0)};
    for (Lane& lane : lanes_) {
        for (auto& seat : lane.seats) seat->link.set_impairment(o);
    }
}

void BlackholeSim::reset(std::uint64_t seed) {
    assert(settings_.validate().empty() && "BlackholeSim: settings out of range (see validate())");
    rng_ = XorShift(mix64(seed ^ 0x626c61636b686f6cULL));
    time_s_ = 0.0;
    next_send_s_ = 0.0;
    next_measure_s_ = kMeasureEveryS;
    field_probe_due_ = false;
    script_angle_ = 0.0;
    steer_ = {};
    swallowed_ = 0;

    const auto hole_count = static_cast<std::size_t>(std::clamp(settings_.holes, 2, static_cast<int>(kMaxHoles)));
    holes_.assign(hole_count, Hole{});
    for (Hole& h : holes_) {
        h.position = {rng_.range(200.0f, 2800.0f), rng_.range(200.0f, 2800.0f)};
        h.target = {rng_.range(150.0f, 2850.0f), rng_.range(150.0f, 2850.0f)};
        h.retarget_at_s = rng_.range(3.0f, 9.0f);
    }
    sources_.clear();
    source_ids_.clear();
    for (std::size_t i = 0; i < holes_.size(); ++i) {
        sources_.push_back({holes_[i].position.x, holes_[i].position.y, effective_mass(holes_[i].mass)});
        source_ids_.push_back(static_cast<std::uint8_t>(i));
    }

    const auto pellet_count = static_cast<std::size_t>(std::clamp(settings_.pellets, 1, 65536));
    pellet_pos_.resize(pellet_count);
    pellet_vel_.resize(pellet_count);
    respawned_.assign(pellet_count, 0);
    respawn_list_.clear();
    for (std::size_t i = 0; i < pellet_count; ++i) {
        pellet_pos_[i] = {rng_.range(0.0f, kArenaSize), rng_.range(0.0f, kArenaSize)};
        pellet_vel_[i] = {rng_.range(-20.0f, 20.0f), rng_.range(-20.0f, 20.0f)};
    }

    // Every lane's clients share one link seed per client, so the lanes see the same losses
    // and differ only by strategy. The downstream seed keeps the playground's own derivation
    // (not transport.hpp's down_link_seed): the golden checksum and the report depend on its
    // loss and jitter draws. Nothing is sent upstream yet, so that link's seed is the kit's.
    const int clients = std::clamp(settings_.clients, 1, static_cast<int>(hole_count));
    // The welcome: a client joins holding the world's pellets exactly (not metered).
    const BlackholeClientHalf welcome(pellet_field_, pellet_pos_, pellet_vel_);
    lanes_.clear();
    for (LaneKind kind : {LaneKind::Full, LaneKind::Culled, LaneKind::Aggregated}) {
        Lane lane;
        lane.kind = kind;
        lane.name = lane_name(kind);
        for (int c = 0; c < clients; ++c) {
            const auto client = static_cast<std::uint64_t>(c);
            const LossyLinkOptions down{.seed = mix64(seed * 0x9e3779b97f4a7c15ULL + 17u + client)};
            const LossyLinkOptions up{.seed = up_link_seed(seed, client)};
            lane.seats.push_back(std::make_unique<Seat>(c, down, up, welcome));
        }
        for (Reading* r : lane.readings()) r->elapsed(0.0);
        lanes_.push_back(std::move(lane));
    }
    apply_link_options();
}

void BlackholeSim::step(double dt_s) {
    assert(dt_s > 0.0 && "BlackholeSim::step: dt must be positive");
    const auto dt = static_cast<float>(dt_s);
    time_s_ += dt_s;
    {
        PhaseScope phase(profiler_, "world");
        step_holes(dt);
        step_pellets(dt);
    }
    if (time_s_ >= next_send_s_) {
        send_round();
        const double interval = 1.0 / std::clamp(settings_.send_hz, 1.0, 60.0);
        next_send_s_ = std::max(next_send_s_ + interval, time_s_ - interval);
    }
    {
        PhaseScope phase(profiler_, "client");
        for (Lane& lane : lanes_) receive_and_integrate(lane, dt);
    }
    if (time_s_ >= next_measure_s_) {
        PhaseScope phase(profiler_, "measure");
        measure();
        next_measure_s_ += kMeasureEveryS;
    }
    const double now_ms = time_s_ * 1000.0;
    for (Lane& lane : lanes_) {
        for (Reading* r : lane.readings()) r->elapsed(now_ms);
    }
}

void BlackholeSim::step_holes(float dt) {
    for (std::size_t i = 0; i < holes_.size(); ++i) {
        Hole& h = holes_[i];
        if (!h.alive) {
            if (time_s_ < h.respawn_at_s) continue;
            // Respawn at the best of a few seeded candidates: the one farthest from every
            // living hole, so a respawn does not land in a fight.
            Vec2 best{};
            float best_d2 = -1.0f;
            for (int k = 0; k < 8; ++k) {
                const Vec2 p{rng_.range(200.0f, 2800.0f), rng_.range(200.0f, 2800.0f)};
                float nearest = 1e30f;
                for (const Hole& o : holes_) {
                    if (o.alive) nearest = std::min(nearest, (o.position - p).length_squared());
                }
                if (nearest > best_d2) {
                    best_d2 = nearest;
                    best = p;
                }
            }
            h = Hole{};
            h.position = best;
            h.target = {rng_.range(150.0f, 2850.0f), rng_.range(150.0f, 2850.0f)};
            h.retarget_at_s = time_s_ + rng_.range(3.0f, 9.0f);
        }
        Vec2 input;
        if (i == 0) {
            if (settings_.autopilot) {
                script_angle_ += kScriptStep;
                input = {snap(std::cos(script_angle_), 65536.0), snap(std::sin(script_angle_), 65536.0)};
            } else {
                input = steer_;
            }
        } else {
            if (time_s_ >= h.retarget_at_s || (h.target - h.position).length_squared() < 60.0f * 60.0f) {
                h.target = {rng_.range(150.0f, 2850.0f), rng_.range(150.0f, 2850.0f)};
                h.retarget_at_s = time_s_ + rng_.range(3.0f, 9.0f);
            }
            input = direction_to(h.position, h.target);
        }
        // sources_ still holds last tick's holes, so every hole reacts to the same snapshot
        // (a hole's own entry sits on it and pulls nothing, thanks to the softening).
        const Vec2 pull = clamp_length(hole_field_.at(h.position, std::span<const WeightedPoint>(sources_)),
                                       kHolePullCap);
        h.velocity = input * kHoleSpeed + pull;
        const float r = hole_radius(h);
        h.position += h.velocity * dt;
        h.position.x = std::clamp(h.position.x, r, kArenaSize - r);
        h.position.y = std::clamp(h.position.y, r, kArenaSize - r);
    }
    // Contact drains both holes and pushes them apart; a hole drained to nothing respawns.
    for (std::size_t i = 0; i < holes_.size(); ++i) {
        for (std::size_t j = i + 1; j < holes_.size(); ++j) {
            Hole& a = holes_[i];
            Hole& b = holes_[j];
            if (!a.alive || !b.alive) continue;
            const Vec2 d = b.position - a.position;
            const float reach = hole_radius(a) + hole_radius(b);
            const float dist2 = d.length_squared();
            if (dist2 >= reach * reach) continue;
            const float dist = std::sqrt(dist2);
            const Vec2 normal = dist > 1e-3f ? d * (1.0f / dist) : Vec2{1.0f, 0.0f};
            const Vec2 push = normal * ((reach - dist) * 0.5f);
            a.position -= push;
            b.position += push;
            a.mass -= kContactDrain * dt;
            b.mass -= kContactDrain * dt;
        }
    }
    sources_.clear();
    source_ids_.clear();
    for (std::size_t i = 0; i < holes_.size(); ++i) {
        Hole& h = holes_[i];
        if (h.alive && h.mass <= 1.0f) {
            h.alive = false;
            h.respawn_at_s = time_s_ + kRespawnS;
        }
        if (!h.alive) continue;
        sources_.push_back({h.position.x, h.position.y, effective_mass(h.mass)});
        source_ids_.push_back(static_cast<std::uint8_t>(i));
    }
}

void BlackholeSim::respawn_pellet(std::size_t i) {
    pellet_pos_[i] = {rng_.range(0.0f, kArenaSize), rng_.range(0.0f, kArenaSize)};
    pellet_vel_[i] = {rng_.range(-20.0f, 20.0f), rng_.range(-20.0f, 20.0f)};
    if (!respawned_[i]) {
        respawned_[i] = 1;
        respawn_list_.push_back(static_cast<std::uint16_t>(i));
    }
}

void BlackholeSim::step_pellets(float dt) {
    const std::span<const WeightedPoint> sources(sources_);
    std::array<float, kMaxHoles> reach2{};
    for (std::size_t s = 0; s < sources_.size(); ++s) {
        const float r = kCoreFraction * hole_radius(holes_[source_ids_[s]]);
        reach2[s] = r * r;
    }
    for (std::size_t i = 0; i < pellet_pos_.size(); ++i) {
        // Semi-implicit Euler, the same step every client takes with what it was sent.
        pellet_vel_[i] += pellet_field_.at(pellet_pos_[i], sources) * dt;
        pellet_pos_[i] += pellet_vel_[i] * dt;
        const Vec2 p = pellet_pos_[i];
        bool gone = p.x < 0.0f || p.y < 0.0f || p.x > kArenaSize || p.y > kArenaSize;
        for (std::size_t s = 0; s < sources_.size() && !gone; ++s) {
            const float dx = sources_[s].x - p.x;
            const float dy = sources_[s].y - p.y;
            if (dx * dx + dy * dy < reach2[s]) {
                holes_[source_ids_[s]].mass += kMassPerPellet;
                ++swallowed_;
                gone = true;
            }
        }
        if (gone) respawn_pellet(i);
    }
}

BlackholeServeOptions BlackholeSim::serve_options(LaneKind kind) const {
    return {.kind = kind,
            .theta = static_cast<float>(settings_.theta),
            .disc_walk = settings_.disc_walk,
            .view_radius = static_cast<float>(settings_.view_radius),
            .corrections = static_cast<std::size_t>(std::max(settings_.corrections, 0))};
}

void BlackholeSim::send_round() {
    {
        PhaseScope phase(profiler_, "aggregation");
        tree_.build_in(sources_, kArenaCenter, kArenaSize, kTreeDepth);
    }
    const BlackholeRound round{.sources = sources_,
                               .source_ids = source_ids_,
                               .tree = &tree_,
                               .pellet_positions = pellet_pos_,
                               .pellet_velocities = pellet_vel_,
                               .respawned = respawn_list_,
                               .now_ms = time_s_ * 1000.0};
    for (Lane& lane : lanes_) {
        if (field_probe_due_) lane.probe = {};
        const BlackholeServeOptions options = serve_options(lane.kind);
        for (auto& seat : lane.seats) {
            const Vec2 eye = holes_[static_cast<std::size_t>(seat->hole)].position;
            const PacketBytes sizes =
                seat->server.serve(round, eye, options, seat->link.server_end(), serve_scratch_, profiler_);
            lane.bytes.add(static_cast<double>(sizes.total));
            lane.field_bytes.add(static_cast<double>(sizes.field));
            if (field_probe_due_) {
                PhaseScope phase(profiler_, "measure");
                probe_field(lane, eye, serve_scratch_.packet);
            }
        }
    }
    if (field_probe_due_) {
        for (Lane& lane : lanes_) {
            const FieldProbe& p = lane.probe;
            lane.pull_pct.add(p.true_pull > 0.0 ? 100.0 * p.believed_pull / p.true_pull : 100.0);
            lane.field_error_pct.add(p.true_pull > 0.0 ? 100.0 * p.error_pull / p.true_pull : 0.0);
            lane.weight_pct.add(p.true_weight > 0.0 ? 100.0 * p.sent_weight / p.true_weight : 100.0);
        }
        field_probe_due_ = false;
    }
    for (const std::uint16_t id : respawn_list_) respawned_[id] = 0;
    respawn_list_.clear();
}

void BlackholeSim::probe_field(Lane& lane, Vec2 eye, const FieldPacket& packet) {
    // What the strategy costs, apart from staleness and loss: the field of exactly what this
    // packet carries against the true field at the same instant, at the server's pellets in
    // the view around `eye`.
    const auto radius = static_cast<float>(settings_.view_radius);
    probes_.clear();
    for (const Vec2 p : pellet_pos_) {
        if ((p - eye).length_squared() <= radius * radius) probes_.push_back(p);
    }
    sent_.clear();
    for (const HoleState& h : packet.holes) sent_.push_back({h.position.x, h.position.y, h.weight});
    sent_.insert(sent_.end(), packet.clusters.begin(), packet.clusters.end());
    const std::span<const WeightedPoint> truth(sources_);
    const std::span<const WeightedPoint> sent(sent_);
    const FieldError fe = measure_field_error(pellet_field_, truth, sent, probes_);
    double true_pull = 0.0;
    double believed_pull = 0.0;
    for (const Vec2 p : probes_) {
        true_pull += static_cast<double>(pellet_field_.at(p, truth).length());
        believed_pull += static_cast<double>(pellet_field_.at(p, sent).length());
    }
    FieldProbe& out = lane.probe;
    out.true_pull += true_pull;
    out.believed_pull += believed_pull;
    out.error_pull += fe.relative_error * true_pull;
    for (const WeightedPoint& w : sources_) out.true_weight += static_cast<double>(w.weight);
    for (const WeightedPoint& w : sent_) out.sent_weight += static_cast<double>(w.weight);
}

void BlackholeSim::receive_and_integrate(Lane& lane, float dt) {
    const double now_ms = time_s_ * 1000.0;
    for (auto& seat : lane.seats) {
        // Integrate this tick with the field held, then apply what arrived.
        lane.evaluations.add(static_cast<double>(seat->client.integrate(dt)));
        seat->client.receive(seat->link.client_end(), now_ms, client_scratch_);
    }
}

std::uint64_t BlackholeSim::Lane::decode_errors() const {
    std::uint64_t n = 0;
    for (const auto& seat : seats) n += seat->client.decode_errors();
    return n;
}

void BlackholeSim::measure() {
    const auto radius = static_cast<float>(settings_.view_radius);
    field_probe_due_ = true;
    for (Lane& lane : lanes_) {
        std::vector<float>& errors = lane.error_window[static_cast<std::size_t>(lane.error_next)];
        lane.error_next = (lane.error_next + 1) % kErrorWindow;
        errors.clear();
        double attractors = 0.0;
        for (const auto& seat : lane.seats) {
            // Truth-side: the server's pellets against what the client half holds.
            const Vec2 eye = holes_[static_cast<std::size_t>(seat->hole)].position;
            const std::vector<Vec2>& held = seat->client.positions();
            for (std::size_t i = 0; i < pellet_pos_.size(); ++i) {
                if ((pellet_pos_[i] - eye).length_squared() > radius * radius) continue;
                errors.push_back(distance(held[i], pellet_pos_[i]));
            }
            attractors += static_cast<double>(seat->client.attractors().size());
        }
        lane.attractors.add(attractors / static_cast<double>(lane.seats.size()));
        if (keep_samples_) lane.error_lifetime.insert(lane.error_lifetime.end(), errors.begin(), errors.end());
        pooled_.clear();
        for (const std::vector<float>& w : lane.error_window) pooled_.insert(pooled_.end(), w.begin(), w.end());
        lane.error = percentiles(pooled_);
    }
}

ErrorStats BlackholeSim::lifetime_error(LaneKind kind) const {
    std::vector<float> copy = lane(kind).error_lifetime;
    return percentiles(copy);
}

void BlackholeSim::begin_measurement() {
    keep_samples_ = true;
    for (Lane& lane : lanes_) {
        lane.error_lifetime.clear();
        for (Reading* r : lane.readings()) r->begin_measurement();
    }
}

void BlackholeSim::meters(std::vector<Meter>& out) const {
    constexpr double kKiB = 1024.0;
    for (const Lane& lane : lanes_) {
        const std::string p = lane.name + ".";
        const double machines = static_cast<double>(lane.seats.size());
        const double window_total = lane.bytes.window().window_total();
        out.push_back({p + "kib_s", "KiB/s", lane.bytes.per_sec() / kKiB});
        out.push_back({p + "kib_s_lifetime", "KiB/s", lane.bytes.lifetime_per_sec() / kKiB});
        out.push_back({p + "field_kib_s", "KiB/s", lane.field_bytes.per_sec() / kKiB});
        out.push_back({p + "field_kib_s_lifetime", "KiB/s", lane.field_bytes.lifetime_per_sec() / kKiB});
        out.push_back({p + "field_share_pct", "%",
                       window_total > 0.0 ? 100.0 * lane.field_bytes.window().window_total() / window_total : 0.0});
        out.push_back({p + "error_median_px", "px", lane.error.median});
        out.push_back({p + "error_p90_px", "px", lane.error.p90});
        out.push_back({p + "error_worst_px", "px", lane.error.worst});
        // Before the first probe the field is whole, as far as anyone has measured.
        auto or_whole = [](const Reading& r) { return r.samples() > 0 ? r.last() : 100.0; };
        out.push_back({p + "attractors", "", lane.attractors.last()});
        out.push_back({p + "pull_pct", "%", or_whole(lane.pull_pct)});
        out.push_back({p + "weight_pct", "%", or_whole(lane.weight_pct)});
        out.push_back({p + "field_error_pct", "%", lane.field_error_pct.last()});
        out.push_back({p + "force_evals_m_s", "M/s", lane.evaluations.per_sec() / machines / 1e6});
        out.push_back({p + "decode_errors", "", static_cast<double>(lane.decode_errors())});
    }
    double alive = 0.0;
    for (const Hole& h : holes_) alive += h.alive ? 1.0 : 0.0;
    out.push_back({"holes_alive", "", alive});
    out.push_back({"player_mass", "", static_cast<double>(holes_.empty() ? 0.0f : holes_[0].mass)});
    out.push_back({"swallowed", "", static_cast<double>(swallowed_)});
}

std::uint64_t BlackholeSim::checksum() const {
    std::uint64_t h = fold(0, time_s_);
    h = fold(h, rng_.state());
    for (const Hole& hole : holes_) {
        h = fold(h, static_cast<double>(hole.position.x));
        h = fold(h, static_cast<double>(hole.position.y));
        h = fold(h, static_cast<double>(hole.mass));
    }
    for (const Vec2 p : pellet_pos_) h = fold(h, static_cast<double>(p.x) * 4096.0 + static_cast<double>(p.y));
    for (const Lane& lane : lanes_) {
        h = fold(h, lane.bytes.total());
        h = fold(h, lane.field_bytes.total());
        for (const auto& seat : lane.seats) {
            for (const Vec2 p : seat->client.positions()) h = fold(h, static_cast<double>(p.x) * 4096.0 + static_cast<double>(p.y));
        }
    }
    return h;
}

}  // namespace vantage::play
