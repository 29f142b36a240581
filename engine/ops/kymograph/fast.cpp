// Multi-threaded kymograph rows. The sample points are computed once (by line_sample_point, as
// the reference computes them) and reused for every frame; the sums run in the reference's
// order, so the rows are identical.
#include <lacuna/core/error.hpp>
#include <lacuna/core/parallel.hpp>
#include <lacuna/ops/kymograph.hpp>

#include <cmath>
#include <string>

namespace lacuna::ops {

KymographSampler::KymographSampler(KymographPlan plan) : plan_(std::move(plan)) {
    const int band = plan_.band();
    const std::size_t n = static_cast<std::size_t>(plan_.positions()) * band;
    xs_.resize(n);
    ys_.resize(n);
    for (int p = 0; p < plan_.positions(); ++p) {
        const LineGeometry& g = plan_.segments[static_cast<std::size_t>(plan_.segment_of[p])];
        for (int j = 0; j < band; ++j) {
            const std::size_t k = static_cast<std::size_t>(p) * band + j;
            line_sample_point(g, plan_.index_of[p], j, xs_[k], ys_[k]);
        }
    }
}

void KymographSampler::row_range(const ImageView<const float> frame, float* out, const int begin,
                                 const int end) const {
    const int band = plan_.band();
    const bool nearest = plan_.sampling == Sampling::Nearest;
    for (int p = begin; p < end; ++p) {
        const std::size_t k0 = static_cast<std::size_t>(p) * band;
        double sum = 0;
        int n = 0;
        for (int j = 0; j < band; ++j) {
            float v = 0;
            const bool inside = nearest ? sample_nearest(frame, xs_[k0 + j], ys_[k0 + j], v)
                                        : sample_bilinear(frame, xs_[k0 + j], ys_[k0 + j], v);
            if (!inside || std::isnan(v)) continue;
            sum += v;
            ++n;
        }
        out[p] = n == 0 ? NAN : static_cast<float>(sum / n);
    }
}

void KymographSampler::row(const ImageView<const float> frame, float* out) const {
    if (frame.width != plan_.width || frame.height != plan_.height) {
        throw Error(ErrorCode::InvalidArgument,
                    "a frame of " + std::to_string(frame.width) + "x" +
                        std::to_string(frame.height) + " does not match the kymograph's " +
                        std::to_string(plan_.width) + "x" + std::to_string(plan_.height));
    }
    parallel_chunks(plan_.positions(), [&](const int begin, const int end, int) {
        row_range(frame, out, begin, end);
    });
}

ImageF32 KymographSampler::stack(const std::vector<ImageF32>& frames) const {
    const int count = static_cast<int>(frames.size());
    for (const ImageF32& f : frames) {
        if (f.width() != plan_.width || f.height() != plan_.height) {
            throw Error(ErrorCode::InvalidArgument,
                        "a frame of " + std::to_string(f.width()) + "x" +
                            std::to_string(f.height()) + " does not match the kymograph's " +
                            std::to_string(plan_.width) + "x" + std::to_string(plan_.height));
        }
    }
    ImageF32 out(plan_.positions(), count);
    if (count >= static_cast<int>(worker_count())) {
        parallel_chunks(count, [&](const int begin, const int end, int) {
            for (int f = begin; f < end; ++f)
                row_range(frames[static_cast<std::size_t>(f)].view(), out.row(f), 0,
                          plan_.positions());
        });
    } else {
        for (int f = 0; f < count; ++f) row(frames[static_cast<std::size_t>(f)].view(), out.row(f));
    }
    return out;
}

}  // namespace lacuna::ops
