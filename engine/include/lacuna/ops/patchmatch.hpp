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
#include <string>
#include <utility>
#include <vector>

namespace lacuna::ops {

/// A PatchMatch filler's current nearest-neighbour field at the level of the last EM iteration
/// (0 = full size), stored over its target box only (the hole's box grown by the patch radius):
/// a small hole in a large image gives a small field.
struct PatchMatchField {
    int level = 0;
    int width = 0;  ///< the level's size
    int height = 0;
    SearchRect box;  ///< the target box (inclusive); empty when there is nothing to fill
    /// Over the box, row by row: the source centre index (y · width + x of the level) of each
    /// target patch centre, -1 elsewhere.
    std::vector<std::int32_t> nnf;
    std::vector<std::uint64_t> dist;  ///< the patch distance of each entry (0 where nnf is -1)
    int depth = 8;  ///< the bits a sample of the image decided on had (8, or 16 for a deep fill)
    /// The weight of the gradient channels in this level's patch distance (sixteenths of a colour
    /// channel's per squared luma difference; 0: not used): the fill takes them on the coarse
    /// levels where the hole lies in fine texture (docs/notes/patchmatch.md).
    std::uint32_t gradient_weight = 0;

    [[nodiscard]] int box_width() const { return box.x1 - box.x0 + 1; }
    /// The entry for centre (x, y) of the level: -1 outside the box.
    [[nodiscard]] std::int32_t source_at(const int x, const int y) const {
        if (x < box.x0 || x > box.x1 || y < box.y0 || y > box.y1) return -1;
        return nnf[static_cast<std::size_t>(y - box.y0) * box_width() + (x - box.x0)];
    }
};

/// The field of a PatchMatch inpainter (CPU or CUDA); nullopt for any other inpainter or before
/// the first iteration.
std::optional<PatchMatchField> patchmatch_field(const Inpainter& inpainter);

/// Where a PatchMatch fill is in its pyramid, without copying anything (an editor asks after
/// every batch, so it can show each coarse level as it is finished).
struct PatchMatchStage {
    int levels = 0;  ///< pyramid levels (0: nothing to fill)
    int shown = -1;  ///< the level image() shows (-1: none yet; 0: full size)
    int next = -1;   ///< the level the next iteration runs at (-1: the fill is done)
    int left = 0;    ///< EM iterations left at `next`, counting the next one
};

/// The stage of a PatchMatch inpainter (CPU or CUDA); nullopt for any other inpainter.
std::optional<PatchMatchStage> patchmatch_stage(const Inpainter& inpainter);

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

/// Where the final (winner-take-all) vote took each hole pixel from, over the hole's box.
struct FillSources {
    int width = 0;  ///< the image's size
    int height = 0;
    SearchRect box;  ///< the hole's box (inclusive)
    /// Over the box, row by row: the source pixel index (y · width + x) whose value the vote
    /// copied into a hole pixel, -1 elsewhere.
    std::vector<std::int32_t> index;
    /// No pixel has a source (the box is empty): no line was continued, or nothing was left
    /// for PatchMatch to move.
    [[nodiscard]] bool empty() const { return box.x1 < box.x0; }
    friend bool operator==(const FillSources&, const FillSources&) = default;
};
/// A map of a width × height image that gives no pixel a source (an empty box): no band of the
/// line stage, nothing for PatchMatch to move.
FillSources empty_sources(int width, int height);
/// The sources of a finished fill's level-0 field, recomputed with the vote's own rule, so
/// copying the filler's input at them reproduces its output exactly. Throws InvalidArgument for
/// a field above level 0 or of another size than `hole`.
FillSources patchmatch_sources(const PatchMatchField& field, const Mask& hole, int radius);
/// A measurement's stored samples filled from `sources`: hole pixels take their source pixel's
/// samples, unconverted. Throws InvalidArgument when the sources are for another size.
NativeImage fill_from_sources(const NativeImage& samples, const FillSources& sources);
/// The same for `rect` only (what an editor writes back): copy_region(samples, rect) with the
/// hole pixels inside it filled.
NativeImage fill_region_from_sources(const NativeImage& samples, const FillSources& sources,
                                     const PixelRect& rect);

/// A measurement filled as the editor fills it (the command line's path): the hole and the
/// sources are prepared on the 8-bit proxy (carving_proxy); with params.lines the line stage
/// decides its bands there as for a picture (continue_lines) and its recorded copies move the
/// stored samples first; every patch is compared on the 16-bit decision image of the samples
/// (with the bands) over the same range (make_deep_patchmatch_inpainter: an 8-bit image and its
/// ×257 copy fill alike as measurements; a picture's 8-bit fill decides on its own pixels), the
/// finished fill's sources move the stored samples of the rest of the hole (fill_from_sources:
/// never converted) and blend_samples blends that rest in their own values (the bands stay copies,
/// and the choice and the refill judge the bands too). On a small hole with params.choose, the
/// per-region choice follows, made on the proxy as for a picture (choose_sources,
/// inpaint_choice.hpp): regions that take Criminisi move the samples from Criminisi's sources
/// instead, unblended, and a note says how many. With params.refill_foreign the foreign-blob refill
/// follows, decided on the proxy as for a picture (refill_sources, inpaint_refill.hpp): the blobs
/// that keep their refill move the samples from the refill's sources, unblended, and a note says
/// how many. With params.keep_colours the blended samples left are kept to the ring's proxy colours
/// last (keep_ring_colours of samples). Pixels outside the hole are unchanged.
/// Error(InvalidArgument) for method Criminisi (its patches are chosen on the 8-bit proxy, not on
/// every bit), and as inpaint() does.
struct NativeInpaintResult {
    NativeImage samples;
    InpaintProgress progress;
    std::vector<std::string> notes;
};
NativeInpaintResult inpaint(const NativeImage& samples, const Mask& mask,
                            const InpaintParams& params, InpaintImplementation implementation,
                            const InpaintProgressCallback& progress = {});

/// The gradient-domain (Poisson) blend of a finished fill (Pérez et al. 2003, as Image Melding
/// uses it): the hole's pixels are solved so that every step between neighbours is the step the
/// source had there (between two hole pixels, the mean of their two sources' steps), with the
/// known pixels around the hole fixed. Where the fill copied one source region the result is the
/// fill; at the hole's border and where two copied regions meet, the brightness jumps are spread
/// smoothly over the region instead of showing as an outline or blocks. Pixels outside the hole
/// are not written; alpha is kept. Solved by conjugate gradients (preconditioned by a multigrid
/// V-cycle over regular grids with red-black smoothing) in double precision, from the fill,
/// then rounded. Every step is blend_terms.h's per-node code in a fixed order, which the CUDA
/// filler runs on its device (Inpainter::blend_in_place): the same bytes for the same fill,
/// whichever backend filled and blended. Throws InvalidArgument when the sizes differ.
struct BlendOptions {
    int max_iterations = 100;  ///< preconditioned: 10-20 reach the tolerance
    double tolerance = 1e-4;   ///< stop at a residual this small relative to the right side
    /// A step that differs from its source's by κ levels counts half (weight 1 / (1 + (d/κ)²));
    /// 0: every step counts fully (the plain Poisson blend).
    double structure_levels = 24;
    /// A step whose source step is ε levels (the largest channel) counts 1 / (1 + (s/ε)²) too,
    /// so a tone correction stays on its side of a strong edge of the copied content instead of
    /// making colours neither side has; 0: no such weight.
    double edge_levels = 4;
};
ImageRgba8 blend_fill(const ImageRgba8& filled, const Mask& hole, const FillSources& sources,
                      const BlendOptions& options = {});

/// The blend's colours kept to the surroundings' (issue 31; the keep-colours parameter). The
/// blend corrects the copied pixels' tones by a few levels so that they meet the hole's border;
/// in smooth noise (plaster, a pane's gradient, sky) such a correction moves copied colours into
/// shades found nowhere around the hole: faint blotches of a tone the place does not have. So a
/// blended pixel may keep a colour (5 bits a channel, the bins of foreign_content) that the known
/// pixels within kKeepColoursRing px (chessboard) of the hole have; where its correction leaves
/// that set, it takes copy + k/16 × (blended − copy) per channel (truncated toward the copy) for
/// the largest k whose colour the ring has (k = 0, the copy itself, always qualifies). A copy
/// whose own colour the ring lacks keeps its whole correction (the blend did not bring that
/// colour; the sources did), and so does a pixel whose correction exceeds
/// kKeepColoursMaxCorrection levels in a channel: that is no tone offset but the blend easing a
/// copy that does not fit (a pasted piece, a broken stripe), and pulling it back would show the
/// misfit more sharply (striped cloth, seed 2: -0.28 dB without this bound).
///
/// `copy`: PatchMatch's fill before the blend; `blended`: finished_image's (the input outside
/// the hole); `result`: what the later stages made of `blended` (the per-region choice, the
/// refill). Only the hole pixels of `result` that still equal `blended` change: the stages
/// before it decide on the blend as it is (the colours the blend shows across a pasted piece are
/// what tells them it is pasted). Integer arithmetic on the finished images, on the host: every
/// backend's fill ends alike.
inline constexpr int kKeepColoursRing = 16;
/// Beyond the blend's structure threshold (BlendOptions::structure_levels, κ = 24: a step that
/// far from its source's counts half in the blend) a correction is no tone offset. Measured: 24
/// let the 512×384 tower case fail its foreign limit again, 40 did not (docs/notes/patchmatch.md).
inline constexpr int kKeepColoursMaxCorrection = 40;
ImageRgba8 keep_ring_colours(const ImageRgba8& copy, const ImageRgba8& blended, const Mask& hole,
                             ImageRgba8 result);
/// The same rule for a measurement's fill (issue 31 item 2), judged on the 8-bit proxy the fill
/// was prepared on (carving_proxy over `range`, the display range) and applied to the samples in
/// their own type: a hole sample of `result` that still equals `blended` (blend_samples' or
/// blend_samples_region's, before the choice and the refill moved samples) and whose proxy
/// colour the ring lacks while its copy's (the sample at its source in `sources`, from
/// `samples`, the samples before the fill) has it, takes copy + k/16 × (blended − copy) in the
/// colour channels (integers truncated toward the copy, floats exact; a fourth channel kept) for
/// the largest k whose proxy colour the ring has; the correction bound is in proxy levels. The
/// decision is keep_ring_colours' own (one function), the ring's colours read from `proxy`
/// (carving_proxy(samples, range).image: outside the hole the blended samples are those).
/// `result` and `blended` cover `rect` (an editor's fill rectangle, or the whole image) in
/// `samples`' format; `hole`, `proxy` and `sources` the whole image. InvalidArgument otherwise,
/// and `result` is left as it was.
void keep_ring_colours(NativeImage& result, const PixelRect& rect, const NativeImage& blended,
                       const NativeImage& samples, const FillSources& sources,
                       const ImageRgba8& proxy, const Mask& hole, std::pair<double, double> range);
/// The same blend for a measurement filled by fill_from_sources: the hole's samples (up to three
/// channels; a fourth, alpha, is kept) solved in the data's own values, with the structure
/// threshold read on `range` (the display range lo … hi mapped to 0 … 255, as the decision image
/// maps it), then rounded and clamped to integer types' limits (floats kept as solved).
/// Unchanged if a float sample around the hole is not finite (a FITS BLANK would spread).
NativeImage blend_samples(const NativeImage& filled, const Mask& hole, const FillSources& sources,
                          std::pair<double, double> range, const BlendOptions& options = {});
/// copy_region(blend_samples(fill_from_sources(samples, sources), hole, sources, range,
/// options), rect), from the unfilled samples and without either image-sized copy: what an
/// editor writes back, at the cost of the hole's box (the blend reads the sources' samples where
/// they lie). `rect` must hold the sources' box; InvalidArgument otherwise.
NativeImage blend_samples_region(const NativeImage& samples, const Mask& hole,
                                 const FillSources& sources, std::pair<double, double> range,
                                 const PixelRect& rect, const BlendOptions& options = {});
/// The same where the samples were first filled from `bands` (the line stage's copies, outside
/// `hole`; `sources` may point into them): copy_region(blend_samples(fill_from_sources(
/// fill_from_sources(samples, bands), sources), hole, sources, range, options), rect) without
/// the image-sized copy of the samples with the bands moved in (192 MiB for a 4096² float RGB
/// measurement). `rect` must hold the sources' box; InvalidArgument otherwise.
NativeImage blend_samples_region(const NativeImage& samples, const FillSources& bands,
                                 const Mask& hole, const FillSources& sources,
                                 std::pair<double, double> range, const PixelRect& rect,
                                 const BlendOptions& options = {});

/// What a finished fill shows, blended: for a PatchMatch inpainter (CPU or CUDA) that is done,
/// blend_fill of its image() with its sources; for any other inpainter, or one not done yet,
/// image(). ops::inpaint returns this.
ImageRgba8 finished_image(const Inpainter& filler);
/// The same bytes, but an inpainter that blends itself (the CUDA filler:
/// Inpainter::blend_in_place) does so where its pixels are, and only the result comes back.
ImageRgba8 finished_image(Inpainter& filler);

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
