#include "horde/horde_sim.hpp"

namespace vantage::play {

void horde_report(const ReportOptions& options, std::FILE* out) {
    (void)options;
    (void)out;
}

}  // namespace vantage::play
