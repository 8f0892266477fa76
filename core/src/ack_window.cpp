#include "vantage/ack_window.hpp"

#include <bit>

namespace vantage {

bool AckWindow::observe(std::uint64_t seq) {
    if (!any_) {
        newest_ = seq;
        mask_ = 0;
        any_ = true;
        return true;
    }
    if (seq > newest_) {
        const std::uint64_t shift = seq - newest_;
        if (shift < kWindow) {
            // The old newest lands at bit shift - 1.
            mask_ = (mask_ << shift) | (std::uint64_t{1} << (shift - 1));
        } else if (shift == kWindow) {
            // Exactly the window width: every old bit falls off, the old newest survives in
            // the last slot. (A shift of 64 in C++ is undefined, so this case is spelled out.)
            mask_ = std::uint64_t{1} << (kWindow - 1);
        } else {
            mask_ = 0;
        }
        newest_ = seq;
        return true;
    }
    if (seq == newest_) return false;
    const std::uint64_t back = newest_ - seq - 1;
    if (back >= kWindow) return false;
    const std::uint64_t bit = std::uint64_t{1} << back;
    if (mask_ & bit) return false;
    mask_ |= bit;
    return true;
}

std::optional<std::pair<std::uint64_t, std::uint64_t>> AckWindow::encode() const {
    if (!any_) return std::nullopt;
    return std::make_pair(newest_, mask_);
}

bool AckWindow::contains(std::uint64_t seq) const {
    if (!any_ || seq > newest_) return false;
    if (seq == newest_) return true;
    const std::uint64_t back = newest_ - seq - 1;
    return back < kWindow && (mask_ & (std::uint64_t{1} << back)) != 0;
}

std::uint32_t AckWindow::received_in_window() const {
    return any_ ? 1u + static_cast<std::uint32_t>(std::popcount(mask_)) : 0u;
}

void AckWindow::missing_since(std::uint64_t oldest, std::vector<std::uint64_t>& out) const {
    out.clear();
    if (!any_ || oldest > newest_) return;
    const std::uint64_t floor = newest_ >= kWindow ? newest_ - kWindow : 0;
    for (std::uint64_t s = oldest < floor ? floor : oldest; s < newest_; ++s) {
        if (!contains(s)) out.push_back(s);
    }
}

std::optional<std::uint64_t> AckWindow::contiguous_base(std::uint64_t first) const {
    if (!contains(first)) return std::nullopt;
    std::uint64_t b = first;
    while (b < newest_ && contains(b + 1)) ++b;
    return b;
}

}  // namespace vantage
