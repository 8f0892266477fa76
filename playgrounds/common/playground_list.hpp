// The playgrounds, in one list: a new playground is one line here (and the include of its
// simulation's header). Each line gives the simulation type, its URL name, its report (the
// tables behind its findings, or nullptr) and the largest configuration the page offers
// ("key=value&...", for tick budgets). A playground that can also be a room (`./vantage serve
// NAME`, a page at #NAME/join) adds two more: its room client, UI-free (play::<X>Remote in
// <name>/<name>_remote.hpp, included here), and its room server, native only (room::<X>Room
// in room/<name>_room.hpp, which only the room's programs include). This is the only list of
// rooms: the catalog, the app, vantage_serve and the `vantage` script read it from here
// (tests/conventions/check_conventions.py fails on a second one).
//
// Why a list macro: two libraries read these lines and only one of them may see the UI.
// vantage_playgrounds (UI-free) expands them into playground_catalog() (common/catalog.cpp),
// the runtime table the report tool, the tests and the benchmarks use. vantage_app expands
// the same lines into one `void draw_view(ViewContext&, Sim&)` declaration per type and
// builds each simulation as that type, pairing it with a view that holds the concrete object
// (app/views.hpp, app/views.cpp). So a view is handed its own simulation type and nothing
// downcasts; there is no second registry, and no registration at static initialisation.
// Views are defined in views/<name>_view.cpp, which only vantage_app compiles; a room's view of
// what its client holds is there too (draw_room_world, room_words).
#pragma once

#include "blackhole/blackhole_remote.hpp"
#include "blackhole/blackhole_sim.hpp"
#include "horde/horde_remote.hpp"
#include "horde/horde_sim.hpp"
#include "meter/meter_sim.hpp"
#include "netcode/netcode_sim.hpp"
#include "proximity/proximity_sim.hpp"

// X(Sim, name, report, largest[, Remote, Room]); the order is the order of the page's tabs.
#define VANTAGE_PLAYGROUNDS(X)                                                                                     \
    X(BlackholeSim, "blackhole", &blackhole_report, "holes=64&pellets=6000", BlackholeRemote, BlackholeRoom)       \
    X(HordeSim, "horde", &horde_report, "enemies=8000&players=128", HordeRemote, HordeRoom)                        \
    X(NetcodeSim, "netcode", &report_netcode,                                                                      \
      "server_hz=60&jitter_ms=100&loss_pct=20&interpolation=1&extrapolation=1&second_order=1&adaptive_buffering=1" \
      "&lag_compensation=1&shots_per_s=5")                                                                         \
    X(ProximitySim, "proximity", &proximity_report, "creatures=50000&world=12000")                                 \
    X(MeterSim, "meter", nullptr, "")

namespace vantage::play {
// The room `./vantage serve` and `vantage_app --join` play when none is named (a room above).
inline constexpr const char* kDefaultRoom = "horde";
}  // namespace vantage::play
