// The heat-map colour scale shared by `lacuna histogram --png` and the editor's histogram plot,
// so both show the same counts in the same colours.
#pragma once

#include <lacuna/core/image.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>

namespace lacuna {

/// Colour of an empty cell (no counts), darker than any inferno value.
inline constexpr Rgba8 kHeatmapEmpty{0, 0, 4, 255};

/// Matplotlib's inferno, five stops interpolated linearly: t = 0 black-purple … 1 pale yellow.
inline Rgba8 inferno(const double t) {
    static constexpr std::array<std::array<double, 3>, 5> stops = {
        {{0, 0, 4}, {87, 16, 110}, {188, 55, 84}, {249, 142, 9}, {252, 255, 164}}};
    const double s = std::clamp(t, 0.0, 1.0) * (stops.size() - 1);
    const auto k = std::min<std::size_t>(static_cast<std::size_t>(s), stops.size() - 2);
    const double f = s - static_cast<double>(k);
    const auto mix = [&](const int c) {
        return static_cast<std::uint8_t>(std::lround(stops[k][c] * (1 - f) + stops[k + 1][c] * f));
    };
    return {mix(0), mix(1), mix(2), 255};
}

}  // namespace lacuna
