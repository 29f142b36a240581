// How good is a fill? Measures used by `lacuna bench inpaint` to compare methods on the same holes.
// Hole PSNR alone rewards blur (a smooth smear is close to any texture on average), so it is
// reported with SSIM and two measures of texture: the texture-energy ratio (a smear scores far
// below 1) and the seam score (a visible border around the fill scores above 1).
//
// With a truth, two local measures as well, because a single global ratio hides local errors
// (a smeared half and a noisy half average to 1) and says nothing about structure:
// - tile-wise texture: the ratio per 16×16 tile (the 95th percentile of |log2 ratio| and the
//   number of tiles more than 2× off);
// - edge precision and recall within 2 px: precision catches broken, offset or duplicated lines
//   (result edges with no truth edge near), recall catches dropped ones (truth edges with no
//   result edge near).
#pragma once

#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>

#include <cstdint>
#include <limits>
#include <vector>

namespace lacuna::ops {

/// Texture per tile: the image is cut into `kTextureTile`² tiles on a grid from (0, 0); a tile
/// counts when at least a quarter of its pixels are in the hole. Its texture is the mean luma
/// gradient magnitude (central differences, grey levels per pixel) over its hole pixels; its
/// ratio is (result + 1) / (truth + 1): the +1 makes textures under about one grey level per pixel
/// count as flat, so a smooth sky tile with a little noise is not "infinitely" off.
struct TileTexture {
    int tiles = 0;                                                   ///< tiles counted
    int tiles_off_2x = 0;                                            ///< ratio > 2 or < 1/2
    double p95_abs_log2 = std::numeric_limits<double>::quiet_NaN();  ///< NaN when no tile counts
    std::vector<double> ratios;  ///< per counted tile, row by row
};

inline constexpr int kTextureTile = 16;

TileTexture tile_texture(ImageView<const Rgba8> result, const Mask& mask,
                         ImageView<const Rgba8> truth);

/// Edges by a fixed, deterministic detector (Canny-like, written out here; the engine has no
/// OpenCV): luma, a 5-tap binomial blur [1 4 6 4 1]/16 each way, Sobel gradients, non-maximum
/// suppression along the gradient direction quantised to 0/45/90/135°, hysteresis with Sobel
/// magnitude thresholds kEdgeLow and kEdgeHigh (8-connected). After the blur, a clean step of
/// s grey levels has a Sobel magnitude of 2.5·s, so a step of 32 levels starts an edge and one of
/// 16 continues it; plaster or sky noise of a few levels is not an edge.
inline constexpr float kEdgeLow = 40.0f;
inline constexpr float kEdgeHigh = 80.0f;
Mask detect_edges(ImageView<const Rgba8> image);

/// Edge pixels inside the hole, matched within `tolerance` px (chessboard distance) against the
/// other image's edges anywhere (so an edge that runs out of the hole is matched by its
/// continuation just outside).
struct EdgeMatch {
    std::int64_t truth_edges = 0;   ///< truth edge pixels in the hole
    std::int64_t result_edges = 0;  ///< result edge pixels in the hole
    /// Result edges with a truth edge near ÷ result edges; NaN when the result has none.
    double precision = std::numeric_limits<double>::quiet_NaN();
    /// Truth edges with a result edge near ÷ truth edges; NaN when the truth has none.
    double recall = std::numeric_limits<double>::quiet_NaN();
};

inline constexpr int kEdgeTolerance = 2;
EdgeMatch match_edges(const Mask& result_edges, const Mask& truth_edges, const Mask& mask,
                      int tolerance = kEdgeTolerance);

/// A straight segment in image coordinates (pixel centres at integers), as a line detector
/// reports it.
struct QualityLine {
    double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

/// Do lines that enter the hole leave it where they should? Of the truth's straight
/// lines (segments found by a line detector on the truth), those that cross the hole: both ends
/// outside it, at least kLineMinInside of their points (one a pixel along the segment, rounded)
/// in it, and the truth's own edges within `tolerance` px of at least kLineContinued of those
/// points (a line the edge detector sees as one). Such a line is continued when the result's
/// edges lie within `tolerance` px of at least kLineContinued of its points in the hole: it
/// runs through the hole straight and leaves where the truth's does. A dropped, bent, broken or
/// shifted line is not.
struct LineContinuation {
    int crossing = 0;   ///< the truth's lines crossing the hole
    int continued = 0;  ///< of those, continued by the result
};
inline constexpr int kLineMinInside = 4;
inline constexpr double kLineContinued = 0.8;
LineContinuation match_lines(const Mask& result_edges, const Mask& truth_edges,
                             const std::vector<QualityLine>& lines, const Mask& mask,
                             int tolerance = kEdgeTolerance);

struct FillQuality {
    double psnr_db = 0;  ///< RGB, hole pixels only; +inf when identical; NaN without truth
    double ssim = 0;  ///< luma, 7×7 uniform windows, averaged over hole pixels; NaN without truth
    /// Mean luma gradient magnitude in the hole ÷ the same in the truth's hole (or, without a
    /// truth, in a ring around the hole). About 1 is right; a smear is 0.1–0.4. With a truth this
    /// is the global ratio that `tiles` breaks down.
    double texture_ratio = 0;
    /// Mean gradient magnitude on the one-pixel band either side of the mask border ÷ the same
    /// band in the truth (or the ring without a truth). Above 1: the border shows.
    double seam_score = 0;
    /// With a truth only (otherwise tiles = 0 and NaN).
    TileTexture tiles;
    EdgeMatch edges;
    /// PSNR (RGB, hole pixels) after a Gaussian low-pass of σ = kLowPassSigma on both images: are
    /// the tones and the structure right? Plain PSNR rewards blur; this forgives a texture that
    /// is right in kind but not pixel for pixel. NaN without a truth.
    double lowpass_psnr_db = std::numeric_limits<double>::quiet_NaN();
    /// Mean Sobel magnitude of the luma in the hole ÷ the truth's (a blur scores 0.1–0.4); NaN
    /// without a truth.
    double detail_ratio = std::numeric_limits<double>::quiet_NaN();
    /// The truth's own mean Sobel magnitude in the hole (grey levels): ≥ kTexturedSobel counts as
    /// textured. NaN without a truth.
    double truth_sobel = std::numeric_limits<double>::quiet_NaN();
    /// Foreign content: the share of hole pixels whose colour, quantised to 5 bits a channel,
    /// occurs nowhere in the ring of kForeignRing px around the hole. Judged against
    /// `truth_foreign`, the truth's own share (noise and new objects score too).
    double foreign = 0;
    double truth_foreign = std::numeric_limits<double>::quiet_NaN();
};

inline constexpr double kLowPassSigma = 3.0;
inline constexpr double kTexturedSobel = 40.0;
inline constexpr int kForeignRing = 16;

/// The foreign-content share of `image`'s hole pixels (see FillQuality::foreign); NaN for an
/// empty hole.
double foreign_content(ImageView<const Rgba8> image, const Mask& mask, int ring = kForeignRing);
/// The hole pixels foreign_content counts: 255 where a hole pixel's 5-bit colour occurs nowhere
/// in the ring of `ring` px around the hole, 0 elsewhere (what `lacuna bench inpaint --save`
/// draws on its *_foreign.png maps).
Mask foreign_pixels(ImageView<const Rgba8> image, const Mask& mask, int ring = kForeignRing);
/// PSNR of the hole pixels after a separable Gaussian low-pass of `sigma` (radius ⌈3σ⌉, border
/// replicated) on both images; +inf when equal, NaN for an empty hole.
double lowpass_psnr(ImageView<const Rgba8> result, ImageView<const Rgba8> truth, const Mask& mask,
                    double sigma = kLowPassSigma);
/// Mean Sobel magnitude (√(gx² + gy²), 3×3 Sobel, border replicated) of the luma over the hole.
double mean_sobel(ImageView<const Rgba8> image, const Mask& mask);

/// `truth` may be null (a real object removed: nothing to compare with). The ring is the pixels
/// outside the mask within `ring_width` (chessboard distance) of it.
FillQuality measure_fill(ImageView<const Rgba8> result, const Mask& mask, const ImageRgba8* truth,
                         int ring_width = 8);

}  // namespace lacuna::ops
