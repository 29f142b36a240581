#include <lacuna/kernels/measurement_kernels.h>

#include <math_constants.h>

namespace lacuna::kernels {
namespace {

template <class S>
__device__ double stored(const std::uint8_t* row, const int index) {
    return static_cast<double>(reinterpret_cast<const S*>(row)[index]);
}

__device__ double sample_at(const RawSamples& s, const std::uint8_t* row, const int index) {
    switch (s.sample_type) {
        case 0:
            return stored<std::uint8_t>(row, index);
        case 1:
            return stored<std::uint16_t>(row, index);
        case 2:
            return stored<std::int16_t>(row, index);
        default:
            return stored<float>(row, index);
    }
}

__global__ void measurement_plane_kernel(const RawSamples s, const double slope,
                                         const double intercept, const ImageView<float> dst) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= s.width || y >= s.height) return;
    const std::uint8_t* row = s.data + s.pitch * static_cast<std::size_t>(y);
    const int i = x * s.channels;
    double raw;
    if (s.channels == 1) {
        raw = sample_at(s, row, i);
    } else {
        // The host's 0.2126·r + 0.7152·g + 0.0722·b, rounded step by step as g++ does without
        // contraction: no fused multiply-adds here.
        raw = __dadd_rn(__dadd_rn(__dmul_rn(0.2126, sample_at(s, row, i)),
                                  __dmul_rn(0.7152, sample_at(s, row, i + 1))),
                        __dmul_rn(0.0722, sample_at(s, row, i + 2)));
    }
    dst.row(y)[x] = static_cast<float>(__dadd_rn(__dmul_rn(slope, raw), intercept));
}

// native.cpp's level_of_integer: round((v − lo) · top / (hi − lo)) in 64-bit integers.
__device__ long long level_of_integer(const long long v, const long long lo, const long long hi,
                                      const long long top) {
    if (hi <= lo) return 0;
    const long long clamped = v < lo ? lo : (v > hi ? hi : v);
    return ((clamped - lo) * top * 2 + (hi - lo)) / (2 * (hi - lo));
}

// native.cpp's level_of_float, each step rounded as the host's (no contraction).
__device__ long long level_of_float(const double v, const double lo, const double hi,
                                    const long long top) {
    if (!isfinite(v) || !(hi > lo)) return 0;
    double t = __ddiv_rn(__dsub_rn(v, lo), __dsub_rn(hi, lo));
    t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
    return llround(__dmul_rn(t, static_cast<double>(top)));
}

__global__ void deep_decision_kernel(const RawSamples s, const double lo, const double hi,
                                     const ImageView<Rgba16> dst) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= s.width || y >= s.height) return;
    const std::uint8_t* row = s.data + s.pitch * static_cast<std::size_t>(y);
    const int colours = s.channels < 3 ? s.channels : 3;
    // The host truncates the range to integers for integer samples.
    const auto ilo = static_cast<long long>(lo), ihi = static_cast<long long>(hi);
    std::uint16_t level[3];
    for (int c = 0; c < 3; ++c) {
        const double v = sample_at(s, row, x * s.channels + (c < colours ? c : colours - 1));
        level[c] = static_cast<std::uint16_t>(
            s.sample_type == 3 ? level_of_float(v, lo, hi, 65535)
                               : level_of_integer(static_cast<long long>(v), ilo, ihi, 65535));
    }
    dst.row(y)[x] = Rgba16{level[0], level[1], level[2], 65535};
}

__global__ void finite_min_max_kernel(const ImageView<const float> plane, float* block_lo,
                                      float* block_hi) {
    __shared__ float lo[256], hi[256];
    float my_lo = CUDART_INF_F, my_hi = -CUDART_INF_F;
    const long long n = static_cast<long long>(plane.width) * plane.height;
    for (long long k = blockIdx.x * 256ll + threadIdx.x; k < n; k += 256ll * gridDim.x) {
        const float v = plane.row(static_cast<int>(k / plane.width))[k % plane.width];
        if (isfinite(v)) {
            my_lo = fminf(my_lo, v);
            my_hi = fmaxf(my_hi, v);
        }
    }
    lo[threadIdx.x] = my_lo;
    hi[threadIdx.x] = my_hi;
    __syncthreads();
    for (int step = 128; step > 0; step >>= 1) {
        if (threadIdx.x < step) {
            lo[threadIdx.x] = fminf(lo[threadIdx.x], lo[threadIdx.x + step]);
            hi[threadIdx.x] = fmaxf(hi[threadIdx.x], hi[threadIdx.x + step]);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        block_lo[blockIdx.x] = lo[0];
        block_hi[blockIdx.x] = hi[0];
    }
}

}  // namespace

cudaError_t launch_measurement_plane(const RawSamples& src, const double slope,
                                     const double intercept, const ImageView<float>& dst,
                                     const cudaStream_t stream) {
    const dim3 block(32, 8);
    const dim3 grid((src.width + block.x - 1) / block.x, (src.height + block.y - 1) / block.y);
    measurement_plane_kernel<<<grid, block, 0, stream>>>(src, slope, intercept, dst);
    return cudaGetLastError();
}

cudaError_t launch_deep_decision(const RawSamples& src, const double lo, const double hi,
                                 const ImageView<Rgba16>& dst, const cudaStream_t stream) {
    const dim3 block(32, 8);
    const dim3 grid((src.width + block.x - 1) / block.x, (src.height + block.y - 1) / block.y);
    deep_decision_kernel<<<grid, block, 0, stream>>>(src, lo, hi, dst);
    return cudaGetLastError();
}

cudaError_t launch_finite_min_max(const ImageView<const float>& plane, float* block_lo,
                                  float* block_hi, const int blocks, const cudaStream_t stream) {
    finite_min_max_kernel<<<blocks, 256, 0, stream>>>(plane, block_lo, block_hi);
    return cudaGetLastError();
}

}  // namespace lacuna::kernels
