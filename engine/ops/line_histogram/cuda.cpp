// CUDA host side: planes uploaded once per image, or built on the device from a device photo;
// planes and result buffers grow only; one kernel launch per histogram and one copy back.
#include <lacuna/core/device_buffer.hpp>
#include <lacuna/core/error.hpp>
#include <lacuna/core/transfer_stats.hpp>
#include <lacuna/kernels/line_histogram_kernels.h>
#include <lacuna/kernels/measurement_kernels.h>
#include <lacuna/ops/line_histogram.hpp>

#include "cuda_check.hpp"
#include "pinned_buffer.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace lacuna::ops {

using detail::cuda_check;
using detail::cuda_check_launch;
using detail::PinnedBuffer;

namespace {

/// Grow-only with doubling: a line dragged longer and longer would otherwise reallocate (and
/// synchronise the device in cudaFree) at every step.
template <class T>
void grow(DeviceBuffer<T>& buffer, const std::size_t count) {
    if (count > buffer.capacity()) buffer.reserve(std::max(count, 2 * buffer.capacity()));
}

/// Device → pinned host, enqueued on `stream` (where the histogram kernels ran).
template <class T>
void download_async(const DeviceBuffer<T>& from, PinnedBuffer<T>& to, const std::size_t count,
                    const DeviceStream stream) {
    detail::count_download(count * sizeof(T));
    cuda_check(cudaMemcpyAsync(to.reserve(count), from.data(), count * sizeof(T),
                               cudaMemcpyDeviceToHost, stream),
               "device-to-host copy of a histogram");
}

}  // namespace

struct CudaLineHistogrammer::Impl {
    // The histogrammer's own stream (declared first, destroyed last): a line dragged in the
    // editor never waits behind the document's stream or a fill's.
    lacuna::detail::Stream stream;
    // What planning needs (size, kind, natural range): the planes themselves are only on the
    // device, and the caller's source need not outlive the histogrammer.
    HistogramSource shape;
    std::vector<HistogramChannel> uploaded;  // which channel each device plane holds
    std::vector<DeviceImage<float>> planes;
    DeviceBuffer<std::uint32_t> counts;
    DeviceBuffer<float> profile;          // mean, median, min, max back to back
    DeviceBuffer<std::uint32_t> samples;  // valid, outside, out of range per slot, back to back
    DeviceBuffer<unsigned long long> counters;  // direction: outside, out of range
    PinnedBuffer<std::uint32_t> host_counts, host_samples;
    PinnedBuffer<float> host_profile;

    explicit Impl(const HistogramSource& s) : shape(s.shape()) {
        const std::vector<HistogramChannel> all =
            s.is_measurement() ? std::vector{HistogramChannel::Value}
                               : std::vector{HistogramChannel::Luminance, HistogramChannel::Red,
                                             HistogramChannel::Green, HistogramChannel::Blue};
        for (const HistogramChannel c : all) {
            if (!s.has_plane(c)) continue;  // a source built for some channels only
            uploaded.push_back(c);
            planes.emplace_back(s.plane(c).view(), stream.get());
        }
        counters.reserve(2);
    }

    Impl(const ImageView<const Rgba8> image, const DeviceStream image_stream)
        : shape(HistogramSource::photo_shape(image.width, image.height)) {
        build(image, image_stream);
        counters.reserve(2);
    }

    Impl(const ImageView<const std::uint8_t> rows, const DeviceStream rows_stream,
         const PixelFormat format, const int width, const Calibration& calibration)
        : shape(HistogramSource::photo_shape(width, rows.height)) {
        build(rows, rows_stream, format, width, calibration);
        counters.reserve(2);
    }

    DeviceBuffer<float> block_lo, block_hi;  // the min–max reduction's per-block results

    void build(const DeviceImage<std::uint8_t>& rows, const PixelFormat format, const int width,
               const Calibration& calibration) {
        build(rows.device_view(), rows.stream(), format, width, calibration);
    }

    // `rows`: device memory read on `rows_stream` (the owner's stream, or the caller's for
    // memory the histogrammer does not own).
    void build(const ImageView<const std::uint8_t> rows, const DeviceStream rows_stream,
               const PixelFormat format, const int width, const Calibration& calibration) {
        if (rows_stream == nullptr)
            throw Error(ErrorCode::InvalidArgument, "device rows need a stream to be read on");
        if (rows.width != static_cast<int>(format.bytes_per_pixel()) * width)
            throw Error(ErrorCode::InvalidArgument, "sample rows do not match their format");
        uploaded = {HistogramChannel::Value};
        planes.resize(1);
        planes[0].set_stream(stream.get());
        planes[0].resize(width, rows.height);
        const kernels::RawSamples raw{
            rows.data,      rows.pitch, width, rows.height, static_cast<int>(format.sample),
            format.channels};
        cuda_check_launch(
            kernels::launch_measurement_plane(raw, calibration.slope, calibration.intercept,
                                              planes[0].device_view(), rows_stream),
            "measurement plane kernel");
        const long long pixels = static_cast<long long>(width) * rows.height;
        const int blocks = static_cast<int>(std::min<long long>(1024, (pixels + 255) / 256));
        block_lo.reserve(static_cast<std::size_t>(blocks));
        block_hi.reserve(static_cast<std::size_t>(blocks));
        const DeviceImage<float>& plane = planes[0];
        cuda_check_launch(kernels::launch_finite_min_max(plane.device_view(), block_lo.data(),
                                                         block_hi.data(), blocks, rows_stream),
                          "min-max kernel");
        std::vector<float> lo(static_cast<std::size_t>(blocks)), hi(lo.size());
        block_lo.download(lo.data(), lo.size(), rows_stream);
        block_hi.download(hi.data(), hi.size(), rows_stream);
        const float min = *std::min_element(lo.begin(), lo.end());
        const float max = *std::max_element(hi.begin(), hi.end());
        // No finite value at all: the host source's {0, 1}.
        shape = HistogramSource::measurement_shape(
            width, rows.height, min <= max ? std::pair{min, max} : std::pair{0.0f, 1.0f});
    }

    void build(const DeviceImage<Rgba8>& image) { build(image.device_view(), image.stream()); }

    // `image`: device memory read on `image_stream` (the document's, or the caller's for memory
    // the histogrammer does not own).
    void build(const ImageView<const Rgba8> image, const DeviceStream image_stream) {
        if (image_stream == nullptr)
            throw Error(ErrorCode::InvalidArgument, "a device photo needs a stream to be read on");
        HistogramSource next = HistogramSource::photo_shape(image.width, image.height);
        uploaded = {HistogramChannel::Luminance, HistogramChannel::Red, HistogramChannel::Green,
                    HistogramChannel::Blue};
        planes.resize(uploaded.size());
        for (DeviceImage<float>& plane : planes) {
            plane.set_stream(stream.get());
            plane.resize(image.width, image.height);
        }
        const kernels::PhotoPlanes out{planes[0].device_view(), planes[1].device_view(),
                                       planes[2].device_view(), planes[3].device_view()};
        // On the photo's stream, after whatever last wrote it; the histogram kernels run on the
        // histogrammer's stream, which the photo's does not order, hence the wait.
        cuda_check_launch(kernels::launch_histogram_planes(image, out, image_stream),
                          "histogram planes kernel");
        cuda_check(cudaStreamSynchronize(image_stream), "histogram planes");
        shape = std::move(next);
    }

    kernels::HistogramPlanes device_planes(const std::vector<HistogramChannel>& wanted) const {
        kernels::HistogramPlanes p;
        p.count = static_cast<int>(wanted.size());
        for (std::size_t k = 0; k < wanted.size(); ++k) {
            const auto it = std::find(uploaded.begin(), uploaded.end(), wanted[k]);
            if (it == uploaded.end())
                throw Error(ErrorCode::InvalidArgument,
                            "the histogram source was built without its '" + to_string(wanted[k]) +
                                "' plane");
            const auto index = static_cast<std::size_t>(it - uploaded.begin());
            p.plane[k] = planes[index].device_view();
        }
        return p;
    }

    kernels::LineHistogramArgs prepare_line(const LinePlan& plan,
                                            const LineHistogramParams& params) {
        const std::size_t slots =
            plan.planes.size() * static_cast<std::size_t>(plan.geometry.positions);
        const std::size_t count_total = slots * static_cast<std::size_t>(plan.mapping.bins);
        grow(counts, count_total);
        grow(profile, slots * 4);
        grow(samples, slots * 3);
        kernels::LineHistogramArgs a;
        a.planes = device_planes(plan.planes);
        a.geometry = plan.geometry;
        a.mapping = plan.mapping;
        a.sampling = params.sampling;
        a.counts = counts.data();
        a.mean = profile.data();
        a.median = a.mean + slots;
        a.min = a.median + slots;
        a.max = a.min + slots;
        a.samples = samples.data();
        a.outside = a.samples + slots;
        a.out_of_range = a.outside + slots;
        return a;
    }

    void launch_line(const kernels::LineHistogramArgs& a, const std::size_t count_total) {
        if (a.mapping.bins > kernels::kMaxSharedHistogramBins)
            counts.zero_async(count_total, stream.get());
        cuda_check_launch(kernels::launch_line_histogram(a, stream.get()), "line histogram kernel");
    }

    kernels::DirectionHistogramArgs prepare_direction(const DirectionPlan& plan,
                                                      const DirectionHistogramParams& params) {
        const std::size_t total = plan.planes.size() *
                                  static_cast<std::size_t>(plan.geometry.extent) *
                                  static_cast<std::size_t>(plan.mapping.bins);
        grow(counts, total);
        kernels::DirectionHistogramArgs a;
        a.planes = device_planes(plan.planes);
        a.geometry = plan.geometry;
        a.mapping = plan.mapping;
        a.sampling = params.sampling;
        a.width = shape.width();
        a.height = shape.height();
        a.counts = counts.data();
        a.counters = counters.data();
        return a;
    }

    void launch_direction(const kernels::DirectionHistogramArgs& a, const std::size_t total) {
        counters.zero_async(2, stream.get());
        if (a.mapping.bins > kernels::kMaxSharedHistogramBins)
            counts.zero_async(total, stream.get());
        cuda_check_launch(kernels::launch_direction_histogram(a, stream.get()),
                          "direction histogram kernel");
    }
};

CudaLineHistogrammer::CudaLineHistogrammer(const HistogramSource& source)
    : impl_(std::make_unique<Impl>(source)) {}

CudaLineHistogrammer::CudaLineHistogrammer(const DeviceImage<Rgba8>& image)
    : impl_(std::make_unique<Impl>(image.device_view(), image.stream())) {}

CudaLineHistogrammer::CudaLineHistogrammer(const ImageView<const Rgba8> device_photo,
                                           const DeviceStream stream)
    : impl_(std::make_unique<Impl>(device_photo, stream)) {}

void CudaLineHistogrammer::rebuild(const DeviceImage<Rgba8>& image) {
    impl_->build(image);
}

CudaLineHistogrammer::CudaLineHistogrammer(const DeviceImage<std::uint8_t>& rows,
                                           const PixelFormat format, const int width,
                                           const Calibration& calibration)
    : impl_(std::make_unique<Impl>(rows.device_view(), rows.stream(), format, width, calibration)) {
}

CudaLineHistogrammer::CudaLineHistogrammer(const ImageView<const std::uint8_t> device_rows,
                                           const DeviceStream stream, const PixelFormat format,
                                           const int width, const Calibration& calibration)
    : impl_(std::make_unique<Impl>(device_rows, stream, format, width, calibration)) {}

void CudaLineHistogrammer::rebuild(const DeviceImage<std::uint8_t>& rows, const PixelFormat format,
                                   const int width, const Calibration& calibration) {
    impl_->build(rows, format, width, calibration);
}

std::pair<float, float> CudaLineHistogrammer::natural_range() const {
    return impl_->shape.natural_range();
}

CudaLineHistogrammer::~CudaLineHistogrammer() = default;

LineHistogram CudaLineHistogrammer::line(const LineHistogramParams& params) {
    LineHistogram result;
    line(params, result);
    return result;
}

void CudaLineHistogrammer::line(const LineHistogramParams& params, LineHistogram& into) {
    const LinePlan plan = plan_line(impl_->shape, params);
    const kernels::LineHistogramArgs a = impl_->prepare_line(plan, params);
    const std::size_t positions = static_cast<std::size_t>(plan.geometry.positions);
    const std::size_t slots = plan.planes.size() * positions;
    const std::size_t per_plane = positions * static_cast<std::size_t>(plan.mapping.bins);
    impl_->launch_line(a, per_plane * plan.planes.size());

    std::vector<ChannelHistogram> recycled = std::move(into.channels);
    into = empty_result(plan, params);
    // Three copies into pinned memory, one wait; then each channel's vectors are filled once.
    const DeviceStream stream = impl_->stream.get();
    download_async(impl_->counts, impl_->host_counts, per_plane * plan.planes.size(), stream);
    download_async(impl_->profile, impl_->host_profile, slots * 4, stream);
    download_async(impl_->samples, impl_->host_samples, slots * 3, stream);
    cuda_check(cudaStreamSynchronize(stream), "histogram results");
    const std::uint32_t* const counts = impl_->host_counts.data();
    const float* const profile = impl_->host_profile.data();
    const std::uint32_t* const samples = impl_->host_samples.data();
    // Outside counts are geometric: the same for every channel, so the first channel's count.
    for (std::size_t k = 0; k < positions; ++k) into.samples_outside += samples[slots + k];
    for (std::size_t k = 0; k < slots; ++k) into.samples_out_of_range += samples[2 * slots + k];
    recycled.resize(std::max(recycled.size(), plan.planes.size()));
    for (std::size_t c = 0; c < plan.planes.size(); ++c) {
        ChannelHistogram& h = recycled[c];  // assign() keeps each vector's capacity
        h.channel = plan.planes[c];
        const auto span = [&](std::vector<float>& to, const std::size_t block) {
            const float* begin = profile + block * slots + c * positions;
            to.assign(begin, begin + positions);
        };
        h.counts.assign(counts + c * per_plane, counts + (c + 1) * per_plane);
        span(h.mean, 0);
        span(h.median, 1);
        span(h.min, 2);
        span(h.max, 3);
        h.samples.assign(samples + c * positions, samples + (c + 1) * positions);
    }
    recycled.resize(plan.planes.size());
    into.channels = std::move(recycled);
}

DirectionHistogram CudaLineHistogrammer::direction(const DirectionHistogramParams& params) {
    const DirectionPlan plan = plan_direction(impl_->shape, params);
    const kernels::DirectionHistogramArgs a = impl_->prepare_direction(plan, params);
    const std::size_t per_plane =
        static_cast<std::size_t>(plan.geometry.extent) * plan.mapping.bins;
    impl_->launch_direction(a, per_plane * plan.planes.size());
    DirectionHistogram result = empty_result(plan);
    std::vector<std::uint32_t> counts(per_plane * plan.planes.size());
    unsigned long long counters[2] = {};
    impl_->counts.download(counts.data(), counts.size(), impl_->stream.get());
    impl_->counters.download(counters, 2, impl_->stream.get());
    result.samples_outside = static_cast<std::int64_t>(counters[0]);
    result.samples_out_of_range = static_cast<std::int64_t>(counters[1]);
    for (std::size_t c = 0; c < plan.planes.size(); ++c) {
        result.counts.emplace_back(
            counts.begin() + static_cast<std::ptrdiff_t>(c * per_plane),
            counts.begin() + static_cast<std::ptrdiff_t>((c + 1) * per_plane));
    }
    return result;
}

double CudaLineHistogrammer::time_line_kernels(const LineHistogramParams& params,
                                               const int repeats) {
    const LinePlan plan = plan_line(impl_->shape, params);
    const kernels::LineHistogramArgs a = impl_->prepare_line(plan, params);
    const std::size_t total =
        plan.planes.size() * static_cast<std::size_t>(plan.geometry.positions) * plan.mapping.bins;
    return lacuna::detail::median_event_ms(repeats, impl_->stream.get(),
                                           [&] { impl_->launch_line(a, total); });
}

double CudaLineHistogrammer::time_direction_kernels(const DirectionHistogramParams& params,
                                                    const int repeats) {
    const DirectionPlan plan = plan_direction(impl_->shape, params);
    const kernels::DirectionHistogramArgs a = impl_->prepare_direction(plan, params);
    const std::size_t total =
        plan.planes.size() * static_cast<std::size_t>(plan.geometry.extent) * plan.mapping.bins;
    return lacuna::detail::median_event_ms(repeats, impl_->stream.get(),
                                           [&] { impl_->launch_direction(a, total); });
}

}  // namespace lacuna::ops
