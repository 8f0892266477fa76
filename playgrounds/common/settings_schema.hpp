// SettingsSchema: a playground's settings declared once per field.
//
// A settings struct keeps its defaults in its default member initialisers (STYLE 6); the
// schema says, once per field, everything else: the URL name, label, unit, range, help line,
// whether changing it rebuilds the world, and whether the simulation must re-apply it at once
// (links, lanes). From those declarations come both the Params (get/set, hence URL state,
// sliders and tooltips) and the struct's validate(), so a range is written in one place.
//
//   const SettingsSchema<MySettings>& my_schema() {
//       static const SettingsSchema<MySettings> s = [] {
//           SettingsSchema<MySettings> d;
//           d.real("theta", &MySettings::theta, {.label = "theta", .min = 0, .max = 2, .help = "..."});
//           d.integer("count", &MySettings::count, {.label = "count", .min = 1, .max = 8, .restart = true});
//           d.flag("autopilot", &MySettings::autopilot, {.label = "autopilot"});
//           return d;
//       }();
//       return s;
//   }
//   std::string MySettings::validate() const { return my_schema().validate(*this); }
//   MySim::MySim() { my_schema().bind(settings_, params_, [this] { apply_links(); }); }
#pragma once

#include <cassert>
#include <functional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "simulation.hpp"

namespace vantage::play {

// Everything about one setting except its default (the struct's) and its field. A flag's
// range is always 0..1; min and max are ignored for it.
struct SettingSpec {
    std::string label{};  // shown beside the slider
    std::string unit{};   // "ms", "%", "Hz", or empty
    double min = 0.0;
    double max = 1.0;
    std::string help{};    // one line: what it does (the tooltip)
    bool restart = false;  // takes effect at the next reset() (rebuilds the world)
    bool apply = false;    // after a set, call the simulation's apply hook (see bind)
};

template <class Settings>
class SettingsSchema {
public:
    void real(std::string name, double Settings::*field, SettingSpec spec) {
        add(std::move(name), Param::Kind::Real, field, std::move(spec));
    }
    void integer(std::string name, int Settings::*field, SettingSpec spec) {
        add(std::move(name), Param::Kind::Int, field, std::move(spec));
    }
    void flag(std::string name, bool Settings::*field, SettingSpec spec) {
        spec.min = 0.0;
        spec.max = 1.0;
        add(std::move(name), Param::Kind::Bool, field, std::move(spec));
    }

    // Appends one Param per declared field to `params`, reading and writing `settings` (which
    // must outlive them: a simulation's own member). A set of an `apply` setting then calls
    // `apply` (may be empty when no setting asks for it). With a prefix, every name and label
    // starts with it: one schema serves each of several lanes ("acked_recovery", "acked: ...").
    struct Prefix {
        std::string name{};
        std::string label{};
    };
    void bind(Settings& settings, std::vector<Param>& params, std::function<void()> apply = {},
              const Prefix& prefix = {}) const {
        for (const Field& f : fields_) {
            assert((!f.spec.apply || apply) && "SettingsSchema::bind: an `apply` setting needs the apply hook");
            Param p{prefix.name + f.name,
                    prefix.label + f.spec.label,
                    f.spec.unit,
                    f.spec.help,
                    f.kind,
                    f.spec.min,
                    f.spec.max,
                    f.spec.restart,
                    {},
                    {}};
            std::visit(
                [&](auto member) {
                    p.get = [&settings, member] { return static_cast<double>(settings.*member); };
                    p.set = [&settings, member, apply, notify = f.spec.apply](double v) {
                        store(settings.*member, v);
                        if (notify) apply();
                    };
                },
                f.member);
            params.push_back(std::move(p));
        }
    }

    // Empty when every declared field is acceptable (finite, in range, integral for Int);
    // otherwise the message for the first one that is not, naming it by its URL name.
    std::string validate(const Settings& settings) const {
        for (const Field& f : fields_) {
            const double v = std::visit([&](auto member) { return static_cast<double>(settings.*member); }, f.member);
            const Param p{f.name, {}, {}, {}, f.kind, f.spec.min, f.spec.max, false, {}, {}};
            if (std::string message = check_param_value(p, v); !message.empty()) return message;
        }
        return {};
    }

private:
    using Member = std::variant<double Settings::*, int Settings::*, bool Settings::*>;
    struct Field {
        std::string name;
        Param::Kind kind;
        Member member;
        SettingSpec spec;
    };

    static void store(double& field, double v) { field = v; }
    static void store(int& field, double v) { field = static_cast<int>(v); }
    static void store(bool& field, double v) { field = v != 0.0; }

    void add(std::string name, Param::Kind kind, Member member, SettingSpec spec) {
        for ([[maybe_unused]] const Field& f : fields_) {
            assert(f.name != name && "SettingsSchema: two settings with one name");
        }
        fields_.push_back({std::move(name), kind, member, std::move(spec)});
    }

    std::vector<Field> fields_;
};

}  // namespace vantage::play
