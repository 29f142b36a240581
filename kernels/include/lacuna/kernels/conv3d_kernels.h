// Launchers for the 3-D convolution kernels (kernels/conv3d.cu). Volumes are dense floats
// [t][y][x]; the weights k³ floats [dt][dy][dx] in device memory.
#pragma once

#include <cuda_runtime_api.h>

namespace lacuna::kernels {

struct Conv3dArgs {
    const float* in = nullptr;
    float* out = nullptr;
    const float* weights = nullptr;
    int width = 0, height = 0, in_frames = 0, k = 1;
};

/// algorithm: 0 baseline, 1 shared-memory tiles, 2 streaming.
cudaError_t launch_conv3d(const Conv3dArgs& args, int algorithm, cudaStream_t stream);

}  // namespace lacuna::kernels
