// The page's API (web/vantage-page.js wraps these as window.vantage). Strings returned stay
// valid until the next call of the same function. The names are exported by the link
// (EXPORTED_FUNCTIONS in playgrounds/CMakeLists.txt): a new one goes in both places.
#include "app/page_api.hpp"

#include <string>

#include "app/app.hpp"
#include "app/ui.hpp"
#include "common/host.hpp"

#ifndef VANTAGE_VERSION
#define VANTAGE_VERSION "0.0.0"
#endif

namespace {
vantage::play::App* g_app = nullptr;  // set by attach_page_api, before the page can call
}  // namespace

void vantage::play::attach_page_api(App& app) {
    g_app = &app;
}

using namespace vantage::play;

extern "C" {

const char* vantage_version() {
    return VANTAGE_VERSION;
}

const char* vantage_playgrounds() {
    static std::string out;
    out = g_app->host.playgrounds_json();
    return out.c_str();
}

const char* vantage_state() {
    static std::string out;
    out = app_state_json(*g_app);
    return out.c_str();
}

// Empty string on success, otherwise the reason the value was refused.
const char* vantage_set(const char* name, const char* value) {
    static std::string out;
    out = g_app->host.set(name ? name : "", value ? value : "");
    if (out.empty()) refresh_meters(*g_app);
    return out.c_str();
}

// Applies a URL hash; returns the rejected parts, one per line (empty when all applied).
const char* vantage_apply_hash(const char* hash) {
    static std::string out;
    out.clear();
    for (const std::string& e : apply_link(*g_app, hash ? hash : "")) out += e + "\n";
    return out.c_str();
}

// One fixed tick now, paused or not (the page's Step, and deterministic tests).
void vantage_step() {
    g_app->host.single_step();
    refresh_meters(*g_app);
}

// The "Copy link" button: puts the full link on the clipboard and returns it.
const char* vantage_copy_link() {
    static std::string out;
    copy_link(*g_app);
    out = app_url(*g_app);
    return out.c_str();
}

float vantage_ui_scale() {
    return g_app->ui_scale;
}

// {"sim_ms_per_tick":..., "frame_ms":..., "memory_bytes":...}: the performance overlay.
const char* vantage_perf() {
    static std::string out;
    out = "{\"sim_ms_per_tick\":";
    append_json_number(out, g_app->sim_ms_per_tick);
    out += ",\"frame_ms\":";
    append_json_number(out, g_app->frame_ms);
    out += ",\"memory_bytes\":";
    append_json_number(out, g_app->memory_bytes);
    out += "}";
    return out.c_str();
}

// Presenter mode (lanes only): 0 or 1 sets it, anything else only reads it. Returns it.
int vantage_presenter(int on) {
    if (on == 0 || on == 1) g_app->presenter = on == 1;
    return g_app->presenter ? 1 : 0;
}

// The active playground's history as CSV, what "Export CSV" saves.
const char* vantage_history_csv() {
    static std::string out;
    out = history_csv(*g_app);
    return out.c_str();
}

// Empty string on success, otherwise why the scale was refused. Remembered per browser.
const char* vantage_set_ui_scale(float scale) {
    if (!(scale >= 0.75f && scale <= 2.5f)) return "UI scale must be from 0.75 to 2.5";
    g_app->pending_ui_scale = scale;
    return "";
}

// A teacher's command (kind: impair, strategy, preset, kick, transport; args "k=v&..."): empty when it was
// sent to the room, else why not. The room answers through the console's table.
const char* vantage_teach(const char* kind, const char* args) {
    static std::string out;
    out.clear();
    if (g_app->room) {
        // A student's page may ask too; the server refuses it (room.error says so).
        CommandMessage c;
        out = parse_teacher_command(kind ? kind : "", args ? args : "", SeatTableMessage{}, c);
        if (out.empty()) g_app->room->send_command(g_app->wall_s, c);
        return out.c_str();
    }
    if (!g_app->classroom || !g_app->classroom->teacher()) {
        out = "this page is not a teacher console (open it with &teach&token=...)";
        return out.c_str();
    }
    if (g_app->classroom->client().status() != ClassClient::Status::Open) {
        out = "the console is not connected: " + g_app->classroom->status_text();
        return out.c_str();
    }
    CommandMessage c;
    out = parse_teacher_command(kind ? kind : "", args ? args : "", g_app->classroom->client().table(), c);
    if (out.empty()) g_app->classroom->command(g_app->wall_s, c);
    return out.c_str();
}

// Where named parts of the UI were drawn in the last frame (ui.hpp's layout marks).
const char* vantage_layout() {
    static std::string out;
    out = layout_json();
    return out.c_str();
}

const char* vantage_url() {
    static std::string out;
    out = app_url(*g_app);
    return out.c_str();
}
}
