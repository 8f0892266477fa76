// Host: the playgrounds and their one shared context (pause, single step, restart, tick
// rate, seed), UI-free. It turns wall-clock frame time into fixed ticks, and it is the one
// place settings arrive from outside the process: the URL hash, the JS API, the desktop
// command line. Every such input is validated; a bad one is reported and changes nothing.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "preset.hpp"
#include "simulation.hpp"

namespace vantage::play {

struct Context {
    bool paused = false;
    int tick_hz = 60;        // fixed simulation rate, ticks per simulated second (10..120)
    std::uint64_t seed = 1;  // every simulation is reset from this (0..2^53-1)
    double speed = 1.0;      // simulated seconds per wall second (0.25..4)
};

class Host {
public:
    explicit Host(std::vector<std::unique_ptr<Simulation>> sims);

    std::size_t count() const { return sims_.size(); }
    Simulation& sim(std::size_t i) { return *sims_[i]; }
    std::size_t active() const { return active_; }
    Simulation& current() { return *sims_[active_]; }
    const Simulation& current() const { return *sims_[active_]; }
    // Index of the playground called `name`, or -1.
    int find(std::string_view name) const;
    void select(std::size_t index);

    const Context& context() const { return ctx_; }
    void set_paused(bool paused) { ctx_.paused = paused; }
    // Runs the active simulation for `wall_dt_s` of wall time (scaled by speed), in whole
    // fixed ticks; leftover time carries to the next call. At most `max_ticks` run per call
    // so a stalled tab does not spiral. Returns ticks run.
    int advance(double wall_dt_s, int max_ticks = 8);
    // One tick now, paused or not.
    void single_step();
    // Resets every simulation from the context's seed (an active preset's run starts over).
    void restart();
    // Counts the resets of playground `index`: a new value means a new world, so its history
    // belongs to a run that is gone.
    std::uint64_t run(std::size_t index) const { return runs_[index]; }

    // "#name/key=value&key=value" (the leading '#' optional). Applies what is valid; returns
    // one message per rejected part.
    std::vector<std::string> apply_url(std::string_view hash);
    // The active playground and every setting, in the same format.
    std::string url() const;
    // Sets a context setting ("seed", "tick_hz", "speed", "paused"), "playground", "preset", or a
    // setting of the active playground from text. Empty string on success, else the reason.
    std::string set(std::string_view name, std::string_view value);
    // {"playground":..., "tick":..., "time_s":..., "paused":..., "seed":..., "settings":{...},
    //  "meters":{...}, "checksum":"...", "preset": null or {"name":..., "title":...,
    //  "remaining_s":..., "verdict": "pending" | "holds" | "does not hold", "text":...}}
    std::string state_json() const;
    // [{"name":..., "title":...}, ...]
    std::string playgrounds_json() const;
    // Ticks the active playground has run since its reset: each tab counts its own (a hidden
    // tab does not run, so its count waits for it).
    std::uint64_t ticks() const { return ticks_[active_]; }

    // The settings changed by hand in playground `index`'s current run, at the simulated
    // second they changed: the plots mark them. A drag of one slider within a second is one
    // change (its last value). A new run starts a new list; at most 64 are kept.
    struct SettingChange {
        double t_s = 0.0;
        std::string name;
        std::string value;  // as set: "25"
    };
    const std::vector<SettingChange>& changes(std::size_t index) const { return changes_[index]; }

    // Presets of playground `index` (see preset.hpp). "preset" then works as a setting.
    void set_presets(std::size_t index, std::vector<Preset> presets);
    const std::vector<Preset>& presets() const { return presets_[active_]; }
    // The preset last applied to the active playground, while nothing has been changed
    // since (else nullptr).
    const Preset* active_preset() const;
    // The active preset's run: simulated seconds left until its moment, and the verdict,
    // judged once at that moment and frozen until the run restarts. `preset` is null when no
    // preset is active.
    struct PresetRun {
        const Preset* preset = nullptr;
        double remaining_s = 0.0;
        Judgement judgement;
    };
    PresetRun preset_run() const;

private:
    // "key=value&key=value": preset first, then the context (seed may restart), then the
    // playground's settings. Returns one message per rejected part.
    std::vector<std::string> apply_settings(std::string_view list);
    std::string apply_preset(std::string_view name);
    std::string set_value(std::string_view name, std::string_view value);
    std::string set_active_param(std::string_view name, std::string_view value);
    void reset_sim(std::size_t index);
    // Freezes the active preset's verdict once its moment has come.
    void judge_preset();

    std::vector<std::unique_ptr<Simulation>> sims_;
    std::size_t active_ = 0;
    Context ctx_;
    std::vector<std::vector<Preset>> presets_;         // per simulation
    std::vector<std::vector<double>> defaults_;        // per simulation: each Param's value at start
    std::vector<std::string> active_preset_;           // per simulation; empty when none
    std::vector<Judgement> judgements_;                // per simulation: the active preset's verdict
    std::vector<std::uint64_t> runs_;                  // per simulation: resets so far
    std::vector<std::uint64_t> ticks_;                 // per simulation: ticks since its reset
    std::vector<std::vector<SettingChange>> changes_;  // per simulation, this run's
    bool applying_preset_ = false;
    double carry_s_ = 0.0;
};

// One "key=value" part of a settings list, pointing into the list's text.
struct Setting {
    std::string_view key;
    std::string_view value;
};
// Splits "key=value&key=value" (the URL hash's settings, ReportOptions::settings) into its
// parts, skipping empty ones. A part without '=' is left out and appended to `malformed`.
std::vector<Setting> split_settings(std::string_view list, std::vector<std::string_view>& malformed);
// Sets the setting `name` of `sim` from text, validated as every outside input is
// (parse_value, then check_param_value). Empty string on success, else the reason, and
// nothing changes. It does not reset: a `restart` setting takes effect at the next reset().
std::string set_param(Simulation& sim, std::string_view name, std::string_view value);
// Applies "key=value&key=value" to `sim`'s own settings (no context keys, no presets), in
// order. Applies what is valid; returns one message per rejected part.
std::vector<std::string> apply_settings(Simulation& sim, std::string_view list);

// Parses a finite number or true/false/on/off; false on anything else (including trailing
// junk, empty text, "nan" and "inf").
bool parse_value(std::string_view text, double& out);
// Appends `s` to `out` as a JSON string literal.
void append_json_string(std::string& out, std::string_view s);
// Appends a JSON number (non-finite values become null).
void append_json_number(std::string& out, double v);

}  // namespace vantage::play
