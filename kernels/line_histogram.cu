// Line histogram: one block per (position, channel). The band's samples go to shared memory,
// bins are counted with shared atomics, and the profile (sum, min, max in band order; the median
// by rank selection) is computed from the same values in the same order as the CPU reference.
// Direction histogram: one block per (column, channel), rows clipped to the image analytically.
#include <lacuna/kernels/line_histogram_kernels.h>

#include <algorithm>

namespace lacuna::kernels {
namespace {

constexpr int kLineWarps = 4;
constexpr int kDirectionThreads = 256;

// Sort order with NaN (excluded samples, padding) after every number.
__device__ __forceinline__ bool sorts_after(const float a, const float b) {
    return isnan(a) ? !isnan(b) : (!isnan(b) && a > b);
}

// Bitonic sort of `n` (a power of two) values in shared memory by one warp.
__device__ void warp_bitonic_sort(float* values, const int n, const int lane) {
    for (int k = 2; k <= n; k <<= 1) {
        for (int j = k >> 1; j > 0; j >>= 1) {
            for (int t = lane; t < n; t += 32) {
                const int partner = t ^ j;
                if (partner > t) {
                    const float a = values[t], b = values[partner];
                    const bool ascending = (t & k) == 0;
                    if (ascending ? sorts_after(a, b) : sorts_after(b, a)) {
                        values[t] = b;
                        values[partner] = a;
                    }
                }
            }
            __syncwarp();
        }
    }
}

__host__ __device__ inline int next_pow2(const int v) {
    int p = 1;
    while (p < v) p <<= 1;
    return p;
}

// One warp per (position, channel), several positions per block: a band is short (1..2048
// samples), so a whole block per position would spend its time on barriers and scheduling.
__global__ void line_histogram_kernel(const LineHistogramArgs a, const bool shared_bins,
                                      const int warps_per_block) {
    extern __shared__ unsigned char shared[];
    const LineGeometry& g = a.geometry;
    const int warp = static_cast<int>(threadIdx.x) / 32;
    const int lane = static_cast<int>(threadIdx.x) % 32;
    const int bins = a.mapping.bins;
    const int sort_size = next_pow2(g.band);
    const std::size_t per_warp = static_cast<std::size_t>(sort_size) + (shared_bins ? bins : 0);
    float* values = reinterpret_cast<float*>(shared) + static_cast<std::size_t>(warp) * per_warp;
    std::uint32_t* hist = reinterpret_cast<std::uint32_t*>(values + sort_size);

    const int i = static_cast<int>(blockIdx.x) * warps_per_block + warp;
    if (i >= g.positions) return;  // whole warps leave together; no block-wide barriers follow
    const int c = blockIdx.y;
    const ImageView<const float> plane = a.planes.plane[c];
    const std::size_t slot = static_cast<std::size_t>(c) * g.positions + i;
    std::uint32_t* out = a.counts + slot * bins;

    if (shared_bins) {
        for (int b = lane; b < bins; b += 32) hist[b] = 0;
    }
    for (int j = g.band + lane; j < sort_size; j += 32) values[j] = NAN;  // padding sorts last
    __syncwarp();
    unsigned int outside = 0, out_of_range = 0;
    for (int j = lane; j < g.band; j += 32) {
        double x, y;
        line_sample_point(g, i, j, x, y);
        float v;
        if (!sample_plane(plane, a.sampling, x, y, v)) {
            values[j] = NAN;
            ++outside;
            continue;
        }
        values[j] = v;
        const int bin = value_to_bin(a.mapping, v);
        if (bin < 0) {
            ++out_of_range;
        } else {
            atomicAdd(shared_bins ? &hist[bin] : &out[bin], 1u);
        }
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        outside += __shfl_down_sync(0xffffffffu, outside, offset);
        out_of_range += __shfl_down_sync(0xffffffffu, out_of_range, offset);
    }
    __syncwarp();
    if (shared_bins) {
        for (int b = lane; b < bins; b += 32) out[b] = hist[b];
    }
    // Count, sum, min and max across the warp. The sum is a tree in double, so the mean can differ
    // from the reference's left-to-right sum in its last float bit (tests allow one ulp); min,
    // max and median are exact.
    double sum = 0;
    unsigned int n = 0;
    float lo = INFINITY, hi = -INFINITY;
    for (int j = lane; j < g.band; j += 32) {
        const float v = values[j];
        if (isnan(v)) continue;
        sum += v;
        ++n;
        lo = fminf(lo, v);
        hi = fmaxf(hi, v);
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        sum += __shfl_xor_sync(0xffffffffu, sum, offset);
        n += __shfl_xor_sync(0xffffffffu, n, offset);
        lo = fminf(lo, __shfl_xor_sync(0xffffffffu, lo, offset));
        hi = fmaxf(hi, __shfl_xor_sync(0xffffffffu, hi, offset));
    }
    if (lane == 0) {
        a.samples[slot] = n;
        a.outside[slot] = outside;
        a.out_of_range[slot] = out_of_range;
        a.mean[slot] = n ? static_cast<float>(sum / static_cast<double>(n)) : NAN;
        a.min[slot] = n ? lo : NAN;
        a.max[slot] = n ? hi : NAN;
    }
    __syncwarp();
    // The median from the sorted band (sum, min and max above used band order, like the reference).
    warp_bitonic_sort(values, sort_size, lane);
    if (lane == 0) {
        a.median[slot] = n == 0 ? NAN
                         : n % 2 == 1
                             ? values[n / 2]
                             : static_cast<float>(
                                   (static_cast<double>(values[n / 2 - 1]) + values[n / 2]) / 2.0);
    }
}

__global__ void direction_histogram_kernel(const DirectionHistogramArgs a, const bool shared_bins) {
    extern __shared__ unsigned char shared[];
    std::uint32_t* hist = reinterpret_cast<std::uint32_t*>(shared);
    __shared__ unsigned int s_inside, s_out_of_range;
    const DirectionGeometry& g = a.geometry;
    const int column = blockIdx.x;
    const int c = blockIdx.y;
    const int bins = a.mapping.bins;
    const ImageView<const float> plane = a.planes.plane[c];
    std::uint32_t* out = a.counts + (static_cast<std::size_t>(c) * g.extent + column) * bins;

    if (threadIdx.x == 0) s_inside = s_out_of_range = 0;
    if (shared_bins) {
        for (int b = threadIdx.x; b < bins; b += blockDim.x) hist[b] = 0;
    }
    __syncthreads();
    int first, last;
    direction_row_range(g, column, a.width, a.height, first, last);
    unsigned int inside = 0, out_of_range = 0;
    for (int row = first + threadIdx.x; row <= last; row += blockDim.x) {
        double x, y;
        direction_sample_point(g, column, row, x, y);
        float v;
        if (!sample_plane(plane, a.sampling, x, y, v)) continue;
        ++inside;
        const int bin = value_to_bin(a.mapping, v);
        if (bin < 0) {
            ++out_of_range;
        } else {
            atomicAdd(shared_bins ? &hist[bin] : &out[bin], 1u);
        }
    }
    if (inside) atomicAdd(&s_inside, inside);
    if (out_of_range) atomicAdd(&s_out_of_range, out_of_range);
    __syncthreads();
    if (shared_bins) {
        for (int b = threadIdx.x; b < bins; b += blockDim.x) out[b] = hist[b];
    }
    if (threadIdx.x == 0) {
        if (c == 0)
            atomicAdd(&a.counters[0],
                      static_cast<unsigned long long>(g.extent - static_cast<int>(s_inside)));
        if (s_out_of_range)
            atomicAdd(&a.counters[1], static_cast<unsigned long long>(s_out_of_range));
    }
}

// The planes of a photo: luminance709 (as lacuna::luminance), then R, G, B as floats.
__global__ void histogram_planes_kernel(const ImageView<const Rgba8> src, const PhotoPlanes dst) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= src.width || y >= src.height) return;
    const Rgba8 p = src.row(y)[x];
    dst.luminance.row(y)[x] = luminance709(p);
    dst.red.row(y)[x] = static_cast<float>(p.r);
    dst.green.row(y)[x] = static_cast<float>(p.g);
    dst.blue.row(y)[x] = static_cast<float>(p.b);
}

}  // namespace

cudaError_t launch_histogram_planes(const ImageView<const Rgba8>& src, const PhotoPlanes& dst,
                                    const cudaStream_t stream) {
    if (src.empty()) return cudaSuccess;
    const dim3 block(32, 8);
    const dim3 grid((src.width + block.x - 1) / block.x, (src.height + block.y - 1) / block.y);
    histogram_planes_kernel<<<grid, block, 0, stream>>>(src, dst);
    return cudaGetLastError();
}

cudaError_t launch_line_histogram(const LineHistogramArgs& args, const cudaStream_t stream) {
    const bool shared_bins = args.mapping.bins <= kMaxSharedHistogramBins;
    const std::size_t per_warp = (static_cast<std::size_t>(next_pow2(args.geometry.band)) +
                                  (shared_bins ? static_cast<std::size_t>(args.mapping.bins) : 0)) *
                                 4;
    // As many positions per block as fit in the 48 KiB of shared memory a launch may use without
    // opting in, at most kLineWarps.
    const int warps = static_cast<int>(
        std::max<std::size_t>(1, std::min<std::size_t>(kLineWarps, (48u << 10) / per_warp)));
    const dim3 grid(static_cast<unsigned>((args.geometry.positions + warps - 1) / warps),
                    static_cast<unsigned>(args.planes.count));
    line_histogram_kernel<<<grid, warps * 32, per_warp * warps, stream>>>(args, shared_bins, warps);
    return cudaGetLastError();
}

cudaError_t launch_direction_histogram(const DirectionHistogramArgs& args,
                                       const cudaStream_t stream) {
    const bool shared_bins = args.mapping.bins <= kMaxSharedHistogramBins;
    const std::size_t shared_bytes =
        shared_bins ? static_cast<std::size_t>(args.mapping.bins) * 4 : 0;
    const dim3 grid(static_cast<unsigned>(args.geometry.extent),
                    static_cast<unsigned>(args.planes.count));
    direction_histogram_kernel<<<grid, kDirectionThreads, shared_bytes, stream>>>(args,
                                                                                  shared_bins);
    return cudaGetLastError();
}

}  // namespace lacuna::kernels
