// `./vantage report horde`: the tables behind playgrounds/horde/README.md. Each table is one
// run of the same seeded world with several lanes in lockstep (so rows differ only in
// strategy), a warm-up of kWarmupS simulated seconds, then options.seconds measured. Every
// run starts from the given settings (apply_settings on the report's own lanes too); a table's
// lanes fix their own recovery and theta, so a per-lane setting of the page's lanes
// ("acked_recovery") names no lane here and is skipped.
#include <string>
#include <vector>

#include "common/host.hpp"
#include "common/report_table.hpp"
#include "horde/horde_sim.hpp"

namespace vantage::play {

namespace {

constexpr double kWarmupS = 5.0;

HordeLaneConfig lane(const char* name, bool recovery, bool relevance, float theta, std::optional<AckFrontier> frontier,
                     CorrectionCoding coding = CorrectionCoding::Predicted,
                     std::optional<double> budget_kib_s = std::nullopt) {
    return HordeLaneConfig{name, recovery, relevance, false, theta, frontier, coding, budget_kib_s};
}

void run(HordeSim& sim, const ReportOptions& options) {
    sim.reset(options.seed);
    const double dt = 1.0 / options.tick_hz;
    const auto warmup = static_cast<long>(kWarmupS * options.tick_hz);
    const auto measured = static_cast<long>(options.seconds * options.tick_hz);
    for (long i = 0; i < warmup; ++i) sim.step(dt);
    sim.restart_measurement();
    for (long i = 0; i < measured; ++i) sim.step(dt);
}

void relevance_section(const ReportOptions& options, const HordeSettings& given, std::FILE* out) {
    std::fprintf(out, "\n## 1. Relevance: each client told about its view only, vs the whole arena to everyone%s\n",
                 options.sweep_note({"spread"}).c_str());
    std::fprintf(out, "(%g%% loss, naive diffs so the comparison is relevance alone; KiB/s for all clients)\n\n",
                 given.loss_pct);
    ReportTable t(out, options.csv,
                  {"players:9", "culled KiB/s", "broadcast KiB/s", "culled", "knows", "of", "uuid+f32 KiB/s",
                   "compact saves", "spawns/pkt", "despawns/pkt", "corrections share"});
    for (const bool spread : {true, false}) {
        HordeSim sim(
            {lane("culled", false, true, 0.0f, std::nullopt), lane("broadcast", false, false, 0.0f, std::nullopt)});
        apply_settings(sim, options.settings);
        sim.settings().spread = spread;
        run(sim, options);
        const HordeLaneTotals c = sim.totals(0);
        const HordeLaneTotals b = sim.totals(1);
        t.cell("%s", spread ? "spread" : "clustered");
        t.cell("%.1f", c.kib_s);
        t.cell("%.1f", b.kib_s);
        t.cell("%.1f%%", b.kib_s > 0 ? 100.0 * (1.0 - c.kib_s / b.kib_s) : 0.0);
        t.cell("%.0f", c.held);
        t.cell("%zu", sim.world().alive_count());
        t.cell("%.1f", c.uuid_kib_s);
        t.cell("%.0f%%", c.uuid_kib_s > 0 ? 100.0 * (1.0 - c.kib_s / c.uuid_kib_s) : 0.0);
        t.cell("%.1f", c.spawns_per_packet);
        t.cell("%.1f", c.despawns_per_packet);
        t.cell("%.0f%%", 100.0 * c.samples_share);
        t.end_row();
    }
}

void loss_section(const ReportOptions& options, std::FILE* out) {
    std::fprintf(out, "\n## 2. Delta recovery under loss (the same losses in every row of a block)%s\n",
                 options.sweep_note({"loss"}).c_str());
    std::fprintf(out,
                 "(per client: phantoms = held but dead on the server, missing = relevant but not held, held;\n"
                 " all clients: mismatches, resyncs, KiB/s; err = render error at the drawn instant)\n\n");
    ReportTable t(out, options.csv,
                  {"loss", "recovery:18", "mismatches", "phantoms", "missing", "held", "resyncs", "KiB/s", "vs naive",
                   "err mean px", "err worst px"});
    for (const double loss : {0.0, 2.0, 5.0, 10.0, 25.0}) {
        HordeSim sim({lane("naive", false, true, 0.0f, std::nullopt),
                      lane("acked any-received", true, true, 0.0f, AckFrontier::AnyReceived),
                      lane("acked contiguous", true, true, 0.0f, AckFrontier::Contiguous)});
        apply_settings(sim, options.settings);
        sim.settings().loss_pct = loss;
        run(sim, options);
        const double naive_kib = sim.totals(0).kib_s;
        for (std::size_t i = 0; i < sim.lane_count(); ++i) {
            const HordeLaneTotals x = sim.totals(i);
            t.cell("%.0f%%", loss);
            t.cell("%s", sim.lane(i).config().name.c_str());
            t.cell("%llu", static_cast<unsigned long long>(x.mismatches));
            t.cell("%.1f", x.phantoms);
            t.cell("%.1f", x.missing);
            t.cell("%.0f", x.held);
            t.cell("%llu", static_cast<unsigned long long>(x.resyncs));
            t.cell("%.1f", x.kib_s);
            t.cell("%+.1f%%", naive_kib > 0 ? 100.0 * (x.kib_s / naive_kib - 1.0) : 0.0);
            t.cell("%.1f", x.err_mean_px);
            t.cell("%.0f", x.err_worst_px);
            t.end_row();
        }
    }
}

void crowd_section(const ReportOptions& options, const HordeSettings& given, std::FILE* out) {
    std::fprintf(out, "\n## 3. Crowd summaries of the world outside the view (AggregateTree, weight = headcount)%s\n",
                 options.sweep_note({"theta"}).c_str());
    std::fprintf(out,
                 "(%g%% loss, acked; per client and frame: summaries, coverage of the enemies outside the view;\n"
                 " crowd B/s and total KiB/s for all clients)\n\n",
                 given.loss_pct);
    ReportTable t(out, options.csv, {"theta", "summaries", "coverage", "crowd B/s", "total KiB/s", "vs off"});
    const std::vector<float> thetas = {0.0f, 0.2f, 0.4f, 0.8f, 1.5f};
    std::vector<HordeLaneConfig> lanes;
    std::vector<std::string> names;
    for (float theta : thetas) {
        char name[32];
        std::snprintf(name, sizeof name, "theta %.1f", static_cast<double>(theta));
        lanes.push_back(lane(name, true, true, theta, std::nullopt));
    }
    HordeSim sim(lanes);
    apply_settings(sim, options.settings);
    run(sim, options);
    const double off = sim.totals(0).kib_s;
    for (std::size_t i = 0; i < thetas.size(); ++i) {
        const HordeLaneTotals x = sim.totals(i);
        if (thetas[i] > 0.0f) {
            t.cell("%.1f", static_cast<double>(thetas[i]));
        } else {
            t.cell("off");
        }
        t.cell("%.1f", x.summaries);
        t.cell("%.1f%%", 100.0 * x.coverage);
        t.cell("%.0f", x.crowd_kib_s * 1024.0);
        t.cell("%.1f", x.kib_s);
        t.cell("%+.1f%%", off > 0 ? 100.0 * (x.kib_s / off - 1.0) : 0.0);
        t.end_row();
    }
}

// Bytes per second per enemy a client holds, over every client of the lane.
double per_held(const HordeLaneTotals& x, double b_s, int clients) {
    const double held = x.held * static_cast<double>(clients);
    return held > 0 ? b_s / held : 0.0;
}

void bytes_section(const ReportOptions& options, const HordeSettings& given, std::FILE* out) {
    std::fprintf(out,
                 "\n## 4. Where the bytes go: the first wire (absolute corrections) and the predicted one, "
                 "in one run\n");
    std::fprintf(out,
                 "(%g%% loss, acked any-received; B/s per client and bytes per held enemy per second; the two lanes\n"
                 " see the same world and the same losses)\n\n",
                 given.loss_pct);
    HordeSim sim({lane("before", true, true, 0.0f, AckFrontier::AnyReceived, CorrectionCoding::Absolute),
                  lane("after", true, true, 0.0f, AckFrontier::AnyReceived, CorrectionCoding::Predicted)});
    apply_settings(sim, options.settings);
    run(sim, options);
    const HordeLaneTotals b = sim.totals(0);
    const HordeLaneTotals a = sim.totals(1);
    const int clients = sim.settings().players;
    const double n = static_cast<double>(std::max(1, clients));
    ReportTable t(out, options.csv,
                  {"part:26", "before B/s", "before B/held/s", "after B/s", "after B/held/s", "after vs before"});
    struct Part {
        const char* name;
        double before, after;
    };
    const Part parts[] = {
        {"header (type, time, length)", b.header_b_s, a.header_b_s},
        {"membership (frame, entries)", b.membership_b_s, a.membership_b_s},
        {"players", b.players_b_s, a.players_b_s},
        {"corrections", b.samples_b_s, a.samples_b_s},
        {"crowd", b.crowd_b_s, a.crowd_b_s},
        {"total", b.kib_s * 1024.0, a.kib_s * 1024.0},
    };
    for (const Part& p : parts) {
        t.cell("%s", p.name);
        t.cell("%.0f", p.before / n);
        t.cell("%.2f", per_held(b, p.before, clients));
        t.cell("%.0f", p.after / n);
        t.cell("%.2f", per_held(a, p.after, clients));
        t.cell("%+.1f%%", p.before > 0 ? 100.0 * (p.after / p.before - 1.0) : 0.0);
        t.end_row();
    }
    std::fprintf(out, "\n");
    ReportTable u(out, options.csv,
                  {"wire:8", "held", "corrections/s", "B/correction", "predicted", "unresolved", "phantoms",
                   "err mean px", "err worst px"});
    for (const HordeLaneTotals* x : {&b, &a}) {
        u.cell("%s", x == &b ? "before" : "after");
        u.cell("%.0f", x->held);
        u.cell("%.0f", x->corrections_per_s);
        u.cell("%.2f", x->corrections_per_s > 0 ? x->samples_b_s / n / x->corrections_per_s : 0.0);
        u.cell("%.1f%%", 100.0 * x->predicted_share);
        u.cell("%llu", static_cast<unsigned long long>(x->unresolved));
        u.cell("%.2f", x->phantoms);
        u.cell("%.3f", x->err_mean_px);
        u.cell("%.1f", x->err_worst_px);
        u.end_row();
    }
}

void wire_loss_section(const ReportOptions& options, std::FILE* out) {
    std::fprintf(out, "\n## 5. The two wires under loss: acked against naive, before and after%s\n",
                 options.sweep_note({"loss"}).c_str());
    std::fprintf(
        out,
        "(KiB/s all clients; B/held/s = bytes per second per held enemy; vs naive: the same wire's naive lane;\n"
        " membership and corrections: B/s per client, the two parts that differ between the lanes;\n"
        " per client: missing includes awaiting = held but awaiting a position, a repeat whose entry was lost)\n\n");
    ReportTable t(out, options.csv,
                  {"loss", "lane:16", "KiB/s", "B/held/s", "vs naive", "membership", "corrections", "phantoms",
                   "missing", "awaiting", "unresolved", "err mean px"});
    for (const double loss : {0.0, 25.0}) {
        HordeSim sim({lane("naive before", false, true, 0.0f, std::nullopt, CorrectionCoding::Absolute),
                      lane("acked before", true, true, 0.0f, AckFrontier::AnyReceived, CorrectionCoding::Absolute),
                      lane("naive after", false, true, 0.0f, std::nullopt, CorrectionCoding::Predicted),
                      lane("acked after", true, true, 0.0f, AckFrontier::AnyReceived, CorrectionCoding::Predicted)});
        apply_settings(sim, options.settings);
        sim.settings().loss_pct = loss;
        run(sim, options);
        const int clients = sim.settings().players;
        for (std::size_t i = 0; i < sim.lane_count(); ++i) {
            const HordeLaneTotals x = sim.totals(i);
            const double naive = sim.totals(i < 2 ? 0 : 2).kib_s;
            t.cell("%.0f%%", loss);
            t.cell("%s", sim.lane(i).config().name.c_str());
            t.cell("%.1f", x.kib_s);
            t.cell("%.2f", per_held(x, x.kib_s * 1024.0, clients));
            t.cell("%+.1f%%", naive > 0 ? 100.0 * (x.kib_s / naive - 1.0) : 0.0);
            t.cell("%.0f", x.membership_b_s / clients);
            t.cell("%.0f", x.samples_b_s / clients);
            t.cell("%.1f", x.phantoms);
            t.cell("%.1f", x.missing);
            t.cell("%.1f", x.awaiting);
            t.cell("%llu", static_cast<unsigned long long>(x.unresolved));
            t.cell("%.3f", x.err_mean_px);
            t.end_row();
        }
    }
}

void budget_section(const ReportOptions& options, const HordeSettings& given, std::FILE* out) {
    std::fprintf(out, "\n## 6. A byte budget per client: render error against budget%s\n",
                 options.sweep_note({"budget"}).c_str());
    std::fprintf(out,
                 "(%g%% loss, acked; per client: sent KiB/s, corrections/s, phantoms, missing, held; membership\n"
                 " first, then corrections by priority: time since the enemy's last value x closeness)\n\n",
                 given.loss_pct);
    const double budgets[] = {2.0, 4.0, 8.0, 16.0, 0.0};
    std::vector<HordeLaneConfig> lanes;
    for (double kib : budgets) {
        char name[32];
        if (kib > 0) {
            std::snprintf(name, sizeof name, "%g KiB/s", kib);
        } else {
            std::snprintf(name, sizeof name, "unlimited");
        }
        lanes.push_back(
            lane(name, true, true, 0.0f, AckFrontier::AnyReceived, CorrectionCoding::Predicted, std::optional(kib)));
    }
    HordeSim sim(lanes);
    apply_settings(sim, options.settings);
    run(sim, options);
    const double n = static_cast<double>(std::max(1, sim.settings().players));
    ReportTable t(out, options.csv,
                  {"budget:10", "KiB/s", "corrections/s", "phantoms", "missing", "held", "mismatches", "err mean px",
                   "err worst px"});
    for (std::size_t i = 0; i < sim.lane_count(); ++i) {
        const HordeLaneTotals x = sim.totals(i);
        t.cell("%s", sim.lane(i).config().name.c_str());
        t.cell("%.2f", x.kib_s / n);
        t.cell("%.0f", x.corrections_per_s);
        t.cell("%.1f", x.phantoms);
        t.cell("%.1f", x.missing);
        t.cell("%.0f", x.held);
        t.cell("%llu", static_cast<unsigned long long>(x.mismatches));
        t.cell("%.2f", x.err_mean_px);
        t.cell("%.0f", x.err_worst_px);
        t.end_row();
    }
}

}  // namespace

void horde_report(const ReportOptions& options, std::FILE* out) {
    HordeSim probe;  // the page's simulation, for the settings every run starts from
    apply_settings(probe, options.settings);
    const HordeSettings& given = probe.settings();
    std::fprintf(out, "# horde: %g simulated s measured after %g s warm-up, seed %llu, %d Hz ticks\n", options.seconds,
                 kWarmupS, static_cast<unsigned long long>(options.seed), options.tick_hz);
    if (const std::string settings = options.settings_text(); !settings.empty()) {
        std::fprintf(out,
                     "# settings: %s (a table whose sweep varies one of them overrides it there, as its title says)\n",
                     settings.c_str());
    }
    std::fprintf(out,
                 "(%d enemies, %d players, view radius %g in a 3000 x 3000 arena, %g Hz frames, %g Hz corrections,\n"
                 " %g ms latency + %g ms jitter each way unless a table says otherwise)\n",
                 given.enemies, given.players, given.view_radius, given.send_hz, given.sample_hz, given.latency_ms,
                 given.jitter_ms);
    relevance_section(options, given, out);
    loss_section(options, out);
    crowd_section(options, given, out);
    bytes_section(options, given, out);
    wire_loss_section(options, out);
    budget_section(options, given, out);
}

}  // namespace vantage::play
