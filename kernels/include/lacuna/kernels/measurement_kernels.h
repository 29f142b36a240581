// Measurement planes on the device: the stored samples of a measurement document (any sample
// type, 1, 3 or 4 channels, raw rows) become one plane of calibrated float values, computed
// exactly as lacuna::measurement_plane does on the host (double arithmetic without fused
// multiply-adds), and the plane's finite min–max is reduced on the device.
#pragma once

#include <lacuna/core/pixel.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace lacuna::kernels {

struct RawSamples {
    const std::uint8_t* data = nullptr;
    std::size_t pitch = 0;
    int width = 0;
    int height = 0;
    int sample_type = 0;  ///< lacuna::SampleType as an integer: 0 U8, 1 U16, 2 I16, 3 F32
    int channels = 1;
};

/// dst(x, y) = float(slope · v + intercept), v the sample (grey) or Rec. 709 luminance of R, G, B.
cudaError_t launch_measurement_plane(const RawSamples& src, double slope, double intercept,
                                     const ImageView<float>& dst, cudaStream_t stream);

/// ops::deep_carving_proxy on the device: every colour sample normalised over [lo, hi] to
/// 0..65535 (integers exactly, as the host's int64 arithmetic; float as its double arithmetic
/// rounded to nearest, NaN → 0), grey copied to R, G, B, alpha opaque: the host's image, bit for
/// bit.
cudaError_t launch_deep_decision(const RawSamples& src, double lo, double hi,
                                 const ImageView<Rgba16>& dst, cudaStream_t stream);

/// Per-block finite minimum and maximum of `plane` into block_lo/block_hi (`blocks` entries, at
/// most 1024; blocks without a finite value write +inf/−inf).
cudaError_t launch_finite_min_max(const ImageView<const float>& plane, float* block_lo,
                                  float* block_hi, int blocks, cudaStream_t stream);

}  // namespace lacuna::kernels
