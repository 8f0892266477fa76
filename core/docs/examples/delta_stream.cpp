// core/docs/delta.md, "Using it (one subscriber)": the relevant set of one viewer, from a
// SpatialGrid query into a VisibilitySet, streamed by a DeltaStream to a DeltaReceiver over a
// lossy link both ways. Compiled and run by tests/core/doc_examples_test.cpp; the text between
// the doc-begin and doc-end lines is what delta.md shows (a test checks the copy).
#include <cmath>
#include <cstdint>
#include <vector>

#include "vantage/vantage.hpp"

namespace vantage::examples {
namespace {

// A churning world: entities drift, and each tick a few die and their slot's next occupant
// (a new generation) appears elsewhere.
struct World {
    std::vector<Vec2> positions;
    std::vector<SlotKey> keys;  // the occupant of each slot
    XorShift rng{5};

    explicit World(std::uint32_t n) {
        for (std::uint32_t i = 0; i < n; ++i) {
            positions.push_back({rng.range(0.0f, 1000.0f), rng.range(0.0f, 1000.0f)});
            keys.push_back({i, 0});
        }
    }
    void step(int tick) {
        if (tick >= 500) return;  // still for the last frames, so the ends can be compared
        for (Vec2& p : positions) p = {std::fmod(p.x + 2.0f, 1000.0f), p.y};
        for (int d = 0; d < 3; ++d) {
            const auto i = static_cast<std::uint32_t>(rng.below(keys.size()));
            keys[i].generation = static_cast<std::uint16_t>(keys[i].generation + 1);
            positions[i] = {rng.range(0.0f, 1000.0f), rng.range(0.0f, 1000.0f)};
        }
    }
};

}  // namespace

bool delta_stream_example() {
    World world(2000);
    SpatialGrid grid({.extent = {1000.0f, 1000.0f}, .cell_size = 100.0f});
    LossyLink downlink({.seed = 1, .latency_ms = 40.0, .jitter_ms = 10.0, .loss = 0.1f});
    LossyLink uplink({.seed = 2, .latency_ms = 40.0, .jitter_ms = 10.0, .loss = 0.1f});
    const Vec2 eye{500.0f, 500.0f};
    std::size_t spawned = 0;  // what the client's game would create and destroy
    std::size_t despawned = 0;

    // doc-begin: delta-stream
    // Both ends take the same options: the frame limit (1,200 bytes by default), the position
    // resolution, and a bound on coordinates so frames are planned to fit.
    const DeltaStreamOptions options{.stalled_after_ms = 3000.0, .position_max_abs = 1000.0f};
    DeltaStream stream(options);            // server: one per subscriber (reset() for a new client)
    DeltaReceiver<Vec2> receiver(options);  // client: one per connection
    VisibilitySet visible;
    ByteWriter frame, ack;  // reused: a steady stream allocates nothing
    std::vector<std::uint8_t> packet;
    const auto key_of = [&](std::uint32_t id) { return world.keys[id]; };  // slot id's occupant
    const auto position_of = [&](SlotKey key) { return world.positions[key.index]; };

    for (int tick = 0; tick < 600; ++tick) {
        const double now_ms = tick * 50.0;
        world.step(tick);
        grid.build(world.positions);

        // Server, every send tick: acknowledgements first (bad bytes are counted and ignored),
        // then this subscriber's relevant set as relevance produces it, then one frame.
        while (uplink.poll(now_ms, packet)) stream.receive_ack(packet, now_ms);
        visible.clear();
        grid.for_each_in_radius(eye, 200.0f, [&](std::uint32_t id, Vec2) { visible.insert(id); });
        if (stream.frame(visible, key_of, position_of, now_ms, frame) == StreamStatus::Ok)
            downlink.send(now_ms, frame.bytes());

        // Client, every tick: apply what arrived (a bad frame is refused and changes nothing),
        // react to what each frame changed, and acknowledge.
        while (downlink.poll(now_ms, packet)) {
            if (receiver.apply(packet) != WireError::Ok) continue;
            spawned += receiver.entered().size();  // each with its position in receiver.mirror()
            despawned += receiver.left().size();
        }
        if (receiver.write_ack(ack)) uplink.send(now_ms, ack.bytes());
    }
    // doc-end: delta-stream

    // The client holds exactly the server's last relevant set, with every entity's spawn
    // position, although a tenth of the packets each way were lost.
    std::size_t held = 0;
    bool same = receiver.mirror().size() == visible.count() && despawned > 0 && spawned > despawned;
    visible.for_each([&](std::uint32_t id) {
        const Vec2* p = receiver.mirror().get(world.keys[id]);
        same = same && p != nullptr;
        held += p != nullptr ? 1 : 0;
    });
    return same && held > 0 && receiver.agreed() && receiver.mirror().counters().frames_lost > 0;
}

}  // namespace vantage::examples
