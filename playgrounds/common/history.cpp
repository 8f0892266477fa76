#include "common/history.hpp"

namespace vantage::play {

void MeterHistory::record(const std::vector<Meter>& meters) {
    if (series_.size() != meters.size()) series_.resize(meters.size());
    for (std::size_t i = 0; i < meters.size(); ++i) {
        Series& s = series_[i];
        if (s.name != meters[i].name) {
            s = Series{meters[i].name, {}, 0, false};
            s.ring.assign(capacity_, 0.0f);
        }
        s.ring[s.next] = static_cast<float>(meters[i].value);
        s.next = (s.next + 1) % capacity_;
        if (s.next == 0) s.full = true;
    }
}

bool MeterHistory::values(const std::string& name, std::vector<float>& out) const {
    out.clear();
    for (const Series& s : series_) {
        if (s.name != name) continue;
        if (s.full) out.insert(out.end(), s.ring.begin() + static_cast<std::ptrdiff_t>(s.next), s.ring.end());
        out.insert(out.end(), s.ring.begin(), s.ring.begin() + static_cast<std::ptrdiff_t>(s.next));
        return true;
    }
    return false;
}

}  // namespace vantage::play
