// The app's state: the host of every playground, their typed views, and what the frame loop
// and the performance overlay keep between frames. main.cpp owns the one App; the page's C
// API (page_api.cpp, browser only) reads and changes it through the functions below.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <memory>

#include "app/class_session.hpp"
#include "app/room_session.hpp"
#include "app/views.hpp"
#include "common/history.hpp"
#include "common/host.hpp"
#include "common/tour.hpp"

struct SDL_Window;

namespace vantage::play {

struct App {
    App() : App(make_playgrounds()) {}

    SDL_Window* window = nullptr;
    std::vector<PlaygroundView> views;  // views[i] draws host.sim(i)
    Host host;
    MeterHistory history;  // a room's socket meters, in wall seconds
    // One history per playground, in simulated seconds: kept across tab switches, started
    // over when that playground's world is (Host::run: a restart, a seed, a preset).
    struct SimHistory {
        MeterHistory history;
        std::uint64_t run = ~std::uint64_t{0};
        double next_sample_s = 0.0;
    };
    std::vector<SimHistory> sim_histories;
    // Each playground's tour and where the room is in it (-1: not touring).
    struct TourState {
        Tour tour;
        int step = -1;
        bool shown = false;  // this step's change has been made ("Show me")
    };
    std::vector<TourState> tours;
    std::vector<Meter> meters;
    std::uint64_t meters_tick = ~0ull;  // the active playground's tick `meters` were read at
    std::uint64_t last_counter = 0;     // SDL performance counter at the previous frame
    long frames_left = -1;              // -1: run until closed
    bool running = true;
    double next_sample_s = 0.0;     // wall time of the room history's next sample
    std::size_t shown_tab = 0;      // the playground whose tab ImGui last drew
    std::string status;             // last rejected setting, shown in the context bar
    std::string screenshot;         // --screenshot: binary PPM of the last frame (desktop tests)
    float ui_scale = 1.0f;          // fonts and widgets, for projectors (0.75..2.5)
    bool presenter = false;         // lanes only: no sidebar or meter table
    std::string pending_png;        // "Save PNG": the file name, saved after this frame is drawn
    float pending_ui_scale = 0.0f;  // applied between frames (the font atlas is rebuilt)
    double link_copied_at = -1.0;   // wall seconds of the last "Copy link", for feedback
    double wall_s = 0.0;
    // Performance overlay: smoothed simulation cost per tick and frame time (exponential
    // moving averages over about half a second), and memory.
    double sim_ms_per_tick = 0.0;
    double frame_ms = 0.0;
    double memory_bytes = 0.0;  // sampled twice a second (natively it is a file read)
    double memory_sampled_at = -1.0;
    // A client of a room ("#horde/join", or --join on the desktop): drawn instead of the tabs,
    // and the in-page simulations are not stepped meanwhile.
    std::unique_ptr<RoomSession> room;
    // The teacher's console or a follower's link ("&teach&token=..." / "&follow"), beside the
    // in-page playgrounds.
    std::unique_ptr<ClassSession> classroom;
    bool console_shown = false;           // the teacher's console tab is the one ImGui shows
    bool select_console = false;          // a teacher link just arrived: show the console tab first
    bool applying_followed_link = false;  // a teacher's link is being applied (keeps the session)

private:
    explicit App(Playgrounds playgrounds)
        : views(std::move(playgrounds.views)),
          host(std::move(playgrounds.sims)),
          sim_histories(host.count()),
          tours(host.count()) {}
};

// Re-reads the active playground's meters (after a setting changed or a tick ran outside
// the frame loop).
void refresh_meters(App& app);
// Applies a link ("#name/..."): its room parts start (or keep) a room session, the rest goes
// to the Host. Returns one message per refused part.
std::vector<std::string> apply_link(App& app, std::string_view hash);
// The page's link now: the room's while in one, else the Host's.
std::string app_url(const App& app);
// The Host's state with "room": the session's state (or {"connected":false} outside a room).
std::string app_state_json(const App& app);
// The "Copy link" button: the active playground and every setting, onto the clipboard.
void copy_link(App& app);
// The active playground's history as CSV (what "Export CSV" saves).
std::string history_csv(const App& app);

}  // namespace vantage::play
