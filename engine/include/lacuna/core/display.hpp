// How a measurement image is shown: a window (the values mapped to black … white, in calibrated
// units) and a lookup table for single-channel data. Only the view is mapped; the stored values
// never change. render_display is the CPU reference the editor's image shader is tested against.
#pragma once

#include <lacuna/core/native_image.hpp>

#include <array>
#include <optional>
#include <span>
#include <string_view>

namespace lacuna {

enum class Lut { Grey, Inferno, Viridis, Diverging };

/// All LUTs in menu order, their names ("grey", "inferno", "viridis", "diverging") and parsing.
std::span<const Lut> all_luts();
std::string_view to_string(Lut lut);
std::optional<Lut> parse_lut(std::string_view name);

/// The LUT's 256 colours: index 0 is the window's low end, 255 its high end.
const std::array<Rgba8, 256>& lut_table(Lut lut);

/// NaN samples are shown in this colour whatever the LUT (none of the LUTs contains it), so that
/// missing data never passes for a value.
inline constexpr Rgba8 kNanColour{255, 0, 255, 255};

/// With clipping marked (ImageJ's HiLo idea), single-channel values below the window show in
/// this blue and values above it in this green, whatever the LUT, so saturated data is never
/// mistaken for the LUT's end colours.
inline constexpr Rgba8 kBelowColour{0, 0, 255, 255};
inline constexpr Rgba8 kAboveColour{0, 255, 0, 255};

struct DisplayWindow {
    double lo = 0;  ///< calibrated value shown as the LUT's first colour
    double hi = 1;  ///< … and as its last
    friend bool operator==(const DisplayWindow&, const DisplayWindow&) = default;
};

/// The LUT index a calibrated value maps to: round((v − lo) / (hi − lo) · 255), clamped; a
/// window of zero width splits at lo. Not for NaN.
int window_index(double value, const DisplayWindow& window);

/// The view of `image`: single-channel images through `lut`, colour images windowed per channel
/// (the LUT does not apply), alpha scaled from the type's range. NaN → kNanColour.
ImageRgba8 render_display(const NativeImage& image, const Calibration& calibration,
                          const DisplayWindow& window, Lut lut, bool mark_clipped = false);

}  // namespace lacuna
