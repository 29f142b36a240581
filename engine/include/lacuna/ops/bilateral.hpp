// The joint (cross) bilateral filter (Lin et al.): each output pixel is the weighted
// mean of the pixels within `radius` of it, weighted by a spatial Gaussian of their distance times
// a range Gaussian of how different their colours are in the *guide* image. With no guide the
// image guides itself: the plain bilateral filter (Tomasi & Manduchi 1998). With a guide (the
// colour view for a depth map, as in depth-colour bilateral filtering) edges of the guide are kept
// in the filtered image.
//
// The definition, shared by every implementation (and by OpenCV's bilateralFilter and ximgproc's
// jointBilateralFilter for 8-bit 3-channel images, so they can be compared):
//   w(p, q) = exp(-|p − q|² / 2σs²) · exp(-D(p, q)² / 2σr²)   for |p − q|² ≤ radius²,
//   D(p, q) = |ΔR| + |ΔG| + |ΔB| of the guide at p and q (0..765),
//   out_c(p) = round(Σ_q w(p, q) · src_c(q) / Σ_q w(p, q))   for c = R, G, B; alpha is kept,
// with the image mirrored at its borders without repeating the edge pixel (…c b | a b c d | c b…,
// OpenCV's BORDER_REFLECT_101).
#pragma once

#include <lacuna/core/device_image.hpp>
#include <lacuna/core/image.hpp>
#include <lacuna/core/native_image.hpp>

#include <memory>

namespace lacuna::ops {

inline constexpr int kMaxBilateralRadius = 32;
inline constexpr double kMaxBilateralSigma = 1000;

struct BilateralParams {
    double sigma_space = 3;   ///< pixels
    double sigma_range = 30;  ///< levels of |ΔR| + |ΔG| + |ΔB|
    int radius = 0;           ///< pixels; 0: round(1.5 σs), at least 1 (OpenCV's default)
};

/// The radius the filter uses: params.radius, or round(1.5 σs) (at least 1) when it is 0.
int bilateral_radius(const BilateralParams& params);

/// Throws Error(InvalidArgument) with a sentence naming the value unless σs and σr are in
/// (0, kMaxBilateralSigma], radius is 0..kMaxBilateralRadius and the image is not empty; and
/// unless a guide (non-empty view) has the image's size.
void check_bilateral(const BilateralParams& params, int width, int height, int guide_width = -1,
                     int guide_height = -1);

/// The gold: one pixel at a time, every weight from std::exp, sums in double.
ImageRgba8 bilateral_reference(ImageView<const Rgba8> src, ImageView<const Rgba8> guide,
                               const BilateralParams& params);

/// The fast CPU filter: weight tables in float, rows split over the cores. Within one level of
/// the reference (float rounding); identical to the CUDA filter.
ImageRgba8 bilateral_fast(ImageView<const Rgba8> src, ImageView<const Rgba8> guide,
                          const BilateralParams& params);

/// The CUDA filter as a device-in/device-out object on one stream; it owns its weight tables
/// (grow-only) so a live preview can call it again and again without allocating.
class CudaBilateral {
  public:
    /// Throws Error(CudaUnavailable) in a build without CUDA.
    explicit CudaBilateral(DeviceStream stream);
    ~CudaBilateral();
    CudaBilateral(const CudaBilateral&) = delete;
    CudaBilateral& operator=(const CudaBilateral&) = delete;

    /// dst (resized to src's size, grow-only) = the filter of src guided by `guide` (nullptr: by
    /// src itself), enqueued on the stream; nothing waits. src, guide and dst must not alias.
    void run(const DeviceImage<Rgba8>& src, const DeviceImage<Rgba8>* guide,
             DeviceImage<Rgba8>& dst, const BilateralParams& params);

    /// The same on views of device memory of any pitch, e.g. sub-views of larger images (each is
    /// mirrored at its own borders, nothing outside it is read). An empty `guide`: src guides.
    void run(ImageView<const Rgba8> src, ImageView<const Rgba8> guide, ImageView<Rgba8> dst,
             const BilateralParams& params);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

enum class BilateralImplementation { Reference, Fast, Cuda };

/// Host in, host out: the implementation asked for (Cuda uploads, filters and downloads).
/// An empty `guide` view means the image guides itself.
ImageRgba8 bilateral(ImageView<const Rgba8> src, ImageView<const Rgba8> guide,
                     const BilateralParams& params, BilateralImplementation implementation);

// ---- measurements: the filter on stored samples ----
//
// The same definition on a NativeImage (8/16-bit, signed 16-bit or float; 1, 3 or 4 channels),
// with the range distance in the guide's own calibrated values, so σr is in the data's unit
// (HU, K, …; stored samples when the calibration is the identity):
//   D(p, q) = |slope| · Σ_c |g_c(p) − g_c(q)| over the guide's colour channels (grey: its one),
//   out_c(p) = Σ_q w(p, q) · src_c(q) / Σ_q w(p, q) for each colour channel; alpha is kept.
// Non-finite samples (NaN, ±infinity; float only) are data that is missing, not values: a
// neighbour whose sample is non-finite adds no weight to that channel, a neighbour whose guide
// distance is non-finite adds none at all (the centre itself always weighs 1: its distance is 0
// by definition), and a non-finite sample stays as it is. Integer results are rounded to the
// nearest sample and clamped to the type; float results are kept.

/// The guide of the measurement filter: any NativeImage of the image's size (a photo as
/// to_native) and its calibration, whose slope scales the range distance.
struct NativeGuide {
    const NativeImage* image = nullptr;  ///< nullptr: the image guides itself
    Calibration calibration;
};

/// check_bilateral for measurements: σr is in calibrated units, so any finite value above 0 is
/// allowed (the photo limit of kMaxBilateralSigma levels does not apply); σs and the radius as
/// for photos; the guide (if any) must have the image's size.
void check_bilateral_native(const BilateralParams& params, const NativeImage& src,
                            const NativeGuide& guide);

/// The measurement filter. Reference: one pixel and one neighbour at a time, every weight from
/// std::exp, sums in double. Fast: float weight tables (the range Gaussian tabulated over σr
/// units with linear interpolation), sums of differences from the centre in float, rows over the
/// cores. Cuda is refused with InvalidArgument: measurements are filtered on the CPU.
NativeImage bilateral_native(const NativeImage& src, const Calibration& calibration,
                             const NativeGuide& guide, const BilateralParams& params,
                             BilateralImplementation implementation);

}  // namespace lacuna::ops
