#include "proximity/proximity_sim.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "common/settings_schema.hpp"
#include "vantage/morton.hpp"
#include "vantage/proximity.hpp"

namespace vantage::play {
namespace {

constexpr double kMs = 1000.0;

const SettingsSchema<ProximitySettings>& proximity_schema() {
    static const SettingsSchema<ProximitySettings> schema = [] {
        using S = ProximitySettings;
        SettingsSchema<S> d;
        d.integer("creatures", &S::creatures,
                  {.label = "creatures",
                   .min = 200,
                   .max = 1000000,
                   .help = "creatures in the world (rebuilds)",
                   .restart = true});
        d.real("world", &S::world,
               {.label = "world side",
                .unit = "units",
                .min = 200,
                .max = 40000,
                .help = "side of the square world: smaller is denser (rebuilds)",
                .restart = true});
        d.flag("grow_world", &S::grow_world,
               {.label = "grow the world",
                .help = "the side grows with sqrt(creatures / 1000): density held (rebuilds)",
                .restart = true});
        d.real("radius", &S::radius,
               {.label = "radius",
                .unit = "units",
                .min = 4,
                .max = 128,
                .help = "the query radius, also the grids' cell size (rebuilds)",
                .restart = true});
        // Not "speed": that is the clock's (Host), and a link carries both.
        d.real("creature_speed", &S::speed,
               {.label = "creature speed", .unit = "units/s", .min = 0, .max = 400, .help = "how fast creatures move"});
        d.real("moving_pct", &S::moving_pct,
               {.label = "moving",
                .unit = "%",
                .min = 0,
                .max = 100,
                .help = "share of the creatures that move at all (the rest stand still)",
                .restart = true});
        d.flag("clustered", &S::clustered, {.label = "clustered", .help = "creatures crowd around drifting centres"});
        d.integer(
            "clusters", &S::clusters,
            {.label = "clusters", .min = 1, .max = 32, .help = "drifting centres (clustered motion)", .restart = true});
        d.real("spread", &S::spread,
               {.label = "spread",
                .unit = "units",
                .min = 5,
                .max = 2000,
                .help = "how far a creature strays from its centre (clustered motion)"});
        d.flag("cohesion", &S::cohesion,
               {.label = "cohesion", .help = "every creature steers toward the pack's centre"});
        d.flag("pack_leader", &S::pack_leader,
               {.label = "pack leader",
                .help = "the centre as one centroid pass (O(N)); off: every creature averages "
                        "all the others (O(N^2), up to the brute-force cap)"});
        d.flag("hash", &S::hash, {.label = "hash grid lane", .help = "run the bolt-on hash grid"});
        d.flag("crosslink", &S::crosslink,
               {.label = "CrossLink lane", .help = "run the cross-linked lists (rebuilds)", .restart = true});
        d.flag("nearby", &S::nearby,
               {.label = "NearbyDetector lane", .help = "run the nearby detector (rebuilds)", .restart = true});
        d.flag("brute", &S::brute, {.label = "brute-force lane", .help = "run all pairs (up to the cap)"});
        d.integer("brute_cap", &S::brute_cap,
                  {.label = "brute-force cap",
                   .min = 100,
                   .max = 20000,
                   .help = "all pairs (lane and cohesion) run only up to this many creatures"});
        d.flag("representative", &S::representative,
               {.label = "nearest lane", .help = "nearest creature to each food point: exact and one per cell"});
        return d;
    }();
    return schema;
}

const char* lane_name(ProximityLaneKind kind) {
    switch (kind) {
        case ProximityLaneKind::Dense:
            return "dense";
        case ProximityLaneKind::Hash:
            return "hash";
        case ProximityLaneKind::CrossLink:
            return "crosslink";
        case ProximityLaneKind::Nearby:
            return "nearby";
        case ProximityLaneKind::Brute:
            return "brute";
    }
    return "?";
}

Vec2 clamp_length(Vec2 v, float max_len) {
    const float len2 = v.length_squared();
    if (len2 <= max_len * max_len || len2 <= 0.0f) return v;
    return v * (max_len / std::sqrt(len2));
}

// One neighbour's contribution to a creature's order-free digest.
std::uint64_t tag(std::uint32_t id) {
    return mix64(static_cast<std::uint64_t>(id) + 0x9e3779b97f4a7c15ULL);
}

NearbyDetector::Box point_box(Vec2 p) {
    return {p, p};
}

}  // namespace

std::string ProximitySettings::validate() const {
    return proximity_schema().validate(*this);
}

float ProximitySettings::world_side() const {
    const double side = grow_world ? world * std::sqrt(static_cast<double>(creatures) / 1000.0) : world;
    return static_cast<float>(side);
}

ProximitySim::ProximitySim() {
    proximity_schema().bind(settings_, params_);
    for (const ProximityLaneKind k : {ProximityLaneKind::Dense, ProximityLaneKind::Hash, ProximityLaneKind::CrossLink,
                                      ProximityLaneKind::Nearby, ProximityLaneKind::Brute}) {
        Lane lane;
        lane.kind = k;
        lane.name = lane_name(k);
        lanes_.push_back(std::move(lane));
    }
}

bool ProximitySim::param_enabled(std::string_view name) const {
    if (name == "clusters" || name == "spread") return settings_.clustered;
    if (name == "pack_leader") return settings_.cohesion;
    return true;
}

void ProximitySim::reset(std::uint64_t seed) {
    assert(settings_.validate().empty() && "ProximitySim: settings out of range (see validate())");
    rng_ = XorShift(mix64(seed ^ 0x70726f78696d6974ULL));
    time_s_ = 0.0;
    build_world();
}

void ProximitySim::build_world() {
    const auto n = static_cast<std::size_t>(settings_.creatures);
    radius_ = static_cast<float>(settings_.radius);
    // At least a few cells per axis, at most 65535 (the hash grid's key) and SpatialGrid's cap.
    side_ = std::clamp(settings_.world_side(), 4.0f * radius_, 8192.0f * radius_);
    pos_.resize(n);
    vel_.resize(n);
    moves_.resize(n);
    const auto speed = static_cast<float>(settings_.speed);
    for (std::size_t i = 0; i < n; ++i) {
        pos_[i] = {rng_.range(0.0f, side_), rng_.range(0.0f, side_)};
        vel_[i] = {rng_.range(-speed, speed), rng_.range(-speed, speed)};
        // A fixed subset moves: mix64 of the index, so "5% moving" is the same 5% every tick.
        moves_[i] = static_cast<double>(mix64(i + 1) % 10000u) < settings_.moving_pct * 100.0 ? 1 : 0;
    }
    centres_.resize(static_cast<std::size_t>(settings_.clusters));
    centre_vel_.resize(centres_.size());
    for (std::size_t c = 0; c < centres_.size(); ++c) {
        centres_[c] = {rng_.range(0.2f * side_, 0.8f * side_), rng_.range(0.2f * side_, 0.8f * side_)};
        centre_vel_[c] = {rng_.range(-20.0f, 20.0f), rng_.range(-20.0f, 20.0f)};
    }
    if (settings_.clustered) {
        // Clustered worlds start crowded: each creature near its centre.
        const auto spread = static_cast<float>(settings_.spread);
        for (std::size_t i = 0; i < n; ++i) {
            const Vec2 c = centres_[i % centres_.size()];
            pos_[i] = {std::clamp(c.x + rng_.range(-spread, spread), 0.0f, std::nextafter(side_, 0.0f)),
                       std::clamp(c.y + rng_.range(-spread, spread), 0.0f, std::nextafter(side_, 0.0f))};
        }
    }
    food_.resize(std::max<std::size_t>(1, n / 10));
    for (Vec2& f : food_) f = {rng_.range(0.0f, side_), rng_.range(0.0f, side_)};
    pack_centre_ = {side_ * 0.5f, side_ * 0.5f};

    grid_ = std::make_unique<SpatialGrid>(
        SpatialGridOptions{.origin = {0.0f, 0.0f}, .extent = {side_, side_}, .cell_size = radius_});
    // The hash grid's cells a hair wider than r, so the 3x3 block always covers the radius.
    hash_.reset(side_, radius_ * 1.001f);

    crosslink_.reset();
    if (settings_.crosslink) {
        crosslink_ = std::make_unique<CrossLink>(
            CrossLinkOptions{.id_limit = static_cast<std::uint32_t>(std::max<std::size_t>(n, 1))});
        // Inserting in Morton order, each next to the one before, keeps every list walk short
        // (add() from the head would be O(n) each, O(n^2) in all).
        scratch_.resize(n);
        for (std::size_t i = 0; i < n; ++i) scratch_[i] = static_cast<std::uint32_t>(i);
        const float to_cell = 65535.0f / side_;
        auto key = [&](std::uint32_t i) {
            return morton2_encode32(static_cast<std::uint16_t>(pos_[i].x * to_cell),
                                    static_cast<std::uint16_t>(pos_[i].y * to_cell));
        };
        std::sort(scratch_.begin(), scratch_.end(), [&](std::uint32_t a, std::uint32_t b) {
            const std::uint32_t ka = key(a);
            const std::uint32_t kb = key(b);
            return ka != kb ? ka < kb : a < b;
        });
        for (std::size_t k = 0; k < n; ++k) {
            if (k == 0) {
                crosslink_->add(scratch_[k], pos_[scratch_[k]]);
            } else {
                crosslink_->add_near(scratch_[k], pos_[scratch_[k]], scratch_[k - 1]);
            }
        }
        for (std::uint32_t w = 0; w < kWatchers && w < n; ++w) crosslink_->watch(w, radius_, 0.0f);
        crosslink_->clear_events();
    }
    detector_.reset();
    if (settings_.nearby) {
        // Points as zero-size boxes; enter = leave = r, so "nearby" is the square |dx|, |dy| <= r
        // without hysteresis, and the lane filters it to the circle.
        detector_ = std::make_unique<NearbyDetector>(
            NearbyOptions{.enter_margin = radius_,
                          .leave_margin = radius_,
                          .min_cell = radius_,
                          .max_coordinate = side_ * 2.0f + 1.0f,
                          .max_ids = static_cast<std::uint32_t>(std::max<std::size_t>(n, 1))});
        for (std::size_t i = 0; i < n; ++i) detector_->insert(static_cast<std::uint32_t>(i), point_box(pos_[i]));
        detector_->clear_events();
    }

    for (Lane& lane : lanes_) {
        lane.count.assign(n, 0);
        lane.digest.assign(n, 0);
        for (VisibilitySet& s : lane.view) {
            s = VisibilitySet(static_cast<std::uint32_t>(n));
        }
        for (VisibilitySet& s : lane.previous) s = VisibilitySet(static_cast<std::uint32_t>(n));
        for (Reading* r : lane.readings()) r->reset();
        lane.raw_events = 0;
    }
    for (Reading* r : nearest_.readings()) r->reset();
    pack_ops_.reset();
    pack_other_ops_.reset();
    pack_diff_.reset();
    exact_hits_.resize(food_.size());
    exact_found_.resize(food_.size());
    rep_hits_.resize(food_.size());
    entered_.reserve(n);
    left_.reserve(n);
    sorted_x_.resize(n);
    sorted_y_.resize(n);
    scratch_.clear();
    scratch_.reserve(n);
}

void ProximitySim::pack_centre_pass() {
    const std::size_t n = pos_.size();
    // The centroid: one pass, every creature then reads it.
    double sx = 0.0;
    double sy = 0.0;
    for (const Vec2 p : pos_) {
        sx += static_cast<double>(p.x);
        sy += static_cast<double>(p.y);
    }
    const Vec2 centroid{static_cast<float>(sx / static_cast<double>(n)),
                        static_cast<float>(sy / static_cast<double>(n))};
    const double centroid_ops = static_cast<double>(2 * n);
    const bool all_pairs = !settings_.pack_leader && n <= static_cast<std::size_t>(settings_.brute_cap) && n > 1;
    const double pairs_ops = static_cast<double>(n) * static_cast<double>(n - 1);
    if (!all_pairs) {
        pack_centre_ = centroid;
        pack_ops_.add(centroid_ops);
        pack_other_ops_.add(pairs_ops);
        pack_diff_.add(0.0);
        return;
    }
    // All-pairs cohesion: each creature averages every other one (what the pack leader
    // replaces). Each creature's target differs from the centroid only by its own share.
    double worst = 0.0;
    Vec2 mean_target{};
    for (std::size_t i = 0; i < n; ++i) {
        double ax = 0.0;
        double ay = 0.0;
        for (std::size_t j = 0; j < n; ++j) {
            if (j == i) continue;
            ax += static_cast<double>(pos_[j].x);
            ay += static_cast<double>(pos_[j].y);
        }
        const double inv = 1.0 / static_cast<double>(n - 1);
        const Vec2 target{static_cast<float>(ax * inv), static_cast<float>(ay * inv)};
        worst = std::max(worst, static_cast<double>(std::sqrt((target - centroid).length_squared())));
        if (i == 0) mean_target = target;
    }
    pack_centre_ = mean_target;
    pack_ops_.add(pairs_ops);
    pack_other_ops_.add(centroid_ops);
    pack_diff_.add(worst);
}

void ProximitySim::step_motion(float dt) {
    PhaseScope phase(profiler_, "motion");
    if (settings_.cohesion) pack_centre_pass();
    const auto speed = static_cast<float>(settings_.speed);
    const auto spread = static_cast<float>(settings_.spread);
    for (std::size_t c = 0; c < centres_.size(); ++c) {
        Vec2& p = centres_[c];
        Vec2& v = centre_vel_[c];
        p = p + v * dt;
        if (p.x < 0.15f * side_ || p.x > 0.85f * side_) v.x = -v.x;
        if (p.y < 0.15f * side_ || p.y > 0.85f * side_) v.y = -v.y;
    }
    const float jitter = speed * 2.0f * dt;
    for (std::size_t i = 0; i < pos_.size(); ++i) {
        if (!moves_[i]) continue;
        Vec2 v = vel_[i] + Vec2{rng_.range(-jitter, jitter), rng_.range(-jitter, jitter)};
        if (settings_.clustered) {
            const Vec2 to = centres_[i % centres_.size()] - pos_[i];
            // A spring toward the centre, weak inside `spread` and strong beyond it.
            const float k = to.length_squared() > spread * spread ? 1.5f : 0.2f;
            v = v + to * (k * dt);
        }
        if (settings_.cohesion) v = v + (pack_centre_ - pos_[i]) * (0.3f * dt);
        v = clamp_length(v, speed);
        Vec2 p = pos_[i] + v * dt;
        if (p.x < 0.0f) {
            p.x = -p.x;
            v.x = -v.x;
        }
        if (p.y < 0.0f) {
            p.y = -p.y;
            v.y = -v.y;
        }
        if (p.x >= side_) {
            p.x = 2.0f * side_ - p.x - 0.001f;
            v.x = -v.x;
        }
        if (p.y >= side_) {
            p.y = 2.0f * side_ - p.y - 0.001f;
            v.y = -v.y;
        }
        pos_[i] = {std::clamp(p.x, 0.0f, std::nextafter(side_, 0.0f)),
                   std::clamp(p.y, 0.0f, std::nextafter(side_, 0.0f))};
        vel_[i] = v;
    }
}

void ProximitySim::run_dense(Lane& lane) {
    PhaseScope phase(profiler_, "dense");
    grid_->build(pos_);
    const std::uint64_t build_ops = pos_.size() + grid_->cell_count();
    std::uint64_t ops = build_ops;
    for (std::size_t i = 0; i < pos_.size(); ++i) {
        const auto self = static_cast<std::uint32_t>(i);
        std::uint32_t count = 0;
        std::uint64_t digest = 0;
        ops += grid_->candidate_count(pos_[i], radius_);
        grid_->for_each_in_radius(pos_[i], radius_, [&](std::uint32_t id, Vec2) {
            if (id == self) return;
            ++count;
            digest += tag(id);
            if (i < kWatchers) lane.view[i].insert(id);
        });
        lane.count[i] = count;
        lane.digest[i] = digest;
    }
    lane.ops.add(static_cast<double>(ops));
    lane.build_ops.add(static_cast<double>(build_ops));
}

void ProximitySim::run_hash(Lane& lane) {
    PhaseScope phase(profiler_, "hash");
    const std::uint64_t build_ops = hash_.build(pos_);
    std::uint64_t ops = build_ops;
    for (std::size_t i = 0; i < pos_.size(); ++i) {
        const auto self = static_cast<std::uint32_t>(i);
        std::uint32_t count = 0;
        std::uint64_t digest = 0;
        ops += hash_.for_each_in_radius(pos_, pos_[i], radius_, [&](std::uint32_t id) {
            if (id == self) return;
            ++count;
            digest += tag(id);
            if (i < kWatchers) lane.view[i].insert(id);
        });
        lane.count[i] = count;
        lane.digest[i] = digest;
    }
    lane.ops.add(static_cast<double>(ops));
    lane.build_ops.add(static_cast<double>(build_ops));
}

// The walk CrossLink's query makes for creature i: its x band plus its y band (what
// neighbors_in_radius steps through), counted from the sorted coordinates.
std::uint64_t ProximitySim::band_ops(std::uint32_t i) const {
    const float reach = search_reach(radius_);
    auto band = [reach](const std::vector<float>& sorted, float v) {
        const auto lo = std::lower_bound(sorted.begin(), sorted.end(), v - reach);
        const auto hi = std::upper_bound(sorted.begin(), sorted.end(), v + reach);
        return static_cast<std::uint64_t>(hi - lo);
    };
    return band(sorted_x_, pos_[i].x) + band(sorted_y_, pos_[i].y);
}

void ProximitySim::run_crosslink(Lane& lane) {
    {
        PhaseScope phase(profiler_, "crosslink");
        crosslink_->clear_events();
        for (std::size_t i = 0; i < pos_.size(); ++i) {
            if (moves_[i]) crosslink_->move(static_cast<std::uint32_t>(i), pos_[i]);
        }
        for (std::size_t i = 0; i < pos_.size(); ++i) {
            scratch_.clear();
            crosslink_->neighbors_in_radius(static_cast<std::uint32_t>(i), radius_, scratch_);
            std::uint64_t digest = 0;
            for (const std::uint32_t id : scratch_) digest += tag(id);
            lane.count[i] = static_cast<std::uint32_t>(scratch_.size());
            lane.digest[i] = digest;
        }
        for (std::uint32_t w = 0; w < kWatchers && w < pos_.size(); ++w) {
            for (const std::uint32_t id : crosslink_->view(w)) lane.view[w].insert(id);
        }
    }
    // Its operation count (outside its timed phase): the band walks of every query.
    for (std::size_t i = 0; i < pos_.size(); ++i) {
        sorted_x_[i] = pos_[i].x;
        sorted_y_[i] = pos_[i].y;
    }
    std::sort(sorted_x_.begin(), sorted_x_.end());
    std::sort(sorted_y_.begin(), sorted_y_.end());
    std::uint64_t ops = 0;
    for (std::size_t i = 0; i < pos_.size(); ++i) ops += band_ops(static_cast<std::uint32_t>(i));
    lane.ops.add(static_cast<double>(ops));
    lane.build_ops.add(0.0);  // its list walks on moves are not counted (see the README)
}

void ProximitySim::run_nearby(Lane& lane) {
    PhaseScope phase(profiler_, "nearby");
    // The detector's own transitions (square neighbourhoods, every pair in the world).
    detector_->clear_events();
    const std::uint64_t before = detector_->counters().operations;
    std::uint64_t changes = 0;
    std::uint64_t change_ops = 0;
    for (std::size_t i = 0; i < pos_.size(); ++i) {
        if (!moves_[i]) continue;
        const std::uint64_t ops_before = detector_->counters().operations;
        const std::uint64_t changes_before = detector_->counters().node_changes;
        detector_->update(static_cast<std::uint32_t>(i), point_box(pos_[i]));
        if (detector_->counters().node_changes != changes_before) {
            ++changes;
            change_ops += detector_->counters().operations - ops_before;
        }
    }
    lane.node_changes.add(static_cast<double>(changes));
    lane.node_change_ops.add(static_cast<double>(change_ops));
    const std::uint64_t build_ops = detector_->counters().operations - before;
    std::uint64_t ops = build_ops;
    for (std::size_t i = 0; i < pos_.size(); ++i) {
        std::uint32_t count = 0;
        std::uint64_t digest = 0;
        for (const std::uint32_t id : detector_->neighbors(static_cast<std::uint32_t>(i))) {
            ++ops;
            if (!within_radius(pos_[id], pos_[i], radius_)) continue;
            ++count;
            digest += tag(id);
            if (i < kWatchers) lane.view[i].insert(id);
        }
        lane.count[i] = count;
        lane.digest[i] = digest;
    }
    lane.raw_events = detector_->events().size();
    lane.ops.add(static_cast<double>(ops));
    lane.build_ops.add(static_cast<double>(build_ops));
}

void ProximitySim::run_brute(Lane& lane) {
    PhaseScope phase(profiler_, "brute");
    const std::size_t n = pos_.size();
    for (std::size_t i = 0; i < n; ++i) {
        std::uint32_t count = 0;
        std::uint64_t digest = 0;
        for (std::size_t j = 0; j < n; ++j) {
            if (j == i || !within_radius(pos_[j], pos_[i], radius_)) continue;
            ++count;
            digest += tag(static_cast<std::uint32_t>(j));
            if (i < kWatchers) lane.view[i].insert(static_cast<std::uint32_t>(j));
        }
        lane.count[i] = count;
        lane.digest[i] = digest;
    }
    lane.ops.add(static_cast<double>(n) * static_cast<double>(n - 1));
    lane.build_ops.add(0.0);
}

void ProximitySim::run_nearest() {
    // Reads the dense bin built this tick (run_dense always runs first).
    std::uint64_t exact_ops = 0;
    std::uint64_t rep_ops = 0;
    {
        PhaseScope phase(profiler_, "exact nearest");
        for (std::size_t k = 0; k < food_.size(); ++k) {
            exact_ops += grid_->candidate_count(food_[k], radius_);
            const std::optional<NearestHit> exact = grid_->nearest(food_[k], radius_);
            exact_found_[k] = exact ? 1 : 0;
            if (exact) exact_hits_[k] = *exact;
        }
    }
    {
        PhaseScope phase(profiler_, "representative");
        for (std::size_t k = 0; k < food_.size(); ++k) {
            const CellWindow w = grid_->window(food_[k], radius_);
            if (w.valid) rep_ops += std::uint64_t{w.column_max - w.column_min + 1} * (w.row_max - w.row_min + 1);
            rep_hits_[k] = grid_->nearest_representative(food_[k], radius_).value_or(NearestHit{0, -1.0f});
        }
    }
    // The comparison is measurement, outside both timed phases.
    std::uint64_t answered = 0;
    std::uint64_t mismatched = 0;
    double error_sum = 0.0;
    double worst = 0.0;
    const double cell = static_cast<double>(radius_);
    for (std::size_t k = 0; k < food_.size(); ++k) {
        if (!exact_found_[k]) continue;
        ++answered;
        const NearestHit rep = rep_hits_[k];
        assert(rep.distance >= 0.0f && "a representative exists wherever the exact query found a creature");
        if (rep.id != exact_hits_[k].id) ++mismatched;
        const double extra =
            std::max(0.0, static_cast<double>(rep.distance) - static_cast<double>(exact_hits_[k].distance)) / cell;
        error_sum += extra;
        worst = std::max(worst, extra);
    }
    nearest_.exact_ops.add(static_cast<double>(exact_ops));
    nearest_.rep_ops.add(static_cast<double>(rep_ops));
    nearest_.answered.add(static_cast<double>(answered));
    nearest_.mismatch_pct.add(answered ? 100.0 * static_cast<double>(mismatched) / static_cast<double>(answered) : 0.0);
    nearest_.error_cells.add(answered ? error_sum / static_cast<double>(answered) : 0.0);
    nearest_.worst_cells.add(worst);
}

void ProximitySim::finish_lane(Lane& lane) {
    // Events: each watcher's view against the last tick's (CrossLink reports its own).
    std::uint64_t events = 0;
    std::uint64_t disagree = 0;
    const Lane& reference = lanes_.front();
    std::uint64_t pairs = 0;
    for (std::size_t i = 0; i < pos_.size(); ++i) {
        pairs += lane.count[i];
        if (lane.count[i] != reference.count[i] || lane.digest[i] != reference.digest[i]) ++disagree;
    }
    for (std::uint32_t w = 0; w < kWatchers && w < pos_.size(); ++w) {
        entered_.clear();
        left_.clear();
        lane.view[w].diff(lane.previous[w], entered_, left_);
        events += entered_.size() + left_.size();
        if (!(lane.view[w] == reference.view[w])) ++disagree;
    }
    if (lane.kind == ProximityLaneKind::CrossLink) {
        std::uint64_t own = 0;
        for (const AoiEvent& e : crosslink_->events()) own += e.watcher < kWatchers ? 1 : 0;
        lane.raw_events = own;
    }
    lane.events.add(static_cast<double>(events));
    lane.disagree.add(static_cast<double>(disagree));
    lane.pairs.add(static_cast<double>(pairs));
}

void ProximitySim::step(double dt_s) {
    const auto dt = static_cast<float>(dt_s);
    step_motion(dt);
    const std::size_t n = pos_.size();
    for (Lane& lane : lanes_) {
        switch (lane.kind) {
            case ProximityLaneKind::Dense:
                lane.active = true;
                break;
            case ProximityLaneKind::Hash:
                lane.active = settings_.hash;
                break;
            case ProximityLaneKind::CrossLink:
                lane.active = crosslink_ != nullptr;
                break;
            case ProximityLaneKind::Nearby:
                lane.active = detector_ != nullptr;
                break;
            case ProximityLaneKind::Brute:
                lane.active = settings_.brute && n <= static_cast<std::size_t>(settings_.brute_cap);
                break;
        }
        if (!lane.active) continue;
        for (std::uint32_t w = 0; w < kWatchers; ++w) {
            lane.previous[w].swap(lane.view[w]);
            lane.view[w].clear();
        }
        switch (lane.kind) {
            case ProximityLaneKind::Dense:
                run_dense(lane);
                break;
            case ProximityLaneKind::Hash:
                run_hash(lane);
                break;
            case ProximityLaneKind::CrossLink:
                run_crosslink(lane);
                break;
            case ProximityLaneKind::Nearby:
                run_nearby(lane);
                break;
            case ProximityLaneKind::Brute:
                run_brute(lane);
                break;
        }
    }
    if (settings_.representative) run_nearest();
    {
        PhaseScope phase(profiler_, "check");
        for (Lane& lane : lanes_) {
            if (lane.active) finish_lane(lane);
        }
    }
    time_s_ += dt_s;
    const double now_ms = time_s_ * kMs;
    for (Lane& lane : lanes_) {
        for (Reading* r : lane.readings()) r->elapsed(now_ms);
    }
    for (Reading* r : nearest_.readings()) r->elapsed(now_ms);
    pack_ops_.elapsed(now_ms);
    pack_other_ops_.elapsed(now_ms);
    pack_diff_.elapsed(now_ms);
}

void ProximitySim::begin_measurement() {
    for (Lane& lane : lanes_) {
        for (Reading* r : lane.readings()) r->begin_measurement();
    }
    for (Reading* r : nearest_.readings()) r->begin_measurement();
    pack_ops_.begin_measurement();
    pack_other_ops_.begin_measurement();
    pack_diff_.begin_measurement();
}

void ProximitySim::meters(std::vector<Meter>& out) const {
    const double n = static_cast<double>(pos_.size());
    for (const Lane& lane : lanes_) {
        const std::string p = lane.name + ".";
        out.push_back({p + "active", "", lane.active ? 1.0 : 0.0});
        out.push_back({p + "ops", "ops/tick", lane.ops.window_mean()});
        out.push_back({p + "ops_per_creature", "ops", n > 0 ? lane.ops.window_mean() / n : 0.0});
        out.push_back({p + "build_ops", "ops/tick", lane.build_ops.window_mean()});
        out.push_back({p + "events", "/tick", lane.events.window_mean()});
        out.push_back({p + "raw_events", "/tick", static_cast<double>(lane.raw_events)});
        out.push_back({p + "disagree", "", lane.disagree.run_max()});
        out.push_back({p + "pairs", "", lane.pairs.last()});
    }
    out.push_back({"nearest.exact_ops", "ops/tick", nearest_.exact_ops.window_mean()});
    out.push_back({"nearest.rep_ops", "ops/tick", nearest_.rep_ops.window_mean()});
    const double queries = static_cast<double>(food_.size());
    out.push_back({"nearest.exact_ops_per_query", "ops", nearest_.exact_ops.window_mean() / queries});
    out.push_back({"nearest.rep_ops_per_query", "ops", nearest_.rep_ops.window_mean() / queries});
    out.push_back({"nearest.mismatch_pct", "%", nearest_.mismatch_pct.window_mean()});
    out.push_back({"nearest.error_cells", "cells", nearest_.error_cells.window_mean()});
    out.push_back({"nearest.worst_cells", "cells", nearest_.worst_cells.run_max()});
    out.push_back({"nearest.answered", "", nearest_.answered.last()});
    out.push_back({"pack.ops", "ops/tick", pack_ops_.window_mean()});
    out.push_back({"pack.other_ops", "ops/tick", pack_other_ops_.window_mean()});
    out.push_back({"pack.diff", "units", pack_diff_.run_max()});
    out.push_back({"creatures", "", n});
    out.push_back({"world_side", "units", static_cast<double>(side_)});
    out.push_back({"density", "per cell",
                   n * static_cast<double>(radius_) * static_cast<double>(radius_) /
                       (static_cast<double>(side_) * static_cast<double>(side_))});
}

std::uint64_t ProximitySim::checksum() const {
    std::uint64_t h = fold(0, time_s_);
    h = fold(h, rng_.state());
    for (const Vec2 p : pos_) h = fold(h, static_cast<double>(p.x) * 65536.0 + static_cast<double>(p.y));
    for (const Lane& lane : lanes_) {
        h = fold(h, lane.ops.total());
        h = fold(h, lane.events.total());
        h = fold(h, lane.disagree.total());
        h = fold(h, lane.pairs.total());
    }
    for (const std::uint64_t d : lanes_.front().digest) h = fold(h, d);
    h = fold(h, nearest_.exact_ops.total());
    h = fold(h, nearest_.error_cells.total());
    h = fold(h, pack_ops_.total());
    return h;
}

std::span<const MeterInfo> ProximitySim::glossary() const {
    static constexpr MeterInfo kGlossary[] = {
        {"active", "running", "1 while this lane runs"},
        {"ops", "operations", "work per tick: cells, links and pairs visited"},
        {"ops_per_creature", "per creature", "operations per creature per tick"},
        {"build_ops", "upkeep", "operations per tick spent building or maintaining the structure"},
        {"events", "events", "start and stop nearby events per tick"},
        {"raw_events", "raw events", "events before duplicates are merged, per tick"},
        {"disagree", "disagree", "pairs this lane's answer differs from brute force on"},
        {"pairs", "pairs", "creature pairs within the radius"},
        {"exact_ops", "exact work", "operations per tick of the exact nearest query"},
        {"rep_ops", "representative work", "operations per tick of the one-per-cell query"},
        {"exact_ops_per_query", "exact per query", "creatures the exact nearest query reads, per query"},
        {"rep_ops_per_query", "representative per query", "cells the representative query reads, per query"},
        {"mismatch_pct", "different answer", "share of queries the representative answers with another creature"},
        {"error_cells", "mean extra distance", "how much further the representative's answer is, in cells"},
        {"worst_cells", "worst extra distance", "the largest extra distance, in cells"},
        {"answered", "answered", "food points that found a creature"},
        {"other_ops", "centroid pass", "operations of the one-pass centroid"},
        {"diff", "centroid difference", "distance between the two ways of computing the pack's centre"},
        {"creatures", "creatures", "creatures in the world"},
        {"world_side", "world side", "side of the square world"},
        {"density", "density", "creatures per grid cell"},
    };
    return kGlossary;
}

}  // namespace vantage::play
