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
    DeltaStream server;          // one per client: plans against what it acknowledged, encodes
    DeltaReceiver<Vec2> client;  // one per connection: decodes, applies, acknowledges
    const auto key_of = [](std::uint32_t id) { return SlotKey{id, 0}; };
    const auto position_of = [&](SlotKey key) { return world[key.index]; };
    VisibilitySet near;
    ByteWriter frame, ack;  // frame.bytes() and ack.bytes() are the datagrams
    for (int tick = 0; tick < 600; ++tick) {
        const float t = static_cast<float>(std::min(tick, 540)) / 90.0f;  // still for the last 60
        near.clear();
        grid.for_each_in_radius({500.0f + 300.0f * std::cos(t), 500.0f + 300.0f * std::sin(t)}, 150.0f,
                                [&](std::uint32_t id, Vec2) { near.insert(id); });
        if (server.frame(near, key_of, position_of, tick * 50.0, frame) != StreamStatus::Ok) return 1;
        if (tick % 4 == 1) continue;  // lost on the way
        if (client.apply(frame.bytes()) != WireError::Ok) return 1;
        if (client.write_ack(ack)) server.receive_ack(ack.bytes(), tick * 50.0);
    }
    bool same = client.mirror().size() == near.count() && client.agreed();
    near.for_each([&](std::uint32_t id) { same = same && client.mirror().contains(key_of(id)); });
    std::printf("client holds %zu, server relevant %zu, frames lost %llu: %s\n", client.mirror().size(), near.count(),
                static_cast<unsigned long long>(client.mirror().counters().frames_lost), same ? "ok" : "MISMATCH");
    return same && near.count() > 0 && client.mirror().counters().frames_lost > 0 ? 0 : 1;
}
