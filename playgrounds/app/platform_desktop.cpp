// The desktop side of platform.hpp: a plain loop, the resident set from /proc, SDL's
// clipboard, and nothing to remember between runs.
#include "app/platform.hpp"

#include <SDL.h>
#include <SDL_opengl.h>
#include <stb_image_write.h>

#include <cstdio>
#include <vector>

namespace vantage::play::platform {

const char* request_gl_context() {
    // 3.2 core: the first version with glDrawElementsBaseVertex, which lets Debian's ImGui
    // (16-bit indices) split a draw list past 65,536 vertices (tens of thousands of dots).
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_FLAGS, SDL_GL_CONTEXT_FORWARD_COMPATIBLE_FLAG);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 2);
    return "#version 150";
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

std::string save_text(const std::string& name, const std::string& text) {
    FILE* f = std::fopen(name.c_str(), "wb");
    if (!f) return {};
    const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    if (std::fclose(f) != 0 || !ok) return {};
    return name;
}

bool save_png(const std::string& name) {
    GLint viewport[4] = {0, 0, 0, 0};
    glGetIntegerv(GL_VIEWPORT, viewport);
    const int w = viewport[2], h = viewport[3];
    if (w <= 0 || h <= 0) return false;
    const std::size_t row = static_cast<std::size_t>(w) * 3;
    std::vector<unsigned char> pixels(row * static_cast<std::size_t>(h));
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
    // GL's rows run bottom-up; PNG's top-down: write from the last row with a negative stride.
    return stbi_write_png(name.c_str(), w, h, 3, pixels.data() + row * static_cast<std::size_t>(h - 1),
                          -static_cast<int>(row)) != 0;
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
