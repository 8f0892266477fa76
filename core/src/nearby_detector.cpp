#include "vantage/nearby_detector.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <vector>

#include "vantage/assert.hpp"
#include "vantage/random.hpp"

namespace vantage {

namespace {

constexpr std::uint32_t kNone = 0xffffffffu;
// max_coordinate / min_cell <= 2^27 bounds a box's extent to 2^28 level-0 cells, so level 28
// holds anything; spare levels absorb rounding in the level choice.
constexpr int kLevels = 31;

struct Bounds {
    double lo_x = 0.0;
    double lo_y = 0.0;
    double hi_x = 0.0;
    double hi_y = 0.0;
};

// floor(a / b) and ceil(a / b) for b > 0, exact for negative a too.
std::int64_t floor_div(std::int64_t a, std::int64_t b) {
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}
std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
    return -floor_div(-a, b);
}

// Number of trailing zero bits of v != 0 (kTickBits more than the level whose reach edges
// include v, see Span); the same for v and -v.
int trailing_zeros(std::int64_t v) {
    return std::countr_zero(static_cast<std::uint64_t>(v));
}

// A node's reach in "ticks", exact integers: 2^-kTickBits of half a level-0 cell. Cell k of
// level L spans [2^(L+b) (2k - 1), 2^(L+b) (2k + 3)] ticks on each axis (b = kTickBits): the
// cell doubled around its centre. So the reach edges of level L are exactly the odd multiples
// of 2^(L+b): every nonzero multiple of 2^(L+b) is an edge of at most one level at or above
// L (the double tree spreads its boundaries evenly over the levels, as the seed says), which
// is what makes a step to the next cell O(1). Ticks finer than half a cell keep the margin's
// rounding up to whole ticks from linking nodes much further apart than enter_margin.
constexpr int kTickBits = 8;

struct Span {
    std::int64_t lo_x = 0;
    std::int64_t lo_y = 0;
    std::int64_t hi_x = 0;
    std::int64_t hi_y = 0;
};

// Cell indices of one level, inclusive on both ends, on both axes.
struct CellRect {
    std::int64_t x0 = 0;
    std::int64_t y0 = 0;
    std::int64_t x1 = -1;
    std::int64_t y1 = -1;

    bool contains(std::int64_t x, std::int64_t y) const { return x0 <= x && x <= x1 && y0 <= y && y <= y1; }
    double cells() const {
        return x1 < x0 || y1 < y0 ? 0.0 : static_cast<double>(x1 - x0 + 1) * static_cast<double>(y1 - y0 + 1);
    }
};

// One key for (level, ix, iy): 5 bits of level and 29 bits per offset index. validate()
// keeps |ix|, |iy| below 2^27 plus a few cells, so the offset indices stay in [0, 2^29).
std::uint64_t cell_key(int level, std::int64_t ix, std::int64_t iy) {
    constexpr std::int64_t kOffset = std::int64_t{1} << 28;
    constexpr std::uint64_t kMask = (std::uint64_t{1} << 29) - 1;
    const auto ux = static_cast<std::uint64_t>(ix + kOffset) & kMask;
    const auto uy = static_cast<std::uint64_t>(iy + kOffset) & kMask;
    return (static_cast<std::uint64_t>(level) << 58) | (ux << 29) | uy;
}

// Cell key -> live node, open addressing with linear probing and backward-shift erase: no
// allocation per node (std::unordered_map allocated on every node made, and its look-ups
// were half the time of a move in the benchmarks).
class CellTable {
public:
    std::uint32_t find(std::uint64_t key) const {
        if (slots_.empty()) return kNoValue;
        for (std::size_t i = home(key);; i = (i + 1) & mask_) {
            const Slot& s = slots_[i];
            if (s.value == kNoValue) return kNoValue;
            if (s.key == key) return s.value;
        }
    }

    // `key` must be absent.
    void insert(std::uint64_t key, std::uint32_t value) {
        if (2 * (count_ + 1) > slots_.size()) grow();
        std::size_t i = home(key);
        while (slots_[i].value != kNoValue) i = (i + 1) & mask_;
        slots_[i] = {key, value};
        ++count_;
    }

    // `key` must be present.
    void erase(std::uint64_t key) {
        std::size_t i = home(key);
        while (slots_[i].key != key || slots_[i].value == kNoValue) i = (i + 1) & mask_;
        // Shift later entries of the probe run back so no look-up stops early at the hole.
        for (std::size_t j = (i + 1) & mask_; slots_[j].value != kNoValue; j = (j + 1) & mask_) {
            const std::size_t h = home(slots_[j].key);
            if (((j - h) & mask_) >= ((j - i) & mask_)) {
                slots_[i] = slots_[j];
                i = j;
            }
        }
        slots_[i].value = kNoValue;
        --count_;
    }

    static constexpr std::uint32_t kNoValue = 0xffffffffu;

private:
    struct Slot {
        std::uint64_t key = 0;
        std::uint32_t value = kNoValue;
    };

    std::size_t home(std::uint64_t key) const { return static_cast<std::size_t>(mix64(key)) & mask_; }

    void grow() {
        std::vector<Slot> old;
        old.swap(slots_);
        slots_.assign(old.empty() ? 64 : old.size() * 2, Slot{});
        mask_ = slots_.size() - 1;
        count_ = 0;
        for (const Slot& s : old) {
            if (s.value != kNoValue) insert(s.key, s.value);
        }
    }

    std::vector<Slot> slots_;  // size a power of two, at most half full
    std::size_t mask_ = 0;
    std::size_t count_ = 0;
};

// Where a box belongs: level and cell.
struct Place {
    int level = 0;
    std::int32_t ix = 0;
    std::int32_t iy = 0;
    bool operator==(const Place&) const = default;
};

// One side of a two-way reference: `back` is where the reverse entry sits in the other list,
// so either side is erased in O(1) by swapping with the last entry.
struct Link {
    std::uint32_t node = kNone;
    std::uint32_t back = 0;
};

}  // namespace

struct NearbyDetector::Impl {
    struct Member {
        Box box{};
        std::uint32_t id = 0;
    };

    struct Node {
        Place place;
        Bounds reach;  // the cell grown by half a cell on every side, world units
        Span span;     // the same reach in ticks, exact (what linking decides on)
        // The boxes placed here, each with a copy of its box so that a scan reads one
        // contiguous array instead of chasing every member's Object.
        std::vector<Member> members;
        std::vector<Link> links;      // every live node linkable() with this one
        std::uint32_t level_pos = 0;  // index in levels[place.level].live
    };

    struct Object {
        Box box{};
        std::uint32_t node = kNone;  // kNone: not inserted
        std::uint32_t node_pos = 0;  // index in nodes[node].members
        std::uint32_t mark = 0;      // == epoch: a partner of the box being updated, already checked
        // Partners and, in step, where this id sits in each partner's list.
        std::vector<std::uint32_t> partners;
        std::vector<std::uint32_t> partner_back;
    };

    struct Level {
        double cell = 1.0;                // side, world units (min_cell * 2^level, exact in double)
        std::vector<std::uint32_t> live;  // live node indices
    };

    NearbyOptions options;
    double link_slop = 0.0;  // absorbs float rounding in gap() so links are never too few
    std::int64_t grow = 0;   // enter_margin plus slop, rounded up to whole ticks
    std::vector<Object> objects;
    std::vector<Node> nodes;
    std::vector<std::uint32_t> free_nodes;
    std::array<Level, kLevels> levels{};
    std::uint32_t occupied = 0;  // bit l: levels[l].live is not empty
    CellTable cells;             // (level, cell) -> live node
    std::uint32_t count = 0;
    std::uint64_t pairs = 0;
    std::uint32_t epoch = 0;
    NearbyDetectorCounters counters;
    std::vector<NearbyEvent> events;  // since the last clear_events()

    explicit Impl(const NearbyOptions& o) : options(o) {
        for (int l = 0; l < kLevels; ++l) levels[l].cell = std::ldexp(static_cast<double>(o.min_cell), l);
        // gap() in float is within a relative 2^-24 of the true gap near enter_margin; extents
        // in double are within 2^-52 of the world's size.
        link_slop = 1e-5 * static_cast<double>(o.enter_margin) + 1e-9 * static_cast<double>(o.max_coordinate) +
                    1e-9 * static_cast<double>(o.min_cell);
        // The world is at most 2^(29 + kTickBits) ticks wide (validate()), so any margin beyond
        // 2^(31 + kTickBits) links everything anyway; the cap keeps the arithmetic below far
        // from overflow.
        const double ticks = std::ceil(std::ldexp(static_cast<double>(o.enter_margin) + link_slop, 1 + kTickBits) /
                                       static_cast<double>(o.min_cell));
        grow = static_cast<std::int64_t>(std::min(ticks, std::ldexp(1.0, 31 + kTickBits)));
    }

    NearbyStatus check_box(const Box& b) const {
        if (!b.min.is_finite() || !b.max.is_finite()) return NearbyStatus::NonFiniteBox;
        if (b.min.x > b.max.x || b.min.y > b.max.y) return NearbyStatus::InvertedBox;
        const float m = options.max_coordinate;
        if (b.min.x < -m || b.min.y < -m || b.max.x > m || b.max.y > m) return NearbyStatus::OutOfRange;
        return NearbyStatus::Ok;
    }

    Place place_of(const Box& b) const {
        const double w = static_cast<double>(b.max.x) - static_cast<double>(b.min.x);
        const double h = static_cast<double>(b.max.y) - static_cast<double>(b.min.y);
        const double extent = std::max(w, h);
        int level = 0;
        const double ratio = extent / static_cast<double>(options.min_cell);
        if (ratio > 1.0) {
            int e = 0;
            const double mant = std::frexp(ratio, &e);  // ratio = mant * 2^e, mant in [0.5, 1)
            level = mant == 0.5 ? e - 1 : e;
        }
        while (level > 0 && levels[level - 1].cell >= extent) --level;
        while (level < kLevels - 1 && levels[level].cell < extent) ++level;
        const double c = levels[level].cell;
        const double cx = (static_cast<double>(b.min.x) + static_cast<double>(b.max.x)) * 0.5;
        const double cy = (static_cast<double>(b.min.y) + static_cast<double>(b.max.y)) * 0.5;
        return {level, cell_index(cx, c), cell_index(cy, c)};
    }

    // A box may stay in its node while it lies inside the node's reach (all that finding
    // candidates relies on) and is not much smaller than the node's cell. It only moves on
    // once its centre is half a cell past the cell's edge, so a box wandering along a cell
    // boundary does not hop between nodes: hysteresis for placement, like the fat boxes of a
    // dynamic tree.
    bool still_fits(std::uint32_t n, const Box& b) const {
        const Node& node = nodes[n];
        const Bounds& r = node.reach;
        if (!(r.lo_x <= b.min.x && b.max.x <= r.hi_x && r.lo_y <= b.min.y && b.max.y <= r.hi_y)) return false;
        if (node.place.level < 2) return true;
        const double extent = std::max(static_cast<double>(b.max.x) - static_cast<double>(b.min.x),
                                       static_cast<double>(b.max.y) - static_cast<double>(b.min.y));
        return extent > levels[node.place.level - 2].cell;
    }

    // floor(v / c), corrected so that ix * c <= v < (ix + 1) * c holds exactly.
    static std::int32_t cell_index(double v, double c) {
        auto i = static_cast<std::int32_t>(std::floor(v / c));
        if (static_cast<double>(i) * c > v) --i;
        if (static_cast<double>(i + 1) * c <= v) ++i;
        return i;
    }

    Bounds reach_of(const Place& p) const {
        const double c = levels[p.level].cell;
        return {p.ix * c - 0.5 * c, p.iy * c - 0.5 * c, (p.ix + 1) * c + 0.5 * c, (p.iy + 1) * c + 0.5 * c};
    }

    static Span span_of(const Place& p) {
        const std::int64_t u = std::int64_t{1} << (p.level + kTickBits);
        return {u * (2 * std::int64_t{p.ix} - 1), u * (2 * std::int64_t{p.iy} - 1), u * (2 * std::int64_t{p.ix} + 3),
                u * (2 * std::int64_t{p.iy} + 3)};
    }

    // ---- nodes and links ---------------------------------------------------------------
    //
    // Two live nodes are linked when linkable(): their reaches, one grown by `grow` ticks,
    // overlap. Since grow ticks >= enter_margin + slop, two boxes within
    // enter_margin always sit in the same node or in linked nodes. The rule is exact integer
    // arithmetic, so the O(1) step below and the full search agree on every link.

    bool linkable(const Span& a, const Span& b) const {
        return a.lo_x - grow <= b.hi_x && b.lo_x <= a.hi_x + grow && a.lo_y - grow <= b.hi_y && b.lo_y <= a.hi_y + grow;
    }

    // The cells of `level` whose nodes would be linkable() with a node of span s.
    CellRect rect_near(const Span& s, int level) const {
        // Live nodes hold box centres within max_coordinate: indices beyond this hold nothing,
        // and clamping keeps cell_key's 29-bit offsets from wrapping.
        constexpr std::int64_t kLimit = (std::int64_t{1} << 27) + 4;
        const std::int64_t u = std::int64_t{1} << (level + kTickBits);
        CellRect r{ceil_div(s.lo_x - grow - 3 * u, 2 * u), ceil_div(s.lo_y - grow - 3 * u, 2 * u),
                   floor_div(s.hi_x + grow + u, 2 * u), floor_div(s.hi_y + grow + u, 2 * u)};
        r.x0 = std::max(r.x0, -kLimit);
        r.y0 = std::max(r.y0, -kLimit);
        r.x1 = std::min(r.x1, kLimit);
        r.y1 = std::min(r.y1, kLimit);
        return r;
    }

    void add_link(std::uint32_t a, std::uint32_t b) {
        ++counters.operations;
        Node& na = nodes[a];
        Node& nb = nodes[b];
        na.links.push_back({b, static_cast<std::uint32_t>(nb.links.size())});
        nb.links.push_back({a, static_cast<std::uint32_t>(na.links.size() - 1)});
    }

    // Erases entry k of node n's links, fixing the back index of the entry moved into k.
    void erase_link_slot(std::uint32_t n, std::uint32_t k) {
        std::vector<Link>& links = nodes[n].links;
        const std::uint32_t last = static_cast<std::uint32_t>(links.size() - 1);
        if (k != last) {
            links[k] = links[last];
            nodes[links[k].node].links[links[k].back].back = k;
        }
        links.pop_back();
    }

    // Links node n with every live node of `level` that is linkable() with n and lies in
    // rect_near(n) but outside `skip` (cells the caller has covered already), by looking the
    // cells up or by testing the level's live nodes, whichever is fewer.
    void link_level(std::uint32_t n, int level, const CellRect& skip) {
        ++counters.operations;
        Level& lv = levels[level];
        const Span span = nodes[n].span;
        const CellRect near = rect_near(span, level);
        // The cells of `near` outside `skip`: all of near less their overlap.
        const CellRect both{std::max(near.x0, skip.x0), std::max(near.y0, skip.y0), std::min(near.x1, skip.x1),
                            std::min(near.y1, skip.y1)};
        const double fresh = near.cells() - both.cells();
        if (fresh <= 0.0) return;
        if (fresh <= static_cast<double>(lv.live.size())) {
            for (std::int64_t kx = near.x0; kx <= near.x1; ++kx) {
                const bool column_skipped = skip.x0 <= kx && kx <= skip.x1;
                for (std::int64_t ky = near.y0; ky <= near.y1; ++ky) {
                    if (column_skipped && skip.y0 <= ky && ky <= skip.y1) {
                        ky = skip.y1;  // jump over the skipped run of this column
                        continue;
                    }
                    ++counters.operations;
                    const std::uint32_t m = cells.find(cell_key(level, kx, ky));
                    if (m != CellTable::kNoValue && m != n && linkable(span, nodes[m].span)) add_link(n, m);
                }
            }
        } else {
            for (const std::uint32_t m : lv.live) {
                ++counters.operations;
                const Place& p = nodes[m].place;
                if (m != n && !skip.contains(p.ix, p.iy) && linkable(span, nodes[m].span)) add_link(n, m);
            }
        }
    }

    // Full search for a node that just became live: every occupied level.
    void link_everywhere(std::uint32_t n) {
        for (std::uint32_t bits = occupied; bits != 0; bits &= bits - 1) {
            link_level(n, std::countr_zero(bits), CellRect{});
        }
    }

    // The values v in (from, from + 2u] when up, else in [from - 2u, from), that are multiples
    // of u = 2^(level + kTickBits): exactly two. Each nonzero one is a reach edge of one level
    // (its trailing zeros less kTickBits, if below kLevels), so at most two levels at or above
    // `level` gain cells when a node's grown reach edge sweeps over that interval, as it does
    // in a step of one cell.
    static std::array<std::int64_t, 2> swept_multiples(std::int64_t from, int level, bool up) {
        const std::int64_t u = std::int64_t{1} << (level + kTickBits);
        const std::int64_t first = up ? floor_div(from, u) * u + u : ceil_div(from, u) * u - u;
        return {first, up ? first + u : first - u};
    }

    // Links node n, just made live, when it is the same-level neighbour (one step along x, y
    // or both) of the live node `from`: n's links are from's links that stay linkable, from
    // itself, and the cells n's reach newly comes near. At or above their level those lie at
    // no more than two levels per axis moved (swept_multiples); below, in the strip between
    // the two near-rectangles of each occupied level. So the work is O(from's links + the
    // new cells' lookups), whatever the number of boxes and of occupied levels at or above
    // the node's own: the seed's split levels, computed from the cell index instead of kept
    // as pointers.
    void link_from_neighbour(std::uint32_t n, std::uint32_t from) {
        const Span span = nodes[n].span;
        const Span old = nodes[from].span;
        const std::size_t inherited = nodes[from].links.size();
        for (std::size_t i = 0; i < inherited; ++i) {
            ++counters.operations;
            const std::uint32_t m = nodes[from].links[i].node;
            if (linkable(span, nodes[m].span)) add_link(n, m);
        }
        add_link(n, from);  // neighbours' reaches overlap
        const int level = nodes[n].place.level;
        // Levels at or above n's that gain cells: the values the edge of n's grown reach on the
        // side it moved towards sweeps over, where other levels' opposite edges lie.
        std::array<int, 4> gained{};
        int gained_count = 0;
        auto sweep = [&](std::int64_t old_edge, bool up) {
            for (const std::int64_t v : swept_multiples(old_edge, level, up)) {
                if (v == 0) continue;  // zero is no level's edge
                const int l = trailing_zeros(v) - kTickBits;
                if (l >= kLevels || (occupied & (1u << l)) == 0) continue;
                if (std::find(gained.begin(), gained.begin() + gained_count, l) == gained.begin() + gained_count) {
                    gained[static_cast<std::size_t>(gained_count++)] = l;
                }
            }
        };
        if (span.hi_x > old.hi_x) sweep(old.hi_x + grow, true);
        if (span.lo_x < old.lo_x) sweep(old.lo_x - grow, false);
        if (span.hi_y > old.hi_y) sweep(old.hi_y + grow, true);
        if (span.lo_y < old.lo_y) sweep(old.lo_y - grow, false);
        // One search per gained level, and per occupied level below n's, skipping the cells
        // `from` was already linked over.
        for (int k = 0; k < gained_count; ++k) {
            const int l = gained[static_cast<std::size_t>(k)];
            link_level(n, l, rect_near(old, l));
        }
        for (std::uint32_t bits = occupied & ((1u << level) - 1u); bits != 0; bits &= bits - 1) {
            const int l = std::countr_zero(bits);
            link_level(n, l, rect_near(old, l));
        }
    }

    // The live node at p, or a new one (not yet linked).
    std::uint32_t find_or_make(const Place& p, bool& made) {
        const std::uint64_t key = cell_key(p.level, p.ix, p.iy);
        made = false;
        if (const std::uint32_t found = cells.find(key); found != CellTable::kNoValue) return found;
        made = true;
        std::uint32_t n = 0;
        if (!free_nodes.empty()) {
            n = free_nodes.back();
            free_nodes.pop_back();
        } else {
            n = static_cast<std::uint32_t>(nodes.size());
            nodes.emplace_back();
            // Room for a typical node's members and links up front: recycled nodes keep these
            // capacities, so a steady population stops allocating once its nodes exist.
            nodes.back().members.reserve(8);
            nodes.back().links.reserve(32);
        }
        Node& node = nodes[n];
        node.place = p;
        node.reach = reach_of(p);
        node.span = span_of(p);
        Level& level = levels[p.level];
        node.level_pos = static_cast<std::uint32_t>(level.live.size());
        level.live.push_back(n);
        cells.insert(key, n);
        return n;
    }

    // Marks n's level occupied; after its links are made, so searches skip n's own level
    // when n is its only node.
    void mark_occupied(std::uint32_t n) { occupied |= 1u << nodes[n].place.level; }

    void drop_node(std::uint32_t n) {
        Node& node = nodes[n];
        while (!node.links.empty()) {
            ++counters.operations;
            const Link link = node.links.back();
            erase_link_slot(link.node, link.back);
            node.links.pop_back();
        }
        Level& level = levels[node.place.level];
        const std::uint32_t last = level.live.back();
        level.live[node.level_pos] = last;
        nodes[last].level_pos = node.level_pos;
        level.live.pop_back();
        if (level.live.empty()) occupied &= ~(1u << node.place.level);
        cells.erase(cell_key(node.place.level, node.place.ix, node.place.iy));
        free_nodes.push_back(n);  // keeps its vectors' capacity for the next node
    }

    void join_node(std::uint32_t id, std::uint32_t n) {
        Object& o = objects[id];
        o.node = n;
        o.node_pos = static_cast<std::uint32_t>(nodes[n].members.size());
        nodes[n].members.push_back({o.box, id});
    }

    void leave_node(std::uint32_t id) {
        Object& o = objects[id];
        const std::uint32_t n = o.node;
        std::vector<Member>& members = nodes[n].members;
        members[o.node_pos] = members.back();
        objects[members[o.node_pos].id].node_pos = o.node_pos;
        members.pop_back();
        if (members.empty()) drop_node(n);
        o.node = kNone;
    }

    // Puts a new box in its node, linking the node by full search if it was not live.
    void place_new(std::uint32_t id) {
        bool made = false;
        const std::uint32_t n = find_or_make(place_of(objects[id].box), made);
        if (made) {
            link_everywhere(n);
            mark_occupied(n);
        }
        join_node(id, n);
    }

    // Moves a box that no longer fits its node to its own node. A new node next to the old
    // one is linked from it (O(1)); any other new node by full search.
    void replace(std::uint32_t id) {
        Object& o = objects[id];
        const std::uint32_t from = o.node;
        const Place p = place_of(o.box);
        if (p == nodes[from].place) {  // place_of never picks a node the box does not fit; kept safe
            nodes[from].members[o.node_pos].box = o.box;
            return;
        }
        ++counters.node_changes;
        bool made = false;
        const std::uint32_t n = find_or_make(p, made);
        if (made) {
            const Place& q = nodes[from].place;
            const bool neighbour = p.level == q.level && std::abs(std::int64_t{p.ix} - q.ix) <= 1 &&
                                   std::abs(std::int64_t{p.iy} - q.iy) <= 1;
            if (neighbour) {
                link_from_neighbour(n, from);
            } else {
                link_everywhere(n);
            }
            mark_occupied(n);
        }
        leave_node(id);
        join_node(id, n);
    }

    // gap(a, b) > margin without gap's three float max operations: the largest of four
    // differences exceeds the margin exactly when one of them does (boxes are finite, so no
    // NaN). In wasm the maxes were selects on floats, and V8 ran the crowded scans 2x to 3x
    // slower than native; four comparisons, most often settled by the first, halve that.
    // The same predicate as !NearbyDetector::within, which tests all four without a branch
    // (right for a loop over unrelated pairs; here the first comparison usually decides).
    static bool farther_than(const Box& a, const Box& b, float margin) {
        return b.min.x - a.max.x > margin || a.min.x - b.max.x > margin || b.min.y - a.max.y > margin ||
               a.min.y - b.max.y > margin;
    }

    // ---- pairs -------------------------------------------------------------------------

    void add_pair(std::uint32_t a, std::uint32_t b) {
        Object& oa = objects[a];
        Object& ob = objects[b];
        oa.partners.push_back(b);
        oa.partner_back.push_back(static_cast<std::uint32_t>(ob.partners.size()));
        ob.partners.push_back(a);
        ob.partner_back.push_back(static_cast<std::uint32_t>(oa.partners.size() - 1));
        ++pairs;
        events.push_back({std::min(a, b), std::max(a, b), NearbyEventKind::BecameNearby});
    }

    void erase_partner_slot(std::uint32_t id, std::uint32_t k) {
        Object& o = objects[id];
        const std::uint32_t last = static_cast<std::uint32_t>(o.partners.size() - 1);
        if (k != last) {
            o.partners[k] = o.partners[last];
            o.partner_back[k] = o.partner_back[last];
            objects[o.partners[k]].partner_back[o.partner_back[k]] = k;
        }
        o.partners.pop_back();
        o.partner_back.pop_back();
    }

    // Ends the pair held in slot k of a's partner list.
    void end_pair(std::uint32_t a, std::uint32_t k) {
        const std::uint32_t b = objects[a].partners[k];
        erase_partner_slot(b, objects[a].partner_back[k]);
        erase_partner_slot(a, k);
        --pairs;
        events.push_back({std::min(a, b), std::max(a, b), NearbyEventKind::StoppedBeingNearby});
    }

    // Re-evaluates every pair involving `id` at its stored box: partners first (leave test),
    // then the boxes in its node and linked nodes (enter test).
    void settle(std::uint32_t id) {
        if (++epoch == 0) {  // wrapped: clear stale marks so none can match by accident
            for (Object& o : objects) o.mark = 0;
            epoch = 1;
        }
        const Box box = objects[id].box;
        const float leave = options.leave_margin;
        const float enter = options.enter_margin;
        // Backwards, so the swap-erase in end_pair only moves already-checked entries. The
        // operations are counted once per loop, not per entry: a memory increment per entry
        // chained every iteration through a store and a load.
        counters.operations += objects[id].partners.size();
        for (std::size_t k = objects[id].partners.size(); k-- > 0;) {
            const std::uint32_t other = objects[id].partners[k];
            if (farther_than(box, objects[other].box, leave)) {
                end_pair(id, static_cast<std::uint32_t>(k));
            } else {
                objects[other].mark = epoch;
            }
        }
        const std::uint32_t home = objects[id].node;
        scan_node(id, box, enter, home);
        // add_pair grows partner vectors only; nodes and links stay put during the scan.
        const std::size_t link_count = nodes[home].links.size();
        for (std::size_t i = 0; i < link_count; ++i) scan_node(id, box, enter, nodes[home].links[i].node);
    }

    // Tests the members of node n against `box`. Partners are already marked, so only a
    // member within enter_margin touches its Object.
    void scan_node(std::uint32_t id, const Box& box, float enter, std::uint32_t n) {
        // add_pair grows partner vectors only, so the member array stays where it is.
        const Member* const members = nodes[n].members.data();
        const std::size_t member_count = nodes[n].members.size();
        counters.operations += 1 + member_count;
        for (std::size_t i = 0; i < member_count; ++i) {
            const Member& m = members[i];
            if (farther_than(box, m.box, enter) || m.id == id || objects[m.id].mark == epoch) continue;
            add_pair(id, m.id);
        }
    }
};

// ---- public surface ------------------------------------------------------------------

std::string_view NearbyOptions::validate() const {
    if (!std::isfinite(enter_margin) || !(enter_margin >= 0.0f)) return "enter_margin must be finite and >= 0";
    if (!std::isfinite(leave_margin) || !(leave_margin >= enter_margin))
        return "leave_margin must be finite and >= enter_margin";
    if (!std::isfinite(min_cell) || !(min_cell > 0.0f)) return "min_cell must be finite and > 0";
    if (!std::isfinite(max_coordinate) || !(max_coordinate > 0.0f)) return "max_coordinate must be finite and > 0";
    if (static_cast<double>(max_coordinate) / static_cast<double>(min_cell) > std::ldexp(1.0, 27))
        return "max_coordinate / min_cell must be at most 2^27";
    if (max_ids == 0 || max_ids > (1u << 31)) return "max_ids must be in [1, 2^31]";
    return {};
}

const char* to_string(NearbyStatus status) {
    switch (status) {
        case NearbyStatus::Ok:
            return "ok";
        case NearbyStatus::NonFiniteBox:
            return "box has a non-finite coordinate";
        case NearbyStatus::InvertedBox:
            return "box has min > max";
        case NearbyStatus::OutOfRange:
            return "box lies beyond max_coordinate";
        case NearbyStatus::IdOutOfRange:
            return "id is at or above max_ids";
        case NearbyStatus::UnknownId:
            return "id is not inserted";
        case NearbyStatus::AlreadyPresent:
            return "id is already inserted";
    }
    return "unknown status";
}

float NearbyDetector::gap(const Box& a, const Box& b) {
    const float gx = std::max(b.min.x - a.max.x, a.min.x - b.max.x);
    const float gy = std::max(b.min.y - a.max.y, a.min.y - b.max.y);
    return std::max(gx, gy);
}

NearbyDetector::NearbyDetector(const NearbyOptions& options) {
    VANTAGE_ASSERT_VALID(options, "NearbyDetector: invalid NearbyOptions");
    impl_ = std::make_unique<Impl>(options);
}

NearbyDetector::~NearbyDetector() = default;
NearbyDetector::NearbyDetector(NearbyDetector&&) noexcept = default;
NearbyDetector& NearbyDetector::operator=(NearbyDetector&&) noexcept = default;

NearbyStatus NearbyDetector::insert(std::uint32_t id, const Box& box) {
    Impl& s = *impl_;
    ++s.counters.operations;
    if (id >= s.options.max_ids) return NearbyStatus::IdOutOfRange;
    if (const NearbyStatus st = s.check_box(box); st != NearbyStatus::Ok) return st;
    if (id < s.objects.size() && s.objects[id].node != kNone) return NearbyStatus::AlreadyPresent;
    if (id >= s.objects.size()) s.objects.resize(static_cast<std::size_t>(id) + 1);
    // Room for a few partners up front, so a steady crowd's pairs churn without allocating.
    s.objects[id].partners.reserve(8);
    s.objects[id].partner_back.reserve(8);
    s.objects[id].box = box;
    s.place_new(id);
    ++s.count;
    s.settle(id);
    return NearbyStatus::Ok;
}

NearbyStatus NearbyDetector::update(std::uint32_t id, const Box& box) {
    Impl& s = *impl_;
    ++s.counters.operations;
    if (!contains(id)) return id >= s.options.max_ids ? NearbyStatus::IdOutOfRange : NearbyStatus::UnknownId;
    if (const NearbyStatus st = s.check_box(box); st != NearbyStatus::Ok) return st;
    s.objects[id].box = box;
    if (s.still_fits(s.objects[id].node, box)) {
        s.nodes[s.objects[id].node].members[s.objects[id].node_pos].box = box;
    } else {
        s.replace(id);
    }
    s.settle(id);
    return NearbyStatus::Ok;
}

NearbyStatus NearbyDetector::remove(std::uint32_t id) {
    Impl& s = *impl_;
    ++s.counters.operations;
    if (!contains(id)) return id >= s.options.max_ids ? NearbyStatus::IdOutOfRange : NearbyStatus::UnknownId;
    while (!s.objects[id].partners.empty()) {
        ++s.counters.operations;
        s.end_pair(id, static_cast<std::uint32_t>(s.objects[id].partners.size() - 1));
    }
    s.leave_node(id);
    --s.count;
    return NearbyStatus::Ok;
}

bool NearbyDetector::contains(std::uint32_t id) const {
    return id < impl_->objects.size() && impl_->objects[id].node != kNone;
}

std::span<const std::uint32_t> NearbyDetector::neighbors(std::uint32_t id) const {
    if (!contains(id)) return {};
    return impl_->objects[id].partners;
}

const NearbyDetector::Box& NearbyDetector::box(std::uint32_t id) const {
    VANTAGE_ASSERT(contains(id), "NearbyDetector::box: id is not inserted");
    return impl_->objects[id].box;
}

std::uint32_t NearbyDetector::size() const {
    return impl_->count;
}
std::uint64_t NearbyDetector::pair_count() const {
    return impl_->pairs;
}
std::uint32_t NearbyDetector::live_node_count() const {
    return static_cast<std::uint32_t>(impl_->nodes.size() - impl_->free_nodes.size());
}
std::span<const NearbyEvent> NearbyDetector::events() const {
    return impl_->events;
}
void NearbyDetector::clear_events() {
    impl_->events.clear();
}
const NearbyDetectorCounters& NearbyDetector::counters() const {
    return impl_->counters;
}
const NearbyOptions& NearbyDetector::options() const {
    return impl_->options;
}

}  // namespace vantage
