// Meter playground view: the true rate, the windowed rate and the lifetime average on one
// plot, so the lag of the average is visible the moment the rate steps.
#include <algorithm>

#include "app/ui.hpp"
#include "app/views.hpp"
#include "meter/meter_sim.hpp"

namespace vantage::play {

void draw_view(ViewContext& v, MeterSim& /*sim*/) {
    if (begin_sidebar(v)) {
        ImGui::TextWrapped("A bursty stream whose true rate steps at a set time. Watch which reading follows it.");
        ImGui::Separator();
        draw_params(v.host);
        ImGui::Separator();
        draw_meter_table(v.host.current(), v.meters);
        end_sidebar();
    }
    ImGui::BeginChild("plots", ImVec2(0, 0), false);
    std::vector<PlotSeries> series(3);
    series[0] = {"true", {}, IM_COL32(200, 200, 200, 255)};
    series[1] = {"windowed per_sec", {}, IM_COL32(80, 200, 120, 255)};
    series[2] = {"lifetime average", {}, IM_COL32(240, 120, 80, 255)};
    v.history.values("true_kib_s", series[0].values);
    v.history.values("windowed_kib_s", series[1].values);
    v.history.values("lifetime_kib_s", series[2].values);
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    draw_plot("rates", series, ImVec2(avail.x, std::max(em(8.0f), avail.y * 0.6f)), history_axes(v, "KiB/s"));
    ImGui::Text("windowed %.1f KiB/s (%+.1f%%)   lifetime %.1f KiB/s (%+.1f%%)",
                meter_value(v.meters, "windowed_kib_s"), meter_value(v.meters, "windowed_error_pct"),
                meter_value(v.meters, "lifetime_kib_s"), meter_value(v.meters, "lifetime_error_pct"));
    ImGui::EndChild();
}

}  // namespace vantage::play
