// Multi-scale PatchMatch completion (InpaintMethod::PatchMatch): what the tests and tools can see
// beyond the Inpainter step API.
//
// The fill works on an image pyramid (coarsest level 32..63 px on its short side, a coarse pixel is
// hole if any child is), initialised by diffusion at the coarsest level. Each level runs EM
// iterations (12 at the coarsest down to 4 at the finest) of (a) a nearest-neighbour field for
// every patch overlapping the hole (jump-flooding propagation at steps 4, 2, 1 and a random search,
// over complete source patches outside the hole and the never-sample area) and (b) a vote (the
// weighted mean of the proposals, winner-take-all at the finest level). Moving to a finer level
// upsamples the field and votes again from the finer image. A texture channel (mean gradient
// magnitude of known pixels) takes part in the distance and the vote.
//
// In the step API one iteration is one EM iteration; progress().filled grows in proportion to the
// EM iterations done and equals the hole size exactly at the end; image() at a coarse level shows
// the coarse estimate upsampled into the hole; history() is empty (there are no per-patch
// decisions). InpaintImplementation::Reference runs the Fast (multi-threaded CPU) filler; the CPU
// and CUDA fillers give the same fields and the same bytes.
#pragma once

#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>
#include <lacuna/core/native_image.hpp>
#include <lacuna/ops/inpaint.hpp>

#include <cstdint>
#include <optional>
#include <vector>

namespace lacuna::ops {

/// A PatchMatch filler's current nearest-neighbour field: at the level of the last EM iteration
/// (0 = full size), source centre index y · width + x per target patch centre, -1 elsewhere.
struct PatchMatchField {
    int level = 0;
    int width = 0;
    int height = 0;
    std::vector<std::int32_t> nnf;
    std::vector<std::uint64_t> dist;  ///< the patch distance of each entry (0 where nnf is -1)
    int depth = 8;  ///< the bits a sample of the image decided on had (8, or 16 for a deep fill)
};

/// The field of a PatchMatch inpainter (CPU or CUDA); nullopt for any other inpainter or before
/// the first iteration.
std::optional<PatchMatchField> patchmatch_field(const Inpainter& inpainter);

/// PatchMatch deciding on every bit of a measurement: the fill of `problem` (prepared on the
/// measurement's 8-bit proxy, which gives the hole, the valid sources and what image() shows)
/// with every patch distance, texture and vote computed on `decision`, the 16-bit decision image
/// of the same size (deep_carving_proxy). The same schedule, random numbers and rules as the
/// 8-bit fill; patchmatch_sources of its field then says which samples to copy. image() is the
/// problem's image with the hole showing the 16-bit estimate / 257. Throws InvalidArgument for a
/// decision image of another size.
std::unique_ptr<Inpainter> make_deep_patchmatch_inpainter(InpaintProblem problem,
                                                          Image<Rgba16> decision,
                                                          InpaintImplementation implementation);
/// The CUDA deep fill as a DeviceInpainter: copy_filled writes the hole's pixels of `rect` at 8
/// bits (the other pixels of dst are left as they are). Throws Error(CudaUnavailable /
/// OutOfMemory / DeviceError) like make_device_inpainter.
std::unique_ptr<DeviceInpainter> make_deep_patchmatch_device_inpainter(InpaintProblem problem,
                                                                       Image<Rgba16> decision);
/// The same from a decision image on the device (deep_carving_proxy of a document's device
/// rows): no image crosses the bus, only the hole's box goes up.
std::unique_ptr<DeviceInpainter> make_deep_patchmatch_device_inpainter(
    InpaintProblem problem, const DeviceImage<Rgba16>& decision);

/// Where the final (winner-take-all) vote took each hole pixel from: for a finished fill's
/// level-0 field, per pixel (y · width + x) the source pixel index whose value the vote copied,
/// -1 outside the hole. Recomputed from the field with the vote's own rule, so copying the
/// filler's input at these sources reproduces its output exactly. Throws InvalidArgument for a
/// field above level 0 or of another size than `hole`.
std::vector<std::int32_t> patchmatch_sources(const PatchMatchField& field, const Mask& hole,
                                             int radius);
/// A measurement's stored samples filled from `sources` (patchmatch_sources): hole pixels take
/// their source pixel's samples, unconverted.
NativeImage fill_from_sources(const NativeImage& samples, const std::vector<std::int32_t>& sources);

/// One EM iteration at one level, done exhaustively (the readable reference): for every target
/// patch (centre within `radius` of a hole pixel) the valid source centre of least distance
/// (lowest index on ties), then the vote into the hole pixels. Uses the same distance and vote
/// as the fillers, so a test can check the definitions against its own brute force.
struct PatchMatchIteration {
    std::vector<std::int32_t> nnf;  ///< width × height, -1 where not a target
    std::vector<std::uint32_t> dist;
    ImageRgba8 image;  ///< the estimate after the vote
    Mask texture;      ///< the texture channel after the vote
};
PatchMatchIteration patchmatch_reference_iteration(const ImageRgba8& estimate, const Mask& texture,
                                                   const Mask& hole, const Mask& valid, int radius,
                                                   bool winner_take_all);

/// The texture channel the fill carries (0..254), from the known pixels of `image`.
Mask patchmatch_texture(const ImageRgba8& image, const Mask& hole);

}  // namespace lacuna::ops
