// Seam carving on the device, one seam at a time with no host round trip, exact and identical to
// the CPU carvers (integer costs, the reference's tie-breaks).
//
// Per seam: one kernel (one block, or a thread-block cluster of 2 or 4 sharing each batch's
// strips) updates the cumulative-cost map and walks the seam back, then a row-parallel kernel
// removes the seam in place. The cost map is a chain of dependent rows, so what bounds it is the
// latency of each row, not bytes (docs/notes/gpu-seam-carving.md):
// - Only cells that can change are recomputed (the fast CPU carver's rule): the columns next to
//   the removed seam plus whatever the previous rows' changes reach; the chain of rows thus
//   touches a band a few hundred cells wide instead of the whole row.
// - Rows go in batches of kCarveBatchRows. Stager warps copy the next batch's band (energy
//   terms, masks, the two cost rows it reads) into shared memory asynchronously while the
//   compute warps work on the current one; the band's columns are bounded in advance (a change
//   moves at most one column per row). Bands too wide for shared memory are computed on global
//   memory instead.
// - A batch's rows run in register strips: neighbours by warp shuffles, no barrier per row.
// - The walk back reads stored parent directions from windows of parents staged the same way
//   (the seam moves at most one column per row), so its chain of dependent loads stays in shared
//   memory.
#include <lacuna/kernels/seam_kernels.h>

#include <cooperative_groups.h>
#include <cuda_pipeline.h>

#include <atomic>
#include <climits>
#include <type_traits>

namespace lacuna::kernels {
namespace {

constexpr int kThreads = 256;      // removal kernel
constexpr int kFindThreads = 512;  // the single-block seam finder
constexpr int kStagers = 64;       // of which the last ones stage batches
constexpr int kComputeThreads = kFindThreads - kStagers;
constexpr int kRows = kCarveBatchRows;
constexpr int kWalkRows = 64;  // rows of parents per staged walk window
// Walk windows: 2·kWalkRows columns either side of the centre, aligned to 16 bytes.
constexpr int kWalkPitch = ((4 * kWalkRows + 1 + 15 + 15) / 16) * 16;
constexpr std::int32_t kNever = INT32_MAX;

__host__ __device__ constexpr int round_up16(const int v) {
    return (v + 15) & ~15;
}

// A seam's finder can spread each batch's strips over the blocks of a thread-block cluster
// (Hopper and later): the rows of a band are bound by instruction issue on one SM, so more SMs
// take more strips at once. `Ranks` blocks work on every batch; they meet once per batch at a
// cluster barrier and exchange the batch's last row and its changes through distributed shared
// memory. Ranks == 1 is the single-block finder (plain __syncthreads, no cluster code).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define LACUNA_CARVE_CLUSTERS 1
#endif

template <int Ranks>
__device__ __forceinline__ int block_rank_in_cluster() {
    if constexpr (Ranks == 1) {
        return 0;
    } else {
#ifdef LACUNA_CARVE_CLUSTERS
        return static_cast<int>(cooperative_groups::this_cluster().block_rank());
#else
        __trap();  // the host launches Ranks > 1 only where the binary has cluster support
        return 0;
#endif
    }
}

/// Every thread of every block of the cluster; orders shared (local and remote) and global
/// memory: release before, acquire after.
template <int Ranks>
__device__ __forceinline__ void cluster_barrier() {
    if constexpr (Ranks == 1) {
        __syncthreads();
    } else {
#ifdef LACUNA_CARVE_CLUSTERS
        cooperative_groups::this_cluster().sync();
#else
        __trap();
#endif
    }
}

/// The same shared variable in block `rank` of the cluster.
template <int Ranks, class T>
__device__ __forceinline__ T* in_block(T* local, const int rank) {
    if constexpr (Ranks == 1) {
        return local;
    } else {
#ifdef LACUNA_CARVE_CLUSTERS
        return cooperative_groups::this_cluster().map_shared_rank(local,
                                                                  static_cast<unsigned>(rank));
#else
        __trap();
        return local;
#endif
    }
}

template <class Pixel>
struct DeviceRows {
    const Pixel* base;
    int stride;
    __device__ const Pixel* operator()(const int y) const {
        return base + static_cast<std::size_t>(y) * stride;
    }
};

template <class Cost>
constexpr bool kMasks = std::is_same_v<Cost, std::int64_t>;
/// The aux terms' type: 16 bits fit an 8-bit image's intensities and energies (at most 6120);
/// with 64-bit costs (masks, or a deep 16-bit image: up to 1 572 840) they are 32 bits.
template <class Cost>
using AuxOf = std::conditional_t<kMasks<Cost>, std::int32_t, std::int16_t>;

/// Byte layout of one staged batch, rows of `pitch` columns: (kRows + 1) rows (row 0 is the row
/// above the batch) of the aux terms and, with masks, the mask bits; of the costs only the two
/// rows a batch reads, the row above it and its last row (whose old values say what changed).
/// Staging no cost row in between leaves room for windows over twice as wide.
// Guard elements before and after each staged array: register strips read up to kRows + 1
// columns left of a window and a strip's width right of it.
constexpr int kGuardFront = 16;
constexpr int kGuardBack = 32 * 8;
constexpr int kStagedCostRows = 2;
template <class Cost>
struct BatchLayout {
    int pitch;
    __host__ __device__ std::size_t term_elements() const {
        return static_cast<std::size_t>(kRows + 1) * pitch + kGuardFront + kGuardBack;
    }
    __host__ __device__ std::size_t cost_elements() const {
        return static_cast<std::size_t>(kStagedCostRows) * pitch + kGuardFront + kGuardBack;
    }
    __host__ __device__ std::size_t cost_bytes() const { return cost_elements() * sizeof(Cost); }
    __host__ __device__ std::size_t aux_bytes() const {
        return term_elements() * sizeof(AuxOf<Cost>);
    }
    __host__ __device__ std::size_t mask_bytes() const {
        return kMasks<Cost> ? term_elements() : 0;
    }
    __host__ __device__ std::size_t bytes() const {
        return cost_bytes() + aux_bytes() + mask_bytes();
    }
};

__host__ __device__ inline std::size_t hull_bytes(const int height) {
    return static_cast<std::size_t>(round_up16(((height + kRows - 1) / kRows) * 4));
}

/// Where a batch's window lies: columns [first_column, first_column + columns); `staged` false
/// when it does not fit shared memory (the batch then works on global memory).
struct Window {
    int first_column;
    int columns;
    int staged;
};

/// One staged batch in shared memory.
template <class Cost>
struct Batch {
    Cost* cost;
    AuxOf<Cost>* aux;
    std::uint8_t* mask;
};

template <class Cost>
__device__ Batch<Cost> batch_at(unsigned char* base, const BatchLayout<Cost> layout) {
    Batch<Cost> b{};
    b.cost = reinterpret_cast<Cost*>(base) + kGuardFront;
    b.aux = reinterpret_cast<AuxOf<Cost>*>(base + layout.cost_bytes()) + kGuardFront;
    b.mask = base + layout.cost_bytes() + layout.aux_bytes() + kGuardFront;
    return b;
}

/// The rows of global memory one row of the recurrence reads and writes (bands too wide to
/// stage); element x is at [x].
template <class Cost>
struct RowRefs {
    const Cost* above;
    Cost* current;
    std::int8_t* parent;
    const AuxOf<Cost>* aux;
    const AuxOf<Cost>* aux_above;
    const std::uint8_t* mask;
    int temporal_unit;
    int level_unit;
};

/// Forward energy with folded levels (CarveState::level_unit): the intensity and the level of a
/// packed aux term. Terms are read sign-extended from int16; the masks keep the right bits.
__device__ __forceinline__ int packed_intensity(const int raw) {
    return raw & kCarveIntensityMask;
}
__device__ __forceinline__ int packed_level(const int raw) {
    return (raw >> kCarveLevelShift) & (kTemporalLevels - 1);
}

/// One cell of the reference's recurrence (left first, strict improvement); `parent` receives
/// -1, 0 or 1. `Levels`: forward energy's aux terms carry folded levels (CarveState::level_unit).
template <class Cost, bool Forward, bool Levels>
__device__ Cost cell_cost(const RowRefs<Cost>& r, const int x, const int y, const int width,
                          int& parent) {
    // Cost is int32 without masks (every cost fits, see kSeamMaskWeight and kMaxFoldedLevelTerm):
    // 32-bit arithmetic keeps the chain of dependent instructions per row short.
    const auto intensity = [](const int raw) { return Levels ? packed_intensity(raw) : raw; };
    Cost up = 0, from_left = 0, from_right = 0, own = 0;
    if constexpr (Forward) {
        const int left = intensity(r.aux[x > 0 ? x - 1 : 0]);
        const int right = intensity(r.aux[x + 1 < width ? x + 1 : width - 1]);
        up = iabs(right - left);
        if (y > 0) {
            const int above = intensity(r.aux_above[x]);
            from_left = up + iabs(above - left);
            from_right = up + iabs(above - right);
        }
        if constexpr (Levels) own = packed_level(r.aux[x]) * r.level_unit;
    } else {
        own = r.aux[x];
    }
    if constexpr (kMasks<Cost>) {
        const std::uint8_t m = r.mask[x];
        own += mask_term(m & kCarveProtectBit, m & kCarveRemoveBit) +
               temporal_term(static_cast<std::uint8_t>(m >> kCarveTemporalShift), r.temporal_unit);
    }
    parent = 0;
    if (y == 0) return own + up;
    Cost best = 0;
    int from = 2;
    if (x > 0) {
        best = r.above[x - 1] + from_left;
        from = -1;
    }
    const Cost mid = r.above[x] + up;
    if (from == 2 || mid < best) {
        best = mid;
        from = 0;
    }
    if (x + 1 < width) {
        const Cost right = r.above[x + 1] + from_right;
        if (right < best) {
            best = right;
            from = 1;
        }
    }
    parent = from;
    return best + own;
}

/// Columns whose terms changed when the previous seam was removed, hulled over the batch's rows:
/// within two columns of the seam in the row and the rows next to it (the CPU carver's rule).
__device__ short2 dirty_hull(const CarveState& s, const int batch) {
    const int y0 = batch * kRows, y1 = min(y0 + kRows, s.height);
    int lo = INT_MAX, hi = -1;
    for (int y = y0; y < y1; ++y) {
        const int a = s.seam[max(y - 1, 0)], b = s.seam[y], c = s.seam[min(y + 1, s.height - 1)];
        lo = min(lo, min(a, min(b, c)) - 2);
        hi = max(hi, max(a, max(b, c)) + 2);
        if (s.temporal_seams != nullptr &&
            s.temporal_window[2 * y] <= s.temporal_window[2 * y + 1]) {
            lo = min(lo, s.temporal_window[2 * y]);
            hi = max(hi, s.temporal_window[2 * y + 1]);
        }
    }
    return make_short2(static_cast<short>(max(lo, 0)), static_cast<short>(min(hi, s.width - 1)));
}

/// The staged window of a batch: every column its rows can compute, plus one either side.
/// `changed_lo..changed_hi`: the changed interval of the row above the batch *before* this one
/// (empty when lo > hi). A batch's region is its first row's columns widened by kRows, its
/// strips read kRows + 1 beyond that, and the previous batch's region lies between: the bound
/// widens by 3·kRows + 3.
__device__ Window plan_window(const CarveState& s, const short2* hulls, const int batch,
                              const int changed_lo, const int changed_hi, const bool full,
                              const int capacity) {
    int lo = 0, hi = s.width - 1;
    if (!full) {
        const short2 h0 = hulls[batch];
        lo = h0.x;
        hi = h0.y;
        if (batch > 0) {
            lo = min(lo, int{hulls[batch - 1].x});
            hi = max(hi, int{hulls[batch - 1].y});
        }
        if (changed_lo <= changed_hi) {
            lo = min(lo, changed_lo);
            hi = max(hi, changed_hi);
        }
        lo = max(lo - 3 * kRows - 3, 0);
        hi = min(hi + 3 * kRows + 3, s.width - 1);
    }
    Window w{};
    w.first_column = lo & ~15;
    w.columns = round_up16(hi + 1 - w.first_column);
    w.staged = w.columns <= capacity;
    return w;
}

/// Issues the asynchronous copies of `rows` rows of `width` elements starting at row `y_first`
/// (rows outside the image skipped) from a strided global array into a pitched shared one;
/// `lane` of `lanes` threads.
template <class T>
__device__ void stage_rows(T* dst, const int pitch, const T* src, const int stride,
                           const int y_first, const int rows, const int height,
                           const int first_column, const int width, const int lane,
                           const int lanes) {
    constexpr int kPerChunk = 16 / static_cast<int>(sizeof(T));
    const int chunks_per_row = width / kPerChunk;
    const int total = chunks_per_row * rows;
    for (int i = lane; i < total; i += lanes) {
        const int r = i / chunks_per_row, c = i - r * chunks_per_row;
        const int y = y_first + r;
        if (y < 0 || y >= height) continue;
        __pipeline_memcpy_async(
            dst + static_cast<std::size_t>(r) * pitch + c * kPerChunk,
            src + static_cast<std::size_t>(y) * stride + first_column + c * kPerChunk, 16);
    }
}

/// The stager threads stage a batch's rows (and the row above) of aux terms and masks, and its
/// two cost rows (BatchLayout).
template <class Cost>
__device__ void stage_batch(const CarveState& s, const Batch<Cost>& b, const Window& w,
                            const int pitch, const int y0, const int lane) {
    const Cost* cost = static_cast<const Cost*>(s.cost);
    const int y_last = min(y0 + kRows, s.height) - 1;
    stage_rows(b.cost, pitch, cost, s.stride, y0 - 1, 1, s.height, w.first_column, w.columns, lane,
               kStagers);
    stage_rows(b.cost + pitch, pitch, cost, s.stride, y_last, 1, s.height, w.first_column,
               w.columns, lane, kStagers);
    stage_rows(b.aux, pitch, static_cast<const AuxOf<Cost>*>(s.aux), s.stride, y0 - 1, kRows + 1,
               s.height, w.first_column, w.columns, lane, kStagers);
    if constexpr (kMasks<Cost>) {
        stage_rows(b.mask, pitch, s.mask, s.stride, y0 - 1, kRows + 1, s.height, w.first_column,
                   w.columns, lane, kStagers);
    }
    __pipeline_commit();
}

template <class Cost>
__device__ RowRefs<Cost> global_row(const CarveState& s, const int y) {
    const std::size_t row = static_cast<std::size_t>(y) * s.stride;
    Cost* cost = static_cast<Cost*>(s.cost);
    RowRefs<Cost> r{};
    r.above = y > 0 ? cost + row - s.stride : nullptr;
    r.current = cost + row;
    r.parent = s.parent + row;
    const AuxOf<Cost>* aux = static_cast<const AuxOf<Cost>*>(s.aux);
    r.aux = aux + row;
    r.aux_above = y > 0 ? aux + row - s.stride : nullptr;
    r.mask = s.mask != nullptr ? s.mask + row : nullptr;
    r.temporal_unit = s.temporal_unit;
    r.level_unit = s.level_unit;
    return r;
}

/// Warp-wide min / max: one instruction from sm_80 on, shuffles before.
__device__ int warp_min(int v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __reduce_min_sync(0xffffffffu, v);
#else
    for (int offset = 16; offset > 0; offset /= 2)
        v = min(v, __shfl_xor_sync(0xffffffffu, v, offset));
    return v;
#endif
}
__device__ int warp_max(int v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __reduce_max_sync(0xffffffffu, v);
#else
    for (int offset = 16; offset > 0; offset /= 2)
        v = max(v, __shfl_xor_sync(0xffffffffu, v, offset));
    return v;
#endif
}

/// Leftmost minimum of the last row, the block's threads together.
template <class Cost>
__device__ void argmin_last_row(const CarveState& s, std::int64_t& value, int& column) {
    __shared__ std::int64_t warp_value[kFindThreads / 32];
    __shared__ int warp_column[kFindThreads / 32];
    const Cost* last =
        static_cast<const Cost*>(s.cost) + static_cast<std::size_t>(s.height - 1) * s.stride;
    std::int64_t v = INT64_MAX;
    int bx = INT_MAX;
    for (int x = threadIdx.x; x < s.width; x += blockDim.x) {
        const std::int64_t c = last[x];
        if (c < v) {  // x grows: keeps the leftmost among equals
            v = c;
            bx = x;
        }
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        const std::int64_t ov = __shfl_down_sync(0xffffffffu, v, offset);
        const int ox = __shfl_down_sync(0xffffffffu, bx, offset);
        if (ov < v || (ov == v && ox < bx)) {
            v = ov;
            bx = ox;
        }
    }
    if (threadIdx.x % 32 == 0) {
        warp_value[threadIdx.x / 32] = v;
        warp_column[threadIdx.x / 32] = bx;
    }
    __syncthreads();
    v = warp_value[0];
    bx = warp_column[0];
    for (int w = 1; w < kFindThreads / 32; ++w) {
        if (warp_value[w] < v || (warp_value[w] == v && warp_column[w] < bx)) {
            v = warp_value[w];
            bx = warp_column[w];
        }
    }
    value = v;
    column = bx;
}

/// The walk back from the last row's argmin along the stored parents, in windows of kWalkRows
/// rows staged into shared memory (one window ahead, centred where the walk stands: the seam
/// moves at most one column per row).
__device__ void walk_back(const CarveState& s, unsigned char* shared, const int start_column) {
    __shared__ int walk_x[2];  // where the walk stands before window j: walk_x[j & 1]
    std::int8_t* windows[2] = {reinterpret_cast<std::int8_t*>(shared),
                               reinterpret_cast<std::int8_t*>(shared) + kWalkRows * kWalkPitch};
    __shared__ int window_first[2];
    const int h = s.height;
    const auto stage = [&](const int j, const int centre) {
        const int y_high = h - 1 - j * kWalkRows;
        const int y_low = max(1, y_high - kWalkRows + 1);
        const int first = max(0, centre - 2 * kWalkRows) & ~15;
        const int last = min(s.width - 1, centre + 2 * kWalkRows);
        const int columns = round_up16(last + 1 - first);
        // Rows are stored top-down from y_low, so row y sits at (y - y_low).
        stage_rows(windows[j & 1], kWalkPitch, s.parent, s.stride, y_low, y_high - y_low + 1, h,
                   first, columns, static_cast<int>(threadIdx.x), kFindThreads);
        __pipeline_commit();
        if (threadIdx.x == 0) window_first[j & 1] = first;
    };
    if (threadIdx.x == 0) {
        walk_x[0] = start_column;
        s.seam[h - 1] = start_column;
    }
    if (h == 1) return;
    const int windows_needed = (h - 1 + kWalkRows - 1) / kWalkRows;
    stage(0, start_column);
    for (int j = 0; j < windows_needed; ++j) {
        __pipeline_wait_prior(0);
        __syncthreads();  // window j is in; walk_x[j & 1] is where the walk stands
        const int x_now = walk_x[j & 1];
        if (j + 1 < windows_needed) stage(j + 1, x_now);
        if (threadIdx.x == 0) {
            const int y_high = h - 1 - j * kWalkRows;
            const int y_low = max(1, y_high - kWalkRows + 1);
            const std::int8_t* window = windows[j & 1];
            const int first = window_first[j & 1];
            // Columns relative to the window: the chain per row is one shared load and an add.
            int column = x_now - first;
            const std::int8_t* row = window + (y_high - y_low) * kWalkPitch;
            std::int32_t* out = s.seam + y_high - 1;
            for (int y = y_high; y >= y_low; --y) {
                column += row[column];
                *out-- = column + first;
                row -= kWalkPitch;
            }
            const int x = column + first;
            walk_x[(j + 1) & 1] = x;
        }
        __syncthreads();
    }
}

// A staged batch in registers, one warp per strip of kStripCells columns: each lane holds
// kCellsPerLane consecutive cells of a row and takes its outer neighbours from the lanes beside it
// by shuffles, so the rows of a batch need no barrier. A strip recomputes kRows columns of halo
// either side from the staged row above the batch (the trapezoid: after r rows, the outer r
// columns are stale), and stores only its inner columns.
constexpr int kCellsPerLane = 2;
constexpr int kStripCells = 32 * kCellsPerLane;
constexpr int kStripValid = kStripCells - 2 * kRows;

/// The recurrence for one cell from the three costs above and the cell's terms; the reference's
/// tie-break (left first, strict improvement).
template <class Cost>
__device__ Cost cell_from(const Cost left, const Cost mid, const Cost right, const Cost up,
                          const Cost from_left, const Cost from_right, const Cost own,
                          const bool has_left, const bool has_right, const bool first_row,
                          int& parent) {
    parent = 0;
    if (first_row) return own + up;
    Cost best = mid + up;
    if (has_left && left + from_left <= best) {
        best = left + from_left;
        parent = -1;
    }
    if (has_right && right + from_right < best) {
        best = right + from_right;
        parent = 1;
    }
    return best + own;
}

template <class Cost, bool Forward, bool Levels, int Ranks>
__device__ void strips_in_registers(const CarveState& s, const Batch<Cost>& batch,
                                    const Window& window, const int pitch, const int y0,
                                    const int rows, const int region_lo, const int region_hi,
                                    const int warp, const int lane, const int rank, int& changed_lo,
                                    int& changed_hi) {
    constexpr int C = kCellsPerLane;
    const int w = s.width;
    const bool image_top = y0 == 0;
    Cost* cost = static_cast<Cost*>(s.cost);
    const int strips = (region_hi - region_lo + kStripValid) / kStripValid;
    // Strips alternate between the cluster's blocks, so a narrow band still reaches every SM.
    for (int strip = warp * Ranks + rank; strip < strips; strip += Ranks * (kComputeThreads / 32)) {
        const int inner_lo = region_lo + strip * kStripValid;
        const int inner_hi = min(inner_lo + kStripValid - 1, region_hi);
        const int x0 = inner_lo - kRows + lane * C;  // this lane's first column
        // Every read stays inside the buffers' guard columns (no clamping): values read outside
        // the window only reach halo cells, which are never stored.
        const int at0 = x0 - window.first_column;
        const Cost* cost_row = batch.cost + at0;
        const AuxOf<Cost>* aux_row = batch.aux + at0;
        const std::uint8_t* mask_row = batch.mask + at0;
        bool store[C], has_left[C], has_right[C];
        Cost above[C];
        int aux_above[C];
#pragma unroll
        for (int c = 0; c < C; ++c) {
            const int x = x0 + c;
            store[c] = x >= inner_lo && x <= inner_hi;
            has_left[c] = x > 0;
            has_right[c] = x + 1 < w;
            above[c] = cost_row[c];
            aux_above[c] = Levels ? packed_intensity(aux_row[c]) : aux_row[c];
        }
        Cost* out_cost = cost + static_cast<std::ptrdiff_t>(y0) * s.stride + x0;
        std::int8_t* out_parent = s.parent + static_cast<std::ptrdiff_t>(y0) * s.stride + x0;
        // The terms of the next row are loaded while this one is computed (software pipeline:
        // their latency stays off the chain of rows). With folded levels (forward energy) they
        // are unpacked there too: intensities, and the cells' own level terms.
        int aux_next[C + 2];
        [[maybe_unused]] Cost own_next[C];
#pragma unroll
        for (int c = 0; c < C + 2; ++c) aux_next[c] = aux_row[pitch + c - 1];
        if constexpr (Levels) {
#pragma unroll
            for (int c = 0; c < C; ++c) own_next[c] = packed_level(aux_next[c + 1]) * s.level_unit;
#pragma unroll
            for (int c = 0; c < C + 2; ++c) aux_next[c] = packed_intensity(aux_next[c]);
        }
#pragma unroll
        for (int r = 1; r <= kRows; ++r) {
            if (r > rows) break;
            aux_row += pitch;
            mask_row += pitch;
            int aux[C + 2];
            [[maybe_unused]] Cost own_level[C];
#pragma unroll
            for (int c = 0; c < C + 2; ++c) aux[c] = aux_next[c];
            if constexpr (Levels) {
#pragma unroll
                for (int c = 0; c < C; ++c) own_level[c] = own_next[c];
            }
            if (r < rows) {
#pragma unroll
                for (int c = 0; c < C + 2; ++c) aux_next[c] = aux_row[pitch + c - 1];
                if constexpr (Levels) {
#pragma unroll
                    for (int c = 0; c < C; ++c)
                        own_next[c] = packed_level(aux_next[c + 1]) * s.level_unit;
#pragma unroll
                    for (int c = 0; c < C + 2; ++c) aux_next[c] = packed_intensity(aux_next[c]);
                }
            }
            const Cost from_lane_left = __shfl_up_sync(0xffffffffu, above[C - 1], 1);
            const Cost from_lane_right = __shfl_down_sync(0xffffffffu, above[0], 1);
            const bool first_row = image_top && r == 1;
            Cost value[C];
            int parent[C];
#pragma unroll
            for (int c = 0; c < C; ++c) {
                const Cost left = c == 0 ? from_lane_left : above[c - 1];
                const Cost right = c == C - 1 ? from_lane_right : above[c + 1];
                Cost up = 0, from_left = 0, from_right = 0, own = 0;
                if constexpr (Forward) {
                    // Clamped neighbours at the image's borders, as the reference reads them.
                    const int l = has_left[c] ? aux[c] : aux[c + 1];
                    const int rr = has_right[c] ? aux[c + 2] : aux[c + 1];
                    up = iabs(rr - l);
                    from_left = up + iabs(aux_above[c] - l);
                    from_right = up + iabs(aux_above[c] - rr);
                    if constexpr (Levels) own = own_level[c];
                } else {
                    own = aux[c + 1];  // gradient energy, plus the level term when folded
                }
                if constexpr (kMasks<Cost>) {
                    const std::uint8_t m = mask_row[c];
                    own += mask_term(m & kCarveProtectBit, m & kCarveRemoveBit) +
                           temporal_term(static_cast<std::uint8_t>(m >> kCarveTemporalShift),
                                         s.temporal_unit);
                }
                value[c] = cell_from<Cost>(left, above[c], right, up, from_left, from_right, own,
                                           has_left[c], has_right[c], first_row, parent[c]);
            }
#pragma unroll
            for (int c = 0; c < C; ++c) {
                if (store[c]) {
                    out_cost[c] = value[c];
                    out_parent[c] = static_cast<std::int8_t>(parent[c]);
                }
                above[c] = value[c];
                aux_above[c] = aux[c + 1];
            }
            if (r == rows) {  // the last row: gather its changes, keep it for the next batch
                Cost* last = batch.cost + pitch + at0;
#pragma unroll
                for (int c = 0; c < C; ++c) {
                    if (store[c] && last[c] != value[c]) {
                        changed_lo = min(changed_lo, x0 + c);
                        changed_hi = max(changed_hi, x0 + c);
                    }
                }
                // Every block of the cluster stages the same windows: the next batch of each
                // takes its row above from its own copy of this row.
#pragma unroll
                for (int q = 0; q < Ranks; ++q) {
                    Cost* copy = q == rank ? last : in_block<Ranks>(last, q);
#pragma unroll
                    for (int c = 0; c < C; ++c) {
                        if (store[c]) copy[c] = value[c];
                    }
                }
            }
            out_cost += s.stride;
            out_parent += s.stride;
        }
    }
}

// Threads 0 .. kComputeThreads − 1 compute the rows (new costs and parents go to global memory;
// a batch's last row also to its staged window, where the next batch takes its row above from);
// the last kStagers threads stage the next batch meanwhile and meet them once per batch.
__device__ void compute_barrier() {
    asm volatile("bar.sync 1, %0;" ::"r"(kComputeThreads) : "memory");
}

template <class Cost, bool Forward, bool Levels, int Ranks>
__global__ void __launch_bounds__(kFindThreads, 1)
    find_seam_kernel(const CarveState s, const int seam_index, const bool full,
                     const int capacity) {
#ifndef LACUNA_CARVE_CLUSTERS
    if constexpr (Ranks > 1) {
        // Never launched on an architecture without clusters (finder_block_limit): no body to
        // compile for it.
        __trap();
        return;
    }
#endif
    extern __shared__ __align__(16) unsigned char shared[];
    // Last-row changes of batch b gather in slot b % 3 of every block: it is read during batch
    // b + 1 and cleared during batch b + 2, each after a cluster barrier.
    __shared__ int slot_lo[3], slot_hi[3];
    __shared__ Window windows[2];
    __shared__ long long clock_start;
    const int tid = static_cast<int>(threadIdx.x);
    const int rank = block_rank_in_cluster<Ranks>();
    const bool stager_thread = tid >= kComputeThreads;
    const int lane = tid % 32;
    const int stager = tid - kComputeThreads;
    const bool reporter = tid == 0 && rank == 0;
    if (reporter && s.clocks != nullptr) clock_start = clock64();
    const int h = s.height, w = s.width;
    const int batches = (h + kRows - 1) / kRows;
    short2* hulls = reinterpret_cast<short2*>(shared);
    const BatchLayout<Cost> layout{capacity};
    unsigned char* batch_base = shared + hull_bytes(h);
    const Batch<Cost> buffers[2] = {batch_at<Cost>(batch_base, layout),
                                    batch_at<Cost>(batch_base + layout.bytes(), layout)};
    if (!full) {
        for (int b = tid; b < batches; b += blockDim.x) hulls[b] = dirty_hull(s, b);
    }
    if (tid < 3) {
        slot_lo[tid] = INT_MAX;
        slot_hi[tid] = -1;
    }
    // Also: every block of the cluster has started before any touches another's shared memory.
    cluster_barrier<Ranks>();

    Cost* cost = static_cast<Cost*>(s.cost);
    std::int64_t cells = 0, direct_rows = 0;
    if (stager_thread) {
        const Window first = plan_window(s, hulls, 0, INT_MAX, -1, full, capacity);
        if (stager == 0) windows[0] = first;
        if (first.staged) stage_batch(s, buffers[0], first, capacity, 0, stager);
    }
    long long t_wait = 0, t_rows = 0, t_stage = 0, t_strips = 0;
    for (int b = 0; b < batches; ++b) {
        const int y0 = b * kRows, y1 = min(y0 + kRows, h);
        const Batch<Cost>& current = buffers[b & 1];
        const Batch<Cost>& previous = buffers[(b + 1) & 1];
        const long long t0 = clock64();
        __pipeline_wait_prior(0);
        // Batch b is staged in every block; the rows of batch b − 1 are done and their changes
        // gathered, in every block.
        cluster_barrier<Ranks>();
        t_wait += clock64() - t0;
        // The changed interval of the row above this batch (empty when lo > hi).
        int changed_lo = INT_MAX, changed_hi = -1;
        if (!full && b > 0) {
            changed_lo = slot_lo[(b + 2) % 3];
            changed_hi = slot_hi[(b + 2) % 3];
        }
        const Window window = windows[b & 1];
        // Row 0 of the window (the row above the batch) was copied before the previous batch
        // wrote it: take the new values from that batch's window, or from global memory.
        if (b > 0 && window.staged) {
            // Read before the barrier below, after which stager 0 plans the next batch into it.
            const Window previous_window = windows[(b + 1) & 1];
            for (int i = tid; i < window.columns; i += blockDim.x) {
                const int x = window.first_column + i;
                if (!previous_window.staged) {
                    current.cost[i] = cost[static_cast<std::size_t>(y0 - 1) * s.stride + x];
                } else if (x >= previous_window.first_column &&
                           x < previous_window.first_column + previous_window.columns) {
                    current.cost[i] = previous.cost[capacity + x - previous_window.first_column];
                }
            }
            __syncthreads();
        }
        if (stager_thread) {
            const long long t2 = clock64();
            if (b + 1 < batches) {
                // The next batch's window is planned from the changes known now (batch b − 1's).
                const Window next =
                    plan_window(s, hulls, b + 1, changed_lo, changed_hi, full, capacity);
                if (stager == 0) windows[(b + 1) & 1] = next;
                if (next.staged) stage_batch(s, previous, next, capacity, y0 + kRows, stager);
            }
            t_stage += clock64() - t2;
            continue;
        }
        const long long t3 = clock64();
        // The batch recomputes one region of columns in all its rows: the seam's neighbourhood
        // and the neighbours of the row above's changes, widened by kRows (a change moves at most
        // one column per row), so every cell that can change is in it (recomputing more is
        // exact). Only the last row's changes are gathered: no reduction on the chain of rows.
        int region_lo = 0, region_hi = w - 1;
        if (!full) {
            int first_lo = hulls[b].x, first_hi = hulls[b].y;
            if (changed_lo <= changed_hi) {
                first_lo = min(first_lo, changed_lo - 1);
                first_hi = max(first_hi, changed_hi + 1);
            }
            region_lo = max(first_lo - kRows, 0);
            region_hi = min(first_hi + kRows, w - 1);
        }
        if (tid == 0) {
            slot_lo[(b + 1) % 3] = INT_MAX;
            slot_hi[(b + 1) % 3] = -1;
        }
        if (reporter) {
            cells += static_cast<std::int64_t>(region_hi - region_lo + 1) * (y1 - y0);
            direct_rows += window.staged ? 0 : y1 - y0;
        }
        int my_lo = INT_MAX, my_hi = -1;
        const long long t4 = clock64();
        if (window.staged) {
            strips_in_registers<Cost, Forward, Levels, Ranks>(s, current, window, capacity, y0,
                                                              y1 - y0, region_lo, region_hi,
                                                              tid / 32, lane, rank, my_lo, my_hi);
        } else if (rank == 0) {
            // Rows on global memory need a barrier per row: one block of the cluster takes them.
            for (int y = y0; y < y1; ++y) {
                const RowRefs<Cost> refs = global_row<Cost>(s, y);
                const bool last_row = y + 1 == y1;
                for (int x = region_lo + tid; x <= region_hi; x += kComputeThreads) {
                    int parent = 0;
                    const Cost value = cell_cost<Cost, Forward, Levels>(refs, x, y, w, parent);
                    Cost& slot = refs.current[x];
                    if (last_row && value != slot) {
                        my_lo = min(my_lo, x);
                        my_hi = max(my_hi, x);
                    }
                    slot = value;
                    refs.parent[x] = static_cast<std::int8_t>(parent);
                }
                compute_barrier();
            }
        }
        t_strips += clock64() - t4;
        if (!full) {
            my_lo = warp_min(my_lo);
            my_hi = warp_max(my_hi);
            if (lane == 0 && my_hi >= 0) {
#pragma unroll
                for (int q = 0; q < Ranks; ++q) {
                    atomicMin(in_block<Ranks>(&slot_lo[b % 3], q), my_lo);
                    atomicMax(in_block<Ranks>(&slot_hi[b % 3], q), my_hi);
                }
            }
        }
        t_rows += clock64() - t3;
    }
    if (s.clocks != nullptr && rank == 0) {
        if (tid == 0) {
            s.clocks[2] = t_wait;
            s.clocks[3] = t_rows;
            s.clocks[4] = t_strips;
        }
        if (tid == kComputeThreads) {
            s.clocks[5] = t_stage;
        }
    }
    // The last batch's rows are in global memory, from every block; no block touches another's
    // shared memory after this.
    cluster_barrier<Ranks>();
    if (rank != 0) return;
    long long clock_walk = 0;
    if (tid == 0 && s.clocks != nullptr) clock_walk = clock64();
    std::int64_t best = 0;
    int column = 0;
    argmin_last_row<Cost>(s, best, column);
    if (tid == 0) {
        s.seam_costs[seam_index] = best;
        if (s.stats != nullptr) {
            atomicAdd(reinterpret_cast<unsigned long long*>(&s.stats[0]),
                      static_cast<unsigned long long>(cells));
            atomicAdd(reinterpret_cast<unsigned long long*>(&s.stats[1]),
                      static_cast<unsigned long long>(direct_rows));
        }
    }
    __syncthreads();  // the batch windows are free: the walk reuses that shared memory
    walk_back(s, shared, column);
    if (tid == 0 && s.clocks != nullptr) {
        const long long end = clock64();
        s.clocks[0] = clock_walk - clock_start;
        s.clocks[1] = end - clock_walk;
    }
}

/// The per-seam term after a removal, in row y (`width` columns left): the levels move from the
/// previous frame's seam `next` − 1 to its seam `next`. Only pixels within kSeamTemporalCap of
/// either crossing can change (beyond both they are the cap); original columns increase along
/// the row, so those pixels are one run, found by binary search. The run is recorded for the next
/// update's dirty columns. One block.
__device__ void move_seam_levels(const CarveState& s, const int y, const int next,
                                 const int width) {
    __shared__ int run[2];
    const std::size_t row = static_cast<std::size_t>(y) * s.stride;
    const int a = s.temporal_seams[static_cast<std::size_t>(next - 1) * s.height + y];
    const int b = s.temporal_seams[static_cast<std::size_t>(next) * s.height + y];
    const std::int32_t base = y * s.original_width;
    if (threadIdx.x < 2) {
        // Thread 0: the first column at or past the window's start; thread 1: past its end.
        const std::int32_t key = threadIdx.x == 0 ? base + min(a, b) - kSeamTemporalCap
                                                  : base + max(a, b) + kSeamTemporalCap + 1;
        int lo = 0, hi = width;
        while (lo < hi) {
            const int mid = (lo + hi) / 2;
            if (s.index[row + mid] < key)
                lo = mid + 1;
            else
                hi = mid;
        }
        run[threadIdx.x] = lo;
    }
    __syncthreads();
    const int first = run[0], end = run[1];
    for (int x = first + static_cast<int>(threadIdx.x); x < end; x += blockDim.x) {
        const std::uint8_t level = seam_temporal_level(s.index[row + x] - base, b);
        constexpr std::uint8_t kMaskBits = kCarveProtectBit | kCarveRemoveBit;
        s.mask[row + x] = static_cast<std::uint8_t>((s.mask[row + x] & kMaskBits) |
                                                    (level << kCarveTemporalShift));
    }
    if (threadIdx.x == 0) {
        s.temporal_window[2 * y] = first;
        s.temporal_window[2 * y + 1] = end - 1;
    }
}

/// One block per row: shifts the part right of the seam left by one, in chunks (each chunk is
/// read before any thread writes over it).
template <class Cost, bool Forward, class Pixel>
__global__ void __launch_bounds__(kThreads)
    remove_kernel(const CarveState s, const int seam_index) {
    using Aux = AuxOf<Cost>;
    const int y = blockIdx.x;
    const std::size_t row = static_cast<std::size_t>(y) * s.stride;
    const int cut = s.seam[y];
    Cost* cost = static_cast<Cost*>(s.cost);
    Aux* aux_terms = static_cast<Aux*>(s.aux);
    Pixel* image = static_cast<Pixel*>(s.image);
    if (threadIdx.x == 0) {
        s.order[s.index[row + cut]] = seam_index;
        if (s.crossings != nullptr)
            s.crossings[static_cast<std::size_t>(seam_index) * s.height + y] =
                s.index[row + cut] % s.original_width;
        if constexpr (kMasks<Cost>) {
            const std::uint8_t m = s.mask[row + cut];
            if (m & kCarveProtectBit) atomicAdd(&s.protected_crossed[seam_index], 1);
            if (m & kCarveRemoveBit) atomicAdd(&s.remove_crossed[seam_index], 1);
        }
    }
    for (int base = cut + 1; base < s.width; base += blockDim.x) {
        const int x = base + static_cast<int>(threadIdx.x);
        const bool active = x < s.width;
        Aux aux = 0;
        Cost c = 0;
        std::int8_t parent = 0;
        std::int32_t index = 0;
        std::uint8_t mask = 0;
        Pixel pixel{};
        if (active) {
            aux = aux_terms[row + x];
            c = cost[row + x];
            parent = s.parent[row + x];
            index = s.index[row + x];
            if constexpr (kMasks<Cost>) mask = s.mask[row + x];
            if constexpr (!Forward) pixel = image[row + x];
        }
        __syncthreads();
        if (active) {
            aux_terms[row + x - 1] = aux;
            cost[row + x - 1] = c;
            s.parent[row + x - 1] = parent;
            s.index[row + x - 1] = index;
            if constexpr (kMasks<Cost>) s.mask[row + x - 1] = mask;
            if constexpr (!Forward) image[row + x - 1] = pixel;
        }
        __syncthreads();
    }
    if constexpr (kMasks<Cost>) {
        if (s.temporal_seams != nullptr && seam_index + 1 < s.temporal_count)
            move_seam_levels(s, y, seam_index + 1, s.width - 1);
    }
}

/// A pixel's aux term for gradient energies: its energy, plus its level term where levels are
/// folded (CarveState::level_unit; the level rides in the alpha byte of the carver's colour copy,
/// which the energies never read). Without masks at most 6120 + kMaxFoldedLevelTerm = 32767:
/// an int16; with masks (video's importance beside the temporal level) the aux term is an int32
/// and holds 6120 + 63 × kTemporalMaxUnit.
template <class Pixel>
__device__ int gradient_term(const CarveState& s, const ClampedRgb<DeviceRows<Pixel>>& pixels,
                             const int x, const int y) {
    const int energy = pixel_energy(pixels, s.energy, x, y);
    if constexpr (std::is_same_v<Pixel, Rgba8>) {
        if (s.level_unit > 0) return energy + int{pixels.row(y)[x].a} * s.level_unit;
    }
    return energy;
}

/// Gradient energies after a removal: one warp per row recomputes the columns whose 3 × 3
/// neighbourhood changed (within two of the seam in this row and the rows next to it).
template <class Pixel, class Aux>
__global__ void energy_update_kernel(const CarveState s, const int width) {
    const int y = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (y >= s.height) return;
    const int lane = threadIdx.x % 32;
    const int a = s.seam[max(y - 1, 0)], b = s.seam[y], c = s.seam[min(y + 1, s.height - 1)];
    const int lo = max(0, min(a, min(b, c)) - 2);
    const int hi = min(width - 1, max(a, max(b, c)) + 2);
    const ClampedRgb<DeviceRows<Pixel>> pixels{
        DeviceRows<Pixel>{static_cast<const Pixel*>(s.image), s.stride}, width, s.height};
    for (int x = lo + lane; x <= hi; x += 32) {
        static_cast<Aux*>(s.aux)[static_cast<std::size_t>(y) * s.stride + x] =
            static_cast<Aux>(gradient_term(s, pixels, x, y));
    }
}

template <class Pixel, class Aux>
__global__ void init_kernel(const CarveState s, const Pixel* image, const std::uint8_t* protect,
                            const std::uint8_t* remove, const std::uint8_t* temporal,
                            const std::uint8_t* levels) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y;
    if (x >= s.width) return;
    const std::size_t dense = static_cast<std::size_t>(y) * s.width + x;
    const std::size_t at = static_cast<std::size_t>(y) * s.stride + x;
    Pixel p = image[dense];
    // Levels carried with the pixel (CarveState::level_unit): 0..63, as the mask bits keep them.
    const int level = s.level_unit > 0 ? levels[dense] & (kTemporalLevels - 1) : 0;
    if (s.energy == SeamEnergy::Forward) {
        const int intensity = int{p.r} + int{p.g} + int{p.b};
        // With levels: bits 10..15 over the intensity's 0..765 (bits 0..9), stored as the int16
        // of that bit pattern.
        static_cast<Aux*>(s.aux)[at] = static_cast<Aux>(
            s.level_unit > 0
                ? static_cast<int>(static_cast<std::int16_t>(
                      static_cast<std::uint16_t>(intensity | (level << kCarveLevelShift))))
                : intensity);
    } else {
        if (s.level_unit > 0) p.a = static_cast<decltype(p.a)>(level);
        static_cast<Pixel*>(s.image)[at] = p;
    }
    s.index[at] = static_cast<std::int32_t>(dense);
    if (s.mask != nullptr) {
        s.mask[at] = static_cast<std::uint8_t>(
            (protect != nullptr && protect[dense] != 0 ? kCarveProtectBit : 0) |
            (remove != nullptr && remove[dense] != 0 ? kCarveRemoveBit : 0) |
            (temporal != nullptr ? temporal[dense] << kCarveTemporalShift : 0));
    }
    s.order[dense] = kNever;
}

__global__ void seam_levels_kernel(const CarveState s) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y;
    if (x >= s.width) return;
    const std::size_t at = static_cast<std::size_t>(y) * s.stride + x;
    constexpr std::uint8_t kMaskBits = kCarveProtectBit | kCarveRemoveBit;
    const std::uint8_t level = seam_temporal_level(x, s.temporal_seams[y]);
    s.mask[at] =
        static_cast<std::uint8_t>((s.mask[at] & kMaskBits) | (level << kCarveTemporalShift));
}

template <class Pixel, class Aux>
__global__ void energy_all_kernel(const CarveState s) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y;
    if (x >= s.width) return;
    const ClampedRgb<DeviceRows<Pixel>> pixels{
        DeviceRows<Pixel>{static_cast<const Pixel*>(s.image), s.stride}, s.width, s.height};
    static_cast<Aux*>(s.aux)[static_cast<std::size_t>(y) * s.stride + x] =
        static_cast<Aux>(gradient_term(s, pixels, x, y));
}

template <class T>
__global__ void transpose_kernel(const T* in, const int width, const int height, T* out) {
    __shared__ T tile[32][33];
    const int bx = blockIdx.x * 32, by = blockIdx.y * 32;
    for (int j = threadIdx.y; j < 32; j += blockDim.y) {
        const int x = bx + threadIdx.x, y = by + j;
        if (x < width && y < height)
            tile[j][threadIdx.x] = in[static_cast<std::size_t>(y) * width + x];
    }
    __syncthreads();
    for (int j = threadIdx.y; j < 32; j += blockDim.y) {
        const int y = by + threadIdx.x, x = bx + j;  // out row x, column y
        if (x < width && y < height)
            out[static_cast<std::size_t>(x) * height + y] = tile[threadIdx.x][j];
    }
}

// One block per row: a block-wide prefix count of the kept pixels gives each its output column.
template <class T>
__global__ void compact_kernel(const T* src, const std::int32_t* order, const int width,
                               const int count, T* dst, const int dst_stride) {
    __shared__ int warp_sums[32];
    __shared__ int carry;
    const int y = blockIdx.x;
    const T* in = src + static_cast<std::size_t>(y) * width;
    const std::int32_t* o = order + static_cast<std::size_t>(y) * width;
    T* out = dst + static_cast<std::size_t>(y) * dst_stride;
    if (threadIdx.x == 0) carry = 0;
    __syncthreads();
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int base = 0; base < width; base += blockDim.x) {
        const int x = base + threadIdx.x;
        const int keep = x < width && o[x] >= count;
        const unsigned ballot = __ballot_sync(0xffffffffu, keep);
        const int before_in_warp = __popc(ballot & ((1u << lane) - 1u));
        if (lane == 0) warp_sums[warp] = __popc(ballot);
        __syncthreads();
        int before = carry + before_in_warp;
        for (int w = 0; w < warp; ++w) before += warp_sums[w];
        if (keep) out[before] = in[x];
        __syncthreads();
        if (threadIdx.x == 0) {
            for (int w = 0; w < static_cast<int>(blockDim.x / 32); ++w) carry += warp_sums[w];
        }
        __syncthreads();
    }
}

constexpr int kMaxDevices = 64;

/// `compute(device)` (never 0) once for each device, kept in `slots` (0: not yet computed), for
/// the current device; `fallback` where the device cannot be read. Per device, as a process may
/// drive GPUs of different generations.
template <class Compute>
int once_per_device(std::atomic<int> (&slots)[kMaxDevices], const int fallback, Compute&& compute) {
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= kMaxDevices) {
        cudaGetLastError();
        return fallback;
    }
    int value = slots[device].load();
    if (value == 0) {
        value = compute(device);
        slots[device] = value;
    }
    return value;
}

int optin_shared_bytes() {
    static std::atomic<int> slots[kMaxDevices] = {};
    return once_per_device(slots, 48 * 1024 - 2048, [](const int device) {
        int limit = 0;
        cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
        return limit - 2048;  // the kernels' static shared arrays
    });
}

template <class Cost>
int window_capacity(const int height) {
    const std::size_t available = static_cast<std::size_t>(optin_shared_bytes());
    const std::size_t fixed = hull_bytes(height);
    if (available <= fixed) return 0;
    // Two buffers, each with its guard cells.
    const std::size_t guards = 2 * BatchLayout<Cost>{0}.bytes();
    if (available <= fixed + guards) return 0;
    const std::size_t per_column =
        2 * (BatchLayout<Cost>{1}.bytes() - BatchLayout<Cost>{0}.bytes());
    const int capacity =
        static_cast<int>(((available - fixed - guards) / per_column) & ~std::size_t{15});
    return capacity >= 64 ? capacity : 0;
}

std::atomic<int> forced_finder_blocks{0};

template <class Cost, bool Forward, bool Levels, int Ranks>
void allow_finder_shared_memory() {
    static std::atomic<int> slots[kMaxDevices] = {};  // per instantiation and device
    once_per_device(slots, 1, [](int) {
        cudaFuncSetAttribute(find_seam_kernel<Cost, Forward, Levels, Ranks>,
                             cudaFuncAttributeMaxDynamicSharedMemorySize, optin_shared_bytes());
        return 1;
    });
}

cudaLaunchConfig_t finder_cluster_config(const int ranks, const std::size_t bytes,
                                         const cudaStream_t stream, cudaLaunchAttribute& cluster) {
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(static_cast<unsigned>(ranks));
    config.blockDim = dim3(kFindThreads);
    config.dynamicSmemBytes = bytes;
    config.stream = stream;
    cluster = cudaLaunchAttribute{};
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = static_cast<unsigned>(ranks);
    cluster.val.clusterDim.y = 1;
    cluster.val.clusterDim.z = 1;
    config.attrs = &cluster;
    config.numAttrs = 1;
    return config;
}

/// Whether the current device can place a cluster of Ranks finder blocks, each with all the
/// shared memory a block may take.
template <class Cost, bool Forward, bool Levels, int Ranks>
bool finder_cluster_fits() {
    allow_finder_shared_memory<Cost, Forward, Levels, Ranks>();
    cudaLaunchAttribute cluster{};
    const cudaLaunchConfig_t config = finder_cluster_config(
        Ranks, static_cast<std::size_t>(optin_shared_bytes()), nullptr, cluster);
    int clusters = 0;
    const bool fits =
        cudaOccupancyMaxActiveClusters(&clusters, find_seam_kernel<Cost, Forward, Levels, Ranks>,
                                       &config) == cudaSuccess &&
        clusters > 0;
    cudaGetLastError();  // a refused query leaves fewer blocks, and no error
    return fits;
}

/// Largest finder cluster this instantiation may use on the current device: 4 or 2 where the
/// device runs code of it built with cluster support and can place the cluster, else 1. Both
/// versions matter: a kernel JIT-compiled for a Hopper device from older PTX reports binary 90
/// but was built without the cluster code (__CUDA_ARCH__ < 900), and would trap.
template <class Cost, bool Forward, bool Levels>
int finder_block_limit() {
    static std::atomic<int> slots[kMaxDevices] = {};
    return once_per_device(slots, 1, [](int) {
        cudaFuncAttributes attributes{};
        const bool clusters =
            cudaFuncGetAttributes(&attributes, find_seam_kernel<Cost, Forward, Levels, 2>) ==
                cudaSuccess &&
            attributes.binaryVersion >= 90 && attributes.ptxVersion >= 90;
        cudaGetLastError();
        if (!clusters) return 1;
        if (finder_cluster_fits<Cost, Forward, Levels, 4>()) return 4;
        if (finder_cluster_fits<Cost, Forward, Levels, 2>()) return 2;
        return 1;
    });
}

/// Blocks for one seam's finder. Measured on an H200 (docs/notes/gpu-seam-carving.md, "Finder
/// clusters"): a band of a few hundred columns a row (a plain map at 1080p) runs fastest on one
/// SM, where a cluster's barrier would only add to every batch; the wider bands of level maps
/// and of 4K images, and the heavier cells of the 64-bit (mask) layout, gain from two or four.
int chosen_finder_blocks(const CarveState& s) {
    const int forced = forced_finder_blocks.load(std::memory_order_relaxed);
    if (forced > 0) return forced;
    constexpr long long kLargeMap = 3'000'000;  // cells: 4K and up, not 1080p
    const bool heavy = s.level_unit > 0 || s.masks;
    const bool large = static_cast<long long>(s.width) * s.height >= kLargeMap;
    return (heavy ? 2 : 1) * (large ? 2 : 1);
}

template <class Cost, bool Forward, bool Levels>
int finder_blocks(const CarveState& s) {
    const int wanted = chosen_finder_blocks(s);
    const int limit = finder_block_limit<Cost, Forward, Levels>();
    return wanted < limit ? wanted : limit;
}

template <class Cost, bool Forward, bool Levels, int Ranks>
cudaError_t launch_finder(const CarveState& s, const int seam_index, const bool full,
                          const int capacity, const std::size_t bytes, const cudaStream_t stream) {
    allow_finder_shared_memory<Cost, Forward, Levels, Ranks>();
    if constexpr (Ranks == 1) {
        find_seam_kernel<Cost, Forward, Levels, 1>
            <<<1, kFindThreads, bytes, stream>>>(s, seam_index, full, capacity);
        return cudaGetLastError();
    } else {
        cudaLaunchAttribute cluster{};
        const cudaLaunchConfig_t config = finder_cluster_config(Ranks, bytes, stream, cluster);
        return cudaLaunchKernelEx(&config, find_seam_kernel<Cost, Forward, Levels, Ranks>, s,
                                  seam_index, full, capacity);
    }
}

template <class Cost, bool Forward, bool Levels>
cudaError_t find_seam(const CarveState& s, const int seam_index, const bool full,
                      const cudaStream_t stream) {
    const int capacity = window_capacity<Cost>(s.height);
    const std::size_t walk = 2 * static_cast<std::size_t>(kWalkRows) * kWalkPitch;
    const std::size_t batches = hull_bytes(s.height) + 2 * BatchLayout<Cost>{capacity}.bytes();
    const std::size_t bytes = batches > walk ? batches : walk;
    switch (finder_blocks<Cost, Forward, Levels>(s)) {
        case 2:
            return launch_finder<Cost, Forward, Levels, 2>(s, seam_index, full, capacity, bytes,
                                                           stream);
        case 4:
            return launch_finder<Cost, Forward, Levels, 4>(s, seam_index, full, capacity, bytes,
                                                           stream);
        default:
            return launch_finder<Cost, Forward, Levels, 1>(s, seam_index, full, capacity, bytes,
                                                           stream);
    }
}

/// The finder's instantiation for a state, as a tag: its cost type, forward energy, levels
/// unpacked from the aux terms.
template <class C, bool Forward, bool Levels>
struct FinderLayout {
    using Cost = C;
    static constexpr bool kForward = Forward;
    static constexpr bool kLevels = Levels;
};

/// Calls fn with the FinderLayout of state s. Masks take 64-bit costs; levels beside the mask
/// bits (video's importance) are unpacked from forward energy's aux terms, while gradient
/// energies carry them (folded, or beside the mask bits) inside their aux terms already, so they
/// take the plain finder.
template <class Fn>
auto with_finder_layout(const CarveState& s, Fn&& fn) {
    const bool forward = s.energy == SeamEnergy::Forward;
    const bool levels = s.level_unit > 0;
    if (s.masks) {
        if (!forward) return fn(FinderLayout<std::int64_t, false, false>{});
        return levels ? fn(FinderLayout<std::int64_t, true, true>{})
                      : fn(FinderLayout<std::int64_t, true, false>{});
    }
    if (!forward) return fn(FinderLayout<std::int32_t, false, false>{});
    return levels ? fn(FinderLayout<std::int32_t, true, true>{})
                  : fn(FinderLayout<std::int32_t, true, false>{});
}

}  // namespace

void set_carve_finder_blocks(const int blocks) {
    forced_finder_blocks = blocks == 1 || blocks == 2 || blocks == 4 ? blocks : 0;
}

int carve_finder_blocks(const CarveState& s) {
    return with_finder_layout(s, [&](const auto layout) {
        using L = decltype(layout);
        return finder_blocks<typename L::Cost, L::kForward, L::kLevels>(s);
    });
}

int carve_window_capacity(const CarveState& s) {
    return s.masks ? window_capacity<std::int64_t>(s.height)
                   : window_capacity<std::int32_t>(s.height);
}

namespace {
template <class Pixel, class Aux>
cudaError_t carve_init(const CarveState& s, const void* dense_image,
                       const std::uint8_t* dense_protect, const std::uint8_t* dense_remove,
                       const std::uint8_t* dense_temporal, const std::uint8_t* dense_levels,
                       const cudaStream_t stream) {
    const dim3 grid(static_cast<unsigned>((s.width + 255) / 256), static_cast<unsigned>(s.height));
    init_kernel<Pixel, Aux><<<grid, 256, 0, stream>>>(s, static_cast<const Pixel*>(dense_image),
                                                      dense_protect, dense_remove, dense_temporal,
                                                      dense_levels);
    if (s.energy != SeamEnergy::Forward) energy_all_kernel<Pixel, Aux><<<grid, 256, 0, stream>>>(s);
    return cudaGetLastError();
}
}  // namespace

namespace {
/// A state the kernels can carve: deep needs masks; levels carried with the pixel need 8-bit
/// pixels, and without masks a unit whose costs fit 32 bits (with masks, 64-bit costs and
/// 32-bit aux terms hold any unit up to kTemporalMaxUnit).
bool valid_layout(const CarveState& s) {
    if (s.deep && !s.masks) return false;
    if (s.level_unit < 0 || s.level_unit > kTemporalMaxUnit) return false;
    if (s.level_unit != 0 && (s.deep || (!s.masks && !level_unit_folds(s.level_unit))))
        return false;
    return true;
}
}  // namespace

cudaError_t launch_carve_init(const CarveState& s, const void* dense_image,
                              const std::uint8_t* dense_protect, const std::uint8_t* dense_remove,
                              const std::uint8_t* dense_temporal, const std::uint8_t* dense_levels,
                              const cudaStream_t stream) {
    if (!valid_layout(s) || (s.level_unit > 0 && dense_levels == nullptr))
        return cudaErrorInvalidValue;
    if (s.deep)
        return carve_init<Rgba16, std::int32_t>(s, dense_image, dense_protect, dense_remove,
                                                dense_temporal, dense_levels, stream);
    if (s.masks)
        return carve_init<Rgba8, std::int32_t>(s, dense_image, dense_protect, dense_remove,
                                               dense_temporal, dense_levels, stream);
    return carve_init<Rgba8, std::int16_t>(s, dense_image, dense_protect, dense_remove,
                                           dense_temporal, dense_levels, stream);
}

cudaError_t launch_carve_seam_levels(const CarveState& s, const cudaStream_t stream) {
    if (s.mask == nullptr || s.temporal_seams == nullptr) return cudaErrorInvalidValue;
    const dim3 grid(static_cast<unsigned>((s.width + 255) / 256), static_cast<unsigned>(s.height));
    seam_levels_kernel<<<grid, 256, 0, stream>>>(s);
    return cudaGetLastError();
}

cudaError_t launch_carve_find_seam(const CarveState& s, const int seam_index, const bool full,
                                   const cudaStream_t stream) {
    if (!valid_layout(s)) return cudaErrorInvalidValue;
    return with_finder_layout(s, [&](const auto layout) {
        using L = decltype(layout);
        return find_seam<typename L::Cost, L::kForward, L::kLevels>(s, seam_index, full, stream);
    });
}

cudaError_t launch_carve_remove_seam(const CarveState& s, const int seam_index,
                                     const cudaStream_t stream) {
    const bool forward = s.energy == SeamEnergy::Forward;
    const unsigned rows = static_cast<unsigned>(s.height);
    if (!valid_layout(s)) return cudaErrorInvalidValue;
    const unsigned energy_blocks = (rows + 7) / 8;
    if (s.masks) {
        if (forward) {
            if (s.deep)
                remove_kernel<std::int64_t, true, Rgba16>
                    <<<rows, kThreads, 0, stream>>>(s, seam_index);
            else
                remove_kernel<std::int64_t, true, Rgba8>
                    <<<rows, kThreads, 0, stream>>>(s, seam_index);
        } else if (s.deep) {
            remove_kernel<std::int64_t, false, Rgba16>
                <<<rows, kThreads, 0, stream>>>(s, seam_index);
            energy_update_kernel<Rgba16, std::int32_t>
                <<<energy_blocks, 256, 0, stream>>>(s, s.width - 1);
        } else {
            remove_kernel<std::int64_t, false, Rgba8><<<rows, kThreads, 0, stream>>>(s, seam_index);
            energy_update_kernel<Rgba8, std::int32_t>
                <<<energy_blocks, 256, 0, stream>>>(s, s.width - 1);
        }
    } else {
        if (forward) {
            remove_kernel<std::int32_t, true, Rgba8><<<rows, kThreads, 0, stream>>>(s, seam_index);
        } else {
            remove_kernel<std::int32_t, false, Rgba8><<<rows, kThreads, 0, stream>>>(s, seam_index);
            energy_update_kernel<Rgba8, std::int16_t>
                <<<energy_blocks, 256, 0, stream>>>(s, s.width - 1);
        }
    }
    return cudaGetLastError();
}

namespace {
template <class T>
cudaError_t launch_transpose(const T* in, const int width, const int height, T* out,
                             const cudaStream_t stream) {
    const dim3 grid(static_cast<unsigned>((width + 31) / 32),
                    static_cast<unsigned>((height + 31) / 32));
    transpose_kernel<T><<<grid, dim3(32, 8), 0, stream>>>(in, width, height, out);
    return cudaGetLastError();
}
}  // namespace

cudaError_t launch_transpose32(const std::uint32_t* in, const int width, const int height,
                               std::uint32_t* out, const cudaStream_t stream) {
    return launch_transpose(in, width, height, out, stream);
}

cudaError_t launch_transpose64(const std::uint64_t* in, const int width, const int height,
                               std::uint64_t* out, const cudaStream_t stream) {
    return launch_transpose(in, width, height, out, stream);
}

cudaError_t launch_transpose8(const std::uint8_t* in, const int width, const int height,
                              std::uint8_t* out, const cudaStream_t stream) {
    return launch_transpose(in, width, height, out, stream);
}

namespace {
template <class T>
cudaError_t compact_rows(const T* src, const std::int32_t* order, const int width, const int height,
                         const int count, T* dst, const int dst_stride, const cudaStream_t stream) {
    if (height > 0) {
        compact_kernel<T><<<static_cast<unsigned>(height), 256, 0, stream>>>(
            src, order, width, count, dst, dst_stride);
    }
    return cudaGetLastError();
}
}  // namespace

cudaError_t launch_compact_rows(const Rgba8* src, const std::int32_t* order, const int width,
                                const int height, const int count, Rgba8* dst, const int dst_stride,
                                const cudaStream_t stream) {
    return compact_rows(src, order, width, height, count, dst, dst_stride, stream);
}

cudaError_t launch_compact_rows32(const std::uint32_t* src, const std::int32_t* order,
                                  const int width, const int height, const int count,
                                  std::uint32_t* dst, const int dst_stride,
                                  const cudaStream_t stream) {
    return compact_rows(src, order, width, height, count, dst, dst_stride, stream);
}

cudaError_t launch_compact_rows8(const std::uint8_t* src, const std::int32_t* order,
                                 const int width, const int height, const int count,
                                 std::uint8_t* dst, const int dst_stride,
                                 const cudaStream_t stream) {
    return compact_rows(src, order, width, height, count, dst, dst_stride, stream);
}

}  // namespace lacuna::kernels
