#include "vantage/aggregate_tree.hpp"

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <limits>

#include "vantage/assert.hpp"

namespace vantage {
namespace {

// Quadrant code: bit 0 is x >= cx, bit 1 is y >= cy (the reference toolkit's convention,
// core/docs/background.md, so a point on a dividing line belongs to the upper side).
unsigned quadrant(float x, float y, float cx, float cy) {
    return (x >= cx ? 1u : 0u) | (y >= cy ? 2u : 0u);
}

int clamp_depth(int max_depth) {
    VANTAGE_ASSERT(max_depth >= 0 && max_depth <= AggregateTree::kMaxDepth,
                   "AggregateTree: max_depth must be in [0, kMaxDepth]");
    return std::clamp(max_depth, 0, AggregateTree::kMaxDepth);
}

}  // namespace

// Accumulated in double so a million members neither lose the small ones nor depend much
// on summation order; stored as float in the node.
struct AggregateTree::Sums {
    double weight = 0.0;
    double weighted_x = 0.0;
    double weighted_y = 0.0;
    double plain_x = 0.0;
    double plain_y = 0.0;

    void add(const Record& r) {
        weight += r.weight;
        weighted_x += static_cast<double>(r.x) * r.weight;
        weighted_y += static_cast<double>(r.y) * r.weight;
        plain_x += r.x;
        plain_y += r.y;
    }
    void add(const Sums& o) {
        weight += o.weight;
        weighted_x += o.weighted_x;
        weighted_y += o.weighted_y;
        plain_x += o.plain_x;
        plain_y += o.plain_y;
    }
};

void AggregateTree::build(std::span<const WeightedPoint> points, int max_depth) {
    double min_x = std::numeric_limits<double>::infinity();
    double min_y = min_x;
    double max_x = -min_x;
    double max_y = -min_x;
    for (const WeightedPoint& p : points) {
        if (!p.is_finite()) continue;
        min_x = std::min(min_x, static_cast<double>(p.x));
        min_y = std::min(min_y, static_cast<double>(p.y));
        max_x = std::max(max_x, static_cast<double>(p.x));
        max_y = std::max(max_y, static_cast<double>(p.y));
    }
    if (!(min_x <= max_x)) {
        // Nothing finite: an empty tree (build_cell still records what was skipped).
        build_cell(points, 0.0, 0.0, 1.0, max_depth);
        return;
    }
    const double size = std::max({max_x - min_x, max_y - min_y, 1.0});
    build_cell(points, (min_x + max_x) * 0.5, (min_y + max_y) * 0.5, size, max_depth);
}

void AggregateTree::build_in(std::span<const WeightedPoint> points, Vec2 center, float size, int max_depth) {
    const bool sane = center.is_finite() && std::isfinite(size);
    VANTAGE_ASSERT(sane, "AggregateTree::build_in: center and size must be finite");
    if (!sane) {
        build(points, max_depth);
        return;
    }
    build_cell(points, center.x, center.y, std::max(static_cast<double>(size), 1.0), max_depth);
}

void AggregateTree::build_cell(std::span<const WeightedPoint> points, double center_x, double center_y, double size,
                               int max_depth) {
    max_depth = clamp_depth(max_depth);
    VANTAGE_ASSERT(points.size() < std::numeric_limits<std::uint32_t>::max(),
                   "AggregateTree: too many points (2^32 - 1 at most)");

    nodes_.clear();
    order_.clear();
    records_.clear();
    skipped_ = 0;
    for (std::size_t i = 0; i < points.size(); ++i) {
        const WeightedPoint& p = points[i];
        if (!p.is_finite()) {
            ++skipped_;
            continue;
        }
        records_.push_back({p.x, p.y, p.weight, static_cast<std::uint32_t>(i)});
    }

    // A fitted extent near the float limits can exceed it; the cell then stops at FLT_MAX.
    root_size_ = static_cast<float>(std::min(size, static_cast<double>(FLT_MAX)));
    root_center_ = {static_cast<float>(center_x), static_cast<float>(center_y)};
    if (records_.empty()) return;

    spare_.resize(records_.size());
    // Spread points need about 1.7 nodes each; reserving 2 per point (plus room for a few
    // chains down to the depth limit) means a tree rebuilt every tick over moving points
    // settles on its first allocation.
    nodes_.reserve(2 * records_.size() + 8 * static_cast<std::size_t>(max_depth));
    build_node(0, static_cast<std::uint32_t>(records_.size()), root_center_.x, root_center_.y, root_size_, 0,
               max_depth);

    order_.resize(records_.size());
    for (std::size_t i = 0; i < records_.size(); ++i) order_[i] = records_[i].index;
}

AggregateTree::Sums AggregateTree::build_node(std::uint32_t begin, std::uint32_t end, float cx, float cy, float size,
                                              int depth, int max_depth) {
    const auto index = static_cast<std::uint32_t>(nodes_.size());
    nodes_.push_back({});  // reserved here so the subtree follows it: preorder
    const std::uint32_t count = end - begin;
    Sums sums;

    if (count <= 1 || depth >= max_depth) {
        for (std::uint32_t i = begin; i < end; ++i) sums.add(records_[i]);
    } else {
        // Stable 4-way partition by quadrant, so each child owns a contiguous run (members
        // are a slice) and points keep input order inside a run (the layout, and with it the
        // summation order, depends only on the input: the same on every platform).
        // Counted in registers (points on the right, points above, both) rather than as
        // ++runs[quadrant]: that increment through memory waits on the previous one whenever
        // neighbouring points share a quadrant.
        std::uint32_t right = 0;
        std::uint32_t above = 0;
        std::uint32_t both = 0;
        for (std::uint32_t i = begin; i < end; ++i) {
            const unsigned q = quadrant(records_[i].x, records_[i].y, cx, cy);
            right += q & 1u;
            above += q >> 1;
            both += q >> 1 & q;
        }
        const std::array<std::uint32_t, 4> runs{count - right - above + both, right - both, above - both, both};
        const bool split = std::find(runs.begin(), runs.end(), count) == runs.end();
        if (split) {
            std::array<std::uint32_t, 4> next{begin, begin + runs[0], begin + runs[0] + runs[1],
                                              begin + runs[0] + runs[1] + runs[2]};
            for (std::uint32_t i = begin; i < end; ++i) {
                const Record& r = records_[i];
                spare_[next[quadrant(r.x, r.y, cx, cy)]++] = r;
            }
            std::copy(spare_.begin() + begin, spare_.begin() + end, records_.begin() + begin);
        }

        const float quarter = size * 0.25f;
        const float half = size * 0.5f;
        std::uint32_t child_begin = begin;
        for (unsigned q = 0; q < 4; ++q) {
            if (runs[q] == 0) continue;
            const float child_cx = (q & 1u) != 0 ? cx + quarter : cx - quarter;
            const float child_cy = (q & 2u) != 0 ? cy + quarter : cy - quarter;
            sums.add(build_node(child_begin, child_begin + runs[q], child_cx, child_cy, half, depth + 1, max_depth));
            child_begin += runs[q];
        }
    }

    // Weightless groups still have a position: fall back to the plain centroid rather than
    // dividing by (almost) zero. Same when the weights nearly cancel and the weighted
    // centroid lands beyond what a float can hold.
    const double n = static_cast<double>(count);
    float x = static_cast<float>(sums.plain_x / n);
    float y = static_cast<float>(sums.plain_y / n);
    if (std::abs(sums.weight) > static_cast<double>(FLT_EPSILON)) {
        const auto wx = static_cast<float>(sums.weighted_x / sums.weight);
        const auto wy = static_cast<float>(sums.weighted_y / sums.weight);
        if (std::isfinite(wx) && std::isfinite(wy)) {
            x = wx;
            y = wy;
        }
    }
    const auto skip = static_cast<std::uint32_t>(nodes_.size()) - index;
    nodes_[index] = Node{x, y, static_cast<float>(sums.weight), size, begin, count, skip};
    return sums;
}

void AggregateTree::summarize(Vec2 at, float theta, std::vector<Summary>& out) const {
    walk(at, 0.0f, theta, out);
}

void AggregateTree::summarize_around(Vec2 at, float radius, float theta, std::vector<Summary>& out) const {
    VANTAGE_ASSERT(!(radius < 0.0f), "AggregateTree::summarize_around: radius must be >= 0");
    walk(at, std::max(radius, 0.0f), theta, out);
}

void AggregateTree::walk(Vec2 at, float radius, float theta, std::vector<Summary>& out) const {
    out.clear();
    // NaN theta compares false here too: it opens everything, like theta <= 0.
    const bool open_all = !(theta > 0.0f);
    const double theta_d = theta;
    const double theta_sq = theta_d * theta_d;
    const double reach = theta_d * radius;  // theta * r: 0 for a point viewer
    const double vx = at.x;
    const double vy = at.y;

    // Stackless: opening a node steps to its first child (the next node), accepting one
    // jumps past its subtree. The array is read strictly forward.
    const std::size_t n = nodes_.size();
    std::size_t i = 0;
    while (i < n) {
        const Node& node = nodes_[i];
        bool accept = node.skip == 1;  // a leaf: there is nothing finer to open
        if (!accept && !open_all) {
            // size < theta * (d - r), as (size + theta r)^2 < theta^2 d^2 (both sides are
            // non-negative, and it implies d > r) in double: no square root on the hot path, no
            // float overflow for huge worlds, and with r = 0 exactly size^2 < theta^2 d^2.
            // A NaN viewpoint or radius fails it and opens the node.
            const double dx = node.x - vx;
            const double dy = node.y - vy;
            const double s = node.size + reach;
            accept = s * s < theta_sq * (dx * dx + dy * dy);
        }
        if (accept) {
            Summary summary;
            summary.x = node.x;
            summary.y = node.y;
            summary.weight = node.weight;
            summary.count = node.count;
            summary.size = node.size;
            summary.start_ = node.start;
            out.push_back(summary);
            i += node.skip;
        } else {
            ++i;
        }
    }
}

std::span<const std::uint32_t> AggregateTree::members(const Summary& summary) const {
    if (summary.start_ > order_.size() || summary.count > order_.size() - summary.start_) return {};
    return {order_.data() + summary.start_, summary.count};
}

std::size_t AggregateTree::capacity_bytes() const {
    return nodes_.capacity() * sizeof(Node) + order_.capacity() * sizeof(std::uint32_t) +
           (records_.capacity() + spare_.capacity()) * sizeof(Record);
}

}  // namespace vantage
