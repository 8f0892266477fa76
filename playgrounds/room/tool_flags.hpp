// ToolFlags: the command line of the room's measuring tools (vantage_room_load,
// vantage_rtc_load, vantage_relay). Each flag is declared once with its range; parse() then
// answers --help with the usage on stdout (exit 0) and any bad command line with one sentence
// naming the flag on stderr (exit 2): an unknown flag, a missing value, a value that is not a
// number (nan and inf included), a fraction where a count is expected, or a value out of range.
// Nothing is assigned unless the whole command line is good.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "common/host.hpp"

namespace vantage::room {

class ToolFlags {
public:
    ToolFlags(std::string tool, std::string summary) : tool_(std::move(tool)), summary_(std::move(summary)) {}

    // A number in [lo, hi].
    void number(std::string name, std::string value_name, double lo, double hi, double& out) {
        flags_.push_back(
            {std::move(name), std::move(value_name), lo, hi, false, [&out](double v, const std::string&) { out = v; }});
    }
    // A whole number in [lo, hi].
    void count(std::string name, std::string value_name, int lo, int hi, int& out) {
        flags_.push_back({std::move(name), std::move(value_name), static_cast<double>(lo), static_cast<double>(hi),
                          true, [&out](double v, const std::string&) { out = static_cast<int>(v); }});
    }
    // Free text (a file name, a command, HOST:PORT); checked by the caller.
    void text(std::string name, std::string value_name, std::string& out) {
        flags_.push_back({std::move(name), std::move(value_name), 0, 0, false,
                          [&out](double, const std::string& t) { out = t; }, true});
    }

    // The tool's summary, then one line per flag with its range.
    std::string usage() const {
        std::string u = "usage: " + tool_ + " [flags]\n" + summary_ + "\n";
        for (const Flag& f : flags_) {
            std::string line = "  " + f.name + " " + f.value_name;
            line.resize(std::max<std::size_t>(line.size() + 1, 30), ' ');
            u += line + (f.is_text ? "text" : shown(f.lo) + " to " + shown(f.hi) + (f.whole ? ", whole" : "")) + "\n";
        }
        return u;
    }

    // -1: go on; otherwise the exit code main() should return.
    int parse(int argc, char** argv) {
        std::vector<std::function<void()>> apply;
        for (int i = 1; i < argc; ++i) {
            const std::string a = argv[i];
            if (a == "--help" || a == "-h") {
                std::fputs(usage().c_str(), stdout);
                return 0;
            }
            const Flag* flag = find(a);
            if (!flag) return fail("unknown flag '" + a + "'");
            if (i + 1 >= argc) return fail(a + " needs a value (" + flag->value_name + ")");
            const std::string value = argv[++i];
            if (flag->is_text) {
                if (value.empty()) return fail(a + " needs a value (" + flag->value_name + ")");
                apply.push_back([flag, value] { flag->set(0, value); });
                continue;
            }
            double v = 0;
            if (!play::parse_value(value, v) || (flag->whole && v != std::floor(v)) || v < flag->lo || v > flag->hi)
                return fail(a + " needs " + (flag->whole ? "a whole number" : "a number") + " from " + shown(flag->lo) +
                            " to " + shown(flag->hi) + " (got '" + value + "')");
            apply.push_back([flag, v] { flag->set(v, {}); });
        }
        for (auto& fn : apply) fn();
        return -1;
    }

    // For checks across flags after parse(): prints the sentence and the usage, returns 2.
    int fail(const std::string& why) const {
        std::fprintf(stderr, "%s: %s\n%s", tool_.c_str(), why.c_str(), usage().c_str());
        return 2;
    }

private:
    struct Flag {
        std::string name, value_name;
        double lo, hi;
        bool whole;
        std::function<void(double, const std::string&)> set;
        bool is_text = false;
    };
    const Flag* find(const std::string& name) const {
        for (const Flag& f : flags_)
            if (f.name == name) return &f;
        return nullptr;
    }
    static std::string shown(double v) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.10g", v);
        return buf;
    }

    std::string tool_, summary_;
    std::vector<Flag> flags_;
};

}  // namespace vantage::room
