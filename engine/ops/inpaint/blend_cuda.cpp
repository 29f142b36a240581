// The device blend's host side: the multigrid hierarchy over the hole's box, and the conjugate
// gradient loop, whose scalars stay on the device (one small read-back an iteration to stop).
#include "blend_cuda.hpp"

#include "arena_carver.hpp"
#include "blend_grids.hpp"

#include "cuda_check.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

namespace lacuna::ops::detail {
namespace {

using lacuna::detail::checked_allocation;
using lacuna::detail::cuda_check;
using lacuna::detail::cuda_check_launch;

using kernels::BlendDot;
using kernels::BlendGrid;
using kernels::BlendScalars;

/// One stream-ordered device allocation, freed on the same stream (RAII).
class StreamMemory {
  public:
    StreamMemory(const std::size_t bytes, const DeviceStream stream) : stream_(stream) {
        cuda_check(checked_allocation([&] { return cudaMallocAsync(&data_, bytes, stream); }),
                   "allocating the blend's memory");
    }
    ~StreamMemory() { cudaFreeAsync(data_, stream_); }
    StreamMemory(const StreamMemory&) = delete;
    StreamMemory& operator=(const StreamMemory&) = delete;
    [[nodiscard]] std::byte* data() const { return static_cast<std::byte*>(data_); }

  private:
    void* data_ = nullptr;
    DeviceStream stream_;
};

struct Vectors {
    std::vector<BlendGrid> grids;
    std::int32_t* sources = nullptr;
    double *rhs = nullptr, *f = nullptr, *p = nullptr, *ap = nullptr, *partial = nullptr;
    BlendScalars* scalars = nullptr;
};

/// Lays out every level's arrays (and level 0's CG vectors) in one allocation.
Vectors lay_out(const std::vector<BlendGrid>& shapes, Carver& carver) {
    Vectors v;
    v.grids = shapes;
    for (BlendGrid& g : v.grids) {
        const auto n = static_cast<std::size_t>(g.size());
        g.active = carver.take<std::uint8_t>(n);
        g.weight = carver.take<double>(4 * n);
        g.diag = carver.take<double>(n);
        g.x = carver.take<double>(3 * n);
        g.b = carver.take<double>(3 * n);
    }
    const auto n0 = static_cast<std::size_t>(shapes[0].size());
    v.sources = carver.take<std::int32_t>(n0);
    v.rhs = carver.take<double>(3 * n0);
    v.f = carver.take<double>(3 * n0);
    v.p = carver.take<double>(3 * n0);
    v.ap = carver.take<double>(3 * n0);
    v.partial = carver.take<double>(
        3 * static_cast<std::size_t>(kernels::blend_dot_blocks(shapes[0].size())));
    v.scalars = carver.take<BlendScalars>(1);
    return v;
}

void launched(const cudaError_t status) {
    cuda_check_launch(status, "the blend's kernels");
}

/// One V-cycle on the grids from level 0's b (the residual) into level 0's x (z), from zero.
void v_cycle(const std::vector<BlendGrid>& g, const DeviceStream stream) {
    const std::size_t last = g.size() - 1;
    cuda_check(cudaMemsetAsync(g[0].x, 0, 3 * sizeof(double) * g[0].size(), stream),
               "clearing the blend's correction");
    for (std::size_t l = 0; l < last; ++l) {
        for (const int parity : {0, 1, 0, 1})
            launched(kernels::blend_launch_smooth(g[l], parity, stream));
        launched(kernels::blend_launch_restrict(g[l], g[l + 1], stream));
    }
    launched(kernels::blend_launch_coarsest(g[last], stream));
    for (std::size_t l = last; l-- > 0;) {
        launched(kernels::blend_launch_prolong(g[l], g[l + 1], stream));
        for (const int parity : {1, 0, 1, 0})
            launched(kernels::blend_launch_smooth(g[l], parity, stream));
    }
}

}  // namespace

void blend_on_device(const kernels::BlendPixels& pixels, const kernels::BlendField& field,
                     Rgba8* const color, const SearchRect& hole_box, const BlendOptions& options,
                     const DeviceStream stream) {
    if (hole_box.x1 < hole_box.x0 || hole_box.y1 < hole_box.y0) return;
    const std::vector<BlendGrid> shapes = blend_grid_shapes(hole_box);
    Carver count(nullptr);
    (void)lay_out(shapes, count);
    const StreamMemory memory(count.size(), stream);
    Carver place(memory.data());
    const Vectors v = lay_out(shapes, place);
    const std::vector<BlendGrid>& g = v.grids;
    const int n = g[0].size();
    kernels::BlendPixels settings = pixels;
    settings.structure_levels = options.structure_levels;
    settings.edge_levels = options.edge_levels;

    launched(kernels::blend_launch_setup(settings, field, g[0], v.sources, v.rhs, v.f, stream));
    for (std::size_t l = 0; l + 1 < g.size(); ++l)
        launched(kernels::blend_launch_coarsen(g[l], g[l + 1], stream));
    const auto dot = [&](const double* a, const double* b, const BlendDot what) {
        launched(kernels::blend_launch_dot(a, b, n, v.partial, v.scalars, what, options.tolerance,
                                           stream));
    };
    double* const r = g[0].b;
    double* const z = g[0].x;
    launched(kernels::blend_launch_residual(g[0], v.rhs, v.f, r, stream));
    dot(v.rhs, v.rhs, BlendDot::StopFromRhs);
    dot(r, r, BlendDot::RrStart);
    v_cycle(g, stream);
    dot(r, z, BlendDot::RzStart);
    cuda_check(cudaMemcpyAsync(v.p, z, 3 * sizeof(double) * n, cudaMemcpyDeviceToDevice, stream),
               "the blend's first direction");
    for (int it = 0; it < options.max_iterations; ++it) {
        int running[3] = {0, 0, 0};
        cuda_check(cudaMemcpyAsync(running, v.scalars->running, sizeof running,
                                   cudaMemcpyDeviceToHost, stream),
                   "reading the blend's residuals");
        cuda_check(cudaStreamSynchronize(stream), "reading the blend's residuals");
        if (running[0] == 0 && running[1] == 0 && running[2] == 0) break;
        launched(kernels::blend_launch_apply(g[0], v.p, v.ap, stream));
        dot(v.p, v.ap, BlendDot::PapToAlpha);
        launched(kernels::blend_launch_step(n, v.scalars, v.p, v.ap, v.f, r, stream));
        dot(r, r, BlendDot::Rr);
        v_cycle(g, stream);
        dot(r, z, BlendDot::RzToBeta);
        launched(kernels::blend_launch_direction(n, v.scalars, z, v.p, stream));
    }
    launched(kernels::blend_launch_write(g[0], v.f, color, pixels.width, stream));
}

}  // namespace lacuna::ops::detail
