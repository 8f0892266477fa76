#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <vector>

#include "core/nearby_scenario.hpp"
#include "support/nearby_sink.hpp"
#include "vantage/nearby_detector.hpp"

namespace vantage {
namespace {

using nearby_test::NearbySink;
using nearby_test::NullNearbySink;

using nearby_test::NearbyOracle;
using nearby_test::Op;
using nearby_test::OpKind;
using nearby_test::Scenario;
using nearby_test::ScenarioConfig;
using nearby_test::ScenarioKind;
using Box = NearbyDetector::Box;
using Pair = std::pair<std::uint32_t, std::uint32_t>;

Box box_at(float x, float y, float half = 0.5f) {
    return {{x - half, y - half}, {x + half, y + half}};
}

// Records events, and replays them into a pair set, failing on an event that does not
// change the set (a second "became" for a live pair, a "stopped" for a dead one).
class RecordingSink final : public NearbySink {
public:
    void became_nearby(std::uint32_t a, std::uint32_t b) override {
        EXPECT_LT(a, b);
        EXPECT_TRUE(replayed.insert({a, b}).second) << "became_nearby twice for " << a << "," << b;
        became.push_back({a, b});
        ++events;
    }
    void stopped_being_nearby(std::uint32_t a, std::uint32_t b) override {
        EXPECT_LT(a, b);
        EXPECT_EQ(replayed.erase({a, b}), 1u) << "stopped_being_nearby without became for " << a << "," << b;
        stopped.push_back({a, b});
        ++events;
    }
    void clear_call() {
        became.clear();
        stopped.clear();
    }

    std::set<Pair> replayed;
    std::vector<Pair> became;
    std::vector<Pair> stopped;
    std::uint64_t events = 0;
};

std::set<Pair> pairs_of(const NearbyDetector& d, std::uint32_t id_bound) {
    std::set<Pair> out;
    for (std::uint32_t id = 0; id < id_bound; ++id) {
        for (const std::uint32_t other : d.neighbors(id)) out.insert({std::min(id, other), std::max(id, other)});
    }
    return out;
}

std::vector<Pair> sorted(std::vector<Pair> v) {
    std::sort(v.begin(), v.end());
    return v;
}

// Runs one seeded scenario through the detector and the oracle side by side. Every call must
// report the same transitions; after every tick the detector's pairs, the oracle's pairs and
// the replayed event stream must be the same set.
void check_against_oracle(ScenarioConfig config, int ticks, const NearbyOptions& options) {
    Scenario scenario(config);
    NearbyDetector detector(options);
    NearbyOracle oracle(options.enter_margin, options.leave_margin);
    RecordingSink sink;
    std::vector<Pair> oracle_stopped;
    std::vector<Op> ops = scenario.initial();
    for (int t = 0; t <= ticks; ++t) {
        if (t > 0) scenario.tick(ops);
        for (const Op& op : ops) {
            sink.clear_call();
            std::vector<Pair> oracle_became;
            NearbyStatus st = NearbyStatus::Ok;
            switch (op.kind) {
                case OpKind::Insert:
                    st = nearby_test::insert(detector, op.id, op.box, sink);
                    oracle.insert(op.id, op.box, oracle_became, oracle_stopped);
                    break;
                case OpKind::Update:
                    st = nearby_test::update(detector, op.id, op.box, sink);
                    oracle.update(op.id, op.box, oracle_became, oracle_stopped);
                    break;
                case OpKind::Remove:
                    st = nearby_test::remove(detector, op.id, sink);
                    oracle.remove(op.id, oracle_stopped);
                    oracle_became.clear();
                    break;
            }
            ASSERT_EQ(st, NearbyStatus::Ok) << "seed " << config.seed << " tick " << t << " id " << op.id;
            ASSERT_EQ(sorted(sink.became), sorted(oracle_became))
                << "became differs: " << to_string(config.kind) << " seed " << config.seed << " tick " << t << " id "
                << op.id;
            ASSERT_EQ(sorted(sink.stopped), sorted(oracle_stopped))
                << "stopped differs: " << to_string(config.kind) << " seed " << config.seed << " tick " << t << " id "
                << op.id;
        }
        const std::set<Pair> got = pairs_of(detector, scenario.id_bound());
        ASSERT_EQ(got, oracle.pairs()) << to_string(config.kind) << " seed " << config.seed << " tick " << t;
        ASSERT_EQ(sink.replayed, oracle.pairs()) << to_string(config.kind) << " seed " << config.seed << " tick " << t;
        ASSERT_EQ(detector.pair_count(), got.size());
    }
}

void check_kind(ScenarioKind kind, std::uint32_t count, float world) {
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
        ScenarioConfig config{.kind = kind, .count = count, .world = world, .seed = seed};
        check_against_oracle(config, 16, NearbyOptions{.enter_margin = 1.0f, .leave_margin = 2.0f, .min_cell = 0.5f});
        if (::testing::Test::HasFatalFailure()) return;
    }
}

TEST(NearbyDetector, EventsQueueInCallOrderUntilCleared) {
    NearbyDetector d({.enter_margin = 1.0f, .leave_margin = 2.0f, .min_cell = 2.0f});
    ASSERT_EQ(d.insert(4, box_at(0, 0)), NearbyStatus::Ok);
    ASSERT_EQ(d.insert(2, box_at(1, 0)), NearbyStatus::Ok);
    ASSERT_EQ(d.remove(4), NearbyStatus::Ok);
    const std::vector<NearbyEvent> expected = {{2, 4, NearbyEventKind::BecameNearby},
                                               {2, 4, NearbyEventKind::StoppedBeingNearby}};
    EXPECT_EQ(std::vector<NearbyEvent>(d.events().begin(), d.events().end()), expected);
    d.clear_events();
    EXPECT_TRUE(d.events().empty());
    EXPECT_EQ(d.update(2, box_at(5, 5)), NearbyStatus::Ok);
    EXPECT_TRUE(d.events().empty()) << "no partner left: nothing to report";
}

TEST(NearbyDetector, MatchesOracleOnUniformBoxes) {
    check_kind(ScenarioKind::Uniform, 120, 40.0f);
}
TEST(NearbyDetector, MatchesOracleOnClusteredBoxes) {
    check_kind(ScenarioKind::Clustered, 120, 60.0f);
}
TEST(NearbyDetector, MatchesOracleOnMixedSizes) {
    check_kind(ScenarioKind::MixedSizes, 120, 80.0f);
}
TEST(NearbyDetector, MatchesOracleWithHugeBoxes) {
    check_kind(ScenarioKind::HugeBoxes, 120, 60.0f);
}
TEST(NearbyDetector, MatchesOracleWithTeleports) {
    check_kind(ScenarioKind::Teleports, 120, 40.0f);
}
TEST(NearbyDetector, MatchesOracleUnderInsertRemoveChurn) {
    check_kind(ScenarioKind::Churn, 120, 40.0f);
}

TEST(NearbyDetector, MatchesOracleWithZeroMarginsAndCoarseCells) {
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        ScenarioConfig config{.kind = ScenarioKind::MixedSizes, .count = 100, .world = 50.0f, .seed = seed};
        check_against_oracle(config, 20, NearbyOptions{.enter_margin = 0.0f, .leave_margin = 0.0f, .min_cell = 4.0f});
        if (::testing::Test::HasFatalFailure()) return;
    }
}

TEST(NearbyDetector, MatchesOracleWithWideHysteresis) {
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        ScenarioConfig config{.kind = ScenarioKind::Uniform, .count = 100, .world = 40.0f, .step = 0.6f, .seed = seed};
        check_against_oracle(config, 20, NearbyOptions{.enter_margin = 0.5f, .leave_margin = 6.0f, .min_cell = 0.25f});
        if (::testing::Test::HasFatalFailure()) return;
    }
}

// Every move a jump of one cell of some level to one of the eight neighbouring offsets: the
// moves that take the O(1) path from the old node (and, for the larger boxes, search the
// levels below theirs).
TEST(NearbyDetector, MatchesOracleWhenEveryMoveHopsToANeighbouringCell) {
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        for (const float hop : {0.5f, 1.0f, 2.0f}) {
            ScenarioConfig config{
                .kind = ScenarioKind::CellHops, .count = 120, .world = 40.0f, .hop = hop, .seed = seed};
            check_against_oracle(config, 20,
                                 NearbyOptions{.enter_margin = 1.0f, .leave_margin = 2.0f, .min_cell = 0.5f});
            if (::testing::Test::HasFatalFailure()) return;
        }
    }
}

TEST(NearbyDetector, MatchesOracleWhenHopsAreSmallerThanTheMargin) {
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        ScenarioConfig config{.kind = ScenarioKind::CellHops, .count = 100, .world = 40.0f, .hop = 0.25f, .seed = seed};
        check_against_oracle(config, 20, NearbyOptions{.enter_margin = 3.0f, .leave_margin = 4.0f, .min_cell = 0.25f});
        if (::testing::Test::HasFatalFailure()) return;
    }
}

// ---- the rule ---------------------------------------------------------------------------

TEST(NearbyDetector, GapIsTheLargerPerAxisSeparationAndNegativeWhenOverlapping) {
    EXPECT_FLOAT_EQ(NearbyDetector::gap(box_at(0, 0), box_at(3, 0)), 2.0f);
    EXPECT_FLOAT_EQ(NearbyDetector::gap(box_at(0, 0), box_at(3, 5)), 4.0f);
    EXPECT_FLOAT_EQ(NearbyDetector::gap(box_at(3, 5), box_at(0, 0)), 4.0f);
    EXPECT_LT(NearbyDetector::gap(box_at(0, 0), box_at(0.5f, 0)), 0.0f);
}

// within() is gap() <= margin without the maxes: the same answer for every finite pair,
// including pairs exactly at the margin on either axis and overlapping ones.
TEST(NearbyDetector, WithinIsGapAtMostTheMargin) {
    XorShift rng(0x6A9);
    const float margins[] = {-0.5f, 0.0f, 1.0f, 2.5f};
    std::size_t inside = 0;
    std::size_t checked = 0;
    for (int i = 0; i < 20000; ++i) {
        // Coordinates on a quarter grid, so differences land exactly on the margins often.
        auto q = [&rng] { return std::floor(rng.range(0.0f, 40.0f)) * 0.25f; };
        const float ax = q(), ay = q(), bx = q(), by = q();
        const NearbyDetector::Box a{{ax, ay}, {ax + q() * 0.2f, ay + q() * 0.2f}};
        const NearbyDetector::Box b{{bx, by}, {bx + q() * 0.2f, by + q() * 0.2f}};
        for (const float m : margins) {
            const bool expected = NearbyDetector::gap(a, b) <= m;
            ASSERT_EQ(NearbyDetector::within(a, b, m), expected) << "pair " << i << " margin " << m;
            ASSERT_EQ(NearbyDetector::within(b, a, m), expected) << "pair " << i << " margin " << m;
            inside += expected ? 1 : 0;
            ++checked;
        }
    }
    // Both answers occur often, so the comparison covers both sides of the rule.
    EXPECT_GT(inside, checked / 20);
    EXPECT_LT(inside, checked - checked / 20);
}

TEST(NearbyDetector, BoxesWithinEnterMarginBecomeNearbyOnInsert) {
    NearbyDetector d(NearbyOptions{.enter_margin = 1.0f, .leave_margin = 2.0f});
    RecordingSink sink;
    ASSERT_EQ(nearby_test::insert(d, 1, box_at(0, 0), sink), NearbyStatus::Ok);
    ASSERT_EQ(nearby_test::insert(d, 2, box_at(2, 0), sink), NearbyStatus::Ok);  // gap 1: exactly the margin
    ASSERT_EQ(nearby_test::insert(d, 3, box_at(10, 0), sink), NearbyStatus::Ok);
    EXPECT_EQ(sink.became, (std::vector<Pair>{{1, 2}}));
    ASSERT_EQ(d.neighbors(1).size(), 1u);
    EXPECT_EQ(d.neighbors(1)[0], 2u);
    EXPECT_TRUE(d.neighbors(3).empty());
}

TEST(NearbyDetector, JitterBetweenTheMarginsDoesNotFlicker) {
    NearbyDetector d(NearbyOptions{.enter_margin = 1.0f, .leave_margin = 2.0f});
    RecordingSink sink;
    nearby_test::insert(d, 1, box_at(0, 0), sink);
    nearby_test::insert(d, 2, box_at(2, 0), sink);
    for (int i = 0; i < 20; ++i)
        nearby_test::update(d, 2, box_at(i % 2 == 0 ? 2.9f : 2.1f, 0), sink);  // gap 1.1 .. 1.9
    EXPECT_EQ(sink.events, 1u);
    nearby_test::update(d, 2, box_at(3.2f, 0), sink);  // gap 2.2: beyond the leave margin
    EXPECT_EQ(sink.stopped, (std::vector<Pair>{{1, 2}}));
    for (int i = 0; i < 20; ++i)
        nearby_test::update(d, 2, box_at(i % 2 == 0 ? 2.9f : 2.1f, 0), sink);  // not within enter
    EXPECT_EQ(sink.events, 2u);
    EXPECT_EQ(d.pair_count(), 0u);
}

TEST(NearbyDetector, RemoveReportsStoppedForEveryPartner) {
    NearbyDetector d;
    RecordingSink sink;
    nearby_test::insert(d, 5, box_at(0, 0), sink);
    nearby_test::insert(d, 3, box_at(1, 0), sink);
    nearby_test::insert(d, 9, box_at(0, 1), sink);
    sink.clear_call();
    ASSERT_EQ(nearby_test::remove(d, 5, sink), NearbyStatus::Ok);
    EXPECT_EQ(sorted(sink.stopped), (std::vector<Pair>{{3, 5}, {5, 9}}));
    EXPECT_FALSE(d.contains(5));
    EXPECT_EQ(d.size(), 2u);
    EXPECT_EQ(d.pair_count(), 1u);  // 3 and 9 are still nearby each other
}

TEST(NearbyDetector, ABoxSpanningManyCellsMeetsSmallBoxesFarFromItsCentre) {
    NearbyDetector d(NearbyOptions{.min_cell = 1.0f});
    RecordingSink sink;
    nearby_test::insert(d, 0, box_at(0.3f, 0.3f, 0.2f), sink);
    nearby_test::insert(d, 1, box_at(400.5f, -500.0f, 0.2f), sink);           // gap 0.3 to the huge box's right edge
    nearby_test::insert(d, 2, {{-400.0f, -800.0f}, {400.0f, 300.0f}}, sink);  // huge, reaches both
    EXPECT_EQ(sorted(sink.became), (std::vector<Pair>{{0, 2}, {1, 2}}));
    nearby_test::update(d, 2, {{-400.0f, -800.0f}, {-10.0f, 300.0f}}, sink);  // shrinks away from both
    EXPECT_EQ(sorted(sink.stopped), (std::vector<Pair>{{0, 2}, {1, 2}}));
}

TEST(NearbyDetector, EmptiedNodesAreReleased) {
    NearbyDetector d;
    NullNearbySink sink;
    for (std::uint32_t i = 0; i < 50; ++i) nearby_test::insert(d, i, box_at(static_cast<float>(i) * 7.0f, 0), sink);
    EXPECT_EQ(d.live_node_count(), 50u);
    for (std::uint32_t i = 0; i < 50; ++i) nearby_test::update(d, i, box_at(0, 0), sink);
    EXPECT_EQ(d.live_node_count(), 1u);
    for (std::uint32_t i = 0; i < 50; ++i) nearby_test::remove(d, i, sink);
    EXPECT_EQ(d.live_node_count(), 0u);
    EXPECT_EQ(d.pair_count(), 0u);
}

// ---- the cost claim ---------------------------------------------------------------------

// Work for small moves of one box that has nothing nearby, in a world of `count` other boxes
// at a fixed density, plus two huge boxes far from it so the upper levels are occupied too.
std::uint64_t quiet_move_work(std::uint32_t count) {
    NullNearbySink sink;
    NearbyDetector d(NearbyOptions{.enter_margin = 0.5f, .leave_margin = 1.0f, .min_cell = 8.0f});
    // Sixteen tiny boxes per level-0 cell (a 4 x 4 pattern, none nearby another), one cell in
    // every four along each axis, so the 100k world needs only 6250 nodes and the test stays
    // fast. The probe sits in a hole where no node's reach comes near its own.
    const auto side = static_cast<std::int32_t>(std::ceil(std::sqrt(static_cast<double>(count) / 16.0 + 9.0))) + 1;
    std::uint32_t id = 0;
    for (std::int32_t gx = 0; gx < side && id < count; ++gx) {
        for (std::int32_t gy = 0; gy < side && id < count; ++gy) {
            const auto x0 = static_cast<float>(gx * 32);
            const auto y0 = static_cast<float>(gy * 32);
            if (std::abs(x0 + 4.0f - 100.0f) < 48.0f && std::abs(y0 + 4.0f - 100.0f) < 48.0f) continue;
            for (int k = 0; k < 16 && id < count; ++k) {
                nearby_test::insert(d, id++,
                                    box_at(x0 + 0.8f + 2.0f * static_cast<float>(k % 4),
                                           y0 + 0.8f + 2.0f * static_cast<float>(k / 4), 0.1f),
                                    sink);
            }
        }
    }
    nearby_test::insert(d, id++, {{-9000.0f, -9000.0f}, {-8000.0f, -8500.0f}}, sink);
    nearby_test::insert(d, id++, {{-9000.0f, 8000.0f}, {-6000.0f, 9000.0f}}, sink);
    EXPECT_EQ(d.size(), count + 2);
    EXPECT_EQ(d.pair_count(), 0u);
    const std::uint32_t probe = id;
    nearby_test::insert(d, probe, box_at(100.25f, 100.25f, 0.2f), sink);
    const std::uint64_t before = d.counters().operations;
    constexpr int kMoves = 100;
    for (int i = 0; i < kMoves; ++i) {
        const float dx = 0.002f * static_cast<float>(i % 10);
        nearby_test::update(d, probe, box_at(100.25f + dx, 100.25f - dx, 0.2f), sink);
    }
    EXPECT_TRUE(d.neighbors(probe).empty());
    return (d.counters().operations - before) / kMoves;
}

TEST(NearbyDetector, AQuietMoveWithinItsNodeCostsTheSameAt1kAnd100kBoxes) {
    const std::uint64_t small = quiet_move_work(1000);
    const std::uint64_t large = quiet_move_work(100000);
    EXPECT_EQ(small, large);
    // The call, its own node, and the probe itself as the node's only member.
    EXPECT_EQ(large, 3u);
}

// Work per move of NodeChangeWorld's probe: every move takes it to the neighbouring node,
// one that was not live, while more levels are occupied the larger the world.
std::uint64_t node_change_work(std::uint32_t count) {
    const nearby_test::NodeChangeWorld world(count);
    NullNearbySink sink;
    NearbyDetector d(nearby_test::NodeChangeWorld::options());
    for (std::uint32_t id = 0; id < world.boxes().size(); ++id) nearby_test::insert(d, id, world.boxes()[id], sink);
    EXPECT_EQ(d.pair_count(), 0u);
    const std::uint32_t probe = world.probe_id();
    nearby_test::insert(d, probe, nearby_test::NodeChangeWorld::probe_at(0), sink);
    const std::uint32_t nodes = d.live_node_count();
    const std::uint64_t before = d.counters().operations;
    const std::uint64_t changes_before = d.counters().node_changes;
    constexpr int kMoves = 4 * nearby_test::NodeChangeWorld::kWalk;
    for (int i = 1; i <= kMoves; ++i) nearby_test::update(d, probe, nearby_test::NodeChangeWorld::probe_at(i), sink);
    EXPECT_EQ(d.counters().node_changes - changes_before, static_cast<std::uint64_t>(kMoves));
    EXPECT_EQ(d.live_node_count(), nodes);  // each move made one node and released one
    EXPECT_TRUE(d.neighbors(probe).empty());
    return (d.counters().operations - before) / kMoves;
}

// Issue 22's claim. Before it, a new node was linked by looking up cells on every occupied
// level, and the same walk cost 73, 81 and 83 operations per move at 1k, 100k and 1M boxes
// (levels 0-5, 0-9 and 0-10 occupied). Now the new node starts from the old node's links and
// looks only at the cells its reach newly comes near, on at most two levels per axis at or
// above its own: 38 at every size. Most of it is scanning the one or two clusters of sixteen
// boxes the probe passes (17 each).
TEST(NearbyDetector, AMoveToTheNextNodeCostsTheSameAt1kAnd1MBoxes) {
    const std::uint64_t small = node_change_work(1000);
    const std::uint64_t medium = node_change_work(100000);
    const std::uint64_t large = node_change_work(1000000);
    EXPECT_EQ(small, medium);
    EXPECT_EQ(small, large);
    EXPECT_EQ(large, 38u);
}

TEST(NearbyDetector, ABoxWanderingOverACellEdgeKeepsItsNode) {
    NullNearbySink sink;
    NearbyDetector d(NearbyOptions{.min_cell = 1.0f});
    nearby_test::insert(d, 0, box_at(0.9f, 0.5f, 0.2f), sink);
    nearby_test::insert(d, 1, box_at(30.0f, 30.0f, 0.2f), sink);  // a live node elsewhere, not linked
    const std::uint64_t before = d.counters().operations;
    for (int i = 0; i < 10; ++i) nearby_test::update(d, 0, box_at(i % 2 == 0 ? 1.1f : 0.9f, 0.5f, 0.2f), sink);
    EXPECT_EQ((d.counters().operations - before) / 10, 3u);  // no node made or dropped, no links
    EXPECT_EQ(d.counters().node_changes, 0u);
    EXPECT_EQ(d.live_node_count(), 2u);
}

// ---- bad input --------------------------------------------------------------------------

TEST(NearbyDetector, NonFiniteBoxesAreRejected) {
    NearbyDetector d;
    NullNearbySink sink;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_EQ(nearby_test::insert(d, 1, {{nan, 0}, {1, 1}}, sink), NearbyStatus::NonFiniteBox);
    EXPECT_EQ(nearby_test::insert(d, 1, {{0, 0}, {1, inf}}, sink), NearbyStatus::NonFiniteBox);
    EXPECT_FALSE(d.contains(1));
    ASSERT_EQ(nearby_test::insert(d, 1, box_at(0, 0), sink), NearbyStatus::Ok);
    EXPECT_EQ(nearby_test::update(d, 1, {{-inf, 0}, {1, 1}}, sink), NearbyStatus::NonFiniteBox);
    EXPECT_EQ(d.box(1).min.x, -0.5f);  // unchanged
}

TEST(NearbyDetector, InvertedBoxesAreRejected) {
    NearbyDetector d;
    NullNearbySink sink;
    EXPECT_EQ(nearby_test::insert(d, 1, {{1, 0}, {0, 1}}, sink), NearbyStatus::InvertedBox);
    ASSERT_EQ(nearby_test::insert(d, 1, box_at(0, 0), sink), NearbyStatus::Ok);
    EXPECT_EQ(nearby_test::update(d, 1, {{0, 2}, {1, 1}}, sink), NearbyStatus::InvertedBox);
    EXPECT_EQ(d.size(), 1u);
}

TEST(NearbyDetector, BoxesBeyondMaxCoordinateAreRejected) {
    NearbyDetector d(NearbyOptions{.max_coordinate = 100.0f});
    NullNearbySink sink;
    EXPECT_EQ(nearby_test::insert(d, 1, {{0, 0}, {101, 1}}, sink), NearbyStatus::OutOfRange);
    EXPECT_EQ(nearby_test::insert(d, 1, {{-100, -100}, {100, 100}}, sink), NearbyStatus::Ok);
}

TEST(NearbyDetector, UnknownIdsAreRejected) {
    NearbyDetector d(NearbyOptions{.max_ids = 1000});
    NullNearbySink sink;
    EXPECT_EQ(nearby_test::update(d, 7, box_at(0, 0), sink), NearbyStatus::UnknownId);
    EXPECT_EQ(nearby_test::remove(d, 7, sink), NearbyStatus::UnknownId);
    EXPECT_EQ(nearby_test::update(d, 5000, box_at(0, 0), sink), NearbyStatus::IdOutOfRange);
    EXPECT_EQ(nearby_test::insert(d, 1000, box_at(0, 0), sink), NearbyStatus::IdOutOfRange);
    nearby_test::insert(d, 7, box_at(0, 0), sink);
    nearby_test::remove(d, 7, sink);
    EXPECT_EQ(nearby_test::remove(d, 7, sink), NearbyStatus::UnknownId);
    EXPECT_TRUE(d.neighbors(7).empty());
    EXPECT_TRUE(d.neighbors(123456).empty());
}

TEST(NearbyDetector, DoubleInsertIsRejectedAndKeepsTheFirstBox) {
    NearbyDetector d;
    RecordingSink sink;
    ASSERT_EQ(nearby_test::insert(d, 1, box_at(0, 0), sink), NearbyStatus::Ok);
    ASSERT_EQ(nearby_test::insert(d, 2, box_at(1, 0), sink), NearbyStatus::Ok);
    EXPECT_EQ(nearby_test::insert(d, 1, box_at(50, 50), sink), NearbyStatus::AlreadyPresent);
    EXPECT_EQ(d.box(1).min.x, -0.5f);
    EXPECT_EQ(d.pair_count(), 1u);
    EXPECT_EQ(sink.events, 1u);
}

TEST(NearbyDetector, OptionsValidateRejectsNonsense) {
    EXPECT_EQ(NearbyOptions{}.validate(), "");
    EXPECT_NE((NearbyOptions{.enter_margin = 2.0f, .leave_margin = 1.0f}).validate(), "");
    EXPECT_NE((NearbyOptions{.enter_margin = -1.0f}).validate(), "");
    EXPECT_NE((NearbyOptions{.min_cell = 0.0f}).validate(), "");
    EXPECT_NE((NearbyOptions{.leave_margin = std::numeric_limits<float>::infinity()}).validate(), "");
    EXPECT_NE((NearbyOptions{.min_cell = 1e-3f, .max_coordinate = 1e6f}).validate(), "");  // 1e9 cells
    EXPECT_NE((NearbyOptions{.max_ids = 0}).validate(), "");
}

// ---- determinism ------------------------------------------------------------------------

class HashingSink final : public NearbySink {
public:
    void became_nearby(std::uint32_t a, std::uint32_t b) override { h = mix64(h ^ (std::uint64_t{a} << 32 | b)); }
    void stopped_being_nearby(std::uint32_t a, std::uint32_t b) override {
        h = mix64(h ^ (std::uint64_t{b} << 32 | a) ^ 0x5707ULL);
    }
    std::uint64_t h = 0;
};

std::uint64_t event_checksum(std::uint64_t seed) {
    Scenario scenario(ScenarioConfig{.kind = ScenarioKind::MixedSizes, .count = 150, .world = 60.0f, .seed = seed});
    NearbyDetector d;
    HashingSink sink;
    std::vector<Op> ops = scenario.initial();
    for (int t = 0; t <= 30; ++t) {
        if (t > 0) scenario.tick(ops);
        for (const Op& op : ops) {
            if (op.kind == OpKind::Insert) nearby_test::insert(d, op.id, op.box, sink);
            if (op.kind == OpKind::Update) nearby_test::update(d, op.id, op.box, sink);
            if (op.kind == OpKind::Remove) nearby_test::remove(d, op.id, sink);
        }
    }
    return mix64(sink.h ^ d.pair_count());
}

TEST(NearbyDetector, TheSameSeedGivesTheSameEventStream) {
    EXPECT_EQ(event_checksum(42), event_checksum(42));
}

TEST(NearbyDetector, EventStreamMatchesTheGoldenChecksum) {
    const std::uint64_t got = event_checksum(42);
    // Re-pinned with the O(1) node change: nodes list their links in another order, so
    // events within one call come in another order (per call, the sorted events are the same
    // as before, checked against the previous detector).
    constexpr std::uint64_t kGolden = 0x53d3447cd37298a9ULL;
    EXPECT_EQ(got, kGolden) << "actual checksum: 0x" << std::hex << got;
}

}  // namespace
}  // namespace vantage
