// Internal: the spatio-temporal PatchMatch's problem (crop, pyramid, masks, the coarsest level's
// start), its schedule, and the backends that run it.
#pragma once

#include <lacuna/kernels/patchmatch3d_terms.h>
#include <lacuna/ops/patchmatch3d.hpp>

#include <memory>
#include <vector>

namespace lacuna::ops::pm3 {

using patchmatch3d_terms::Pm3Level;
using patchmatch3d_terms::Pm3Pass;
using patchmatch3d_terms::Pm3Patch;

/// The kernels' view of one level's arrays, from host vectors or device buffers alike (each has
/// `data()`), so the CPU paths and CUDA read one layout.
template <class Level>
Pm3Level level_view(Level& level) {
    Pm3Level l;
    l.color = level.color.data();
    l.hole = level.hole.data();
    l.valid = level.valid.data();
    l.target = level.target.data();
    for (int b = 0; b < 2; ++b) {
        l.nnf[b] = level.nnf[b].data();
        l.dist[b] = level.dist[b].data();
    }
    l.width = level.width;
    l.height = level.height;
    l.frames = level.frames;
    l.fallback = level.fallback;
    return l;
}

/// One level on the host: the arrays Pm3Level points into.
struct HostLevel {
    int width = 0, height = 0, frames = 0;
    std::vector<Rgba8> color;
    std::vector<std::uint8_t> hole, valid, target;
    std::vector<std::int32_t> nnf[2];
    std::vector<std::uint32_t> dist[2];
    std::int32_t fallback = -1;
    [[nodiscard]] long long size() const { return static_cast<long long>(width) * height * frames; }
    /// A view over the arrays (the field buffers are allocated on first use).
    Pm3Level view();
};

/// The problem every backend receives: the crop of the frames around the hole, and its pyramid
/// (level 0 = the crop) with colours, holes, valid centres and targets; the coarsest level's hole
/// already holds its start (a mean peeled in from the border).
struct Problem {
    int crop_x = 0, crop_y = 0;
    Pm3Patch patch;
    std::vector<HostLevel> levels;
};

/// Checks the input and builds the problem. Throws Error(InvalidArgument) as patchmatch3d_fill
/// documents.
Problem prepare(const std::vector<ImageRgba8>& frames, const std::vector<Mask>& holes,
                const PatchMatch3dParams& params);

/// What a backend does; the schedule (run_schedule) is the same for all.
class Backend {
  public:
    virtual ~Backend() = default;
    /// The coarsest level's initial field (buffer 0).
    virtual void init(int level, Pm3Patch patch, std::uint32_t seed) = 0;
    /// Level `level`'s initial field (buffer 0) from level + 1's buffer `coarse_buf`.
    virtual void upsample(int level, int coarse_buf, Pm3Patch patch, std::uint32_t seed) = 0;
    virtual void pass(int level, const Pm3Pass& pass) = 0;
    virtual void vote(int level, int buf, Pm3Patch patch, bool winner_take_all) = 0;
    /// Level 0's colours and field buffer `buf`, back on the host.
    virtual void finish(int buf, std::vector<Rgba8>& color, std::vector<std::int32_t>& nnf) = 0;
};

/// EM iterations at `level` of `levels`: twice the parameter at the coarsest.
int iterations_at(int level, int levels, const PatchMatch3dParams& params);

/// Runs the schedule on the backend: coarse to fine, per level its start (random field at the
/// coarsest; the parent's field and a weighted vote below), then EM iterations of three passes
/// (jumps 4, 2, 1; the last with random search) and a vote (winner-take-all in the finest level's
/// last). Returns the field buffer that holds the final field.
int run_schedule(Backend& backend, const Problem& problem, const PatchMatch3dParams& params,
                 const PatchMatch3dCancelFn& cancel);

std::unique_ptr<Backend> make_reference_backend(Problem& problem);
std::unique_ptr<Backend> make_fast_backend(Problem& problem);
/// Throws Error(CudaUnavailable) in a build without CUDA or without a device.
std::unique_ptr<Backend> make_cuda_backend(const Problem& problem);

}  // namespace lacuna::ops::pm3
