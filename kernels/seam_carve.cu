// Seam carving on the device, one seam at a time with no host round trip: per-cell terms, the
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

/// Everything a DP cell needs besides the row above, precomputed in parallel so the dependent
/// chain of rows does not recompute it: the pixel's own energy (with its mask term) and the three
/// forward-energy transition costs (from the left, from above, from the right; zero for the
/// backward energies).
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

__device__ std::int64_t mask_of(const SeamState& s, const std::size_t k) {
    return s.protect != nullptr ? mask_term(s.protect[k], s.remove[k]) : 0;
}

/// One cell of the recurrence with the reference's tie-break (left first, strict improvement).
/// Returns the cell's cost; `parent` receives -1, 0 or 1.
template <class Cost>
__device__ std::int64_t dp_cell(const Cost* above, const int x, const int width, const CellTerms t,
                                const std::int64_t mask, int& parent) {
    std::int64_t best = 0;
    parent = 2;
    if (x > 0) {
        best = std::int64_t{above[x - 1]} + t.from_left;
        parent = -1;
    }
    const std::int64_t mid = std::int64_t{above[x]} + t.from_above;
    if (parent == 2 || mid < best) {
        best = mid;
        parent = 0;
    }
    if (x + 1 < width) {
        const std::int64_t right = std::int64_t{above[x + 1]} + t.from_right;
        if (right < best) {
            best = right;
            parent = 1;
        }
    }
    return best + t.own + mask;
}

// Rows up to 4 × 1024 pixels (up to 4 cells per thread, see launch_dp): each thread's cells of the
// next row are fetched into registers while the current row is computed, so global-memory latency
// never sits on the chain of rows; costs live in shared memory (two rows, ping-pong).
template <class Cost, int Cells>
__global__ void __launch_bounds__(kDpThreads)
    dp_prefetch_kernel(const SeamState s, const CellTerms* terms, const int seam_index) {
    extern __shared__ unsigned char shared_bytes[];
    Cost* rows = reinterpret_cast<Cost*>(shared_bytes);
    CellTerms next[Cells];
    std::int64_t next_mask[Cells];
    const auto fetch = [&](const int y) {
        const std::size_t row = static_cast<std::size_t>(y) * s.stride;
        for (int c = 0; c < Cells; ++c) {
            const int x = threadIdx.x + c * blockDim.x;
            if (x < s.width) {
                next[c] = terms[row + x];
                next_mask[c] = mask_of(s, row + x);
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
            int parent = 0;
            out[x] =
                static_cast<Cost>(dp_cell(above, x, s.width, current[c], current_mask[c], parent));
            s.parent[row + x] = static_cast<std::int8_t>(parent);
        }
        __syncthreads();
    }
    argmin_and_walk_back<Cost>(s, rows + ((s.height - 1) & 1) * s.width, seam_index);
}

// The cumulative costs of row y: in shared memory (two rows, ping-pong) when they fit, else the
// full map in global memory (rows wider than the shared-memory limit).
template <class Cost, bool Shared>
__device__ Cost* cost_row(const SeamState& s, Cost* shared_rows, const int y) {
    if constexpr (Shared) return shared_rows + (y & 1) * s.width;
    return static_cast<Cost*>(s.cost) + static_cast<std::size_t>(y) * s.stride;
}

// Wider rows: the same recurrence, terms read as each row is computed.
template <class Cost, bool Shared>
__global__ void __launch_bounds__(kDpThreads)
    dp_kernel(const SeamState s, const CellTerms* terms, const int seam_index) {
    extern __shared__ unsigned char shared_bytes[];
    Cost* shared_rows = reinterpret_cast<Cost*>(shared_bytes);
    Cost* first = cost_row<Cost, Shared>(s, shared_rows, 0);
    for (int x = threadIdx.x; x < s.width; x += blockDim.x) {
        first[x] =
            static_cast<Cost>(std::int64_t{terms[x].own} + mask_of(s, x) + terms[x].from_above);
    }
    __syncthreads();
    for (int y = 1; y < s.height; ++y) {
        const std::size_t row = static_cast<std::size_t>(y) * s.stride;
        const Cost* above = cost_row<Cost, Shared>(s, shared_rows, y - 1);
        Cost* current = cost_row<Cost, Shared>(s, shared_rows, y);
        for (int x = threadIdx.x; x < s.width; x += blockDim.x) {
            int parent = 0;
            current[x] = static_cast<Cost>(
                dp_cell(above, x, s.width, terms[row + x], mask_of(s, row + x), parent));
            s.parent[row + x] = static_cast<std::int8_t>(parent);
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

// Lets `Kernel` use the device's whole opt-in shared memory (227 KiB on Hopper), once per kernel
// (the kernel is a template argument so that every kernel keeps its own flag: the DP kernels all
// share one function type); returns that limit in bytes.
template <auto Kernel>
int allow_full_shared_memory() {
    static int limit = -1;  // the device does not change under us
    if (limit < 0) {
        int device = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
        limit -= 1024;  // the argmin's static shared arrays
        cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, limit);
    }
    return limit;
}

template <class Cost, int Cells>
void launch_prefetch(const SeamState& s, const CellTerms* terms, const int seam_index,
                     const std::size_t bytes, const cudaStream_t stream) {
    allow_full_shared_memory<dp_prefetch_kernel<Cost, Cells>>();
    dp_prefetch_kernel<Cost, Cells><<<1, kDpThreads, bytes, stream>>>(s, terms, seam_index);
}

template <class Cost>
void launch_dp(const SeamState& s, const int seam_index, const cudaStream_t stream) {
    CellTerms* terms = static_cast<CellTerms*>(s.terms);
    const dim3 rows_grid(static_cast<unsigned>((s.width + 255) / 256),
                         static_cast<unsigned>(s.height));
    terms_kernel<<<rows_grid, 256, 0, stream>>>(s, terms);
    const std::size_t bytes = 2 * static_cast<std::size_t>(s.width) * sizeof(Cost);
    const bool fits =
        bytes <= static_cast<std::size_t>(allow_full_shared_memory<dp_kernel<Cost, true>>());
    switch (fits ? (s.width + kDpThreads - 1) / kDpThreads : 0) {
        case 1:
            return launch_prefetch<Cost, 1>(s, terms, seam_index, bytes, stream);
        case 2:
            return launch_prefetch<Cost, 2>(s, terms, seam_index, bytes, stream);
        case 3:
            return launch_prefetch<Cost, 3>(s, terms, seam_index, bytes, stream);
        case 4:
            return launch_prefetch<Cost, 4>(s, terms, seam_index, bytes, stream);
        default:
            break;
    }
    if (fits) {
        dp_kernel<Cost, true><<<1, kDpThreads, bytes, stream>>>(s, terms, seam_index);
    } else {
        dp_kernel<Cost, false><<<1, kDpThreads, 0, stream>>>(s, terms, seam_index);
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
