// Seam previews on pitched device images: the retarget slider's per-frame work (remove or insert
// the first `count` seams of a seam-order map) and the "show seams" view, equal bit for bit to the
// host passes in engine/ops/seam_carve/common.cpp.
//
// Bytes bound these passes (a 4K frame reads 33 MB of order and 33 MB of pixels), so each kernel
// reads the order and the pixels once, coalesced (insert re-reads one neighbour per step or tile),
// and needs no block-wide barrier per row:
// - Vertical seams (rows change width): one warp per row walks it in steps of kChunks chunks of
//   32 pixels. A ballot of the flags and a running count give every pixel its output column; all
//   of a step's loads are issued before its first ballot, so each warp keeps several in flight.
// - Horizontal seams (columns change height), without a transpose: a block owns kColumns adjacent
//   columns (one 32-byte sector of the order per row) and walks down in tiles of kTileRows rows.
//   A tile is loaded row-wise (coalesced) into shared memory while the previous one is processed;
//   then each warp takes one column, its lanes down the rows, and counts as the row kernel does.
//   Stores go down a column, one element per row; neighbouring warps fill the rest of each sector
//   at about the same time, so the L2 merges them before they reach memory.
// H100, 3840×2160 Rgba8, half of a random valid order's seams (test_seam_carve_cuda
// preview_times_4k, median device time): vertical remove 0.040 ms, insert 0.055 ms; horizontal
// remove 0.12 ms, insert 0.20 ms (the scattered column stores); paint 0.053 ms. The dense slider
// compaction (launch_compact_rows) took 0.073 ms for the vertical remove.
#include <lacuna/kernels/seam_kernels.h>

#include <cstdint>
#include <type_traits>

namespace lacuna::kernels {
namespace {

constexpr unsigned kFull = 0xffffffffu;
constexpr int kRowWarps = 8;  // rows per block of the row kernel
constexpr int kChunks = 8;    // 32-pixel chunks per step of a row's warp
constexpr int kColumns = 8;   // columns per block of the column kernel: one warp each
constexpr int kTileRows = 64;
constexpr int kLoadRows = 32;  // one load per thread: kColumns warps cover kColumns × 32 elements
static_assert(kTileRows % kLoadRows == 0, "a tile is whole load passes and whole warps of rows");

/// The host's insert_seams average of two Rgba8 pixels held as words (memory order R, G, B, A
/// from the low byte up): rounded half up, per channel.
__device__ __forceinline__ std::uint32_t average(const std::uint32_t a, const std::uint32_t b) {
    std::uint32_t out = 0;
#pragma unroll
    for (int shift = 0; shift < 32; shift += 8) {
        const std::uint32_t p = (a >> shift) & 0xffu, q = (b >> shift) & 0xffu;
        out |= ((p + q + 1) / 2) << shift;
    }
    return out;
}

/// The flag a pass counts: kept pixels (Remove) or pixels followed by a new one (Insert*).
template <SeamPass P>
__device__ __forceinline__ bool flagged(const std::int32_t order, const int count) {
    return P == SeamPass::Remove ? order >= count : order < count;
}

// W: the pixel as a word (Rgba8 as std::uint32_t: Rgba8 is byte-aligned, so the compiler would
// move it byte by byte; pitched rows are 4-byte aligned).
template <class W, SeamPass P>
__global__ void __launch_bounds__(kRowWarps * 32)
    rows_kernel(const ImageView<const W> src, const ImageView<const std::int32_t> order,
                const int count, const ImageView<W> dst) {
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int y = static_cast<int>(blockIdx.x) * kRowWarps + static_cast<int>(threadIdx.x >> 5);
    if (y >= src.height) return;  // whole warps: the ballots below stay full
    const int w = src.width, out_w = dst.width;
    const W* in = src.row(y);
    const std::int32_t* o = order.row(y);
    W* out = dst.row(y);
    const unsigned lanes_before = (1u << lane) - 1u;
    int carry = 0;  // Remove: pixels kept so far in this row; Insert*: pixels inserted so far
    for (int base = 0; base < w; base += 32 * kChunks) {
        std::int32_t ov[kChunks];
        W pv[kChunks];
#pragma unroll
        for (int k = 0; k < kChunks; ++k) {
            const int x = base + k * 32 + lane;
            ov[k] = x < w ? o[x] : 0;
            pv[k] = x < w ? in[x] : W{};
        }
#pragma unroll
        for (int k = 0; k < kChunks; ++k) {
            const int x = base + k * 32 + lane;
            const bool inside = x < w;
            const bool flag = inside && flagged<P>(ov[k], count);
            const unsigned ballot = __ballot_sync(kFull, flag);
            const int before = carry + __popc(ballot & lanes_before);
            // The bounds checks only matter for a map that is not a seam order (a row holding a
            // seam index twice): they keep such a map from writing outside the image.
            if constexpr (P == SeamPass::Remove) {
                if (flag && before < out_w) out[before] = pv[k];
            } else {
                W extra = pv[k];
                if constexpr (P == SeamPass::Insert) {
                    // The neighbour across the seam is the next pixel of the row (clamped): the
                    // next lane, the next chunk's first lane, or memory after a step's last one.
                    const W in_chunk = __shfl_down_sync(kFull, pv[k], 1);
                    const W next_chunk = __shfl_sync(kFull, pv[k + 1 < kChunks ? k + 1 : k], 0);
                    W right = pv[k];
                    if (x + 1 < w) {
                        right = lane < 31 ? in_chunk : k + 1 < kChunks ? next_chunk : in[x + 1];
                    }
                    extra = average(pv[k], right);
                }
                const int at = x + before;
                if (inside && at < out_w) out[at] = pv[k];
                if (flag && at + 1 < out_w) out[at + 1] = extra;
            }
            carry += __popc(ballot);
        }
    }
}

template <class W, SeamPass P>
__global__ void __launch_bounds__(kColumns * 32)
    columns_kernel(const ImageView<const W> src, const ImageView<const std::int32_t> order,
                   const int count, const ImageView<W> dst) {
    constexpr bool kBelow = P == SeamPass::Insert;  // needs the pixel below each one
    constexpr int kPasses = kTileRows / kLoadRows;
    __shared__ std::int32_t tile_order[kTileRows][kColumns + 1];  // +1: no bank conflicts
    __shared__ W tile_pixels[kTileRows + 1][kColumns + 1];        // + the row below the tile
    const int w = src.width, h = src.height, out_h = dst.height;
    const int x0 = static_cast<int>(blockIdx.x) * kColumns;
    // Loading: kColumns threads per row, coalesced.
    const int load_column = static_cast<int>(threadIdx.x) % kColumns;
    const int load_row = static_cast<int>(threadIdx.x) / kColumns;
    const bool loads = x0 + load_column < w;
    // Counting: one warp per column, lanes down the rows.
    const int warp = static_cast<int>(threadIdx.x >> 5), lane = static_cast<int>(threadIdx.x) & 31;
    const int x = x0 + warp;
    const unsigned lanes_before = (1u << lane) - 1u;

    std::int32_t next_order[kPasses];
    W next_pixels[kPasses];
    W next_below{};
    const auto load = [&](const int y0) {
#pragma unroll
        for (int r = 0; r < kPasses; ++r) {
            const int y = y0 + load_row + r * kLoadRows;
            next_order[r] = loads && y < h ? order.row(y)[x0 + load_column] : 0;
            next_pixels[r] = loads && y < h ? src.row(y)[x0 + load_column] : W{};
        }
        if (kBelow && load_row == 0 && loads) {
            next_below = src.row(min(y0 + kTileRows, h - 1))[x0 + load_column];
        }
    };

    int carry = 0;  // Remove: pixels kept so far in this column; Insert*: pixels inserted so far
    load(0);
    for (int y0 = 0; y0 < h; y0 += kTileRows) {
#pragma unroll
        for (int r = 0; r < kPasses; ++r) {
            tile_order[load_row + r * kLoadRows][load_column] = next_order[r];
            tile_pixels[load_row + r * kLoadRows][load_column] = next_pixels[r];
        }
        if (kBelow && load_row == 0) tile_pixels[kTileRows][load_column] = next_below;
        __syncthreads();
        if (y0 + kTileRows < h) load(y0 + kTileRows);  // in flight while this tile is counted
        if (x < w) {                                   // whole warps
#pragma unroll
            for (int r = 0; r < kTileRows / 32; ++r) {
                const int row = r * 32 + lane;
                const int y = y0 + row;
                const bool inside = y < h;
                const bool flag = inside && flagged<P>(tile_order[row][warp], count);
                const unsigned ballot = __ballot_sync(kFull, flag);
                const int before = carry + __popc(ballot & lanes_before);
                const W p = tile_pixels[row][warp];
                if constexpr (P == SeamPass::Remove) {
                    if (flag && before < out_h) dst.row(before)[x] = p;
                } else {
                    W extra = p;
                    if constexpr (P == SeamPass::Insert) {
                        extra = average(p, y + 1 < h ? tile_pixels[row + 1][warp] : p);
                    }
                    const int at = y + before;
                    if (inside && at < out_h) dst.row(at)[x] = p;
                    if (flag && at + 1 < out_h) dst.row(at + 1)[x] = extra;
                }
                carry += __popc(ballot);
            }
        }
        __syncthreads();  // the tile is overwritten next
    }
}

__global__ void paint_kernel(const ImageView<const std::uint32_t> src,
                             const ImageView<const std::int32_t> order, const int count,
                             const std::uint32_t colour, const ImageView<std::uint32_t> dst) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y);
    if (x >= src.width) return;
    dst.row(y)[x] = order.row(y)[x] < count ? colour : src.row(y)[x];
}

/// Rgba8 views as views of words (same bytes, same pitch).
ImageView<const std::uint32_t> words(const ImageView<const Rgba8>& v) {
    return {reinterpret_cast<const std::uint32_t*>(v.data), v.width, v.height, v.pitch};
}
ImageView<std::uint32_t> words(const ImageView<Rgba8>& v) {
    return {reinterpret_cast<std::uint32_t*>(v.data), v.width, v.height, v.pitch};
}
ImageView<const std::uint8_t> words(const ImageView<const std::uint8_t>& v) {
    return v;
}
ImageView<std::uint8_t> words(const ImageView<std::uint8_t>& v) {
    return v;
}

std::uint32_t word_of(const Rgba8 p) {
    return std::uint32_t{p.r} | std::uint32_t{p.g} << 8 | std::uint32_t{p.b} << 16 |
           std::uint32_t{p.a} << 24;
}

template <class W, SeamPass P>
void launch(const bool vertical, const ImageView<const W>& src,
            const ImageView<const std::int32_t>& order, const int count, const ImageView<W>& dst,
            const cudaStream_t stream) {
    if (vertical) {
        const auto blocks = static_cast<unsigned>((src.height + kRowWarps - 1) / kRowWarps);
        rows_kernel<W, P><<<blocks, kRowWarps * 32, 0, stream>>>(src, order, count, dst);
    } else {
        const auto blocks = static_cast<unsigned>((src.width + kColumns - 1) / kColumns);
        columns_kernel<W, P><<<blocks, kColumns * 32, 0, stream>>>(src, order, count, dst);
    }
}

template <class T>
cudaError_t seam_pass(const SeamPass pass, const bool vertical, const ImageView<const T>& src,
                      const ImageView<const std::int32_t>& order, const int count,
                      const ImageView<T>& dst, const cudaStream_t stream) {
    if (src.width != order.width || src.height != order.height) return cudaErrorInvalidValue;
    if (src.empty() || dst.empty()) return cudaSuccess;
    using W = std::remove_const_t<std::remove_pointer_t<decltype(words(dst).data)>>;
    switch (pass) {
        case SeamPass::Remove:
            launch<W, SeamPass::Remove>(vertical, words(src), order, count, words(dst), stream);
            break;
        case SeamPass::Insert:
            if constexpr (std::is_same_v<T, Rgba8>) {
                launch<W, SeamPass::Insert>(vertical, words(src), order, count, words(dst), stream);
                break;
            } else {
                return cudaErrorInvalidValue;
            }
        case SeamPass::InsertNearest:
            launch<W, SeamPass::InsertNearest>(vertical, words(src), order, count, words(dst),
                                               stream);
            break;
    }
    return cudaGetLastError();
}

}  // namespace

cudaError_t launch_seam_pass(const SeamPass pass, const bool vertical,
                             const ImageView<const Rgba8>& src,
                             const ImageView<const std::int32_t>& order, const int count,
                             const ImageView<Rgba8>& dst, const cudaStream_t stream) {
    return seam_pass(pass, vertical, src, order, count, dst, stream);
}

cudaError_t launch_seam_pass(const SeamPass pass, const bool vertical,
                             const ImageView<const std::uint8_t>& src,
                             const ImageView<const std::int32_t>& order, const int count,
                             const ImageView<std::uint8_t>& dst, const cudaStream_t stream) {
    return seam_pass(pass, vertical, src, order, count, dst, stream);
}

cudaError_t launch_paint_seams(const ImageView<const Rgba8>& src,
                               const ImageView<const std::int32_t>& order, const int count,
                               const Rgba8 colour, const ImageView<Rgba8>& dst,
                               const cudaStream_t stream) {
    if (src.width != order.width || src.height != order.height || src.width != dst.width ||
        src.height != dst.height) {
        return cudaErrorInvalidValue;
    }
    if (src.empty()) return cudaSuccess;
    const dim3 grid(static_cast<unsigned>((src.width + 255) / 256),
                    static_cast<unsigned>(src.height));
    paint_kernel<<<grid, 256, 0, stream>>>(words(src), order, count, word_of(colour), words(dst));
    return cudaGetLastError();
}

}  // namespace lacuna::kernels
