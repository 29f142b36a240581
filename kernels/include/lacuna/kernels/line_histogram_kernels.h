// Launchers for the line and direction histogram kernels (kernels/line_histogram.cu).
#pragma once

#include <lacuna/kernels/line_sampling.h>

#include <cuda_runtime_api.h>

#include <cstdint>

namespace lacuna::kernels {

inline constexpr int kMaxSharedHistogramBins =
    8192;  ///< above this, bins are counted in global memory

struct HistogramPlanes {
    ImageView<const float> plane[3];
    int count = 1;
};

struct LineHistogramArgs {
    HistogramPlanes planes;
    LineGeometry geometry;
    BinMapping mapping;
    Sampling sampling = Sampling::Bilinear;
    std::uint32_t* counts =
        nullptr;  ///< [plane][position][bin]; must be zeroed when bins > kMaxSharedHistogramBins
    float* mean = nullptr;  ///< [plane][position], likewise median, min, max
    float* median = nullptr;
    float* min = nullptr;
    float* max = nullptr;
    std::uint32_t* samples = nullptr;  ///< [plane][position]: valid samples
    std::uint32_t* outside = nullptr;  ///< [plane][position]: samples outside the image
    std::uint32_t* out_of_range =
        nullptr;  ///< [plane][position]: inside, but outside [lo, hi] or NaN
};

struct DirectionHistogramArgs {
    HistogramPlanes planes;
    DirectionGeometry geometry;
    BinMapping mapping;
    Sampling sampling = Sampling::Nearest;
    int width = 0;
    int height = 0;
    std::uint32_t* counts =
        nullptr;  ///< [plane][column][bin]; zeroed when bins > kMaxSharedHistogramBins
    unsigned long long* counters = nullptr;
};

/// The four planes of a photo, each the photo's size.
struct PhotoPlanes {
    ImageView<float> luminance;
    ImageView<float> red;
    ImageView<float> green;
    ImageView<float> blue;
};

/// Builds a photo's planes in one pass on the device: luminance709 and R, G, B as floats, equal
/// to what HistogramSource computes on the host.
cudaError_t launch_histogram_planes(const ImageView<const Rgba8>& src, const PhotoPlanes& dst,
                                    cudaStream_t stream);

cudaError_t launch_line_histogram(const LineHistogramArgs& args, cudaStream_t stream);
cudaError_t launch_direction_histogram(const DirectionHistogramArgs& args, cudaStream_t stream);

}  // namespace lacuna::kernels
