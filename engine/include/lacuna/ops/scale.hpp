// Resampling an image to any size: cubic B-spline up-conversion and its usual companions.
// Output pixel centres map onto the input as u = (x + 0.5) · (in / out) − 0.5 (OpenCV's resize
// convention), each channel (alpha too) separately:
//   nearest   the input pixel whose centre is nearest,
//   bilinear  the 2 × 2 neighbours, edges clamped,
//   bicubic   Keys' cubic convolution with a = −0.5 (Catmull–Rom) over 4 × 4, edges clamped,
//   bspline   cubic B-spline interpolation with the exact prefilter (Unser 1991; Unser, Aldroubi
//             & Eden 1993): the samples are turned into B-spline coefficients by a causal and an
//             anticausal recursive filter along rows, then columns (pole √3 − 2, mirror
//             boundaries), so the spline passes through every sample; then a 4 × 4 cubic B-spline
//             evaluation. Sharper than bicubic for the same support.
// Results are rounded to 8 bits and clamped (cubic kernels overshoot at edges).
#pragma once

#include <lacuna/core/device_image.hpp>
#include <lacuna/core/image.hpp>
#include <lacuna/core/native_image.hpp>

#include <memory>
#include <optional>
#include <string_view>

namespace lacuna::ops {

enum class ScaleMethod { Nearest, Bilinear, Bicubic, BSpline };

/// The scaling's settings (its parameter table, lacuna/ops/params.hpp, declares them).
struct ScaleParams {
    ScaleMethod method = ScaleMethod::BSpline;
};

std::string_view to_string(ScaleMethod method);
/// "nearest", "bilinear", "bicubic" or "bspline"; nullopt otherwise.
std::optional<ScaleMethod> parse_scale_method(std::string_view name);

/// Throws Error (EmptyImage, TooLarge, InvalidArgument) unless both sizes are allowed images.
void check_scale(int in_width, int in_height, int out_width, int out_height);

/// The gold: every sum in double, the prefilter with its full mirrored initial sum.
ImageRgba8 scale_reference(ImageView<const Rgba8> src, int width, int height, ScaleMethod method);

/// The fast CPU path: separable weights computed once per output row and column, float sums, rows
/// over all cores. Identical to the CUDA path; within one level of the reference.
ImageRgba8 scale_fast(ImageView<const Rgba8> src, int width, int height, ScaleMethod method);

/// The CUDA path as a device-in/device-out object on one stream; its coefficient buffers grow
/// only, so scaling every frame of a video allocates once.
class CudaScaler {
  public:
    /// Throws Error(CudaUnavailable) in a build without CUDA.
    explicit CudaScaler(DeviceStream stream);
    ~CudaScaler();
    CudaScaler(const CudaScaler&) = delete;
    CudaScaler& operator=(const CudaScaler&) = delete;

    /// dst's size is the target; src and dst are views of device memory of any pitch (sub-views
    /// of larger images work and are treated as whole images). Enqueued on the stream.
    void run(ImageView<const Rgba8> src, ImageView<Rgba8> dst, ScaleMethod method);
    /// dst resized (grow-only) to width × height.
    void run(const DeviceImage<Rgba8>& src, DeviceImage<Rgba8>& dst, int width, int height,
             ScaleMethod method);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

enum class ScaleImplementation { Reference, Fast, Cuda };

/// Host in, host out with the implementation asked for.
ImageRgba8 scale(ImageView<const Rgba8> src, int width, int height, ScaleMethod method,
                 ScaleImplementation implementation);

/// A measurement's stored samples (any sample type; 1, 3 or 4 channels) resampled with the same
/// positions and kernels, as ImageJ scales a 16-bit or float image: the values are weighed in float
/// (Reference: double), integer results rounded to the nearest sample and clamped to the type,
/// float results kept as computed. Taps of weight 0 are not read, so a NaN reaches only the
/// outputs it weighs on; bspline refuses a float image with non-finite samples (its prefilter
/// would spread one along its row and column). Fast is within 1 sample (integers) or 4e-6 of the
/// largest magnitude (float) of Reference. Cuda is refused: measurements scale on the CPU.
NativeImage scale_native(const NativeImage& src, int width, int height, ScaleMethod method,
                         ScaleImplementation implementation);

}  // namespace lacuna::ops
