#include "host.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace vantage::play {

namespace {

constexpr double kMaxSeed = 9007199254740991.0;  // 2^53 - 1: exact in a JS number

std::string format_number(double v) {
    if (v == std::floor(v) && std::fabs(v) < 1e15) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.0f", v);
        return buf;
    }
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

}  // namespace

bool parse_value(std::string_view text, double& out) {
    if (text == "true" || text == "on") {
        out = 1.0;
        return true;
    }
    if (text == "false" || text == "off") {
        out = 0.0;
        return true;
    }
    if (text.empty() || text.size() > 64) return false;
    // strtod accepts hex, "nan" and "inf": allow only plain decimal syntax.
    for (char c : text) {
        const bool ok = (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E';
        if (!ok) return false;
    }
    const std::string s(text);
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || !std::isfinite(v)) return false;
    out = v;
    return true;
}

void append_json_string(std::string& out, std::string_view s) {
    out += '"';
    for (char c : s) {
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out += c;
                }
        }
    }
    out += '"';
}

void append_json_number(std::string& out, double v) {
    if (!std::isfinite(v)) {
        out += "null";
        return;
    }
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    out += buf;
}

Host::Host(std::vector<std::unique_ptr<Simulation>> sims)
    : sims_(std::move(sims)),
      presets_(sims_.size()),
      defaults_(sims_.size()),
      active_preset_(sims_.size()),
      judgements_(sims_.size()),
      runs_(sims_.size(), 0),
      ticks_(sims_.size(), 0),
      changes_(sims_.size()) {
    for (std::size_t i = 0; i < sims_.size(); ++i) {
        for (const Param& p : sims_[i]->params()) defaults_[i].push_back(p.get());
    }
    restart();
}

void Host::set_presets(std::size_t index, std::vector<Preset> presets) {
    if (index < presets_.size()) presets_[index] = std::move(presets);
}

const Preset* Host::active_preset() const {
    for (const Preset& p : presets_[active_]) {
        if (p.name == active_preset_[active_]) return &p;
    }
    return nullptr;
}

std::string Host::apply_preset(std::string_view name) {
    for (const Preset& p : presets_[active_]) {
        if (p.name != name) continue;
        // A preset is a whole scenario: start from the defaults, not from earlier tinkering.
        std::vector<Param>& params = current().params();
        for (std::size_t k = 0; k < params.size() && k < defaults_[active_].size(); ++k) {
            params[k].set(defaults_[active_][k]);
        }
        applying_preset_ = true;
        std::vector<std::string> errors = apply_settings(p.settings);
        applying_preset_ = false;
        if (!errors.empty()) return "preset '" + p.name + "' is broken: " + errors.front();
        active_preset_[active_] = p.name;
        // A self-contained run: a fresh world from the seed, the verdict pending again.
        reset_sim(active_);
        carry_s_ = 0.0;
        return {};
    }
    std::string names;
    for (const Preset& p : presets_[active_]) names += (names.empty() ? "" : ", ") + p.name;
    return "unknown preset '" + std::string(name) + "' for playground '" + std::string(current().name()) + "'" +
           (names.empty() ? "" : " (have: " + names + ")");
}

int Host::find(std::string_view name) const {
    for (std::size_t i = 0; i < sims_.size(); ++i) {
        if (sims_[i]->name() == name) return static_cast<int>(i);
    }
    return -1;
}

void Host::select(std::size_t index) {
    if (index < sims_.size()) active_ = index;
    carry_s_ = 0.0;
}

int Host::advance(double wall_dt_s, int max_ticks) {
    if (ctx_.paused || !std::isfinite(wall_dt_s) || wall_dt_s <= 0.0) return 0;
    const double dt = 1.0 / ctx_.tick_hz;
    carry_s_ += wall_dt_s * ctx_.speed;
    int ran = 0;
    while (carry_s_ >= dt && ran < max_ticks) {
        current().step(dt);
        carry_s_ -= dt;
        ++ran;
        ++ticks_[active_];
        judge_preset();
    }
    if (ran == max_ticks) carry_s_ = 0.0;  // drop the backlog rather than spiral
    return ran;
}

void Host::single_step() {
    current().step(1.0 / ctx_.tick_hz);
    ++ticks_[active_];
    judge_preset();
}

void Host::restart() {
    for (std::size_t i = 0; i < sims_.size(); ++i) reset_sim(i);
    carry_s_ = 0.0;
}

void Host::reset_sim(std::size_t index) {
    sims_[index]->reset(ctx_.seed);
    judgements_[index] = {};
    ++runs_[index];
    ticks_[index] = 0;
    changes_[index].clear();
}

void Host::judge_preset() {
    if (judgements_[active_].verdict != Verdict::Pending) return;
    const Preset* p = active_preset();
    if (!p || p->check.empty() || current().time_s() + 1e-9 < p->seconds) return;
    std::vector<Meter> meters;
    current().meters(meters);
    judgements_[active_] = judge(*p, meters);
}

Host::PresetRun Host::preset_run() const {
    PresetRun r;
    r.preset = active_preset();
    if (!r.preset) return r;
    r.remaining_s = r.preset->seconds - current().time_s();
    if (r.remaining_s < 1e-9) r.remaining_s = 0.0;  // the clock is a sum of ticks: 40 s is 40 +- 1e-12
    r.judgement = judgements_[active_];
    if (r.judgement.verdict == Verdict::Pending && r.judgement.text.empty())
        r.judgement.text = r.preset->check.empty() ? "this preset claims no finding"
                                                   : "judged at " + plain_number(r.preset->seconds) + " s";
    return r;
}

std::string set_param(Simulation& sim, std::string_view name, std::string_view value) {
    for (Param& p : sim.params()) {
        if (p.name != name) continue;
        double v = 0.0;
        if (!parse_value(value, v))
            return "'" + std::string(name) + "' needs a number, got '" + std::string(value) + "'";
        std::string err = check_param_value(p, v);
        if (!err.empty()) return err;
        if (p.get() != v) p.set(v);
        return {};
    }
    return "unknown setting '" + std::string(name) + "' for playground '" + std::string(sim.name()) + "'";
}

std::vector<Setting> split_settings(std::string_view list, std::vector<std::string_view>& malformed) {
    std::vector<Setting> settings;
    while (!list.empty()) {
        const std::size_t amp = list.find('&');
        const std::string_view part = list.substr(0, amp);
        list = amp == std::string_view::npos ? std::string_view{} : list.substr(amp + 1);
        if (part.empty()) continue;
        const std::size_t eq = part.find('=');
        if (eq == std::string_view::npos) {
            malformed.push_back(part);
            continue;
        }
        settings.push_back({part.substr(0, eq), part.substr(eq + 1)});
    }
    return settings;
}

std::vector<std::string> apply_settings(Simulation& sim, std::string_view list) {
    std::vector<std::string> errors;
    std::vector<std::string_view> malformed;
    const std::vector<Setting> settings = split_settings(list, malformed);
    for (std::string_view part : malformed)
        errors.push_back("bad setting '" + std::string(part) + "': expected key=value");
    for (const Setting& s : settings) {
        std::string err = set_param(sim, s.key, s.value);
        if (!err.empty()) errors.push_back(std::move(err));
    }
    return errors;
}

std::string Host::set_active_param(std::string_view name, std::string_view value) {
    Simulation& s = current();
    // The free set_param validates and sets; the Host also rebuilds the world when a
    // `restart` setting actually changed, so the page shows its effect at once.
    const Param* param = nullptr;
    for (const Param& p : s.params()) {
        if (p.name == name) {
            param = &p;
            break;
        }
    }
    const double before = param ? param->get() : 0.0;
    std::string err = vantage::play::set_param(s, name, value);
    if (err.empty() && param->restart && param->get() != before) reset_sim(active_);
    return err;
}

std::string Host::set(std::string_view name, std::string_view value) {
    if (name == "preset") return apply_preset(value);
    if (applying_preset_ || name == "paused" || name == "speed" || name == "playground") return set_value(name, value);
    // A change by hand ends the preset (its name would no longer describe the scenario);
    // setting a value it already has, as a shared link does, keeps it.
    const std::string before = url();
    const std::size_t was = active_;
    std::string err = set_value(name, value);
    if (err.empty() && (active_ != was || url() != before)) {
        active_preset_[active_].clear();
        judgements_[active_] = {};
        // A setting given before the run's first step (a link's) is its setup, not a change.
        if (active_ == was && name != "seed" && current().time_s() > 0.0) {
            std::vector<SettingChange>& log = changes_[active_];
            const double t = current().time_s();
            if (!log.empty() && log.back().name == name && t - log.back().t_s < 1.0) {
                log.back().value = std::string(value);
            } else {
                if (log.size() >= 64) log.erase(log.begin());
                log.push_back({t, std::string(name), std::string(value)});
            }
        }
    }
    return err;
}

std::string Host::set_value(std::string_view name, std::string_view value) {
    if (name == "playground") {
        const int i = find(value);
        if (i < 0) return "unknown playground '" + std::string(value) + "'";
        select(static_cast<std::size_t>(i));
        return {};
    }
    double v = 0.0;
    const bool number = parse_value(value, v);
    if (name == "seed") {
        if (!number || v < 0 || v > kMaxSeed || v != std::floor(v))
            return "'seed' must be a whole number from 0 to 9007199254740991, got '" + std::string(value) + "'";
        ctx_.seed = static_cast<std::uint64_t>(v);
        restart();
        return {};
    }
    if (name == "tick_hz") {
        if (!number || v < 10 || v > 120 || v != std::floor(v))
            return "'tick_hz' must be a whole number from 10 to 120, got '" + std::string(value) + "'";
        ctx_.tick_hz = static_cast<int>(v);
        return {};
    }
    if (name == "speed") {
        if (!number || v < 0.25 || v > 4.0) return "'speed' must be from 0.25 to 4, got '" + std::string(value) + "'";
        ctx_.speed = v;
        return {};
    }
    if (name == "paused") {
        if (!number || (v != 0.0 && v != 1.0)) return "'paused' must be 0 or 1, got '" + std::string(value) + "'";
        ctx_.paused = v != 0.0;
        return {};
    }
    return set_active_param(name, value);
}

std::vector<std::string> Host::apply_url(std::string_view hash) {
    std::vector<std::string> errors;
    if (!hash.empty() && hash.front() == '#') hash.remove_prefix(1);
    if (hash.empty()) return errors;
    const std::size_t slash = hash.find('/');
    const std::string_view name = hash.substr(0, slash);
    if (!name.empty()) {
        const std::string err = set("playground", name);
        if (!err.empty()) {
            errors.push_back("bad URL: " + err);
            return errors;  // settings after it belong to a playground we do not have
        }
    }
    if (slash == std::string_view::npos) return errors;
    std::vector<std::string> more = apply_settings(hash.substr(slash + 1));
    errors.insert(errors.end(), more.begin(), more.end());
    return errors;
}

std::vector<std::string> Host::apply_settings(std::string_view list) {
    std::vector<std::string> errors;
    std::vector<std::string_view> malformed;
    const std::vector<Setting> pairs = split_settings(list, malformed);
    for (std::string_view part : malformed) {
        errors.push_back("bad URL parameter '" + std::string(part) + "': expected key=value");
    }
    // The preset first, then context keys (a seed restarts), then the playground's settings,
    // so explicit settings after a preset override it.
    auto rank = [](std::string_view key) {
        if (key == "preset") return 0;
        if (key == "seed" || key == "tick_hz" || key == "speed" || key == "paused") return 1;
        return 2;
    };
    for (int pass = 0; pass < 3; ++pass) {
        for (const auto& [key, value] : pairs) {
            if (rank(key) != pass) continue;
            // A link naming the preset already running keeps its run (a follower re-applies
            // the teacher's link on every change); the menu and set("preset") restart it.
            if (key == "preset" && !active_preset_[active_].empty() && value == active_preset_[active_]) continue;
            // Likewise the seed it already runs on: a link describes a world, it does not restart one.
            if (key == "seed" && value == format_number(static_cast<double>(ctx_.seed))) continue;
            const std::string err = set(key, value);
            if (!err.empty()) errors.push_back("bad URL parameter '" + std::string(key) + "': " + err);
        }
    }
    return errors;
}

std::string Host::url() const {
    std::string out = "#";
    out += current().name();
    out += "/";
    if (const Preset* p = active_preset()) out += "preset=" + p->name + "&";
    out += "seed=" + format_number(static_cast<double>(ctx_.seed));
    out += "&tick_hz=" + format_number(ctx_.tick_hz);
    if (ctx_.speed != 1.0) out += "&speed=" + format_number(ctx_.speed);
    if (ctx_.paused) out += "&paused=1";
    for (const Param& p : current().params()) {
        out += "&" + p.name + "=" + format_number(p.get());
    }
    return out;
}

std::string Host::state_json() const {
    const Simulation& s = current();
    std::string out = "{\"playground\":";
    append_json_string(out, s.name());
    out += ",\"tick\":" + std::to_string(ticks_[active_]);
    out += ",\"time_s\":";
    append_json_number(out, s.time_s());
    out += ",\"paused\":";
    out += ctx_.paused ? "true" : "false";
    out += ",\"seed\":" + format_number(static_cast<double>(ctx_.seed));
    out += ",\"tick_hz\":" + std::to_string(ctx_.tick_hz);
    out += ",\"speed\":";
    append_json_number(out, ctx_.speed);
    out += ",\"settings\":{";
    bool first = true;
    for (const Param& p : s.params()) {
        if (!first) out += ',';
        first = false;
        append_json_string(out, p.name);
        out += ':';
        append_json_number(out, p.get());
    }
    out += "},\"meters\":{";
    std::vector<Meter> meters;
    s.meters(meters);
    first = true;
    for (const Meter& m : meters) {
        if (!first) out += ',';
        first = false;
        append_json_string(out, m.name);
        out += ':';
        append_json_number(out, m.value);
    }
    char sum[24];
    std::snprintf(sum, sizeof sum, "%016llx", static_cast<unsigned long long>(s.checksum()));
    out += "},\"checksum\":\"";
    out += sum;
    out += "\",\"preset\":";
    const PresetRun run = preset_run();
    if (!run.preset) {
        out += "null}";
        return out;
    }
    out += "{\"name\":";
    append_json_string(out, run.preset->name);
    out += ",\"title\":";
    append_json_string(out, run.preset->title);
    out += ",\"remaining_s\":";
    append_json_number(out, run.remaining_s);
    out += ",\"verdict\":";
    append_json_string(out, to_string(run.judgement.verdict));
    out += ",\"text\":";
    append_json_string(out, run.judgement.text);
    out += "}}";
    return out;
}

std::string Host::playgrounds_json() const {
    std::string out = "[";
    for (std::size_t i = 0; i < sims_.size(); ++i) {
        if (i) out += ',';
        out += "{\"name\":";
        append_json_string(out, sims_[i]->name());
        out += ",\"title\":";
        append_json_string(out, sims_[i]->title());
        out += '}';
    }
    out += ']';
    return out;
}

}  // namespace vantage::play
