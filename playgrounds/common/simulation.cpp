#include "simulation.hpp"

#include <cmath>
#include <sstream>
#include "vantage/bit_cast.hpp"

#include "vantage/random.hpp"

namespace vantage::play {

std::string check_param_value(const Param& p, double value) {
    std::ostringstream msg;
    if (!std::isfinite(value)) {
        msg << "'" << p.name << "' must be a finite number";
        return msg.str();
    }
    if (p.kind == Param::Kind::Bool && value != 0.0 && value != 1.0) {
        msg << "'" << p.name << "' is a switch: use 0 or 1 (or true/false)";
        return msg.str();
    }
    if (p.kind == Param::Kind::Int && value != std::floor(value)) {
        msg << "'" << p.name << "' must be a whole number";
        return msg.str();
    }
    if (value < p.min || value > p.max) {
        msg << "'" << p.name << "' must be between " << p.min << " and " << p.max << " (got " << value << ")";
        return msg.str();
    }
    return {};
}

long run_ticks(Simulation& sim, double seconds, int tick_hz) {
    const double dt = 1.0 / tick_hz;
    // The formula every report loop used, so a run lasts exactly the ticks it always did.
    const auto ticks = static_cast<long>(seconds / dt + 0.5);
    for (long t = 0; t < ticks; ++t) sim.step(dt);
    return ticks;
}

void continue_measured(Simulation& sim, double warmup_s, double measure_s, int tick_hz,
                       const std::function<void()>& each_measured_tick) {
    run_ticks(sim, warmup_s, tick_hz);
    sim.begin_measurement();
    if (!each_measured_tick) {
        run_ticks(sim, measure_s, tick_hz);
        return;
    }
    const double dt = 1.0 / tick_hz;
    const auto ticks = static_cast<long>(measure_s / dt + 0.5);
    for (long t = 0; t < ticks; ++t) {
        sim.step(dt);
        each_measured_tick();
    }
}

void run_measured(Simulation& sim, const MeasuredRun& run) {
    sim.reset(run.seed);
    continue_measured(sim, run.warmup_s, run.measure_s, run.tick_hz, run.each_measured_tick);
}

std::uint64_t fold(std::uint64_t h, std::uint64_t v) {
    return mix64(h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)));
}

const MeterInfo* find_meter_info(std::span<const MeterInfo> glossary, std::string_view meter) {
    const std::size_t dot = meter.find('.');
    const std::string_view rest = dot == std::string_view::npos ? meter : meter.substr(dot + 1);
    const MeterInfo* by_rest = nullptr;
    for (const MeterInfo& m : glossary) {
        if (m.key == meter) return &m;
        if (m.key == rest) by_rest = &m;
    }
    return by_rest;
}

std::uint64_t fold(std::uint64_t h, double v) {
    return fold(h, vantage::bit_cast<std::uint64_t>(v));
}

std::string meter_label(std::span<const MeterInfo> glossary, std::string_view meter, std::string_view lane_separator) {
    const MeterInfo* info = find_meter_info(glossary, meter);
    if (!info) return std::string(meter);
    const std::size_t dot = meter.find('.');
    if (dot == std::string_view::npos || info->key == meter) return std::string(info->label);
    std::string label(meter.substr(0, dot));
    label += lane_separator;
    label += info->label;
    return label;
}

}  // namespace vantage::play
