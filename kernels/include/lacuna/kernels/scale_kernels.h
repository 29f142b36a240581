// Launchers for the scaler's kernels (kernels/scale.cu). `values` is sw × sh × 4 floats,
// interleaved RGBA, dense.
#pragma once

#include <lacuna/core/pixel.hpp>

#include <cuda_runtime_api.h>

namespace lacuna::kernels {

/// The samples as floats.
cudaError_t launch_scale_unpack(ImageView<const Rgba8> src, float* values, cudaStream_t stream);
/// The B-spline prefilter along every row, then along every column, in place; `causal` is
/// scratch of the same size (one thread per line, channel and chunk of scale_math::kChunk).
cudaError_t launch_scale_prefilter(float* values, float* causal, int sw, int sh,
                                   cudaStream_t stream);
/// One thread per output pixel.
cudaError_t launch_scale_resample(const float* values, int sw, int sh, ImageView<Rgba8> dst,
                                  int method, cudaStream_t stream);

}  // namespace lacuna::kernels
