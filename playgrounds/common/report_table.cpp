#include "report_table.hpp"

#include <algorithm>
#include <cstdarg>

namespace vantage::play {

namespace {

// N from a trailing ":N" (digits only), or `fallback`; strips the suffix from `name`.
std::size_t take_min_width(std::string& name, std::size_t fallback) {
    const std::size_t colon = name.rfind(':');
    if (colon == std::string::npos || colon + 1 == name.size()) return fallback;
    std::size_t n = 0;
    for (std::size_t i = colon + 1; i < name.size(); ++i) {
        if (name[i] < '0' || name[i] > '9') return fallback;
        n = n * 10 + static_cast<std::size_t>(name[i] - '0');
    }
    name.resize(colon);
    return n;
}

}  // namespace

ReportTable::ReportTable(std::FILE* out, bool csv, std::vector<std::string> columns, Layout layout)
    : out_(out), csv_(csv), layout_(layout) {
    for (std::string& c : columns) {
        const std::size_t min = take_min_width(c, layout_.min_width);
        widths_.push_back(std::max(min, c.size()));
    }
    row(columns);
    if (!csv_) {
        for (std::size_t i = 0; i < widths_.size(); ++i) {
            std::fprintf(out_, "%s%s", i ? "  " : "", std::string(widths_[i], '-').c_str());
        }
        std::fprintf(out_, "%s\n", layout_.gap_after_last ? "  " : "");
    }
}

void ReportTable::cell(const char* format, ...) {
    va_list args;
    va_start(args, format);
    va_list again;
    va_copy(again, args);
    const int n = std::vsnprintf(nullptr, 0, format, args);
    va_end(args);
    std::string text(n > 0 ? static_cast<std::size_t>(n) : 0, '\0');
    std::vsnprintf(text.data(), text.size() + 1, format, again);
    va_end(again);
    put(text);
}

void ReportTable::put(const std::string& text) {
    const std::size_t i = column_++;
    if (csv_) {
        std::fprintf(out_, "%s%s", i ? "," : "", text.c_str());
        return;
    }
    const int width = static_cast<int>(i < widths_.size() ? widths_[i] : layout_.min_width);
    std::fprintf(out_, "%s%*s", i ? "  " : "", width, text.c_str());
}

void ReportTable::end_row() {
    std::fprintf(out_, "%s\n", !csv_ && layout_.gap_after_last && column_ > 0 ? "  " : "");
    column_ = 0;
}

void ReportTable::row(const std::vector<std::string>& cells) {
    for (const std::string& c : cells) put(c);
    end_row();
}

}  // namespace vantage::play
