// Launcher for the bilateral filter kernel (kernels/bilateral.cu).
#pragma once

#include <lacuna/core/pixel.hpp>

#include <cuda_runtime_api.h>

namespace lacuna::kernels {

struct BilateralArgs {
    ImageView<const Rgba8> src;
    ImageView<const Rgba8> guide;  ///< src's size; may be src itself
    bool guided = false;           ///< false: the guide is src (one tile instead of two)
    ImageView<Rgba8> dst;          ///< src's size
    int radius = 1;
    /// Device memory: radius² + 1 space weights (by dx² + dy²), then 766 range weights.
    const float* tables = nullptr;
};

/// One thread per output pixel; a block's pixels and their neighbours are staged in shared memory.
cudaError_t launch_bilateral(const BilateralArgs& args, cudaStream_t stream);

}  // namespace lacuna::kernels
