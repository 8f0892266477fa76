// MeterHistory: the last N readings of each meter of a simulation, for the plots under
// each lane. UI-free; the views read it. Capacity is fixed at construction, so recording
// allocates nothing once every meter has been seen.
#pragma once

#include <string>
#include <vector>

#include "simulation.hpp"

namespace vantage::play {

class MeterHistory {
public:
    explicit MeterHistory(std::size_t capacity = 240) : capacity_(capacity) {}

    // Appends one reading of every meter (matched by position and name).
    void record(const std::vector<Meter>& meters);
    void clear() { series_.clear(); }
    // Oldest-first copy of a meter's readings into `out`; false if the meter is unknown.
    bool values(const std::string& name, std::vector<float>& out) const;
    std::size_t capacity() const { return capacity_; }

private:
    struct Series {
        std::string name;
        std::vector<float> ring;
        std::size_t next = 0;
        bool full = false;
    };
    std::size_t capacity_;
    std::vector<Series> series_;
};

}  // namespace vantage::play
