// core/docs/aggregate.md, "Using it each tick (the black-hole pattern)": one tree over the
// holes per send round, one summary walk per client, holes sent exactly and far groups as
// stand-ins, and the same field evaluation for both. Compiled and run by
// tests/core/doc_examples_test.cpp; the text between doc-begin and doc-end is what
// aggregate.md shows (a test checks the copy).
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "vantage/vantage.hpp"

namespace vantage::examples {
namespace {

struct Client {
    Vec2 hole;  // the client's own hole: where it looks from
    std::size_t holes_sent = 0, clusters_sent = 0;
    float weight_sent = 0.0f;
};

}  // namespace

bool aggregate_example() {
    XorShift rng(9);
    std::vector<WeightedPoint> holes;
    for (int i = 0; i < 64; ++i) holes.push_back({rng.range(0.0f, 3000.0f), rng.range(0.0f, 3000.0f), 1.0f});
    std::vector<Client> clients(4);
    for (std::size_t i = 0; i < clients.size(); ++i) clients[i].hole = {holes[i].x, holes[i].y};
    const float kViewRadius = 400.0f;
    const auto send_hole = [](Client& c, std::uint32_t) {
        c.holes_sent += 1;
        c.weight_sent += 1.0f;
    };
    const auto send_cluster = [](Client& c, Vec2, float weight) {
        c.clusters_sent += 1;
        c.weight_sent += weight;
    };
    const std::vector<Vec2> pellets{{1500.0f, 1500.0f}, {200.0f, 2900.0f}};
    std::vector<Vec2> accel(pellets.size());

    // doc-begin: black-hole
    AggregateTree tree;          // kept across ticks: storage is reused
    std::vector<Summary> field;  // kept too: each walk clears and refills it
    const GravityField gravity{.strength = 90000.0f, .softening_sq = 120.0f};

    // once per send round, over the arena's fixed bounds (not the holes' extent)
    tree.build_in(holes, {1500.0f, 1500.0f}, 3000.0f, 10);
    for (Client& c : clients) {
        tree.summarize_around(c.hole, kViewRadius, 1.0f, field);  // or summarize(c.hole, 0.5f, field)
        for (const Summary& s : field) {
            if (s.exact()) {
                send_hole(c, tree.members(s)[0]);
            } else {
                send_cluster(c, s.position(), s.weight);
            }
        }
    }
    // client side (or the server's ghost): one evaluation path for holes and stand-ins,
    // every pellet in one call (gravity.at(pellet, ...) for a single one)
    gravity.at_each(pellets, std::span<const Summary>(field), accel);
    // doc-end: black-hole

    // Every client was told about all the weight, some of it as stand-ins.
    bool ok = accel[0].is_finite() && accel[1].is_finite() && accel[0] != accel[1];
    for (const Client& c : clients) {
        ok = ok && c.holes_sent > 0 && c.clusters_sent > 0 && std::fabs(c.weight_sent - 64.0f) < 1e-3f;
    }
    return ok;
}

}  // namespace vantage::examples
