// The gold standard: every position, every band sample, one at a time.
#include <lacuna/core/error.hpp>
#include <lacuna/ops/kymograph.hpp>

#include "check.hpp"

#include <cmath>
#include <string>

namespace lacuna::ops {

void kymograph_row_reference(const KymographPlan& plan, const ImageView<const float> frame,
                             float* row) {
    if (frame.width != plan.width || frame.height != plan.height) {
        throw Error(ErrorCode::InvalidArgument,
                    "a frame of " + std::to_string(frame.width) + "x" +
                        std::to_string(frame.height) + " does not match the kymograph's " +
                        std::to_string(plan.width) + "x" + std::to_string(plan.height));
    }
    for (int p = 0; p < plan.positions(); ++p) {
        const LineGeometry& g = plan.segments[static_cast<std::size_t>(plan.segment_of[p])];
        double sum = 0;
        int n = 0;
        for (int j = 0; j < g.band; ++j) {
            double x = 0, y = 0;
            line_sample_point(g, plan.index_of[p], j, x, y);
            float v = 0;
            if (!sample_plane(frame, plan.sampling, x, y, v) || std::isnan(v)) continue;
            sum += v;
            ++n;
        }
        row[p] = n == 0 ? NAN : static_cast<float>(sum / n);
    }
}

namespace detail {
void check_kymograph_frames(const std::vector<ImageF32>& frames) {
    if (frames.empty()) throw Error(ErrorCode::EmptyImage, "a kymograph needs at least one frame");
    for (std::size_t f = 1; f < frames.size(); ++f) {
        if (frames[f].width() != frames[0].width() || frames[f].height() != frames[0].height()) {
            throw Error(
                ErrorCode::InvalidArgument,
                "frame " + std::to_string(f + 1) + " is " + std::to_string(frames[f].width()) +
                    "x" + std::to_string(frames[f].height()) + ", frame 1 is " +
                    std::to_string(frames[0].width()) + "x" + std::to_string(frames[0].height()) +
                    ": a kymograph needs frames of one size");
        }
    }
}
}  // namespace detail

ImageF32 kymograph_reference(const std::vector<ImageF32>& frames, const KymographParams& params) {
    detail::check_kymograph_frames(frames);
    const KymographPlan plan = plan_kymograph(frames[0].width(), frames[0].height(), params);
    ImageF32 out(plan.positions(), static_cast<int>(frames.size()));
    for (std::size_t f = 0; f < frames.size(); ++f)
        kymograph_row_reference(plan, frames[f].view(), out.row(static_cast<int>(f)));
    return out;
}

ImageF32 kymograph_fast(const std::vector<ImageF32>& frames, const KymographParams& params) {
    detail::check_kymograph_frames(frames);
    const KymographSampler sampler(plan_kymograph(frames[0].width(), frames[0].height(), params));
    return sampler.stack(frames);
}

}  // namespace lacuna::ops
