// The playgrounds, in one list: a new playground is one line here (and the include of its
// simulation's header). Each line gives the simulation type, its URL name, its report (the
// tables behind its findings, or nullptr) and the largest configuration the page offers
// ("key=value&...", for tick budgets).
//
// Why a list macro: two libraries read these lines and only one of them may see the UI.
// vantage_playgrounds (UI-free) expands them into playground_catalog() (common/catalog.cpp),
// the runtime table the report tool, the tests and the benchmarks use. vantage_app expands
// the same lines into one `void draw_view(ViewContext&, Sim&)` declaration per type and
// builds each simulation as that type, pairing it with a view that holds the concrete object
// (app/views.hpp, app/views.cpp). So a view is handed its own simulation type and nothing
// downcasts; there is no second registry, and no registration at static initialisation.
// Views are defined in <name>/<name>_view.cpp, which only vantage_app compiles.
#pragma once

#include "blackhole/blackhole_sim.hpp"
#include "horde/horde_sim.hpp"
#include "meter/meter_sim.hpp"
#include "netcode/netcode_sim.hpp"
#include "proximity/proximity_sim.hpp"

// X(Sim, name, report, largest); the order is the order of the page's tabs.
#define VANTAGE_PLAYGROUNDS(X)                                                                                     \
    X(BlackholeSim, "blackhole", &blackhole_report, "holes=64&pellets=6000")                                       \
    X(HordeSim, "horde", &horde_report, "enemies=8000&players=128")                                                \
    X(NetcodeSim, "netcode", &report_netcode,                                                                      \
      "server_hz=60&jitter_ms=100&loss_pct=20&interpolation=1&extrapolation=1&second_order=1&adaptive_buffering=1" \
      "&lag_compensation=1&shots_per_s=5")                                                                         \
    X(ProximitySim, "proximity", &proximity_report, "creatures=50000&world=12000")                                 \
    X(MeterSim, "meter", nullptr, "")
