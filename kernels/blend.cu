// The gradient-domain blend on the device: one thread per node for every step of
// blend_terms.h, a block per kDotChunk nodes for the dot products (blend_terms' fixed tree), and
// the coarsest level in one block looping over its sweeps.
#include <lacuna/kernels/blend_kernels.h>
#include <lacuna/kernels/patchmatch_terms.h>

namespace lacuna::kernels {
namespace {

namespace bt = blend_terms;

constexpr int kThreads = 256;
constexpr int kCoarsestThreads = 1024;

unsigned blocks_for(const int n) {
    return static_cast<unsigned>((n + kThreads - 1) / kThreads);
}

__device__ int thread_node() {
    return static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
}

/// patchmatch_sources' rule (pm_vote_pixel's winner-take-all): the proposal of greatest weight,
/// the first in the scan order of the offsets on ties.
__global__ void sources_kernel(const BlendPixels p, const BlendField f, const BlendGrid g,
                               std::int32_t* sources) {
    const int i = thread_node();
    if (i >= g.size()) return;
    const int x = g.x0 + i % g.width, y = g.y0 + i / g.width;
    const int w = p.width, r = f.radius;
    if (!p.in_hole(x, y)) {
        sources[i] = -1;
        return;
    }
    std::uint32_t best_w = 0;
    std::uint32_t best_d = 0;
    long long best_at = -1;
    for (int dy = -r; dy <= r; ++dy)
        for (int dx = -r; dx <= r; ++dx) {
            const int cx = x - dx, cy = y - dy;
            if (cx < f.box_x0 || cx > f.box_x1 || cy < f.box_y0 || cy > f.box_y1) continue;
            const std::int32_t q = f.nnf[cy * w + cx];
            if (q < 0) continue;
            const std::uint32_t d = f.dist[cy * w + cx];
            if (best_at >= 0 && d >= best_d) continue;
            const std::uint32_t wt = patchmatch_terms::pm_weight<patchmatch_terms::PmDepth8>(d, r);
            if (wt > best_w) {
                best_w = wt;
                best_d = d;
                best_at = static_cast<long long>(q / w + dy) * w + (q % w + dx);
            }
        }
    sources[i] = static_cast<std::int32_t>(best_at);
}

__global__ void setup_kernel(const BlendPixels p, const BlendGrid g, const std::int32_t* sources,
                             double* rhs, double* f) {
    const int i = thread_node();
    if (i < g.size()) bt::setup_node(p, g, sources, rhs, f, i);
}

__global__ void coarsen_kernel(const BlendGrid fine, const BlendGrid coarse) {
    const int i = thread_node();
    if (i < coarse.size()) bt::coarsen_node(fine, coarse, i);
}

__global__ void smooth_kernel(const BlendGrid g, const int parity) {
    const int i = thread_node();
    if (i < g.size()) bt::smooth_node(g, i, parity);
}

__global__ void restrict_kernel(const BlendGrid fine, const BlendGrid coarse) {
    const int i = thread_node();
    if (i < coarse.size()) bt::restrict_node(fine, coarse, i);
}

__global__ void prolong_kernel(const BlendGrid fine, const BlendGrid coarse) {
    const int i = thread_node();
    if (i < fine.size()) bt::prolong_node(fine, coarse, i);
}

__global__ void coarsest_kernel(const BlendGrid g) {
    const int n = g.size();
    for (int i = static_cast<int>(threadIdx.x); i < 3 * n; i += blockDim.x) g.x[i] = 0;
    __syncthreads();
    const int order[4] = {0, 1, 1, 0};  // symmetric, so the preconditioner stays symmetric
    for (int s = 0; s < bt::kCoarsestSweeps; ++s)
        for (const int parity : order) {
            for (int i = static_cast<int>(threadIdx.x); i < n; i += blockDim.x)
                bt::smooth_node(g, i, parity);
            __syncthreads();
        }
}

__global__ void apply_kernel(const BlendGrid g, const double* v, double* out) {
    const int i = thread_node();
    if (i < g.size()) bt::apply_node(g, v, out, i);
}

__global__ void residual_kernel(const BlendGrid g, const double* rhs, const double* f, double* r) {
    const int i = thread_node();
    if (i < g.size()) bt::residual_node(g, rhs, f, r, i);
}

__global__ void dot_partial_kernel(const double* a, const double* b, const int n, double* partial) {
    __shared__ double sums[bt::kDotThreads];
    const int c = static_cast<int>(blockIdx.y);
    const int t = static_cast<int>(threadIdx.x);
    sums[t] = bt::dot_thread(a, b, n, c, static_cast<int>(blockIdx.x), t);
    __syncthreads();
    for (int half = bt::kDotThreads / 2; half > 0; half /= 2) {
        if (t < half) sums[t] += sums[t + half];
        __syncthreads();
    }
    if (t == 0) partial[c * gridDim.x + blockIdx.x] = sums[0];
}

__global__ void dot_final_kernel(const double* partial, const int blocks, BlendScalars* s,
                                 const BlendDot what, const double tolerance) {
    const int c = static_cast<int>(threadIdx.x);
    if (c >= 3) return;
    double v = 0;
    for (int k = 0; k < blocks; ++k) v += partial[c * blocks + k];
    bt::dot_finish(*s, c, v, what, tolerance);
}

__global__ void step_kernel(const int n, const BlendScalars* s, const double* p, const double* ap,
                            double* f, double* r) {
    const int i = thread_node();
    if (i < n) bt::step_node(*s, n, p, ap, f, r, i);
}

__global__ void direction_kernel(const int n, const BlendScalars* s, const double* z, double* p) {
    const int i = thread_node();
    if (i < n) bt::direction_node(*s, n, z, p, i);
}

__global__ void write_kernel(const BlendGrid g, const double* f, Rgba8* color, const int width) {
    const int i = thread_node();
    const int n = g.size();
    if (i >= n || !g.active[i]) return;
    const int x = g.x0 + i % g.width, y = g.y0 + i / g.width;
    Rgba8& o = color[y * width + x];
    o.r = bt::blended_level(f[i]);
    o.g = bt::blended_level(f[n + i]);
    o.b = bt::blended_level(f[2 * n + i]);
}

}  // namespace

cudaError_t blend_launch_setup(const BlendPixels& pixels, const BlendField& field,
                               const BlendGrid& g0, std::int32_t* sources, double* rhs, double* f,
                               cudaStream_t stream) {
    sources_kernel<<<blocks_for(g0.size()), kThreads, 0, stream>>>(pixels, field, g0, sources);
    setup_kernel<<<blocks_for(g0.size()), kThreads, 0, stream>>>(pixels, g0, sources, rhs, f);
    return cudaGetLastError();
}

cudaError_t blend_launch_coarsen(const BlendGrid& fine, const BlendGrid& coarse,
                                 cudaStream_t stream) {
    coarsen_kernel<<<blocks_for(coarse.size()), kThreads, 0, stream>>>(fine, coarse);
    return cudaGetLastError();
}

cudaError_t blend_launch_smooth(const BlendGrid& g, const int parity, cudaStream_t stream) {
    smooth_kernel<<<blocks_for(g.size()), kThreads, 0, stream>>>(g, parity);
    return cudaGetLastError();
}

cudaError_t blend_launch_restrict(const BlendGrid& fine, const BlendGrid& coarse,
                                  cudaStream_t stream) {
    restrict_kernel<<<blocks_for(coarse.size()), kThreads, 0, stream>>>(fine, coarse);
    return cudaGetLastError();
}

cudaError_t blend_launch_prolong(const BlendGrid& fine, const BlendGrid& coarse,
                                 cudaStream_t stream) {
    prolong_kernel<<<blocks_for(fine.size()), kThreads, 0, stream>>>(fine, coarse);
    return cudaGetLastError();
}

cudaError_t blend_launch_coarsest(const BlendGrid& g, cudaStream_t stream) {
    coarsest_kernel<<<1, kCoarsestThreads, 0, stream>>>(g);
    return cudaGetLastError();
}

cudaError_t blend_launch_apply(const BlendGrid& g, const double* v, double* out,
                               cudaStream_t stream) {
    apply_kernel<<<blocks_for(g.size()), kThreads, 0, stream>>>(g, v, out);
    return cudaGetLastError();
}

cudaError_t blend_launch_residual(const BlendGrid& g, const double* rhs, const double* f, double* r,
                                  cudaStream_t stream) {
    residual_kernel<<<blocks_for(g.size()), kThreads, 0, stream>>>(g, rhs, f, r);
    return cudaGetLastError();
}

int blend_dot_blocks(const int n) {
    return (n + bt::kDotChunk - 1) / bt::kDotChunk;
}

cudaError_t blend_launch_dot(const double* a, const double* b, const int n, double* partial,
                             BlendScalars* scalars, const BlendDot what, const double tolerance,
                             cudaStream_t stream) {
    const int blocks = blend_dot_blocks(n);
    dot_partial_kernel<<<dim3(static_cast<unsigned>(blocks), 3), bt::kDotThreads, 0, stream>>>(
        a, b, n, partial);
    dot_final_kernel<<<1, 32, 0, stream>>>(partial, blocks, scalars, what, tolerance);
    return cudaGetLastError();
}

cudaError_t blend_launch_step(const int n, const BlendScalars* scalars, const double* p,
                              const double* ap, double* f, double* r, cudaStream_t stream) {
    step_kernel<<<blocks_for(n), kThreads, 0, stream>>>(n, scalars, p, ap, f, r);
    return cudaGetLastError();
}

cudaError_t blend_launch_direction(const int n, const BlendScalars* scalars, const double* z,
                                   double* p, cudaStream_t stream) {
    direction_kernel<<<blocks_for(n), kThreads, 0, stream>>>(n, scalars, z, p);
    return cudaGetLastError();
}

cudaError_t blend_launch_write(const BlendGrid& g0, const double* f, Rgba8* color, const int width,
                               cudaStream_t stream) {
    write_kernel<<<blocks_for(g0.size()), kThreads, 0, stream>>>(g0, f, color, width);
    return cudaGetLastError();
}

}  // namespace lacuna::kernels
