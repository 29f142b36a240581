// Launchers for the 3-D convolution kernels (kernels/conv3d.cu). Volumes are floats [t][y][x]
// in rows `pitch` floats apart (≥ width); the weights k³ floats [dt][dy][dx] in device memory.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace lacuna::kernels {

struct Conv3dArgs {
    const float* in = nullptr;
    float* out = nullptr;
    const float* weights = nullptr;
    int width = 0, height = 0, in_frames = 0, k = 1;
    long long pitch = 0;  ///< floats from one row to the next, in and out
};

/// algorithm: 0 baseline, 1 shared-memory tiles, 2 streaming.
cudaError_t launch_conv3d(const Conv3dArgs& args, int algorithm, cudaStream_t stream);

/// The hybrid Fourier algorithm's scratch, in floats: the spectra of every input frame and
/// kernel slice on the power-of-two padded frame, and an accumulator.
std::size_t conv3d_fft_scratch_floats(int width, int height, int k, int in_frames);
/// 2-D FFTs per frame and a 1-D temporal sum of spectra (conv3d_fft.cu). Padded frames up to
/// 4096 on a side.
cudaError_t launch_conv3d_fft(const Conv3dArgs& args, float* scratch, cudaStream_t stream);

}  // namespace lacuna::kernels
