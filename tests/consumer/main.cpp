// Streams the entities near a moving viewer to one client through the wire format, losing
// every fourth frame, and exits non-zero unless the client ends up holding the server's set.
#include <vantage/vantage.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

int main() {
    using namespace vantage;
    XorShift rng(7);
    std::vector<Vec2> world(2000);  // entity i lives in slot i (generation 0)
    for (Vec2& p : world) p = {rng.range(0.0f, 1000.0f), rng.range(0.0f, 1000.0f)};
    SpatialGrid grid({.extent = {1000.0f, 1000.0f}, .cell_size = 50.0f});
    grid.build(world);
    DeltaBaseline server({.frontier = AckFrontier::AnyReceived});  // one per client
    DeltaMirror<Vec2> client;
    std::vector<std::uint32_t> near;
    std::vector<std::uint64_t> keys;
    std::vector<Vec2> spawned;
    DeltaPlan plan;
    DeltaFrame frame;
    ByteWriter wire;
    for (int tick = 0; tick < 600; ++tick) {
        const float t = static_cast<float>(std::min(tick, 540)) / 90.0f;  // still for the last 60
        near.clear();
        grid.query_radius({500.0f + 300.0f * std::cos(t), 500.0f + 300.0f * std::sin(t)}, 150.0f, near);
        keys.clear();
        for (std::uint32_t id : near) keys.push_back(SlotKey{id, 0}.encode());
        std::sort(keys.begin(), keys.end());  // plan() takes ascending keys
        server.plan(keys, plan);
        spawned.clear();
        for (std::uint64_t k : plan.entered) spawned.push_back(world[SlotKey::decode(k)->index]);
        wire.clear();
        encode_delta_frame(wire, plan, spawned);  // wire.bytes() is the datagram
        if (tick % 4 == 1) continue;              // lost on the way
        if (decode_delta_frame(wire.bytes(), frame) != WireError::Ok) return 1;
        client.apply(frame.plan, [&](std::size_t i, SlotKey) { return frame.entered_positions[i]; });
        if (const auto ack = client.ack_report()) server.observe_ack(*ack);  // on the wire: encode_ack
    }
    const bool same = client.size() == keys.size() && client.digest() == SetDigest::from_keys(keys).digest();
    std::printf("client holds %zu, server relevant %zu, frames lost %llu: %s\n", client.size(), keys.size(),
                static_cast<unsigned long long>(client.counters().frames_lost), same ? "ok" : "MISMATCH");
    return same && !keys.empty() && client.counters().frames_lost > 0 ? 0 : 1;
}
