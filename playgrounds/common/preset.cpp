#include "common/preset.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "common/host.hpp"

namespace vantage::play {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

bool valid_name(std::string_view s) {
    if (s.empty() || s.size() > 64) return false;
    for (char c : s) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
        if (!ok) return false;
    }
    return true;
}

const Meter* find_meter(const std::vector<Meter>& meters, std::string_view name) {
    for (const Meter& m : meters) {
        if (m.name == name) return &m;
    }
    return nullptr;
}

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

}  // namespace

std::vector<IniSection> parse_ini(std::string_view text, std::vector<std::string>& errors) {
    std::vector<IniSection> sections;
    int line_no = 0;
    bool skipping = false;  // inside a section whose name came before
    while (!text.empty()) {
        const std::size_t nl = text.find('\n');
        std::string_view line = trim(text.substr(0, nl));
        text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
        ++line_no;
        if (line.empty() || line.front() == '#') continue;
        const std::string where = "line " + std::to_string(line_no) + ": ";
        if (line.front() == '[') {
            if (line.back() != ']' || !valid_name(line.substr(1, line.size() - 2))) {
                errors.push_back(where + "expected [name] with a-z, 0-9, - or _");
                continue;
            }
            const std::string_view name = line.substr(1, line.size() - 2);
            skipping =
                std::any_of(sections.begin(), sections.end(), [&](const IniSection& s) { return s.name == name; });
            if (skipping) {
                errors.push_back(where + "a second [" + std::string(name) + "]: its lines are ignored");
                continue;
            }
            sections.push_back({line_no, std::string(name), {}});
            continue;
        }
        if (skipping) continue;
        const std::size_t eq = line.find('=');
        if (eq == std::string_view::npos) {
            errors.push_back(where + "expected key = value");
            continue;
        }
        if (sections.empty()) {
            errors.push_back(where + "a setting before the first [section]");
            continue;
        }
        sections.back().entries.push_back(
            {line_no, std::string(trim(line.substr(0, eq))), std::string(trim(line.substr(eq + 1)))});
    }
    return sections;
}

PresetFile parse_presets(std::string_view text) {
    PresetFile out;
    for (const IniSection& section : parse_ini(text, out.errors)) {
        Preset& p = out.presets.emplace_back();
        p.name = section.name;
        for (const IniEntry& e : section.entries) {
            const std::string where = "line " + std::to_string(e.line) + ": ";
            if (e.key == "title")
                p.title = e.value;
            else if (e.key == "look_for")
                p.look_for = e.value;
            else if (e.key == "settings")
                p.settings = e.value;
            else if (e.key == "check")
                p.check = e.value;
            else if (e.key == "verdict")
                p.verdict = e.value;
            else if (e.key == "seconds") {
                double v = 0;
                if (!parse_value(e.value, v) || v <= 0 || v > 3600)
                    out.errors.push_back(where + "seconds must be 0..3600");
                else
                    p.seconds = v;
            } else {
                out.errors.push_back(where + "unknown key '" + e.key + "'");
            }
        }
    }
    for (const Preset& p : out.presets) {
        if (p.title.empty()) out.errors.push_back("preset '" + p.name + "' has no title");
        if (!p.check.empty() && p.verdict.empty())
            out.errors.push_back("preset '" + p.name + "' has a check but no verdict sentence");
    }
    return out;
}

std::string read_text_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) return {};
    std::stringstream buf;
    buf << in.rdbuf();
    return buf.str();
}

PresetFile load_presets(const std::string& dir, std::string_view playground) {
    return parse_presets(read_text_file(dir + "/" + std::string(playground) + ".ini"));
}

std::vector<std::string> load_all_presets(Host& host, const std::string& dir) {
    std::vector<std::string> errors;
    for (std::size_t i = 0; i < host.count(); ++i) {
        const std::string name(host.sim(i).name());
        PresetFile file = load_presets(dir, name);
        for (const std::string& e : file.errors) errors.push_back("presets/" + name + ".ini " + e);
        host.set_presets(i, std::move(file.presets));
    }
    return errors;
}

CheckResult evaluate_check(std::string_view check, const std::vector<Meter>& meters) {
    // "A and B and ...": every part must hold.
    if (const std::size_t at = check.find(" and "); at != std::string_view::npos) {
        CheckResult first = evaluate_check(check.substr(0, at), meters);
        const CheckResult rest = evaluate_check(check.substr(at + 5), meters);
        if (!first.valid) return first;
        if (!rest.valid) return rest;
        first.holds = first.holds && rest.holds;
        first.text += "; " + rest.text;
        return first;
    }
    CheckResult r;
    std::istringstream in{std::string(check)};
    std::string lhs, op, a, star, b;
    in >> lhs >> op >> a;
    if (in >> star) in >> b;
    const bool ops = op == "<" || op == "<=" || op == ">" || op == ">=";
    const Meter* left = find_meter(meters, lhs);
    if (!ops || !left) {
        r.text = "bad check '" + std::string(check) + "'" + (left ? "" : ": no meter '" + lhs + "'");
        return r;
    }
    double rhs = 0.0;
    std::string rhs_text;
    double factor = 0.0;
    if (star.empty()) {
        if (parse_value(a, rhs)) {
            rhs_text = num(rhs);
        } else if (const Meter* m = find_meter(meters, a)) {
            rhs = m->value;
            rhs_text = a + " = " + num(rhs);
        } else {
            r.text = "bad check '" + std::string(check) + "': no meter '" + a + "'";
            return r;
        }
    } else {
        const Meter* m = find_meter(meters, b);
        if (star != "*" || !parse_value(a, factor) || !m) {
            r.text = "bad check '" + std::string(check) + "': expected <factor> * <meter>";
            return r;
        }
        rhs = factor * m->value;
        rhs_text = a + " * " + b + " = " + a + " * " + num(m->value);
    }
    const double v = left->value;
    r.valid = true;
    r.holds = op == "<" ? v < rhs : op == "<=" ? v <= rhs : op == ">" ? v > rhs : v >= rhs;
    r.text = lhs + " = " + num(v) + " " + op + " " + rhs_text + ": " + (r.holds ? "holds" : "does NOT hold");
    return r;
}

std::string_view to_string(Verdict v) {
    switch (v) {
        case Verdict::Pending:
            return "pending";
        case Verdict::Holds:
            return "holds";
        case Verdict::DoesNotHold:
            return "does not hold";
    }
    return "pending";
}

std::string plain_number(double v) {
    if (!std::isfinite(v)) return "n/a";
    char buf[48];
    const double a = std::fabs(v);
    if (a >= 10.0 || v == std::floor(v)) {
        std::snprintf(buf, sizeof buf, "%.0f", v);
        // Thousands separated from 10,000 on: 2,248,500 operations, not 2248500.
        std::string digits(buf);
        const std::size_t sign = digits[0] == '-' ? 1 : 0;
        if (digits.size() - sign > 4) {
            for (std::size_t at = digits.size(); at > sign + 3; at -= 3) digits.insert(at - 3, ",");
        }
        return digits;
    } else if (a >= 1.0)
        std::snprintf(buf, sizeof buf, "%.1f", v);
    else if (a >= 0.01)
        std::snprintf(buf, sizeof buf, "%.2f", v);
    else
        std::snprintf(buf, sizeof buf, "%.4f", v);
    return buf;
}

std::string fill_readings(std::string_view text, const std::vector<Meter>& meters, std::string* error) {
    std::string out;
    while (!text.empty()) {
        const std::size_t open = text.find('{');
        out += text.substr(0, open);
        if (open == std::string_view::npos) break;
        const std::size_t close = text.find('}', open);
        if (close == std::string_view::npos) {
            if (error) *error = "unclosed '{' in '" + std::string(text) + "'";
            return out;
        }
        const std::string_view name = text.substr(open + 1, close - open - 1);
        const Meter* m = find_meter(meters, name);
        if (!m) {
            if (error) *error = "no meter '" + std::string(name) + "'";
            return out;
        }
        out += plain_number(m->value);
        text.remove_prefix(close + 1);
    }
    return out;
}

Judgement judge(const Preset& preset, const std::vector<Meter>& meters) {
    Judgement j;
    if (preset.check.empty()) {
        j.text = "this preset claims no finding";
        return j;
    }
    const CheckResult r = evaluate_check(preset.check, meters);
    if (!r.valid) {
        j.text = r.text;
        return j;
    }
    std::string error;
    const std::string sentence = fill_readings(preset.verdict, meters, &error);
    if (!error.empty()) {
        j.text = "bad verdict of preset '" + preset.name + "': " + error;
        return j;
    }
    j.verdict = r.holds ? Verdict::Holds : Verdict::DoesNotHold;
    j.text = std::string(to_string(j.verdict)) + ": " + sentence;
    return j;
}

}  // namespace vantage::play
