// Structure completion before a PatchMatch fill (after Sun, Yuan, Jia & Shum 2005, "Image
// completion with structure propagation", reduced to straight lines): straight edges that reach
// the hole from both sides on one line are joined across it, and a band along each joined line
// is filled first by copying the band just outside the hole along the line. The band is then
// known to PatchMatch, whose patches next to it line up with it, and the rest of the hole is
// filled as before. The stage runs once on the host before any filler starts, so the CPU and
// CUDA PatchMatch get the same problem (image and smaller hole) and still decide alike.
#pragma once

#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>
#include <lacuna/ops/patchmatch.hpp>

#include <cstdint>
#include <vector>

namespace lacuna::ops {

struct InpaintProblem;
struct InpaintParams;

/// The tolerances of the line continuation (declared in params.cpp's inpaint table).
struct LineContinuationOptions {
    /// Two edges are one line when their directions differ by at most this many degrees...
    double angle_degrees = 3.0;
    /// ...and each one's end lies within this many pixels of the other's line.
    double offset_pixels = 2.0;
    /// Half the width of the band filled along a joined line, in pixels.
    int band = 4;
    /// Shortest edge, in pixels outside the hole, that counts as a line.
    int min_length = 16;
};

/// The options of InpaintParams (its line_angle and line_offset; the band half a patch wide).
LineContinuationOptions line_options(const InpaintParams& params);

/// A straight edge traced outward from the hole's border.
struct EdgeTrace {
    double x = 0, y = 0;    ///< the fitted line's point at the hole-side end
    double dx = 0, dy = 0;  ///< unit direction pointing into the hole
    int length = 0;         ///< pixels traced outside the hole
};

/// A line continued across the hole: from (x0, y0) on the side of `from` to (x1, y1).
struct ContinuedLine {
    double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    bool to_border = false;   ///< one edge continued to the image's border (no far side)
    std::int64_t pixels = 0;  ///< hole pixels of its band filled
};

struct LineCompletion {
    ImageRgba8 image;  ///< the input with the bands filled
    Mask hole;         ///< the hole less the bands (0/1)
    /// Where each band pixel was copied from (a known pixel of the input, never one of the
    /// hole): `image` is fill_from_sources(input, sources), and the same map moves a
    /// measurement's stored samples (fill_from_sources of a NativeImage). Empty box: no band.
    FillSources sources;
    std::vector<ContinuedLine> lines;
    std::int64_t filled = 0;  ///< hole pixels filled by the bands
};

/// The straight edges (luma Sobel, traced over known pixels) that reach the hole's border.
std::vector<EdgeTrace> edges_into_hole(ImageView<const Rgba8> image, const Mask& hole,
                                       const LineContinuationOptions& options);
/// Whether edges_into_hole would find any: stops at the first.
bool edge_reaches_hole(ImageView<const Rgba8> image, const Mask& hole,
                       const LineContinuationOptions& options);

/// Joins and fills (see above). `hole`: non-zero = to fill; pixels of `never_sample` (may be
/// null) are never copied. Every band pixel is a copy of one known pixel; pixels outside the
/// hole are never written. No line reaching the hole: the image and hole come back unchanged.
LineCompletion continue_lines(ImageView<const Rgba8> image, const Mask& hole,
                              const Mask* never_sample, const LineContinuationOptions& options);

/// Applies continue_lines to a prepared PatchMatch problem: its image gets the bands, its hole
/// (count and box) shrinks to the rest; the valid sources stay those of the whole hole (a band
/// pixel is never a source), and a note says how many lines were continued. Returns the bands'
/// sources (LineCompletion::sources; an empty box when no line was continued), so a
/// measurement's fill moves its samples by the same decisions.
FillSources continue_lines(InpaintProblem& problem, const Mask* never_sample,
                           const LineContinuationOptions& options);

}  // namespace lacuna::ops
