// Meter playground view: the true rate, the windowed rate and the lifetime average on one
// plot, so the lag of the average is visible the moment the rate steps.
#include <algorithm>

#include "app/ui.hpp"
#include "app/views.hpp"
#include "common/preset.hpp"
#include "meter/meter_sim.hpp"

namespace vantage::play {

void draw_view(ViewContext& v, MeterSim& /*sim*/) {
    if (begin_sidebar(v)) {
        ImGui::TextWrapped("A bursty stream whose true rate steps at a set time. Watch which reading follows it.");
        ImGui::Separator();
        draw_params(v.host);
        end_sidebar();  // the readings are under the plot, as the presets print them
    }
    ImGui::BeginChild("plots", ImVec2(0, 0), false);
    std::vector<PlotSeries> series(3);
    series[0] = {"true", {}, IM_COL32(200, 200, 200, 255)};
    series[1] = {"windowed per_sec", {}, IM_COL32(80, 200, 120, 255)};
    series[2] = {"lifetime average", {}, IM_COL32(240, 120, 80, 255)};
    v.history.values("true_kib_s", series[0].values);
    v.history.values("windowed_kib_s", series[1].values);
    v.history.values("lifetime_kib_s", series[2].values);
    // The plot, then the three readings the presets quote, as they print them.
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float readouts_h = 4.0f * ImGui::GetTextLineHeightWithSpacing();
    draw_plot("rates", series, ImVec2(avail.x, std::max(em(8.0f), std::min(avail.y * 0.6f, avail.y - readouts_h))),
              history_axes(v, "KiB/s"));
    layout_mark("lane");
    if (begin_readouts("readings", std::min(avail.x, em(24.0f)))) {
        auto m = [&](const char* meter) { return plain_number(meter_value(v.meters, meter)); };
        const std::string truth = m("true_kib_s") + " KiB/s";
        readout("true", "the rate the stream is sent at now", truth, truth);
        const std::string windowed = m("windowed_kib_s") + " KiB/s";
        const std::string windowed_off = m("windowed_error_pct") + "% off";
        readout("windowed", "RateMeter::per_sec: bytes over the last 8 s, and how far from the truth",
                windowed + " (" + windowed_off + ")", windowed);
        const std::string lifetime = m("lifetime_kib_s") + " KiB/s";
        const std::string lifetime_off = m("lifetime_error_pct") + "% off";
        readout("lifetime", "the session average: bytes since the start over time since the start",
                lifetime + " (" + lifetime_off + ")", lifetime);
        end_readouts();
    }
    ImGui::EndChild();
}

}  // namespace vantage::play
