// PatchMatch completion on the device: every kernel is a thin loop over one per-pixel function of
// patchmatch_terms.h, over the same pixels and with the same double buffering as the CPU filler,
// so both produce the same field and the same bytes. One thread per pixel of a rectangle (the
// level, its target box or its hole box); the coarsest level's diffusion and onion peel are one
// block each, looping over their steps, which saves a launch per step.
#include <lacuna/kernels/patchmatch_kernels.h>

namespace lacuna::kernels {
namespace {

namespace pt = patchmatch_terms;

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;
constexpr int kDiffuseThreads = 1024;

dim3 grid_for(const PmRect& r) {
    const int w = r.x1 - r.x0 + 1, h = r.y1 - r.y0 + 1;
    return dim3(static_cast<unsigned>((w + kBlockX - 1) / kBlockX),
                static_cast<unsigned>((h + kBlockY - 1) / kBlockY));
}

PmRect whole(const PmLevel& l) {
    return {0, 0, l.width - 1, l.height - 1};
}

PmRect target_box(const PmLevel& l) {
    return {l.box_x0, l.box_y0, l.box_x1, l.box_y1};
}

bool empty(const PmRect& r) {
    return r.x1 < r.x0 || r.y1 < r.y0;
}

/// The pixel this thread handles in `r`, false if outside.
__device__ bool pixel_of(const PmRect& r, int& x, int& y) {
    x = r.x0 + static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    y = r.y0 + static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    return x <= r.x1 && y <= r.y1;
}

__global__ void gradient_kernel(const PmLevel l, std::uint8_t* gradient, const PmRect r) {
    int x, y;
    if (!pixel_of(r, x, y)) return;
    gradient[static_cast<long long>(y) * l.width + x] = pt::pm_gradient(l, x, y);
}

__global__ void texture_kernel(const PmLevel l, const std::uint8_t* gradient, const PmRect r) {
    int x, y;
    if (!pixel_of(r, x, y)) return;
    l.texture[static_cast<long long>(y) * l.width + x] =
        pt::pm_texture(gradient, l.width, l.height, x, y);
}

__global__ void row_any_kernel(const std::uint8_t* src, std::uint8_t* dst, const int w,
                               const int radius, const PmRect r) {
    int x, y;
    if (!pixel_of(r, x, y)) return;
    dst[static_cast<long long>(y) * w + x] = pt::pm_row_any(src, w, x, y, radius);
}

__global__ void forbid0_kernel(const PmLevel l, const std::uint8_t* row_any, const int radius,
                               const PmRect r) {
    int x, y;
    if (!pixel_of(r, x, y)) return;
    pt::pm_forbid0_pixel(l, row_any, radius, x, y);
}

__global__ void downsample_kernel(const PmLevel fine, const PmLevel coarse, const PmRect r) {
    int x, y;
    if (!pixel_of(r, x, y)) return;
    pt::pm_downsample_pixel(fine, coarse, x, y);
}

__global__ void valid_kernel(const PmLevel l, const std::uint8_t* row_any, const int radius,
                             const PmRect r) {
    int x, y;
    if (!pixel_of(r, x, y)) return;
    pt::pm_valid_pixel(l, row_any, radius, x, y);
}

__global__ void stats_kernel(const PmLevel l, unsigned long long* count,
                             unsigned long long* last_first, const PmRect r) {
    int x, y;
    const bool inside = pixel_of(r, x, y);
    const bool valid = inside && l.valid[static_cast<long long>(y) * l.width + x] != 0;
    // Integer reductions: the result does not depend on the order of the atomics. The first valid
    // index is kept as (n - 1 - index) under atomicMax, so zeroed counters are the start.
    const unsigned ballot = __ballot_sync(0xffffffffU, valid);
    if (valid) {
        const unsigned long long n = static_cast<unsigned long long>(l.width) * l.height;
        atomicMax(last_first, n - 1 - (static_cast<unsigned long long>(y) * l.width + x));
    }
    if ((threadIdx.x & 31) == 0 && ballot != 0) atomicAdd(count, __popc(ballot));
}

__global__ void diffuse_kernel(const PmLevel l, const PmRect box, const PmDiffuseScratch s,
                               const int steps) {
    const int n = l.width * l.height;
    for (int i = static_cast<int>(threadIdx.x); i < n; i += blockDim.x) {
        for (int b = 0; b < 2; ++b) {
            s.color[b][i] = l.color[i];
            s.texture[b][i] = l.texture[i];
            s.known[b][i] = l.hole[i] ? 0 : 1;
        }
    }
    __syncthreads();
    const int bw = box.x1 - box.x0 + 1;
    const int count = bw * (box.y1 - box.y0 + 1);
    int cur = 0;
    for (int step = 0; step < steps; ++step) {
        for (int i = static_cast<int>(threadIdx.x); i < count; i += blockDim.x) {
            pt::pm_diffuse_pixel(l, s.color[cur], s.texture[cur], s.known[cur], s.color[1 - cur],
                                 s.texture[1 - cur], s.known[1 - cur], box.x0 + i % bw,
                                 box.y0 + i / bw);
        }
        cur = 1 - cur;
        __syncthreads();
    }
    for (int i = static_cast<int>(threadIdx.x); i < n; i += blockDim.x)
        if (l.hole[i]) l.texture[i] = s.texture[cur][i];
}

__global__ void onion_kernel(const PmLevel l, const PmRect box, std::uint8_t* known0,
                             std::uint8_t* known1, const int radius, const std::uint32_t seed,
                             const int level, const int layers) {
    const int n = l.width * l.height;
    for (int i = static_cast<int>(threadIdx.x); i < n; i += blockDim.x)
        known0[i] = known1[i] = l.hole[i] ? 0 : 1;
    __syncthreads();
    const int bw = box.x1 - box.x0 + 1;
    const int count = bw * (box.y1 - box.y0 + 1);
    std::uint8_t* known[2] = {known0, known1};
    int cur = 0;
    for (int layer = 0; layer < layers; ++layer) {
        int filled = 0;
        for (int i = static_cast<int>(threadIdx.x); i < count; i += blockDim.x)
            if (pt::pm_onion_pixel(l, known[cur], known[1 - cur], radius, seed, level, layer,
                                   box.x0 + i % bw, box.y0 + i / bw))
                filled = 1;
        cur = 1 - cur;
        // The same stopping rule as the CPU's: after the first layer that fills nothing.
        if (__syncthreads_or(filled) == 0) break;
    }
}

__global__ void init_kernel(const PmLevel l, const int radius, const std::uint32_t seed,
                            const int level, const PmRect r) {
    int x, y;
    if (!pixel_of(r, x, y)) return;
    pt::pm_init_pixel(l, radius, seed, level, x, y);
}

__global__ void upsample_kernel(const PmLevel fine, const PmLevel coarse, const int coarse_buf,
                                const int radius, const std::uint32_t seed, const int level,
                                const PmRect r) {
    int x, y;
    if (!pixel_of(r, x, y)) return;
    pt::pm_upsample_pixel(fine, coarse, coarse_buf, radius, seed, level,
                          !pt::pm_votes_texture(level), x, y);
}

__global__ void pass_kernel(const PmLevel l, const PmPass pass, const PmRect r) {
    int x, y;
    if (!pixel_of(r, x, y)) return;
    pt::pm_pass_pixel(l, pass, x, y);
}

__global__ void vote_kernel(const PmLevel l, const int buf, const int radius, const bool wta,
                            const bool vote_texture, const PmRect r) {
    int x, y;
    if (!pixel_of(r, x, y)) return;
    pt::pm_vote_pixel(l, buf, radius, wta, vote_texture, x, y);
}

__global__ void compose_kernel(const PmLevel fine, const PmLevel coarse, const int shift,
                               const PmRect r) {
    int x, y;
    if (!pixel_of(r, x, y)) return;
    pt::pm_compose_pixel(fine, coarse, shift, x, y);
}

__global__ void coverage_hole_kernel(const ImageView<const std::uint8_t> coverage,
                                     std::uint8_t* hole, unsigned long long* stats,
                                     const PmRect r) {
    int x, y;
    const bool inside = pixel_of(r, x, y);
    bool in_hole = false;
    if (inside) {
        in_hole = coverage.at(x, y) >= 128;
        hole[static_cast<long long>(y) * coverage.width + x] = in_hole ? 1 : 0;
    }
    const unsigned ballot = __ballot_sync(0xffffffffU, in_hole);
    if (ballot == 0) return;
    if ((threadIdx.x & 31) == 0) atomicAdd(stats, __popc(ballot));
    if (!in_hole) return;
    // The box, all as maxima so that zeroed counters are the start.
    atomicMax(stats + 1, static_cast<unsigned long long>(coverage.width - 1 - x));
    atomicMax(stats + 2, static_cast<unsigned long long>(coverage.height - 1 - y));
    atomicMax(stats + 3, static_cast<unsigned long long>(x));
    atomicMax(stats + 4, static_cast<unsigned long long>(y));
}

const dim3 kBlock(kBlockX, kBlockY);

}  // namespace

cudaError_t pm_launch_texture(const PmLevel& l0, std::uint8_t* gradient,
                              const cudaStream_t stream) {
    const PmRect r = whole(l0);
    gradient_kernel<<<grid_for(r), kBlock, 0, stream>>>(l0, gradient, r);
    texture_kernel<<<grid_for(r), kBlock, 0, stream>>>(l0, gradient, r);
    return cudaGetLastError();
}

cudaError_t pm_launch_forbid0(const PmLevel& l0, std::uint8_t* scratch, const int radius,
                              const cudaStream_t stream) {
    const PmRect r = whole(l0);
    row_any_kernel<<<grid_for(r), kBlock, 0, stream>>>(l0.valid, scratch, l0.width, radius, r);
    forbid0_kernel<<<grid_for(r), kBlock, 0, stream>>>(l0, scratch, radius, r);
    return cudaGetLastError();
}

cudaError_t pm_launch_downsample(const PmLevel& fine, const PmLevel& coarse, std::uint8_t* scratch,
                                 const int radius, const cudaStream_t stream) {
    const PmRect r = whole(coarse);
    downsample_kernel<<<grid_for(r), kBlock, 0, stream>>>(fine, coarse, r);
    row_any_kernel<<<grid_for(r), kBlock, 0, stream>>>(coarse.forbid, scratch, coarse.width, radius,
                                                       r);
    valid_kernel<<<grid_for(r), kBlock, 0, stream>>>(coarse, scratch, radius, r);
    return cudaGetLastError();
}

cudaError_t pm_launch_stats(const PmLevel& l, unsigned long long* count, unsigned long long* first,
                            const cudaStream_t stream) {
    const PmRect r = whole(l);
    stats_kernel<<<grid_for(r), kBlock, 0, stream>>>(l, count, first, r);
    return cudaGetLastError();
}

cudaError_t pm_launch_diffuse(const PmLevel& l, const PmRect hole_box,
                              const PmDiffuseScratch& scratch, const int steps,
                              const cudaStream_t stream) {
    diffuse_kernel<<<1, kDiffuseThreads, 0, stream>>>(l, hole_box, scratch, steps);
    return cudaGetLastError();
}

cudaError_t pm_launch_onion(const PmLevel& l, const PmRect hole_box, std::uint8_t* known0,
                            std::uint8_t* known1, const int radius, const std::uint32_t seed,
                            const int level, const int layers, const cudaStream_t stream) {
    if (empty(hole_box)) return cudaSuccess;
    onion_kernel<<<1, kDiffuseThreads, 0, stream>>>(l, hole_box, known0, known1, radius, seed,
                                                    level, layers);
    return cudaGetLastError();
}

cudaError_t pm_launch_init(const PmLevel& l, const int radius, const std::uint32_t seed,
                           const int level, const cudaStream_t stream) {
    const PmRect r = target_box(l);
    if (empty(r)) return cudaSuccess;
    init_kernel<<<grid_for(r), kBlock, 0, stream>>>(l, radius, seed, level, r);
    return cudaGetLastError();
}

cudaError_t pm_launch_upsample_vote(const PmLevel& fine, const PmLevel& coarse,
                                    const int coarse_buf, const int radius,
                                    const std::uint32_t seed, const int level,
                                    const PmRect hole_box, const bool winner_take_all,
                                    const cudaStream_t stream) {
    const PmRect r = target_box(fine);
    if (empty(r)) return cudaSuccess;
    upsample_kernel<<<grid_for(r), kBlock, 0, stream>>>(fine, coarse, coarse_buf, radius, seed,
                                                        level, r);
    vote_kernel<<<grid_for(hole_box), kBlock, 0, stream>>>(fine, 0, radius, winner_take_all,
                                                           pt::pm_votes_texture(level), hole_box);
    return cudaGetLastError();
}

cudaError_t pm_launch_iteration(const PmLevel& l, const PmPass* passes, const int count,
                                const PmRect hole_box, const bool winner_take_all,
                                const cudaStream_t stream) {
    const PmRect r = target_box(l);
    if (empty(r) || count <= 0) return cudaSuccess;
    for (int i = 0; i < count; ++i)
        pass_kernel<<<grid_for(r), kBlock, 0, stream>>>(l, passes[i], r);
    vote_kernel<<<grid_for(hole_box), kBlock, 0, stream>>>(
        l, passes[count - 1].dst, passes[0].radius, winner_take_all,
        pt::pm_votes_texture(passes[0].level), hole_box);
    return cudaGetLastError();
}

cudaError_t pm_launch_compose(const PmLevel& fine, const PmLevel& coarse, const int shift,
                              const PmRect hole_box, const cudaStream_t stream) {
    if (empty(hole_box)) return cudaSuccess;
    compose_kernel<<<grid_for(hole_box), kBlock, 0, stream>>>(fine, coarse, shift, hole_box);
    return cudaGetLastError();
}

cudaError_t pm_launch_coverage_hole(const ImageView<const std::uint8_t> coverage,
                                    std::uint8_t* hole, unsigned long long* stats,
                                    const cudaStream_t stream) {
    const PmRect r{0, 0, coverage.width - 1, coverage.height - 1};
    coverage_hole_kernel<<<grid_for(r), kBlock, 0, stream>>>(coverage, hole, stats, r);
    return cudaGetLastError();
}

cudaError_t pm_launch_valid0(const PmLevel& l0, std::uint8_t* scratch, const int radius,
                             const cudaStream_t stream) {
    const PmRect r = whole(l0);
    row_any_kernel<<<grid_for(r), kBlock, 0, stream>>>(l0.hole, scratch, l0.width, radius, r);
    valid_kernel<<<grid_for(r), kBlock, 0, stream>>>(l0, scratch, radius, r);
    return cudaGetLastError();
}

}  // namespace lacuna::kernels
