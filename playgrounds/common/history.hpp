// MeterHistory: the last N readings of each meter of a simulation, each stamped with the
// time it was taken, for the plots under each lane. UI-free; the views read it. Capacity is
// fixed at construction, so recording allocates nothing once every meter has been seen.
#pragma once

#include <string>
#include <vector>

#include "simulation.hpp"

namespace vantage::play {

class MeterHistory {
public:
    explicit MeterHistory(std::size_t capacity = 240) : capacity_(capacity) { times_.assign(capacity_, 0.0f); }

    // Appends one reading of every meter (matched by position and name), taken at `t_s`
    // (simulated seconds for a playground, wall seconds for a room's socket).
    void record(const std::vector<Meter>& meters, double t_s);
    void clear();
    // Oldest-first copy of a meter's readings into `out`; false if the meter is unknown.
    bool values(const std::string& name, std::vector<float>& out) const;
    // Oldest-first times of the samples `values` returns for a meter seen from the start
    // (the newest `count` samples).
    void times(std::size_t count, std::vector<float>& out) const;
    std::size_t size() const { return full_ ? capacity_ : next_; }
    // Every sample as CSV, oldest first: "time_s,<meter>,<meter>,...", one row per sample
    // (a meter first seen later is empty in the rows before it).
    std::string csv() const;
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
    std::vector<float> times_;  // ring of sample times, in step with every series recorded since clear()
    std::size_t next_ = 0;
    bool full_ = false;
};

}  // namespace vantage::play
