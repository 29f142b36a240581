// The fast CPU carver. Same seams as the reference, found with far less work:
// - energies are kept and recomputed only next to the removed seam;
// - the cumulative-cost map is kept and updated incrementally: row by row, only the columns whose
//   inputs changed are recomputed, and the changed interval is carried down;
// - that row update is a branch-free min of three, eight cells at a time (AVX2 where the CPU has
//   it), written in place while it notes the first and last cell that changed (the tie-break only
//   matters when walking back, which re-derives it); costs are 32-bit without masks;
// - each row is stored in blocks (BlockRows): removing a seam's pixel shifts only the shorter
//   side of its block, not of the row. Whole-row shifts moved ~66 MB a seam at 8K, half of the
//   carve's time; the cost update's band is ~250 columns there, so it seldom meets a block's end.
#include "carve_state.hpp"

#include <lacuna/core/parallel.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace lacuna::ops {
namespace detail {
namespace {
std::atomic<int> g_block_slots{0};
}  // namespace

ScopedCarveBlockSlots::ScopedCarveBlockSlots(const int pixels)
    : previous_(g_block_slots.exchange(pixels)) {}
ScopedCarveBlockSlots::~ScopedCarveBlockSlots() {
    g_block_slots.store(previous_);
}

}  // namespace detail

namespace {

/// Slots per block of a row W pixels wide. The shift of a removal averages a quarter of a block
/// (8 bytes a pixel with forward energy: intensity, column, cost); every block end inside the
/// update's band costs a few cells on the general path. Narrow rows stay one block (the old
/// layout, nothing to cross).
int block_slots(const int W) {
    if (const int forced = detail::g_block_slots.load(); forced > 0) return std::min(forced, W);
    constexpr int kSlots = 1024;
    return W <= 2 * kSlots ? W : kSlots;
}

/// Where the remaining pixels of each row of a W × h carve are stored. A row's W slots are cut
/// into blocks of `slots` (the last may be shorter); block j keeps its remaining pixels
/// contiguous at the row's slots [first, first + count), and they are the row's logical columns
/// [start, start + count). Every per-pixel array of the carver uses this one layout.
class BlockRows {
  public:
    /// Logical columns [begin, end) of one block of row y, the first at `at` (index into the
    /// carver's arrays).
    struct Run {
        int begin = 0, end = 0;
        std::size_t at = 0;
        int block = 0;
    };
    /// A removal's move: `count` elements from index `from` to index `to` (memmove).
    struct Move {
        std::size_t to = 0, from = 0;
        int count = 0;
    };

    BlockRows(const int W, const int h, const int slots) : W_(W), blocks_((W + slots - 1) / slots) {
        meta_.resize(static_cast<std::size_t>(h) * 3 * blocks_);
        for (int y = 0; y < h; ++y) {
            int* m = row_meta(y);
            for (int j = 0; j < blocks_; ++j) {
                m[j] = j * slots;                                     // start
                m[blocks_ + j] = j * slots;                           // first
                m[2 * blocks_ + j] = std::min(slots, W - j * slots);  // count
            }
        }
    }

    /// The run holding logical column x of row y (x below the row's width).
    [[nodiscard]] Run run(const int y, const int x) const {
        const int* start = row_meta(y);
        // The last block starting at or before x: an empty block starts where the next one
        // does, so it is never the last such block.
        const int j = static_cast<int>(std::upper_bound(start, start + blocks_, x) - start) - 1;
        return make(y, j);
    }
    /// The run after r in row y (there must be one: r does not end the row).
    [[nodiscard]] Run next(const int y, const Run& r) const {
        const int* count = row_meta(y) + 2 * blocks_;
        int j = r.block + 1;
        while (count[j] == 0) ++j;
        return make(y, j);
    }
    [[nodiscard]] std::size_t at(const int y, const int x) const {
        const Run r = run(y, x);
        return r.at + static_cast<std::size_t>(x - r.begin);
    }
    /// Takes logical column x (in run r of row y) out: the shorter side of its block moves by
    /// one. Touches row y's entries only (rows may be removed from in parallel).
    Move remove(const int y, const Run& r, const int x) {
        int* start = row_meta(y);
        int& first = start[blocks_ + r.block];
        int& count = start[2 * blocks_ + r.block];
        const int i = x - r.begin, n = count;
        Move m;
        if (i < n - 1 - i) {  // the left part moves right
            m = {r.at + 1, r.at, i};
            ++first;
        } else {
            m = {r.at + static_cast<std::size_t>(i), r.at + static_cast<std::size_t>(i) + 1,
                 n - 1 - i};
        }
        --count;
        for (int j = r.block + 1; j < blocks_; ++j) --start[j];
        return m;
    }

  private:
    /// Row y's start, first and count of every block, side by side (one or two cache lines).
    [[nodiscard]] int* row_meta(const int y) {
        return &meta_[static_cast<std::size_t>(y) * 3 * blocks_];
    }
    [[nodiscard]] const int* row_meta(const int y) const {
        return &meta_[static_cast<std::size_t>(y) * 3 * blocks_];
    }
    [[nodiscard]] Run make(const int y, const int j) const {
        const int* m = row_meta(y);
        return {m[j], m[j] + m[2 * blocks_ + j],
                static_cast<std::size_t>(y) * W_ + static_cast<std::size_t>(m[blocks_ + j]), j};
    }

    int W_, blocks_;
    std::vector<int> meta_;
};

/// The first and last index of a span whose cost changed (first > last: none), and how many
/// cells changed (the work any exact update must do, against the cells recomputed).
struct Changes {
    int first = INT_MAX;
    int last = -1;
    int count = 0;
};

/// Forward energy's intensity (R + G + B, 0 .. 765) takes the low 10 bits of the 8-bit carver's
/// 16-bit intensity; a folded level (0 .. 63) rides in the top 6 (as on CUDA), so the level term
/// needs no array of its own: one stream less in the row update and in every removal.
inline constexpr int kIntensityBits = 10;
inline constexpr int kIntensityMask = (1 << kIntensityBits) - 1;
static_assert(3 * 255 <= kIntensityMask && (kTemporalLevels - 1) << kIntensityBits <= 0xffff,
              "an intensity and a level must share 16 bits");

/// What a span's cells add: a gradient energy (the per-pixel term, level folded in), forward
/// energy's transitions alone, or the transitions and the level packed above the intensities.
enum class SpanKind { Gradient, Forward, ForwardLevels };

// One row of the cumulative-cost update for n contiguous cells away from the borders, 32-bit
// costs, no masks: the hot loop of unmasked carving. Pointers are at the span's first cell:
// `above` the row above's costs (above[-1] .. above[n] are read); gradient energies: `own` the
// per-pixel term; forward energy: `in` this row's intensities (in[-1] .. in[n]) and `in_above`
// the row above's, with ForwardLevels each cell's level in the top bits of `in`, costing
// `unit` a level. Writes `out` in place and says which cells changed.
template <SpanKind kKind>
Changes cost_span_scalar(const std::int32_t* above, const std::uint16_t* in,
                         const std::uint16_t* in_above, const std::int16_t* own, const int unit,
                         std::int32_t* out, const int n) {
    Changes changes;
    for (int x = 0; x < n; ++x) {
        std::int32_t a = above[x - 1], b = above[x], c = above[x + 1];
        std::int32_t term = 0;
        if constexpr (kKind == SpanKind::Gradient) {
            term = own[x];
        } else {
            // Without levels the top bits are 0: no mask needed.
            constexpr int kMask = kKind == SpanKind::ForwardLevels ? kIntensityMask : 0xffff;
            const int left = in[x - 1] & kMask, right = in[x + 1] & kMask;
            const int up_value = in_above[x] & kMask;
            const int up = right > left ? right - left : left - right;
            const int dl = up_value > left ? up_value - left : left - up_value;
            const int dr = up_value > right ? up_value - right : right - up_value;
            a += up + dl;
            b += up;
            c += up + dr;
            if constexpr (kKind == SpanKind::ForwardLevels) term = (in[x] >> kIntensityBits) * unit;
        }
        const std::int32_t m = a < b ? a : b;
        const std::int32_t v = (m < c ? m : c) + term;
        if (v != out[x]) {
            changes.first = std::min(changes.first, x);
            changes.last = x;
            ++changes.count;
        }
        out[x] = v;
    }
    return changes;
}

#if defined(__x86_64__) && defined(__GNUC__)
bool cpu_has_avx2() {
    return __builtin_cpu_supports("avx2");
}

__attribute__((target("avx2"))) inline __m256i load16(const std::int16_t* p) {
    return _mm256_cvtepi16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
__attribute__((target("avx2"))) inline __m256i load16u(const std::uint16_t* p) {
    return _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
__attribute__((target("avx2"))) inline __m256i load32(const std::int32_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

// The same eight cells at a time. min(a + up + dl, b + up, c + up + dr) is up + min(a + dl, b,
// c + dr): the same integers (no sum comes near 2^31, seam_energy.h).
template <SpanKind kKind>
__attribute__((target("avx2,popcnt"))) Changes cost_span_avx2(
    const std::int32_t* above, const std::uint16_t* in, const std::uint16_t* in_above,
    const std::int16_t* own, const int unit, std::int32_t* out, const int n) {
    Changes changes;
    const __m256i mask = _mm256_set1_epi32(kIntensityMask);
    const __m256i unit8 = _mm256_set1_epi32(unit);
    int x = 0;
    for (; x + 8 <= n; x += 8) {
        __m256i a = load32(above + x - 1);
        const __m256i b = load32(above + x);
        __m256i c = load32(above + x + 1);
        __m256i term;
        if constexpr (kKind == SpanKind::Gradient) {
            term = load16(own + x);
        } else {
            __m256i left = load16u(in + x - 1), right = load16u(in + x + 1);
            __m256i up_value = load16u(in_above + x);
            if constexpr (kKind == SpanKind::ForwardLevels) {
                left = _mm256_and_si256(left, mask);
                right = _mm256_and_si256(right, mask);
                up_value = _mm256_and_si256(up_value, mask);
            }
            term = _mm256_abs_epi32(_mm256_sub_epi32(right, left));  // up
            a = _mm256_add_epi32(a, _mm256_abs_epi32(_mm256_sub_epi32(up_value, left)));
            c = _mm256_add_epi32(c, _mm256_abs_epi32(_mm256_sub_epi32(up_value, right)));
            if constexpr (kKind == SpanKind::ForwardLevels)
                term = _mm256_add_epi32(
                    term,
                    _mm256_mullo_epi32(_mm256_srli_epi32(load16u(in + x), kIntensityBits), unit8));
        }
        const __m256i m = _mm256_min_epi32(_mm256_min_epi32(a, b), c);
        const __m256i v = _mm256_add_epi32(m, term);
        const __m256i old = load32(out + x);
        const unsigned differ = ~static_cast<unsigned>(_mm256_movemask_ps(
                                    _mm256_castsi256_ps(_mm256_cmpeq_epi32(v, old)))) &
                                0xffu;
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + x), v);
        if (differ != 0) {
            if (changes.first == INT_MAX) changes.first = x + __builtin_ctz(differ);
            changes.last = x + 31 - __builtin_clz(differ);
            changes.count += __builtin_popcount(differ);
        }
    }
    if (x < n) {
        const auto at = [x](const auto* p) { return p != nullptr ? p + x : p; };
        const Changes tail =
            cost_span_scalar<kKind>(above + x, at(in), at(in_above), at(own), unit, out + x, n - x);
        if (tail.first <= tail.last) {
            if (changes.first == INT_MAX) changes.first = x + tail.first;
            changes.last = x + tail.last;
            changes.count += tail.count;
        }
    }
    return changes;
}
#else
bool cpu_has_avx2() {
    return false;
}
#endif

template <SpanKind kKind>
Changes cost_span(const std::int32_t* above, const std::uint16_t* in, const std::uint16_t* in_above,
                  const std::int16_t* own, const int unit, std::int32_t* out, const int n) {
#if defined(__x86_64__) && defined(__GNUC__)
    static const bool avx2 = cpu_has_avx2();
    if (avx2) return cost_span_avx2<kKind>(above, in, in_above, own, unit, out, n);
#endif
    return cost_span_scalar<kKind>(above, in, in_above, own, unit, out, n);
}

// Pixel: Rgba8 (16-bit intensities and energies, at most 765 and 6120) or Rgba16 (32-bit ones,
// at most 196605 and 1572840; always 64-bit costs, so the generic cell path).
template <class Pixel, class Cost>
class FastVerticalCarver {
    static constexpr bool kDeep = std::is_same_v<Pixel, Rgba16>;
    static constexpr bool kMasks = std::is_same_v<Cost, std::int64_t>;
    static_assert(!kDeep || kMasks, "16-bit decision images need 64-bit costs");
    using Level = std::conditional_t<kDeep, std::int32_t, std::int16_t>;
    /// Forward energy's R + G + B; in the 8-bit carver with a folded level map, the level above
    /// it (kIntensityBits).
    using Intensity = std::conditional_t<kDeep, std::int32_t, std::uint16_t>;
    using Run = BlockRows::Run;

    /// Where the inputs of one cell's recurrence are (indices into the arrays), borders clamped
    /// as the reference clamps them; the above fields only below row 0.
    struct Cell {
        std::size_t k = 0, left = 0, right = 0;
        std::size_t above = 0, above_left = 0, above_right = 0;
    };

  public:
    explicit FastVerticalCarver(const BasicCarveInput<Pixel>& in)
        : W_(in.image.width),
          h_(in.image.height),
          w_(W_),
          energy_kind_(in.energy),
          forward_(in.energy == SeamEnergy::Forward),
          rows_(W_, h_, block_slots(W_)) {
        // Forward energy needs only intensities (its per-pixel energy is zero); the gradient
        // energies need the colours. Each array that is not needed is never shifted.
        const std::size_t n = static_cast<std::size_t>(W_) * h_;
        if (!forward_) img_.resize(n);
        if (forward_) intensity_.resize(n);
        if (!forward_) energy_.resize(n);
        temporal_unit_ = in.temporal || in.temporal_seams ? in.temporal_unit : 0;
        if (temporal_unit_ > 0) temporal_seams_ = in.temporal_seams;
        // 32-bit costs with a level map (levels_fold_into_energy): level × unit per pixel, added
        // to the energy (gradient energies) or passed as the energy (forward energy's is 0).
        if constexpr (!kMasks) folded_levels_ = in.temporal != nullptr && temporal_unit_ > 0;
        // Forward energy packs the level above the intensity; gradient energies carry it in the
        // colour copy's alpha byte, which no energy reads (as CUDA does), and add level × unit
        // where an energy is computed.
        packed_levels_ = folded_levels_ && forward_;
        column_.resize(n);
        cost_.resize(n);
        seam_run_.resize(static_cast<std::size_t>(h_));
        if constexpr (kMasks) {
            protect_.assign(n, 0);
            remove_.assign(n, 0);
            temporal_.assign(n, 0);
            // Importance beside a temporal term (video with faces): a second level array.
            if (in.importance && in.importance_unit > 0) {
                importance_unit_ = in.importance_unit;
                importance_.assign(n, 0);
            }
        }
        // Before any removal every block is full: logical column x of row y is at y × W + x.
        for (int y = 0; y < h_; ++y) {
            const std::size_t base = static_cast<std::size_t>(y) * W_;
            const Pixel* src = in.image.row(y);
            if (!forward_)
                std::memcpy(&img_[base], src, static_cast<std::size_t>(W_) * sizeof(Pixel));
            for (int x = 0; x < W_; ++x) {
                if (forward_)
                    intensity_[base + x] = static_cast<Intensity>(
                        int{src[x].r} + int{src[x].g} + int{src[x].b} +
                        (packed_levels_ ? in.temporal->at(x, y) << kIntensityBits : 0));
                column_[base + x] = static_cast<std::uint16_t>(x);
                if constexpr (!kDeep)
                    if (folded_levels_ && !forward_) img_[base + x].a = in.temporal->at(x, y);
                if constexpr (kMasks) {
                    if (in.protect) protect_[base + x] = in.protect->at(x, y);
                    if (in.remove) remove_[base + x] = in.remove->at(x, y);
                    if (in.temporal) temporal_[base + x] = in.temporal->at(x, y);
                    if (importance_unit_ > 0) importance_[base + x] = in.importance->at(x, y);
                    if (temporal_seams_)
                        temporal_[base + x] = seam_temporal_level(x, temporal_seams_->at(0, y));
                }
            }
        }
        if (!forward_) {
            parallel_chunks(h_, [&](const int y0, const int y1, int) {
                const auto row_fn = [this](const int yy) {
                    return &img_[static_cast<std::size_t>(yy) * W_];
                };
                const ClampedRgb<decltype(row_fn)> pixels{row_fn, w_, h_};
                for (int y = y0; y < y1; ++y)
                    for (int x = 0; x < w_; ++x)
                        set_energy(static_cast<std::size_t>(y) * W_ + x, pixels, x, y);
            });
        }
        for (int y = 0; y < h_; ++y) (void)update_row(y, 0, w_ - 1);
    }

    /// The incremental updates' work so far (the first full map is not counted).
    struct Work {
        std::int64_t updates = 0, recomputed = 0, changed = 0;
    };
    [[nodiscard]] const Work& work() const { return work_; }

    /// A video wave (seam_orders_fast_chained): `wait(k)` returns once the previous frame's seam
    /// k is published in the paths this carver follows; `publish(k, crossings)` hands this
    /// frame's seam k (original columns per row) to the next frame.
    void chain(std::function<void(int)> wait, std::function<void(int, std::vector<int>&)> publish) {
        wait_for_previous_ = std::move(wait);
        publish_ = std::move(publish);
    }

    /// Finds `seams` seams. The carver is spent afterwards: its arrays are released before the
    /// order map is allocated, so the two never coexist.
    SeamOrder run(const int seams, const CarveProgress& progress) {
        SeamOrder result;
        result.direction = SeamDirection::Vertical;
        result.width = W_;
        result.height = h_;
        result.seams = seams;
        // Each seam's original column per row, filled into the order map at the end: one
        // scattered store per row and seam into a W × h map missed the cache every time.
        std::vector<std::uint16_t> paths(static_cast<std::size_t>(seams) * h_);
        std::vector<int> seam(h_);
        for (int s = 0; s < seams; ++s) {
            if (progress && s % 16 == 0 && !progress(s, seams)) {
                throw Error(ErrorCode::Cancelled, "seam carving cancelled");
            }
            result.costs.push_back(backtrack(seam));
            std::uint16_t* path = &paths[static_cast<std::size_t>(s) * h_];
            std::int32_t crossed_protect = 0, crossed_remove = 0;
            for (int y = 0; y < h_; ++y) {
                const std::size_t k = seam_at(seam, y);
                path[y] = column_[k];
                if constexpr (kMasks) {
                    crossed_protect += protect_[k] != 0;
                    crossed_remove += remove_[k] != 0;
                }
            }
            result.protected_crossed.push_back(crossed_protect);
            result.remove_crossed.push_back(crossed_remove);
            if (publish_) {
                crossings_.assign(path, path + h_);
                publish_(s, crossings_);
            }
            remove_seam(seam);
            if (s + 1 < seams) {
                if (temporal_seams_ && wait_for_previous_) wait_for_previous_(s + 1);
                update_after_removal(seam, s + 1);
            }
        }
        release();
        result.order = Image<std::int32_t>(W_, h_, kNeverRemoved);
        // Bands of rows, so that the rows written stay in cache while every seam is visited.
        constexpr int kBand = 32;
        for (int y0 = 0; y0 < h_; y0 += kBand) {
            const int y1 = std::min(h_, y0 + kBand);
            for (int s = 0; s < seams; ++s) {
                const std::uint16_t* path = &paths[static_cast<std::size_t>(s) * h_];
                for (int y = y0; y < y1; ++y) result.order.at(path[y], y) = s;
            }
        }
        if (progress) progress(seams, seams);
        return result;
    }

  private:
    /// Frees every per-pixel array (run() is done with them).
    void release() {
        const auto drop = [](auto& v) { std::decay_t<decltype(v)>().swap(v); };
        drop(img_);
        drop(intensity_);
        drop(column_);
        drop(energy_);
        drop(cost_);
        drop(protect_);
        drop(remove_);
        drop(temporal_);
        drop(importance_);
    }

    /// The index of the seam's pixel in row y (the walk back kept its run).
    [[nodiscard]] std::size_t seam_at(const std::vector<int>& seam, const int y) const {
        const Run& r = seam_run_[y];
        return r.at + static_cast<std::size_t>(seam[y] - r.begin);
    }

    /// Cell x of row y, given the runs holding x in row y and (below row 0) in row y − 1; a
    /// neighbour beyond its run is looked up.
    [[nodiscard]] Cell cell_near(const int x, const int y, const Run& here,
                                 const Run& above) const {
        Cell c;
        const int last = w_ - 1;
        c.k = here.at + static_cast<std::size_t>(x - here.begin);
        c.left = x == 0 ? c.k : x > here.begin ? c.k - 1 : rows_.at(y, x - 1);
        c.right = x == last ? c.k : x + 1 < here.end ? c.k + 1 : rows_.at(y, x + 1);
        if (y > 0) {
            c.above = above.at + static_cast<std::size_t>(x - above.begin);
            c.above_left = x == 0            ? c.above
                           : x > above.begin ? c.above - 1
                                             : rows_.at(y - 1, x - 1);
            c.above_right = x == last           ? c.above
                            : x + 1 < above.end ? c.above + 1
                                                : rows_.at(y - 1, x + 1);
        }
        return c;
    }
    [[nodiscard]] Cell cell_at(const int x, const int y) const {
        return cell_near(x, y, rows_.run(y, x), y > 0 ? rows_.run(y - 1, x) : Run{});
    }
    /// A cell inside both runs: every neighbour is next to it.
    [[nodiscard]] static Cell inner_cell(const std::size_t k, const std::size_t above) {
        return {k, k - 1, k + 1, above, above - 1, above + 1};
    }

    /// Forward energy's R + G + B at index k (a packed level stripped off).
    [[nodiscard]] int intensity_of(const std::size_t k) const {
        if constexpr (kDeep)
            return intensity_[k];
        else
            return intensity_[k] & kIntensityMask;
    }

    template <class Pixels>
    void set_energy(const std::size_t k, const Pixels& pixels, const int x, const int y) {
        std::int64_t level_term = 0;
        if constexpr (!kDeep)
            if (folded_levels_) level_term = temporal_term(img_[k].a, temporal_unit_);
        energy_[k] = static_cast<Level>(pixel_energy(pixels, energy_kind_, x, y) + level_term);
    }

    /// Copies logical columns [lo, hi] of row y of `v` to `out`.
    template <class T>
    void gather(const std::vector<T>& v, const int y, const int lo, const int hi, T* out) const {
        for (Run r = rows_.run(y, lo);; r = rows_.next(y, r)) {
            const int a = std::max(lo, r.begin), b = std::min(hi + 1, r.end);
            std::memcpy(out + (a - lo), &v[r.at + static_cast<std::size_t>(a - r.begin)],
                        static_cast<std::size_t>(b - a) * sizeof(T));
            if (b > hi) break;
        }
    }

    /// The energies of columns lo..hi of row y (gradient energies: the 3 × 3 neighbourhood, so
    /// rows y − 1 .. y + 1 around the columns are gathered first).
    void recompute_energy(const int y, const int lo, const int hi) {
        if (forward_) return;  // no per-pixel energy
        const int first = std::max(lo - 1, 0), last = std::min(hi + 1, w_ - 1);
        const std::size_t span = static_cast<std::size_t>(last - first + 1);
        band_.resize(3 * span);
        for (int dy = -1; dy <= 1; ++dy)
            if (y + dy >= 0 && y + dy < h_)
                gather(img_, y + dy, first, last, &band_[(dy + 1) * span]);
        // Pixel (x, yy) of the band; the energy clamps x and yy into it.
        struct BandRow {
            const Pixel* p;
            int first;
            const Pixel& operator[](const int x) const { return p[x - first]; }
        };
        const auto row_fn = [&](const int yy) {
            return BandRow{&band_[static_cast<std::size_t>(yy - y + 1) * span], first};
        };
        const ClampedRgb<decltype(row_fn)> pixels{row_fn, w_, h_};
        Run r = rows_.run(y, lo);
        for (int x = lo; x <= hi; ++x) {
            if (x >= r.end) r = rows_.next(y, r);
            set_energy(r.at + static_cast<std::size_t>(x - r.begin), pixels, x, y);
        }
    }

    // The reference's recurrence, one cell, in full generality (borders, masks, row 0).
    [[nodiscard]] Cost cell_cost(const Cell& c, const int x, const int y) const {
        std::int64_t own =
            forward_
                ? (packed_levels_
                       ? temporal_term(static_cast<std::uint8_t>(intensity_[c.k] >> kIntensityBits),
                                       temporal_unit_)
                       : 0)
                : energy_[c.k];
        if constexpr (kMasks)
            own += mask_term(protect_[c.k], remove_[c.k]) +
                   temporal_term(temporal_[c.k], temporal_unit_) +
                   (importance_unit_ > 0 ? temporal_term(importance_[c.k], importance_unit_) : 0);
        int up = 0, from_left = 0, from_right = 0;
        if (forward_) {
            const int left = intensity_of(c.left);
            const int right = intensity_of(c.right);
            up = iabs(right - left);
            if (y > 0) {
                const int above = intensity_of(c.above);
                from_left = up + iabs(above - left);
                from_right = up + iabs(above - right);
            }
        }
        if (y == 0) return static_cast<Cost>(own + up);
        std::int64_t best = std::int64_t{cost_[c.above]} + up;
        if (x > 0) best = std::min(best, std::int64_t{cost_[c.above_left]} + from_left);
        if (x < w_ - 1) best = std::min(best, std::int64_t{cost_[c.above_right]} + from_right);
        return static_cast<Cost>(best + own);
    }

    /// Recomputes cell x of row y in place; notes it in `changes` when its cost changed.
    void update_cell(const Cell& c, const int x, const int y, Changes& changes) {
        const Cost v = cell_cost(c, x, y);
        if (v != cost_[c.k]) {
            changes.first = std::min(changes.first, x);
            changes.last = std::max(changes.last, x);
            ++changes.count;
        }
        cost_[c.k] = v;
    }

    // Recomputes costs of columns lo..hi in row y; returns the columns whose cost changed (the
    // first and last, and how many). Cells whose neighbours all lie in their runs (in this row
    // and the row above) go through the span loop, the others one by one.
    Changes update_row(const int y, const int lo, const int hi) {
        Changes changes;
        Run here = rows_.run(y, lo);
        Run above = y > 0 ? rows_.run(y - 1, lo) : Run{};
        for (int x = lo; x <= hi;) {
            if (x >= here.end) here = rows_.next(y, here);
            if (y > 0 && x >= above.end) above = rows_.next(y - 1, above);
            int end = std::min(hi + 1, here.end - 1);
            if (y > 0) end = std::min(end, above.end - 1);
            if (x > here.begin && (y == 0 || x > above.begin) && x < end) {
                update_span(x, end, y, here, above, changes);
                x = end;
            } else {
                update_cell(cell_near(x, y, here, above), x, y, changes);
                ++x;
            }
        }
        return changes;
    }

    /// Cells [x0, x1) of row y, inside `here` and `above` with their neighbours.
    void update_span(const int x0, const int x1, const int y, const Run& here, const Run& above,
                     Changes& changes) {
        const std::size_t k = here.at + static_cast<std::size_t>(x0 - here.begin);
        const std::size_t a = y > 0 ? above.at + static_cast<std::size_t>(x0 - above.begin) : 0;
        if constexpr (!kMasks) {
            if (y > 0) {
                const int n = x1 - x0;
                const Changes span =
                    !forward_ ? cost_span<SpanKind::Gradient>(&cost_[a], nullptr, nullptr,
                                                              &energy_[k], 0, &cost_[k], n)
                    : packed_levels_
                        ? cost_span<SpanKind::ForwardLevels>(&cost_[a], &intensity_[k],
                                                             &intensity_[a], nullptr,
                                                             temporal_unit_, &cost_[k], n)
                        : cost_span<SpanKind::Forward>(&cost_[a], &intensity_[k], &intensity_[a],
                                                       nullptr, 0, &cost_[k], n);
                if (span.first <= span.last) {
                    changes.first = std::min(changes.first, x0 + span.first);
                    changes.last = std::max(changes.last, x0 + span.last);
                    changes.count += span.count;
                }
                return;
            }
        }
        for (int x = x0; x < x1; ++x) {
            const std::size_t i = static_cast<std::size_t>(x - x0);
            update_cell(inner_cell(k + i, a + i), x, y, changes);
        }
    }

    std::int64_t backtrack(std::vector<int>& seam) {
        const int bottom = h_ - 1;
        int x = 0;
        Cost best = 0;
        for (Run r = rows_.run(bottom, 0);; r = rows_.next(bottom, r)) {
            const Cost* c = &cost_[r.at];
            for (int i = 0; i < r.end - r.begin; ++i)
                if ((r.begin == 0 && i == 0) || c[i] < best) {
                    best = c[i];
                    x = r.begin + i;
                }
            if (r.end >= w_) break;
        }
        const std::int64_t total = best;
        const int lastx = w_ - 1;
        for (int y = bottom; y >= 0; --y) {
            seam[y] = x;
            const Run here = rows_.run(y, x);
            seam_run_[y] = here;
            if (y == 0) break;
            // Re-derive the parent with the reference's rule: left first, strict improvement.
            const Cell c = cell_near(x, y, here, rows_.run(y - 1, x));
            int up = 0, from_left = 0, from_right = 0;
            if (forward_) {
                const int left = intensity_of(c.left), right = intensity_of(c.right);
                const int above = intensity_of(c.above);
                up = iabs(right - left);
                from_left = up + iabs(above - left);
                from_right = up + iabs(above - right);
            }
            std::int64_t least = 0;
            int best_d = 2;
            for (int d = -1; d <= 1; ++d) {
                if (x + d < 0 || x + d > lastx) continue;
                const std::size_t i = d < 0 ? c.above_left : d > 0 ? c.above_right : c.above;
                const std::int64_t v = std::int64_t{cost_[i]} + (d < 0   ? from_left
                                                                 : d > 0 ? from_right
                                                                         : up);
                if (best_d == 2 || v < least) {
                    least = v;
                    best_d = d;
                }
            }
            x += best_d;
        }
        return total;
    }

    /// The update reads a row's costs and inputs once, from memory (the band of a row is a few
    /// hundred columns, 30 KB from the next row's): without a hint every row waits for them.
    /// Row y's columns [lo, hi] (this row's band, a guess at row y's) are fetched ahead.
    static constexpr int kPrefetchRows = 4;
    template <class T>
    void prefetch(const std::vector<T>& v, const std::size_t k, const int n) const {
        const char* p = reinterpret_cast<const char*>(&v[k]);
        const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(T);
        for (std::size_t b = 0; b < bytes; b += 64) __builtin_prefetch(p + b);
    }
    void prefetch_row(const int y, const int lo, const int hi) const {
        const Run r = rows_.run(y, lo);
        const int n = std::min(hi + 1, r.end) - lo;
        const std::size_t k = r.at + static_cast<std::size_t>(lo - r.begin);
        prefetch(cost_, k, n);
        if (forward_)
            prefetch(intensity_, k, n);
        else
            prefetch(energy_, k, n);
    }

    template <class T>
    static void apply(std::vector<T>& v, const BlockRows::Move& m) {
        std::memmove(&v[m.to], &v[m.from], static_cast<std::size_t>(m.count) * sizeof(T));
    }

    void remove_seam(const std::vector<int>& seam) {
        const auto shift_rows = [&](const int y0, const int y1, int) {
            for (int y = y0; y < y1; ++y) {
                const BlockRows::Move m = rows_.remove(y, seam_run_[y], seam[y]);
                if (m.count == 0) continue;
                if (!forward_) {
                    apply(img_, m);
                    apply(energy_, m);
                } else {
                    apply(intensity_, m);
                }
                apply(column_, m);
                apply(cost_, m);
                if constexpr (kMasks) {
                    apply(protect_, m);
                    apply(remove_, m);
                    apply(temporal_, m);
                    if (importance_unit_ > 0) apply(importance_, m);
                }
            }
        };
        if (static_cast<std::int64_t>(w_) * h_ >= 200000)
            parallel_chunks(h_, shift_rows);
        else
            shift_rows(0, h_, 0);
        --w_;
    }

    /// The first logical column of row y whose original column is at least v (w_ if none):
    /// original columns increase along a row.
    [[nodiscard]] int first_column_from(const int y, const int v) const {
        for (Run r = rows_.run(y, 0);; r = rows_.next(y, r)) {
            const std::uint16_t* first = &column_[r.at];
            const std::uint16_t* end = first + (r.end - r.begin);
            if (r.end > r.begin && int{end[-1]} >= v)
                return r.begin + static_cast<int>(std::lower_bound(first, end, v,
                                                                   [](const int c, const int t) {
                                                                       return c < t;
                                                                   }) -
                                                  first);
            if (r.end >= w_) return w_;
        }
    }

    /// The per-seam term moves from seam `next` − 1's crossing to seam `next`'s: the levels that
    /// can change lie within the cap of either (beyond both they are the cap). Sets them and
    /// widens row y's dirty columns over them.
    void update_seam_levels(const int y, const int next) {
        if constexpr (kMasks) {
            const int a = temporal_seams_->at(next - 1, y), b = temporal_seams_->at(next, y);
            // The columns whose original position lies in the window are one run.
            const int lo = first_column_from(y, std::min(a, b) - kSeamTemporalCap);
            const int hi = first_column_from(y, std::max(a, b) + kSeamTemporalCap + 1);
            if (lo >= hi) return;
            Run r = rows_.run(y, lo);
            for (int x = lo; x < hi; ++x) {
                if (x >= r.end) r = rows_.next(y, r);
                const std::size_t k = r.at + static_cast<std::size_t>(x - r.begin);
                temporal_[k] = seam_temporal_level(column_[k], b);
            }
            dirty_[y].first = std::min(dirty_[y].first, lo);
            dirty_[y].second = std::max(dirty_[y].second, hi - 1);
        }
    }

    void update_after_removal(const std::vector<int>& seam, const int next) {
        // Energies: pixels whose 3x3 neighbourhood changed lie within two columns of the seam in
        // this row or the rows next to it.
        dirty_.resize(h_);
        for (int y = 0; y < h_; ++y) {
            const int a = seam[std::max(y - 1, 0)], b = seam[y], c = seam[std::min(y + 1, h_ - 1)];
            const int lo = std::max(0, std::min({a, b, c}) - 2);
            const int hi = std::min(w_ - 1, std::max({a, b, c}) + 2);
            dirty_[y] = {lo, hi};
            recompute_energy(y, lo, hi);
            if (temporal_seams_) update_seam_levels(y, next);
        }
        // Costs: the dirty columns plus the neighbours of last row's changes.
        Changes changed;
        for (int y = 0; y < h_; ++y) {
            int lo = dirty_[y].first, hi = dirty_[y].second;
            if (changed.first <= changed.last) {
                lo = std::min(lo, std::max(0, changed.first - 1));
                hi = std::max(hi, std::min(w_ - 1, changed.last + 1));
            }
            if (y + kPrefetchRows < h_) prefetch_row(y + kPrefetchRows, lo, hi);
            changed = update_row(y, lo, hi);
            work_.recomputed += hi - lo + 1;
            work_.changed += changed.count;
        }
        ++work_.updates;
    }

    int W_, h_, w_;
    SeamEnergy energy_kind_;
    bool forward_;
    BlockRows rows_;  ///< where each row's remaining pixels are, for every array below
    std::vector<Pixel> img_;
    std::vector<Intensity> intensity_;  ///< R + G + B, for forward energy (+ level, packed)
    /// Original column of each remaining pixel: a vertical seam moves pixels only within their
    /// row, so the row is known and 16 bits hold any column (kMaxImageSide is 32768). Half the
    /// memory of a linear index, which at 8K was 133 MB of the carver's peak.
    std::vector<std::uint16_t> column_;
    static_assert(kMaxImageSide <= 65536, "a column must fit 16 bits");
    std::vector<Level> energy_;  ///< per-pixel energy
    std::vector<Cost> cost_;     ///< cumulative cost
    std::vector<Pixel> band_;    ///< rows y − 1 .. y + 1 around a gradient energy's columns
    /// A level map folded into the energies (32-bit costs): forward energy's level in the top bits
    /// of its intensities (packed_levels_), a gradient energy's in the colour copy's alpha byte.
    bool folded_levels_ = false;
    bool packed_levels_ = false;  ///< forward energy's levels above its intensities
    std::vector<std::uint8_t> protect_, remove_, temporal_;
    int temporal_unit_ = 0;
    std::vector<std::uint8_t> importance_;  ///< importance beside a temporal term (64-bit costs)
    int importance_unit_ = 0;
    const SeamPaths* temporal_seams_ = nullptr;  ///< the per-seam term's paths (with a unit)
    std::function<void(int)> wait_for_previous_;
    std::function<void(int, std::vector<int>&)> publish_;
    std::vector<int> crossings_;  ///< the seam just found, in original columns (publish_)
    Work work_;
    std::vector<std::pair<int, int>> dirty_;  ///< per row: columns whose energy was recomputed
    std::vector<Run> seam_run_;               ///< per row: the run holding the seam just found
};

}  // namespace

namespace {
SeamOrder fast_carve(const CarveInput& input, const SeamDirection direction, const int seams,
                     const CarveProgress& progress, CarveProfile* profile) {
    detail::check_carve_input(input, direction, seams);
    const CarveInput levels = detail::importance_as_levels(input);
    const auto started = std::chrono::steady_clock::now();
    SeamOrder order =
        detail::in_direction(levels, direction, seams, [&](const CarveInput& in, const int n) {
            const auto carve = [&](auto&& carver, const int bits) {
                SeamOrder o = carver.run(n, progress);
                if (profile != nullptr) {
                    const auto& work = carver.work();
                    const double updates =
                        static_cast<double>(std::max<std::int64_t>(work.updates, 1));
                    profile->cells_per_seam = static_cast<double>(work.recomputed) / updates;
                    profile->changed_cells_per_seam = static_cast<double>(work.changed) / updates;
                    profile->cost_bits = bits;
                    profile->folded_levels = bits == 32 && detail::has_pixel_terms(in);
                }
                return o;
            };
            // Without masks every cost fits 32 bits (32768 rows × 7650 at most): half the memory
            // traffic. A small level map alone (importance) folds into the energies and keeps it.
            if (detail::has_pixel_terms(in) && !detail::levels_fold_into_energy(in))
                return carve(FastVerticalCarver<Rgba8, std::int64_t>(in), 64);
            return carve(FastVerticalCarver<Rgba8, std::int32_t>(in), 32);
        });
    if (profile != nullptr) {
        profile->seams = seams;
        profile->total_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
                .count();
    }
    return order;
}
}  // namespace

SeamOrder seam_order_fast(const CarveInput& input, const SeamDirection direction, const int seams,
                          const CarveProgress& progress) {
    return fast_carve(input, direction, seams, progress, nullptr);
}

SeamOrder seam_order_fast_profiled(const CarveInput& input, const SeamDirection direction,
                                   const int seams, CarveProfile& profile) {
    profile = CarveProfile{};
    return fast_carve(input, direction, seams, {}, &profile);
}

namespace {

/// One frame's seams as they are found, for the next frame of a CPU wave: paths filled seam by
/// seam, a count of the seams published, and a failure flag so that no frame waits forever on a
/// frame that threw.
class PublishedPaths {
  public:
    PublishedPaths(const int lines, const int count) {
        paths_.lines = lines;
        paths_.count = count;
        paths_.positions.assign(static_cast<std::size_t>(lines) * count, 0);
    }
    [[nodiscard]] const SeamPaths& paths() const { return paths_; }
    void publish(const int seam, const std::vector<int>& crossings) {
        {
            const std::lock_guard lock(mutex_);
            std::copy(crossings.begin(), crossings.end(),
                      paths_.positions.begin() + static_cast<std::ptrdiff_t>(seam) * paths_.lines);
            ready_ = seam + 1;
        }
        changed_.notify_all();
    }
    void fail() {
        {
            const std::lock_guard lock(mutex_);
            failed_ = true;
        }
        changed_.notify_all();
    }
    void wait_for(const int seam) {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return ready_ > seam || failed_; });
        if (ready_ <= seam)
            throw Error(ErrorCode::DeviceError, "the previous frame of the wave failed");
    }

  private:
    SeamPaths paths_;
    std::mutex mutex_;
    std::condition_variable changed_;
    int ready_ = 0;
    bool failed_ = false;
};

}  // namespace

std::vector<SeamOrder> seam_orders_fast_chained(const std::vector<CarveInput>& frames,
                                                const SeamDirection direction, const int seams,
                                                const SeamPaths* first_previous,
                                                const std::vector<bool>& follows,
                                                const int temporal_unit) {
    detail::check_chained_input(frames, direction, seams, first_previous, follows, temporal_unit);
    const std::size_t n = frames.size();
    if (n == 0) return {};
    const auto linked = [&](const std::size_t f) { return follows[f] && temporal_unit > 0; };
    std::vector<CarveInput> inputs(frames);
    for (CarveInput& in : inputs) {
        in.temporal = nullptr;
        in.temporal_seams = nullptr;
        in.temporal_unit = 0;
    }
    const int lines =
        direction == SeamDirection::Vertical ? frames[0].image.height : frames[0].image.width;
    std::vector<std::unique_ptr<PublishedPaths>> published;
    for (std::size_t f = 0; f < n; ++f)
        published.push_back(std::make_unique<PublishedPaths>(lines, std::max(seams, 1)));
    for (std::size_t f = 0; f < n; ++f) {
        if (!linked(f)) continue;
        inputs[f].temporal_seams = f == 0 ? first_previous : &published[f - 1]->paths();
        inputs[f].temporal_unit = temporal_unit;
    }
    std::vector<SeamOrder> orders(n);
    std::vector<std::exception_ptr> errors(n);
    // A thread per frame (not the shared pool: a frame blocks on the one before it, and a pool
    // that ran a later frame first on the thread an earlier one needs would wait forever).
    std::vector<std::thread> threads;
    for (std::size_t f = 0; f < n; ++f) {
        threads.emplace_back([&, f] {
            try {
                const bool waits = linked(f) && f > 0;
                PublishedPaths* previous = waits ? published[f - 1].get() : nullptr;
                PublishedPaths& mine = *published[f];
                if (previous) previous->wait_for(0);  // seam 0's levels
                orders[f] = detail::in_direction(
                    inputs[f], direction, seams, [&](const CarveInput& in, const int count) {
                        const auto carve = [&](auto&& carver) {
                            carver.chain(
                                [previous](const int k) {
                                    if (previous) previous->wait_for(k);
                                },
                                [&mine](const int k, std::vector<int>& crossings) {
                                    mine.publish(k, crossings);
                                });
                            return carver.run(count, {});
                        };
                        if (detail::has_pixel_terms(in))
                            return carve(FastVerticalCarver<Rgba8, std::int64_t>(in));
                        return carve(FastVerticalCarver<Rgba8, std::int32_t>(in));
                    });
            } catch (...) {
                errors[f] = std::current_exception();
                published[f]->fail();
            }
        });
    }
    for (std::thread& t : threads) t.join();
    for (const std::exception_ptr& e : errors)
        if (e) std::rethrow_exception(e);
    return orders;
}

SeamOrder seam_order_fast(const DeepCarveInput& input, const SeamDirection direction,
                          const int seams, const CarveProgress& progress) {
    detail::check_carve_input(input, direction, seams);
    return detail::in_direction(detail::importance_as_levels(input), direction, seams,
                                [&](const DeepCarveInput& in, const int n) {
                                    return FastVerticalCarver<Rgba16, std::int64_t>(in).run(
                                        n, progress);
                                });
}

}  // namespace lacuna::ops
