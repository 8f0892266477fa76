// What the desktop and the browser do differently, behind one small interface: the app's
// main() and frame code call these and never test the platform themselves. CMake compiles
// exactly one implementation: platform_desktop.cpp natively, platform_web.cpp (with the
// page's C API in page_api.cpp) when VANTAGE_WASM is on.
#pragma once

#include <string>

struct SDL_Window;

namespace vantage::play {

struct App;

namespace platform {

// Before SDL_CreateWindow: asks SDL for this platform's GL context (desktop GL 3.0 core, or
// WebGL2 as GLES 3.0). Returns the GLSL version line for ImGui_ImplOpenGL3_Init.
const char* request_gl_context();

// Where the playgrounds' scenario presets are read from (the source tree natively, the
// files embedded in the binary in the browser).
const char* presets_dir();

// Bytes the app holds: the resident set natively, the wasm heap in the browser. Natively
// this reads a file, so call it a few times a second, not every frame.
double memory_bytes();

// Puts the link for `url_hash` ("#playground/key=value&...") on the clipboard: the hash
// itself natively, the page's own address plus the hash in the browser (which also leaves it
// in window.vantageCopiedLink for the page's JS API).
void copy_link(const std::string& url_hash);

// Hands `text` to the user as a file called `name`: a download in the browser, a file in
// the current directory natively. Returns where it went ("downloaded" or the path), or an
// empty string with nothing written.
std::string save_text(const std::string& name, const std::string& text);
// The frame as a PNG: call it right after a frame is drawn, before the swap. A download of
// the canvas in the browser; natively a file in the current directory (stb_image_write).
// False when nothing could be written.
bool save_png(const std::string& name);

// The UI scale remembered from an earlier session (0.75..2.5), or 1. Only the browser
// remembers (localStorage); the desktop starts at 1.
float remembered_ui_scale();
void remember_ui_scale(float scale);

// Once a frame, before ImGui's new frame: in the browser the window follows the canvas's
// CSS size, so the UI follows page resizes. Nothing natively (SDL reports resizes itself).
void sync_window_size(SDL_Window* window);

// Calls frame(app) until it returns false. In the browser this hands `app` to the page's C
// API, tells the page the app is ready (Module.onAppReady) and lets the browser drive the
// frames; it then never returns (the page is the process).
void run_loop(App& app, bool (*frame)(App&));

}  // namespace platform
}  // namespace vantage::play
