// core/docs/relevance.md, "The per-client view, every tick": one client's relevant set from a
// SpatialGrid query each tick, and the spawn / despawn stream between ticks. Compiled and run
// by tests/core/doc_examples_test.cpp; the text between doc-begin and doc-end is what
// relevance.md shows (a test checks the copy).
#include <cstdint>
#include <vector>

#include "vantage/vantage.hpp"

namespace vantage::examples {

bool relevance_example() {
    XorShift rng(3);
    std::vector<std::uint32_t> ids;
    std::vector<Vec2> positions;
    for (std::uint32_t i = 0; i < 3000; ++i) {
        ids.push_back(i);
        positions.push_back({rng.range(0.0f, 3000.0f), rng.range(0.0f, 3000.0f)});
    }
    VisibilitySet previous, current;
    std::vector<std::uint32_t> entered, left;
    const float view_radius = 300.0f;
    std::size_t spawns = 0, despawns = 0;

    // doc-begin: per-client
    SpatialGrid grid({.origin = {0, 0}, .extent = {3000, 3000}, .cell_size = 256});
    for (int tick = 0; tick < 100; ++tick) {
        const Vec2 eye{1000.0f + 10.0f * static_cast<float>(tick), 1500.0f};
        // once per tick, after motion:
        grid.build(ids, positions);  // three linear passes, no allocation when steady
        // once per client:
        previous.swap(current);
        current.clear();
        grid.for_each_in_radius(eye, view_radius, [&](std::uint32_t id, Vec2) { current.insert(id); });
        entered.clear();
        left.clear();
        current.diff(previous, entered, left);  // appends the spawn / despawn stream, ascending
        spawns += entered.size();
        despawns += left.size();
    }
    // doc-end: per-client

    // Every tick's changes summed give the final set (all spawned, some despawned again).
    return current.count() > 0 && spawns == current.count() + despawns && despawns > 0;
}

}  // namespace vantage::examples
