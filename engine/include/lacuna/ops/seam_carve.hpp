// Seam carving (Avidan & Shamir 2007): shrink or enlarge an image by removing or
// duplicating 8-connected seams of least energy. The heart is the seam-order map: the order in
// which every pixel of the image would be removed, computed once; any width between the original
// and the computed minimum is then one compaction pass (the editor's slider), and enlarging
// duplicates the first k seams of that order.
//
// Implementations: a CPU reference (recomputes everything for each seam, obviously right), a fast
// CPU carver (local energy and cumulative-cost updates), and CUDA. All pick identical seams:
// integer energies from kernels/seam_energy.h, leftmost tie-break.
#pragma once

#include <lacuna/core/device_image.hpp>
#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>
#include <lacuna/core/native_image.hpp>
#include <lacuna/kernels/seam_energy.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lacuna::ops {

/// Vertical seams run top to bottom and change the width; horizontal seams change the height.
enum class SeamDirection { Vertical, Horizontal };
enum class CarveImplementation { Reference, Fast, Cuda };

inline constexpr std::int32_t kNeverRemoved = std::numeric_limits<std::int32_t>::max();

/// Where the seams of an earlier carve crossed each line (row for vertical seams, column for
/// horizontal ones), in the line's original coordinates: video's per-seam temporal term.
struct SeamPaths {
    int lines = 0;                        ///< rows (vertical seams) or columns (horizontal seams)
    int count = 0;                        ///< seams held
    std::vector<std::int32_t> positions;  ///< seam k's position in line y at [k * lines + y]
    [[nodiscard]] std::int32_t at(const int seam, const int line) const {
        return positions[static_cast<std::size_t>(seam) * lines + line];
    }
};

/// What a carve decides on: an 8-bit image (photos), or a 16-bit decision image (measurement
/// documents: deep_carving_proxy). Both give the same seams for an image and its ×257 copy.
template <class Pixel>
struct BasicCarveInput {
    ImageView<const Pixel> image;
    const Mask* protect = nullptr;  ///< non-zero: avoid carving while any other seam exists
    const Mask* remove = nullptr;   ///< non-zero: carve these first (object removal)
    SeamEnergy energy = SeamEnergy::Forward;
    /// Per pixel a level 0 .. kTemporalLevels − 1, each level adding `temporal_unit`
    /// (0 .. kTemporalMaxUnit) to the pixel's energy: video's distance levels
    /// (temporal_distance_map).
    const Mask* temporal = nullptr;
    /// Video, per seam (instead of `temporal`): seam k's pixels cost `temporal_unit` per column
    /// (row, for horizontal seams) of distance to where seam k of these paths crossed their line,
    /// capped at kSeamTemporalCap (seam_temporal_level). Must hold at least the seams asked for.
    const SeamPaths* temporal_seams = nullptr;
    int temporal_unit = 0;
    /// A still's importance levels 0 .. kTemporalLevels − 1 (importance_map: faces, saliency,
    /// lines, skin), each level adding `importance_unit` (0 .. kTemporalMaxUnit) to the pixel's
    /// energy. The carvers evaluate it as the per-pixel level term (so reference, fast CPU and
    /// CUDA pick the same seams); it is its own field because it scales differently: the
    /// approximate preview keeps the largest level of a block, undivided, where video's
    /// distances are divided by the factor and the nearest is kept. Beside a temporal term
    /// (video with faces) both terms are added: the reference sums them, the fast CPU carver
    /// keeps a second level array, CUDA carries the importance level with the pixel while the
    /// temporal level stays in the mask bits (a 16-bit decision image on CUDA refuses the pair).
    const Mask* importance = nullptr;
    int importance_unit = 0;
};
using CarveInput = BasicCarveInput<Rgba8>;
using DeepCarveInput = BasicCarveInput<Rgba16>;

struct SeamOrder {
    SeamDirection direction = SeamDirection::Vertical;
    int width = 0;  ///< of the image the order was computed on
    int height = 0;
    int seams = 0;  ///< how many seams were found (the order's depth)
    /// Per pixel of that image: the index of the seam that removes it, or kNeverRemoved.
    Image<std::int32_t> order;
    std::vector<std::int64_t> costs;              ///< per seam: energy plus mask terms
    std::vector<std::int32_t> protected_crossed;  ///< per seam: protected pixels it removes
    std::vector<std::int32_t> remove_crossed;     ///< per seam: pixels marked for removal it takes
};

/// The first `count` seams of an order as paths; throws InvalidArgument when it holds fewer.
SeamPaths seam_paths(const SeamOrder& order, int count);

/// Progress of a long computation: seams done so far and the total; return false to cancel.
using CarveProgress = std::function<bool(int done, int total)>;

/// Finds `seams` seams in `direction`, removing each before finding the next. Throws
/// Error(InvalidArgument) for masks of the wrong size or more seams than the image allows.
SeamOrder seam_order_reference(const CarveInput& input, SeamDirection direction, int seams);
SeamOrder seam_order_fast(const CarveInput& input, SeamDirection direction, int seams,
                          const CarveProgress& progress = {});
/// CUDA: the whole carve stays on the device (no host round trip per seam): the cumulative-cost
/// map is updated incrementally after each removal (only cells that can change are recomputed),
/// horizontal seams are carved on a transposed copy made on the device. `progress` is called on
/// the calling thread every few dozen seams (the device keeps working meanwhile); returning false
/// cancels (Error(Cancelled)). Throws Error(CudaUnavailable) without a CUDA build or device.
SeamOrder seam_order_cuda(const CarveInput& input, SeamDirection direction, int seams,
                          const CarveProgress& progress = {});

/// Where the CUDA carver's time goes, per seam on average (device time from CUDA events and the
/// device's global timer; the profiled run serialises the stages, so it is slower than a plain
/// run). Cells: cost cells recomputed per seam, to compare with width × height.
/// seam_order_fast_profiled fills seams, total_ms (wall), the cells, changed_cells_per_seam and
/// the layout; the stage times stay 0.
struct CarveProfile {
    int seams = 0;
    double total_ms = 0;             ///< the whole profiled carve, events around everything
    double setup_ms = 0;             ///< upload, transpose, first full cost map
    double update_ms_per_seam = 0;   ///< incremental cumulative-cost update (energy terms inside)
    double walk_ms_per_seam = 0;     ///< argmin of the last row and the walk back
    double removal_ms_per_seam = 0;  ///< in-place removal (+ gradient energies next to it)
    double cells_per_seam = 0;
    /// Fast CPU carver only: of the cells recomputed, those whose cost changed. Any exact
    /// incremental update must recompute at least these; the difference is the band's slack.
    double changed_cells_per_seam = 0;
    /// Inside the update: compute warps waiting at batch boundaries, computing rows (of which in
    /// the register strips); the stager warps staging the next batch.
    double batch_wait_ms_per_seam = 0, rows_ms_per_seam = 0;
    double strips_ms_per_seam = 0, stager_ms_per_seam = 0;
    double sm_mhz = 0;  ///< the finder's clock, from its SM cycles over event time
    /// Blocks (SMs) that shared each seam's update: a thread-block cluster where the device has
    /// them (set_cuda_finder_blocks); the first incremental seam's choice.
    int finder_blocks = 0;
    double direct_rows_share = 0;  ///< rows whose band was too wide for shared memory
    /// The layout the carve took: 32-bit costs (no masks; a level map such as importance folded
    /// in when `folded_levels`) or 64-bit (protect/remove masks, per-seam levels, or levels at a
    /// unit too large to fold: kMaxFoldedLevelTerm).
    int cost_bits = 0;
    bool folded_levels = false;
};
/// The fast CPU carve with its incremental update's work counted (for `lacuna bench retarget`:
/// cells recomputed and changed per seam, the layout taken). Same result as seam_order_fast.
SeamOrder seam_order_fast_profiled(const CarveInput& input, SeamDirection direction, int seams,
                                   CarveProfile& profile);
/// The CUDA carve with per-stage timing (for `lacuna bench retarget`). Same result.
SeamOrder seam_order_cuda_profiled(const CarveInput& input, SeamDirection direction, int seams,
                                   CarveProfile& profile);
/// How many blocks (SMs) the CUDA carver's seam finder uses from now on, for every carve in the
/// process: 1, 2 or 4 (within what the device allows), or 0 for the automatic choice by the map's
/// size and levels. The seams do not depend on it; tests and measurements set it. No-op without
/// CUDA.
void set_cuda_finder_blocks(int blocks);

/// Video on the device: the seams of a run of frames (same size), each frame with the per-seam
/// temporal term of the frame before it where `follows[f]` (frame 0 follows `first_previous`,
/// which may then not be null; the inputs' own temporal fields are ignored, their importance
/// maps are added to the term), at `temporal_unit`.
/// The same orders as seam_order_cuda frame after frame with temporal_seams = the previous
/// order's seam_paths, but carved as a wavefront: frame f's seam k needs only frame f − 1's seam
/// k + 1, so the frames' chains of seams run side by side on separate streams (one SM each).
/// Throws what seam_order_cuda throws; InvalidArgument for frames of different sizes.
std::vector<SeamOrder> seam_orders_cuda_chained(const std::vector<CarveInput>& frames,
                                                SeamDirection direction, int seams,
                                                const SeamPaths* first_previous,
                                                const std::vector<bool>& follows,
                                                int temporal_unit);
/// The same on the CPU: every frame's fast carver on its own thread, each waiting only for the
/// previous frame's seam k + 1 before its seam k + 1 (the same orders as seam_order_fast frame
/// after frame).
std::vector<SeamOrder> seam_orders_fast_chained(const std::vector<CarveInput>& frames,
                                                SeamDirection direction, int seams,
                                                const SeamPaths* first_previous,
                                                const std::vector<bool>& follows,
                                                int temporal_unit);

/// The same three carvers on a 16-bit decision image: 32-bit energies and 64-bit costs
/// throughout (an 8-bit carve keeps 16-bit energies and, without masks, 32-bit costs). Same
/// seams on all three; same errors, progress and cancel.
SeamOrder seam_order_reference(const DeepCarveInput& input, SeamDirection direction, int seams);
SeamOrder seam_order_fast(const DeepCarveInput& input, SeamDirection direction, int seams,
                          const CarveProgress& progress = {});
SeamOrder seam_order_cuda(const DeepCarveInput& input, SeamDirection direction, int seams,
                          const CarveProgress& progress = {});

/// Approximate-first preview: the seam order of the image box-downscaled by `factor` (a power of
/// two, >= 2), upsampled so that coarse seam k becomes seams factor·k … factor·k + factor − 1
/// (column (row) j of each coarse pixel's block gets seam factor·k + j). Every row keeps exactly
/// one pixel per seam index, so any compaction of it is a valid image; the last width % factor
/// columns are never removed. Masks are downscaled with "any pixel set". `seams` is rounded down
/// to a multiple of factor. Cost and crossing vectors are per fine seam: each of the factor fine
/// seams of coarse seam k repeats its cost (measured on the downscaled image); the crossing counts
/// are counted on the full-size masks. `progress` counts coarse seams. Throws InvalidArgument for
/// a factor that is not such a power of two, or more seams than the downscaled image allows.
SeamOrder seam_order_approximate(const CarveInput& input, SeamDirection direction, int seams,
                                 int factor, CarveImplementation implementation,
                                 const CarveProgress& progress = {});
/// The factor that makes a preview cheap: the smallest power of two whose downscaled image has at
/// most `max_pixels` pixels (1 when the image is already that small). The default keeps a 4K
/// preview's map under 100 ms on an H100 (factor 8; 1080p: factor 4).
int approximate_factor(int width, int height, std::int64_t max_pixels = 300000);
/// How far an approximate order is from the exact one at `count` seams (both orders of the same
/// image and direction): the share of the removed pixels that only one of them removes
/// (|symmetric difference| / (2 · count · rows), rows: columns for horizontal seams), and the
/// summed energy of each's removed set: |I(x+1,y) − I(x−1,y)| + |I(x,y+1) − I(x,y−1)| per pixel,
/// I = r + g + b, borders clamped.
struct OrderDistance {
    double differing_share = 0;
    std::int64_t exact_energy = 0;
    std::int64_t approximate_energy = 0;
};
OrderDistance order_distance(ImageView<const Rgba8> image, const SeamOrder& exact,
                             const SeamOrder& approximate, int count);
SeamOrder seam_order(const CarveInput& input, SeamDirection direction, int seams,
                     CarveImplementation implementation, const CarveProgress& progress = {});
SeamOrder seam_order(const DeepCarveInput& input, SeamDirection direction, int seams,
                     CarveImplementation implementation, const CarveProgress& progress = {});

/// One compaction pass: the image without the first `count` seams of `order`.
template <class T>
Image<T> remove_seams(ImageView<const T> image, const SeamOrder& order, int count);

/// Enlarges by `count` (at most order.seams): every pixel of the first `count` seams is followed
/// by a new pixel, the average of it and its original neighbour across the seam.
ImageRgba8 insert_seams(ImageView<const Rgba8> image, const SeamOrder& order, int count);
// ---- measurement images: seams found on a 16-bit decision image, applied to the samples ----

/// The image a measurement's seams are found on: every sample normalised over the finite range of
/// all its colour channels (raw_lo → 0, raw_hi → 255, rounded; NaN → 0), grey copied to R, G, B,
/// alpha opaque. Integer samples use exact integer arithmetic, so an 8-bit image and its ×257
/// 16-bit copy give the same decision image, hence the same seams.
struct CarvingProxy {
    ImageRgba8 image;
    double raw_lo = 0;  ///< the stored sample shown as 0
    double raw_hi = 0;  ///< … and as 255 (raw_lo when the image is constant)
};
CarvingProxy carving_proxy(const NativeImage& samples);
/// The same normalisation over a given range (a region of a document whose range is known).
CarvingProxy carving_proxy(const NativeImage& samples, double raw_lo, double raw_hi);
/// The image a measurement's seams are decided on, at full precision: the same normalisation to
/// 0..65535 (an 8-bit image gives 257 × its levels, a 16-bit image spanning its whole type range
/// keeps every sample; float keeps 16 bits of its range). Integer samples round exactly, so an
/// 8-bit image and its ×257 copy give the same decision image. Range as in carving_proxy.
struct DeepCarvingProxy {
    Image<Rgba16> image;
    double raw_lo = 0;
    double raw_hi = 0;
};
DeepCarvingProxy deep_carving_proxy(const NativeImage& samples);
/// The same over a given range (a carved copy of a document keeps deciding on the document's
/// range: raw_lo → 0, raw_hi → 65535, samples outside clamped).
DeepCarvingProxy deep_carving_proxy(const NativeImage& samples, double raw_lo, double raw_hi);
/// deep_carving_proxy(samples, raw_lo, raw_hi) computed on the device from a measurement
/// document's device rows (the stored samples as raw rows of `width` pixels of `format`), on the
/// rows' stream: the same image, bit for bit. Throws Error(CudaUnavailable) without CUDA.
DeviceImage<Rgba16> deep_carving_proxy(const DeviceImage<std::uint8_t>& rows, PixelFormat format,
                                       int width, double raw_lo, double raw_hi);
/// The stored samples without the first `count` seams of `order`: pixels are moved, never
/// converted (any sample type and channel count).
NativeImage remove_seams(const NativeImage& samples, const SeamOrder& order, int count);
/// Enlarges like insert_seams: each new pixel is the average of its two neighbours in the stored
/// type (integers rounded half up, float exactly; NaN stays NaN).
NativeImage insert_seams(const NativeImage& samples, const SeamOrder& order, int count);

/// Carries a per-pixel map (masks, indices) through insert_seams: new pixels copy their source.
template <class T>
Image<T> insert_seams_nearest(ImageView<const T> image, const SeamOrder& order, int count);

/// The editor's slider on the GPU: the image and its vertical seam order live on the device; each
/// frame is one compaction kernel.
class CudaSeamSlider {
  public:
    CudaSeamSlider(ImageView<const Rgba8> image, const SeamOrder& order);
    ~CudaSeamSlider();
    CudaSeamSlider(const CudaSeamSlider&) = delete;
    CudaSeamSlider& operator=(const CudaSeamSlider&) = delete;
    /// The image without the first `count` seams, copied back to the host.
    ImageRgba8 frame(int count);
    /// Median device time of one frame (CUDA events, after a warm-up).
    double time_frame_ms(int count, int repeats);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// ---- device-resident maps and previews (the editor's GPU path) ----

/// A seam-order map in device memory (the editor keeps its maps there between interactions).
struct DeviceSeamOrder {
    SeamDirection direction = SeamDirection::Vertical;
    int width = 0;  ///< of the image the order was computed on
    int height = 0;
    int seams = 0;
    DeviceImage<std::int32_t> order;
};

/// A host map moved to the device once (approximate maps, maps the CPU carved).
DeviceSeamOrder upload_order(const SeamOrder& order, DeviceStream stream);
/// The inverse (applying a device map to host samples): the order only, no costs.
SeamOrder download_order(const DeviceSeamOrder& order);

/// Inputs already on the device. The caller must leave them unchanged until the carve returns.
template <class Pixel>
struct BasicDeviceCarveInput {
    const DeviceImage<Pixel>* image = nullptr;
    const DeviceImage<std::uint8_t>* protect = nullptr;  ///< optional, the image's size
    const DeviceImage<std::uint8_t>* remove = nullptr;   ///< optional, the image's size
    SeamEnergy energy = SeamEnergy::Forward;
    /// Optional importance levels 0 .. kTemporalLevels − 1, the image's size, each costing
    /// `importance_unit`: BasicCarveInput::importance on the device (the levels are not checked
    /// there; values above 63 are the caller's error).
    const DeviceImage<std::uint8_t>* importance = nullptr;
    int importance_unit = 0;
};
using DeviceCarveInput = BasicDeviceCarveInput<Rgba8>;
/// A measurement's 16-bit decision image on the device (deep_carving_proxy of its device rows).
using DeepDeviceCarveInput = BasicDeviceCarveInput<Rgba16>;

/// The CUDA carve from device inputs, the map left on the device: no pixel, mask or map crosses
/// to the host. Same seams as seam_order_cuda; same errors and progress/cancel.
DeviceSeamOrder seam_order_cuda(const DeviceCarveInput& input, SeamDirection direction, int seams,
                                const CarveProgress& progress = {});
/// The same on every bit of a measurement: the seams of seam_order_cuda(DeepCarveInput) of the
/// same decision image, the map left on the device.
DeviceSeamOrder seam_order_cuda(const DeepDeviceCarveInput& input, SeamDirection direction,
                                int seams, const CarveProgress& progress = {});

/// Device versions of remove_seams / insert_seams / insert_seams_nearest: `dst` (resized,
/// grow-only) gets exactly what the host functions return for the same order and count. Run on
/// dst.stream(); `image` must be the order's size; count <= order.seams.
template <class T>
void remove_seams(const DeviceImage<T>& image, const DeviceSeamOrder& order, int count,
                  DeviceImage<T>& dst);
void insert_seams(const DeviceImage<Rgba8>& image, const DeviceSeamOrder& order, int count,
                  DeviceImage<Rgba8>& dst);
template <class T>
void insert_seams_nearest(const DeviceImage<T>& image, const DeviceSeamOrder& order, int count,
                          DeviceImage<T>& dst);

/// The retarget panel's "show seams" view: the image with every pixel of the first `count` seams
/// painted `colour`. Host reference and device version (dst resized, on dst.stream()).
ImageRgba8 paint_seams(ImageView<const Rgba8> image, const SeamOrder& order, int count,
                       Rgba8 colour);
void paint_seams(const DeviceImage<Rgba8>& image, const DeviceSeamOrder& order, int count,
                 Rgba8 colour, DeviceImage<Rgba8>& dst);

/// A distance between the original and one candidate of the automatic mix (lower: chosen).
using MixDistance =
    std::function<double(ImageView<const Rgba8> original, ImageView<const Rgba8> candidate)>;

struct RetargetParams {
    int width = 0;  ///< target size in pixels: 1 .. 2 × the original
    int height = 0;
    SeamEnergy energy = SeamEnergy::Forward;
    const Mask* protect = nullptr;
    const Mask* remove = nullptr;
    bool want_overlay =
        false;  ///< draw the removed (red/blue) and inserted (green) seams on the original
    /// Importance levels 0 .. 63 (importance_map), the image's size: each level costs
    /// `importance_unit` more to carve (a soft protection; see importance_unit()).
    const Mask* importance = nullptr;
    int importance_unit = 48;
    /// The share (percent) of each side's change made by seams; the rest is uniform scaling
    /// (Photoshop's Content-Aware Scale Amount). 100: seams only, 0: plain scaling.
    double amount = 100;
    /// Per side, choose crop, seams and scaling together: the candidate whose result is most
    /// like the original by bidirectional similarity (Simakov et al. 2008; Dong et al. 2009
    /// pick the seam count the same way). Cropping never cuts into a protected pixel or an
    /// importance level of kCropKeepLevel or more (of `crop_keep` when given). `amount` is then
    /// ignored.
    bool automatic = false;
    /// The levels the automatic mix's crop reads (what it keeps at kCropKeepLevel or more, and
    /// the importance in a margin's detail), the image's size: ImportanceMap::crop_levels(), the
    /// levels without the lines term (a straight line cut by a crop stays straight, only
    /// shorter). Null: `importance`. The seams never see it.
    const Mask* crop_keep = nullptr;
    /// The automatic mix's distance in place of the bidirectional dissimilarity (null: that).
    /// For measuring the choice apart from the candidates (`lacuna bench retarget-quality
    /// --ars-pick` picks by the score itself, to show how much the candidates allow); called
    /// on each side's vertical work (the height's on transposed images).
    const MixDistance* mix_distance = nullptr;
};

/// Importance levels from this one up (half a face's weight) are never cropped away.
inline constexpr int kCropKeepLevel = 32;

/// What one side (width or height) of a mixed retarget did, in this order: cut `crop` pixels
/// (the kept window starting at `crop_offset`), carved or duplicated `seams`, then scaled
/// `scaled_from` → `scaled_to` (equal: no scaling).
struct SideMix {
    int original = 0;
    int target = 0;
    int crop = 0;
    int crop_offset = 0;
    int seams = 0;                            ///< removed when shrinking, duplicated when enlarging
    SeamEnergy energy = SeamEnergy::Forward;  ///< of those seams (automatic: forward or L1)
    int scaled_from = 0;
    int scaled_to = 0;
    double distance = 0;  ///< automatic: the chosen candidate's bidirectional dissimilarity
    int candidates = 0;   ///< automatic: how many mixes were compared
};

struct RetargetResult {
    ImageRgba8 image;
    ImageRgba8 overlay;
    int seams_removed_vertical = 0;
    int seams_removed_horizontal = 0;
    int seams_inserted_vertical = 0;
    int seams_inserted_horizontal = 0;
    bool width_first = true;  ///< order chosen when both dimensions shrink
    std::int64_t total_cost = 0;
    std::int64_t protected_removed = 0;  ///< protected pixels that had to be carved
    std::int64_t remove_left = 0;        ///< pixels marked for removal still in the result
    std::vector<std::string> notes;      ///< things the user should know (protection crossed …)
    bool mixed = false;  ///< amount < 100 or automatic: `width_mix` and `height_mix` tell how
    SideMix width_mix, height_mix;
};

/// Bidirectional dissimilarity (Simakov et al. 2008) of `a` and `b`, which have the same height:
/// both reduced by one integer factor f = ceil(longest side of `a` / `side`) over whole groups of
/// f × f pixels, each at min(f, 4) column phases (a patch's nearest is looked for among all
/// phases of the other image, so a shifted copy finds itself), 5 × 5 patches, mean
/// squared RGB difference of each patch of `a` to its nearest in `b` (completeness, weighted by
/// 1 + level / 16 of `a_importance` when given) plus each patch of `b` to its nearest in `a`
/// (coherence). Rows correspond, so a patch's match is looked for within one row of its own.
/// Two scales, averaged (Simakov et al.'s measure is multi-scale): copies about `side` long,
/// searched along the whole rows, and copies about 2 × `side` long (when that is a smaller
/// factor), where each patch's nearest is searched within 3 reduced columns of where its
/// coarse patch found its own (coarse to fine).
double bidirectional_dissimilarity(ImageView<const Rgba8> a, ImageView<const Rgba8> b,
                                   const Mask* a_importance = nullptr, int side = 64);

/// Uniform resampling to `width` × `height`: area averaging where a side shrinks (exact
/// fractional coverage), linear interpolation where it grows. The plain-scaling operator.
ImageRgba8 resample_area(ImageView<const Rgba8> image, int width, int height);

/// Validates the request (Error(InvalidArgument) with a clear sentence: target 0 or beyond twice
/// the original, masks of the wrong size, a protect mask covering everything, a 1×1 image asked
/// to change) and retargets. Shrinking both dimensions tries both orders and keeps the cheaper;
/// enlarging goes in steps of at most 50 % so seams do not pile up.
RetargetResult retarget(ImageView<const Rgba8> image, const RetargetParams& params,
                        CarveImplementation implementation, const CarveProgress& progress = {});
/// The same, carving the caller's image in place of a copy of it: for a large photo that the
/// caller no longer needs (the CLI), one RGBA image less alive while the seams are found. The
/// same result as retarget(image.view(), …). Where both sides shrink, the first of the two orders
/// still works on a copy (the second needs the original).
RetargetResult retarget(ImageRgba8&& image, const RetargetParams& params,
                        CarveImplementation implementation, const CarveProgress& progress = {});

/// A measurement retargeted: the stored samples carved or enlarged, and what a photo's retarget
/// reports (`summary.image` is left empty; `summary.overlay` is the original's 8-bit proxy with
/// the seams painted, when asked for).
struct NativeRetargetResult {
    NativeImage samples;
    RetargetResult summary;
};

/// Retargets a measurement by seams, as the editor does: every seam is decided on the 16-bit
/// decision image (deep_carving_proxy over the original's finite range, kept for every pass, so
/// an 8-bit image and its ×257 copy give the same seams), and the stored samples are moved
/// (remove_seams / insert_seams on NativeImage: never converted; enlarging averages in the stored
/// type). Both orders when both sides shrink, enlarging in steps of at most 50 %, masks carried,
/// like retarget(). Error(InvalidArgument) as retarget() does, and for what would change stored
/// values or weigh photo content: an amount below 100 or automatic (they scale), importance levels.
/// The measurement-only refusals of that retarget (Error(InvalidArgument)), for callers that
/// check a request before they choose a device.
void check_measurement_retarget(const RetargetParams& params);
NativeRetargetResult retarget(const NativeImage& samples, const RetargetParams& params,
                              CarveImplementation implementation,
                              const CarveProgress& progress = {});

/// Seams needed to carve away every pixel of `remove` in one direction: the widest run of marked
/// pixels in any row (vertical) or column (horizontal).
int seams_to_clear(const Mask& remove, SeamDirection direction);

std::string to_string(SeamEnergy energy);
std::optional<SeamEnergy> parse_seam_energy(const std::string& text);

namespace detail {
/// Tests: while one lives, the fast CPU carver stores each row in blocks of `pixels` pixels
/// (0: its own choice, one block for rows up to 2048 wide), so small images exercise the
/// block ends an 8K row has. Not thread-safe against carves running meanwhile. (The parameter
/// is not called `slots`: Qt defines that word away in every file that includes QObject.)
class ScopedCarveBlockSlots {
  public:
    explicit ScopedCarveBlockSlots(int pixels);
    ~ScopedCarveBlockSlots();
    ScopedCarveBlockSlots(const ScopedCarveBlockSlots&) = delete;
    ScopedCarveBlockSlots& operator=(const ScopedCarveBlockSlots&) = delete;

  private:
    int previous_;
};
}  // namespace detail

}  // namespace lacuna::ops
