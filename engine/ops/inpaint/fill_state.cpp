#include "fill_state.hpp"

namespace lacuna::ops::detail {

FillState::FillState(const InpaintProblem& problem)
    : width_(problem.image.width()), height_(problem.image.height()), radius_(problem.radius) {
    const std::size_t n = static_cast<std::size_t>(width_) * height_;
    pixels_.resize(n);
    known_.resize(n);
    luma_.resize(n);
    confidence_.resize(n);
    source_.assign(n, -1);
    for (int y = 0; y < height_; ++y) {
        for (int x = 0; x < width_; ++x) {
            const std::size_t i = static_cast<std::size_t>(y) * width_ + x;
            const bool in_hole = problem.hole.at(x, y) != 0;
            pixels_[i] = problem.image.at(x, y);
            known_[i] = in_hole ? 0 : 1;
            luma_[i] = inpaint_terms::inpaint_luma(pixels_[i]);
            confidence_[i] = in_hole ? 0 : inpaint_terms::kFullConfidence;
        }
    }
    progress_.total = problem.hole_pixels;
}

std::uint32_t FillState::ssd(const int target, const int source) const {
    const int tx = target % width_;
    const int ty = target / width_;
    std::uint32_t sum = 0;
    for (int dy = -radius_; dy <= radius_; ++dy) {
        if (ty + dy < 0 || ty + dy >= height_) continue;
        for (int dx = -radius_; dx <= radius_; ++dx) {
            if (tx + dx < 0 || tx + dx >= width_) continue;
            const int offset = dy * width_ + dx;
            if (!known_[target + offset]) continue;
            sum += inpaint_terms::rgb_distance2(pixels_[target + offset], pixels_[source + offset]);
        }
    }
    return sum;
}

void FillState::fill(const PatchChoice& choice) {
    const inpaint_terms::PriorityInputs in = priority_inputs();
    const int tx = choice.target % width_;
    const int ty = choice.target / width_;
    const int area = (2 * radius_ + 1) * (2 * radius_ + 1);
    const auto patch_confidence =
        static_cast<std::int32_t>(inpaint_terms::patch_confidence_sum(in, tx, ty) / area);
    for (int dy = -radius_; dy <= radius_; ++dy) {
        if (ty + dy < 0 || ty + dy >= height_) continue;
        for (int dx = -radius_; dx <= radius_; ++dx) {
            if (tx + dx < 0 || tx + dx >= width_) continue;
            const int offset = dy * width_ + dx;
            const int t = choice.target + offset;
            if (known_[t]) continue;
            const int s = choice.source + offset;
            pixels_[t] = pixels_[s];
            luma_[t] = luma_[s];
            known_[t] = 1;
            confidence_[t] = patch_confidence;
            source_[t] = s;
            ++progress_.filled;
        }
    }
    ++progress_.iterations;
    history_.push_back(choice);
}

ImageRgba8 FillState::image() const {
    return from_dense(pixels_, width_, height_);
}

}  // namespace lacuna::ops::detail
