#include "common/history.hpp"

#include <algorithm>
#include <cstdio>

namespace vantage::play {

void MeterHistory::record(const std::vector<Meter>& meters, double t_s) {
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
    times_[next_] = static_cast<float>(t_s);
    next_ = (next_ + 1) % capacity_;
    if (next_ == 0) full_ = true;
}

void MeterHistory::clear() {
    series_.clear();
    next_ = 0;
    full_ = false;
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

void MeterHistory::times(std::size_t count, std::vector<float>& out) const {
    out.clear();
    if (full_) out.insert(out.end(), times_.begin() + static_cast<std::ptrdiff_t>(next_), times_.end());
    out.insert(out.end(), times_.begin(), times_.begin() + static_cast<std::ptrdiff_t>(next_));
    if (out.size() > count) out.erase(out.begin(), out.end() - static_cast<std::ptrdiff_t>(count));
}

std::string MeterHistory::csv() const {
    std::string out = "time_s";
    for (const Series& s : series_) out += "," + s.name;
    out += "\n";
    std::vector<float> t;
    times(capacity_, t);
    std::vector<std::vector<float>> columns(series_.size());
    for (std::size_t i = 0; i < series_.size(); ++i) values(series_[i].name, columns[i]);
    char buf[32];
    for (std::size_t row = 0; row < t.size(); ++row) {
        std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(t[row]));
        out += buf;
        for (const std::vector<float>& c : columns) {
            out += ',';
            const std::size_t missing = t.size() - std::min(t.size(), c.size());
            if (row < missing) continue;
            std::snprintf(buf, sizeof buf, "%.6g", static_cast<double>(c[row - missing]));
            out += buf;
        }
        out += '\n';
    }
    return out;
}

}  // namespace vantage::play
