#include "blackhole/blackhole_sim.hpp"

#include "common/settings_schema.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace vantage::play {
namespace {

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

void BlackholeSim::steer(Vec2 direction) {
    steer_ = direction;
}

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
    world_ = BlackholeWorld({.seed = seed, .holes = settings_.holes, .pellets = settings_.pellets});
    next_send_s_ = 0.0;
    next_measure_s_ = kMeasureEveryS;
    field_probe_due_ = false;
    steer_ = {};
    const std::size_t hole_count = world_.holes().size();

    // Every lane's clients share one link seed per client, so the lanes see the same losses
    // and differ only by strategy. The downstream seed keeps the playground's own derivation
    // (not transport.hpp's down_link_seed): the golden checksum and the report depend on its
    // loss and jitter draws. Nothing is sent upstream yet, so that link's seed is the kit's.
    const int clients = std::clamp(settings_.clients, 1, static_cast<int>(hole_count));
    // The welcome: a client joins holding the world's pellets exactly (not metered).
    const BlackholeClientHalf welcome(world_.pellet_field(), world_.pellet_positions(), world_.pellet_velocities());
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
    {
        PhaseScope phase(profiler_, "world");
        world_.control(0, settings_.autopilot ? World::Control::Circle : World::Control::Steered, steer_);
        world_.step(dt_s);
    }
    const double time_s = world_.time_s();
    if (time_s >= next_send_s_) {
        send_round();
        const double interval = 1.0 / std::clamp(settings_.send_hz, 1.0, 60.0);
        next_send_s_ = std::max(next_send_s_ + interval, time_s - interval);
    }
    {
        PhaseScope phase(profiler_, "client");
        for (Lane& lane : lanes_) receive_and_integrate(lane, dt);
    }
    if (time_s >= next_measure_s_) {
        PhaseScope phase(profiler_, "measure");
        measure();
        next_measure_s_ += kMeasureEveryS;
    }
    const double now_ms = time_s * 1000.0;
    for (Lane& lane : lanes_) {
        for (Reading* r : lane.readings()) r->elapsed(now_ms);
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
        build_field_tree(tree_, world_.sources());
    }
    const BlackholeRound round{.sources = world_.sources(),
                               .source_ids = world_.source_ids(),
                               .tree = &tree_,
                               .pellet_positions = world_.pellet_positions(),
                               .pellet_velocities = world_.pellet_velocities(),
                               .respawned = world_.respawned(),
                               .now_ms = world_.time_s() * 1000.0};
    for (Lane& lane : lanes_) {
        if (field_probe_due_) lane.probe = {};
        const BlackholeServeOptions options = serve_options(lane.kind);
        for (auto& seat : lane.seats) {
            const Vec2 eye = world_.holes()[static_cast<std::size_t>(seat->hole)].position;
            const LossyLinkCounters before = seat->link.down().counters();
            const PacketBytes sizes =
                seat->server.serve(round, eye, options, seat->link.server_end(), serve_scratch_, profiler_);
            if (seat == lane.seats.front() && sizes.ok) {
                const LossyLinkCounters& after = seat->link.down().counters();
                const bool lost = after.packets_lost + after.packets_dropped + after.packets_oversize >
                                  before.packets_lost + before.packets_dropped + before.packets_oversize;
                lane.packets.record(false, serve_scratch_.packet.sequence, round.now_ms, lost,
                                    serve_scratch_.writer.bytes());
            }
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
    world_.clear_respawned();
}

void BlackholeSim::probe_field(Lane& lane, Vec2 eye, const FieldPacket& packet) {
    // What the strategy costs, apart from staleness and loss: the field of exactly what this
    // packet carries against the true field at the same instant, at the server's pellets in
    // the view around `eye`.
    const auto radius = static_cast<float>(settings_.view_radius);
    probes_.clear();
    for (const Vec2 p : world_.pellet_positions()) {
        if ((p - eye).length_squared() <= radius * radius) probes_.push_back(p);
    }
    sent_.clear();
    for (const HoleState& h : packet.holes) sent_.push_back({h.position.x, h.position.y, h.weight});
    sent_.insert(sent_.end(), packet.clusters.begin(), packet.clusters.end());
    const std::span<const WeightedPoint> truth(world_.sources());
    const std::span<const WeightedPoint> sent(sent_);
    const FieldError fe = measure_field_error(world_.pellet_field(), truth, sent, probes_);
    double true_pull = 0.0;
    double believed_pull = 0.0;
    for (const Vec2 p : probes_) {
        true_pull += static_cast<double>(world_.pellet_field().at(p, truth).length());
        believed_pull += static_cast<double>(world_.pellet_field().at(p, sent).length());
    }
    FieldProbe& out = lane.probe;
    out.true_pull += true_pull;
    out.believed_pull += believed_pull;
    out.error_pull += fe.relative_error * true_pull;
    for (const WeightedPoint& w : world_.sources()) out.true_weight += static_cast<double>(w.weight);
    for (const WeightedPoint& w : sent_) out.sent_weight += static_cast<double>(w.weight);
}

void BlackholeSim::receive_and_integrate(Lane& lane, float dt) {
    const double now_ms = world_.time_s() * 1000.0;
    for (auto& seat : lane.seats) {
        // Integrate this tick with the field held, then apply what arrived.
        lane.evaluations.add(static_cast<double>(seat->client.integrate(dt)));
        if (seat != lane.seats.front()) {
            seat->client.receive(seat->link.client_end(), now_ms, client_scratch_);
            continue;
        }
        // The drawn client, packet by packet, so its log learns each packet's arrival.
        while (seat->link.client_end().poll(now_ms, client_scratch_.datagram)) {
            const std::uint64_t errors = seat->client.decode_errors();
            const bool applied = seat->client.apply_packet(client_scratch_.datagram, now_ms, client_scratch_);
            if (seat->client.decode_errors() == errors)
                lane.packets.arrived(false, client_scratch_.received.sequence, now_ms, !applied);
        }
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
            const Vec2 eye = world_.holes()[static_cast<std::size_t>(seat->hole)].position;
            const std::vector<Vec2>& held = seat->client.positions();
            const std::vector<Vec2>& truth = world_.pellet_positions();
            for (std::size_t i = 0; i < truth.size(); ++i) {
                if ((truth[i] - eye).length_squared() > radius * radius) continue;
                errors.push_back(distance(held[i], truth[i]));
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
    const std::vector<Hole>& holes = world_.holes();
    for (const Hole& h : holes) alive += h.alive ? 1.0 : 0.0;
    out.push_back({"holes_alive", "", alive});
    out.push_back({"player_mass", "", static_cast<double>(holes.empty() ? 0.0f : holes[0].mass)});
    out.push_back({"swallowed", "", static_cast<double>(world_.swallowed())});
}

std::uint64_t BlackholeSim::checksum() const {
    std::uint64_t h = fold(0, world_.time_s());
    h = fold(h, world_.rng_state());
    for (const Hole& hole : world_.holes()) {
        h = fold(h, static_cast<double>(hole.position.x));
        h = fold(h, static_cast<double>(hole.position.y));
        h = fold(h, static_cast<double>(hole.mass));
    }
    for (const Vec2 p : world_.pellet_positions())
        h = fold(h, static_cast<double>(p.x) * 4096.0 + static_cast<double>(p.y));
    for (const Lane& lane : lanes_) {
        h = fold(h, lane.bytes.total());
        h = fold(h, lane.field_bytes.total());
        for (const auto& seat : lane.seats) {
            for (const Vec2 p : seat->client.positions())
                h = fold(h, static_cast<double>(p.x) * 4096.0 + static_cast<double>(p.y));
        }
    }
    return h;
}

std::span<const MeterInfo> BlackholeSim::glossary() const {
    static constexpr MeterInfo kGlossary[] = {
        {"kib_s", "sent", "bytes per second to this lane's clients now"},
        {"kib_s_lifetime", "sent, session", "bytes per second over the whole run"},
        {"field_kib_s", "field", "bytes per second spent on the holes (the field)"},
        {"field_kib_s_lifetime", "field, session", "field bytes per second over the whole run"},
        {"field_share_pct", "field share", "the field's share of the bytes"},
        {"error_median_px", "median error", "median distance of a client's pellets from the server's"},
        {"error_p90_px", "90th percentile error", "distance under which nine in ten pellets lie"},
        {"error_worst_px", "worst error", "largest distance of a pellet from the server's"},
        {"attractors", "attractors", "holes or stand-ins a client integrates"},
        {"pull_pct", "pull kept", "the client's field as a share of the real pull on its pellets"},
        {"weight_pct", "weight kept", "share of the holes' mass the client's field accounts for"},
        {"field_error_pct", "field error", "relative error of the client's field against the full one"},
        {"force_evals_m_s", "force evaluations", "millions of pellet-attractor force evaluations per second"},
        {"decode_errors", "decode errors", "packets the client refused as malformed"},
        {"holes_alive", "holes alive", "black holes not yet swallowed"},
        {"player_mass", "your mass", "mass of your hole"},
        {"swallowed", "swallowed", "pellets swallowed since the start"},
    };
    return kGlossary;
}

}  // namespace vantage::play
