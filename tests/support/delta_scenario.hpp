// A churning world and one delta-streaming lane over a lossy link: the scenario shared by
// the oracle property test (tests/core/delta_oracle_test.cpp) and the measurement
// (tests/bench/delta_bench.cpp), so the documented table and the asserted property come from
// the same code.
//
// ChurnWorld: entities drift around a square world, die at random and respawn at once into
// recycled slots (new generation); one viewer circles the centre, and an entity is relevant
// while it is inside the viewer's radius, sized so the circle covers a chosen fraction of
// the world. The relevant set therefore churns three ways: movement across the edge, deaths,
// and spawns.
//
// DeltaLane: one subscriber end to end through the library's own pair: a DeltaStream plans
// and encodes each frame and sends it down a LossyLink; a DeltaReceiver<Vec2> decodes and
// applies it and acknowledges up a second LossyLink; the stream decodes the acks. Every byte
// counted is a byte the encoder produced. What the lane adds is the measuring: bytes, the
// server's set per frame (the oracle's truth) and the errors seen.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <span>
#include <utility>
#include <vector>

#include "vantage/delta_stream.hpp"
#include "vantage/lossy_link.hpp"
#include "vantage/random.hpp"
#include "vantage/slot_allocator.hpp"
#include "vantage/vec.hpp"

namespace vantage::scenario {

struct ChurnWorldOptions {
    std::uint64_t seed = 1;
    std::uint32_t entities = 3000;          // alive at all times (a death respawns at once)
    float world_size = 2000.0f;             // side of the square world, units
    float relevant_fraction = 1.0f / 3.0f;  // share of the world inside the viewer's circle
    float deaths_per_sec = 0.1f;            // per entity
    float speed = 60.0f;                    // entity speed, units/s
};

class ChurnWorld {
public:
    explicit ChurnWorld(const ChurnWorldOptions& options) : options_(options), rng_(mix64(options.seed)) {
        radius_ = options_.world_size * std::sqrt(options_.relevant_fraction / 3.14159265f);
        for (std::uint32_t i = 0; i < options_.entities; ++i) spawn();
    }

    void step(float dt_s) {
        time_s_ += dt_s;
        const float half = options_.world_size * 0.5f;
        viewer_ = Vec2{std::cos(time_s_ * 0.2f), std::sin(time_s_ * 0.2f)} * (half * 0.3f);
        const float p_die = options_.deaths_per_sec * dt_s;
        for (std::uint32_t i = 0; i < entities_.size(); ++i) {
            Entity& e = entities_[i];
            if (!e.alive) continue;
            e.position += e.velocity * dt_s;
            if (std::fabs(e.position.x) > half) e.velocity.x = -e.velocity.x;
            if (std::fabs(e.position.y) > half) e.velocity.y = -e.velocity.y;
            if (rng_.chance(p_die)) {
                slots_.free(e.key);
                e.alive = false;
                ++deaths_;
            }
        }
        while (slots_.live_count() < options_.entities) spawn();
    }

    // The viewer's relevant set, ascending packed keys.
    void relevant(std::vector<std::uint64_t>& out) const {
        out.clear();
        const float r2 = radius_ * radius_;
        for (const Entity& e : entities_) {
            if (e.alive && (e.position - viewer_).length_squared() < r2) out.push_back(e.key.encode());
        }
    }
    bool alive(std::uint64_t packed) const {
        const auto key = SlotKey::decode(packed);
        return key && slots_.is_live(*key);
    }
    Vec2 position(std::uint64_t packed) const {
        const auto key = SlotKey::decode(packed);
        return key && key->index < entities_.size() ? entities_[key->index].position : Vec2{};
    }
    std::uint64_t deaths() const { return deaths_; }

private:
    struct Entity {
        SlotKey key;
        Vec2 position;
        Vec2 velocity;
        bool alive = false;
    };
    void spawn() {
        const SlotKey key = slots_.alloc();
        if (key.index >= entities_.size()) entities_.resize(key.index + 1);
        const float half = options_.world_size * 0.5f;
        const float angle = rng_.range(0.0f, 6.2831853f);
        entities_[key.index] = Entity{key, Vec2{rng_.range(-half, half), rng_.range(-half, half)},
                                      Vec2{std::cos(angle), std::sin(angle)} * options_.speed, true};
    }

    ChurnWorldOptions options_;
    XorShift rng_;
    SlotAllocator slots_;
    std::vector<Entity> entities_;
    Vec2 viewer_;
    float radius_ = 0.0f;
    float time_s_ = 0.0f;
    std::uint64_t deaths_ = 0;
};

struct DeltaLaneOptions {
    DeltaStreamOptions stream;       // both ends (positions on by default)
    LossyLinkOptions down;           // server -> client
    LossyLinkOptions up;             // client -> server
    std::size_t truth_frames = 256;  // server sets remembered by sequence, for the oracle
};

class DeltaLane {
public:
    explicit DeltaLane(const DeltaLaneOptions& options)
        : options_(options), stream_(options.stream), receiver_(options.stream), down_(options.down), up_(options.up) {}

    // The server's half of one frame. position_of(packed key) -> Vec2.
    template <class PositionOf>
    void server_send(double now_ms, std::span<const std::uint64_t> keys, PositionOf&& position_of) {
        server_receive(now_ms);
        const StreamStatus status = stream_.frame(
            keys, [&](SlotKey key) { return position_of(key.encode()); }, now_ms, writer_);
        if (status == StreamStatus::Throttled) return;
        if (status == StreamStatus::Refused) {
            ++encode_failures_;
            return;
        }
        bytes_down_ += writer_.size();
        frames_sent_ += 1;
        down_.send(now_ms, writer_.bytes());
        truth_.emplace_back(stream_.last_plan().seq, std::vector<std::uint64_t>(keys.begin(), keys.end()));
        while (truth_.size() > options_.truth_frames) truth_.pop_front();
    }

    // The client's half: apply whatever arrived, then acknowledge once. Each frame's digest
    // is compared when it is the newest applied (the receiver counts "mirror digest
    // mismatches" in mirror().counters().divergences; repair is the server's job).
    void client_receive(double now_ms) {
        bool any = false;
        while (down_.poll(now_ms, packet_)) {
            if (receiver_.apply(packet_) != WireError::Ok) {
                ++decode_errors_;
                continue;
            }
            any = true;
        }
        if (!any) return;
        if (receiver_.write_ack(writer_)) {
            bytes_up_ += writer_.size();
            up_.send(now_ms, writer_.bytes());
        }
    }

    void server_receive(double now_ms) {
        while (up_.poll(now_ms, packet_)) {
            if (stream_.receive_ack(packet_, now_ms) != WireError::Ok) ++decode_errors_;
        }
    }

    // The server's set for the newest frame the mirror applied (nullptr when unknown).
    const std::vector<std::uint64_t>* truth_at_applied() const {
        const auto seq = mirror().applied_seq();
        if (!seq) return nullptr;
        for (auto it = truth_.rbegin(); it != truth_.rend(); ++it) {
            if (it->first == *seq) return &it->second;
        }
        return nullptr;
    }
    void held(std::vector<std::uint64_t>& out) const {
        out.clear();
        mirror().keys(out);
    }

    DeltaStream& stream() { return stream_; }
    const DeltaBaseline& baseline() const { return stream_.baseline(); }
    const DeltaReceiver<Vec2>& receiver() const { return receiver_; }
    const DeltaMirror<Vec2>& mirror() const { return receiver_.mirror(); }
    LossyLink& down() { return down_; }
    LossyLink& up() { return up_; }
    std::uint64_t bytes_down() const { return bytes_down_; }
    std::uint64_t bytes_up() const { return bytes_up_; }
    std::uint64_t frames_sent() const { return frames_sent_; }
    std::uint64_t decode_errors() const { return decode_errors_; }
    std::uint64_t encode_failures() const { return encode_failures_; }
    std::size_t largest_frame() const { return stream_.counters().largest_frame_bytes; }

private:
    DeltaLaneOptions options_;
    DeltaStream stream_;
    DeltaReceiver<Vec2> receiver_;
    LossyLink down_;
    LossyLink up_;
    ByteWriter writer_;
    std::vector<std::uint8_t> packet_;
    std::deque<std::pair<std::uint64_t, std::vector<std::uint64_t>>> truth_;
    std::uint64_t bytes_down_ = 0;
    std::uint64_t bytes_up_ = 0;
    std::uint64_t frames_sent_ = 0;
    std::uint64_t decode_errors_ = 0;
    std::uint64_t encode_failures_ = 0;
};

// Held keys dead on the server (phantoms) and relevant keys not held (missing).
struct Stray {
    std::size_t phantoms = 0;
    std::size_t missing = 0;
};

inline Stray count_stray(const ChurnWorld& world, std::span<const std::uint64_t> relevant,
                         std::span<const std::uint64_t> held) {
    Stray s;
    std::size_t j = 0;
    for (std::uint64_t k : held) {
        if (!world.alive(k)) ++s.phantoms;
    }
    for (std::uint64_t k : relevant) {
        while (j < held.size() && held[j] < k) ++j;
        if (j == held.size() || held[j] != k) ++s.missing;
    }
    return s;
}

// The oracle run: a lossy phase, then the link heals (loss, bursts, reordering and
// duplication off; latency and jitter stay). Shared by the property test and the sweep.
inline constexpr double kOracleFrameMs = 50.0;
inline constexpr int kOracleLossyFrames = 80;
// Heal to convergence, worst case: in-flight stragglers drain (< 200 ms), a stalled
// subscriber waits for its next keepalive (1000 ms) and one round trip (< 300 ms) rebuilds.
inline constexpr int kOracleBoundFrames = 40;
inline constexpr int kOracleCheckedFrames = 20;

struct OracleDraw {
    LossyLinkOptions link;
    bool flow_control = false;
};

inline OracleDraw draw_oracle_conditions(std::uint64_t seed) {
    XorShift rng(mix64(seed));
    OracleDraw d;
    d.link.seed = seed;
    d.link.loss = static_cast<float>(rng.below(10)) * 0.1f;  // 0, 10, ... 90%
    if (rng.chance(0.5f)) {
        d.link.burst_enter = rng.range(0.01f, 0.1f);
        d.link.burst_exit = rng.range(0.1f, 0.5f);
    }
    d.link.latency_ms = rng.range(0.0f, 300.0f);
    d.link.jitter_ms = rng.range(0.0f, 40.0f);
    d.link.reorder = rng.chance(0.5f) ? rng.range(0.0f, 0.3f) : 0.0f;
    d.link.reorder_ms = rng.range(0.0f, 60.0f);
    d.link.duplicate = rng.chance(0.5f) ? rng.range(0.0f, 0.2f) : 0.0f;
    d.flow_control = rng.chance(0.5f);
    return d;
}

inline LossyLinkOptions healed(LossyLinkOptions o) {
    o.loss = 0.0f;
    o.burst_enter = 0.0f;
    o.reorder = 0.0f;
    o.duplicate = 0.0f;
    return o;
}

struct OracleOutcome {
    bool converged = false;
    int converged_after = -1;  // frames after the heal
    std::size_t end_phantoms = 0;
    bool end_equal = false;
    std::uint64_t decode_errors = 0;
    bool lagging = false;                // the mirror's newest frame is older than the link's lag explains
    bool stalled = false;                // flow control still throttles the subscriber at the end
    std::size_t largest_frame = 0;       // bytes
    std::uint64_t encode_failures = 0;   // frames the encoder refused
    std::uint64_t oversize_packets = 0;  // frames the link's MTU dropped
    std::uint64_t spread_frames = 0;     // DeltaBaselineCounters::spread_frames
};

// The oracle's world keeps every position within this of the origin (half its 400-unit side,
// plus one step of overshoot before a bounce), so positions cost at most
// position_bytes_bound(kOracleMaxAbs) bytes.
inline constexpr float kOracleMaxAbs = 400.0f;

// max_frame_bytes: the planner's and the wire's frame limit, and the links' MTU (any larger
// frame is dropped by the link, so a frame that does not fit can never be delivered).
inline OracleOutcome run_oracle(std::uint64_t seed, RecoveryPolicy policy, bool allow_flow_control = true,
                                AckFrontier frontier = DeltaStreamOptions{}.frontier,
                                std::size_t max_frame_bytes = 1200) {
    OracleDraw d = draw_oracle_conditions(seed);
    d.flow_control = d.flow_control && allow_flow_control;
    d.link.mtu_bytes = max_frame_bytes;
    ChurnWorld world({.seed = seed, .entities = 60, .world_size = 400.0f, .deaths_per_sec = 0.4f, .speed = 40.0f});
    LossyLinkOptions up = d.link;
    up.seed = mix64(seed + 1);
    DeltaLane lane({.stream = {.policy = policy,
                               .frontier = frontier,
                               .history = 24,
                               .stalled_after_ms = d.flow_control ? 3000.0 : 0.0,
                               .keepalive_every_ms = 1000.0,
                               .max_frame_bytes = max_frame_bytes,
                               .position_max_abs = kOracleMaxAbs},
                    .down = d.link,
                    .up = up});
    std::vector<std::uint64_t> keys, held;
    OracleOutcome out;
    int equal_since = -1;
    const int total = kOracleLossyFrames + kOracleBoundFrames + kOracleCheckedFrames;
    for (int f = 0; f < total; ++f) {
        const double now = f * kOracleFrameMs;
        if (f == kOracleLossyFrames) {
            lane.down().set_options(healed(d.link));
            lane.up().set_options(healed(up));
        }
        world.step(static_cast<float>(kOracleFrameMs / 1000.0));
        world.relevant(keys);
        lane.server_send(now, keys, [&](std::uint64_t k) { return world.position(k); });
        lane.client_receive(now);
        if (f < kOracleLossyFrames) continue;
        lane.held(held);
        const std::vector<std::uint64_t>* truth = lane.truth_at_applied();
        const bool equal = truth && *truth == held;
        if (!equal) {
            equal_since = -1;
        } else if (equal_since < 0) {
            equal_since = f - kOracleLossyFrames;
        }
    }
    out.converged = equal_since >= 0 && equal_since <= kOracleBoundFrames;
    out.converged_after = equal_since;
    out.end_equal = equal_since >= 0;
    // Held, dead on the server, and not in the set of the frame the client last applied: a
    // phantom older than the link's lag.
    if (const std::vector<std::uint64_t>* truth = lane.truth_at_applied()) {
        for (std::uint64_t k : held) {
            if (!world.alive(k) && !std::binary_search(truth->begin(), truth->end(), k)) ++out.end_phantoms;
        }
        const double lag_frames = (d.link.latency_ms + d.link.jitter_ms) / kOracleFrameMs + 2.0;
        out.lagging = static_cast<double>(lane.baseline().next_seq() - 1 - *lane.mirror().applied_seq()) > lag_frames;
    }
    out.stalled = lane.baseline().stalled(total * kOracleFrameMs);
    out.decode_errors = lane.decode_errors();
    out.largest_frame = lane.largest_frame();
    out.encode_failures = lane.encode_failures();
    out.oversize_packets = lane.down().counters().packets_oversize;
    out.spread_frames = lane.baseline().counters().spread_frames;
    return out;
}

}  // namespace vantage::scenario
