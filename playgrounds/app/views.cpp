#include "app/views.hpp"

#include <utility>

namespace vantage::play {

namespace {
// Builds one playground as `Sim` and binds its view to that object: the view gets the
// simulation's own type from here, so it never casts. The Host takes the unique_ptr and
// keeps the object for the app's lifetime (it resets simulations, never replaces them).
template <class Sim>
void add(Playgrounds& out) {
    auto sim = std::make_unique<Sim>();
    Sim& typed = *sim;
    out.views.push_back([&typed](ViewContext& v) { draw_view(v, typed); });
    out.sims.push_back(std::move(sim));
}

// Builds a room's client as `Remote` and binds its drawing to that object.
template <class Remote>
RoomGame bind_room(RoomRemoteOptions options) {
    auto remote = std::make_unique<Remote>(std::move(options));
    Remote& typed = *remote;
    RoomGame game{nullptr, room_words(typed), [&typed](float side) { return draw_room_world(typed, side); }};
    game.remote = std::move(remote);
    return game;
}
}  // namespace

Playgrounds make_playgrounds() {
    Playgrounds out;
#define VANTAGE_ADD_PLAYGROUND(Sim, name, report, largest, ...) add<Sim>(out);
    VANTAGE_PLAYGROUNDS(VANTAGE_ADD_PLAYGROUND)
#undef VANTAGE_ADD_PLAYGROUND
    return out;
}

RoomGame make_room_game(std::string_view name, RoomRemoteOptions options) {
#define VANTAGE_BIND_ROOM_OF(Remote, Room) return bind_room<Remote>(std::move(options));
#define VANTAGE_BIND_ROOM(Sim, room_name, report, largest, ...) \
    __VA_OPT__(if (name == room_name){VANTAGE_BIND_ROOM_OF(__VA_ARGS__)})
    VANTAGE_PLAYGROUNDS(VANTAGE_BIND_ROOM)
#undef VANTAGE_BIND_ROOM
#undef VANTAGE_BIND_ROOM_OF
    return {};
}

}  // namespace vantage::play
