// The page's C API (web/vantage-page.js wraps it as window.vantage): the exported
// vantage_* functions, compiled only into the browser build. See page_api.cpp.
#pragma once

namespace vantage::play {

struct App;

// From now on the exported functions read and change `app` (platform_web.cpp calls this
// just before it tells the page the app is ready; the page calls nothing before that).
void attach_page_api(App& app);

}  // namespace vantage::play
