// The desktop side of platform.hpp: a plain loop, the resident set from /proc, SDL's
// clipboard, and nothing to remember between runs.
#include "app/platform.hpp"

#include <SDL.h>

#include <cstdio>

namespace vantage::play::platform {

const char* request_gl_context() {
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_FLAGS, 0);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 0);
    return "#version 130";
}

const char* presets_dir() {
    return VANTAGE_PRESETS_DIR;
}

double memory_bytes() {
    long pages = 0, resident = 0;
    if (FILE* f = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
        std::fclose(f);
    }
    return static_cast<double>(resident) * 4096.0;
}

void copy_link(const std::string& url_hash) {
    SDL_SetClipboardText(url_hash.c_str());
}

float remembered_ui_scale() {
    return 1.0f;
}

void remember_ui_scale(float /*scale*/) {}

void sync_window_size(SDL_Window* /*window*/) {}

void run_loop(App& app, bool (*frame)(App&)) {
    while (frame(app)) {
    }
}

}  // namespace vantage::play::platform
