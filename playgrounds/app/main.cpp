// The Vantage app: the playgrounds in one SDL2 + OpenGL3 + Dear ImGui window, natively or
// in the browser. main() reads top to bottom: init, loop, shutdown. What the desktop and the
// browser do differently (the loop driver, clipboard, memory, canvas size, remembered UI
// scale, the page's C API) is behind app/platform.hpp, one implementation chosen by CMake.
//
// Command line (desktop): vantage_app [--frames N] [SETTINGS]
//   SETTINGS uses the URL hash format, e.g. 'meter/seed=7&rate_kib=100'.
//   --join URL         join the room at ws://HOST:PORT/ws (./vantage serve prints it); a horde
//                      room unless SETTINGS names blackhole ("blackhole" or "blackhole/name=ann").
//   --frames N         quit after N frames (smoke tests).
//   --screenshot FILE  with --frames: write the last frame as a binary PPM.
//   Bad flags or settings: a message and exit status 2.
#include <SDL.h>
#include <SDL_opengl.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <imgui.h>
#include <imgui_impl_opengl3.h>
#include <imgui_impl_sdl.h>

#include "app/app.hpp"
#include "app/platform.hpp"
#include "app/ui.hpp"
#include "common/catalog.hpp"
#include "common/host.hpp"
#include "common/playground_list.hpp"
#include "common/preset.hpp"

namespace vantage::play {

void refresh_meters(App& app) {
    app.meters.clear();
    app.host.current().meters(app.meters);
}

void copy_link(App& app) {
    // A teacher copies the follow link of what is on screen, never the token.
    platform::copy_link(app.classroom && app.classroom->teacher() ? app.host.url() + "&follow" : app_url(app));
    app.link_copied_at = app.wall_s;
}

std::vector<std::string> apply_link(App& app, std::string_view hash) {
    std::vector<std::string> errors;
    RoomLink link;
    const std::string rest = split_room_link(hash, link, errors);
    if (link.join) {
        if (!is_room(link.playground)) {
            errors.push_back("rooms play " + room_names(" or ") + ": '" + link.playground + "/join' is not a room");
            return errors;
        }
        // The same room, playground and name: keep the session (the page re-applies its own link).
        if (!app.room || app.room->link().name != link.name || app.room->link().url != link.url ||
            app.room->link().playground != link.playground) {
            app.room = std::make_unique<RoomSession>(link);
            app.history.clear();
        }
        return errors;
    }
    if (app.room) {
        app.room->leave();
        app.room.reset();
        app.history.clear();
    }
    if (link.teach || link.follow) {
        if (link.teach && link.token.empty())
            errors.push_back("'teach' needs the token `vantage serve` printed");
        else if (!app.classroom || app.classroom->link().teach != link.teach ||
                 app.classroom->link().token != link.token) {
            app.classroom = std::make_unique<ClassSession>(link);
            if (link.teach) {
                app.classroom->presets = load_presets(platform::presets_dir(), link.playground + "-room").presets;
                app.select_console = true;
            }
        }
    } else if (app.classroom && !app.applying_followed_link) {
        app.classroom->leave();  // a link without them ends the teaching or the following
        app.classroom.reset();
    }
    for (std::string& e : app.host.apply_url(rest)) errors.push_back(std::move(e));
    return errors;
}

std::string history_csv(const App& app) {
    return app.sim_histories[app.host.active()].history.csv();
}

std::string app_url(const App& app) {
    if (app.room) return room_link_hash(app.room->link());
    return app.host.url() + (app.classroom ? class_link_suffix(app.classroom->link()) : "");
}

std::string app_state_json(const App& app) {
    std::string out = app.host.state_json();
    if (!out.empty() && out.back() == '}') out.pop_back();
    out += ",\"room\":";
    out += app.room ? app.room->state_json() : std::string("{\"connected\":false,\"seat\":-1}");
    out += ",\"presenter\":";
    out += app.presenter ? "true" : "false";
    out += ",\"class\":";
    out += app.classroom ? app.classroom->state_json() : std::string("null");
    out += "}";
    return out;
}

}  // namespace vantage::play

namespace {

using namespace vantage::play;

void draw_class_badge(App& app) {
    if (!app.classroom) return;
    const bool open = app.classroom->client().status() == ClassClient::Status::Open;
    ImGui::TextColored(open ? ImVec4(0.3f, 0.9f, 1.0f, 1.0f) : ImVec4(1.0f, 0.5f, 0.4f, 1.0f), "[%s]",
                       app.classroom->status_text().c_str());
    ImGui::SameLine();
    if (ImGui::Button(app.classroom->teacher() ? "Close the console" : "Stop following")) {
        app.classroom->leave();
        app.classroom.reset();
        return;
    }
    ImGui::SameLine();
}

void draw_context_bar(App& app) {
    draw_class_badge(app);
    Host& host = app.host;
    const Context& ctx = host.context();
    if (ImGui::Button(ctx.paused ? "Resume" : "Pause")) host.set_paused(!ctx.paused);
    ImGui::SameLine();
    ImGui::BeginDisabled(!ctx.paused);
    if (ImGui::Button("Step")) host.single_step();
    ImGui::EndDisabled();
    ImGui::SameLine();
    if (ImGui::Button("Restart")) host.restart();
    if (!app.presenter && !narrow_layout()) {  // presenter mode and phones keep the clock's buttons only
        ImGui::SameLine();
        ImGui::SetNextItemWidth(em(4.5f));
        int hz = ctx.tick_hz;
        if (ImGui::SliderInt("tick Hz", &hz, 10, 120)) host.set("tick_hz", std::to_string(hz));
        ImGui::SameLine();
        ImGui::SetNextItemWidth(em(4.5f));
        float speed = static_cast<float>(ctx.speed);
        if (ImGui::SliderFloat("speed", &speed, 0.25f, 4.0f, "%.2fx")) host.set("speed", std::to_string(speed));
        ImGui::SameLine();
        ImGui::SetNextItemWidth(em(4.0f));
        char seed[32];
        std::snprintf(seed, sizeof seed, "%llu", static_cast<unsigned long long>(ctx.seed));
        if (ImGui::InputText("seed", seed, sizeof seed,
                             ImGuiInputTextFlags_CharsDecimal | ImGuiInputTextFlags_EnterReturnsTrue)) {
            const std::string err = host.set("seed", seed);
            app.status = err;
        }
    }
    char clock[64];
    std::snprintf(clock, sizeof clock, "t = %.1f s  tick %llu", host.current().time_s(),
                  static_cast<unsigned long long>(host.ticks()));
    same_line_if_fits(ImGui::CalcTextSize(clock).x);
    ImGui::TextUnformatted(clock);
    layout_text("clock", clock);
    // The performance overlay where it fits on the line; else on the clock's tooltip.
    char perf[96];
    std::snprintf(perf, sizeof perf, "| sim %.2f ms/tick  frame %.1f ms  memory %.0f MiB", app.sim_ms_per_tick,
                  app.frame_ms, app.memory_bytes / 1048576.0);
    ImGui::SameLine();
    if (ImGui::GetContentRegionAvail().x >= ImGui::CalcTextSize(perf).x) {
        ImGui::TextColored(ImVec4(0.6f, 0.65f, 0.75f, 1.0f), "%s", perf);
    } else {
        ImGui::NewLine();
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", perf + 2);
    }
    if (!app.status.empty()) {
        same_line_if_fits(ImGui::CalcTextSize(app.status.c_str()).x);
        ImGui::TextColored(ImVec4(1.0f, 0.5f, 0.4f, 1.0f), "%s", app.status.c_str());
    }
}

// The code points the page's font carries (playgrounds/CMakeLists.txt subsets it to these):
// Latin-1 and Latin Extended-A for names, Greek, punctuation, arrows and math for the views.
// A name's letters outside them are drawn as '?' and named by missing_glyphs().
constexpr ImWchar kGlyphRanges[] = {0x0020, 0x00FF, 0x0100, 0x017F, 0x0391, 0x03C9, 0x2013, 0x2033,
                                    0x2190, 0x21D4, 0x2202, 0x2265, 0xFFFD, 0xFFFD, 0};

void load_font(float scale) {
    ImGuiIO& io = ImGui::GetIO();
    io.Fonts->Clear();
    const char* candidates[] = {"/fonts/DejaVuSans.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"};
    for (const char* path : candidates) {
        if (FILE* f = std::fopen(path, "rb")) {
            std::fclose(f);
            io.Fonts->AddFontFromFileTTF(path, 17.0f * scale, nullptr, kGlyphRanges);
            return;
        }
    }
    ImFontConfig config;
    config.SizePixels = 13.0f * scale;
    io.Fonts->AddFontDefault(&config);
}

// Rebuilds the font atlas at the new size and scales every widget metric from the default.
void apply_ui_scale(App& app, float scale, bool have_renderer) {
    app.ui_scale = scale;
    load_font(scale);
    if (have_renderer) {
        ImGui_ImplOpenGL3_DestroyFontsTexture();
        ImGui_ImplOpenGL3_CreateFontsTexture();
    }
    ImGuiStyle style;
    ImGui::StyleColorsDark(&style);
    style.ScaleAllSizes(scale);
    ImGui::GetStyle() = style;
    platform::remember_ui_scale(scale);
}

// The UI scale in steps of a quarter, with buttons: a slider grows under the pointer as the
// scale applies (a drag toward 1.5x ran away to 2.5x), a button press changes it once. The
// new scale applies before the next frame and the browser remembers it.
constexpr float kUiScaleMin = 0.75f;
constexpr float kUiScaleMax = 2.5f;
constexpr float kUiScaleStep = 0.25f;

float ui_scale_control_width() {
    const ImGuiStyle& style = ImGui::GetStyle();
    const float button = ImGui::CalcTextSize("+").x + 2 * style.FramePadding.x;
    return 2 * button + ImGui::CalcTextSize("UI 2.50x").x + 2 * style.ItemSpacing.x;
}

void draw_ui_scale_control(App& app) {
    ImGui::PushID("ui scale");
    const float current = app.pending_ui_scale > 0.0f ? app.pending_ui_scale : app.ui_scale;
    // The next step on the grid of quarters: a remembered 1.3 moves to 1.25 or 1.5.
    const float below = (std::ceil(current / kUiScaleStep - 1e-3f) - 1.0f) * kUiScaleStep;
    const float above = (std::floor(current / kUiScaleStep + 1e-3f) + 1.0f) * kUiScaleStep;
    ImGui::BeginDisabled(current <= kUiScaleMin + 1e-3f);
    if (ImGui::Button("-")) app.pending_ui_scale = std::max(kUiScaleMin, below);
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("smaller text (UI scale)");
    ImGui::SameLine(0.0f, ImGui::GetStyle().ItemInnerSpacing.x);
    ImGui::Text("UI %.2fx", current);
    ImGui::SameLine(0.0f, ImGui::GetStyle().ItemInnerSpacing.x);
    ImGui::BeginDisabled(current >= kUiScaleMax - 1e-3f);
    if (ImGui::Button("+")) app.pending_ui_scale = std::min(kUiScaleMax, above);
    ImGui::EndDisabled();
    layout_mark("ui_scale.plus");
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("larger text (UI scale); 1.5x reads from the back of a room");
    ImGui::PopID();
}

void draw_workshop_bar(App& app) {
    Host& host = app.host;
    const std::vector<Preset>& presets = host.presets();
    const Preset* active = host.active_preset();
    bool title_shown = false;  // the menu shows the active preset's whole title
    if (!presets.empty()) {
        // At most a third of the window: on a projector (1280 px at 1.5x) the bar stays one line.
        // On a phone: the line's width less its label.
        const float menu_w = narrow_layout() ? ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize("preset").x -
                                                   ImGui::GetStyle().ItemInnerSpacing.x
                                             : std::min(em(22.0f), ImGui::GetMainViewport()->WorkSize.x * 0.33f);
        ImGui::SetNextItemWidth(menu_w);
        title_shown = active && ImGui::CalcTextSize(active->title.c_str()).x <=
                                    menu_w - ImGui::GetFrameHeight() - 2.0f * ImGui::GetStyle().FramePadding.x;
        if (ImGui::BeginCombo("preset", active ? active->title.c_str() : "(choose a scenario)")) {
            for (const Preset& p : presets) {
                if (ImGui::Selectable(p.title.c_str(), active == &p)) app.status = host.set("preset", p.name);
                if (ImGui::IsItemHovered() && !p.look_for.empty()) ImGui::SetTooltip("%s", p.look_for.c_str());
            }
            ImGui::EndCombo();
        }
        ImGui::SameLine();
    }
    if (ImGui::Button("Copy link")) copy_link(app);
    if (app.link_copied_at >= 0 && app.wall_s - app.link_copied_at < 2.0) {
        ImGui::SameLine();
        ImGui::TextUnformatted("copied");
    }
    const ImGuiStyle& style = ImGui::GetStyle();
    same_line_if_fits(ui_scale_control_width());
    draw_ui_scale_control(app);
    same_line_if_fits(ImGui::GetFrameHeight() + style.ItemInnerSpacing.x + ImGui::CalcTextSize("presenter").x);
    ImGui::Checkbox("presenter", &app.presenter);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("lanes only: hides the settings and the meter table");
    // Saving the run is rarer than the story's controls: behind one button.
    same_line_if_fits(ImGui::CalcTextSize("Save...").x + 2 * style.FramePadding.x);
    if (ImGui::Button("Save...")) ImGui::OpenPopup("save");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("export this run's history as CSV, or the frame as PNG");
    if (ImGui::BeginPopup("save")) {
        if (ImGui::Selectable("Export CSV (every meter of this run)")) {
            const std::string name = std::string(host.current().name()) + "-history.csv";
            const std::string where = platform::save_text(name, history_csv(app));
            app.status = where.empty() ? "could not write " + name : "history saved: " + where;
        }
        if (ImGui::Selectable("Save PNG (this frame)")) app.pending_png = std::string(host.current().name()) + ".png";
        ImGui::EndPopup();
    }
    App::TourState& tour = app.tours[host.active()];
    if (!tour.tour.steps.empty() && tour.step < 0) {
        same_line_if_fits(ImGui::CalcTextSize("Tour").x + 2 * style.FramePadding.x);
        if (ImGui::Button("Tour")) {
            tour.step = 0;
            tour.shown = false;
        }
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("a few steps: the scene, a question for the room, the answer");
    }
    if (active) {
        // The title again only when the menu cut it: a projector's height goes to the numbers.
        if (!title_shown) ImGui::TextColored(ImVec4(0.55f, 0.8f, 1.0f, 1.0f), "%s", active->title.c_str());
        wrap_at_spaces(active->look_for);
        const Host::PresetRun run = host.preset_run();
        if (!active->check.empty()) {
            const Judgement& j = run.judgement;
            if (j.verdict == Verdict::Pending && run.remaining_s > 0.0) {
                // The countdown to the moment the preset is judged, then the frozen verdict.
                ImGui::TextColored(ImVec4(0.7f, 0.7f, 0.7f, 1.0f), "verdict in %.0f s (at %.0f s of simulated time)",
                                   std::ceil(run.remaining_s), active->seconds);
            } else if (j.verdict == Verdict::Pending) {
                ImGui::TextColored(ImVec4(1.0f, 0.6f, 0.3f, 1.0f), "%s", j.text.c_str());
            } else {
                const ImVec4 color =
                    j.verdict == Verdict::Holds ? ImVec4(0.4f, 0.9f, 0.5f, 1.0f) : ImVec4(1.0f, 0.6f, 0.3f, 1.0f);
                ImGui::PushStyleColor(ImGuiCol_Text, color);
                ImGui::BeginGroup();
                wrap_at_spaces(format("At %.0f s, %s", active->seconds, j.text.c_str()));
                ImGui::EndGroup();
                layout_mark("verdict");
                ImGui::PopStyleColor();
            }
        }
    }
}

// The tour's current step: the scene, the question, "Show me" (the one change), and the
// meters that answer, live.
void draw_tour(App& app) {
    App::TourState& t = app.tours[app.host.active()];
    if (t.step < 0 || t.step >= static_cast<int>(t.tour.steps.size())) return;
    const TourStep& step = t.tour.steps[static_cast<std::size_t>(t.step)];
    ImGui::Separator();
    ImGui::TextColored(ImVec4(0.95f, 0.85f, 0.45f, 1.0f), "Tour, step %d of %zu", t.step + 1, t.tour.steps.size());
    ImGui::SameLine();
    wrap_at_spaces(step.say);
    if (!step.ask.empty()) {
        ImGui::TextColored(ImVec4(0.95f, 0.85f, 0.45f, 1.0f), "Predict:");
        ImGui::SameLine();
        wrap_at_spaces(step.ask);
    }
    if (!step.watch.empty()) {
        ImGui::TextColored(ImVec4(0.6f, 0.65f, 0.75f, 1.0f), "watch:");
        const std::span<const MeterInfo> glossary = app.host.current().glossary();
        for (const std::string& w : step.watch) {
            const MeterInfo* info = find_meter_info(glossary, w);
            const std::string label = meter_label(glossary, w, " ");
            std::string unit;
            for (const Meter& m : app.meters) {
                if (m.name == w && !m.unit.empty()) unit = " " + m.unit;
            }
            layout_keys_clear();
            const std::string text = format("%s %s%s", label.c_str(),
                                            plain_number(meter_value(app.meters, w.c_str())).c_str(), unit.c_str());
            same_line_if_fits(ImGui::CalcTextSize(text.c_str()).x);
            ImGui::Text("%s", text.c_str());
            layout_text("tour", text);
            if (info && ImGui::IsItemHovered())
                ImGui::SetTooltip("%.*s", static_cast<int>(info->help.size()), info->help.data());
        }
    }
    if (!step.settings.empty() && !t.shown) {
        if (ImGui::Button(("Show me: " + step.settings).c_str())) {
            const std::vector<std::string> errors = apply_tour_step(app.host, step);
            app.status = errors.empty() ? std::string() : errors.front();
            t.shown = true;
        }
        ImGui::SameLine();
    } else if (!step.settings.empty()) {
        ImGui::TextColored(ImVec4(0.6f, 0.65f, 0.75f, 1.0f), "changed: %s", step.settings.c_str());
        ImGui::SameLine();
    }
    ImGui::BeginDisabled(t.step == 0);
    if (ImGui::Button("Back")) {
        --t.step;
        t.shown = false;
    }
    ImGui::EndDisabled();
    ImGui::SameLine();
    const bool last = t.step + 1 == static_cast<int>(t.tour.steps.size());
    if (ImGui::Button(last ? "End tour" : "Next")) {
        t.step = last ? -1 : t.step + 1;
        t.shown = false;
    }
    if (!last) {
        ImGui::SameLine();
        if (ImGui::Button("End tour")) t.step = -1;
    }
}

void draw_ui(App& app) {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(vp->WorkPos);
    ImGui::SetNextWindowSize(vp->WorkSize);
    ImGui::Begin("Vantage", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                     ImGuiWindowFlags_NoBringToFrontOnFocus);
    if (app.room) {
        ImGui::TextColored(ImVec4(0.55f, 0.8f, 1.0f, 1.0f), "%s", app.room->words().title);
        const std::string perf = format("| frame %.1f ms  memory %.0f MiB", app.frame_ms, app.memory_bytes / 1048576.0);
        const ImGuiStyle& style = ImGui::GetStyle();
        same_line_if_fits(ImGui::CalcTextSize(perf.c_str()).x);
        ImGui::TextColored(ImVec4(0.6f, 0.65f, 0.75f, 1.0f), "%s", perf.c_str());
        same_line_if_fits(ImGui::CalcTextSize("Copy link").x + 2 * style.FramePadding.x);
        if (ImGui::Button("Copy link")) copy_link(app);
        const char* back = narrow_layout() ? "Back" : "Back to the playgrounds";
        same_line_if_fits(ImGui::CalcTextSize(back).x + 2 * style.FramePadding.x);
        if (ImGui::Button(back)) {
            app.room->leave();
            app.room.reset();
            app.history.clear();
            ImGui::End();
            return;
        }
        same_line_if_fits(ui_scale_control_width());
        draw_ui_scale_control(app);
        same_line_if_fits(ImGui::GetFrameHeight() + style.ItemInnerSpacing.x + ImGui::CalcTextSize("presenter").x);
        ImGui::Checkbox("presenter", &app.presenter);
        ViewContext v{app.host, app.history, app.meters, app.presenter};
        draw_room_view(v, *app.room);
        ImGui::End();
        return;
    }
    draw_context_bar(app);
    draw_workshop_bar(app);
    draw_tour(app);
    // A phone keeps every tab's whole name and scrolls the bar (ImGui's default shrinks the
    // tabs to "Bla..." at 390 px).
    if (ImGui::BeginTabBar("playgrounds", narrow_layout() ? ImGuiTabBarFlags_FittingPolicyScroll : 0)) {
        // A switch from the URL or the JS API forces the tab until ImGui shows it; a click
        // on a tab selects that playground.
        const bool forced = app.shown_tab != app.host.active() && !app.select_console;
        app.console_shown = false;
        if (app.classroom && app.classroom->teacher()) {
            const ImGuiTabItemFlags console_flags = app.select_console ? ImGuiTabItemFlags_SetSelected : 0;
            if (ImGui::BeginTabItem("Teacher console##console", nullptr, console_flags)) {
                app.console_shown = true;
                if (app.select_console) {  // shown: the URL's playground no longer forces its tab
                    app.select_console = false;
                    app.shown_tab = app.host.active();
                }
                ViewContext v{app.host, app.history, app.meters};
                draw_class_console(v, *app.classroom, app.wall_s, app.ui_scale);
                ImGui::EndTabItem();
            }
        }
        for (std::size_t i = 0; i < app.host.count(); ++i) {
            Simulation& sim = app.host.sim(i);
            const std::string label = std::string(sim.title()) + "##" + std::string(sim.name());
            const ImGuiTabItemFlags flags = (forced && i == app.host.active()) ? ImGuiTabItemFlags_SetSelected : 0;
            if (!ImGui::BeginTabItem(label.c_str(), nullptr, flags)) continue;
            if (!forced && i != app.host.active()) app.host.select(i);
            if (i == app.host.active()) {
                if (app.shown_tab != i) {
                    refresh_meters(app);
                    app.shown_tab = i;
                }
                ViewContext v{app.host, app.sim_histories[i].history, app.meters, app.presenter};
                app.views[i](v);
            }
            ImGui::EndTabItem();
        }
        ImGui::EndTabBar();
    }
    ImGui::End();
}

// Writes the back buffer as a binary PPM (top row first). Desktop smoke tests read it.
void save_screenshot(const std::string& path, int w, int h) {
    std::vector<unsigned char> pixels(static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 3);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) {
        std::fprintf(stderr, "cannot write screenshot %s\n", path.c_str());
        return;
    }
    std::fprintf(f, "P6\n%d %d\n255\n", w, h);
    const std::size_t row = static_cast<std::size_t>(w) * 3;
    for (int y = h - 1; y >= 0; --y) std::fwrite(pixels.data() + static_cast<std::size_t>(y) * row, 1, row, f);
    std::fclose(f);
}

// One frame: events, wall clock to fixed ticks, meters, UI, present. False once the app
// should stop (window closed, or --frames done).
bool frame(App& app) {
    SDL_Event event;
    while (SDL_PollEvent(&event)) {
        ImGui_ImplSDL2_ProcessEvent(&event);
        if (event.type == SDL_QUIT) app.running = false;
        if (event.type == SDL_WINDOWEVENT && event.window.event == SDL_WINDOWEVENT_CLOSE &&
            event.window.windowID == SDL_GetWindowID(app.window))
            app.running = false;
    }
    platform::sync_window_size(app.window);
    // Wall clock to fixed ticks: the only place the app reads a clock.
    const Uint64 now = SDL_GetPerformanceCounter();
    const double wall_dt = app.last_counter ? static_cast<double>(now - app.last_counter) /
                                                  static_cast<double>(SDL_GetPerformanceFrequency())
                                            : 0.0;
    app.last_counter = now;
    app.wall_s += wall_dt;
    if (app.pending_ui_scale > 0.0f) {
        apply_ui_scale(app, app.pending_ui_scale, true);
        app.pending_ui_scale = 0.0f;
    }
    if (app.room) {
        // A room client: the network, not the in-page simulations. Meters are the socket's.
        app.room->update(app.wall_s, static_cast<float>(wall_dt));
        app.meters.clear();
        app.room->meters(app.meters);
        if (app.wall_s >= app.next_sample_s || app.next_sample_s - app.wall_s > 1.0) {
            app.history.record(app.meters, app.wall_s);
            app.next_sample_s = app.wall_s + 0.25;
        }
    }
    if (app.classroom) {
        app.classroom->update(app.wall_s);
        std::string link;
        if (!app.classroom->teacher() && app.classroom->client().take_link(link)) {
            // The teacher's page changed: the same playground, preset and settings here.
            app.applying_followed_link = true;
            std::vector<std::string> errors = apply_link(app, link);
            app.applying_followed_link = false;
            app.status = errors.empty() ? std::string() : errors.front();
            app.history.clear();
        }
        if (app.classroom && app.classroom->teacher()) app.classroom->share_link(app.wall_s, app.host.url());
    }
    const Uint64 sim_start = SDL_GetPerformanceCounter();
    const int ticks_run = app.room ? 0 : app.host.advance(wall_dt);
    if (ticks_run > 0) {
        const double ms = static_cast<double>(SDL_GetPerformanceCounter() - sim_start) * 1000.0 /
                          static_cast<double>(SDL_GetPerformanceFrequency()) / ticks_run;
        app.sim_ms_per_tick += (ms - app.sim_ms_per_tick) * 0.05;
    }
    if (wall_dt > 0.0) app.frame_ms += (wall_dt * 1000.0 - app.frame_ms) * 0.05;
    if (app.memory_sampled_at < 0.0 || app.wall_s - app.memory_sampled_at >= 0.5) {
        app.memory_bytes = platform::memory_bytes();
        app.memory_sampled_at = app.wall_s;
    }
    // New ticks by the clock, the Step button or the page's API: read the meters and sample
    // the history (a Step while paused moved neither before).
    if (!app.room && (ticks_run > 0 || app.meters.empty() || app.host.ticks() != app.meters_tick)) {
        refresh_meters(app);
        app.meters_tick = app.host.ticks();
        // History is sampled in simulated time (every 0.25 s), so a plot spans the same
        // simulated minute whatever the frame rate or speed; a new world starts a new one.
        const std::size_t i = app.host.active();
        App::SimHistory& h = app.sim_histories[i];
        if (h.run != app.host.run(i)) {
            h.history.clear();
            h.run = app.host.run(i);
            h.next_sample_s = 0.0;
        }
        const double t = app.host.current().time_s();
        if (t >= h.next_sample_s) {
            h.history.record(app.meters, t);
            h.next_sample_s = t + 0.25;
        }
    }

    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplSDL2_NewFrame();
    ImGui::NewFrame();
    layout_begin_frame();
    draw_ui(app);
    ImGui::Render();
    int w = 0, h = 0;
    SDL_GL_GetDrawableSize(app.window, &w, &h);
    glViewport(0, 0, w, h);
    glClearColor(0.07f, 0.08f, 0.10f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    if (!app.pending_png.empty()) {
        app.status =
            platform::save_png(app.pending_png) ? "saved " + app.pending_png : "could not save " + app.pending_png;
        app.pending_png.clear();
    }
    if (app.frames_left == 1 && !app.screenshot.empty()) save_screenshot(app.screenshot, w, h);
    SDL_GL_SwapWindow(app.window);

    if (app.frames_left > 0 && --app.frames_left == 0) app.running = false;
    return app.running;
}

int usage(const char* argv0, const std::string& error) {
    std::fprintf(stderr,
                 "%s: %s\nusage: %s [--join ws://HOST:PORT/ws] [--frames N [--screenshot FILE]] "
                 "[playground/key=value&key=value...]\n",
                 argv0, error.c_str(), argv0);
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    static App app;  // static: in the browser the loop outlives main()'s frame
    std::string settings;
    std::string join_url;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--frames" && i + 1 < argc) {
            char* end = nullptr;
            app.frames_left = std::strtol(argv[++i], &end, 10);
            if (*end != '\0' || app.frames_left <= 0) return usage(argv[0], "--frames needs a positive whole number");
        } else if (arg == "--join" && i + 1 < argc) {
            join_url = argv[++i];
        } else if (arg == "--screenshot" && i + 1 < argc) {
            app.screenshot = argv[++i];
        } else if (arg == "--help" || arg == "-h") {
            usage(argv[0], "help");
            return 0;
        } else if (!arg.empty() && arg[0] == '-') {
            return usage(argv[0], "unknown flag '" + arg + "'");
        } else {
            settings = arg;
        }
    }
    for (const std::string& e : load_all_presets(app.host, platform::presets_dir()))
        std::fprintf(stderr, "%s\n", e.c_str());
    for (std::size_t i = 0; i < app.host.count(); ++i) {
        app.tours[i].tour = load_tour(platform::presets_dir(), app.host.sim(i).name());
        for (const std::string& e : app.tours[i].tour.errors)
            std::fprintf(stderr, "presets/%s-tour.ini %s\n", std::string(app.host.sim(i).name()).c_str(), e.c_str());
    }
    if (!join_url.empty()) {
        // The room's playground: the default room, unless the settings name another ("blackhole"
        // or "blackhole/name=ann"); the rest of the settings go with the join (name=...).
        std::string game = kDefaultRoom;
        for (const PlaygroundEntry& e : playground_catalog()) {
            const std::string n = e.name;
            if (!e.room()) continue;
            if (settings == n || settings.rfind(n + "/", 0) == 0) {
                game = n;
                settings = settings.substr(std::min(settings.size(), n.size() + 1));
            }
        }
        settings = game + "/join&room=" + join_url + (settings.empty() ? "" : "&" + settings);
    }
    if (!settings.empty()) {
        const std::vector<std::string> errors = apply_link(app, settings);
        for (const std::string& e : errors) std::fprintf(stderr, "%s\n", e.c_str());
        if (!errors.empty()) return 2;
    }

    if (SDL_Init(SDL_INIT_VIDEO | SDL_INIT_TIMER) != 0) {
        std::fprintf(stderr, "SDL_Init failed: %s\n", SDL_GetError());
        return 1;
    }
    const char* glsl_version = platform::request_gl_context();
    SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
    SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 0);
    app.window = SDL_CreateWindow("Vantage", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, 1280, 800,
                                  SDL_WINDOW_OPENGL | SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
    if (!app.window) {
        std::fprintf(stderr, "SDL_CreateWindow failed: %s\n", SDL_GetError());
        return 1;
    }
    SDL_GLContext gl = SDL_GL_CreateContext(app.window);
    if (!gl) {
        std::fprintf(stderr, "SDL_GL_CreateContext failed: %s\n", SDL_GetError());
        return 1;
    }
    SDL_GL_MakeCurrent(app.window, gl);
    SDL_GL_SetSwapInterval(1);

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;  // layout is code, not a file in the working directory
    apply_ui_scale(app, platform::remembered_ui_scale(), false);
    ImGui_ImplSDL2_InitForOpenGL(app.window, gl);
    ImGui_ImplOpenGL3_Init(glsl_version);

    platform::run_loop(app, frame);

    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplSDL2_Shutdown();
    ImGui::DestroyContext();
    SDL_GL_DeleteContext(gl);
    SDL_DestroyWindow(app.window);
    SDL_Quit();
    return 0;
}
