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

}  // namespace lacuna::ops
