// The horde's player-enemy contacts: the SpatialGrid the world rebuilds every tick
// against a NearbyDetector kept up to date, on the horde's own workload.
//
// HordeWorld (defaults: 3000 enemies, 4 players, spread, combat, seed 1) is run for 5 s to
// form its hordes, then 10 s of ticks are recorded: after each step, the alive enemies (slot,
// position) and the players' positions, which is what the next step's contact test reads.
// The contacts of a player are the alive enemies within kContactRadius of it
// (within_radius, as HordeWorld::fight asks the grid). Both methods are checked to give the
// same contact sets on every recorded tick before anything is timed.
//
//   - Grid: SpatialGrid::build over the alive enemies (the world does this every tick for
//     its other queries too) and one query_radius per player. BM_HordeContactsGridQueries
//     times the queries alone on grids built beforehand: the cost contacts add to the world.
//   - Detector: every enemy and player is a point box in one NearbyDetector (enter and leave
//     margin kContactRadius, so nearby is the square around the circle); each tick inserts
//     the spawned, removes the killed and updates everyone else, then filters each player's
//     partners to the circle. It cannot ask for player-enemy pairs only, so it also keeps
//     every enemy-enemy pair of the packed hordes up to date.
// Iterations play the recorded ticks forwards and backwards, so motion stays tick-sized.
// Time per tick; `contacts` is the contacts per tick (all players), `ops` the detector's
// counters().operations per tick and `pairs` the pairs it keeps, mean per tick.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "../support/nearby_sink.hpp"
#include "horde/horde_world.hpp"
#include "vantage/nearby_detector.hpp"
#include "vantage/proximity.hpp"
#include "vantage/spatial_grid.hpp"

namespace vantage::play {
namespace {

using nearby_test::NullNearbySink;

constexpr int kWarmTicks = 300;
constexpr int kTicks = 600;
constexpr std::uint32_t kPlayerBase = 1u << 16;  // detector ids of the players (slots stay below 8000)

struct Tick {
    std::vector<std::uint32_t> ids;  // alive enemy slots, ascending
    std::vector<Vec2> positions;     // parallel to ids
    std::vector<Vec2> players;
};

const std::vector<Tick>& recorded() {
    static const std::vector<Tick> ticks = [] {
        HordeWorld world(HordeWorldOptions{});
        for (int i = 0; i < kWarmTicks; ++i) world.step(1.0 / 60.0);
        std::vector<Tick> out;
        for (int i = 0; i < kTicks; ++i) {
            world.step(1.0 / 60.0);
            out.push_back({{world.alive_ids().begin(), world.alive_ids().end()},
                           {world.alive_positions().begin(), world.alive_positions().end()},
                           {world.player_positions().begin(), world.player_positions().end()}});
        }
        return out;
    }();
    return ticks;
}

// Position after s steps of a forwards-backwards walk over the recorded ticks.
std::size_t tick_of(std::int64_t s) {
    const std::int64_t period = 2 * (kTicks - 1);
    const std::int64_t p = s % period;
    return static_cast<std::size_t>(p < kTicks ? p : period - p);
}

SpatialGrid make_grid() {
    return SpatialGrid(
        {.origin = {0.0f, 0.0f}, .extent = {horde::kArena, horde::kArena}, .cell_size = horde::kCellSize});
}

// Contacts of every player, each list sorted, appended player by player into `out`.
void grid_contacts(const SpatialGrid& grid, const Tick& t, std::vector<std::uint32_t>& scratch,
                   std::vector<std::vector<std::uint32_t>>& out) {
    out.resize(t.players.size());
    for (std::size_t p = 0; p < t.players.size(); ++p) {
        scratch.clear();
        grid.query_radius(t.players[p], horde::kContactRadius, scratch);
        out[p].assign(scratch.begin(), scratch.end());
        std::sort(out[p].begin(), out[p].end());
    }
}

NearbyDetector::Box point(Vec2 p) {
    return {p, p};
}

// A NearbyDetector holding the horde, moved from one recorded tick to another by the
// inserts, removes and updates a world would make.
class DetectorContacts {
public:
    explicit DetectorContacts(float min_cell)
        : detector_(NearbyOptions{.enter_margin = horde::kContactRadius,
                                  .leave_margin = horde::kContactRadius,
                                  .min_cell = min_cell,
                                  .max_coordinate = 2.0f * horde::kArena}) {}

    void go_to(const Tick& t) {
        ++stamp_;
        for (std::size_t i = 0; i < t.ids.size(); ++i) {
            const std::uint32_t id = t.ids[i];
            if (id >= seen_.size()) seen_.resize(id + 1, 0);
            seen_[id] = stamp_;
            const NearbyDetector::Box box = point(t.positions[i]);
            if (detector_.contains(id)) {
                nearby_test::update(detector_, id, box, sink_);
            } else {
                nearby_test::insert(detector_, id, box, sink_);
            }
        }
        for (std::uint32_t id = 0; id < seen_.size(); ++id) {
            if (seen_[id] != stamp_ && detector_.contains(id)) nearby_test::remove(detector_, id, sink_);
        }
        for (std::uint32_t p = 0; p < t.players.size(); ++p) {
            if (detector_.contains(kPlayerBase + p)) {
                nearby_test::update(detector_, kPlayerBase + p, point(t.players[p]), sink_);
            } else {
                nearby_test::insert(detector_, kPlayerBase + p, point(t.players[p]), sink_);
            }
        }
        positions_.assign(seen_.size(), Vec2{});
        for (std::size_t i = 0; i < t.ids.size(); ++i) positions_[t.ids[i]] = t.positions[i];
    }

    void contacts(const Tick& t, std::vector<std::vector<std::uint32_t>>& out) const {
        out.resize(t.players.size());
        for (std::uint32_t p = 0; p < t.players.size(); ++p) {
            out[p].clear();
            for (const std::uint32_t id : detector_.neighbors(kPlayerBase + p)) {
                if (id < kPlayerBase && within_radius(positions_[id], t.players[p], horde::kContactRadius)) {
                    out[p].push_back(id);
                }
            }
            std::sort(out[p].begin(), out[p].end());
        }
    }

    const NearbyDetector& detector() const { return detector_; }

private:
    NearbyDetector detector_;
    NullNearbySink sink_;
    std::vector<std::uint32_t> seen_;  // slot -> stamp_ of the last tick it was alive in
    std::vector<Vec2> positions_;      // slot -> position at the current tick
    std::uint32_t stamp_ = 0;
};

// Both methods over every recorded tick, in playback order: true when the contact sets agree.
bool contacts_agree(float min_cell, std::uint64_t& total_contacts) {
    const std::vector<Tick>& ticks = recorded();
    SpatialGrid grid = make_grid();
    DetectorContacts detector(min_cell);
    std::vector<std::uint32_t> scratch;
    std::vector<std::vector<std::uint32_t>> a;
    std::vector<std::vector<std::uint32_t>> b;
    total_contacts = 0;
    for (std::int64_t s = 0; s < 2 * (kTicks - 1); ++s) {
        const Tick& t = ticks[tick_of(s)];
        grid.build(t.ids, t.positions);
        grid_contacts(grid, t, scratch, a);
        detector.go_to(t);
        detector.contacts(t, b);
        if (a != b) return false;
        for (const auto& c : a) total_contacts += c.size();
    }
    return true;
}

void BM_HordeContactsGrid(benchmark::State& state) {
    const std::vector<Tick>& ticks = recorded();
    SpatialGrid grid = make_grid();
    std::vector<std::uint32_t> scratch;
    std::vector<std::vector<std::uint32_t>> out;
    std::int64_t step = 0;
    std::uint64_t contacts = 0;
    for (auto _ : state) {
        const Tick& t = ticks[tick_of(step++)];
        grid.build(t.ids, t.positions);
        grid_contacts(grid, t, scratch, out);
        for (const auto& c : out) contacts += c.size();
    }
    state.counters["contacts"] = static_cast<double>(contacts) / static_cast<double>(std::max<std::int64_t>(1, step));
}
BENCHMARK(BM_HordeContactsGrid)->Unit(benchmark::kMicrosecond);

void BM_HordeContactsGridQueries(benchmark::State& state) {
    const std::vector<Tick>& ticks = recorded();
    std::vector<SpatialGrid> grids;
    for (const Tick& t : ticks) {
        grids.push_back(make_grid());
        grids.back().build(t.ids, t.positions);
    }
    std::vector<std::uint32_t> scratch;
    std::vector<std::vector<std::uint32_t>> out;
    std::int64_t step = 0;
    for (auto _ : state) {
        const std::size_t k = tick_of(step++);
        grid_contacts(grids[k], ticks[k], scratch, out);
        benchmark::DoNotOptimize(out.data());
    }
}
BENCHMARK(BM_HordeContactsGridQueries)->Unit(benchmark::kMicrosecond);

// Arg: the detector's min_cell, world units (the contact radius and its half and double).
void BM_HordeContactsNearby(benchmark::State& state) {
    const auto min_cell = static_cast<float>(state.range(0));
    std::uint64_t total = 0;
    if (!contacts_agree(min_cell, total)) {
        state.SkipWithError("the detector's contact sets differ from the grid's");
        return;
    }
    const std::vector<Tick>& ticks = recorded();
    DetectorContacts detector(min_cell);
    detector.go_to(ticks[0]);
    std::vector<std::vector<std::uint32_t>> out;
    const std::uint64_t ops_before = detector.detector().counters().operations;
    std::int64_t step = 0;
    std::uint64_t pairs = 0;
    for (auto _ : state) {
        const Tick& t = ticks[tick_of(++step)];
        detector.go_to(t);
        detector.contacts(t, out);
        benchmark::DoNotOptimize(out.data());
        pairs += detector.detector().pair_count();
    }
    const auto ticks_run = static_cast<double>(std::max<std::int64_t>(1, step));
    state.counters["ops"] = static_cast<double>(detector.detector().counters().operations - ops_before) / ticks_run;
    state.counters["pairs"] = static_cast<double>(pairs) / ticks_run;  // mean pairs kept, nearly all enemy-enemy
    state.counters["contacts"] = static_cast<double>(total) / static_cast<double>(2 * (kTicks - 1));
}
BENCHMARK(BM_HordeContactsNearby)
    ->ArgName("min_cell")
    ->Arg(4)
    ->Arg(8)
    ->Arg(11)
    ->Arg(22)
    ->Arg(44)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace vantage::play
