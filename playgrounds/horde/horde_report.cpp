// `./vantage report horde`: the tables behind playgrounds/horde/README.md. Each table is one
// run of the same seeded world with several lanes in lockstep (so rows differ only in
// strategy), a warm-up of kWarmupS simulated seconds, then options.seconds measured.
#include <algorithm>
#include <cstdarg>
#include <string>
#include <vector>

#include "horde/horde_sim.hpp"

namespace vantage::play {

namespace {

constexpr double kWarmupS = 5.0;

HordeLaneConfig lane(const char* name, bool recovery, bool relevance, float theta, std::optional<AckFrontier> frontier) {
    return HordeLaneConfig{name, recovery, relevance, false, theta, frontier};
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

// A table printed aligned, or as CSV with options.csv.
class Table {
public:
    // A column named "name:N" is at least N characters wide.
    Table(std::FILE* out, bool csv, std::vector<std::string> columns) : out_(out), csv_(csv) {
        for (std::string& c : columns) {
            const std::size_t colon = c.find(':');
            const std::size_t min = colon == std::string::npos ? 7 : std::stoul(c.substr(colon + 1));
            if (colon != std::string::npos) c.resize(colon);
            widths_.push_back(std::max(min, c.size()));
            columns_.push_back(c);
        }
        for (std::size_t i = 0; i < columns_.size(); ++i) cell("%s", columns_[i].c_str());
        end_row();
        if (!csv_) {
            for (std::size_t i = 0; i < columns_.size(); ++i) std::fprintf(out_, "%s%s", i ? "  " : "", std::string(width(i), '-').c_str());
            std::fprintf(out_, "\n");
        }
    }
    void cell(const char* format, ...) __attribute__((format(printf, 2, 3))) {
        char text[64];
        va_list args;
        va_start(args, format);
        std::vsnprintf(text, sizeof text, format, args);
        va_end(args);
        const std::size_t i = column_++;
        if (csv_) {
            std::fprintf(out_, "%s%s", i ? "," : "", text);
        } else {
            std::fprintf(out_, "%s%*s", i ? "  " : "", static_cast<int>(width(i)), text);
        }
    }
    void end_row() {
        std::fprintf(out_, "\n");
        column_ = 0;
    }

private:
    std::size_t width(std::size_t i) const { return widths_[i]; }
    std::FILE* out_;
    bool csv_;
    std::vector<std::string> columns_;
    std::vector<std::size_t> widths_;
    std::size_t column_ = 0;
};

void relevance_section(const ReportOptions& options, std::FILE* out) {
    std::fprintf(out, "\n## 1. Relevance: each client told about its view only, vs the whole arena to everyone\n");
    std::fprintf(out, "(0%% loss, naive diffs so the comparison is relevance alone; KiB/s for all clients)\n\n");
    Table t(out, options.csv,
            {"players:9", "culled KiB/s", "broadcast KiB/s", "culled", "knows", "of", "uuid+f32 KiB/s", "compact saves",
             "spawns/pkt", "despawns/pkt", "corrections share"});
    for (const bool spread : {true, false}) {
        HordeSim sim({lane("culled", false, true, 0.0f, std::nullopt), lane("broadcast", false, false, 0.0f, std::nullopt)});
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
    std::fprintf(out, "\n## 2. Delta recovery under loss (the same losses in every row of a block)\n");
    std::fprintf(out, "(per client: phantoms = held but dead on the server, missing = relevant but not held, held;\n"
                      " all clients: mismatches, resyncs, KiB/s; err = render error at the drawn instant)\n\n");
    Table t(out, options.csv,
            {"loss", "recovery:18", "mismatches", "phantoms", "missing", "held", "resyncs", "KiB/s", "vs naive",
             "err mean px", "err worst px"});
    for (const double loss : {0.0, 2.0, 5.0, 10.0, 25.0}) {
        HordeSim sim({lane("naive", false, true, 0.0f, std::nullopt),
                      lane("acked any-received", true, true, 0.0f, AckFrontier::AnyReceived),
                      lane("acked contiguous", true, true, 0.0f, AckFrontier::Contiguous)});
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

void crowd_section(const ReportOptions& options, std::FILE* out) {
    std::fprintf(out, "\n## 3. Crowd summaries of the world outside the view (AggregateTree, weight = headcount)\n");
    std::fprintf(out, "(0%% loss, acked; per client and frame: summaries, coverage of the enemies outside the view;\n"
                      " crowd B/s and total KiB/s for all clients)\n\n");
    Table t(out, options.csv, {"theta", "summaries", "coverage", "crowd B/s", "total KiB/s", "vs off"});
    const std::vector<float> thetas = {0.0f, 0.2f, 0.4f, 0.8f, 1.5f};
    std::vector<HordeLaneConfig> lanes;
    std::vector<std::string> names;
    for (float theta : thetas) {
        char name[32];
        std::snprintf(name, sizeof name, "theta %.1f", static_cast<double>(theta));
        lanes.push_back(lane(name, true, true, theta, std::nullopt));
    }
    HordeSim sim(lanes);
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

}  // namespace

void horde_report(const ReportOptions& options, std::FILE* out) {
    std::fprintf(out, "# horde: %g simulated s measured after %g s warm-up, seed %llu, %d Hz ticks\n", options.seconds,
                 kWarmupS, static_cast<unsigned long long>(options.seed), options.tick_hz);
    std::fprintf(out, "(3000 enemies, 4 players, view radius 420 in a 3000 x 3000 arena, 16 Hz frames, 4 Hz corrections,\n"
                      " 30 ms latency + 20 ms jitter each way unless a table says otherwise)\n");
    relevance_section(options, out);
    loss_section(options, out);
    crowd_section(options, out);
}

}  // namespace vantage::play
