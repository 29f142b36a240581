// PatchMatch completion on the device: every kernel is a thin loop over one per-pixel function of
// patchmatch_terms.h, over the same pixels and with the same double buffering as the CPU filler,
// so both produce the same field and the same bytes. One thread per pixel of a rectangle (the
// level, its target box or its hole box); the coarsest level's diffusion is one block looping over
// its steps, which saves a launch per step; its onion peel is a block per pixel, a launch a layer.
#include <lacuna/kernels/patchmatch_kernels.h>

namespace lacuna::kernels {
namespace {

namespace pt = patchmatch_terms;

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;
constexpr int kDiffuseThreads = 1024;
constexpr int kOnionThreads = 128;

dim3 grid_for(const PmRect& r) {
    const int w = r.x1 - r.x0 + 1, h = r.y1 - r.y0 + 1;
    return dim3(static_cast<unsigned>((w + kBlockX - 1) / kBlockX),
                static_cast<unsigned>((h + kBlockY - 1) / kBlockY));
}

template <class D>
PmRect whole(const BasicPmLevel<D>& l) {
    return {0, 0, l.width - 1, l.height - 1};
}

template <class D>
PmRect target_box(const BasicPmLevel<D>& l) {
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

template <class D>
__global__ void gradient_kernel(const BasicPmLevel<D> l, typename D::Tex* gradient,
                                const PmRect r) {
    int x, y;
    if (!pixel_of(r, x, y)) return;
    gradient[static_cast<long long>(y) * l.width + x] = pt::pm_gradient(l, x, y);
}

template <class D>
__global__ void texture_kernel(const BasicPmLevel<D> l, const typename D::Tex* gradient,
                               const PmRect r) {
    int x, y;
    if (!pixel_of(r, x, y)) return;
    l.texture[static_cast<long long>(y) * l.width + x] =
        pt::pm_texture<D>(gradient, l.width, l.height, x, y);
}

__global__ void row_any_kernel(const std::uint8_t* src, std::uint8_t* dst, const int w,
                               const int radius, const PmRect r) {
    int x, y;
    if (!pixel_of(r, x, y)) return;
    dst[static_cast<long long>(y) * w + x] = pt::pm_row_any(src, w, x, y, radius);
}

template <class D>
__global__ void forbid0_kernel(const BasicPmLevel<D> l, const std::uint8_t* row_any,
                               const int radius, const PmRect r) {
    int x, y;
    if (!pixel_of(r, x, y)) return;
    pt::pm_forbid0_pixel(l, row_any, radius, x, y);
}

template <class D>
__global__ void downsample_kernel(const BasicPmLevel<D> fine, const BasicPmLevel<D> coarse,
                                  const PmRect r) {
    int x, y;
    if (!pixel_of(r, x, y)) return;
    pt::pm_downsample_pixel(fine, coarse, x, y);
}

template <class D>
__global__ void valid_kernel(const BasicPmLevel<D> l, const std::uint8_t* row_any, const int radius,
                             const PmRect r) {
    int x, y;
    if (!pixel_of(r, x, y)) return;
    pt::pm_valid_pixel(l, row_any, radius, x, y);
}

template <class D>
__global__ void stats_kernel(const BasicPmLevel<D> l, unsigned long long* count,
                             unsigned long long* last_first, const PmRect r) {
    int x, y;
    const bool inside = pixel_of(r, x, y);
    const bool valid = inside && l.valid[static_cast<long long>(y) * l.width + x] != 0;
    // Integer reductions: the result does not depend on the order of the atomics. The first valid
    // index is kept as (n - 1 - index) under atomicMax, so zeroed counters are the start.
    const unsigned ballot = __ballot_sync(0xffffffffU, valid);
    // A warp is 32 consecutive pixels of one row (blocks are 32 wide), so its lowest valid index
    // is its first valid lane's: one atomic a warp instead of one a pixel (16 million atomics on
    // one address for a 4K image's level 0 otherwise).
    const int lane = static_cast<int>(threadIdx.x & 31);
    if (ballot != 0 && lane == __ffs(ballot) - 1) {
        const unsigned long long n = static_cast<unsigned long long>(l.width) * l.height;
        atomicMax(last_first, n - 1 - (static_cast<unsigned long long>(y) * l.width + x));
    }
    if (lane == 0 && ballot != 0) atomicAdd(count, __popc(ballot));
}

template <class D>
__global__ void diffuse_kernel(const BasicPmLevel<D> l, const PmRect box,
                               const PmDiffuseScratch<D> s, const int steps) {
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

template <class D>
__global__ void onion_known_kernel(const BasicPmLevel<D> l, std::uint8_t* known, const PmRect r) {
    int x, y;
    if (!pixel_of(r, x, y)) return;
    const long long p = static_cast<long long>(y) * l.width + x;
    known[p] = l.hole[p] ? 0 : 1;
}

/// One layer of the onion peel: a block per pixel of the hole's box. On the front, the block's
/// threads split the first stage's candidates and reduce to the smallest distance, ties to the
/// earliest candidate (the CPU's sequential choice); thread 0 runs the second stage and writes.
/// A pixel takes a few hundred patch distances: spread over a block, a layer costs about one
/// distance chain's latency instead of the whole list's.
template <class D>
__global__ void onion_layer_kernel(const BasicPmLevel<D> l, const PmRect box,
                                   const std::uint8_t* known_in, std::uint8_t* known_out,
                                   const int radius, const std::uint32_t seed, const int level,
                                   const int layer) {
    const int bw = box.x1 - box.x0 + 1;
    const int i = static_cast<int>(blockIdx.x);
    const int x = box.x0 + i % bw, y = box.y0 + i / bw;
    const long long p = static_cast<long long>(y) * l.width + x;
    const bool front = pt::pm_onion_front(l, known_in, x, y);
    if (threadIdx.x == 0) known_out[p] = known_in[p] || front ? 1 : 0;
    if (!front) return;
    pt::PmOnionBest<D> b;
    for (int j = static_cast<int>(threadIdx.x); j < pt::kOnionFirstStage;
         j += static_cast<int>(blockDim.x)) {
        int sx = 0, sy = 0;
        if (pt::pm_onion_candidate(l, known_in, radius, seed, level, layer, x, y, j, sx, sy))
            pt::pm_onion_consider(l, known_in, radius, x, y, sx, sy, j, b);
    }
    const auto take = [&b](const pt::PmOnionBest<D>& o) {
        if (o.dist < b.dist || (o.dist == b.dist && o.order < b.order)) b = o;
    };
    for (int offset = 16; offset > 0; offset >>= 1) {
        pt::PmOnionBest<D> o;
        o.dist = __shfl_down_sync(0xffffffffU, b.dist, offset);
        o.order = __shfl_down_sync(0xffffffffU, b.order, offset);
        o.best = __shfl_down_sync(0xffffffffU, b.best, offset);
        o.x = __shfl_down_sync(0xffffffffU, b.x, offset);
        o.y = __shfl_down_sync(0xffffffffU, b.y, offset);
        take(o);
    }
    __shared__ pt::PmOnionBest<D> warp_best[kOnionThreads / 32];
    const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
    if (lane == 0) warp_best[warp] = b;
    __syncthreads();
    if (threadIdx.x != 0) return;
    for (int w = 1; w < kOnionThreads / 32; ++w) take(warp_best[w]);
    pt::pm_onion_finish(l, known_in, radius, seed, level, layer, x, y, b);
}

template <class D>
__global__ void init_kernel(const BasicPmLevel<D> l, const int radius, const std::uint32_t seed,
                            const int level, const PmRect r) {
    int x, y;
    if (!pixel_of(r, x, y)) return;
    pt::pm_init_pixel(l, radius, seed, level, x, y);
}

template <class D>
__global__ void upsample_kernel(const BasicPmLevel<D> fine, const BasicPmLevel<D> coarse,
                                const int coarse_buf, const int radius, const std::uint32_t seed,
                                const int level, const PmRect r) {
    int x, y;
    if (!pixel_of(r, x, y)) return;
    pt::pm_upsample_pixel(fine, coarse, coarse_buf, radius, seed, level,
                          !pt::pm_votes_texture(level), x, y);
}

template <class D>
__global__ void pass_kernel(const BasicPmLevel<D> l, const PmPass pass, const PmRect r) {
    int x, y;
    if (!pixel_of(r, x, y)) return;
    pt::pm_pass_pixel(l, pass, x, y);
}

template <class D>
__global__ void vote_kernel(const BasicPmLevel<D> l, const int buf, const int radius,
                            const bool wta, const bool vote_texture, const PmRect r) {
    int x, y;
    if (!pixel_of(r, x, y)) return;
    pt::pm_vote_pixel(l, buf, radius, wta, vote_texture, x, y);
}

template <class D>
__global__ void gradient_xy_kernel(const BasicPmLevel<D> l, const PmRect r) {
    int x, y;
    if (!pixel_of(r, x, y)) return;
    pt::pm_gradient_xy_pixel(l, x, y);
}

template <class D>
__global__ void compose_kernel(const BasicPmLevel<D> fine, const BasicPmLevel<D> coarse,
                               const int shift, const PmRect r) {
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

__global__ void show8_kernel(const PmLevel16 l0, const ImageView<Rgba8> dst, const PmRect r) {
    int x, y;
    if (!pixel_of(r, x, y)) return;
    const long long p = static_cast<long long>(y) * l0.width + x;
    if (l0.hole[p]) dst.at(x, y) = pt::pm_to_rgba8(l0.color[p]);
}

const dim3 kBlock(kBlockX, kBlockY);

/// The gradient channels over `r` clipped to the level, where the level uses them: the CPU
/// filler's refresh_gradients, at the same steps (the whole level when it starts, the hole's box
/// grown by 1 after every vote).
template <class D>
void refresh_gradients(const BasicPmLevel<D>& l, const PmRect r, const cudaStream_t stream) {
    if (l.grad_weight == 0) return;
    const PmRect c{r.x0 > 0 ? r.x0 : 0, r.y0 > 0 ? r.y0 : 0,
                   r.x1 < l.width - 1 ? r.x1 : l.width - 1,
                   r.y1 < l.height - 1 ? r.y1 : l.height - 1};
    if (empty(c)) return;
    gradient_xy_kernel<<<grid_for(c), kBlock, 0, stream>>>(l, c);
}

/// The hole's box grown by 1: the pixels whose central differences a vote can change.
PmRect around(const PmRect& hole_box) {
    return {hole_box.x0 - 1, hole_box.y0 - 1, hole_box.x1 + 1, hole_box.y1 + 1};
}

}  // namespace

template <class D>
cudaError_t pm_launch_texture(const BasicPmLevel<D>& l0, typename D::Tex* gradient,
                              const cudaStream_t stream) {
    const PmRect r = whole(l0);
    gradient_kernel<<<grid_for(r), kBlock, 0, stream>>>(l0, gradient, r);
    texture_kernel<<<grid_for(r), kBlock, 0, stream>>>(l0, gradient, r);
    return cudaGetLastError();
}

template <class D>
cudaError_t pm_launch_forbid0(const BasicPmLevel<D>& l0, std::uint8_t* scratch, const int radius,
                              const cudaStream_t stream) {
    const PmRect r = whole(l0);
    row_any_kernel<<<grid_for(r), kBlock, 0, stream>>>(l0.valid, scratch, l0.width, radius, r);
    forbid0_kernel<<<grid_for(r), kBlock, 0, stream>>>(l0, scratch, radius, r);
    return cudaGetLastError();
}

template <class D>
cudaError_t pm_launch_downsample(const BasicPmLevel<D>& fine, const BasicPmLevel<D>& coarse,
                                 std::uint8_t* scratch, const int radius,
                                 const cudaStream_t stream) {
    const PmRect r = whole(coarse);
    downsample_kernel<<<grid_for(r), kBlock, 0, stream>>>(fine, coarse, r);
    row_any_kernel<<<grid_for(r), kBlock, 0, stream>>>(coarse.forbid, scratch, coarse.width, radius,
                                                       r);
    valid_kernel<<<grid_for(r), kBlock, 0, stream>>>(coarse, scratch, radius, r);
    return cudaGetLastError();
}

template <class D>
cudaError_t pm_launch_stats(const BasicPmLevel<D>& l, unsigned long long* count,
                            unsigned long long* first, const cudaStream_t stream) {
    const PmRect r = whole(l);
    stats_kernel<<<grid_for(r), kBlock, 0, stream>>>(l, count, first, r);
    return cudaGetLastError();
}

template <class D>
cudaError_t pm_launch_diffuse(const BasicPmLevel<D>& l, const PmRect hole_box,
                              const PmDiffuseScratch<D>& scratch, const int steps,
                              const cudaStream_t stream) {
    diffuse_kernel<<<1, kDiffuseThreads, 0, stream>>>(l, hole_box, scratch, steps);
    return cudaGetLastError();
}

template <class D>
cudaError_t pm_launch_onion(const BasicPmLevel<D>& l, const PmRect hole_box, std::uint8_t* known0,
                            std::uint8_t* known1, const int radius, const std::uint32_t seed,
                            const int level, const int layers, const cudaStream_t stream) {
    if (empty(hole_box)) return cudaSuccess;
    const PmRect r = whole(l);
    onion_known_kernel<<<grid_for(r), kBlock, 0, stream>>>(l, known0, r);
    onion_known_kernel<<<grid_for(r), kBlock, 0, stream>>>(l, known1, r);
    // Every layer is launched: once the hole is filled a layer changes nothing (the CPU stops
    // there instead), and the host need not wait to find out.
    const auto pixels =
        static_cast<unsigned>((hole_box.x1 - hole_box.x0 + 1) * (hole_box.y1 - hole_box.y0 + 1));
    std::uint8_t* known[2] = {known0, known1};
    for (int layer = 0; layer < layers; ++layer)
        onion_layer_kernel<<<pixels, kOnionThreads, 0, stream>>>(
            l, hole_box, known[layer & 1], known[1 - (layer & 1)], radius, seed, level, layer);
    return cudaGetLastError();
}

template <class D>
cudaError_t pm_launch_init(const BasicPmLevel<D>& l, const int radius, const std::uint32_t seed,
                           const int level, const cudaStream_t stream) {
    const PmRect r = target_box(l);
    if (!empty(r)) init_kernel<<<grid_for(r), kBlock, 0, stream>>>(l, radius, seed, level, r);
    refresh_gradients(l, whole(l), stream);
    return cudaGetLastError();
}

template <class D>
cudaError_t pm_launch_upsample_vote(const BasicPmLevel<D>& fine, const BasicPmLevel<D>& coarse,
                                    const int coarse_buf, const int radius,
                                    const std::uint32_t seed, const int level,
                                    const PmRect hole_box, const bool winner_take_all,
                                    const cudaStream_t stream) {
    const PmRect r = target_box(fine);
    if (empty(r)) return cudaSuccess;
    upsample_kernel<<<grid_for(r), kBlock, 0, stream>>>(fine, coarse, coarse_buf, radius, seed,
                                                        level, r);
    refresh_gradients(fine, whole(fine), stream);
    vote_kernel<<<grid_for(hole_box), kBlock, 0, stream>>>(fine, 0, radius, winner_take_all,
                                                           pt::pm_votes_texture(level), hole_box);
    refresh_gradients(fine, around(hole_box), stream);
    return cudaGetLastError();
}

template <class D>
cudaError_t pm_launch_iteration(const BasicPmLevel<D>& l, const PmPass* passes, const int count,
                                const PmRect hole_box, const bool winner_take_all,
                                const cudaStream_t stream) {
    const PmRect r = target_box(l);
    if (empty(r) || count <= 0) return cudaSuccess;
    for (int i = 0; i < count; ++i)
        pass_kernel<<<grid_for(r), kBlock, 0, stream>>>(l, passes[i], r);
    vote_kernel<<<grid_for(hole_box), kBlock, 0, stream>>>(
        l, passes[count - 1].dst, passes[0].radius, winner_take_all,
        pt::pm_votes_texture(passes[0].level), hole_box);
    refresh_gradients(l, around(hole_box), stream);
    return cudaGetLastError();
}

template <class D>
cudaError_t pm_launch_compose(const BasicPmLevel<D>& fine, const BasicPmLevel<D>& coarse,
                              const int shift, const PmRect hole_box, const cudaStream_t stream) {
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

template <class D>
cudaError_t pm_launch_valid0(const BasicPmLevel<D>& l0, std::uint8_t* scratch, const int radius,
                             const cudaStream_t stream) {
    const PmRect r = whole(l0);
    row_any_kernel<<<grid_for(r), kBlock, 0, stream>>>(l0.hole, scratch, l0.width, radius, r);
    valid_kernel<<<grid_for(r), kBlock, 0, stream>>>(l0, scratch, radius, r);
    return cudaGetLastError();
}

cudaError_t pm_launch_show8(const PmLevel16& l0, const ImageView<Rgba8> dst, const PmRect rect,
                            const cudaStream_t stream) {
    if (empty(rect)) return cudaSuccess;
    show8_kernel<<<grid_for(rect), kBlock, 0, stream>>>(l0, dst, rect);
    return cudaGetLastError();
}

// The two depths.
#define LACUNA_PM_INSTANTIATE(D)                                                                   \
    template cudaError_t pm_launch_texture<D>(const BasicPmLevel<D>&, D::Tex*, cudaStream_t);      \
    template cudaError_t pm_launch_forbid0<D>(const BasicPmLevel<D>&, std::uint8_t*, int,          \
                                              cudaStream_t);                                       \
    template cudaError_t pm_launch_downsample<D>(const BasicPmLevel<D>&, const BasicPmLevel<D>&,   \
                                                 std::uint8_t*, int, cudaStream_t);                \
    template cudaError_t pm_launch_stats<D>(const BasicPmLevel<D>&, unsigned long long*,           \
                                            unsigned long long*, cudaStream_t);                    \
    template cudaError_t pm_launch_diffuse<D>(const BasicPmLevel<D>&, PmRect,                      \
                                              const PmDiffuseScratch<D>&, int, cudaStream_t);      \
    template cudaError_t pm_launch_onion<D>(const BasicPmLevel<D>&, PmRect, std::uint8_t*,         \
                                            std::uint8_t*, int, std::uint32_t, int, int,           \
                                            cudaStream_t);                                         \
    template cudaError_t pm_launch_init<D>(const BasicPmLevel<D>&, int, std::uint32_t, int,        \
                                           cudaStream_t);                                          \
    template cudaError_t pm_launch_upsample_vote<D>(                                               \
        const BasicPmLevel<D>&, const BasicPmLevel<D>&, int, int, std::uint32_t, int, PmRect,      \
        bool, cudaStream_t);                                                                       \
    template cudaError_t pm_launch_iteration<D>(const BasicPmLevel<D>&, const PmPass*, int,        \
                                                PmRect, bool, cudaStream_t);                       \
    template cudaError_t pm_launch_compose<D>(const BasicPmLevel<D>&, const BasicPmLevel<D>&, int, \
                                              PmRect, cudaStream_t);                               \
    template cudaError_t pm_launch_valid0<D>(const BasicPmLevel<D>&, std::uint8_t*, int,           \
                                             cudaStream_t);

LACUNA_PM_INSTANTIATE(PmDepth8)
LACUNA_PM_INSTANTIATE(PmDepth16)
#undef LACUNA_PM_INSTANTIATE

}  // namespace lacuna::kernels
