// Launchers for the gradient-domain blend of a finished 8-bit PatchMatch fill on the device
// (kernels/blend.cu): thin loops over blend_terms.h's per-node functions, which the host's
// blend_fill runs in the same order. Nothing here waits for the device.
#pragma once

#include <lacuna/kernels/blend_terms.h>

#include <cuda_runtime_api.h>

#include <cstdint>

namespace lacuna::kernels {

using blend_terms::BlendDot;
using blend_terms::BlendGrid;
using blend_terms::BlendPixels;
using blend_terms::BlendScalars;

/// Where the fill's field is (level 0 of the CUDA filler, row pitch = the width).
struct BlendField {
    const std::int32_t* nnf = nullptr;  ///< source centre per target pixel, -1 = none
    const std::uint32_t* dist = nullptr;
    int box_x0 = 0, box_y0 = 0, box_x1 = -1, box_y1 = -1;  ///< where the field is defined
    int radius = 0;
};

/// Level 0 from the fill: each node's source (patchmatch_sources' winner-take-all rule), then
/// blend_terms::setup_node.
cudaError_t blend_launch_setup(const BlendPixels& pixels, const BlendField& field,
                               const BlendGrid& g0, std::int32_t* sources, double* rhs, double* f,
                               cudaStream_t stream);
cudaError_t blend_launch_coarsen(const BlendGrid& fine, const BlendGrid& coarse,
                                 cudaStream_t stream);
/// One red (parity 0) or black (1) half-sweep.
cudaError_t blend_launch_smooth(const BlendGrid& g, int parity, cudaStream_t stream);
cudaError_t blend_launch_restrict(const BlendGrid& fine, const BlendGrid& coarse,
                                  cudaStream_t stream);
cudaError_t blend_launch_prolong(const BlendGrid& fine, const BlendGrid& coarse,
                                 cudaStream_t stream);
/// The coarsest level: x = 0, then kCoarsestSweeps × (red, black, black, red), in one block.
cudaError_t blend_launch_coarsest(const BlendGrid& g, cudaStream_t stream);
cudaError_t blend_launch_apply(const BlendGrid& g, const double* v, double* out,
                               cudaStream_t stream);
cudaError_t blend_launch_residual(const BlendGrid& g, const double* rhs, const double* f, double* r,
                                  cudaStream_t stream);
/// Per channel dot(a, b) over n nodes in blend_terms' fixed tree, finished as `what` says;
/// `partial` holds 3 × blend_dot_blocks(n) doubles.
cudaError_t blend_launch_dot(const double* a, const double* b, int n, double* partial,
                             BlendScalars* scalars, BlendDot what, double tolerance,
                             cudaStream_t stream);
int blend_dot_blocks(int n);
cudaError_t blend_launch_step(int n, const BlendScalars* scalars, const double* p, const double* ap,
                              double* f, double* r, cudaStream_t stream);
cudaError_t blend_launch_direction(int n, const BlendScalars* scalars, const double* z, double* p,
                                   cudaStream_t stream);
/// The unknowns' colour channels in `color` (row pitch = width) = blended_level(f).
cudaError_t blend_launch_write(const BlendGrid& g0, const double* f, Rgba8* color, int width,
                               cudaStream_t stream);

}  // namespace lacuna::kernels
