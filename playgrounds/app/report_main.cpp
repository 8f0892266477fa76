// vantage_report: runs a playground headless for N simulated seconds and prints its meters,
// the numbers behind the README's claims. No window, no clock: the same seed gives the same
// table here, in the browser and in the tests.
//
//   vantage_report PLAYGROUND [--seconds S] [--seed N] [--hz H] [--csv] [--meters]
//                  [--preset NAME] [key=value ...]
// --preset runs that scenario for its own seconds and prints the finding it claims (exit
// status 1 if it does not hold).
// A playground with its own report (PlaygroundEntry::report) prints the tables behind its
// findings; --meters prints the plain meter dump after one run instead. The playground's
// key=value settings reach both: the report builds every simulation from them.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/catalog.hpp"
#include "common/host.hpp"
#include "common/preset.hpp"

using namespace vantage::play;

namespace {

int usage(const std::string& error) {
    std::fprintf(stderr, "vantage report: %s\n", error.c_str());
    std::fprintf(stderr,
                 "usage: vantage report PLAYGROUND [--seconds S] [--seed N] [--hz H] [--csv] [--meters] [--preset "
                 "NAME] [key=value ...]\n");
    std::fprintf(stderr, "playgrounds:");
    for (const PlaygroundEntry& e : playground_catalog()) std::fprintf(stderr, " %s", e.name);
    std::fprintf(stderr, "\n");
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) return usage("missing playground");
    const std::string name = argv[1];
    if (name == "--list") {  // one playground name per line (used by ./vantage test)
        for (const PlaygroundEntry& e : playground_catalog()) std::printf("%s\n", e.name);
        return 0;
    }
    if (name == "--help" || name == "-h" || name == "help") {
        usage("help");
        return 0;
    }
    Host host(make_all_simulations());
    for (const std::string& e : load_all_presets(host, VANTAGE_PRESETS_DIR)) std::fprintf(stderr, "%s\n", e.c_str());
    if (std::string err = host.set("playground", name); !err.empty()) return usage(err);
    double seconds = 60.0;
    bool csv = false;
    bool generic = false;  // --meters: the plain meter dump even where a report exists
    bool seconds_given = false;
    std::string settings;  // the playground's own key=value settings, "k=v&k=v"
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        // The value after a flag, or null when the flag ends the command line.
        auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
        if (arg == "--csv") {
            csv = true;
        } else if (arg == "--meters") {
            generic = true;
        } else if (arg == "--seconds") {
            const char* v = next();
            double s = 0;
            if (!v || !parse_value(v, s) || s <= 0 || s > 36000)
                return usage("--seconds needs a number from 0 to 36000");
            seconds = s;
            seconds_given = true;
        } else if (arg == "--preset") {
            const char* v = next();
            if (!v) return usage("--preset needs a name");
            if (std::string err = host.set("preset", v); !err.empty()) return usage(err);
            generic = true;  // a preset is one scenario: run it and check its finding
        } else if (arg == "--seed" || arg == "--hz") {
            const char* v = next();
            if (!v) return usage(arg + " needs a value");
            if (std::string err = host.set(arg == "--seed" ? "seed" : "tick_hz", v); !err.empty()) return usage(err);
        } else if (arg.size() > 1 && arg[0] == '-') {
            return usage("unknown flag '" + arg + "'");
        } else {
            const std::size_t eq = arg.find('=');
            if (eq == std::string::npos) return usage("expected key=value, got '" + arg + "'");
            const std::string key = arg.substr(0, eq);
            if (std::string err = host.set(key, arg.substr(eq + 1)); !err.empty()) return usage(err);
            if (key == "preset") {
                generic = true;  // as --preset
            } else if (key != "seed" && key != "tick_hz" && key != "speed" && key != "paused" && key != "playground") {
                settings += (settings.empty() ? "" : "&") + arg;  // validated by host.set just now
            }
        }
    }
    const Preset* preset = host.active_preset();
    if (preset && !seconds_given) seconds = preset->seconds;
    host.restart();
    for (const PlaygroundEntry& e : playground_catalog()) {
        if (name == e.name && e.report && !generic) {
            ReportOptions options;
            options.seed = host.context().seed;
            options.seconds = seconds_given ? seconds : options.seconds;
            options.tick_hz = host.context().tick_hz;
            options.csv = csv;
            options.settings = settings;
            e.report(options, stdout);
            return 0;
        }
    }
    const double dt = 1.0 / host.context().tick_hz;
    const auto ticks = static_cast<long>(seconds / dt + 0.5);
    Simulation& sim = host.current();
    std::vector<Meter> meters;
    if (csv) std::printf("time_s");
    const long every = host.context().tick_hz;  // one row per simulated second
    bool header = false;
    for (long t = 1; t <= ticks; ++t) {
        sim.step(dt);
        if (t % every != 0 && t != ticks) continue;
        meters.clear();
        sim.meters(meters);
        if (csv) {
            if (!header) {
                for (const Meter& m : meters) std::printf(",%s", m.name.c_str());
                std::printf("\n");
                header = true;
            }
            std::printf("%.3f", sim.time_s());
            for (const Meter& m : meters) std::printf(",%.6g", m.value);
            std::printf("\n");
        }
    }
    if (!csv) {
        std::printf("%s after %.1f simulated s (seed %llu, %d Hz)\n", name.c_str(), sim.time_s(),
                    static_cast<unsigned long long>(host.context().seed), host.context().tick_hz);
        for (const Meter& m : meters) std::printf("  %-24s %14.3f %s\n", m.name.c_str(), m.value, m.unit.c_str());
        std::printf("  %-24s %016llx\n", "checksum", static_cast<unsigned long long>(sim.checksum()));
    }
    if (preset && !preset->check.empty()) {
        const CheckResult r = evaluate_check(preset->check, meters);
        const Judgement j = judge(*preset, meters);
        std::printf("preset %s: %s\nverdict: %s\ncheck: %s\n", preset->name.c_str(), preset->title.c_str(),
                    j.text.c_str(), r.text.c_str());
        return j.verdict == Verdict::Holds ? 0 : 1;
    }
    return 0;
}
