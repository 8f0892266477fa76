#include "vantage/proximity.hpp"

#include <cmath>

namespace vantage {

std::size_t brute_force_in_radius(std::span<const Vec2> positions, Vec2 center, float radius,
                                  std::vector<std::uint32_t>& out) {
    out.clear();
    if (!center.is_finite()) return 0;
    for (std::size_t i = 0; i < positions.size(); ++i) {
        if (positions[i].is_finite() && within_radius(positions[i], center, radius))
            out.push_back(static_cast<std::uint32_t>(i));
    }
    return out.size();
}

std::optional<NearestHit> brute_force_nearest(std::span<const Vec2> positions, Vec2 center, float radius) {
    std::optional<NearestHit> best;
    float best_sq = 0.0f;
    if (!center.is_finite()) return best;
    for (std::size_t i = 0; i < positions.size(); ++i) {
        if (!positions[i].is_finite() || !within_radius(positions[i], center, radius)) continue;
        const float d_sq = (positions[i] - center).length_squared();
        if (!best || d_sq < best_sq) {
            best = NearestHit{static_cast<std::uint32_t>(i), std::sqrt(d_sq)};
            best_sq = d_sq;
        }
    }
    return best;
}

std::uint64_t brute_force_count_pairs(std::span<const Vec2> positions, float radius) {
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < positions.size(); ++i) {
        for (std::size_t j = 0; j < positions.size(); ++j) {
            if (i != j && positions[i].is_finite() && positions[j].is_finite() &&
                within_radius(positions[i], positions[j], radius))
                ++total;
        }
    }
    return total;
}

}  // namespace vantage
