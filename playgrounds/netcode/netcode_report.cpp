// `./vantage report netcode`: the tables behind playgrounds/netcode/README.md. Every cell is
// one headless run of NetcodeSim (the same seed, so the same packets are lost in every
// variant), measured after the start-up transient. Every run starts from the given settings;
// each table's sweep overrides the ones it varies (the network, always).
#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "common/host.hpp"
#include "common/report_table.hpp"
#include "netcode/netcode_sim.hpp"

namespace vantage::play {

namespace {

constexpr double kWarmupS = 3.0;  // the start-up transient every cell skips
constexpr double kLatencies[] = {50.0, 120.0, 250.0};
constexpr double kLosses[] = {0.0, 5.0, 20.0};

// One lane's run readings (since the warm-up), as the tables print them.
struct LaneRun {
    std::uint64_t frames = 0;  // frames with a state to draw
    double prediction_error = 0.0, player_stutter = 0.0, render_error = 0.0, remote_stutter = 0.0;  // px per frame
    std::uint64_t extrapolated_frames = 0;  // bots dead-reckoned, summed over frames
    double extrapolation_error = 0.0;       // px, summed over those
    std::uint64_t shots = 0, hits_rewound = 0, hits_present = 0;
    double up_bytes = 0.0, down_bytes = 0.0;
};

LaneRun read_run(const ClientLane& c) {
    auto count = [](double total) { return static_cast<std::uint64_t>(total); };
    return {.frames = c.render_error.run_samples(),
            .prediction_error = c.prediction_error.run_mean(),
            .player_stutter = c.player_stutter.run_mean(),
            .render_error = c.render_error.run_mean(),
            .remote_stutter = c.remote_stutter.run_mean(),
            .extrapolated_frames = count(c.extrapolated.run_total()),
            .extrapolation_error = c.extrapolation_error.run_total(),
            .shots = c.hits_rewound.run_samples(),
            .hits_rewound = count(c.hits_rewound.run_total()),
            .hits_present = count(c.hits_present.run_total()),
            .up_bytes = c.up_bytes.run_total(),
            .down_bytes = c.down_bytes.run_total()};
}

struct Run {
    LaneRun off, on;
    double off_present_px = 0.0, off_rewound_px = 0.0;  // mean distance from aim to the nearest target
    double on_present_px = 0.0, on_rewound_px = 0.0;
};

// The text layout these tables have always had: at least 8 wide, a gap after every column.
constexpr ReportTable::Layout kLayout{.min_width = 8, .gap_after_last = true};

// A simulation with the given settings, reset; a table's sweep sets its own values after.
void start(NetcodeSim& sim, const ReportOptions& o) {
    apply_settings(sim, o.settings);
    sim.reset(o.seed);
}

Run run(const ReportOptions& o, const std::function<void(NetcodeSim&)>& setup) {
    NetcodeSim sim;
    start(sim, o);
    setup(sim);
    continue_measured(sim, kWarmupS, o.seconds, o.tick_hz);
    const ServerSession& off = sim.lane(0).server;
    const ServerSession& on = sim.lane(1).server;
    return {.off = read_run(sim.lane(0)),
            .on = read_run(sim.lane(1)),
            .off_present_px = off.present_miss_px.run_mean(),
            .off_rewound_px = off.rewound_miss_px.run_mean(),
            .on_present_px = on.present_miss_px.run_mean(),
            .on_rewound_px = on.rewound_miss_px.run_mean()};
}

std::string num(double v, int decimals = 1) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}
std::string pct(double part, double whole) {
    return whole > 0.0 ? num(100.0 * part / whole, 0) + "%" : "-";
}

// The table's title, with the given settings its sweep overrides.
void title(std::FILE* out, const ReportOptions& o, const std::string& text,
           std::initializer_list<std::string_view> swept) {
    const std::string line = text + o.sweep_note(swept);
    std::fprintf(out, o.csv ? "\n# %s\n" : "\n%s\n", line.c_str());
}

// "10 Hz server": the server rate the tables that do not sweep it run at.
std::string server_rate(const ReportOptions& o) {
    NetcodeSim sim;
    apply_settings(sim, o.settings);
    return std::to_string(sim.settings().server_hz) + " Hz server";
}

void network(NetcodeSim& sim, double latency, double loss, double jitter) {
    sim.set("latency_ms", latency);
    sim.set("loss_pct", loss);
    sim.set("jitter_ms", jitter);
}

void player_table(const ReportOptions& o, std::FILE* out) {
    title(out, o,
          "Player: error of the drawn player against the zero-latency truth (px, mean per frame), " + server_rate(o) +
              ", jitter 0",
          {"latency_ms", "loss_pct", "jitter_ms", "reconciliation", "correction_smoothing"});
    ReportTable t(out, o.csv,
                  {"latency_ms", "loss_%", "none", "prediction", "+reconcile", "+smoothing", "stutter_reconcile",
                   "stutter_smoothing", "up_B/s"},
                  kLayout);
    for (double latency : kLatencies) {
        for (double loss : kLosses) {
            auto variant = [&](bool reconcile, bool smooth) {
                return run(o, [&](NetcodeSim& s) {
                    network(s, latency, loss, 0.0);
                    s.set("reconciliation", reconcile ? 1 : 0);
                    s.set("correction_smoothing", smooth ? 1 : 0);
                });
            };
            const Run predicted = variant(false, false);
            const Run reconciled = variant(true, false);
            const Run smoothed = variant(true, true);
            t.row({num(latency, 0), num(loss, 0), num(predicted.off.prediction_error),
                   num(predicted.on.prediction_error), num(reconciled.on.prediction_error),
                   num(smoothed.on.prediction_error), num(reconciled.on.player_stutter, 2),
                   num(smoothed.on.player_stutter, 2), num(smoothed.on.up_bytes / o.seconds, 0)});
        }
    }
}

void remote_table(const ReportOptions& o, std::FILE* out) {
    title(out, o,
          "Remotes: render error against where the bots are now / stutter against their true motion (px, mean per "
          "frame and bot), " +
              server_rate(o) + ", jitter 0",
          {"latency_ms", "loss_pct", "jitter_ms", "adaptive_buffering", "extrapolation"});
    ReportTable t(out, o.csv,
                  {"latency_ms", "loss_%", "newest", "interp_150ms", "+adaptive", "+extrapolate", "stutter_newest",
                   "stutter_interp", "stutter_adaptive", "stutter_extrap", "down_B/s"},
                  kLayout);
    for (double latency : kLatencies) {
        for (double loss : kLosses) {
            auto variant = [&](bool adaptive, bool extrapolate) {
                return run(o, [&](NetcodeSim& s) {
                    network(s, latency, loss, 0.0);
                    s.set("adaptive_buffering", adaptive ? 1 : 0);
                    s.set("extrapolation", extrapolate ? 1 : 0);
                });
            };
            const Run fixed = variant(false, false);
            const Run adaptive = variant(true, false);
            const Run extrapolated = variant(true, true);
            auto e = [](const LaneRun& s) { return num(s.render_error); };
            auto j = [](const LaneRun& s) { return num(s.remote_stutter, 2); };
            t.row({num(latency, 0), num(loss, 0), e(fixed.off), e(fixed.on), e(adaptive.on), e(extrapolated.on),
                   j(fixed.off), j(fixed.on), j(adaptive.on), j(extrapolated.on),
                   num(extrapolated.on.down_bytes / o.seconds, 0)});
        }
    }
}

void lag_compensation_table(const ReportOptions& o, std::FILE* out) {
    title(out, o,
          "Shots: the same shots judged rewound to the time the shooter saw (lag compensation) and against the "
          "present; hit radius 18 px; px: mean distance from the aim to the nearest target",
          {"latency_ms", "loss_pct", "jitter_ms"});
    ReportTable t(
        out, o.csv,
        {"latency_ms", "loss_%", "shots", "interp:rewound", "interp:present", "newest:rewound", "newest:present",
         "interp:px_rewound", "interp:px_present", "newest:px_rewound", "newest:px_present"},
        kLayout);
    for (double latency : kLatencies) {
        for (double loss : kLosses) {
            const Run r = run(o, [&](NetcodeSim& s) { network(s, latency, loss, 0.0); });
            t.row({num(latency, 0), num(loss, 0), std::to_string(r.on.shots),
                   pct(static_cast<double>(r.on.hits_rewound), static_cast<double>(r.on.shots)),
                   pct(static_cast<double>(r.on.hits_present), static_cast<double>(r.on.shots)),
                   pct(static_cast<double>(r.off.hits_rewound), static_cast<double>(r.off.shots)),
                   pct(static_cast<double>(r.off.hits_present), static_cast<double>(r.off.shots)), num(r.on_rewound_px),
                   num(r.on_present_px), num(r.off_rewound_px), num(r.off_present_px)});
        }
    }
}

void extrapolation_table(const ReportOptions& o, std::FILE* out, bool adaptive) {
    title(out, o,
          adaptive ? "Extrapolation at low server rates, adaptive buffering on: error only while dead-reckoning (px, "
                     "against the truth at the instant drawn); latency 120 ms, jitter 30 ms, loss 5%"
                   : "The same with adaptive buffering off (fixed 150 ms render delay)",
          {"latency_ms", "loss_pct", "jitter_ms", "server_hz", "adaptive_buffering", "second_order"});
    ReportTable t(out, o.csv, {"server_hz", "dead_reckoned", "first_order", "second_order", "change", "delay_note"},
                  kLayout);
    for (int hz : {30, 20, 10, 5, 4}) {
        auto variant = [&](bool second) {
            return run(o, [&](NetcodeSim& s) {
                network(s, 120.0, 5.0, 30.0);
                s.set("server_hz", hz);
                s.set("adaptive_buffering", adaptive ? 1 : 0);
                s.set("second_order", second ? 1 : 0);
            });
        };
        const Run first = variant(false);
        const Run second = variant(true);
        auto err = [](const LaneRun& s) {
            return s.extrapolated_frames ? s.extrapolation_error / static_cast<double>(s.extrapolated_frames) : 0.0;
        };
        const double e1 = err(first.on), e2 = err(second.on);
        const double bot_frames = static_cast<double>(first.on.frames * Arena::kBots);
        t.row({std::to_string(hz), pct(static_cast<double>(first.on.extrapolated_frames), bot_frames), num(e1, 2),
               num(e2, 2), e1 > 0.0 ? num(100.0 * (e2 - e1) / e1, 0) + "%" : "-",
               adaptive ? "1.5 x interval + 2 x jitter" : "150 ms"});
    }
}

// A latency step part-way through a run, with each clock policy: no sync (the estimate is
// started once and never corrected), sync by snapping 8% of the error per arrival, and sync
// by dilating the rate. Measured over the 20 s after the step.
void clock_table(const ReportOptions& o, std::FILE* out) {
    title(out, o,
          "Clock: one-way latency steps at 8 s; the 20 s after it. " + server_rate(o) +
              ", adaptive buffering and extrapolation on",
          {"latency_ms", "clock_sync", "smooth_clock"});
    ReportTable t(
        out, o.csv,
        {"step_ms", "clock", "render_err", "stutter", "dead_reckoned", "least_step_ms", "most_step_ms", "steps_back"},
        kLayout);
    const double frame_ms = 1000.0 / o.tick_hz;
    for (const auto& [from, to] : {std::pair{50.0, 200.0}, std::pair{200.0, 50.0}}) {
        for (int policy = 0; policy < 3; ++policy) {
            NetcodeSim sim;
            start(sim, o);
            sim.set("latency_ms", from);
            sim.set("clock_sync", policy > 0 ? 1 : 0);
            sim.set("smooth_clock", policy == 2 ? 1 : 0);
            const double dt = 1.0 / o.tick_hz;
            run_ticks(sim, 8.0, o.tick_hz);
            sim.begin_measurement();
            sim.set("latency_ms", to);
            double last = sim.lane(1).clock_ms, least = 1e9, most = 0.0;
            int back = 0;
            for (long i = 0; i < static_cast<long>(20.0 * o.tick_hz + 0.5); ++i) {
                sim.step(dt);
                const double advance = sim.lane(1).clock_ms - last;
                last = sim.lane(1).clock_ms;
                least = std::min(least, advance);
                most = std::max(most, advance);
                back += advance < 0.0 ? 1 : 0;
            }
            const LaneRun st = read_run(sim.lane(1));
            const char* names[] = {"none", "snap 8%", "rate +-10%"};
            t.row({num(from, 0) + "->" + num(to, 0), names[policy], num(st.render_error), num(st.remote_stutter, 2),
                   pct(static_cast<double>(st.extrapolated_frames), static_cast<double>(st.frames * Arena::kBots)),
                   num(least, 1), num(most, 1), std::to_string(back)});
        }
    }
    std::fprintf(out, "%s(a frame is %.1f ms: the rate clock's steps stay within 0.9x..1.1x of it)\n",
                 o.csv ? "# " : "", frame_ms);
}

}  // namespace

void report_netcode(const ReportOptions& o, std::FILE* out) {
    const char* lead = o.csv ? "# " : "";
    std::fprintf(out, "%snetcode report: seed %llu, %.0f simulated s per cell after a %.0f s warm-up, %d Hz frames\n",
                 lead, static_cast<unsigned long long>(o.seed), o.seconds, kWarmupS, o.tick_hz);
    std::fprintf(out, "%severy lane sees the same inputs, shots and lost packets; 'none'/'newest' is everything off\n",
                 lead);
    if (const std::string settings = o.settings_text(); !settings.empty()) {
        std::fprintf(out,
                     "%ssettings: %s (a table whose sweep varies one of them overrides it there, as its title says)\n",
                     lead, settings.c_str());
    }
    player_table(o, out);
    remote_table(o, out);
    lag_compensation_table(o, out);
    extrapolation_table(o, out, true);
    extrapolation_table(o, out, false);
    clock_table(o, out);
}

}  // namespace vantage::play
