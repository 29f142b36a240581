// Object removal by exemplar-based inpainting (Criminisi, Pérez & Toyama 2004), also on the GPU.
// Each iteration takes the fill-front pixel of highest priority (confidence ×
// isophote strength along the front normal), finds the source patch with the least SSD over the
// target patch's known pixels, and copies it into the unknown pixels.
//
// Three implementations — a readable single-threaded reference, a multi-threaded CPU filler with
// early-exit SSD, and CUDA with the whole loop on the device — choose the same patches in the same
// order (integer SSD, fixed-point confidence, shared priority code; see kernels/inpaint_terms.h).
// Pixels outside the mask are never written.
#pragma once

#include <lacuna/core/device_image.hpp>
#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lacuna::ops {

struct BlendOptions;

enum class InpaintImplementation { Reference, Fast, Cuda };
enum class InpaintSearch {
    Window,  ///< the hole's bounding box grown by α on each side
    Full,    ///< every complete source patch in the image
};

/// Which fill. Criminisi: exemplar-based, patch by patch along the front (Criminisi, Pérez &
/// Toyama 2004). PatchMatch: multi-scale completion of the whole hole, coarse to fine, by
/// nearest-neighbour fields and voting (Wexler, Shechtman & Irani 2007; Barnes et al. 2009;
/// Newson et al. 2017).
enum class InpaintMethod { Criminisi, PatchMatch };

struct InpaintParams {
    int patch = 9;  ///< odd, 3..31
    InpaintSearch search = InpaintSearch::Window;
    /// α: the window grows the hole's box by α × its height up and down and α × its width left
    /// and right (at least two patch sizes, so small holes still have sources).
    double window_factor = 0.5;
    /// Also try the sources of already-filled pixels in the target patch, shifted to line up
    /// (continues a structure that was started, even from outside the window).
    bool coherence = true;
    const Mask* never_sample = nullptr;  ///< non-zero: never copy from here
    InpaintMethod method = InpaintMethod::PatchMatch;
    /// PatchMatch: the random search's seed (another seed, another result: "Fill again").
    std::uint32_t seed = 1;
    /// Pixels the caller grows the mask by before the fill (negative shrinks; grow_mask), so a
    /// brushed mask takes the object's soft edge and shadow too. The fill itself never reads it:
    /// it is here so that the setting is declared, saved and restored with the others.
    int mask_grow = 0;
    /// PatchMatch: straight edges reaching the hole from both sides on one line (or running
    /// into the image's border through it) are joined and a band along each is filled first,
    /// by copying the band outside along the line (continue_lines, inpaint_structure.hpp);
    /// PatchMatch fills the rest around the bands. A measurement's bands are decided on its
    /// 8-bit proxy and move its stored samples by the same copies (inpaint of NativeImage).
    /// On by default since 2026-11-28 (over seeds 1-3 of the bench's object cases and cut holes
    /// the means rise, no case fails that the fill without it passes, and no line is lost:
    /// docs/notes/patchmatch.md). The editor's device session fills on the host with it on.
    bool lines = true;
    /// Joined only when the two edges' directions differ by at most this many degrees...
    double line_angle = 3.0;
    /// ...and each edge's end lies within this many pixels of the other's line.
    double line_offset = 2.0;
    /// PatchMatch: a source prior by colour (restrict_sources, inpaint_sources.hpp). Source
    /// patches that hold colours found nowhere within 16 px of the hole (look-alike objects
    /// elsewhere in the picture) are not sources, unless their colour region reaches to within
    /// 32 px of the hole (structure that continues into it). Applied by prepare_inpaint, so every
    /// backend and the measurement fill take the same sources; it reads the whole image on the
    /// host (about 75 ms at 1080p on two cores), so it is an option (docs/notes/patchmatch.md).
    bool source_colours = false;
    /// PatchMatch: on a hole of at most kChoiceMaxPixels pixels, Criminisi fills it too and each
    /// connected region of the hole keeps Criminisi's fill where PatchMatch's clearly brings
    /// colours the surroundings lack and Criminisi's does not (choose_fill, inpaint_choice.hpp;
    /// a measurement decides on its 8-bit proxy and keeps Criminisi's sources' samples:
    /// choose_sources).
    bool choose = true;
    /// PatchMatch on pictures: after the fill (and the choice), clumps of pixels whose colour
    /// the ring around their hole region lacks are filled again as a smaller hole, the original
    /// hole never sampled, and kept where they bring clearly fewer such colours and do not erase
    /// a straight edge entering the hole (refill_foreign, inpaint_refill.hpp). On by default
    /// since the structure check (docs/notes/patchmatch.md).
    bool refill_foreign = true;
    /// PatchMatch on pictures: the blend's tone correction may not make colours the
    /// surroundings lack. At the end, each hole pixel that still holds PatchMatch's blended
    /// colour and whose 5-bit colour the 16-px known ring lacks (while its copied colour is
    /// the ring's) takes the largest part of its correction that keeps it to the ring's
    /// colours (keep_ring_colours, patchmatch.hpp; docs/notes/patchmatch.md).
    bool keep_colours = true;
};

/// The most a mask may be grown or shrunk by before a fill (the "grow" parameter; grow_mask).
inline constexpr int kMaxMaskGrow = 200;

inline constexpr int kMinPatch = 3;
inline constexpr int kMaxPatch = 31;

/// One iteration's decision: the target patch centre, the source patch centre, the SSD.
struct PatchChoice {
    std::int32_t target = 0;  ///< linear index y · width + x
    std::int32_t source = 0;
    std::uint32_t ssd = 0;
    friend bool operator==(const PatchChoice&, const PatchChoice&) = default;
};

struct InpaintProgress {
    std::int64_t filled = 0;  ///< pixels of the hole filled so far
    std::int64_t total = 0;   ///< pixels in the hole
    int iterations = 0;
    [[nodiscard]] bool done() const { return filled >= total; }
};

/// The region candidates are taken from, in source-centre coordinates (inclusive).
struct SearchRect {
    int x0 = 0, y0 = 0, x1 = -1, y1 = -1;
    friend bool operator==(const SearchRect&, const SearchRect&) = default;
};

/// The validated problem, shared by every implementation.
struct InpaintProblem {
    ImageRgba8 image;   ///< the input; hole pixels keep their values until filled
    Mask hole;          ///< 1 = to fill
    Mask valid_source;  ///< 1 = a complete patch centred here has no hole or never-sample pixel
    int radius = 4;
    SearchRect hole_box;
    SearchRect window;  ///< candidate centres (clipped to the image)
    bool coherence = true;
    InpaintMethod method = InpaintMethod::Criminisi;
    std::uint32_t seed = 1;
    std::int64_t hole_pixels = 0;
    std::vector<std::string> notes;  ///< e.g. the window had no source and full search was used
};

/// Validates and prepares: throws Error(InvalidArgument) with one clear sentence for a mask or
/// never-sample mask of the wrong size, a patch size that is even or out of 3..31, a patch larger
/// than the image, α < 0, or a mask that leaves no complete source patch. An empty mask is valid
/// (nothing to fill; a note says so).
InpaintProblem prepare_inpaint(ImageView<const Rgba8> image, const Mask& mask,
                               const InpaintParams& params);
/// The same problem, reading the mask only inside `mask_box`: the caller guarantees that every
/// non-zero pixel of `mask` lies there (the editor knows its stroke's box). Without a
/// never-sample mask the valid sources are then computed over the hole's box grown by the patch
/// radius, so a small hole in a large image costs its box (plus the image-sized copies the
/// problem holds: the image, the hole and the valid sources).
InpaintProblem prepare_inpaint(ImageView<const Rgba8> image, const Mask& mask,
                               const InpaintParams& params, const PixelRect& mask_box);

/// The step API: the editor advances a few iterations per frame and shows image() growing.
class Inpainter {
  public:
    virtual ~Inpainter() = default;
    /// Runs up to `iterations` more iterations (fewer when the hole is filled). Throws
    /// Error(Cancelled) if cancel() was called, leaving the state consistent.
    virtual InpaintProgress advance(int iterations) = 0;
    [[nodiscard]] virtual InpaintProgress progress() const = 0;
    /// The image as filled so far (a copy).
    [[nodiscard]] virtual ImageRgba8 image() const = 0;
    /// Every decision so far, in order.
    [[nodiscard]] virtual std::vector<PatchChoice> history() const = 0;
    [[nodiscard]] virtual const InpaintProblem& problem() const = 0;
    /// Thread-safe: asks a running advance() to stop at the next iteration.
    void cancel() { cancelled_.store(true); }
    /// Blends a finished 8-bit PatchMatch fill in the gradient domain where this inpainter can
    /// do it itself (the CUDA filler, on its device), so image() and copy_filled show the
    /// blended pixels from then on; false where it cannot, or is not done, and the caller
    /// blends image() with blend_fill instead (finished_image does both). Blends once.
    virtual bool blend_in_place(const BlendOptions& options) {
        (void)options;
        return false;
    }

  protected:
    void throw_if_cancelled() const;
    std::atomic<bool> cancelled_{false};
};

std::unique_ptr<Inpainter> make_inpainter(ImageView<const Rgba8> image, const Mask& mask,
                                          const InpaintParams& params,
                                          InpaintImplementation implementation);
/// The same filler on a problem prepare_inpaint made with `params` (the editor prepares it over
/// its stroke's box, and so prepares it once): the line continuation when params.lines, then
/// the implementation's filler.
std::unique_ptr<Inpainter> make_inpainter(InpaintProblem problem, const InpaintParams& params,
                                          InpaintImplementation implementation);

/// The CUDA filler working in device memory (the editor's device document).
class DeviceInpainter : public Inpainter {
  public:
    /// Copies the filled-so-far pixels of `rect` into `dst` at the same place, device to device
    /// on dst.stream() (dst is the image the filler started from, or one of its size).
    virtual void copy_filled(DeviceImage<Rgba8>& dst, const PixelRect& rect) const = 0;
};

/// `problem` comes from prepare_inpaint on a host copy of the same pixels with the hole
/// coverage >= 128 of `coverage` (the editor's host mirror). The device state (pixels, known,
/// luma, confidence, valid sources) is built by kernels from `pixels` and `coverage`: no
/// per-pixel upload. Same patches, same order as the other implementations. Throws
/// Error(CudaUnavailable / OutOfMemory / DeviceError).
std::unique_ptr<DeviceInpainter> make_device_inpainter(const DeviceImage<Rgba8>& pixels,
                                                       const DeviceImage<std::uint8_t>& coverage,
                                                       InpaintProblem problem);

/// Called between steps: return false to cancel.
using InpaintProgressCallback = std::function<bool(const InpaintProgress&)>;

struct InpaintResult {
    ImageRgba8 image;
    InpaintProgress progress;
    std::vector<std::string> notes;
};

/// Fills the whole hole. Throws Error(Cancelled) when the callback returns false.
InpaintResult inpaint(ImageView<const Rgba8> image, const Mask& mask, const InpaintParams& params,
                      InpaintImplementation implementation,
                      const InpaintProgressCallback& progress = {});

std::string to_string(InpaintMethod method);
/// "criminisi" or "patchmatch".
std::optional<InpaintMethod> parse_inpaint_method(const std::string& text);

/// Parses "window", "window:0.5" or "full" into params; false for anything else.
bool parse_inpaint_search(const std::string& text, InpaintParams& params);
std::string describe_search(const InpaintParams& params);

}  // namespace lacuna::ops
