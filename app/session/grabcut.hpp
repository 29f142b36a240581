// A proposed mask from a box drawn around an object, or from strokes scribbled on it: OpenCV's
// GrabCut (Rother et al. 2004). A box: outside is background, inside probably the object. A
// scribble: the strokes are the object for certain, the rest probably background. What the
// Remove Object panel's Box and Scribble modes propose; the brush and eraser then refine it.
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

/// The object under `seeds` (a mask of the image's size, non-zero where strokes were scribbled on
/// the object) as a mask of the image's size: 255 where GrabCut labels a pixel foreground or
/// probably foreground and the pixel is connected (8-neighbours) to a seed, 0 elsewhere. The
/// strokes are certain foreground; every other pixel of a window around them (the strokes' box
/// grown by its longer side, at least 16 pixels, clipped) starts as probable background, and
/// the window's frame, where it lies inside the image, as certain background; outside the window
/// the mask is 0. So GrabCut learns the object's colours from the strokes and gives it the
/// neighbouring pixels that look like them. Throws InvalidArgument (one sentence) for a seed
/// mask of another size, without seeds, or whose window is the whole image with nothing left
/// to learn the background from.
Mask grabcut_scribble_mask(ImageView<const Rgba8> image, MaskView seeds,
                           int iterations = kGrabCutIterations);

}  // namespace lacuna::session
