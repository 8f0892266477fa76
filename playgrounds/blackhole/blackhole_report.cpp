// The black-hole report: the tables behind playgrounds/blackhole/README.md.
//
//   ./vantage report blackhole [--seed N] [--seconds S] [--csv] [key=value ...]
//
// Every row is a headless run of BlackholeSim at the given seed and settings; each run serves
// the same world through all three lanes, so the full and culled rows are measured beside
// every aggregated one. Errors are pooled over the run after a warm-up.
#include <cstdio>
#include <functional>

#include "blackhole/blackhole_sim.hpp"
#include "common/host.hpp"

namespace vantage::play {
namespace {

constexpr double kWarmupS = 3.0;

struct LaneRow {
    double kib_s = 0.0;
    double field_kib_s = 0.0;
    double field_share_pct = 0.0;
    double attractors = 0.0;
    double evals_m_s = 0.0;
    double pull_pct = 0.0;
    double weight_pct = 0.0;
    double field_error_pct = 0.0;
    ErrorStats error;
};

struct RunResult {
    LaneRow full;
    LaneRow culled;
    LaneRow aggregated;
};

LaneRow read_lane(const BlackholeSim& sim, LaneKind kind) {
    const BlackholeSim::Lane& lane = sim.lane(kind);
    LaneRow row;
    // Bandwidth, its field share and the force evaluations are averaged since reset, warm-up
    // included, as these tables have always printed them (the field and error columns are
    // the run's); run_per_sec() would exclude the warm-up but move the published numbers.
    row.kib_s = lane.bytes.lifetime_per_sec() / 1024.0;
    row.field_kib_s = lane.field_bytes.lifetime_per_sec() / 1024.0;
    row.field_share_pct = lane.bytes.total() > 0.0 ? 100.0 * lane.field_bytes.total() / lane.bytes.total() : 0.0;
    row.attractors = lane.attractors.run_mean();
    row.pull_pct = lane.pull_pct.run_mean();
    row.weight_pct = lane.weight_pct.run_mean();
    row.field_error_pct = lane.field_error_pct.run_mean();
    row.evals_m_s = lane.evaluations.lifetime_per_sec() / static_cast<double>(lane.seats.size()) / 1e6;
    row.error = sim.lifetime_error(kind);
    return row;
}

// The settings every run starts from: the defaults with the given settings applied.
BlackholeSettings given_settings(const ReportOptions& options) {
    BlackholeSim sim;
    apply_settings(sim, options.settings);
    return sim.settings();
}

// One run: the given settings, then the table's own sweep values (`sweep`) on top.
RunResult run(const ReportOptions& options, const std::function<void(BlackholeSettings&)>& sweep) {
    BlackholeSim sim;
    apply_settings(sim, options.settings);
    sweep(sim.settings());
    run_measured(
        sim, {.warmup_s = kWarmupS, .measure_s = options.seconds, .tick_hz = options.tick_hz, .seed = options.seed});
    return {read_lane(sim, LaneKind::Full), read_lane(sim, LaneKind::Culled), read_lane(sim, LaneKind::Aggregated)};
}

void header(const ReportOptions& o, std::FILE* out, const char* title, const char* columns) {
    if (o.csv) {
        std::fprintf(out, "# %s\n%s\n", title, columns);
    } else {
        std::fprintf(out, "\n## %s\n\n", title);
    }
}

void lane_row(const ReportOptions& o, std::FILE* out, const char* config, const LaneRow& r) {
    if (o.csv) {
        std::fprintf(out, "%s,%.2f,%.2f,%.1f,%.2f,%.3f,%.1f,%.1f,%.2f,%.1f,%.1f,%.1f\n", config, r.kib_s, r.field_kib_s,
                     r.field_share_pct, r.attractors, r.evals_m_s, r.pull_pct, r.weight_pct, r.field_error_pct,
                     r.error.median, r.error.p90, r.error.worst);
    } else {
        std::fprintf(out,
                     "| %s | %.1f | %.1f | %.0f%% | %.1f | %.2f M | %.0f%% | %.0f%% | %.1f%% | %.1f | %.0f | %.0f |\n",
                     config, r.kib_s, r.field_kib_s, r.field_share_pct, r.attractors, r.evals_m_s, r.pull_pct,
                     r.weight_pct, r.field_error_pct, r.error.median, r.error.p90, r.error.worst);
    }
}

const char* kLaneColumns =
    "config,kib_s,field_kib_s,field_share_pct,attractors,force_evals_m_s,pull_pct,"
    "weight_pct,field_error_pct,median_px,p90_px,worst_px";

void lane_table_head(const ReportOptions& o, std::FILE* out) {
    if (o.csv) return;
    std::fprintf(out,
                 "| config | KiB/s | field KiB/s | field share | attractors | force evals/s per client | your field "
                 "(pull) | weight kept | field error | median px | p90 px | worst px |\n"
                 "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
}

}  // namespace

void blackhole_report(const ReportOptions& options, std::FILE* out) {
    const BlackholeSettings given = given_settings(options);
    const std::string settings = options.settings_text();
    if (options.csv && !settings.empty()) std::fprintf(out, "# settings: %s\n", settings.c_str());
    if (!options.csv) {
        std::fprintf(out,
                     "# Black holes: culling vs aggregation\n\nseed %llu, %d Hz, %.0f simulated s per run after a "
                     "%.0f s warm-up; %d clients per lane, %d pellets, %.0f Hz sends, %d corrections per packet, "
                     "latency %.0f ms, jitter %.0f ms, view radius %.0f. KiB/s is every client of the lane together; "
                     "force evaluations are per client machine.\n",
                     static_cast<unsigned long long>(options.seed), options.tick_hz, options.seconds, kWarmupS,
                     given.clients, given.pellets, given.send_hz, given.corrections, given.latency_ms, given.jitter_ms,
                     given.view_radius);
        if (!settings.empty()) {
            std::fprintf(out,
                         "\nsettings: %s (a table whose sweep varies one of them overrides it there, as its "
                         "title says)\n",
                         settings.c_str());
        }
    }

    // 1: the field at 64 holes, full vs culled vs aggregated, point walk and disc walk.
    const std::string title1 =
        "1. The field at 64 holes: full, culled, aggregated" + options.sweep_note({"holes", "theta", "disc_walk"});
    header(options, out, title1.c_str(), kLaneColumns);
    lane_table_head(options, out);
    const float thetas[] = {0.3f, 0.5f, 0.8f, 1.2f, 1.5f};
    bool first = true;
    for (const bool disc : {false, true}) {
        for (const float theta : thetas) {
            const RunResult r = run(options, [&](BlackholeSettings& s) {
                s.holes = 64;
                s.theta = theta;
                s.disc_walk = disc;
            });
            if (first) {
                lane_row(options, out, "full", r.full);
                lane_row(options, out, "culled", r.culled);
                first = false;
            }
            char config[64];
            std::snprintf(config, sizeof config, "%s theta %.1f", disc ? "disc walk" : "point walk", theta);
            lane_row(options, out, config, r.aggregated);
        }
    }

    // 2: the hole-count sweep, every lane at the default angle and walk.
    char title2[160];
    std::snprintf(title2, sizeof title2, "2. Hole-count sweep (aggregated lane at the %s: %s, theta %.1f)%s",
                  settings.empty() ? "defaults" : "settings", given.disc_walk ? "disc walk" : "point walk", given.theta,
                  options.sweep_note({"holes"}).c_str());
    header(
        options, out, title2,
        "holes,lane,kib_s,field_kib_s,field_share_pct,attractors,force_evals_m_s,pull_pct,weight_pct,field_error_pct,"
        "median_px,p90_px,worst_px");
    if (!options.csv) {
        std::fprintf(out,
                     "| holes | lane | KiB/s | field KiB/s | field share | attractors | force evals/s per client | "
                     "your field (pull) | weight kept | field error | median px | p90 px | worst px |\n"
                     "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    }
    for (const int holes : {4, 8, 16, 32, 64}) {
        const RunResult r = run(options, [&](BlackholeSettings& s) { s.holes = holes; });
        const std::pair<const char*, const LaneRow*> rows[] = {
            {"full", &r.full}, {"culled", &r.culled}, {"aggregated", &r.aggregated}};
        for (const auto& [lane, row] : rows) {
            char config[64];
            std::snprintf(config, sizeof config, options.csv ? "%d,%s" : "%d | %s", holes, lane);
            lane_row(options, out, config, *row);
        }
    }

    // 3: the correction budget at the defaults (the full lane; every lane gets the same).
    const std::string title3 = std::string("3. Correction budget at the ") +
                               (settings.empty() ? "defaults" : "settings") + " (full lane)" +
                               options.sweep_note({"corrections"});
    header(options, out, title3.c_str(), "corrections,refresh_s,kib_s,field_kib_s,median_px,p90_px,worst_px");
    if (!options.csv) {
        std::fprintf(out,
                     "| corrections per packet | every pellet refreshed every | KiB/s | field KiB/s | median px | "
                     "p90 px | worst px |\n|---|---|---|---|---|---|---|\n");
    }
    for (const int corrections : {0, 40, 100, 250}) {
        const RunResult r = run(options, [&](BlackholeSettings& s) { s.corrections = corrections; });
        const double refresh_s =
            corrections > 0 ? static_cast<double>(given.pellets) / (corrections * given.send_hz) : 0.0;
        char refresh[32];
        if (corrections > 0) {
            std::snprintf(refresh, sizeof refresh, "%.1f s", refresh_s);
        } else {
            std::snprintf(refresh, sizeof refresh, "never");
        }
        if (options.csv) {
            std::fprintf(out, "%d,%.2f,%.2f,%.2f,%.1f,%.1f,%.1f\n", corrections, refresh_s, r.full.kib_s,
                         r.full.field_kib_s, r.full.error.median, r.full.error.p90, r.full.error.worst);
        } else {
            std::fprintf(out, "| %d | %s | %.1f | %.1f | %.1f | %.0f | %.0f |\n", corrections, refresh, r.full.kib_s,
                         r.full.field_kib_s, r.full.error.median, r.full.error.p90, r.full.error.worst);
        }
    }
}

}  // namespace vantage::play
