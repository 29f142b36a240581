// Colour-managed display: the conversion from an image's ICC profile to the display's (sRGB
// unless the user names a monitor profile), computed once with Little CMS as a 3-D lookup table
// that the image shader samples. Only the view is converted: the document, every engine
// operation and every saved file keep the stored values.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace lacuna::render {

/// An N × N × N table over the image's RGB cube, sampled at the grid points i / (N − 1), and
/// the display's encoding after it. The shader looks up the stored colour in `rgb` with
/// trilinear filtering, clamps to 0..1 and, when `encode` is there, maps each channel through
/// it. For a matrix/TRC display profile (sRGB, most monitor profiles) the table holds *linear*
/// display RGB and `encode` is the display's tone curve: the image-to-display-linear function is
/// smooth, so trilinear steps stay within about 2 of 255 levels even where the encoded result
/// turns sharply near black; stored encoded, the same 33³ table missed by up to 21.
struct DisplayLut {
    int size = 0;
    std::vector<float> rgb;     ///< size³ × 3, red fastest
    std::vector<float> encode;  ///< kEncodeSize × 3 (linear 0..1 → display value), or empty
    static constexpr int kEncodeSize = 4096;
    std::string description;  ///< "Adobe RGB (1998) → sRGB", for the status bar
    [[nodiscard]] bool empty() const { return size == 0; }
};

/// The table that shows pixels stored in `image_profile` on a display with `display_profile`
/// (empty: sRGB), relative colorimetric intent with black-point compensation, or std::nullopt
/// when nothing needs converting (no image profile, or the same profile on both sides). Throws
/// Error(Corrupt) naming which profile Little CMS cannot read, or (UnsupportedFormat) one that
/// is not an RGB profile.
std::optional<DisplayLut> make_display_lut(std::span<const std::uint8_t> image_profile,
                                           std::span<const std::uint8_t> display_profile,
                                           int size = 33);

/// The same conversion for one 8-bit colour, straight through Little CMS (no table): what the
/// shader's lookup approximates. For tests and for reading a colour off the screen.
std::array<std::uint8_t, 3> convert_for_display(std::span<const std::uint8_t> image_profile,
                                                std::span<const std::uint8_t> display_profile,
                                                std::array<std::uint8_t, 3> rgb);

/// The profile's description ('desc'), or "unnamed profile".
std::string profile_description(std::span<const std::uint8_t> profile);

}  // namespace lacuna::render
