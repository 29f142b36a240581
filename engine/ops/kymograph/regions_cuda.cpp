// Region profiles on the device (the editor's region drags): one plane of values built on the
// device from the document, the CUDA kymograph re-planned per profile into its grow-only plan
// block, one launch, the profile back through page-locked memory, one wait. Everything runs on
// the caller's stream.
#include <lacuna/core/error.hpp>
#include <lacuna/core/transfer_stats.hpp>
#include <lacuna/kernels/measurement_kernels.h>
#include <lacuna/ops/regions.hpp>

#include "cuda_check.hpp"
#include "pinned_buffer.hpp"

#include <cuda_runtime.h>

#include <memory>
#include <string>
#include <utility>

namespace lacuna::ops {

using lacuna::detail::cuda_check;
using lacuna::detail::cuda_check_launch;

struct CudaRegionProfiler::Impl {
    DeviceStream stream = nullptr;
    DeviceImage<float> plane;  // the values profiled (luminance or calibrated values)
    DeviceImage<float> row;    // one profile: positions × 1
    lacuna::detail::PinnedBuffer<float> host;
    // Made at the first profile (it needs a plan), re-planned afterwards: no allocation per drag.
    std::unique_ptr<CudaKymograph> kymograph;

    explicit Impl(const DeviceStream s) : stream(s) {
        if (stream == nullptr)
            throw Error(ErrorCode::InvalidArgument,
                        "the device region profiler needs a stream (not the legacy default "
                        "stream)");
        plane.set_stream(stream);
        row.set_stream(stream);
    }

    void check_plane() const {
        if (plane.empty())
            throw Error(ErrorCode::InvalidArgument, "the device region profiler has no plane yet");
    }

    /// Enqueues the plan's upload, the kernel and the copy of the values into `host`; returns
    /// the number of values. Nothing waits (but for the previous plan's upload).
    int enqueue(KymographPlan plan) {
        const int n = plan.positions();
        if (kymograph)
            kymograph->replan(std::move(plan));
        else
            kymograph = std::make_unique<CudaKymograph>(std::move(plan), stream);
        row.resize(n, 1);
        const DeviceImage<float>& frame = plane;
        kymograph->rows(frame.device_view(), 1, row.device_view());
        const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(float);
        lacuna::detail::count_download(bytes);
        cuda_check(cudaMemcpyAsync(host.reserve(static_cast<std::size_t>(n)),
                                   row.device_view().data, bytes, cudaMemcpyDeviceToHost, stream),
                   "device-to-host copy of a region profile");
        return n;
    }
};

CudaRegionProfiler::CudaRegionProfiler(const DeviceStream stream)
    : impl_(std::make_unique<Impl>(stream)) {}

CudaRegionProfiler::~CudaRegionProfiler() = default;

void CudaRegionProfiler::build_luminance(const DeviceImage<Rgba8>& photo) {
    // On the photo's stream, after what last wrote it; waited for, because the profiles run on
    // this profiler's stream, which the photo's does not order.
    luminance(photo, impl_->plane);
}

void CudaRegionProfiler::build_values(const DeviceImage<std::uint8_t>& rows,
                                      const PixelFormat format, const int width,
                                      const Calibration& calibration) {
    if (rows.width() != static_cast<int>(format.bytes_per_pixel()) * width)
        throw Error(ErrorCode::InvalidArgument, "sample rows do not match their format");
    DeviceImage<float>& plane = impl_->plane;
    plane.resize(width, rows.height());
    const kernels::RawSamples raw{
        rows.device_view().data,         rows.pitch(),   width, rows.height(),
        static_cast<int>(format.sample), format.channels};
    cuda_check_launch(
        kernels::launch_measurement_plane(raw, calibration.slope, calibration.intercept,
                                          plane.device_view(), rows.stream()),
        "measurement plane kernel");
    rows.synchronize();
}

void CudaRegionProfiler::upload(const ImageView<const float> plane) {
    impl_->plane.resize(plane.width, plane.height);
    impl_->plane.upload(plane);
}

int CudaRegionProfiler::width() const {
    return impl_->plane.width();
}

int CudaRegionProfiler::height() const {
    return impl_->plane.height();
}

void CudaRegionProfiler::profile(const ProfileRegion& region, RegionProfile& into) {
    impl_->check_plane();
    KymographPlan plan =
        plan_kymograph(impl_->plane.width(), impl_->plane.height(), region.params());
    into.plan = plan;  // copy-assigned: into's vectors keep their memory
    const int n = impl_->enqueue(std::move(plan));
    cuda_check(cudaStreamSynchronize(impl_->stream), "the region profile");
    const float* const values = impl_->host.data();
    into.values.assign(values, values + n);
}

double CudaRegionProfiler::time_profile(const ProfileRegion& region, const int repeats) {
    impl_->check_plane();
    const KymographPlan plan =
        plan_kymograph(impl_->plane.width(), impl_->plane.height(), region.params());
    return lacuna::detail::median_event_ms(repeats, impl_->stream,
                                           [&] { (void)impl_->enqueue(plan); });
}

}  // namespace lacuna::ops
