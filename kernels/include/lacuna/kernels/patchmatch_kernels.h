// Launchers for PatchMatch completion (kernels/patchmatch.cu): one kernel per step of
// patchmatch_terms.h, each a thin loop over its per-pixel function on the same schedule as the
// CPU filler. Nothing here waits for the device; the caller reads back only what it must.
#pragma once

#include <lacuna/kernels/patchmatch_terms.h>

#include <cuda_runtime_api.h>

#include <cstdint>

namespace lacuna::kernels {

using patchmatch_terms::BasicPmLevel;
using patchmatch_terms::PmDepth16;
using patchmatch_terms::PmDepth8;
using patchmatch_terms::PmLevel;
using patchmatch_terms::PmLevel16;
using patchmatch_terms::PmPass;

// Every launcher on a level is instantiated for PmDepth8 (photos) and PmDepth16 (a measurement's
// decision image).

/// An inclusive rectangle of pixels to run over.
struct PmRect {
    int x0 = 0, y0 = 0, x1 = -1, y1 = -1;
};

/// Level 0's texture channel (`gradient`: width × height texture values of scratch).
template <class D>
cudaError_t pm_launch_texture(const BasicPmLevel<D>& l0, typename D::Tex* gradient,
                              cudaStream_t stream);
/// Level 0's forbidden pixels from its valid centres (`scratch`: width × height bytes).
template <class D>
cudaError_t pm_launch_forbid0(const BasicPmLevel<D>& l0, std::uint8_t* scratch, int radius,
                              cudaStream_t stream);
/// `coarse` from `fine` (colour, texture, hole, forbid), then its valid centres.
template <class D>
cudaError_t pm_launch_downsample(const BasicPmLevel<D>& fine, const BasicPmLevel<D>& coarse,
                                 std::uint8_t* scratch, int radius, cudaStream_t stream);
/// count[0] += number of valid centres, last_first[0] = max(last_first[0], n - 1 - lowest valid
/// index) (n = the level's pixels): the caller zeroes both.
template <class D>
cudaError_t pm_launch_stats(const BasicPmLevel<D>& l, unsigned long long* count,
                            unsigned long long* last_first, cudaStream_t stream);
/// The coarsest hole's texture by diffusion, in one block (the level is small): scratch arrays of
/// the level's size, two of each.
template <class D>
struct PmDiffuseScratch {
    typename D::Color* color[2] = {nullptr, nullptr};
    typename D::Tex* texture[2] = {nullptr, nullptr};
    std::uint8_t* known[2] = {nullptr, nullptr};
};
template <class D>
cudaError_t pm_launch_diffuse(const BasicPmLevel<D>& l, PmRect hole_box,
                              const PmDiffuseScratch<D>& scratch, int steps, cudaStream_t stream);
/// The coarsest hole's onion peel, `layers` launches of a block per pixel of the hole's box;
/// `known` are two scratch masks of the level's size.
template <class D>
cudaError_t pm_launch_onion(const BasicPmLevel<D>& l, PmRect hole_box, std::uint8_t* known0,
                            std::uint8_t* known1, int radius, std::uint32_t seed, int level,
                            int layers, cudaStream_t stream);
/// The coarsest level's initial field over its target box.
template <class D>
cudaError_t pm_launch_init(const BasicPmLevel<D>& l, int radius, std::uint32_t seed, int level,
                           cudaStream_t stream);
/// A finer level's initial field from the coarse one, then the vote.
template <class D>
cudaError_t pm_launch_upsample_vote(const BasicPmLevel<D>& fine, const BasicPmLevel<D>& coarse,
                                    int coarse_buf, int radius, std::uint32_t seed, int level,
                                    PmRect hole_box, bool winner_take_all, cudaStream_t stream);
/// One EM iteration: the three passes of `passes` (src/dst alternating) and the vote from the
/// last pass's buffer.
template <class D>
cudaError_t pm_launch_iteration(const BasicPmLevel<D>& l, const PmPass* passes, int count,
                                PmRect hole_box, bool winner_take_all, cudaStream_t stream);
/// Level 0's hole shows `coarse` (level `shift`).
template <class D>
cudaError_t pm_launch_compose(const BasicPmLevel<D>& fine, const BasicPmLevel<D>& coarse, int shift,
                              PmRect hole_box, cudaStream_t stream);
/// Level 0's valid centres from its hole, the rule of prepare_inpaint without a never-sample mask:
/// a complete patch inside the image with no hole pixel (`scratch`: width × height bytes).
template <class D>
cudaError_t pm_launch_valid0(const BasicPmLevel<D>& l0, std::uint8_t* scratch, int radius,
                             cudaStream_t stream);
/// A device document's hole: hole[i] = coverage >= 128 (dense), and what it is checked with against
/// the problem: stats[0] += hole pixels, stats[1..4] = max of (width - 1 - x), (height - 1 - y), x
/// and y over the hole pixels (the box as maxima; the caller zeroes the five).
cudaError_t pm_launch_coverage_hole(ImageView<const std::uint8_t> coverage, std::uint8_t* hole,
                                    unsigned long long* stats, cudaStream_t stream);
/// A 16-bit fill shown at 8 bits: the hole pixels of `rect` (level 0) written into `dst` (an
/// image of level 0's size) as pm_to_rgba8; the other pixels of dst are left alone.
cudaError_t pm_launch_show8(const PmLevel16& l0, ImageView<Rgba8> dst, PmRect rect,
                            cudaStream_t stream);

}  // namespace lacuna::kernels
