// The browser side of platform.hpp: Emscripten's main loop, the wasm heap size, the page's
// clipboard and localStorage, and a window that follows the canvas. The page's C API is in
// page_api.cpp.
#include "app/platform.hpp"

#include <SDL.h>
#include <emscripten.h>
#include <emscripten/heap.h>
#include <emscripten/html5.h>

#include "app/page_api.hpp"

// EM_ASM's $0 arguments read as identifiers with '$' to -Wpedantic.
#pragma clang diagnostic ignored "-Wdollar-in-identifier-extension"

namespace vantage::play::platform {

namespace {
struct Loop {
    App* app = nullptr;
    bool (*frame)(App&) = nullptr;
};
Loop g_loop;  // Emscripten's main loop takes one pointer; run_loop() fills this once

void loop_body(void* arg) {
    const Loop& loop = *static_cast<const Loop*>(arg);
    if (!loop.frame(*loop.app)) emscripten_cancel_main_loop();
}
}  // namespace

const char* request_gl_context() {
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_FLAGS, 0);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_ES);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 0);
    return "#version 300 es";
}

// Embedded at this path by the link (--embed-file, playgrounds/CMakeLists.txt).
const char* presets_dir() {
    return VANTAGE_APP_PRESETS_DIR;
}

double memory_bytes() {
    return static_cast<double>(emscripten_get_heap_size());
}

// The JavaScript inside EM_ASM is not C++: clang-format would split it (and `=>` into `= >`).
// clang-format off
void copy_link(const std::string& url_hash) {
    EM_ASM({
        const link = location.origin + location.pathname + UTF8ToString($0);
        if (navigator.clipboard) navigator.clipboard.writeText(link).catch(() => {});
        window.vantageCopiedLink = link;
    }, url_hash.c_str());
}

std::string save_text(const std::string& name, const std::string& text) {
    EM_ASM({
        const blob = new Blob([UTF8ToString($1)], { type: 'text/csv' });
        const a = document.createElement('a');
        a.href = URL.createObjectURL(blob);
        a.download = UTF8ToString($0);
        document.body.appendChild(a);
        a.click();
        a.remove();
        setTimeout(() => URL.revokeObjectURL(a.href), 1000);
    }, name.c_str(), text.c_str());
    return "downloaded";
}

bool save_png(const std::string& name) {
    // Called right after the frame is drawn, before the browser composites it: the WebGL
    // canvas still holds this frame, and toBlob snapshots it now.
    EM_ASM({
        const name = UTF8ToString($0);
        const canvas = document.getElementById('canvas');
        if (!canvas) return;
        canvas.toBlob((blob) => {
            if (!blob) return;
            const a = document.createElement('a');
            a.href = URL.createObjectURL(blob);
            a.download = name;
            document.body.appendChild(a);
            a.click();
            a.remove();
            setTimeout(() => URL.revokeObjectURL(a.href), 1000);
        }, 'image/png');
    }, name.c_str());
    return true;
}

float remembered_ui_scale() {
    const double v = EM_ASM_DOUBLE({
        try { const v = parseFloat(localStorage.getItem('vantage.ui_scale')); return isFinite(v) ? v : 1; }
        catch (e) { return 1; }
    });
    return v >= 0.75 && v <= 2.5 ? static_cast<float>(v) : 1.0f;
}

void remember_ui_scale(float scale) {
    EM_ASM({ try { localStorage.setItem('vantage.ui_scale', String($0)); } catch (e) {} }, scale);
}
// clang-format on

void sync_window_size(SDL_Window* window) {
    // The canvas fills the page (CSS); follow its size so the UI follows window resizes.
    double css_w = 0, css_h = 0;
    emscripten_get_element_css_size("#canvas", &css_w, &css_h);
    int win_w = 0, win_h = 0;
    SDL_GetWindowSize(window, &win_w, &win_h);
    if (css_w >= 1 && css_h >= 1 && (static_cast<int>(css_w) != win_w || static_cast<int>(css_h) != win_h))
        SDL_SetWindowSize(window, static_cast<int>(css_w), static_cast<int>(css_h));
}

// clang-format off
void run_loop(App& app, bool (*frame)(App&)) {
    attach_page_api(app);
    EM_ASM({ if (Module.onAppReady) Module.onAppReady(); });
    g_loop = {&app, frame};
    emscripten_set_main_loop_arg(loop_body, &g_loop, 0, true);
}
// clang-format on

}  // namespace vantage::play::platform
