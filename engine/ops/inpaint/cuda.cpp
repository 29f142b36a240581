// The CUDA filler, host side: uploads the problem once, enqueues iterations without waiting, and
// between steps reads back only the four counters (progress, and a check that the fill moves).
#include "factories.hpp"

#include "cuda_check.hpp"

#include <lacuna/core/device_buffer.hpp>
#include <lacuna/kernels/inpaint_kernels.h>
#include <lacuna/kernels/inpaint_terms.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

namespace lacuna::ops::detail {
namespace {

using lacuna::detail::cuda_check;

class CudaInpainter final : public Inpainter {
  public:
    explicit CudaInpainter(InpaintProblem problem) : problem_(std::move(problem)) {
        progress_.total = problem_.hole_pixels;
        if (problem_.hole_pixels == 0) return;
        upload();
    }

    InpaintProgress advance(const int iterations) override {
        if (progress_.done() || iterations <= 0) return progress_;
        int left = iterations;
        while (left > 0 && !progress_.done()) {
            throw_if_cancelled();
            // Never enqueue iterations that cannot be needed: each fills at most a whole patch,
            // so remaining / patch area more are certainly useful. Near the end the batches get
            // small and the counters are read more often, which costs microseconds.
            const int side = 2 * problem_.radius + 1;
            const long long remaining = progress_.total - progress_.filled;
            const int batch = static_cast<int>(
                std::min<long long>(left, std::max<long long>(1, remaining / (side * side))));
            const long long filled_before = progress_.filled;
            cuda_check(kernels::launch_inpaint_iterations(state_, batch, nullptr),
                       "inpainting kernels");
            read_counters();
            if (progress_.filled == filled_before) {
                throw Error(ErrorCode::DeviceError, "CUDA inpainting stopped making progress");
            }
            left -= batch;
        }
        return progress_;
    }
    [[nodiscard]] InpaintProgress progress() const override { return progress_; }

    [[nodiscard]] ImageRgba8 image() const override {
        if (problem_.hole_pixels == 0) return clone(problem_.image.view());
        const int w = problem_.image.width();
        const int h = problem_.image.height();
        std::vector<Rgba8> host(static_cast<std::size_t>(w) * h);
        pixels_.download(host.data(), host.size());
        return from_dense(host, w, h);
    }

    [[nodiscard]] std::vector<PatchChoice> history() const override {
        const auto count = static_cast<std::size_t>(progress_.iterations);
        std::vector<PatchChoice> out(count);
        if (count == 0) return out;
        std::vector<std::int32_t> targets(count), sources(count);
        std::vector<std::uint32_t> ssds(count);
        history_target_.download(targets.data(), count);
        history_source_.download(sources.data(), count);
        history_ssd_.download(ssds.data(), count);
        for (std::size_t i = 0; i < count; ++i) out[i] = {targets[i], sources[i], ssds[i]};
        return out;
    }
    [[nodiscard]] const InpaintProblem& problem() const override { return problem_; }

  private:
    void upload() {
        const ImageRgba8& image = problem_.image;
        const int w = image.width();
        const int h = image.height();
        const std::size_t n = static_cast<std::size_t>(w) * h;
        const std::vector<Rgba8> pixels = to_dense(image.view());
        const std::vector<std::uint8_t> hole = to_dense(problem_.hole.view());
        std::vector<std::uint8_t> known(n), luma(n);
        std::vector<std::int32_t> confidence(n);
        for (std::size_t i = 0; i < n; ++i) {
            known[i] = hole[i] != 0 ? 0 : 1;
            luma[i] = inpaint_terms::inpaint_luma(pixels[i]);
            confidence[i] = hole[i] != 0 ? 0 : inpaint_terms::kFullConfidence;
        }
        const std::vector<std::int32_t> source(n, -1);
        pixels_.upload(pixels.data(), n);
        known_.upload(known.data(), n);
        luma_.upload(luma.data(), n);
        confidence_.upload(confidence.data(), n);
        source_.upload(source.data(), n);
        const std::vector<std::uint8_t> valid = to_dense(problem_.valid_source.view());
        valid_.upload(valid.data(), n);

        const SearchRect& box = problem_.hole_box;
        state_.box_x0 = box.x0;
        state_.box_y0 = box.y0;
        state_.box_width = box.x1 - box.x0 + 1;
        state_.box_height = box.y1 - box.y0 + 1;
        priority_.reserve(static_cast<std::size_t>(state_.box_width) * state_.box_height);
        const auto capacity = static_cast<std::size_t>(problem_.hole_pixels);
        history_target_.reserve(capacity);
        history_source_.reserve(capacity);
        history_ssd_.reserve(capacity);
        const kernels::InpaintCounters start{inpaint_terms::kNoCandidate, -1, 0, 0};
        counters_.upload(reinterpret_cast<const unsigned long long*>(&start), 4);

        state_.width = w;
        state_.height = h;
        state_.radius = problem_.radius;
        state_.pixels = pixels_.data();
        state_.known = known_.data();
        state_.luma = luma_.data();
        state_.confidence = confidence_.data();
        state_.source = source_.data();
        state_.valid_source = valid_.data();
        state_.priority = priority_.data();
        state_.window_x0 = problem_.window.x0;
        state_.window_y0 = problem_.window.y0;
        state_.window_x1 = problem_.window.x1;
        state_.window_y1 = problem_.window.y1;
        state_.coherence = problem_.coherence;
        state_.hole_pixels = problem_.hole_pixels;
        // The counters are four unsigned long longs laid out as InpaintCounters.
        state_.counters = reinterpret_cast<kernels::InpaintCounters*>(counters_.data());
        state_.history_target = history_target_.data();
        state_.history_source = history_source_.data();
        state_.history_ssd = history_ssd_.data();
        cuda_check(kernels::launch_inpaint_initial_priorities(state_, nullptr),
                   "inpainting priorities");
    }

    void read_counters() {
        kernels::InpaintCounters counters{};
        counters_.download(reinterpret_cast<unsigned long long*>(&counters), 4);
        progress_.filled = counters.filled;
        progress_.iterations = static_cast<int>(counters.iterations);
    }

    InpaintProblem problem_;
    InpaintProgress progress_;
    kernels::InpaintDeviceState state_;
    DeviceBuffer<Rgba8> pixels_;
    DeviceBuffer<std::uint8_t> known_, luma_, valid_;
    DeviceBuffer<std::int32_t> confidence_, source_, history_target_, history_source_;
    DeviceBuffer<std::uint32_t> history_ssd_;
    DeviceBuffer<double> priority_;
    DeviceBuffer<unsigned long long> counters_;
};

}  // namespace

std::unique_ptr<Inpainter> make_cuda_inpainter(InpaintProblem problem) {
    return std::make_unique<CudaInpainter>(std::move(problem));
}

}  // namespace lacuna::ops::detail
