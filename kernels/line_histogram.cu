// Line histogram: one block per (position, channel). The band's samples go to shared memory,
// bins are counted with shared atomics, and the profile (sum, min, max in band order; the median
// by rank selection) is computed from the same values in the same order as the CPU reference.
// Direction histogram: one block per (column, channel), rows clipped to the image analytically.
#include <lacuna/kernels/line_histogram_kernels.h>

namespace lacuna::kernels {
namespace {

constexpr int kLineThreads = 128;
constexpr int kDirectionThreads = 256;

__device__ void rank_select(const float* values, const int n_all, const int k, const float v,
                            float* out) {
    int less = 0, equal = 0;
    for (int m = 0; m < n_all; ++m) {
        const float w = values[m];
        less += w < v;
        equal += w == v;
    }
    if (less <= k && k < less + equal) *out = v;
}

__global__ void line_histogram_kernel(const LineHistogramArgs a, const bool shared_bins) {
    extern __shared__ unsigned char shared[];
    const LineGeometry& g = a.geometry;
    float* values = reinterpret_cast<float*>(shared);
    std::uint32_t* hist = reinterpret_cast<std::uint32_t*>(values + g.band);
    __shared__ unsigned int s_outside, s_out_of_range, s_valid;
    __shared__ float s_median_lo, s_median_hi;

    const int i = blockIdx.x;
    const int c = blockIdx.y;
    const int bins = a.mapping.bins;
    const ImageView<const float> plane = a.planes.plane[c];
    const std::size_t slot = static_cast<std::size_t>(c) * g.positions + i;
    std::uint32_t* out = a.counts + slot * bins;

    if (threadIdx.x == 0) s_outside = s_out_of_range = 0;
    if (shared_bins) {
        for (int b = threadIdx.x; b < bins; b += blockDim.x) hist[b] = 0;
    }
    __syncthreads();

    unsigned int outside = 0, out_of_range = 0;
    for (int j = threadIdx.x; j < g.band; j += blockDim.x) {
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
    if (outside) atomicAdd(&s_outside, outside);
    if (out_of_range) atomicAdd(&s_out_of_range, out_of_range);
    __syncthreads();

    if (shared_bins) {
        for (int b = threadIdx.x; b < bins; b += blockDim.x) out[b] = hist[b];
    }
    if (threadIdx.x == 0) {
        // Band order, double accumulation: the reference's arithmetic exactly.
        double sum = 0;
        unsigned int n = 0;
        float lo = INFINITY, hi = -INFINITY;
        for (int j = 0; j < g.band; ++j) {
            const float v = values[j];
            if (isnan(v)) continue;
            sum += v;
            ++n;
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        s_valid = n;
        a.samples[slot] = n;
        a.mean[slot] = n ? static_cast<float>(sum / static_cast<double>(n)) : NAN;
        a.min[slot] = n ? lo : NAN;
        a.max[slot] = n ? hi : NAN;
        s_median_lo = s_median_hi = NAN;
        if (s_outside && c == 0) atomicAdd(&a.counters[0], static_cast<unsigned long long>(s_outside));
        if (s_out_of_range) atomicAdd(&a.counters[1], static_cast<unsigned long long>(s_out_of_range));
    }
    __syncthreads();
    const int n = static_cast<int>(s_valid);
    if (n > 0) {
        // NaN entries never compare less or equal, so ranks count valid samples only.
        for (int j = threadIdx.x; j < g.band; j += blockDim.x) {
            const float v = values[j];
            if (isnan(v)) continue;
            rank_select(values, g.band, n / 2, v, &s_median_hi);
            if (n % 2 == 0) rank_select(values, g.band, n / 2 - 1, v, &s_median_lo);
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        a.median[slot] = n == 0       ? NAN
                         : n % 2 == 1 ? s_median_hi
                                      : static_cast<float>((static_cast<double>(s_median_lo) + s_median_hi) / 2.0);
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
        if (c == 0) atomicAdd(&a.counters[0], static_cast<unsigned long long>(g.extent - static_cast<int>(s_inside)));
        if (s_out_of_range) atomicAdd(&a.counters[1], static_cast<unsigned long long>(s_out_of_range));
    }
}

}  // namespace

cudaError_t launch_line_histogram(const LineHistogramArgs& args, const cudaStream_t stream) {
    const bool shared_bins = args.mapping.bins <= kMaxSharedHistogramBins;
    const std::size_t shared_bytes = static_cast<std::size_t>(args.geometry.band) * sizeof(float) +
                                     (shared_bins ? static_cast<std::size_t>(args.mapping.bins) * 4 : 0);
    const dim3 grid(static_cast<unsigned>(args.geometry.positions), static_cast<unsigned>(args.planes.count));
    line_histogram_kernel<<<grid, kLineThreads, shared_bytes, stream>>>(args, shared_bins);
    return cudaGetLastError();
}

cudaError_t launch_direction_histogram(const DirectionHistogramArgs& args, const cudaStream_t stream) {
    const bool shared_bins = args.mapping.bins <= kMaxSharedHistogramBins;
    const std::size_t shared_bytes = shared_bins ? static_cast<std::size_t>(args.mapping.bins) * 4 : 0;
    const dim3 grid(static_cast<unsigned>(args.geometry.extent), static_cast<unsigned>(args.planes.count));
    direction_histogram_kernel<<<grid, kDirectionThreads, shared_bytes, stream>>>(args, shared_bins);
    return cudaGetLastError();
}

}  // namespace lacuna::kernels
