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

namespace lacuna::ops {
namespace {

/// The target patch's known pixels as (offset, colour), grouped by row so the early exit is
/// checked once per row.
struct TargetPatch {
    std::vector<std::int32_t> offsets;
    std::vector<Rgba8> colours;
    std::vector<std::int32_t> row_ends;
};

class FastInpainter final : public Inpainter {
  public:
    explicit FastInpainter(InpaintProblem problem)
        : problem_(std::move(problem)), state_(problem_) {
        list_candidates();
        const SearchRect& box = problem_.hole_box;
        box_width_ = std::max(0, box.x1 - box.x0 + 1);
        priorities_.assign(static_cast<std::size_t>(box_width_) * std::max(0, box.y1 - box.y0 + 1),
                           inpaint_terms::kNotFront);
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
    void list_candidates() {
        const SearchRect& window = problem_.window;
        for (int y = window.y0; y <= window.y1; ++y)
            for (int x = window.x0; x <= window.x1; ++x)
                if (problem_.valid_source.at(x, y) != 0)
                    candidates_.push_back(y * state_.width() + x);
    }

    void update_priorities(const SearchRect& region) {
        const inpaint_terms::PriorityInputs in = state_.priority_inputs();
        const SearchRect& box = problem_.hole_box;
        for (int y = std::max(region.y0, box.y0); y <= std::min(region.y1, box.y1); ++y)
            for (int x = std::max(region.x0, box.x0); x <= std::min(region.x1, box.x1); ++x)
                priorities_[static_cast<std::size_t>(y - box.y0) * box_width_ + (x - box.x0)] =
                    inpaint_terms::priority_at(in, x, y);
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
            const double* row = &priorities_[static_cast<std::size_t>(y - box.y0) * box_width_];
            for (int x = 0; x < box_width_; ++x) {
                // Scan order makes "first of equal priority" the lowest index, as ranks_before.
                if (row[x] > best_priority) {
                    best_priority = row[x];
                    best = y * state_.width() + box.x0 + x;
                }
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

    [[nodiscard]] std::uint64_t search_range(const TargetPatch& patch, const int begin,
                                             const int end, std::uint64_t best) const {
        for (int c = begin; c < end; ++c) {
            const int source = candidates_[static_cast<std::size_t>(c)];
            const std::uint32_t ssd =
                bounded_ssd(patch, source, static_cast<std::uint32_t>(best >> 32));
            const std::uint64_t key =
                inpaint_terms::candidate_key(ssd, static_cast<std::uint32_t>(source));
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
        const int count = static_cast<int>(candidates_.size());
        // Below a few thousand candidates a thread costs more than it saves.
        constexpr int kParallelFrom = 4096;
        if (count < kParallelFrom || worker_count() == 1) {
            best = search_range(patch, 0, count, best);
        } else {
            std::vector<std::uint64_t> per_worker(worker_count(), best);
            parallel_chunks(count, [&](const int begin, const int end, const int worker) {
                per_worker[static_cast<std::size_t>(worker)] =
                    search_range(patch, begin, end, best);
            });
            best = *std::min_element(per_worker.begin(), per_worker.end());
        }
        return {target, static_cast<std::int32_t>(best & 0xffffffffu),
                static_cast<std::uint32_t>(best >> 32)};
    }

    InpaintProblem problem_;
    detail::FillState state_;
    std::vector<std::int32_t> candidates_;
    std::vector<double> priorities_;
    int box_width_ = 0;
};

}  // namespace

namespace detail {
std::unique_ptr<Inpainter> make_fast_inpainter(InpaintProblem problem) {
    return std::make_unique<FastInpainter>(std::move(problem));
}
}  // namespace detail

}  // namespace lacuna::ops
