// `./vantage report proximity`: the tables behind playgrounds/proximity/README.md, the
// proximity chapter's figures (seed 004) and the claims of seeds 001 and 002 (all summarised
// in core/docs/background.md), on this machine. A report must be deterministic, so every cost
// here is an operation count (see proximity_sim.hpp and the README for what each lane
// counts); wall-clock timings live in the benchmarks (tests/bench/relevance_bench.cpp,
// nearby_bench.cpp) and in the page.
//
// Each row is one world: reset, one warm-up tick (more where a section says), then two
// measured ticks (their mean). Table sizes are the chapter's; a given `creatures` caps them
// (so a quick run stays quick).
#include <algorithm>
#include <cmath>
#include <string>

#include "common/host.hpp"
#include "common/report_table.hpp"
#include "proximity/proximity_sim.hpp"

namespace vantage::play {
namespace {

constexpr int kMeasuredTicks = 2;

struct World {
    int creatures = 1000;
    double world = 2100.0;
    bool grow = false;
    bool clustered = false;
    int clusters = 6;
    double spread = 120.0;
    double moving_pct = 100.0;
    bool hash = false;
    bool crosslink = false;
    bool nearby = false;
    bool brute = false;
    bool representative = false;
    bool cohesion = false;
    bool pack_leader = true;
    double speed = 0.0;  // units/s; 0 keeps the settings' speed
    int warmup = 1;      // ticks run before measuring
};

// Builds and runs one world from the given settings with `w` on top.
std::unique_ptr<ProximitySim> run(const ReportOptions& options, const World& w) {
    auto sim = std::make_unique<ProximitySim>();
    apply_settings(*sim, options.settings);
    ProximitySettings& s = sim->settings();
    s.creatures = w.creatures;
    s.world = w.world;
    s.grow_world = w.grow;
    s.clustered = w.clustered;
    s.clusters = w.clusters;
    s.spread = w.spread;
    s.moving_pct = w.moving_pct;
    s.hash = w.hash;
    s.crosslink = w.crosslink;
    s.nearby = w.nearby;
    s.brute = w.brute;
    s.brute_cap = std::clamp(w.creatures, 100, 20000);
    s.representative = w.representative;
    s.cohesion = w.cohesion;
    s.pack_leader = w.pack_leader;
    if (w.speed > 0.0) s.speed = w.speed;
    sim->reset(options.seed);
    const double dt = 1.0 / options.tick_hz;
    for (int i = 0; i < w.warmup; ++i) sim->step(dt);
    sim->begin_measurement();
    for (int i = 0; i < kMeasuredTicks; ++i) sim->step(dt);
    return sim;
}

int cap(const ReportOptions& options, int creatures) {
    ProximitySim probe;
    apply_settings(probe, options.settings);
    const bool given = options.settings.find("creatures=") != std::string::npos;
    return given ? std::min(creatures, probe.settings().creatures) : creatures;
}

double ratio(double a, double b) {
    return b > 0 ? a / b : 0.0;
}

void all_pairs_section(const ReportOptions& o, std::FILE* out) {
    std::fprintf(out, "\n## 1. The all-pairs wall: brute force against the dense bin%s\n",
                 o.sweep_note({"creatures"}).c_str());
    std::fprintf(out, "(same density as the page's default, world grown with the population; ops per tick)\n\n");
    ReportTable t(out, o.csv, {"creatures:9", "brute ops", "dense ops", "brute/dense", "pairs", "dense disagree"});
    for (const int n : {1000, 5000, 20000}) {
        World w{.creatures = cap(o, n), .world = 2100.0 / std::sqrt(1.5), .grow = true, .brute = true};
        auto sim = run(o, w);
        const auto& b = sim->lane(ProximityLaneKind::Brute);
        const auto& d = sim->lane(ProximityLaneKind::Dense);
        t.cell("%d", w.creatures);
        t.cell("%.3g", b.ops.run_mean());
        t.cell("%.3g", d.ops.run_mean());
        t.cell("%.0fx", ratio(b.ops.run_mean(), d.ops.run_mean()));
        t.cell("%.0f", d.pairs.run_mean());
        t.cell("%.0f", b.disagree.run_max());
        t.end_row();
    }
}

void dense_hash_section(const ReportOptions& o, std::FILE* out) {
    std::fprintf(out, "\n## 2. Dense bin against the bolt-on hash grid%s\n", o.sweep_note({"creatures"}).c_str());
    std::fprintf(out,
                 "(world 24000 units, about one creature per cell; ops per tick: build, then build + queries)\n\n");
    ReportTable t(out, o.csv,
                  {"creatures:9", "dense build", "dense total", "hash build", "hash total", "hash/dense", "disagree"});
    for (const int n : {100000, 1000000}) {
        World w{.creatures = cap(o, n), .world = 24000.0, .hash = true};
        auto sim = run(o, w);
        const auto& d = sim->lane(ProximityLaneKind::Dense);
        const auto& h = sim->lane(ProximityLaneKind::Hash);
        t.cell("%d", w.creatures);
        t.cell("%.3g", d.build_ops.run_mean());
        t.cell("%.3g", d.ops.run_mean());
        t.cell("%.3g", h.build_ops.run_mean());
        t.cell("%.3g", h.ops.run_mean());
        t.cell("%.2fx", ratio(h.ops.run_mean(), d.ops.run_mean()));
        t.cell("%.0f", h.disagree.run_max());
        t.end_row();
    }
}

void density_wall_section(const ReportOptions& o, std::FILE* out) {
    std::fprintf(out,
                 "\n## 3. The density wall: nearest creature to each food point (n/10 of them), exact vs one "
                 "representative per cell%s\n",
                 o.sweep_note({"creatures", "world", "grow_world"}).c_str());
    std::fprintf(out, "(ops per query: candidates tested by the exact query, cells read by the representative)\n\n");
    ReportTable t(out, o.csv,
                  {"world:6", "creatures:9", "per cell", "exact ops/q", "rep ops/q", "exact growth", "differ",
                   "mean err cells", "worst err cells"});
    for (const bool grow : {false, true}) {
        double last = 0.0;
        for (const int n : {100000, 300000, 1000000}) {
            World w{.creatures = cap(o, n), .world = grow ? 600.0 : 6000.0, .grow = grow, .representative = true};
            auto sim = run(o, w);
            const ProximitySim::Nearest& r = sim->nearest();
            const double queries = static_cast<double>(sim->food().size());
            const double exact = r.exact_ops.run_mean() / queries;
            t.cell("%s", grow ? "grown" : "fixed");
            t.cell("%d", w.creatures);
            t.cell("%.2f",
                   static_cast<double>(w.creatures) * sim->radius() * sim->radius() / (sim->side() * sim->side()));
            t.cell("%.1f", exact);
            t.cell("%.2f", r.rep_ops.run_mean() / queries);
            t.cell(last > 0 ? "%.1fx" : "-", ratio(exact, last));
            t.cell("%.0f%%", r.mismatch_pct.run_mean());
            t.cell("%.3f", r.error_cells.run_mean());
            t.cell("%.3f", r.worst_cells.run_max());
            t.end_row();
            last = exact;
        }
    }
}

void pack_section(const ReportOptions& o, std::FILE* out) {
    std::fprintf(out, "\n## 4. The pack leader: all-pairs cohesion against one centroid%s\n",
                 o.sweep_note({"creatures"}).c_str());
    std::fprintf(out, "(ops per tick of finding the pack's centre; the largest distance between the two answers)\n\n");
    ReportTable t(out, o.csv, {"creatures:9", "all-pairs ops", "centroid ops", "ratio", "answers differ by"});
    for (const int n : {5000, 20000}) {
        World w{.creatures = cap(o, n),
                .world = 2100.0 / std::sqrt(1.5),
                .grow = true,
                .cohesion = true,
                .pack_leader = false};
        auto sim = run(o, w);
        const double pairs = sim->pack_ops().run_mean();
        t.cell("%d", w.creatures);
        t.cell("%.3g", pairs);
        t.cell("%.3g", 2.0 * w.creatures);
        t.cell("%.0fx", ratio(pairs, 2.0 * w.creatures));
        std::vector<Meter> m;
        sim->meters(m);
        double diff = 0.0;
        for (const Meter& x : m) diff = x.name == "pack.diff" ? x.value : diff;
        t.cell("%.2g units", diff);
        t.end_row();
    }
}

void maintain_section(const ReportOptions& o, std::FILE* out) {
    std::fprintf(
        out,
        "\n## 5. Recompute or maintain: the dense bin's rebuild against the maintained structures (seeds 001, 002)%s\n",
        o.sweep_note({"creatures", "moving_pct", "clustered"}).c_str());
    std::fprintf(out,
                 "(ops per tick; the detector's maintenance is its update work, CrossLink's query is its x and y band "
                 "walks)\n\n");
    ReportTable t(out, o.csv,
                  {"world:14", "creatures:9", "moving", "dense build", "dense total", "detector upkeep", "upkeep/move",
                   "detector total", "crosslink/query", "dense/query", "events"});
    struct Row {
        const char* label;
        int creatures;
        double moving;
        bool spot;
    };
    for (const Row& row :
         {Row{"uniform", 1000, 100, false}, Row{"uniform", 10000, 100, false}, Row{"uniform", 100000, 100, false},
          Row{"uniform", 10000, 5, false}, Row{"uniform", 100000, 5, false}, Row{"one spot", 2000, 100, true}}) {
        World w{.creatures = cap(o, row.creatures),
                .world = 2100.0 / std::sqrt(1.5),
                .grow = true,
                .clustered = row.spot,
                .clusters = 1,
                .spread = 10.0,
                .moving_pct = row.moving,
                .crosslink = true,
                .nearby = true};
        auto sim = run(o, w);
        const auto& d = sim->lane(ProximityLaneKind::Dense);
        const auto& nb = sim->lane(ProximityLaneKind::Nearby);
        const auto& cl = sim->lane(ProximityLaneKind::CrossLink);
        const double n = static_cast<double>(w.creatures);
        const double moves = n * row.moving / 100.0;
        t.cell("%s", row.label);
        t.cell("%d", w.creatures);
        t.cell("%.0f%%", row.moving);
        t.cell("%.3g", d.build_ops.run_mean());
        t.cell("%.3g", d.ops.run_mean());
        t.cell("%.3g", nb.build_ops.run_mean());
        t.cell("%.1f", ratio(nb.build_ops.run_mean(), moves));
        t.cell("%.3g", nb.ops.run_mean());
        t.cell("%.1f", cl.ops.run_mean() / n);
        t.cell("%.1f", d.ops.run_mean() / n);
        t.cell("%.1f", d.events.run_mean());
        t.end_row();
    }
}

// NearbyDetector's cost claim (core/docs/nearby.md): an update that moves a creature to
// another detector node (almost always the next cell) costs the same whatever the population.
// Creatures start in their own nodes and only change node once they are half a cell past
// their cell, so this section runs them at the top speed (400 units/s, a cell in 3.6 ticks at
// 60 Hz) after eight warm-up ticks, long enough for a steady stream of node changes. Only the
// dense bin (always on) and the detector run, so 1M stays quick.
void node_change_section(const ReportOptions& o, std::FILE* out) {
    std::fprintf(out, "\n## 6. The detector's node changes (seed 002's O(1) per move)%s\n",
                 o.sweep_note({"creatures", "creature_speed"}).c_str());
    std::fprintf(out,
                 "(same density as section 5, everything moving at 400 units/s; per tick, then ops per update that "
                 "changed node and per update that did not)\n\n");
    ReportTable t(out, o.csv, {"creatures:9", "moves", "node changes", "ops/change", "ops/other move", "upkeep/move"});
    for (const int n : {1000, 10000, 100000, 1000000}) {
        World w{.creatures = cap(o, n),
                .world = 2100.0 / std::sqrt(1.5),
                .grow = true,
                .nearby = true,
                .speed = 400.0,
                .warmup = 8};
        auto sim = run(o, w);
        const auto& nb = sim->lane(ProximityLaneKind::Nearby);
        const double moves = static_cast<double>(w.creatures);
        const double changes = nb.node_changes.run_mean();
        const double change_ops = nb.node_change_ops.run_mean();
        t.cell("%d", w.creatures);
        t.cell("%.3g", moves);
        t.cell("%.3g", changes);
        t.cell("%.1f", ratio(change_ops, changes));
        t.cell("%.1f", ratio(nb.build_ops.run_mean() - change_ops, moves - changes));
        t.cell("%.1f", ratio(nb.build_ops.run_mean(), moves));
        t.end_row();
    }
}

}  // namespace

void proximity_report(const ReportOptions& options, std::FILE* out) {
    std::fprintf(out, "# proximity report (seed %llu)%s\n", static_cast<unsigned long long>(options.seed),
                 options.settings.empty() ? "" : (" with " + options.settings_text()).c_str());
    std::fprintf(out, "Operation counts, deterministic: one warm-up tick, then the mean of %d ticks per row.\n",
                 kMeasuredTicks);
    all_pairs_section(options, out);
    dense_hash_section(options, out);
    density_wall_section(options, out);
    pack_section(options, out);
    maintain_section(options, out);
    node_change_section(options, out);
}

}  // namespace vantage::play
