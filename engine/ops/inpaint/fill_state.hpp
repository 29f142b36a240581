// Internal: the working state of a CPU fill — dense pixels, known flags, luma, confidence and the
// source of every filled pixel — and the operations the reference and the fast filler share:
// the SSD of one candidate and copying a chosen patch.
#pragma once

#include <lacuna/kernels/inpaint_terms.h>
#include <lacuna/ops/inpaint.hpp>

#include <cstdint>
#include <vector>

namespace lacuna::ops::detail {

class FillState {
  public:
    explicit FillState(const InpaintProblem& problem);

    [[nodiscard]] int width() const { return width_; }
    [[nodiscard]] int height() const { return height_; }
    [[nodiscard]] int radius() const { return radius_; }
    [[nodiscard]] const InpaintProgress& progress() const { return progress_; }
    [[nodiscard]] const std::vector<PatchChoice>& history() const { return history_; }
    [[nodiscard]] const std::vector<Rgba8>& pixels() const { return pixels_; }
    [[nodiscard]] bool known(const int index) const { return known_[index] != 0; }
    /// Linear index of the original pixel copied into `index`, or -1 if it was never filled.
    [[nodiscard]] std::int32_t source_of(const int index) const { return source_[index]; }

    [[nodiscard]] inpaint_terms::PriorityInputs priority_inputs() const {
        return {width_, height_, radius_, known_.data(), luma_.data(), confidence_.data()};
    }

    /// SSD over the known pixels of the target patch (clipped to the image) against the source
    /// patch, which is complete by construction.
    [[nodiscard]] std::uint32_t ssd(int target, int source) const;

    /// Copies the source patch into the target patch's unknown pixels; they take the target
    /// patch's confidence. Records the choice.
    void fill(const PatchChoice& choice);

    [[nodiscard]] ImageRgba8 image() const;

  private:
    int width_;
    int height_;
    int radius_;
    std::vector<Rgba8> pixels_;
    std::vector<std::uint8_t> known_;
    std::vector<std::uint8_t> luma_;
    std::vector<std::int32_t> confidence_;
    std::vector<std::int32_t> source_;
    InpaintProgress progress_;
    std::vector<PatchChoice> history_;
};

/// Candidate source centres a coherent continuation suggests: for every filled pixel t of the
/// target patch, the centre that lines up with t's source. Calls visit(centre) for each one that
/// is a valid source (duplicates included; the caller's minimum makes them harmless).
template <class Visit>
void for_each_coherence_candidate(const FillState& state, const Mask& valid, const int target,
                                  Visit&& visit) {
    const int w = state.width();
    const int px = target % w;
    const int py = target / w;
    const int r = state.radius();
    for (int dy = -r; dy <= r; ++dy) {
        const int ty = py + dy;
        if (ty < 0 || ty >= state.height()) continue;
        for (int dx = -r; dx <= r; ++dx) {
            const int tx = px + dx;
            if (tx < 0 || tx >= w) continue;
            const std::int32_t src = state.source_of(ty * w + tx);
            if (src < 0) continue;
            const int cx = px + (src % w - tx);
            const int cy = py + (src / w - ty);
            if (cx < 0 || cy < 0 || cx >= w || cy >= state.height()) continue;
            if (valid.at(cx, cy) == 0) continue;
            visit(cy * w + cx);
        }
    }
}

}  // namespace lacuna::ops::detail
