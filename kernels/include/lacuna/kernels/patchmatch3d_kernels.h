// Launchers for the spatio-temporal PatchMatch (kernels/patchmatch3d.cu): one kernel per step of
// patchmatch3d_terms.h, one thread per voxel, on the caller's stream. Nothing here waits.
#pragma once

#include <lacuna/kernels/patchmatch3d_terms.h>

#include <cuda_runtime_api.h>

namespace lacuna::kernels {

using patchmatch3d_terms::Pm3Level;
using patchmatch3d_terms::Pm3Pass;
using patchmatch3d_terms::Pm3Patch;

cudaError_t pm3_launch_init(const Pm3Level& l, Pm3Patch patch, std::uint32_t seed, int level,
                            cudaStream_t stream);
cudaError_t pm3_launch_upsample(const Pm3Level& fine, const Pm3Level& coarse, int coarse_buf,
                                Pm3Patch patch, std::uint32_t seed, int level, cudaStream_t stream);
cudaError_t pm3_launch_pass(const Pm3Level& l, const Pm3Pass& pass, cudaStream_t stream);
cudaError_t pm3_launch_vote(const Pm3Level& l, int buf, Pm3Patch patch, bool winner_take_all,
                            cudaStream_t stream);

}  // namespace lacuna::kernels
