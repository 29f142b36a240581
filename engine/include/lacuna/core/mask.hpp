// An 8-bit mask: 0 = not selected, anything else = selected. Masks are images of std::uint8_t so
// they share pitch, copies and device transfers with every other image.
#pragma once

#include <lacuna/core/image.hpp>

#include <cstdint>

namespace lacuna {

using Mask = Image<std::uint8_t>;
using MaskView = ImageView<const std::uint8_t>;

/// Number of selected (non-zero) pixels.
std::int64_t count_selected(MaskView mask);

/// A mask that selects pixels whose alpha or grey value is at least `threshold` (default: any
/// non-zero luminance or colour), for masks painted in other programs and saved as images.
Mask mask_from_image(ImageView<const Rgba8> image, std::uint8_t threshold = 1);

/// The mask grown by `pixels` (a disc: every pixel within that Euclidean distance of a selected
/// one), or for a negative count shrunk by as much (a pixel stays only if every pixel within
/// that distance is selected; beyond the image's edge counts as selected, so a mask touching the
/// edge stays there). Selected pixels come out 255. What a brush's margin does: a mask drawn
/// tight on an object also takes its soft edge and shadow.
Mask grow_mask(MaskView mask, int pixels);

/// Throws InvalidArgument with `what` in the message unless mask and image sizes agree.
void check_mask_size(MaskView mask, int width, int height, const char* what);

}  // namespace lacuna
