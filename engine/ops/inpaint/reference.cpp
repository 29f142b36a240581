// The CPU reference: every iteration scans the whole image for the front pixel of highest
// priority and tries every candidate with a full SSD. Single-threaded and slow on purpose — it is
// the definition the fast and CUDA fillers are tested against.
#include "fill_state.hpp"

#include <lacuna/ops/inpaint.hpp>

namespace lacuna::ops {
namespace {

class ReferenceInpainter final : public Inpainter {
  public:
    explicit ReferenceInpainter(InpaintProblem problem)
        : problem_(std::move(problem)), state_(problem_) {}

    InpaintProgress advance(const int iterations) override {
        for (int i = 0; i < iterations && !state_.progress().done(); ++i) {
            throw_if_cancelled();
            const int target = highest_priority();
            state_.fill(best_source(target));
        }
        return state_.progress();
    }
    [[nodiscard]] InpaintProgress progress() const override { return state_.progress(); }
    [[nodiscard]] ImageRgba8 image() const override { return state_.image(); }
    [[nodiscard]] std::vector<PatchChoice> history() const override { return state_.history(); }
    [[nodiscard]] const InpaintProblem& problem() const override { return problem_; }

  private:
    [[nodiscard]] int highest_priority() const {
        const inpaint_terms::PriorityInputs in = state_.priority_inputs();
        int best = -1;
        double best_priority = inpaint_terms::kNotFront;
        for (int y = 0; y < state_.height(); ++y) {
            for (int x = 0; x < state_.width(); ++x) {
                const double priority = inpaint_terms::priority_at(in, x, y);
                if (priority == inpaint_terms::kNotFront) continue;
                const int index = y * state_.width() + x;
                if (best < 0 || inpaint_terms::ranks_before(priority, index, best_priority, best)) {
                    best = index;
                    best_priority = priority;
                }
            }
        }
        return best;
    }

    [[nodiscard]] PatchChoice best_source(const int target) const {
        std::uint64_t best = inpaint_terms::kNoCandidate;
        const auto consider = [&](const int source) {
            const std::uint64_t key = inpaint_terms::candidate_key(
                state_.ssd(target, source), static_cast<std::uint32_t>(source));
            if (key < best) best = key;
        };
        const SearchRect& window = problem_.window;
        for (int y = window.y0; y <= window.y1; ++y)
            for (int x = window.x0; x <= window.x1; ++x)
                if (problem_.valid_source.at(x, y) != 0) consider(y * state_.width() + x);
        if (problem_.coherence)
            detail::for_each_coherence_candidate(state_, problem_.valid_source, target, consider);
        return {target, static_cast<std::int32_t>(best & 0xffffffffu),
                static_cast<std::uint32_t>(best >> 32)};
    }

    InpaintProblem problem_;
    detail::FillState state_;
};

}  // namespace

namespace detail {
std::unique_ptr<Inpainter> make_reference_inpainter(InpaintProblem problem) {
    return std::make_unique<ReferenceInpainter>(std::move(problem));
}
}  // namespace detail

}  // namespace lacuna::ops
