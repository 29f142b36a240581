// Launcher for the kymograph kernel (kernels/kymograph.cu).
#pragma once

#include <lacuna/kernels/line_sampling.h>

#include <cuda_runtime_api.h>

namespace lacuna::kernels {

struct KymographArgs {
    /// `frames` frames of width × height stacked top to bottom in one pitched plane (height ×
    /// frames rows): frame f starts at row f × height.
    ImageView<const float> stack;
    int width = 0;
    int height = 0;
    int frames = 0;
    const LineGeometry* segments = nullptr;  ///< device memory, the plan's segments
    const int* segment_of = nullptr;         ///< device memory, per position
    const int* index_of = nullptr;           ///< device memory, per position
    int positions = 0;
    int band = 1;
    Sampling sampling = Sampling::Bilinear;
    ImageView<float> out;  ///< positions × frames: one row per frame
};

/// One thread per (position, frame): the band's samples in band order, summed in double and
/// rounded to float once, as kymograph_row_reference does.
cudaError_t launch_kymograph(const KymographArgs& args, cudaStream_t stream);

}  // namespace lacuna::kernels
