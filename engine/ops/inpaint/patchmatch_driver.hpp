// Internal: what the CPU and CUDA PatchMatch fillers share on the host: the pyramid's shapes and
// boxes, the EM plan, and the step API driver (levels coarse to fine, iterations, progress,
// cancel). The backends supply only "start a level", "one EM iteration" and "show".
#pragma once

#include <lacuna/core/error.hpp>
#include <lacuna/kernels/patchmatch_terms.h>
#include <lacuna/ops/inpaint.hpp>
#include <lacuna/ops/patchmatch.hpp>

#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

namespace lacuna::ops::detail {

/// The depth a PatchMatchField's distances are measured at.
template <class D>
constexpr int depth_bits() {
    return std::is_same_v<D, patchmatch_terms::PmDepth8> ? 8 : 16;
}

/// A 16-bit decision image must have the problem's size.
inline void check_decision_size(const int w, const int h, const InpaintProblem& problem) {
    if (w != problem.image.width() || h != problem.image.height())
        throw Error(ErrorCode::InvalidArgument,
                    "the decision image is " + std::to_string(w) + "x" + std::to_string(h) +
                        " but the image to fill is " + std::to_string(problem.image.width()) + "x" +
                        std::to_string(problem.image.height()));
}

struct PmShape {
    int width = 0;
    int height = 0;
};

/// Level 0 is the image; each next level halves (rounding up) while its short side stays at least
/// kMinCoarseSide and the hole's box (hole_w × hole_h at level 0), on its longer side, still
/// spans at least kHoleSpanNum / kHoleSpanDen patches. Levels without a valid source are dropped
/// later by the caller.
inline std::vector<PmShape> pyramid_shapes(const int width, const int height, const int hole_w,
                                           const int hole_h, const int patch) {
    std::vector<PmShape> shapes{{width, height}};
    // The hole box at level L spans (x0 >> L) .. (x1 >> L): at least ceil(w / 2^L) pixels. The
    // bound is enough here; it decides the depth only.
    int span = std::max(hole_w, hole_h);
    for (;;) {
        const PmShape next{(shapes.back().width + 1) / 2, (shapes.back().height + 1) / 2};
        if (std::min(next.width, next.height) < patchmatch_terms::kMinCoarseSide) break;
        span = (span + 1) / 2;
        if (patchmatch_terms::kHoleSpanDen * span < patchmatch_terms::kHoleSpanNum * patch) break;
        shapes.push_back(next);
    }
    return shapes;
}

/// pyramid_shapes for a problem.
inline std::vector<PmShape> pyramid_shapes(const InpaintProblem& problem) {
    const SearchRect& b = problem.hole_box;
    return pyramid_shapes(problem.image.width(), problem.image.height(), b.x1 - b.x0 + 1,
                          b.y1 - b.y0 + 1, 2 * problem.radius + 1);
}

/// The hole's box at `level` (coarse hole = any child, so the box just shifts).
inline SearchRect hole_box_at(const InpaintProblem& problem, const int level) {
    const SearchRect& b = problem.hole_box;
    return {b.x0 >> level, b.y0 >> level, b.x1 >> level, b.y1 >> level};
}

/// The gradient channels' gate (docs/notes/patchmatch.md, "The gradient channels for fine
/// texture only"): the ring of known pixels within kGateRing px (chessboard) of the hole...
inline constexpr int kGateRing = 16;
/// ...has a mean |∂x| + |∂y| of the luma (central differences, 4-neighbours known) of at least
/// kGateTexture levels, and no straight edge (edges_into_hole, default tolerances) reaches the
/// hole. Measured over the objects and holes sets, seeds 1-3: the grass, cobblestones and knit
/// pass; sky, tables, orange peel (below 10) and every case with a line into the hole fail.
inline constexpr int kGateTexture = 11;
/// The straight edges are traced in the hole's box grown by this many pixels, not over the whole
/// picture: an edge that reaches the hole is found there (it needs 16 px beside the hole), and
/// the gradients of a whole 1080p picture cost the fill about 85 ms of host time (H100 machine,
/// `lacuna bench inpaint --set holes --case 1920x1080`: PM CUDA 108.7 ms against 22-25 ms).
inline constexpr int kGateTraceMargin = 64;
bool ring_is_fine_texture(const InpaintProblem& problem);

/// The gradient channels' weight (BasicPmLevel::grad_weight) of a problem's levels from
/// kGradientMinLevel up: kGradientWeight where ring_is_fine_texture, else 0. Host code read by
/// both the CPU and the CUDA driver, so they fill with the same distance.
std::uint32_t gradient_weight_for(const InpaintProblem& problem);

/// Sets the level's target box: the hole box grown by the radius, clipped.
template <class D>
void set_target_box(patchmatch_terms::BasicPmLevel<D>& l, const SearchRect& hole_box, const int r) {
    l.box_x0 = std::max(0, hole_box.x0 - r);
    l.box_y0 = std::max(0, hole_box.y0 - r);
    l.box_x1 = std::min(l.width - 1, hole_box.x1 + r);
    l.box_y1 = std::min(l.height - 1, hole_box.y1 + r);
}

/// EM iterations per level, index 0 = finest: 12 at the coarsest falling linearly to 4 at the
/// finest; a single level gets 8.
inline std::vector<int> em_plan(const int levels) {
    std::vector<int> plan(static_cast<std::size_t>(levels));
    if (levels == 1) {
        plan[0] = 8;
        return plan;
    }
    for (int l = 0; l < levels; ++l) plan[l] = 4 + (8 * l + (levels - 1) / 2) / (levels - 1);
    return plan;
}

/// Lets patchmatch_field() read either backend's field.
class PatchMatchFieldSource {
  public:
    virtual ~PatchMatchFieldSource() = default;
    [[nodiscard]] virtual std::optional<PatchMatchField> field() const = 0;
    [[nodiscard]] virtual PatchMatchStage stage() const = 0;
};

/// The step API over a backend. `Base` is Inpainter (CPU) or DeviceInpainter (CUDA).
template <class Base>
class PatchMatchDriver : public Base, public PatchMatchFieldSource {
  public:
    InpaintProgress advance(const int iterations) override {
        for (int i = 0; i < iterations && done_ < planned_; ++i) {
            if (this->cancelled_.load()) {
                show_current();
                this->throw_if_cancelled();
            }
            // Which level and which of its iterations comes next.
            int left = done_;
            int level = levels_ - 1;
            while (left >= plan_[level]) left -= plan_[level--];
            if (left == 0) start_level(level);
            iterate(level, left, winner_take_all(level, left));
            current_level_ = level;
            ++done_;
        }
        show_current();
        return progress();
    }

    [[nodiscard]] InpaintProgress progress() const override {
        InpaintProgress p;
        p.total = problem_.hole_pixels;
        p.iterations = done_;
        if (planned_ == 0 || done_ >= planned_) {
            p.filled = p.total;
        } else {
            // Proportional, but short of the total until the very last iteration.
            p.filled = std::min(p.total - 1, p.total * done_ / planned_);
        }
        return p;
    }
    [[nodiscard]] PatchMatchStage stage() const override {
        PatchMatchStage s;
        s.levels = levels_;
        s.shown = done_ > 0 ? current_level_ : -1;
        if (done_ < planned_) {
            int left = done_;
            int level = levels_ - 1;
            while (left >= plan_[level]) left -= plan_[level--];
            s.next = level;
            s.left = plan_[level] - left;
        }
        return s;
    }
    /// PatchMatch makes no per-patch decisions: always empty.
    [[nodiscard]] std::vector<PatchChoice> history() const override { return {}; }
    [[nodiscard]] const InpaintProblem& problem() const override { return problem_; }

  protected:
    explicit PatchMatchDriver(InpaintProblem problem) : problem_(std::move(problem)) {}

    /// After the backend has built its pyramid: `levels` usable levels (0 for an empty hole).
    void set_levels(const int levels) {
        levels_ = levels;
        plan_ = levels > 0 ? em_plan(levels) : std::vector<int>{};
        planned_ = 0;
        for (const int n : plan_) planned_ += n;
    }
    /// Winner-take-all at the finest level (and only in the last iteration when it is the only
    /// level, so a single-level fill still gets weighted votes to converge on).
    [[nodiscard]] bool winner_take_all(const int level, const int iteration) const {
        return level == 0 && (levels_ > 1 || iteration == plan_[0] - 1);
    }

    /// The first iteration at `level` comes next: initialise its field and estimate.
    virtual void start_level(int level) = 0;
    /// One EM iteration: three field passes and the vote.
    virtual void iterate(int level, int iteration, bool winner_take_all) = 0;
    /// Makes the full-size image show `level`'s estimate in the hole.
    virtual void show(int level) = 0;

    [[nodiscard]] int levels() const { return levels_; }
    [[nodiscard]] int current_level() const { return current_level_; }
    [[nodiscard]] bool started() const { return done_ > 0; }

    InpaintProblem problem_;

  private:
    void show_current() {
        if (done_ > 0 && current_level_ > 0) show(current_level_);
    }

    int levels_ = 0;
    std::vector<int> plan_;
    int planned_ = 0;
    int done_ = 0;
    int current_level_ = 0;
};

}  // namespace lacuna::ops::detail
