#include "proximity/proximity_sim.hpp"
namespace vantage::play {
void proximity_report(const ReportOptions&, std::FILE* out) { std::fprintf(out, "todo\n"); }
}
