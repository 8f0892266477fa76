// The UI half of the playground list (common/playground_list.hpp): each playground's view,
// holding its simulation by its concrete type. A view is
//     void draw_view(ViewContext& v, HordeSim& sim);
// defined in views/<name>_view.cpp; the declarations below come from the list, one per line.
// A playground that can be a room also draws its room there: what its client holds and the
// words the room's view uses (app/room_view.cpp).
#pragma once

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "app/ui.hpp"
#include "common/playground_list.hpp"
#include "common/simulation.hpp"

namespace vantage::play {

#define VANTAGE_DECLARE_VIEW(Sim, name, report, largest, ...) void draw_view(ViewContext& v, Sim& sim);
VANTAGE_PLAYGROUNDS(VANTAGE_DECLARE_VIEW)
#undef VANTAGE_DECLARE_VIEW

// What the room's view says about one game's room.
struct RoomWords {
    const char* title;        // the heading, e.g. "Horde room"
    const char* intro;        // what this page is, a paragraph
    const char* held;         // what the client holds, plural ("enemies")
    const char* error;        // the truth sample's error, by name ("render error (mean)")
    const char* error_short;  // the same on a phone's readout ("error")
    const char* plot_meter;   // the third plot's meter ("room.phantoms")
    const char* plot_label;   // its legend
    const char* plot_unit;    // its unit
};

// Per room (a list line that names a Remote): the world its client holds, in a square of
// `side` pixels at the cursor, returning where it was drawn (a drag on it steers); its words.
#define VANTAGE_DECLARE_ROOM_VIEW_OF(Remote, Room)               \
    WorldView draw_room_world(const Remote& remote, float side); \
    RoomWords room_words(const Remote& remote);
#define VANTAGE_DECLARE_ROOM_VIEW(Sim, name, report, largest, ...) __VA_OPT__(VANTAGE_DECLARE_ROOM_VIEW_OF(__VA_ARGS__))
VANTAGE_PLAYGROUNDS(VANTAGE_DECLARE_ROOM_VIEW)
#undef VANTAGE_DECLARE_ROOM_VIEW
#undef VANTAGE_DECLARE_ROOM_VIEW_OF

// A room's client bound to its view, as make_playgrounds() binds a simulation to its tab.
struct RoomGame {
    std::unique_ptr<RoomRemote> remote;  // null: the playground is not a room
    RoomWords words{};
    std::function<WorldView(float side)> draw_world;  // draws *remote; valid while it lives
};

// The room client of playground `name` with its view, from the list.
RoomGame make_room_game(std::string_view name, RoomRemoteOptions options);

// Draws one playground's tab: its view, bound to its simulation (as its own type).
using PlaygroundView = std::function<void(ViewContext&)>;

struct Playgrounds {
    std::vector<std::unique_ptr<Simulation>> sims;  // in list order: what the Host runs
    std::vector<PlaygroundView> views;              // views[i] draws *sims[i]; valid while sims[i] lives
};

// Every playground of the list, built as its own type and paired with its view.
Playgrounds make_playgrounds();

}  // namespace vantage::play
