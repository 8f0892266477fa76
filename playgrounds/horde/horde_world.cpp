#include "horde/horde_world.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "common/simulation.hpp"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace vantage::play {

using namespace horde;

namespace {

Vec2 clamp_to_arena(Vec2 p) {
    return {std::clamp(p.x, 0.0f, kArena), std::clamp(p.y, 0.0f, kArena)};
}

// A uniform point in the disc of radius r (rejection from the square: no trigonometry, so
// native and wasm agree bit for bit).
Vec2 in_disc(XorShift& rng, float r) {
    for (;;) {
        const Vec2 p{rng.range(-1.0f, 1.0f), rng.range(-1.0f, 1.0f)};
        if (p.length_squared() <= 1.0f) return p * r;
    }
}

}  // namespace

const char* HordeWorldOptions::validate() const {
    if (enemies < 200 || enemies > 8000) return "enemies must be in [200, 8000]";
    if (players < 1 || players > 128) return "players must be in [1, 128]";
    return nullptr;
}

Vec2 chase_offset(std::uint64_t packed_key) {
    const std::uint64_t h = mix64(packed_key ^ 0x686f726465ULL);
    Vec2 dir{static_cast<float>(h & 0xffffu) / 32767.5f - 1.0f,
             static_cast<float>((h >> 16) & 0xffffu) / 32767.5f - 1.0f};
    const float len = dir.length();
    dir = len > 1e-3f ? dir / len : Vec2{1.0f, 0.0f};
    const float radius = 30.0f + static_cast<float>((h >> 32) & 0xffu) * (60.0f / 255.0f);
    return dir * radius;
}

Vec2 chase_step(Vec2 position, std::uint64_t packed_key, Vec2 target, float dt_s) {
    return chase_toward(position, target + chase_offset(packed_key), dt_s);
}

// Four players at a time where the target has 128-bit SIMD: each lane keeps its own
// strict minimum and the first index that reached it, then the lanes are merged (a tie goes
// to the lower index) and the last few players run the scalar rule. The same float
// operations in the same order as the scalar rule, so the same index, bit for bit
// (NearestPlayer.IsTheScalarScanOnEveryKindOfInput). The server predicts and each client
// catches up every correction with it: 15% of the largest horde tick in wasm was this scan.
std::uint32_t nearest_player(Vec2 p, std::span<const Vec2> players) {
    const auto n = static_cast<std::uint32_t>(players.size());
    std::uint32_t best = 0;
    float best_d2 = INFINITY;
    std::uint32_t i = 0;
#if defined(__wasm_simd128__) || defined(__SSE2__)
    if (n >= 4) {
        float lane_d2[4];
        std::uint32_t lane_index[4];
        const float* xy = &players.data()->x;
#if defined(__wasm_simd128__)
        const v128_t px = wasm_f32x4_splat(p.x), py = wasm_f32x4_splat(p.y);
        v128_t min_d2 = wasm_f32x4_splat(INFINITY), min_index = wasm_i32x4_splat(0);
        v128_t index = wasm_i32x4_make(0, 1, 2, 3);
        for (; i + 4 <= n; i += 4) {
            const v128_t a = wasm_v128_load(xy + 2 * i), b = wasm_v128_load(xy + 2 * i + 4);
            const v128_t dx = wasm_f32x4_sub(wasm_i32x4_shuffle(a, b, 0, 2, 4, 6), px);
            const v128_t dy = wasm_f32x4_sub(wasm_i32x4_shuffle(a, b, 1, 3, 5, 7), py);
            const v128_t d2 = wasm_f32x4_add(wasm_f32x4_mul(dx, dx), wasm_f32x4_mul(dy, dy));
            const v128_t closer = wasm_f32x4_lt(d2, min_d2);
            min_d2 = wasm_f32x4_pmin(min_d2, d2);  // d2 < min_d2 ? d2 : min_d2, per lane
            min_index = wasm_v128_bitselect(index, min_index, closer);
            index = wasm_i32x4_add(index, wasm_i32x4_splat(4));
        }
        wasm_v128_store(lane_d2, min_d2);
        wasm_v128_store(lane_index, min_index);
#else
        const __m128 px = _mm_set1_ps(p.x), py = _mm_set1_ps(p.y);
        __m128 min_d2 = _mm_set1_ps(INFINITY);
        __m128i min_index = _mm_setzero_si128();
        __m128i index = _mm_setr_epi32(0, 1, 2, 3);
        for (; i + 4 <= n; i += 4) {
            const __m128 a = _mm_loadu_ps(xy + 2 * i), b = _mm_loadu_ps(xy + 2 * i + 4);
            const __m128 dx = _mm_sub_ps(_mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)), px);
            const __m128 dy = _mm_sub_ps(_mm_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1)), py);
            const __m128 d2 = _mm_add_ps(_mm_mul_ps(dx, dx), _mm_mul_ps(dy, dy));
            const __m128 closer = _mm_cmplt_ps(d2, min_d2);
            min_d2 = _mm_min_ps(d2, min_d2);  // d2 < min_d2 ? d2 : min_d2, per lane
            const __m128i take = _mm_castps_si128(closer);
            min_index = _mm_or_si128(_mm_and_si128(take, index), _mm_andnot_si128(take, min_index));
            index = _mm_add_epi32(index, _mm_set1_epi32(4));
        }
        _mm_storeu_ps(lane_d2, min_d2);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(lane_index), min_index);
#endif
        for (int lane = 0; lane < 4; ++lane) {
            // A lane that never found a finite distance keeps index 0, like the scalar rule.
            if (lane_d2[lane] < best_d2 ||
                (lane_d2[lane] == best_d2 && best_d2 < INFINITY && lane_index[lane] < best)) {
                best_d2 = lane_d2[lane];
                best = lane_index[lane];
            }
        }
    }
#endif
    for (; i < n; ++i) {
        const float d2 = (players[i] - p).length_squared();
        if (d2 < best_d2) {
            best_d2 = d2;
            best = i;
        }
    }
    return best;
}

HordeWorld::HordeWorld(const HordeWorldOptions& options)
    : options_(options),
      rng_(mix64(options.seed ^ 0x776f726c64ULL)),
      bot_rng_(mix64(options.seed ^ 0x626f7473ULL)),
      grid_({.origin = {0.0f, 0.0f}, .extent = {kArena, kArena}, .cell_size = kCellSize}) {
    assert(options_.validate() == nullptr && "HordeWorldOptions out of range");
    options_.enemies = std::clamp(options_.enemies, 200, 8000);
    options_.players = std::clamp(options_.players, 1, 128);
    place_players();
    enemies_.reserve(static_cast<std::size_t>(options_.enemies));
    slots_.reserve(static_cast<std::size_t>(options_.enemies));
    while (slots_.live_count() < static_cast<std::size_t>(options_.enemies)) spawn();
    rebuild_grid();
}

void HordeWorld::steer(std::size_t player, Vec2 direction, bool autopilot) {
    if (player >= steering_.size()) return;
    const bool finite = std::isfinite(direction.x) && std::isfinite(direction.y);
    steering_[player] = Steering{finite ? direction : Vec2{}, autopilot};
}

void HordeWorld::place_players() {
    const int n = options_.players;
    const int cols = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(n))));
    const int rows = (n + cols - 1) / cols;
    players_.assign(static_cast<std::size_t>(n), Player{});
    player_positions_.assign(static_cast<std::size_t>(n), Vec2{});
    steering_.assign(static_cast<std::size_t>(n), Steering{});
    for (int i = 0; i < n; ++i) {
        Player& p = players_[static_cast<std::size_t>(i)];
        if (options_.spread) {
            p.home = {(static_cast<float>(i % cols) + 0.5f) * kArena / static_cast<float>(cols),
                      (static_cast<float>(i / cols) + 0.5f) * kArena / static_cast<float>(rows)};
        } else {
            p.home = Vec2{kArena * 0.5f, kArena * 0.5f} + in_disc(bot_rng_, 60.0f);
        }
        p.position = p.home;
        p.waypoint = p.home;
        p.next_fire = kFireInterval * static_cast<double>(i) / n;
        p.next_nova = kNovaInterval * static_cast<double>(i + 1) / n;
        player_positions_[static_cast<std::size_t>(i)] = p.position;
    }
}

Vec2 HordeWorld::spawn_point() {
    // Most of a wave arrives just outside some player's view and walks in; the rest anywhere,
    // so the world beyond every view stays populated.
    if (rng_.chance(0.7f)) {
        const Vec2 around = players_[static_cast<std::size_t>(rng_.below(players_.size()))].position;
        const Vec2 dir = in_disc(rng_, 1.0f);
        const float len = dir.length();
        const Vec2 unit = len > 1e-3f ? dir / len : Vec2{1.0f, 0.0f};
        return clamp_to_arena(around + unit * rng_.range(500.0f, 1000.0f));
    }
    return {rng_.range(0.0f, kArena), rng_.range(0.0f, kArena)};
}

void HordeWorld::spawn() {
    const SlotKey key = slots_.alloc();
    if (key.index >= enemies_.size()) enemies_.resize(key.index + 1);
    Enemy& e = enemies_[key.index];
    e.key = key.encode();
    e.offset = chase_offset(e.key);
    e.position = spawn_point();
    e.target = nearest_player(e.position, player_positions_);
    e.health = kEnemyHealth;
    e.alive = true;
    ++spawns_;
}

void HordeWorld::kill(std::uint32_t index) {
    Enemy& e = enemies_[index];
    if (!e.alive) return;
    const auto key = SlotKey::decode(e.key);
    if (key) slots_.free(*key);
    e.alive = false;
    e.death_key = e.key;
    e.death_position = e.position;
    e.has_death = true;
    ++kills_;
}

bool HordeWorld::death_position(std::uint64_t packed_key, Vec2& out) const {
    const auto key = SlotKey::decode(packed_key);
    if (!key || key->index >= enemies_.size()) return false;
    const Enemy& e = enemies_[key->index];
    if (!e.has_death || e.death_key != packed_key) return false;
    out = e.death_position;
    return true;
}

void HordeWorld::step(double dt_s) {
    const float dt = static_cast<float>(dt_s);
    time_s_ += dt_s;
    ++tick_;
    if (options_.combat) fight(dt);
    move_players(dt);
    move_enemies(dt);
    rebuild_grid();
}

void HordeWorld::move_players(float dt) {
    const float wander = options_.spread ? 380.0f : 140.0f;
    for (std::size_t i = 0; i < players_.size(); ++i) {
        Player& p = players_[i];
        Vec2 dir;
        const Steering& steering = steering_[i];
        if (!steering.autopilot) {
            dir = steering.direction.length_squared() > 0.0f ? steering.direction.normalize() : Vec2{};
        } else {
            Vec2 to = p.waypoint - p.position;
            if (to.length_squared() < 100.0f) {
                p.waypoint = clamp_to_arena(p.home + in_disc(bot_rng_, wander));
                to = p.waypoint - p.position;
            }
            const float len = to.length();
            dir = len > 1e-3f ? to / len : Vec2{};
        }
        p.position = clamp_to_arena(p.position + dir * (kPlayerSpeed * dt));
        player_positions_[i] = p.position;
    }
}

void HordeWorld::move_enemies(float dt) {
    const std::uint64_t phase = tick_ % static_cast<std::uint64_t>(kRetargetTicks);
    for (std::uint32_t i = 0; i < enemies_.size(); ++i) {
        Enemy& e = enemies_[i];
        if (!e.alive) continue;
        if (i % static_cast<std::uint32_t>(kRetargetTicks) == phase || e.target >= player_positions_.size()) {
            e.target = nearest_player(e.position, player_positions_);
        }
        e.position = chase_toward(e.position, player_positions_[e.target] + e.offset, dt);
    }
}

void HordeWorld::fight(float dt) {
    // Positions here are the grid's, from the end of the previous tick (one tick stale, under
    // a unit): every hit re-checks that its enemy is still alive.
    for (Player& p : players_) {
        if (time_s_ >= p.next_fire) {
            p.next_fire += kFireInterval;
            if (const auto hit = grid_.nearest(p.position, kFireRange); hit && enemies_[hit->id].alive) {
                const Vec2 to = enemies_[hit->id].position - p.position;
                const float len = to.length();
                const Vec2 dir = len > 1e-3f ? to / len : Vec2{1.0f, 0.0f};
                shots_.push_back({p.position, dir * kShotSpeed, time_s_ + kShotTtl});
            }
        }
        if (time_s_ >= p.next_nova) {
            p.next_nova += kNovaInterval;
            p.nova_at = time_s_;
            scratch_ids_.clear();
            grid_.query_radius(p.position, kNovaRadius, scratch_ids_);
            std::uint32_t killed = 0;
            for (std::uint32_t id : scratch_ids_) {
                if (!enemies_[id].alive) continue;
                enemies_[id].health -= 3;
                if (enemies_[id].health <= 0) {
                    kill(id);
                    ++killed;
                }
            }
            last_nova_kills_ = killed;
            biggest_nova_kills_ = std::max(biggest_nova_kills_, killed);
        }
        if (time_s_ >= p.invulnerable_until) {
            scratch_ids_.clear();
            grid_.query_radius(p.position, kContactRadius, scratch_ids_);
            const bool touched = std::any_of(scratch_ids_.begin(), scratch_ids_.end(),
                                             [&](std::uint32_t id) { return enemies_[id].alive; });
            if (touched) {
                p.health -= kContactDamage;
                p.invulnerable_until = time_s_ + kHitInvulnerable;
                if (p.health <= 0) {
                    p.health = kPlayerHealth;
                    p.invulnerable_until = time_s_ + kDeathInvulnerable;
                    ++p.deaths;
                }
            }
        }
    }
    std::size_t kept = 0;
    for (std::size_t s = 0; s < shots_.size(); ++s) {
        Shot shot = shots_[s];
        if (time_s_ >= shot.expires) continue;
        shot.position += shot.velocity * dt;
        scratch_ids_.clear();
        grid_.query_radius(shot.position, kShotHitRadius, scratch_ids_);
        std::sort(scratch_ids_.begin(), scratch_ids_.end());
        bool hit = false;
        for (std::uint32_t id : scratch_ids_) {
            if (!enemies_[id].alive) continue;
            if (--enemies_[id].health <= 0) kill(id);
            hit = true;
            break;
        }
        if (!hit) shots_[kept++] = shot;
    }
    shots_.resize(kept);
    if (time_s_ >= next_wave_) {
        next_wave_ += kWaveInterval;
        while (slots_.live_count() < static_cast<std::size_t>(options_.enemies)) spawn();
    }
}

void HordeWorld::rebuild_grid() {
    alive_ids_.clear();
    alive_positions_.clear();
    for (std::uint32_t i = 0; i < enemies_.size(); ++i) {
        if (!enemies_[i].alive) continue;
        alive_ids_.push_back(i);
        alive_positions_.push_back(enemies_[i].position);
    }
    grid_.build(alive_ids_, alive_positions_);
}

std::uint64_t HordeWorld::checksum() const {
    std::uint64_t h = fold(0, time_s_);
    h = fold(h, tick_);
    h = fold(h, kills_);
    h = fold(h, spawns_);
    h = fold(h, rng_.state());
    h = fold(h, bot_rng_.state());
    for (std::size_t i = 0; i < alive_ids_.size(); ++i) {
        h = fold(h, enemies_[alive_ids_[i]].key);
        h = fold(h, static_cast<double>(alive_positions_[i].x));
        h = fold(h, static_cast<double>(alive_positions_[i].y));
    }
    for (const Player& p : players_) {
        h = fold(h, static_cast<double>(p.position.x));
        h = fold(h, static_cast<double>(p.position.y));
        h = fold(h, static_cast<std::uint64_t>(p.health));
    }
    return h;
}

}  // namespace vantage::play
