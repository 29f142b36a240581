// The CUDA bilateral filter, host side: the weight tables are made on the host (the fast CPU
// filter's, so the pixels are identical) and uploaded into a grow-only buffer; one kernel launch
// filters the image on the stream, nothing waits.
#include "tables.hpp"

#include "cuda_check.hpp"

#include <lacuna/core/device_buffer.hpp>
#include <lacuna/kernels/bilateral_kernels.h>
#include <lacuna/ops/bilateral.hpp>

#include <optional>
#include <vector>

namespace lacuna::ops {

struct CudaBilateral::Impl {
    DeviceStream stream = nullptr;
    DeviceBuffer<float> tables;
    /// The parameters the tables hold: a preview that only moves over the image re-uses them
    /// (the upload waits for the stream).
    std::optional<BilateralParams> tables_for;
};

CudaBilateral::CudaBilateral(const DeviceStream stream) : impl_(std::make_unique<Impl>()) {
    impl_->stream = stream;
}

CudaBilateral::~CudaBilateral() = default;

void CudaBilateral::run(const DeviceImage<Rgba8>& src, const DeviceImage<Rgba8>* guide,
                        DeviceImage<Rgba8>& dst, const BilateralParams& params) {
    if (&dst == &src || &dst == guide)
        throw Error(ErrorCode::InvalidArgument,
                    "the bilateral filter cannot write over its own input");
    check_bilateral(params, src.width(), src.height(), guide ? guide->width() : -1,
                    guide ? guide->height() : -1);
    dst.resize(src.width(), src.height());
    run(src.device_view(), guide ? guide->device_view() : ImageView<const Rgba8>{},
        dst.device_view(), params);
}

void CudaBilateral::run(const ImageView<const Rgba8> src, const ImageView<const Rgba8> guide,
                        const ImageView<Rgba8> dst, const BilateralParams& params) {
    const bool guided = guide.data != nullptr;
    check_bilateral(params, src.width, src.height, guided ? guide.width : -1,
                    guided ? guide.height : -1);
    if (dst.width != src.width || dst.height != src.height)
        throw Error(ErrorCode::InvalidArgument,
                    "the bilateral filter's output must have the image's size");
    const int radius = bilateral_radius(params);
    const auto& last = impl_->tables_for;
    if (!last || last->sigma_space != params.sigma_space ||
        last->sigma_range != params.sigma_range || bilateral_radius(*last) != radius) {
        const detail::BilateralTables t = detail::make_bilateral_tables(params);
        std::vector<float> packed(t.space);
        packed.insert(packed.end(), t.range.begin(), t.range.end());
        impl_->tables_for.reset();  // until the upload has succeeded
        impl_->tables.upload(packed.data(), packed.size(), impl_->stream);
        impl_->tables_for = params;
    }
    kernels::BilateralArgs a;
    a.src = src;
    a.guide = guided ? guide : src;
    a.guided = guided;
    a.dst = dst;
    a.radius = radius;
    a.tables = impl_->tables.data();
    lacuna::detail::cuda_check_launch(kernels::launch_bilateral(a, impl_->stream),
                                      "bilateral filter kernel");
}

}  // namespace lacuna::ops
