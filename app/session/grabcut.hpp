// A proposed mask from a box drawn around an object: OpenCV's GrabCut (Rother et al. 2004),
// initialised with the rectangle (outside: background; inside: probably the object). What
// the Remove Object panel's Box mode proposes; the brush and eraser then refine it.
#pragma once

#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>

namespace lacuna::session {

/// GrabCut's default refinement count: five rounds settle the colour models on photos.
inline constexpr int kGrabCutIterations = 5;

/// The object inside `rect` (clipped to the image) as a mask of the image's size: 255 where
/// GrabCut labels a pixel foreground or probably foreground, 0 elsewhere (always 0 outside the
/// rectangle). Works on the rectangle and a margin of background around it, so a small box on
/// a large photo costs little. Throws InvalidArgument (one sentence) for a rectangle under
/// 3 × 3 pixels inside the image, or one leaving no background around it (the whole image).
Mask grabcut_mask(ImageView<const Rgba8> image, PixelRect rect,
                  int iterations = kGrabCutIterations);

}  // namespace lacuna::session
