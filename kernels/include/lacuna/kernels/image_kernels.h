// Host-callable launchers for the image kernels. Plain C++ header (no CUDA types beyond the
// opaque stream) so engine code compiled by g++ can call them; each returns the launch status.
#pragma once

#include <lacuna/core/pixel.hpp>

#include <cuda_runtime_api.h>

namespace lacuna::kernels {

/// dst(x, y) = luminance709(src(x, y)); sizes must match (the caller checks).
cudaError_t launch_luminance709(const ImageView<const Rgba8>& src, const ImageView<float>& dst,
                                cudaStream_t stream);

}  // namespace lacuna::kernels
