// AggregateTree: keep the distant contribution, drop only its resolution (Barnes-Hut).
//
// Relevance answers "in the set or out of it", which is right for what a client draws and
// wrong for what it computes with: a black hole a client was not told about still bends
// every pellet it integrates. Aggregation is the third option between everything and
// nothing. A quadtree over weighted points is walked once per viewer; a node whose cell width
// `size` and distance `d` (viewer to the node's weighted centroid) satisfy `size < theta * d`
// is emitted as one Summary at its centroid carrying its total weight, and anything nearer is
// opened. Far crowds collapse to a handful of stand-ins while near points stay exact, so the
// per-viewer output grows roughly with log n instead of n.
//
// Nothing here knows what a weight is (mass, headcount, threat); it must be additive, and a
// distant group must be adequately described by its weighted centroid.
//
// Typical use, once per tick over a fixed arena and once per viewer:
//
//     AggregateTree tree;                 // kept across ticks: its storage is reused
//     std::vector<Summary> field;         // kept too: summarize clears and refills it
//     tree.build_in(holes, {1500.0f, 1500.0f}, 3000.0f, 10);
//     for (const Client& c : clients) {
//         tree.summarize(c.x, c.y, 0.5f, field);
//         for (const Summary& s : field) {
//             if (s.exact()) send_hole(tree.members(s)[0]); else send_cluster(s);
//         }
//     }
//
// Choosing theta (measured by the reference toolkit; core/docs/background.md): below about
// 0.7 is sound; past about 1.0 a criterion measured to the centroid starts accepting cells the
// viewer stands beside, collapsing a quadrant onto one nearby point, which for a simulation is
// worse than culling.
// A drawing (crowd impostors) tolerates 1.5. The right ceiling is a property of the consumer.
// A consumer that computes across a whole view (a client integrating every pellet within
// its view radius) should walk with summarize_around(at, view_radius, theta, out): the
// criterion then holds at the edge of the view too, and in the black-hole setting it is far
// more accurate than summarize at the same number of summaries (core/docs/aggregate.md).
//
// Costs (n points, depth d <= max_depth actually reached, d ~ log4 n for spread points):
//   build / build_in: O(n * d) time, one stable 4-way partition per level; memory reused
//                     across builds: 16 B/point scratch + 4 B/point order + 28 B/node.
//   summarize(_around): O(nodes visited), one forward pass over a preorder node array that
//                     jumps over every accepted subtree; no stack, no allocation of its
//                     own (only `out` grows, and only until its capacity covers the output).
//   members:          O(1), a slice of the order array.
//
// Bad input policy:
//   - A point whose x, y or weight is NaN or infinite is left out: it is in no node, no
//     summary and no member list; skipped() counts them. size() counts what went in.
//   - A non-finite viewpoint or radius, or theta that is NaN or <= 0, opens everything: the
//     exact answer, never a corrupt one.
//   - Weights may be negative. A group whose |total weight| <= FLT_EPSILON (or whose
//     weighted centroid is not representable as a float) sits at its plain centroid.
//   - build_in with a non-finite center or size is misuse, checked in every build
//     (VANTAGE_ASSERT). A size below 1 is raised to 1.
//   - members() of a summary that did not come from this tree's current build is not
//     meaningful; if its range lies outside this tree it returns an empty span.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "vantage/vec.hpp"

namespace vantage {

// One input: a position (world units) and an additive quantity.
struct WeightedPoint {
    float x = 0.0f;
    float y = 0.0f;
    float weight = 0.0f;

    constexpr Vec2 position() const { return {x, y}; }
    // Position and weight all finite: what a tree bins and a GravityField sums; anything else
    // is skipped by both, so an exact field and a summarized one see the same set.
    constexpr bool is_finite() const { return all_finite(x, y, weight); }
};

// What a walk emits: one input point (count == 1, nothing approximated) or a stand-in for a
// group. The members are recoverable through AggregateTree::members while the tree is not
// rebuilt.
struct Summary {
    // The weighted centroid, where the group acts from (world units).
    float x = 0.0f;
    float y = 0.0f;
    // The group's total weight.
    float weight = 0.0f;
    // How many inputs this stands for (>= 1 for anything a walk emits).
    std::uint32_t count = 0;
    // Width of the cell the group came from (world units): how coarse the stand-in is.
    float size = 0.0f;

    constexpr Vec2 position() const { return {x, y}; }
    // An exact member rather than a stand-in: the caller can send the real entity.
    constexpr bool exact() const { return count == 1; }
    constexpr WeightedPoint as_point() const { return {x, y, weight}; }

private:
    friend class AggregateTree;
    std::uint32_t start_ = 0;  // first index of the members in the tree's order array
};

class AggregateTree {
public:
    // Deeper than this, float cells stop halving meaningfully for any world that fits a
    // float; max_depth outside [0, kMaxDepth] is misuse (checked in every build).
    static constexpr int kMaxDepth = 32;

    // Replaces the contents with a tree over `points` in a square root cell fitted to their
    // extent (side = max(span_x, span_y, 1), centred on the bounding box).
    //
    // `max_depth` bounds subdivision, which is what terminates coincident points: a leaf at
    // the limit holds several points and is summarized as a group, which is right, since
    // points that close are indistinguishable at any useful distance.
    void build(std::span<const WeightedPoint> points, int max_depth);

    // Replaces the contents with a tree over a fixed root cell (`center`, side `size`, world
    // units). Prefer this whenever the world has known bounds and the tree is rebuilt every
    // tick: a fitted cell moves with the extent, so one point wandering outward re-centres
    // the whole subdivision and clusters re-form for reasons unrelated to their members (a
    // consumer integrating the summaries sees the field twitch). With a fixed cell a cluster
    // changes only when its members move.
    //
    // Points outside the cell are still included, in the quadrant they fall toward at every
    // level; the tree stays correct and merely stops being balanced.
    void build_in(std::span<const WeightedPoint> points, Vec2 center, float size, int max_depth);

    // Walks from `at` and replaces `out` with the coarsest set of summaries that satisfies
    // the opening angle: a node is accepted when size < theta * distance to its weighted
    // centroid; a leaf is always accepted. theta <= 0 accepts only leaves and so returns
    // every input exactly, through this same code path (the off switch). The criterion is
    // evaluated in double precision, without a square root.
    //
    // Output order is the tree's preorder: members of consecutive summaries are consecutive
    // runs of one order array. Weight and count are conserved at every theta.
    void summarize(Vec2 at, float theta, std::vector<Summary>& out) const;

    // The same walk for a viewer who computes over a whole disc (every pellet within
    // `radius` of `at`, world units), not at one point: a node is accepted only when
    // size < theta * (d - radius), so the criterion holds as seen from anywhere in the disc.
    // A point-viewer walk is accurate at the viewer and degrades toward the disc's edge,
    // where a cell that looked far from the centre may be close; this one does not, for more
    // summaries. radius 0 is exactly summarize(). A negative radius is misuse (checked
    // in every build); a NaN radius opens everything.
    void summarize_around(Vec2 at, float radius, float theta, std::vector<Summary>& out) const;

    // The original input indices a summary stands for (into the span given to the build).
    std::span<const std::uint32_t> members(const Summary& summary) const;

    // Points in the tree (inputs minus skipped ones).
    std::size_t size() const { return order_.size(); }
    bool empty() const { return order_.empty(); }
    // Inputs left out because a coordinate or the weight was not finite.
    std::size_t skipped() const { return skipped_; }

    // The root cell actually used (fitted or fixed), for drawing and diagnostics.
    Vec2 root_center() const { return root_center_; }
    float root_size() const { return root_size_; }
    std::size_t node_count() const { return nodes_.size(); }
    // Heap bytes held for reuse by the next build; stable across builds of a similar size.
    std::size_t capacity_bytes() const;

private:
    // 28 bytes, stored in preorder: a node's subtree is [index, index + skip), its first
    // child (if any) is index + 1, and skip == 1 exactly when it is a leaf.
    struct Node {
        float x;
        float y;
        float weight;
        float size;
        std::uint32_t start;
        std::uint32_t count;
        std::uint32_t skip;
    };
    struct Record {
        float x;
        float y;
        float weight;
        std::uint32_t index;
    };
    struct Sums;

    void walk(Vec2 at, float radius, float theta, std::vector<Summary>& out) const;
    void build_cell(std::span<const WeightedPoint> points, double center_x, double center_y, double size,
                    int max_depth);
    Sums build_node(std::uint32_t begin, std::uint32_t end, float cx, float cy, float size, int depth, int max_depth);

    std::vector<Node> nodes_;
    std::vector<std::uint32_t> order_;
    std::vector<Record> records_;  // build scratch, kept for reuse
    std::vector<Record> spare_;    // build scratch for the stable partition
    std::size_t skipped_ = 0;
    Vec2 root_center_{};
    float root_size_ = 0.0f;
};

}  // namespace vantage
