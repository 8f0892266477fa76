#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <vector>

#include "core/relevance_scenarios.hpp"
#include "vantage/cross_link.hpp"
#include "vantage/proximity.hpp"

namespace vantage {
namespace {

using scenario::Layout;

std::vector<std::uint32_t> sorted(std::vector<std::uint32_t> v) {
    std::sort(v.begin(), v.end());
    return v;
}

std::vector<std::uint32_t> neighbors(CrossLink& cl, std::uint32_t id, float r) {
    std::vector<std::uint32_t> out;
    EXPECT_EQ(cl.neighbors_in_radius(id, r, out), CrossLinkStatus::Ok);
    return sorted(std::move(out));
}

// Brute force around entity i, without i itself.
std::vector<std::uint32_t> oracle_neighbors(const std::vector<Vec2>& points, std::uint32_t i, float r) {
    std::vector<std::uint32_t> out;
    brute_force_in_radius(points, points[i], r, out);
    out.erase(std::remove(out.begin(), out.end(), i), out.end());
    return out;
}

TEST(CrossLink, MoveAndRemoveChangeWhatAQuerySees) {
    CrossLink cl;
    cl.add(1, {0.0f, 0.0f});
    cl.add(2, {50.0f, 50.0f});
    EXPECT_TRUE(neighbors(cl, 1, 8.0f).empty());
    EXPECT_EQ(cl.move(2, {3.0f, 4.0f}), CrossLinkStatus::Ok);
    EXPECT_EQ(neighbors(cl, 1, 8.0f), (std::vector<std::uint32_t>{2}));
    EXPECT_EQ(neighbors(cl, 1, 5.0f), (std::vector<std::uint32_t>{2}));  // inclusive
    EXPECT_EQ(cl.remove(2), CrossLinkStatus::Ok);
    EXPECT_TRUE(neighbors(cl, 1, 8.0f).empty());
    EXPECT_EQ(cl.remove(1), CrossLinkStatus::Ok);
    EXPECT_EQ(cl.size(), 0u);
    EXPECT_EQ(cl.validate_structure(), nullptr);
}

// The core property: after adds and then many moves (short steps and teleports), every
// entity's neighbours match brute force, for every layout and many seeds.
TEST(CrossLink, MatchesBruteForceForEveryLayoutSeedAndRadiusAcrossMoves) {
    for (const Layout layout : scenario::kAllLayouts) {
        for (std::uint64_t seed = 1; seed <= 6; ++seed) {
            XorShift rng(seed * 6151 + static_cast<std::uint64_t>(layout));
            const float cell = 10.0f + static_cast<float>(rng.below(40));
            const scenario::World w = scenario::world_for(layout, 500.0f, cell);
            const auto n = static_cast<std::size_t>(40 + rng.below(120));
            std::vector<Vec2> points = scenario::make_points(layout, w, n, rng);
            CrossLink cl({.id_limit = static_cast<std::uint32_t>(n)});
            for (std::uint32_t i = 0; i < n; ++i) {
                const CrossLinkStatus s =
                    i > 0 && rng.chance(0.5f) ? cl.add_near(i, points[i], i - 1) : cl.add(i, points[i]);
                ASSERT_EQ(s, CrossLinkStatus::Ok);
            }
            for (int round = 0; round < 2; ++round) {
                ASSERT_EQ(cl.validate_structure(), nullptr)
                    << "layout " << scenario::layout_name(layout) << " seed " << seed;
                for (std::uint32_t i = 0; i < n; ++i) {
                    const float radii[] = {0.0f, cell, 2.5f * cell,
                                           distance(points[i], points[static_cast<std::size_t>(rng.below(n))])};
                    for (const float r : radii) {
                        ASSERT_EQ(neighbors(cl, i, r), oracle_neighbors(points, i, r))
                            << "layout " << scenario::layout_name(layout) << " seed " << seed << " round " << round
                            << " entity " << i << " radius " << r;
                    }
                }
                for (std::uint32_t i = 0; i < n; ++i) {
                    if (rng.chance(0.1f)) {
                        points[i] = w.origin + Vec2{rng.range(0.0f, w.extent), rng.range(0.0f, w.extent)};
                    } else if (layout != Layout::CellBoundaries) {
                        points[i] += Vec2{rng.range(-cell, cell), rng.range(-cell, cell)};
                    }
                    ASSERT_EQ(cl.move(i, points[i]), CrossLinkStatus::Ok);
                }
            }
        }
    }
}

// Brute-force model of the watcher rule: a member stays while within leave, a non-member
// enters when within enter. Applied to every pair after every operation.
struct ViewOracle {
    struct Watcher {
        float enter = 0.0f;
        float leave = 0.0f;
        std::set<std::uint32_t> view;
    };
    std::map<std::uint32_t, Vec2> where;
    std::map<std::uint32_t, Watcher> watchers;

    void settle() {
        for (auto& [w, watcher] : watchers) {
            for (const auto& [e, p] : where) {
                if (e == w) continue;
                const bool in = watcher.view.count(e) != 0;
                const bool keep =
                    in ? within_radius(p, where[w], watcher.leave) : within_radius(p, where[w], watcher.enter);
                if (keep)
                    watcher.view.insert(e);
                else
                    watcher.view.erase(e);
            }
        }
    }
};

// The header promises y list order: the answer's y coordinates never decrease, with
// neighbours both below and above the entity (the walk goes out both ways from it).
TEST(CrossLink, NeighboursComeOutInAscendingYListOrder) {
    std::size_t straddling = 0;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        XorShift rng(seed * 31 + 7);
        const scenario::World w = scenario::world_for(Layout::Uniform, 300.0f, 30.0f);
        const std::size_t n = 200;
        const std::vector<Vec2> points = scenario::make_points(Layout::Uniform, w, n, rng);
        CrossLink cl({.id_limit = static_cast<std::uint32_t>(n)});
        for (std::uint32_t i = 0; i < n; ++i) ASSERT_EQ(cl.add(i, points[i]), CrossLinkStatus::Ok);
        for (std::uint32_t i = 0; i < n; ++i) {
            std::vector<std::uint32_t> out = {999};  // cleared, then filled
            ASSERT_EQ(cl.neighbors_in_radius(i, 60.0f, out), CrossLinkStatus::Ok);
            ASSERT_EQ(std::count(out.begin(), out.end(), 999u), 0);
            const auto y_order = [&](std::uint32_t a, std::uint32_t b) { return points[a].y < points[b].y; };
            ASSERT_TRUE(std::is_sorted(out.begin(), out.end(), y_order)) << "seed " << seed << " entity " << i;
            ASSERT_EQ(sorted(out), oracle_neighbors(points, i, 60.0f)) << "seed " << seed << " entity " << i;
            const bool below =
                std::any_of(out.begin(), out.end(), [&](std::uint32_t m) { return points[m].y < points[i].y; });
            const bool above =
                std::any_of(out.begin(), out.end(), [&](std::uint32_t m) { return points[m].y > points[i].y; });
            straddling += below && above ? 1 : 0;
        }
    }
    EXPECT_GT(straddling, 0u) << "no answer had neighbours on both sides: the test exercises nothing";
}

// add() without a hint starts from landmarks taken as the population doubles; they drift
// with moves and go stale with removals (and their ids come back elsewhere). The lists
// stay sorted and queries exact whatever state the landmarks are in.
TEST(CrossLink, AddsFromStaleAndDriftedLandmarksKeepTheListsExact) {
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        XorShift rng(seed * 977 + 3);
        const std::uint32_t n = 3000;
        CrossLink cl({.id_limit = n});
        std::vector<Vec2> where(n);
        std::vector<bool> in(n, false);
        for (int step = 0; step < 12000; ++step) {
            const auto id = static_cast<std::uint32_t>(rng.below(n));
            const Vec2 p{rng.range(0.0f, 1000.0f), rng.range(0.0f, 1000.0f)};
            const float action = rng.unit();
            if (!in[id]) {
                ASSERT_EQ(cl.add(id, p), CrossLinkStatus::Ok) << "seed " << seed << " step " << step;
                in[id] = true;
                where[id] = p;
            } else if (action < 0.2f) {
                ASSERT_EQ(cl.remove(id), CrossLinkStatus::Ok);
                in[id] = false;
            } else {
                ASSERT_EQ(cl.move(id, p), CrossLinkStatus::Ok);  // a teleport: landmarks drift
                where[id] = p;
            }
        }
        ASSERT_EQ(cl.validate_structure(), nullptr) << "seed " << seed;
        std::vector<std::uint32_t> out;
        for (std::uint32_t id = 0; id < n; id += 37) {
            if (!in[id]) continue;
            out.clear();
            ASSERT_EQ(cl.neighbors_in_radius(id, 40.0f, out), CrossLinkStatus::Ok);
            std::vector<std::uint32_t> want;
            for (std::uint32_t m = 0; m < n; ++m)
                if (m != id && in[m] && within_radius(where[m], where[id], 40.0f)) want.push_back(m);
            ASSERT_EQ(sorted(out), want) << "seed " << seed << " entity " << id;
        }
    }
}

TEST(CrossLink, WatcherViewsFollowTheHysteresisRuleForManySeeds) {
    for (std::uint64_t seed = 1; seed <= 24; ++seed) {
        XorShift rng(seed * 31337);
        const std::uint32_t ids = 32;
        const float world = 200.0f;
        CrossLink cl({.id_limit = ids});
        ViewOracle oracle;
        std::map<std::uint32_t, std::set<std::uint32_t>> mirror;  // views rebuilt from events alone
        for (int op = 0; op < 160; ++op) {
            const auto id = static_cast<std::uint32_t>(rng.below(ids));
            const bool present = oracle.where.count(id) != 0;
            const std::uint64_t kind = rng.below(10);
            if (!present || kind == 0) {
                const Vec2 p{rng.range(0.0f, world), rng.range(0.0f, world)};
                if (present) {
                    ASSERT_EQ(cl.move(id, p), CrossLinkStatus::Ok);
                } else {
                    ASSERT_EQ(cl.add(id, p), CrossLinkStatus::Ok);
                }
                oracle.where[id] = p;
            } else if (kind <= 5) {
                const Vec2 p = oracle.where[id] + Vec2{rng.range(-15.0f, 15.0f), rng.range(-15.0f, 15.0f)};
                ASSERT_EQ(cl.move(id, p), CrossLinkStatus::Ok);
                oracle.where[id] = p;
            } else if (kind <= 7) {
                const float enter = rng.range(0.0f, 60.0f);
                const float margin = rng.chance(0.2f) ? 0.0f : rng.range(0.0f, 20.0f);
                ASSERT_EQ(cl.watch(id, enter, margin), CrossLinkStatus::Ok);
                auto& watcher = oracle.watchers[id];
                watcher.enter = enter;
                watcher.leave = enter + margin;
            } else if (kind == 8) {
                ASSERT_EQ(cl.unwatch(id), CrossLinkStatus::Ok);
                oracle.watchers.erase(id);
                mirror.erase(id);
            } else {
                ASSERT_EQ(cl.remove(id), CrossLinkStatus::Ok);
                oracle.where.erase(id);
                oracle.watchers.erase(id);
                for (auto& [w, watcher] : oracle.watchers) watcher.view.erase(id);
                mirror.erase(id);
            }
            oracle.settle();
            for (const AoiEvent& e : cl.events()) {
                if (e.kind == AoiEventKind::Entered) {
                    ASSERT_TRUE(mirror[e.watcher].insert(e.subject).second) << "seed " << seed << " op " << op;
                } else {
                    ASSERT_EQ(mirror[e.watcher].erase(e.subject), 1u) << "seed " << seed << " op " << op;
                }
            }
            cl.clear_events();
            ASSERT_EQ(cl.validate_structure(), nullptr) << "seed " << seed << " op " << op;
            for (const auto& [w, watcher] : oracle.watchers) {
                const auto view = cl.view(w);
                const std::vector<std::uint32_t> want(watcher.view.begin(), watcher.view.end());
                ASSERT_EQ(sorted({view.begin(), view.end()}), want)
                    << "seed " << seed << " op " << op << " watcher " << w;
                ASSERT_EQ(std::vector<std::uint32_t>(mirror[w].begin(), mirror[w].end()), want)
                    << "seed " << seed << " op " << op << " watcher " << w << " (events)";
            }
        }
    }
}

TEST(CrossLink, ANeighbourLoiteringOnTheBoundaryDoesNotFlap) {
    CrossLink cl;
    cl.add(0, {0.0f, 0.0f});
    cl.add(1, {110.0f, 0.0f});
    ASSERT_EQ(cl.watch(0, 100.0f, 20.0f), CrossLinkStatus::Ok);
    EXPECT_TRUE(cl.view(0).empty());
    EXPECT_TRUE(cl.events().empty());
    cl.move(1, {99.0f, 0.0f});
    ASSERT_EQ(cl.events().size(), 1u);
    EXPECT_EQ(cl.events()[0], (AoiEvent{0, 1, AoiEventKind::Entered}));
    cl.clear_events();
    for (const float x : {110.0f, 119.0f, 101.0f, 120.0f}) cl.move(1, {x, 0.0f});
    EXPECT_TRUE(cl.events().empty());
    cl.move(1, {121.0f, 0.0f});
    ASSERT_EQ(cl.events().size(), 1u);
    EXPECT_EQ(cl.events()[0], (AoiEvent{0, 1, AoiEventKind::Left}));
}

TEST(CrossLink, AMovingWatcherSeesStationaryEntitiesEnterAndLeave) {
    CrossLink cl;
    cl.add(0, {0.0f, 0.0f});
    cl.add(1, {50.0f, 0.0f});
    cl.watch(0, 10.0f, 5.0f);
    cl.move(0, {45.0f, 0.0f});
    ASSERT_EQ(cl.events().size(), 1u);
    EXPECT_EQ(cl.events()[0], (AoiEvent{0, 1, AoiEventKind::Entered}));
    cl.move(0, {0.0f, 0.0f});
    ASSERT_EQ(cl.events().size(), 2u);
    EXPECT_EQ(cl.events()[1], (AoiEvent{0, 1, AoiEventKind::Left}));
}

TEST(CrossLink, RemovingAnEntityTakesItOutOfEveryView) {
    CrossLink cl;
    cl.add(0, {0.0f, 0.0f});
    cl.add(1, {1.0f, 0.0f});
    cl.add(2, {2.0f, 0.0f});
    cl.watch(0, 5.0f, 0.0f);
    cl.watch(2, 5.0f, 0.0f);
    cl.clear_events();
    EXPECT_EQ(cl.remove(1), CrossLinkStatus::Ok);
    ASSERT_EQ(cl.events().size(), 2u);
    EXPECT_EQ(sorted({cl.view(0).begin(), cl.view(0).end()}), (std::vector<std::uint32_t>{2}));
    EXPECT_EQ(sorted({cl.view(2).begin(), cl.view(2).end()}), (std::vector<std::uint32_t>{0}));
    EXPECT_EQ(cl.validate_structure(), nullptr);
}

TEST(CrossLink, ADuplicateAddMovesTheExistingEntity) {
    CrossLink cl;
    EXPECT_EQ(cl.add(3, {1.0f, 1.0f}), CrossLinkStatus::Ok);
    EXPECT_EQ(cl.add(3, {9.0f, 9.0f}), CrossLinkStatus::MovedExisting);
    EXPECT_EQ(cl.size(), 1u);
    EXPECT_EQ(cl.position(3), (Vec2{9.0f, 9.0f}));
    EXPECT_EQ(cl.validate_structure(), nullptr);
}

TEST(CrossLink, UnknownAndOutOfRangeIdsAreReportedAndChangeNothing) {
    CrossLink cl({.id_limit = 10});
    cl.add(1, {0.0f, 0.0f});
    std::vector<std::uint32_t> out;
    EXPECT_EQ(cl.move(2, {1.0f, 1.0f}), CrossLinkStatus::UnknownId);
    EXPECT_EQ(cl.remove(2), CrossLinkStatus::UnknownId);
    EXPECT_EQ(cl.neighbors_in_radius(2, 5.0f, out), CrossLinkStatus::UnknownId);
    EXPECT_EQ(cl.watch(2, 5.0f, 1.0f), CrossLinkStatus::UnknownId);
    EXPECT_EQ(cl.unwatch(2), CrossLinkStatus::UnknownId);
    EXPECT_EQ(cl.add_near(4, {0.0f, 0.0f}, 2), CrossLinkStatus::UnknownId);
    EXPECT_EQ(cl.add(10, {0.0f, 0.0f}), CrossLinkStatus::IdOutOfRange);
    EXPECT_EQ(cl.move(4000000000u, {0.0f, 0.0f}), CrossLinkStatus::IdOutOfRange);
    EXPECT_EQ(cl.remove(10), CrossLinkStatus::IdOutOfRange);
    EXPECT_EQ(cl.neighbors_in_radius(10, 5.0f, out), CrossLinkStatus::IdOutOfRange);
    EXPECT_TRUE(out.empty());
    EXPECT_EQ(cl.size(), 1u);
    EXPECT_FALSE(cl.contains(4));
    EXPECT_FALSE(cl.position(99).has_value());
    EXPECT_TRUE(cl.view(99).empty());
    EXPECT_EQ(cl.validate_structure(), nullptr);
}

TEST(CrossLink, RemovingAnAbsentIdTwiceIsReportedBothTimes) {
    CrossLink cl;
    cl.add(5, {0.0f, 0.0f});
    EXPECT_EQ(cl.remove(5), CrossLinkStatus::Ok);
    EXPECT_EQ(cl.remove(5), CrossLinkStatus::UnknownId);
    EXPECT_EQ(cl.remove(5), CrossLinkStatus::UnknownId);
    EXPECT_EQ(cl.size(), 0u);
}

TEST(CrossLink, NonFinitePositionsAreRejectedAndChangeNothing) {
    CrossLink cl;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_EQ(cl.add(1, {nan, 0.0f}), CrossLinkStatus::NonFinitePosition);
    EXPECT_FALSE(cl.contains(1));
    cl.add(1, {2.0f, 3.0f});
    EXPECT_EQ(cl.move(1, {0.0f, inf}), CrossLinkStatus::NonFinitePosition);
    EXPECT_EQ(cl.add(1, {-inf, 0.0f}), CrossLinkStatus::NonFinitePosition);
    EXPECT_EQ(cl.position(1), (Vec2{2.0f, 3.0f}));
    EXPECT_EQ(cl.validate_structure(), nullptr);
}

TEST(CrossLink, BadRadiiAreRejectedOrMatchNothing) {
    CrossLink cl;
    cl.add(0, {0.0f, 0.0f});
    cl.add(1, {0.0f, 0.0f});
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_EQ(cl.watch(0, -1.0f, 0.0f), CrossLinkStatus::InvalidRadius);
    EXPECT_EQ(cl.watch(0, 1.0f, nan), CrossLinkStatus::InvalidRadius);
    EXPECT_EQ(cl.watch(0, inf, 0.0f), CrossLinkStatus::InvalidRadius);
    EXPECT_EQ(cl.watch(0, 1.0f, -0.5f), CrossLinkStatus::InvalidRadius);
    EXPECT_FALSE(cl.is_watching(0));
    EXPECT_TRUE(neighbors(cl, 0, -1.0f).empty());
    EXPECT_TRUE(neighbors(cl, 0, nan).empty());
    EXPECT_EQ(neighbors(cl, 0, 0.0f), (std::vector<std::uint32_t>{1}));
}

TEST(CrossLink, RemovingEveryoneLeavesEmptyLists) {
    XorShift rng(12);
    CrossLink cl({.id_limit = 100});
    for (std::uint32_t i = 0; i < 100; ++i) cl.add(i, {rng.range(0.0f, 10.0f), rng.range(0.0f, 10.0f)});
    for (std::uint32_t i = 0; i < 100; ++i) EXPECT_EQ(cl.remove((i * 37) % 100), CrossLinkStatus::Ok);
    EXPECT_EQ(cl.size(), 0u);
    EXPECT_EQ(cl.validate_structure(), nullptr);
    cl.add(4, {1.0f, 1.0f});
    EXPECT_EQ(cl.validate_structure(), nullptr);
}

TEST(CrossLinkOptions, ValidateNamesTheProblem) {
    EXPECT_EQ(CrossLinkOptions{}.validate(), "");
    EXPECT_NE(CrossLinkOptions{.id_limit = 0}.validate(), "");
    EXPECT_NE(CrossLinkOptions{.id_limit = CrossLinkOptions::kMaxIdLimit + 1}.validate(), "");
}

}  // namespace
}  // namespace vantage
