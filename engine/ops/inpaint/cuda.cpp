// The CUDA filler, host side. Its per-pixel state is uploaded once from a prepared problem
// (make_inpainter) or built by kernels from the editor's device document (make_device_inpainter);
// after that both are the same filler: iterations are enqueued without waiting, and between steps
// only the four counters are read back.
#include "factories.hpp"

#include "cuda_check.hpp"

#include <lacuna/core/device_buffer.hpp>
#include <lacuna/core/mask.hpp>
#include <lacuna/kernels/inpaint_kernels.h>
#include <lacuna/kernels/inpaint_terms.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

namespace lacuna::ops::detail {
namespace {

using lacuna::detail::checked_allocation;
using lacuna::detail::cuda_check;
using lacuna::detail::cuda_check_launch;
using lacuna::detail::OrderingEvent;
using lacuna::detail::size_text;

class CudaInpainter final : public DeviceInpainter {
  public:
    explicit CudaInpainter(InpaintProblem problem) : problem_(std::move(problem)) {
        progress_.total = problem_.hole_pixels;
        if (problem_.hole_pixels == 0) return;
        allocate();
        upload();
        start();
    }

    CudaInpainter(const DeviceImage<Rgba8>& pixels, const DeviceImage<std::uint8_t>& coverage,
                  InpaintProblem problem)
        : problem_(std::move(problem)) {
        progress_.total = problem_.hole_pixels;
        const int w = problem_.image.width();
        const int h = problem_.image.height();
        if (pixels.width() != w || pixels.height() != h || coverage.width() != w ||
            coverage.height() != h) {
            throw Error(ErrorCode::InvalidArgument,
                        "the device pixels (" + size_text(pixels.width(), pixels.height()) +
                            ") and coverage (" + size_text(coverage.width(), coverage.height()) +
                            ") must have the problem's size (" + size_text(w, h) + ")");
        }
        // The document writes its pixels and coverage on its own streams: wait for them.
        pixels.synchronize();
        coverage.synchronize();
        if (problem_.hole_pixels == 0) {
            // Nothing to fill, but copy_filled still hands out the pixels.
            pixels_.reserve(static_cast<std::size_t>(w) * h);
            cuda_check(cudaMemcpy2DAsync(pixels_.data(), dense_pitch(), pixels.device_view().data,
                                         pixels.pitch(), dense_pitch(), static_cast<std::size_t>(h),
                                         cudaMemcpyDeviceToDevice, stream_.get()),
                       "device-to-device copy");
            filled_.record(stream_.get());
            return;
        }
        allocate();
        build(pixels, coverage);
        start();
    }

    InpaintProgress advance(const int iterations) override {
        if (progress_.done() || iterations <= 0) return progress_;
        // A copy_filled still reading the pixels on its own stream must finish first.
        copied_.order_before(stream_.get());
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
            cuda_check_launch(kernels::launch_inpaint_iterations(state_, batch, stream_.get()),
                              "inpainting kernels");
            filled_.record(stream_.get());
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
        pixels_.download(host.data(), host.size(), stream_.get());
        return from_dense(host, w, h);
    }

    [[nodiscard]] std::vector<PatchChoice> history() const override {
        const auto count = static_cast<std::size_t>(progress_.iterations);
        std::vector<PatchChoice> out(count);
        if (count == 0) return out;
        std::vector<std::int32_t> targets(count), sources(count);
        std::vector<std::uint32_t> ssds(count);
        history_target_.download(targets.data(), count, stream_.get());
        history_source_.download(sources.data(), count, stream_.get());
        history_ssd_.download(ssds.data(), count, stream_.get());
        for (std::size_t i = 0; i < count; ++i) out[i] = {targets[i], sources[i], ssds[i]};
        return out;
    }
    [[nodiscard]] const InpaintProblem& problem() const override { return problem_; }

    void copy_filled(DeviceImage<Rgba8>& dst, const PixelRect& rect) const override {
        const int w = problem_.image.width();
        const int h = problem_.image.height();
        if (dst.width() != w || dst.height() != h) {
            throw Error(ErrorCode::InvalidArgument, "copy_filled: the destination is " +
                                                        size_text(dst.width(), dst.height()) +
                                                        ", the filler's image " + size_text(w, h));
        }
        if (rect.empty() || rect.x0 < 0 || rect.y0 < 0 || rect.x1 >= w || rect.y1 >= h) {
            throw Error(ErrorCode::InvalidArgument,
                        "copy_filled: the rectangle is empty or not inside the " + size_text(w, h) +
                            " image");
        }
        if (pixels_.data() == nullptr) {
            // Only a host-prepared filler with nothing to fill has no device pixels.
            dst.upload_region(rect, sub_view(problem_.image.view(), rect));
            return;
        }
        filled_.order_before(dst.stream());
        const Rgba8* from = pixels_.data() + static_cast<std::size_t>(rect.y0) * w + rect.x0;
        cuda_check(
            cudaMemcpy2DAsync(sub_view(dst.device_view(), rect).data, dst.pitch(), from,
                              dense_pitch(), static_cast<std::size_t>(rect.width()) * sizeof(Rgba8),
                              static_cast<std::size_t>(rect.height()), cudaMemcpyDeviceToDevice,
                              dst.stream()),
            "device-to-device copy of the filled pixels");
        copied_.record(dst.stream());
    }

  private:
    [[nodiscard]] std::size_t dense_pitch() const {
        return static_cast<std::size_t>(problem_.image.width()) * sizeof(Rgba8);
    }

    /// Device memory for the per-pixel state, the priorities over the hole's box and the history,
    /// and the state's pointers and scalars.
    void allocate() {
        const int w = problem_.image.width();
        const int h = problem_.image.height();
        const std::size_t n = static_cast<std::size_t>(w) * h;
        pixels_.reserve(n);
        known_.reserve(n);
        luma_.reserve(n);
        valid_.reserve(n);
        confidence_.reserve(n);
        source_.reserve(n);
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
        counters_.reserve(4);

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
    }

    /// The per-pixel state computed on the host from the problem, uploaded.
    void upload() {
        const std::size_t n =
            static_cast<std::size_t>(problem_.image.width()) * problem_.image.height();
        const std::vector<Rgba8> pixels = to_dense(problem_.image.view());
        const std::vector<std::uint8_t> hole = to_dense(problem_.hole.view());
        std::vector<std::uint8_t> known(n), luma(n);
        std::vector<std::int32_t> confidence(n);
        for (std::size_t i = 0; i < n; ++i) {
            known[i] = hole[i] != 0 ? 0 : 1;
            luma[i] = inpaint_terms::inpaint_luma(pixels[i]);
            confidence[i] = hole[i] != 0 ? 0 : inpaint_terms::kFullConfidence;
        }
        const std::vector<std::int32_t> source(n, -1);
        pixels_.upload(pixels.data(), n, stream_.get());
        known_.upload(known.data(), n, stream_.get());
        luma_.upload(luma.data(), n, stream_.get());
        confidence_.upload(confidence.data(), n, stream_.get());
        source_.upload(source.data(), n, stream_.get());
        const std::vector<std::uint8_t> valid = to_dense(problem_.valid_source.view());
        valid_.upload(valid.data(), n, stream_.get());
    }

    /// The same state built by kernels from the device document; two counts come back to check
    /// it against the problem.
    void build(const DeviceImage<Rgba8>& pixels, const DeviceImage<std::uint8_t>& coverage) {
        const std::size_t n =
            static_cast<std::size_t>(problem_.image.width()) * problem_.image.height();
        DeviceBuffer<std::uint8_t> scratch;
        scratch.reserve(n);
        DeviceBuffer<unsigned long long> counts;
        counts.reserve(2);
        kernels::InpaintDeviceInput input;
        input.pixels = pixels.device_view();
        input.coverage = coverage.device_view();
        input.valid_source = valid_.data();
        input.scratch = scratch.data();
        input.counts = counts.data();
        cuda_check_launch(kernels::launch_inpaint_device_init(state_, input, stream_.get()),
                          "inpainting state kernels");
        unsigned long long found[2] = {};
        counts.download(found, 2, stream_.get());
        if (static_cast<long long>(found[0]) != problem_.hole_pixels) {
            throw Error(ErrorCode::InvalidArgument,
                        "the coverage mask has " + std::to_string(found[0]) +
                            " hole pixels (coverage >= 128) but the problem was prepared for " +
                            std::to_string(problem_.hole_pixels));
        }
        // A never-sample mask only removes sources, so the problem's valid sources are a subset
        // of the hole-only ones the kernels found: equal counts mean equal sets. Fewer found
        // means the coverage and the problem disagree.
        const std::int64_t expected = count_selected(problem_.valid_source.view());
        const auto valid_found = static_cast<std::int64_t>(found[1]);
        if (valid_found < expected) {
            throw Error(ErrorCode::InvalidArgument,
                        "the coverage mask does not match the hole the problem was prepared for");
        }
        if (valid_found > expected) {
            // The documented exception: the never-sample area exists only in the problem (the
            // editor's host mirror), so its valid sources are uploaded.
            const std::vector<std::uint8_t> valid = to_dense(problem_.valid_source.view());
            valid_.upload(valid.data(), n, stream_.get());
        }
    }

    /// Counters and the first priorities: what both ways of building the state end with.
    void start() {
        const kernels::InpaintCounters start{inpaint_terms::kNoCandidate, -1, 0, 0};
        counters_.upload(reinterpret_cast<const unsigned long long*>(&start), 4, stream_.get());
        cuda_check_launch(kernels::launch_inpaint_initial_priorities(state_, stream_.get()),
                          "inpainting priorities");
        filled_.record(stream_.get());
    }

    void read_counters() {
        kernels::InpaintCounters counters{};
        counters_.download(reinterpret_cast<unsigned long long*>(&counters), 4, stream_.get());
        progress_.filled = counters.filled;
        progress_.iterations = static_cast<int>(counters.iterations);
    }

    // Declared first, destroyed last: the fill's own stream (non-blocking); the caller's
    // streams are ordered against it with events (filled_, copied_).
    lacuna::detail::Stream stream_;
    InpaintProblem problem_;
    InpaintProgress progress_;
    kernels::InpaintDeviceState state_;
    DeviceBuffer<Rgba8> pixels_;
    DeviceBuffer<std::uint8_t> known_, luma_, valid_;
    DeviceBuffer<std::int32_t> confidence_, source_, history_target_, history_source_;
    DeviceBuffer<std::uint32_t> history_ssd_;
    DeviceBuffer<double> priority_;
    DeviceBuffer<unsigned long long> counters_;
    // The last work on the pixels (the fill's stream) and the last copy out of them (the
    // caller's stream): copy_filled and advance order themselves after these on the device.
    mutable OrderingEvent filled_;
    mutable OrderingEvent copied_;
};

}  // namespace

std::unique_ptr<Inpainter> make_cuda_inpainter(InpaintProblem problem) {
    return std::make_unique<CudaInpainter>(std::move(problem));
}

}  // namespace lacuna::ops::detail

namespace lacuna::ops {

std::unique_ptr<DeviceInpainter> make_device_inpainter(const DeviceImage<Rgba8>& pixels,
                                                       const DeviceImage<std::uint8_t>& coverage,
                                                       InpaintProblem problem) {
    if (problem.method == InpaintMethod::PatchMatch)
        return detail::make_patchmatch_device_inpainter(pixels, coverage, std::move(problem));
    return std::make_unique<detail::CudaInpainter>(pixels, coverage, std::move(problem));
}

}  // namespace lacuna::ops
