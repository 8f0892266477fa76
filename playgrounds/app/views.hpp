// The UI half of the playground list (common/playground_list.hpp): each playground's view,
// holding its simulation by its concrete type. A view is
//     void draw_view(ViewContext& v, HordeSim& sim);
// defined in <name>/<name>_view.cpp; the declarations below come from the list, one per line.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "app/ui.hpp"
#include "common/playground_list.hpp"
#include "common/simulation.hpp"

namespace vantage::play {

#define VANTAGE_DECLARE_VIEW(Sim, name, report, largest) void draw_view(ViewContext& v, Sim& sim);
VANTAGE_PLAYGROUNDS(VANTAGE_DECLARE_VIEW)
#undef VANTAGE_DECLARE_VIEW

// The world a room's client holds (horde/horde_view.cpp, blackhole/blackhole_view.cpp), in a
// square of `side` pixels at the cursor; returns where it was drawn (a drag on it steers).
class HordeRemote;
class BlackholeRemote;
WorldView draw_room_world(const HordeRemote& remote, float side);
WorldView draw_room_world(const BlackholeRemote& remote, float side);

// Draws one playground's tab: its view, bound to its simulation (as its own type).
using PlaygroundView = std::function<void(ViewContext&)>;

struct Playgrounds {
    std::vector<std::unique_ptr<Simulation>> sims;  // in list order: what the Host runs
    std::vector<PlaygroundView> views;              // views[i] draws *sims[i]; valid while sims[i] lives
};

// Every playground of the list, built as its own type and paired with its view.
Playgrounds make_playgrounds();

}  // namespace vantage::play
