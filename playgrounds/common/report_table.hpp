// ReportTable: one table of a playground's report (`./vantage report PLAYGROUND`), printed as
// right-aligned text columns under a dashed rule, or as CSV. Every report's sweeps print
// through it, so the text and CSV forms agree column for column.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

namespace vantage::play {

class ReportTable {
public:
    // How the text form is laid out (the CSV form ignores it).
    struct Layout {
        std::size_t min_width = 7;    // characters, for a column whose name does not ask for more
        bool gap_after_last = false;  // the two-space gap also follows the last column
    };

    // Prints the header row (and, as text, the rule). A column named "name:N", N digits, is
    // headed "name" and at least N characters wide instead of min_width; any other colon is
    // part of the name ("interp:rewound").
    ReportTable(std::FILE* out, bool csv, std::vector<std::string> columns, Layout layout);
    ReportTable(std::FILE* out, bool csv, std::vector<std::string> columns)
        : ReportTable(out, csv, std::move(columns), Layout{}) {}

    // The next cell of the current row, printf-formatted.
    void cell(const char* format, ...) __attribute__((format(printf, 2, 3)));
    // Ends the current row.
    void end_row();
    // A whole row of already formatted cells.
    void row(const std::vector<std::string>& cells);

private:
    void put(const std::string& text);

    std::FILE* out_;
    bool csv_;
    Layout layout_;
    std::vector<std::size_t> widths_;
    std::size_t column_ = 0;
};

}  // namespace vantage::play
