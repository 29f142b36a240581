// Launchers for the seam-carving kernels (kernels/seam_carve.cu). The carving state is a set of
// linear buffers with a fixed row stride (a multiple of 16 elements, at least the original width):
// removing a seam shifts each row's right part left by one in place of reallocating.
#pragma once

#include <lacuna/core/pixel.hpp>
#include <lacuna/kernels/seam_energy.h>

#include <cuda_runtime_api.h>

#include <cstdint>

namespace lacuna::kernels {

/// Rows of the cumulative-cost map staged in shared memory per batch by the update kernel.
inline constexpr int kCarveBatchRows = 12;
/// Mask bits of the carving state: one byte per pixel; bits 2..7 hold the temporal level.
inline constexpr std::uint8_t kCarveProtectBit = 1;
inline constexpr std::uint8_t kCarveRemoveBit = 2;
inline constexpr int kCarveTemporalShift = 2;
/// Forward energy with folded levels (CarveState::level_unit): the 16-bit aux term holds the
/// intensity (0..765) in bits 0..9 and the level (0..63) in bits 10..15.
inline constexpr int kCarveLevelShift = 10;
inline constexpr int kCarveIntensityMask = (1 << kCarveLevelShift) - 1;

/// The carving state on the device, vertical seams (horizontal ones are carved on a transposed
/// copy). `aux` holds, per pixel, what the recurrence needs besides the row above: the intensity
/// R + G + B for forward energy, the pixel's gradient energy otherwise. Three layouts:
/// 8-bit without masks (int32 costs, int16 aux; a fixed level map may be folded in, see
/// `level_unit`), 8-bit with masks (int64 costs, int32 aux) and deep, a 16-bit decision image
/// (always with mask bits, possibly all zero: int64 costs, int32 aux, Rgba16 pixels).
struct CarveState {
    int stride = 0;  ///< elements per row, multiple of 16
    int width = 0;   ///< current width
    int height = 0;
    int original_width = 0;  ///< row stride of `order`
    SeamEnergy energy = SeamEnergy::Forward;
    bool masks = false;  ///< int64 costs, int32 aux and mask bits; int32 costs, int16 aux otherwise
    bool deep = false;   ///< Rgba16 pixels (needs masks); Rgba8 otherwise
    int temporal_unit = 0;  ///< cost per temporal level (mask bits 2..7; needs masks)
    /// A fixed per-pixel level 0..63 (importance, a distance map) carried with the pixel at this
    /// cost per level (0: none). Gradient energies keep the level in the alpha byte of `image`
    /// (moved with the pixel) and add level × unit where they compute the energies, so aux is
    /// energy + level term; forward energy keeps it in aux bits 10..15 (kCarveLevelShift) and the
    /// recurrence adds level × unit as the pixel's own term. Without masks this folds the map
    /// into the 32-bit layout (level_unit_folds must hold, see kMaxFoldedLevelTerm): the same
    /// costs as the masked layout. With masks (8-bit only) it is a second level field beside
    /// the mask bits' temporal level: video's importance and temporal term in one carve, with
    /// no extra per-pixel byte for the kernels to read or move.
    int level_unit = 0;
    void* aux = nullptr;            ///< int16 or int32 per pixel (see masks)
    void* cost = nullptr;           ///< int32 or int64 per pixel
    std::int8_t* parent = nullptr;  ///< -1, 0, 1: where each cell's cheapest path comes from
    std::int32_t* index = nullptr;  ///< original linear index of each remaining pixel
    std::uint8_t* mask = nullptr;   ///< kCarveProtectBit | kCarveRemoveBit; null without masks
    void* image = nullptr;  ///< Rgba8 or Rgba16 (deep); gradient energies only (they need colours)
    std::int32_t* seam = nullptr;   ///< height: the last seam found (columns before its removal)
    std::int32_t* order = nullptr;  ///< original_width × height: seam index per pixel
    std::int64_t* seam_costs = nullptr;         ///< per seam
    std::int32_t* protected_crossed = nullptr;  ///< per seam
    std::int32_t* remove_crossed = nullptr;     ///< per seam
    std::int64_t* stats =
        nullptr;  ///< [0] cells recomputed, [1] rows updated outside shared memory
    /// Video's per-seam term (with `temporal_unit`): where the previous frame's seams crossed each
    /// row, in original columns (seam k's row y at [k * height + y]), for `temporal_count` seams.
    /// Removing seam k moves the levels in the mask bits from seam k's crossing to seam k + 1's
    /// and writes the columns it changed per row to `temporal_window` ([2y], [2y + 1]; empty when
    /// the first is larger), which the next update recomputes as well.
    const std::int32_t* temporal_seams = nullptr;
    int temporal_count = 0;
    std::int32_t* temporal_window = nullptr;
    /// Video on the device (optional): the removal of seam k writes its crossing of row y, in
    /// original columns, to [k * height + y]: the next frame's `temporal_seams`.
    std::int32_t* crossings = nullptr;
    std::int64_t* clocks = nullptr;
    int debug = 0;  ///< experiments only (LACUNA_CARVE_DEBUG): 1 no strip stores, 2 no aux loads
                    ///< ///< per call, SM clocks: [0] update, [1] argmin and walk
};

/// Fills the state from a dense `width` × `height` image (Rgba8, or Rgba16 when deep; and optional
/// dense 0/1 masks and levels): aux, index, mask bits (`dense_temporal`'s levels in bits 2..7
/// with masks), `dense_levels` carried per `level_unit`, the colour copy for gradient energies;
/// sets `order` to "never removed". Returns cudaErrorInvalidValue for a `level_unit` without
/// levels, on a deep state, or without masks beyond level_unit_folds.
cudaError_t launch_carve_init(const CarveState& s, const void* dense_image,
                              const std::uint8_t* dense_protect, const std::uint8_t* dense_remove,
                              const std::uint8_t* dense_temporal, const std::uint8_t* dense_levels,
                              cudaStream_t stream);

/// Seam 0's per-seam levels for every pixel from `s.temporal_seams` (the mask bits kept), for a
/// chained carve whose previous frame's paths are produced on the device. Before seam 0 (no
/// pixel removed yet, so each pixel's original column is its column).
cudaError_t launch_carve_seam_levels(const CarveState& s, cudaStream_t stream);

/// Largest shared-memory window (columns) the update kernel can stage for this state; 0 when the
/// device cannot stage any (the kernel then reads global memory row by row).
int carve_window_capacity(const CarveState& s);

/// Blocks that work on one seam of this state (a thread-block cluster of 1, 2 or 4, chosen by
/// the map's size and whether it carries levels or masks; 1 where the device or the binary has
/// no clusters).
int carve_finder_blocks(const CarveState& s);
/// Forces the number of finder blocks (1, 2 or 4, within what the device allows) for every later
/// seam; 0 returns to the automatic choice. For tests and measurements.
void set_carve_finder_blocks(int blocks);

/// Cumulative costs and parents for seam `seam_index`, then its argmin and walk back into
/// `s.seam`. `full`: compute every cell (the first seam); otherwise only the cells that can have
/// changed since the previous seam (in `s.seam`) was removed, as the fast CPU carver does, with the
/// rows in batches staged in shared memory. The rows are a dependent chain: one block, or a
/// cluster of blocks that share each batch's strips (carve_finder_blocks).
cudaError_t launch_carve_find_seam(const CarveState& s, int seam_index, bool full,
                                   cudaStream_t stream);

/// Removes `s.seam` (found at width `s.width`) from every buffer in place, records it in `order`
/// and counts the mask pixels it crosses; for gradient energies also recomputes the energies next
/// to it (at width `s.width` − 1).
cudaError_t launch_carve_remove_seam(const CarveState& s, int seam_index, cudaStream_t stream);

/// out[x * height + y] = in[y * width + x]: a dense transpose of 4-, 8- or 1-byte elements.
cudaError_t launch_transpose32(const std::uint32_t* in, int width, int height, std::uint32_t* out,
                               cudaStream_t stream);
cudaError_t launch_transpose64(const std::uint64_t* in, int width, int height, std::uint64_t* out,
                               cudaStream_t stream);
cudaError_t launch_transpose8(const std::uint8_t* in, int width, int height, std::uint8_t* out,
                              cudaStream_t stream);

/// Retargeting's compaction of 4-byte (pixels, indices) and 1-byte (masks) images: the same as
/// launch_compact_rows.
cudaError_t launch_compact_rows32(const std::uint32_t* src, const std::int32_t* order, int width,
                                  int height, int count, std::uint32_t* dst, int dst_stride,
                                  cudaStream_t stream);
cudaError_t launch_compact_rows8(const std::uint8_t* src, const std::int32_t* order, int width,
                                 int height, int count, std::uint8_t* dst, int dst_stride,
                                 cudaStream_t stream);

/// The slider's compaction: keeps the pixels whose order is >= count, row by row (one block per
/// row). `dst` has row stride `dst_stride`.
cudaError_t launch_compact_rows(const Rgba8* src, const std::int32_t* order, int width, int height,
                                int count, Rgba8* dst, int dst_stride, cudaStream_t stream);

// ---- previews on pitched device images (kernels/seam_preview.cu) ----

/// What one preview pass does with the first `count` seams of an order (the host functions of
/// engine/ops/seam_carve/common.cpp): drop them, or follow each of their pixels by a new one (the
/// average with the neighbour across the seam, Rgba8 only; or a copy of the pixel).
enum class SeamPass { Remove, Insert, InsertNearest };

/// `src` and `order` have the same size; `dst` is the output's size (the caller sizes it).
/// `vertical`: rows are compacted or widened; otherwise columns, in place (no transpose).
/// Returns cudaErrorInvalidValue for Insert on std::uint8_t (averaging is defined on colours).
cudaError_t launch_seam_pass(SeamPass pass, bool vertical, const ImageView<const Rgba8>& src,
                             const ImageView<const std::int32_t>& order, int count,
                             const ImageView<Rgba8>& dst, cudaStream_t stream);
cudaError_t launch_seam_pass(SeamPass pass, bool vertical, const ImageView<const std::uint8_t>& src,
                             const ImageView<const std::int32_t>& order, int count,
                             const ImageView<std::uint8_t>& dst, cudaStream_t stream);

/// dst = src with every pixel whose order is below `count` set to `colour` (same sizes).
cudaError_t launch_paint_seams(const ImageView<const Rgba8>& src,
                               const ImageView<const std::int32_t>& order, int count, Rgba8 colour,
                               const ImageView<Rgba8>& dst, cudaStream_t stream);

}  // namespace lacuna::kernels
