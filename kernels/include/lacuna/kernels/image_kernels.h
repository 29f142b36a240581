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

namespace lacuna::kernels {

/// The display copy: the engine's pitched image into a tightly packed RGBA8 buffer (a mapped GL
/// pixel-unpack buffer), one thread per pixel.
cudaError_t launch_present_rgba(const ImageView<const Rgba8>& src, Rgba8* dst, cudaStream_t stream);

}  // namespace lacuna::kernels
