// The spatio-temporal PatchMatch's kernels: thin loops over patchmatch3d_terms.h, one thread per
// voxel of the level, the same Jacobi schedule as the CPU paths (so the same field and voxels).
#include <lacuna/kernels/patchmatch3d_kernels.h>

namespace lacuna::kernels {
namespace {

namespace terms = patchmatch3d_terms;

constexpr int kBlock = 256;

struct Where {
    int x, y, t;
    bool inside;
};

__device__ __forceinline__ Where voxel_of(const Pm3Level& l) {
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    const long long plane = static_cast<long long>(l.width) * l.height;
    if (i >= plane * l.frames) return {0, 0, 0, false};
    const int t = static_cast<int>(i / plane);
    const long long r = i % plane;
    return {static_cast<int>(r % l.width), static_cast<int>(r / l.width), t, true};
}

unsigned blocks_for(const Pm3Level& l) {
    const long long n = static_cast<long long>(l.width) * l.height * l.frames;
    return static_cast<unsigned>((n + kBlock - 1) / kBlock);
}

__global__ void init_kernel(const Pm3Level l, const Pm3Patch patch, const std::uint32_t seed,
                            const int level) {
    const Where v = voxel_of(l);
    if (v.inside) terms::pm3_init_pixel(l, patch, seed, level, v.x, v.y, v.t);
}

__global__ void upsample_kernel(const Pm3Level fine, const Pm3Level coarse, const int coarse_buf,
                                const Pm3Patch patch, const std::uint32_t seed, const int level) {
    const Where v = voxel_of(fine);
    if (v.inside)
        terms::pm3_upsample_pixel(fine, coarse, coarse_buf, patch, seed, level, v.x, v.y, v.t);
}

__global__ void pass_kernel(const Pm3Level l, const Pm3Pass pass) {
    const Where v = voxel_of(l);
    if (v.inside) terms::pm3_pass_pixel(l, pass, v.x, v.y, v.t);
}

__global__ void vote_kernel(const Pm3Level l, const int buf, const Pm3Patch patch,
                            const bool winner_take_all) {
    const Where v = voxel_of(l);
    if (v.inside) terms::pm3_vote_pixel(l, buf, patch, winner_take_all, v.x, v.y, v.t);
}

}  // namespace

cudaError_t pm3_launch_init(const Pm3Level& l, const Pm3Patch patch, const std::uint32_t seed,
                            const int level, const cudaStream_t stream) {
    init_kernel<<<blocks_for(l), kBlock, 0, stream>>>(l, patch, seed, level);
    return cudaGetLastError();
}

cudaError_t pm3_launch_upsample(const Pm3Level& fine, const Pm3Level& coarse, const int coarse_buf,
                                const Pm3Patch patch, const std::uint32_t seed, const int level,
                                const cudaStream_t stream) {
    upsample_kernel<<<blocks_for(fine), kBlock, 0, stream>>>(fine, coarse, coarse_buf, patch, seed,
                                                             level);
    return cudaGetLastError();
}

cudaError_t pm3_launch_pass(const Pm3Level& l, const Pm3Pass& pass, const cudaStream_t stream) {
    pass_kernel<<<blocks_for(l), kBlock, 0, stream>>>(l, pass);
    return cudaGetLastError();
}

cudaError_t pm3_launch_vote(const Pm3Level& l, const int buf, const Pm3Patch patch,
                            const bool winner_take_all, const cudaStream_t stream) {
    vote_kernel<<<blocks_for(l), kBlock, 0, stream>>>(l, buf, patch, winner_take_all);
    return cudaGetLastError();
}

}  // namespace lacuna::kernels
