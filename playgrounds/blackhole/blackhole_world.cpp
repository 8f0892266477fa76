#include "blackhole/blackhole_world.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace vantage::play {
namespace {

constexpr double kScriptStep = 0.03;    // the circling script: angle per tick, radians
constexpr float kCoreFraction = 0.22f;  // pellets are swallowed within this fraction of the radius

// Rounds to a fixed binary grid so that a last-ulp difference between platforms' log, sin
// and cos (glibc against Emscripten's musl) cannot reach the simulation.
float snap(double v, double steps) {
    return static_cast<float>(std::round(v * steps) / steps);
}

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

}  // namespace

const char* BlackholeWorldOptions::validate() const {
    if (holes < 2 || holes > static_cast<int>(kMaxHoles)) return "holes must be from 2 to 64";
    if (pellets < 1 || pellets > 65536) return "pellets must be from 1 to 65536";
    return nullptr;
}

float BlackholeWorld::effective_mass(float mass) {
    // The reference game's uncapped curve (core/docs/background.md); snapped so every
    // platform's log agrees.
    return snap(400.0 * std::log1p(static_cast<double>(std::max(mass, 0.0f)) / 400.0), 1024.0);
}

float BlackholeWorld::hole_radius(const Hole& h) {
    return 6.0f + 2.4f * std::sqrt(effective_mass(h.mass));
}

BlackholeWorld::BlackholeWorld(const BlackholeWorldOptions& options)
    : rng_(mix64(options.seed ^ 0x626c61636b686f6cULL)) {
    const auto hole_count = static_cast<std::size_t>(std::clamp(options.holes, 2, static_cast<int>(kMaxHoles)));
    holes_.assign(hole_count, Hole{});
    controls_.assign(hole_count, HoleControl{});
    for (Hole& h : holes_) {
        h.position = {rng_.range(200.0f, 2800.0f), rng_.range(200.0f, 2800.0f)};
        h.target = {rng_.range(150.0f, 2850.0f), rng_.range(150.0f, 2850.0f)};
        h.retarget_at_s = rng_.range(3.0f, 9.0f);
    }
    for (std::size_t i = 0; i < holes_.size(); ++i) {
        sources_.push_back({holes_[i].position.x, holes_[i].position.y, effective_mass(holes_[i].mass)});
        source_ids_.push_back(static_cast<std::uint8_t>(i));
    }
    const auto pellet_count = static_cast<std::size_t>(std::clamp(options.pellets, 1, 65536));
    pellet_pos_.resize(pellet_count);
    pellet_vel_.resize(pellet_count);
    respawned_.assign(pellet_count, 0);
    for (std::size_t i = 0; i < pellet_count; ++i) {
        pellet_pos_[i] = {rng_.range(0.0f, kArenaSize), rng_.range(0.0f, kArenaSize)};
        pellet_vel_[i] = {rng_.range(-20.0f, 20.0f), rng_.range(-20.0f, 20.0f)};
    }
}

void BlackholeWorld::control(std::size_t hole, Control control, Vec2 direction) {
    if (hole >= controls_.size()) return;
    if (!std::isfinite(direction.x) || !std::isfinite(direction.y)) direction = {};
    controls_[hole] = {control, clamp_length(direction, 1.0f)};
}

void BlackholeWorld::step(double dt_s) {
    const auto dt = static_cast<float>(dt_s);
    time_s_ += dt_s;
    step_holes(dt);
    step_pellets(dt);
}

void BlackholeWorld::clear_respawned() {
    for (const std::uint16_t id : respawn_list_) respawned_[id] = 0;
    respawn_list_.clear();
}

void BlackholeWorld::step_holes(float dt) {
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
        switch (controls_[i].control) {
            case Control::Circle:
                script_angle_ += kScriptStep;
                input = {snap(std::cos(script_angle_), 65536.0), snap(std::sin(script_angle_), 65536.0)};
                break;
            case Control::Steered:
                input = controls_[i].direction;
                break;
            case Control::Waypoints:
                if (time_s_ >= h.retarget_at_s || (h.target - h.position).length_squared() < 60.0f * 60.0f) {
                    h.target = {rng_.range(150.0f, 2850.0f), rng_.range(150.0f, 2850.0f)};
                    h.retarget_at_s = time_s_ + rng_.range(3.0f, 9.0f);
                }
                input = direction_to(h.position, h.target);
                break;
        }
        // sources_ still holds last tick's holes, so every hole reacts to the same snapshot
        // (a hole's own entry sits on it and pulls nothing, thanks to the softening).
        const Vec2 pull =
            clamp_length(hole_field_.at(h.position, std::span<const WeightedPoint>(sources_)), kHolePullCap);
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

void BlackholeWorld::respawn_pellet(std::size_t i) {
    pellet_pos_[i] = {rng_.range(0.0f, kArenaSize), rng_.range(0.0f, kArenaSize)};
    pellet_vel_[i] = {rng_.range(-20.0f, 20.0f), rng_.range(-20.0f, 20.0f)};
    if (!respawned_[i]) {
        respawned_[i] = 1;
        respawn_list_.push_back(static_cast<std::uint16_t>(i));
    }
}

void BlackholeWorld::step_pellets(float dt) {
    const std::span<const WeightedPoint> sources(sources_);
    std::array<float, kMaxHoles> reach2{};
    for (std::size_t s = 0; s < sources_.size(); ++s) {
        const float r = kCoreFraction * hole_radius(holes_[source_ids_[s]]);
        reach2[s] = r * r;
    }
    // Every pellet's pull first, in one call: a pellet's field depends only on its own
    // position and the sources, neither of which the loop below changes for the pellets
    // after it.
    pellet_pull_.resize(pellet_pos_.size());
    pellet_field_.at_each(pellet_pos_, sources, pellet_pull_);
    for (std::size_t i = 0; i < pellet_pos_.size(); ++i) {
        // Semi-implicit Euler, the same step every client takes with what it was sent.
        pellet_vel_[i] += pellet_pull_[i] * dt;
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

}  // namespace vantage::play
