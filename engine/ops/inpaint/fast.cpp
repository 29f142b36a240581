// The fast CPU filler. Same decisions as the reference, found with less work:
//  * priorities live in a map over the hole's box and only the region a fill can influence
//    (two patch radii plus the gradient and normal stencils) is recomputed;
//  * the valid candidate centres of the window are listed once;
//  * the SSD stops as soon as it exceeds the best so far (exact: a candidate can only win with a
//    sum no larger than the best), and the coherence candidates — usually good matches — are
//    tried first, so the bound is tight from the start;
//  * the window is split over threads, each with its own bound; the minimum key is the same.
#include "fill_state.hpp"

#include <lacuna/core/parallel.hpp>
#include <lacuna/ops/inpaint.hpp>

#include <algorithm>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace lacuna::ops {
namespace {

/// The target patch's known pixels as (offset, colour), grouped by row so the early exit is
/// checked once per row.
struct TargetPatch {
    std::vector<std::int32_t> offsets;
    std::vector<Rgba8> colours;
    std::vector<std::int32_t> row_ends;
};

constexpr int kLanes = 8;

bool cpu_has_avx2() {
#if defined(__x86_64__) && defined(__GNUC__)
    return __builtin_cpu_supports("avx2");
#else
    return false;
#endif
}

/// Exact SSDs of eight neighbouring candidates (consecutive source centres in one row): the
/// source pixels at one patch offset are eight consecutive RGBA words, one 256-bit load. Stops
/// once every lane (or `invalid` lane) exceeds `bound`; lanes that stopped early hold a sum above
/// the bound, which is all the caller needs.
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) void ssd_of_eight_avx2(const TargetPatch& patch, const Rgba8* first,
                                                       std::uint32_t bound, const unsigned invalid,
                                                       std::uint32_t* sums) {
    const __m256i zero = _mm256_setzero_si256();
    const __m256i rgb = _mm256_set1_epi32(0x00ffffff);
    const __m256i limit =
        _mm256_set1_epi32(static_cast<int>(std::min<std::uint32_t>(bound, 0x7fffffffu)));
    __m256i even = zero;  // per pixel pair: r² + g²
    __m256i odd = zero;   //                 b²
    __m256i total = zero;
    std::size_t i = 0;
    for (const std::int32_t row_end : patch.row_ends) {
        for (; i < static_cast<std::size_t>(row_end); ++i) {
            Rgba8 c = patch.colours[i];
            std::uint32_t word = 0;
            std::memcpy(&word, &c, sizeof word);
            const __m256i target = _mm256_set1_epi32(static_cast<int>(word));
            const __m256i source =
                _mm256_loadu_si256(reinterpret_cast<const __m256i*>(first + patch.offsets[i]));
            const __m256i diff = _mm256_and_si256(
                _mm256_or_si256(_mm256_subs_epu8(source, target), _mm256_subs_epu8(target, source)),
                rgb);
            const __m256i lo = _mm256_unpacklo_epi8(diff, zero);
            const __m256i hi = _mm256_unpackhi_epi8(diff, zero);
            even = _mm256_add_epi32(even, _mm256_madd_epi16(lo, lo));
            odd = _mm256_add_epi32(odd, _mm256_madd_epi16(hi, hi));
        }
        // hadd within 128-bit halves turns the pair layout back into pixel order 0..7.
        total = _mm256_hadd_epi32(even, odd);
        const unsigned above = static_cast<unsigned>(
            _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(total, limit))));
        if ((above | invalid) == 0xffu) break;
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(sums), total);
}
#endif

void ssd_of_eight(const TargetPatch& patch, const Rgba8* first, const std::uint32_t bound,
                  const unsigned invalid, std::uint32_t* sums) {
#if defined(__x86_64__) && defined(__GNUC__)
    ssd_of_eight_avx2(patch, first, bound, invalid, sums);
#else
    (void)patch, (void)first, (void)bound, (void)invalid, (void)sums;
#endif
}

class FastInpainter final : public Inpainter {
  public:
    explicit FastInpainter(InpaintProblem problem)
        : problem_(std::move(problem)), state_(problem_) {
        const SearchRect& box = problem_.hole_box;
        box_width_ = std::max(0, box.x1 - box.x0 + 1);
        const int box_height = std::max(0, box.y1 - box.y0 + 1);
        priorities_.assign(static_cast<std::size_t>(box_width_) * box_height,
                           inpaint_terms::kNotFront);
        row_best_.resize(static_cast<std::size_t>(box_height));
        update_priorities(box);
    }

    InpaintProgress advance(const int iterations) override {
        for (int i = 0; i < iterations && !state_.progress().done(); ++i) {
            throw_if_cancelled();
            const int target = highest_priority();
            state_.fill(best_source(target));
            update_priorities_around(target);
        }
        return state_.progress();
    }
    [[nodiscard]] InpaintProgress progress() const override { return state_.progress(); }
    [[nodiscard]] ImageRgba8 image() const override { return state_.image(); }
    [[nodiscard]] std::vector<PatchChoice> history() const override { return state_.history(); }
    [[nodiscard]] const InpaintProblem& problem() const override { return problem_; }

  private:
    void update_priorities(const SearchRect& region) {
        const inpaint_terms::PriorityInputs in = state_.priority_inputs();
        const SearchRect& box = problem_.hole_box;
        for (int y = std::max(region.y0, box.y0); y <= std::min(region.y1, box.y1); ++y)
            for (int x = std::max(region.x0, box.x0); x <= std::min(region.x1, box.x1); ++x)
                priorities_[static_cast<std::size_t>(y - box.y0) * box_width_ + (x - box.x0)] =
                    inpaint_terms::priority_at(in, x, y);
        for (int y = std::max(region.y0, box.y0); y <= std::min(region.y1, box.y1); ++y)
            refresh_row_best(y - box.y0);
    }

    /// Each row of the box remembers its best (priority, column), so picking the target scans
    /// rows instead of every pixel of the box; only rows a fill touched are rescanned.
    void refresh_row_best(const int row) {
        const double* values = &priorities_[static_cast<std::size_t>(row) * box_width_];
        RowBest best;
        for (int x = 0; x < box_width_; ++x) {
            // Scan order makes "first of equal priority" the lowest index, as ranks_before.
            if (values[x] > best.priority) best = {values[x], x};
        }
        row_best_[static_cast<std::size_t>(row)] = best;
    }

    void update_priorities_around(const int target) {
        // A fill changes pixels within r of the target; a priority reads its patch (r) plus one
        // pixel for gradients, normals and the front test.
        const int reach = 2 * state_.radius() + 2;
        const int x = target % state_.width();
        const int y = target / state_.width();
        update_priorities({x - reach, y - reach, x + reach, y + reach});
    }

    [[nodiscard]] int highest_priority() const {
        const SearchRect& box = problem_.hole_box;
        int best = -1;
        double best_priority = inpaint_terms::kNotFront;
        for (int y = box.y0; y <= box.y1; ++y) {
            const RowBest& row = row_best_[static_cast<std::size_t>(y - box.y0)];
            if (row.priority > best_priority) {
                best_priority = row.priority;
                best = y * state_.width() + box.x0 + row.column;
            }
        }
        return best;
    }

    [[nodiscard]] TargetPatch describe_target(const int target) const {
        TargetPatch patch;
        const int w = state_.width();
        const int tx = target % w;
        const int ty = target / w;
        const int r = state_.radius();
        for (int dy = -r; dy <= r; ++dy) {
            if (ty + dy < 0 || ty + dy >= state_.height()) continue;
            for (int dx = -r; dx <= r; ++dx) {
                if (tx + dx < 0 || tx + dx >= w) continue;
                const int offset = dy * w + dx;
                if (!state_.known(target + offset)) continue;
                patch.offsets.push_back(offset);
                patch.colours.push_back(state_.pixels()[target + offset]);
            }
            patch.row_ends.push_back(static_cast<std::int32_t>(patch.offsets.size()));
        }
        return patch;
    }

    /// SSD of the candidate, or a value above `bound` as soon as it is known to exceed it.
    [[nodiscard]] std::uint32_t bounded_ssd(const TargetPatch& patch, const int source,
                                            const std::uint32_t bound) const {
        const Rgba8* base = state_.pixels().data() + source;
        std::uint32_t sum = 0;
        std::size_t i = 0;
        for (const std::int32_t row_end : patch.row_ends) {
            for (; i < static_cast<std::size_t>(row_end); ++i)
                sum += inpaint_terms::rgb_distance2(patch.colours[i], base[patch.offsets[i]]);
            if (sum > bound) return sum;
        }
        return sum;
    }

    /// The best key among the valid centres of window rows [row_begin, row_end), starting from
    /// `best`. Eight neighbouring centres at a time with AVX2 where the CPU has it.
    [[nodiscard]] std::uint64_t search_rows(const TargetPatch& patch, const int row_begin,
                                            const int row_end, std::uint64_t best) const {
        const SearchRect& window = problem_.window;
        const int w = state_.width();
        for (int y = row_begin; y < row_end; ++y) {
            const std::uint8_t* valid = problem_.valid_source.row(y);
            int x = window.x0;
            if (has_avx2_) {
                for (; x + kLanes - 1 <= window.x1; x += kLanes) {
                    std::uint64_t lanes = 0;
                    std::memcpy(&lanes, valid + x, sizeof lanes);
                    if (lanes == 0) continue;  // the whole group overlaps the hole
                    best = search_group(patch, y * w + x, valid + x, best);
                }
            }
            for (; x <= window.x1; ++x) {
                if (valid[x] == 0) continue;
                const int source = y * w + x;
                const std::uint32_t ssd =
                    bounded_ssd(patch, source, static_cast<std::uint32_t>(best >> 32));
                const std::uint64_t key =
                    inpaint_terms::candidate_key(ssd, static_cast<std::uint32_t>(source));
                if (key < best) best = key;
            }
        }
        return best;
    }

    [[nodiscard]] std::uint64_t search_group(const TargetPatch& patch, const int first_source,
                                             const std::uint8_t* valid, std::uint64_t best) const {
        std::uint32_t sums[kLanes];
        const std::uint32_t bound = static_cast<std::uint32_t>(best >> 32);
        unsigned invalid = 0;
        for (int k = 0; k < kLanes; ++k) invalid |= valid[k] == 0 ? 1u << k : 0u;
        ssd_of_eight(patch, state_.pixels().data() + first_source, bound, invalid, sums);
        for (int k = 0; k < kLanes; ++k) {
            if (valid[k] == 0) continue;
            const std::uint64_t key =
                inpaint_terms::candidate_key(sums[k], static_cast<std::uint32_t>(first_source + k));
            if (key < best) best = key;
        }
        return best;
    }

    [[nodiscard]] PatchChoice best_source(const int target) const {
        const TargetPatch patch = describe_target(target);
        std::uint64_t best = inpaint_terms::kNoCandidate;
        if (problem_.coherence) {
            detail::for_each_coherence_candidate(
                state_, problem_.valid_source, target, [&](const int source) {
                    const std::uint64_t key = inpaint_terms::candidate_key(
                        bounded_ssd(patch, source, static_cast<std::uint32_t>(best >> 32)),
                        static_cast<std::uint32_t>(source));
                    if (key < best) best = key;
                });
        }
        const SearchRect& window = problem_.window;
        const int rows = window.y1 - window.y0 + 1;
        const long long area = static_cast<long long>(rows) * (window.x1 - window.x0 + 1);
        // Below a few thousand candidates a thread costs more than it saves.
        constexpr long long kParallelFrom = 4096;
        if (area < kParallelFrom || worker_count() == 1) {
            best = search_rows(patch, window.y0, window.y1 + 1, best);
        } else {
            std::vector<std::uint64_t> per_worker(worker_count(), best);
            parallel_chunks(rows, [&](const int begin, const int end, const int worker) {
                per_worker[static_cast<std::size_t>(worker)] =
                    search_rows(patch, window.y0 + begin, window.y0 + end, best);
            });
            best = *std::min_element(per_worker.begin(), per_worker.end());
        }
        return {target, static_cast<std::int32_t>(best & 0xffffffffu),
                static_cast<std::uint32_t>(best >> 32)};
    }

    InpaintProblem problem_;
    detail::FillState state_;
    bool has_avx2_ = cpu_has_avx2();
    std::vector<double> priorities_;
    struct RowBest {
        double priority = inpaint_terms::kNotFront;
        int column = -1;
    };
    std::vector<RowBest> row_best_;
    int box_width_ = 0;
};

}  // namespace

namespace detail {
std::unique_ptr<Inpainter> make_fast_inpainter(InpaintProblem problem) {
    return std::make_unique<FastInpainter>(std::move(problem));
}
}  // namespace detail

}  // namespace lacuna::ops
