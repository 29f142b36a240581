// Temporal smoothing of a clip with a 3-D kernel, frame by frame, keeping the frame count.
#include <lacuna/core/error.hpp>
#include <lacuna/kernels/border.h>
#include <lacuna/ops/conv3d.hpp>

#include <cmath>

namespace lacuna::ops {

TemporalFilter::TemporalFilter(Kernel3D kernel, const bool use_cuda) : kernel_(std::move(kernel)) {
    check_conv3d(1, 1, kernel_.size, kernel_);
    if (use_cuda) {
        stream_ = std::make_unique<OwnedStream>();
        cuda_ = std::make_unique<CudaConv3d>(stream_->get());
    }
}

TemporalFilter::~TemporalFilter() = default;

std::vector<ImageRgba8> TemporalFilter::push(const ImageRgba8& frame) {
    if (!window_.empty() &&
        (frame.width() != window_.front().width() || frame.height() != window_.front().height()))
        throw Error(ErrorCode::InvalidArgument,
                    "frame " + std::to_string(received_ + 1) + " is " +
                        std::to_string(frame.width()) + "x" + std::to_string(frame.height()) +
                        " but the clip's frames are " + std::to_string(window_.front().width()) +
                        "x" + std::to_string(window_.front().height()));
    check_image_size(frame.width(), frame.height());
    window_.push_back(clone(frame.view()));
    ++received_;
    if (static_cast<int>(window_.size()) > kernel_.size) window_.erase(window_.begin());
    // Output o needs input frames up to o + k/2 (the start mirrors into frames already here).
    std::vector<ImageRgba8> done;
    const int r = kernel_.size / 2;
    while (emitted_ + r <= received_ - 1) done.push_back(output(emitted_++, -1));
    return done;
}

std::vector<ImageRgba8> TemporalFilter::finish() {
    std::vector<ImageRgba8> done;
    while (emitted_ < received_) done.push_back(output(emitted_++, received_));
    return done;
}

/// Output frame `index`; `total` is the clip's length once known (mirroring at its end), else -1.
ImageRgba8 TemporalFilter::output(const int index, const int total) const {
    const int k = kernel_.size, r = k / 2;
    const int w = window_.front().width(), h = window_.front().height();
    const int first_kept = received_ - static_cast<int>(window_.size());
    const auto frame_at = [&](const int t) -> const ImageRgba8& {
        const int mirrored = total > 0 ? border::reflect101(t, total) : (t < 0 ? -t : t);
        return window_[static_cast<std::size_t>(mirrored - first_kept)];
    };
    ImageRgba8 out(w, h);
    for (int c = 0; c < 3; ++c) {
        Volume v(w, h, k);
        for (int dt = 0; dt < k; ++dt) {
            const ImageRgba8& f = frame_at(index + dt - r);
            for (int y = 0; y < h; ++y) {
                const Rgba8* row = f.row(y);
                float* dst = v.data.data() + (std::size_t(dt) * h + y) * w;
                for (int x = 0; x < w; ++x)
                    dst[x] = c == 0 ? row[x].r : c == 1 ? row[x].g : row[x].b;
            }
        }
        Volume result;
        if (cuda_) {
            cuda_->upload(v, kernel_);
            cuda_->run(Conv3dAlgorithm::Streaming);
            result = cuda_->download();
        } else {
            result = conv3d_fast(v, kernel_);
        }
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const float value = std::min(255.0f, std::max(0.0f, result.at(x, y, 0)));
                const auto level = static_cast<std::uint8_t>(static_cast<int>(value + 0.5f));
                Rgba8& o = out.at(x, y);
                (c == 0 ? o.r : c == 1 ? o.g : o.b) = level;
            }
    }
    const ImageRgba8& centre = frame_at(index);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) out.at(x, y).a = centre.at(x, y).a;
    return out;
}

}  // namespace lacuna::ops
