// The view of each playground, by name. The simulations are listed in
// common/catalog.cpp; this is their UI half, looked up by the same name.
#pragma once

#include <string_view>

#include "app/ui.hpp"

namespace vantage::play {

void draw_meter_view(ViewContext& v);
void draw_blackhole_view(ViewContext& v);
void draw_horde_view(ViewContext& v);
void draw_netcode_view(ViewContext& v);

struct ViewEntry {
    const char* name;
    ViewFn draw;
};

inline constexpr ViewEntry kViews[] = {
    {"meter", &draw_meter_view},
    {"blackhole", &draw_blackhole_view},
    {"horde", &draw_horde_view},
    {"netcode", &draw_netcode_view},
};

inline ViewFn find_view(std::string_view name) {
    for (const ViewEntry& e : kViews) {
        if (name == e.name) return e.draw;
    }
    return nullptr;
}

}  // namespace vantage::play
