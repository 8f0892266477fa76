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
}  // namespace

Playgrounds make_playgrounds() {
    Playgrounds out;
#define VANTAGE_ADD_PLAYGROUND(Sim, name, report, largest) add<Sim>(out);
    VANTAGE_PLAYGROUNDS(VANTAGE_ADD_PLAYGROUND)
#undef VANTAGE_ADD_PLAYGROUND
    return out;
}

}  // namespace vantage::play
