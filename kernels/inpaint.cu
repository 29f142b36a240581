// Exemplar-based inpainting on the device. One iteration is five launches on
// one stream: select (arg-max of the priorities), search (one thread per candidate centre, the
// blocks' source pixels and the target patch in shared memory), coherence candidates, fill (copy,
// confidence, history) and the priority update around the fill. The target and the best candidate
// stay in device memory, so iterations queue up without any host round trip.
#include <lacuna/kernels/inpaint_kernels.h>
#include <lacuna/kernels/inpaint_terms.h>

#include <climits>

namespace lacuna::kernels {
namespace {

using inpaint_terms::candidate_key;
using inpaint_terms::kNoCandidate;
using inpaint_terms::kNotFront;
using inpaint_terms::PriorityInputs;

constexpr int kSearchTile = 16;      ///< candidates per block side
constexpr int kBlockThreads = 1024;  ///< select and fill: one block

__device__ PriorityInputs priority_inputs(const InpaintDeviceState& s) {
    return {s.width, s.height, s.radius, s.known, s.luma, s.confidence};
}

/// Priorities for the part of the hole's box inside [x0, x0 + side) × [y0, y0 + side).
__device__ void update_priority(const InpaintDeviceState& s, const int x, const int y) {
    if (x < s.box_x0 || y < s.box_y0 || x >= s.box_x0 + s.box_width || y >= s.box_y0 + s.box_height)
        return;
    s.priority[static_cast<long long>(y - s.box_y0) * s.box_width + (x - s.box_x0)] =
        inpaint_terms::priority_at(priority_inputs(s), x, y);
}

__global__ void initial_priorities_kernel(const InpaintDeviceState s) {
    const int x = s.box_x0 + static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = s.box_y0 + static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    update_priority(s, x, y);
}

/// After a fill at the target, every priority whose patch or stencils touch the filled patch.
__global__ void update_priorities_kernel(const InpaintDeviceState s) {
    const long long target = s.counters->target;
    if (target < 0) return;
    const int reach = 2 * s.radius + 2;
    const int x = static_cast<int>(target % s.width) - reach +
                  static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(target / s.width) - reach +
                  static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x > static_cast<int>(target % s.width) + reach ||
        y > static_cast<int>(target / s.width) + reach)
        return;
    update_priority(s, x, y);
}

__global__ void select_kernel(const InpaintDeviceState s) {
    __shared__ double best_priority[kBlockThreads];
    __shared__ long long best_index[kBlockThreads];
    InpaintCounters* counters = s.counters;
    if (counters->filled >= s.hole_pixels) {
        if (threadIdx.x == 0) counters->target = -1;
        return;
    }
    double priority = kNotFront;
    long long index = LLONG_MAX;
    const long long cells = static_cast<long long>(s.box_width) * s.box_height;
    for (long long i = threadIdx.x; i < cells; i += blockDim.x) {
        const double p = s.priority[i];
        if (p == kNotFront) continue;
        const long long pixel = static_cast<long long>(s.box_y0 + i / s.box_width) * s.width +
                                s.box_x0 + i % s.box_width;
        if (inpaint_terms::ranks_before(p, pixel, priority, index)) {
            priority = p;
            index = pixel;
        }
    }
    best_priority[threadIdx.x] = priority;
    best_index[threadIdx.x] = index;
    __syncthreads();
    for (int stride = kBlockThreads / 2; stride > 0; stride /= 2) {
        if (static_cast<int>(threadIdx.x) < stride &&
            inpaint_terms::ranks_before(best_priority[threadIdx.x + stride],
                                        best_index[threadIdx.x + stride],
                                        best_priority[threadIdx.x], best_index[threadIdx.x])) {
            best_priority[threadIdx.x] = best_priority[threadIdx.x + stride];
            best_index[threadIdx.x] = best_index[threadIdx.x + stride];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        counters->target = best_index[0] == LLONG_MAX ? -1 : best_index[0];
        counters->best_key = kNoCandidate;
    }
}

__device__ unsigned long long warp_min(unsigned long long key) {
    for (int offset = 16; offset > 0; offset /= 2) {
        const unsigned long long other = __shfl_down_sync(0xffffffffu, key, offset);
        key = other < key ? other : key;
    }
    return key;
}

/// Reduces the block's keys and folds the minimum into counters->best_key.
__device__ void block_min_to_global(unsigned long long key, InpaintCounters* counters) {
    __shared__ unsigned long long warp_best[32];
    const int thread = static_cast<int>(threadIdx.y * blockDim.x + threadIdx.x);
    const int warps = static_cast<int>(blockDim.x * blockDim.y + 31) / 32;
    key = warp_min(key);
    if (thread % 32 == 0) warp_best[thread / 32] = key;
    __syncthreads();
    if (thread == 0) {
        unsigned long long best = kNoCandidate;
        for (int w = 0; w < warps; ++w) best = warp_best[w] < best ? warp_best[w] : best;
        if (best != kNoCandidate) atomicMin(&counters->best_key, best);
    }
}

/// One thread per candidate centre of the window. The block's source pixels ((16 + P − 1)² of
/// them) and the target patch with its known flags are staged in shared memory (§4.2.3).
__global__ void search_kernel(const InpaintDeviceState s) {
    extern __shared__ unsigned char shared_bytes[];
    const long long target = s.counters->target;
    if (target < 0) return;
    const int r = s.radius;
    const int side = 2 * r + 1;
    const int tile_side = kSearchTile + 2 * r;
    auto* tile = reinterpret_cast<Rgba8*>(shared_bytes);
    Rgba8* patch = tile + tile_side * tile_side;
    auto* patch_known = reinterpret_cast<unsigned char*>(patch + side * side);
    const int thread = static_cast<int>(threadIdx.y * blockDim.x + threadIdx.x);
    const int threads = static_cast<int>(blockDim.x * blockDim.y);
    const int tx = static_cast<int>(target % s.width);
    const int ty = static_cast<int>(target / s.width);
    for (int i = thread; i < side * side; i += threads) {
        const int px = tx + i % side - r;
        const int py = ty + i / side - r;
        const bool inside = px >= 0 && py >= 0 && px < s.width && py < s.height;
        const long long at = static_cast<long long>(py) * s.width + px;
        const bool usable = inside && s.known[at] != 0;
        patch_known[i] = usable ? 1 : 0;
        patch[i] = usable ? s.pixels[at] : Rgba8{};
    }
    const int origin_x = s.window_x0 + static_cast<int>(blockIdx.x) * kSearchTile - r;
    const int origin_y = s.window_y0 + static_cast<int>(blockIdx.y) * kSearchTile - r;
    for (int i = thread; i < tile_side * tile_side; i += threads) {
        int gx = origin_x + i % tile_side;
        int gy = origin_y + i / tile_side;
        // Clamped reads only feed candidates outside the window, which are never ranked.
        gx = gx < 0 ? 0 : (gx >= s.width ? s.width - 1 : gx);
        gy = gy < 0 ? 0 : (gy >= s.height ? s.height - 1 : gy);
        tile[i] = s.pixels[static_cast<long long>(gy) * s.width + gx];
    }
    __syncthreads();
    const int cx =
        s.window_x0 + static_cast<int>(blockIdx.x) * kSearchTile + static_cast<int>(threadIdx.x);
    const int cy =
        s.window_y0 + static_cast<int>(blockIdx.y) * kSearchTile + static_cast<int>(threadIdx.y);
    unsigned long long key = kNoCandidate;
    if (cx <= s.window_x1 && cy <= s.window_y1 &&
        s.valid_source[static_cast<long long>(cy) * s.width + cx] != 0) {
        unsigned int sum = 0;
        for (int dy = 0; dy < side; ++dy) {
            const Rgba8* tile_row = tile + (threadIdx.y + dy) * tile_side + threadIdx.x;
            for (int dx = 0; dx < side; ++dx) {
                if (patch_known[dy * side + dx] == 0) continue;
                sum += inpaint_terms::rgb_distance2(patch[dy * side + dx], tile_row[dx]);
            }
        }
        key = candidate_key(sum, static_cast<unsigned int>(cy * s.width + cx));
    }
    block_min_to_global(key, s.counters);
}

/// SSD of the target patch (known pixels) against the complete source patch at `source`.
__device__ unsigned int full_ssd(const InpaintDeviceState& s, const int target, const int source) {
    const int r = s.radius;
    const int tx = target % s.width;
    const int ty = target / s.width;
    unsigned int sum = 0;
    for (int dy = -r; dy <= r; ++dy) {
        if (ty + dy < 0 || ty + dy >= s.height) continue;
        for (int dx = -r; dx <= r; ++dx) {
            if (tx + dx < 0 || tx + dx >= s.width) continue;
            const int offset = dy * s.width + dx;
            if (s.known[target + offset] == 0) continue;
            sum +=
                inpaint_terms::rgb_distance2(s.pixels[target + offset], s.pixels[source + offset]);
        }
    }
    return sum;
}

/// One thread per pixel of the target patch: a filled pixel proposes the source centre that
/// lines up with its own source.
__global__ void coherence_kernel(const InpaintDeviceState s) {
    const long long target = s.counters->target;
    if (target < 0) return;
    const int side = 2 * s.radius + 1;
    const int i = static_cast<int>(threadIdx.x);
    unsigned long long key = kNoCandidate;
    if (i < side * side) {
        const int px = static_cast<int>(target % s.width);
        const int py = static_cast<int>(target / s.width);
        const int tx = px + i % side - s.radius;
        const int ty = py + i / side - s.radius;
        if (tx >= 0 && ty >= 0 && tx < s.width && ty < s.height) {
            const int src = s.source[ty * s.width + tx];
            if (src >= 0) {
                const int cx = px + (src % s.width - tx);
                const int cy = py + (src / s.width - ty);
                if (cx >= 0 && cy >= 0 && cx < s.width && cy < s.height &&
                    s.valid_source[cy * s.width + cx] != 0) {
                    const int centre = cy * s.width + cx;
                    key = candidate_key(full_ssd(s, static_cast<int>(target), centre),
                                        static_cast<unsigned int>(centre));
                }
            }
        }
    }
    block_min_to_global(key, s.counters);
}

__device__ long long block_sum(long long value) {
    __shared__ long long partial[kBlockThreads];
    partial[threadIdx.x] = value;
    __syncthreads();
    for (int stride = kBlockThreads / 2; stride > 0; stride /= 2) {
        if (static_cast<int>(threadIdx.x) < stride)
            partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    const long long total = partial[0];
    __syncthreads();  // partial is reused by the next call
    return total;
}

__global__ void fill_kernel(const InpaintDeviceState s) {
    InpaintCounters* counters = s.counters;
    const long long target = counters->target;
    if (target < 0) return;
    const unsigned long long key = counters->best_key;
    if (key == kNoCandidate) return;  // cannot happen (prepare guarantees a source); host notices
    const int source = static_cast<int>(key & 0xffffffffull);
    const int r = s.radius;
    const int side = 2 * r + 1;
    const int tx = static_cast<int>(target % s.width);
    const int ty = static_cast<int>(target / s.width);
    const int i = static_cast<int>(threadIdx.x);
    const int dx = i % side - r;
    const int dy = i / side - r;
    const bool inside =
        i < side * side && tx + dx >= 0 && ty + dy >= 0 && tx + dx < s.width && ty + dy < s.height;
    const int offset = dy * s.width + dx;
    const int t = static_cast<int>(target) + offset;
    const long long confidence_sum = block_sum(inside ? s.confidence[t] : 0);
    const auto confidence = static_cast<std::int32_t>(confidence_sum / (side * side));
    const bool fills = inside && s.known[t] == 0;
    if (fills) {
        const int from = source + offset;
        s.pixels[t] = s.pixels[from];
        s.luma[t] = s.luma[from];
        s.known[t] = 1;
        s.confidence[t] = confidence;
        s.source[t] = from;
    }
    const long long filled = block_sum(fills ? 1 : 0);
    if (threadIdx.x == 0) {
        const long long iteration = counters->iterations;
        s.history_target[iteration] = static_cast<std::int32_t>(target);
        s.history_source[iteration] = source;
        s.history_ssd[iteration] = static_cast<std::uint32_t>(key >> 32);
        counters->iterations = iteration + 1;
        counters->filled += filled;
    }
}

unsigned int blocks_for(const int extent, const int per_block) {
    return static_cast<unsigned int>((extent + per_block - 1) / per_block);
}

/// Adds the warp's true flags to *count with one atomic (every lane must call it).
__device__ void count_flags(const bool flag, unsigned long long* count) {
    const unsigned int votes = __ballot_sync(0xffffffffu, flag);
    const unsigned int lane = (threadIdx.y * blockDim.x + threadIdx.x) % 32;
    if (lane == 0 && votes != 0) atomicAdd(count, static_cast<unsigned long long>(__popc(votes)));
}

/// What the host upload computes per pixel, from the document: the hole is coverage >= 128.
__global__ void device_init_kernel(const InpaintDeviceState s, const InpaintDeviceInput in) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    const bool inside = x < s.width && y < s.height;
    bool hole = false;
    if (inside) {
        const long long i = static_cast<long long>(y) * s.width + x;
        const Rgba8 p = in.pixels.row(y)[x];
        hole = in.coverage.row(y)[x] >= kHoleCoverage;
        s.pixels[i] = p;
        s.known[i] = hole ? 0 : 1;
        s.luma[i] = inpaint_terms::inpaint_luma(p);
        s.confidence[i] = hole ? 0 : inpaint_terms::kFullConfidence;
        s.source[i] = -1;
    }
    count_flags(hole, &in.counts[0]);
}

/// Valid sources, separably: first whether the patch's row through each pixel is clear of the
/// hole and inside the image ...
__global__ void clear_rows_kernel(const InpaintDeviceState s, const InpaintDeviceInput in) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= s.width || y >= s.height) return;
    const int r = s.radius;
    bool clear = x >= r && x + r < s.width;
    const std::uint8_t* row = in.coverage.row(y);
    for (int dx = -r; clear && dx <= r; ++dx) clear = row[x + dx] < kHoleCoverage;
    in.scratch[static_cast<long long>(y) * s.width + x] = clear ? 1 : 0;
}

/// ... then whether all the patch's rows are.
__global__ void valid_sources_kernel(const InpaintDeviceState s, const InpaintDeviceInput in) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    const int r = s.radius;
    bool valid = false;
    if (x < s.width && y < s.height) {
        valid = y >= r && y + r < s.height;
        for (int dy = -r; valid && dy <= r; ++dy)
            valid = in.scratch[static_cast<long long>(y + dy) * s.width + x] != 0;
        in.valid_source[static_cast<long long>(y) * s.width + x] = valid ? 1 : 0;
    }
    count_flags(valid, &in.counts[1]);
}

}  // namespace

cudaError_t launch_inpaint_device_init(const InpaintDeviceState& state,
                                       const InpaintDeviceInput& input, const cudaStream_t stream) {
    if (state.width <= 0 || state.height <= 0) return cudaSuccess;
    if (const cudaError_t status =
            cudaMemsetAsync(input.counts, 0, 2 * sizeof(unsigned long long), stream);
        status != cudaSuccess)
        return status;
    // 32 × 8: whole warps along rows, as count_flags needs.
    const dim3 block(32, 8);
    const dim3 grid(blocks_for(state.width, 32), blocks_for(state.height, 8));
    device_init_kernel<<<grid, block, 0, stream>>>(state, input);
    clear_rows_kernel<<<grid, block, 0, stream>>>(state, input);
    valid_sources_kernel<<<grid, block, 0, stream>>>(state, input);
    return cudaGetLastError();
}

cudaError_t launch_inpaint_initial_priorities(const InpaintDeviceState& state,
                                              const cudaStream_t stream) {
    if (state.box_width <= 0 || state.box_height <= 0) return cudaSuccess;
    const dim3 block(16, 16);
    const dim3 grid(blocks_for(state.box_width, 16), blocks_for(state.box_height, 16));
    initial_priorities_kernel<<<grid, block, 0, stream>>>(state);
    return cudaGetLastError();
}

cudaError_t launch_inpaint_iterations(const InpaintDeviceState& state, const int iterations,
                                      const cudaStream_t stream) {
    const int side = 2 * state.radius + 1;
    const int tile_side = kSearchTile + 2 * state.radius;
    const std::size_t search_shared =
        sizeof(Rgba8) * static_cast<std::size_t>(tile_side * tile_side + side * side) +
        static_cast<std::size_t>(side * side);
    const dim3 search_block(kSearchTile, kSearchTile);
    const dim3 search_grid(blocks_for(state.window_x1 - state.window_x0 + 1, kSearchTile),
                           blocks_for(state.window_y1 - state.window_y0 + 1, kSearchTile));
    const int reach_side = 2 * (2 * state.radius + 2) + 1;
    const dim3 update_block(16, 16);
    const dim3 update_grid(blocks_for(reach_side, 16), blocks_for(reach_side, 16));
    const unsigned int patch_threads = blocks_for(side * side, 32) * 32;
    for (int i = 0; i < iterations; ++i) {
        select_kernel<<<1, kBlockThreads, 0, stream>>>(state);
        search_kernel<<<search_grid, search_block, search_shared, stream>>>(state);
        if (state.coherence) coherence_kernel<<<1, patch_threads, 0, stream>>>(state);
        fill_kernel<<<1, kBlockThreads, 0, stream>>>(state);
        update_priorities_kernel<<<update_grid, update_block, 0, stream>>>(state);
    }
    return cudaGetLastError();
}

}  // namespace lacuna::kernels
