// Seam carving on the device, one seam at a time with no host round trip: energies, the
// cumulative-cost map in a single block that walks down the rows (the DP is a chain of dependent
// rows: one block with barriers beats a launch per row, see docs/GPU.md), the leftmost argmin and
// the walk back in that same block, then an out-of-place removal. Integer costs and the CPU's
// tie-break rules, so the seams equal the reference's.
#include <lacuna/kernels/seam_kernels.h>

namespace lacuna::kernels {
namespace {

constexpr int kDpThreads = 1024;

struct DeviceRows {
    const Rgba8* base;
    int stride;
    __device__ const Rgba8* operator()(const int y) const {
        return base + static_cast<std::size_t>(y) * stride;
    }
};

// Leftmost minimum of the last row, then the walk back along the stored parents (one thread: a
// chain of dependent loads), with the mask counts of the seam.
template <class Cost>
__device__ void argmin_and_walk_back(const SeamState& s, const Cost* last, const int seam_index) {
    // Leftmost minimum of the last row.
    __shared__ std::int64_t best_value[kDpThreads / 32];
    __shared__ int best_x[kDpThreads / 32];
    std::int64_t v = INT64_MAX;
    int bx = INT32_MAX;
    for (int x = threadIdx.x; x < s.width; x += blockDim.x) {
        const std::int64_t c = last[x];
        if (c < v) {  // x grows: keeps the leftmost among equals
            v = c;
            bx = x;
        }
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        const std::int64_t ov = __shfl_down_sync(0xffffffffu, v, offset);
        const int ox = __shfl_down_sync(0xffffffffu, bx, offset);
        if (ov < v || (ov == v && ox < bx)) {
            v = ov;
            bx = ox;
        }
    }
    if (threadIdx.x % 32 == 0) {
        best_value[threadIdx.x / 32] = v;
        best_x[threadIdx.x / 32] = bx;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < static_cast<int>(blockDim.x / 32); ++w) {
            if (best_value[w] < v || (best_value[w] == v && best_x[w] < bx)) {
                v = best_value[w];
                bx = best_x[w];
            }
        }
        s.seam_costs[seam_index] = v;
        int x = bx;
        std::int32_t crossed_protect = 0, crossed_remove = 0;
        for (int y = s.height - 1; y >= 0; --y) {
            const std::size_t k = static_cast<std::size_t>(y) * s.stride + x;
            s.seam[y] = x;
            if (s.protect != nullptr) {
                crossed_protect += s.protect[k] != 0;
                crossed_remove += s.remove[k] != 0;
            }
            if (y > 0) x += s.parent[k];
        }
        s.protected_crossed[seam_index] = crossed_protect;
        s.remove_crossed[seam_index] = crossed_remove;
    }
}

__global__ void energy_kernel(const SeamState s) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y;
    if (x >= s.width) return;
    const ClampedRgb<DeviceRows> pixels{DeviceRows{s.image, s.stride}, s.width, s.height};
    s.pixel_energy[static_cast<std::size_t>(y) * s.stride + x] =
        static_cast<std::int16_t>(pixel_energy(pixels, s.energy, x, y));
}

/// Everything a DP cell needs besides the row above, precomputed in parallel so the dependent
/// chain of rows only waits on shared memory: the pixel's own energy and the three forward-energy
/// transition costs (from the left, from above, from the right; zero for backward energies).
struct CellTerms {
    std::int16_t own, from_left, from_above, from_right;
};

__global__ void terms_kernel(const SeamState s, CellTerms* terms) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y;
    if (x >= s.width) return;
    const ClampedRgb<DeviceRows> pixels{DeviceRows{s.image, s.stride}, s.width, s.height};
    CellTerms t{};
    if (s.energy == SeamEnergy::Forward) {
        t.from_left = static_cast<std::int16_t>(forward_cost(pixels, x, y, -1));
        t.from_above = static_cast<std::int16_t>(forward_cost(pixels, x, y, 0));
        t.from_right = static_cast<std::int16_t>(forward_cost(pixels, x, y, 1));
    } else {
        t.own = static_cast<std::int16_t>(pixel_energy(pixels, s.energy, x, y));
    }
    terms[static_cast<std::size_t>(y) * s.stride + x] = t;
}

constexpr int kMaxCellsPerThread = 4;  ///< rows up to 4096 pixels take the prefetching DP

// The DP with each thread's cells of the next row fetched into registers while the current row
// is computed, so global-memory latency never sits on the chain of rows. Costs in shared memory.
template <class Cost, int Cells>
__global__ void __launch_bounds__(kDpThreads)
    dp_prefetch_kernel(const SeamState s, const CellTerms* terms, const int seam_index) {
    extern __shared__ unsigned char shared_bytes[];
    Cost* rows = reinterpret_cast<Cost*>(shared_bytes);
    const bool masks = s.protect != nullptr;
    CellTerms next[Cells];
    std::int64_t next_mask[Cells];
    const auto fetch = [&](const int y) {
        const std::size_t row = static_cast<std::size_t>(y) * s.stride;
        for (int c = 0; c < Cells; ++c) {
            const int x = threadIdx.x + c * blockDim.x;
            if (x < s.width) {
                next[c] = terms[row + x];
                next_mask[c] = masks ? mask_term(s.protect[row + x], s.remove[row + x]) : 0;
            }
        }
    };
    fetch(0);
    for (int c = 0; c < Cells; ++c) {
        const int x = threadIdx.x + c * blockDim.x;
        if (x < s.width)
            rows[x] =
                static_cast<Cost>(std::int64_t{next[c].own} + next_mask[c] + next[c].from_above);
    }
    if (s.height > 1) fetch(1);
    __syncthreads();
    for (int y = 1; y < s.height; ++y) {
        CellTerms current[Cells];
        std::int64_t current_mask[Cells];
        for (int c = 0; c < Cells; ++c) {
            current[c] = next[c];
            current_mask[c] = next_mask[c];
        }
        if (y + 1 < s.height) fetch(y + 1);
        const Cost* above = rows + ((y - 1) & 1) * s.width;
        Cost* out = rows + (y & 1) * s.width;
        const std::size_t row = static_cast<std::size_t>(y) * s.stride;
        for (int c = 0; c < Cells; ++c) {
            const int x = threadIdx.x + c * blockDim.x;
            if (x >= s.width) continue;
            // Left first, strict improvement: the reference's tie-break.
            std::int64_t best = 0;
            int best_d = 2;
            if (x > 0) {
                best = std::int64_t{above[x - 1]} + current[c].from_left;
                best_d = -1;
            }
            const std::int64_t mid = std::int64_t{above[x]} + current[c].from_above;
            if (best_d == 2 || mid < best) {
                best = mid;
                best_d = 0;
            }
            if (x + 1 < s.width) {
                const std::int64_t right = std::int64_t{above[x + 1]} + current[c].from_right;
                if (right < best) {
                    best = right;
                    best_d = 1;
                }
            }
            out[x] = static_cast<Cost>(best + current[c].own + current_mask[c]);
            s.parent[row + x] = static_cast<std::int8_t>(best_d);
        }
        __syncthreads();
    }
    argmin_and_walk_back<Cost>(s, rows + ((s.height - 1) & 1) * s.width, seam_index);
}

template <class Cost>
__device__ std::int64_t own_cost(const SeamState& s, const std::size_t k) {
    std::int64_t own = s.energy == SeamEnergy::Forward ? 0 : s.pixel_energy[k];
    if (s.protect != nullptr) own += mask_term(s.protect[k], s.remove[k]);
    return own;
}

// The cumulative costs of row y: in shared memory (two rows, ping-pong) when they fit, which takes
// the global-memory round trip out of the chain of dependent rows; else the full map in global.
template <class Cost, bool Shared>
__device__ Cost* cost_row(const SeamState& s, Cost* shared_rows, const int y) {
    if constexpr (Shared) return shared_rows + (y & 1) * s.width;
    return static_cast<Cost*>(s.cost) + static_cast<std::size_t>(y) * s.stride;
}

template <class Cost, bool Shared>
__global__ void __launch_bounds__(kDpThreads) dp_kernel(const SeamState s, const int seam_index) {
    extern __shared__ unsigned char shared_bytes[];
    Cost* shared_rows = reinterpret_cast<Cost*>(shared_bytes);
    const ClampedRgb<DeviceRows> pixels{DeviceRows{s.image, s.stride}, s.width, s.height};
    const bool forward = s.energy == SeamEnergy::Forward;
    Cost* first = cost_row<Cost, Shared>(s, shared_rows, 0);
    for (int x = threadIdx.x; x < s.width; x += blockDim.x) {
        first[x] =
            static_cast<Cost>(own_cost<Cost>(s, x) + (forward ? forward_cost(pixels, x, 0, 0) : 0));
    }
    __syncthreads();
    for (int y = 1; y < s.height; ++y) {
        const std::size_t row = static_cast<std::size_t>(y) * s.stride;
        const Cost* above = cost_row<Cost, Shared>(s, shared_rows, y - 1);
        Cost* current = cost_row<Cost, Shared>(s, shared_rows, y);
        for (int x = threadIdx.x; x < s.width; x += blockDim.x) {
            std::int64_t best = 0;
            int best_d = 2;
            for (int d = -1; d <= 1; ++d) {  // left first, strict improvement: the reference's rule
                if (x + d < 0 || x + d >= s.width) continue;
                const std::int64_t c = static_cast<std::int64_t>(above[x + d]) +
                                       (forward ? forward_cost(pixels, x, y, d) : 0);
                if (best_d == 2 || c < best) {
                    best = c;
                    best_d = d;
                }
            }
            current[x] = static_cast<Cost>(best + own_cost<Cost>(s, row + x));
            s.parent[row + x] = static_cast<std::int8_t>(best_d);
        }
        __syncthreads();
    }
    argmin_and_walk_back<Cost>(s, cost_row<Cost, Shared>(s, shared_rows, s.height - 1), seam_index);
}

__global__ void remove_kernel(const SeamState s, const int seam_index) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y;
    const int cut = s.seam[y];
    const std::size_t row = static_cast<std::size_t>(y) * s.stride;
    if (x == 0) s.order[s.index[row + cut]] = seam_index;
    if (x >= s.width - 1) return;
    const std::size_t from = row + (x < cut ? x : x + 1);
    s.image_out[row + x] = s.image[from];
    s.index_out[row + x] = s.index[from];
    if (s.protect != nullptr) {
        s.protect_out[row + x] = s.protect[from];
        s.remove_out[row + x] = s.remove[from];
    }
}

// One block per row: a block-wide prefix count of the kept pixels gives each its output column.
__global__ void compact_kernel(const Rgba8* src, const std::int32_t* order, const int width,
                               const int count, Rgba8* dst, const int dst_stride) {
    __shared__ int warp_sums[32];
    __shared__ int carry;
    const int y = blockIdx.x;
    const Rgba8* in = src + static_cast<std::size_t>(y) * width;
    const std::int32_t* o = order + static_cast<std::size_t>(y) * width;
    Rgba8* out = dst + static_cast<std::size_t>(y) * dst_stride;
    if (threadIdx.x == 0) carry = 0;
    __syncthreads();
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int base = 0; base < width; base += blockDim.x) {
        const int x = base + threadIdx.x;
        const int keep = x < width && o[x] >= count;
        const unsigned ballot = __ballot_sync(0xffffffffu, keep);
        const int before_in_warp = __popc(ballot & ((1u << lane) - 1u));
        if (lane == 0) warp_sums[warp] = __popc(ballot);
        __syncthreads();
        int before = carry + before_in_warp;
        for (int w = 0; w < warp; ++w) before += warp_sums[w];
        if (keep) out[before] = in[x];
        __syncthreads();
        if (threadIdx.x == 0) {
            for (int w = 0; w < static_cast<int>(blockDim.x / 32); ++w) carry += warp_sums[w];
        }
        __syncthreads();
    }
}

// Two rows of costs in shared memory when they fit the device's opt-in limit (227 KiB on Hopper:
// rows up to 29 000 pixels with 32-bit costs); otherwise the global-memory version.
template <class Cost, int Cells>
void launch_prefetch(const SeamState& s, const int seam_index, const std::size_t bytes,
                     const cudaStream_t stream) {
    static bool configured = false;
    if (!configured) {
        int device = 0, max_shared = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&max_shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
        cudaFuncSetAttribute(dp_prefetch_kernel<Cost, Cells>,
                             cudaFuncAttributeMaxDynamicSharedMemorySize, max_shared - 1024);
        configured = true;
    }
    dp_prefetch_kernel<Cost, Cells>
        <<<1, kDpThreads, bytes, stream>>>(s, static_cast<const CellTerms*>(s.terms), seam_index);
}

template <class Cost>
void launch_dp(const SeamState& s, const int seam_index, const cudaStream_t stream) {
    static int max_shared = -1;  // per process: the device does not change under us
    if (max_shared < 0) {
        int device = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&max_shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
        cudaFuncSetAttribute(dp_kernel<Cost, true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             max_shared - 1024);
    }
    const std::size_t bytes = 2 * static_cast<std::size_t>(s.width) * sizeof(Cost);
    const int cells = (s.width + kDpThreads - 1) / kDpThreads;
    if (s.terms != nullptr && cells <= kMaxCellsPerThread &&
        bytes + 1024 <= static_cast<std::size_t>(max_shared)) {
        const dim3 rows_grid(static_cast<unsigned>((s.width + 255) / 256),
                             static_cast<unsigned>(s.height));
        terms_kernel<<<rows_grid, 256, 0, stream>>>(s, static_cast<CellTerms*>(s.terms));
        switch (cells) {
            case 1:
                launch_prefetch<Cost, 1>(s, seam_index, bytes, stream);
                break;
            case 2:
                launch_prefetch<Cost, 2>(s, seam_index, bytes, stream);
                break;
            case 3:
                launch_prefetch<Cost, 3>(s, seam_index, bytes, stream);
                break;
            default:
                launch_prefetch<Cost, 4>(s, seam_index, bytes, stream);
                break;
        }
        return;
    }
    if (s.energy != SeamEnergy::Forward) {
        const dim3 rows_grid(static_cast<unsigned>((s.width + 255) / 256),
                             static_cast<unsigned>(s.height));
        energy_kernel<<<rows_grid, 256, 0, stream>>>(s);
    }
    if (bytes + 1024 <= static_cast<std::size_t>(max_shared)) {
        dp_kernel<Cost, true><<<1, kDpThreads, bytes, stream>>>(s, seam_index);
    } else {
        dp_kernel<Cost, false><<<1, kDpThreads, 0, stream>>>(s, seam_index);
    }
}

}  // namespace

cudaError_t launch_carve_one_seam(const SeamState& s, const int seam_index,
                                  const cudaStream_t stream) {
    const dim3 rows_grid(static_cast<unsigned>((s.width + 255) / 256),
                         static_cast<unsigned>(s.height));
    if (s.protect != nullptr) {
        launch_dp<std::int64_t>(s, seam_index, stream);
    } else {
        launch_dp<std::int32_t>(s, seam_index, stream);
    }
    remove_kernel<<<rows_grid, 256, 0, stream>>>(s, seam_index);
    return cudaGetLastError();
}

cudaError_t launch_compact_rows(const Rgba8* src, const std::int32_t* order, const int width,
                                const int height, const int count, Rgba8* dst, const int dst_stride,
                                const cudaStream_t stream) {
    compact_kernel<<<static_cast<unsigned>(height), 256, 0, stream>>>(src, order, width, count, dst,
                                                                      dst_stride);
    return cudaGetLastError();
}

}  // namespace lacuna::kernels
