// CPU-only build: the CUDA histogrammer cannot be created, and says why.
#include <lacuna/core/error.hpp>
#include <lacuna/ops/line_histogram.hpp>

namespace lacuna::ops {

struct CudaLineHistogrammer::Impl {};

CudaLineHistogrammer::CudaLineHistogrammer(const HistogramSource&) {
    throw Error(ErrorCode::CudaUnavailable, "this build has no CUDA backend");
}
CudaLineHistogrammer::CudaLineHistogrammer(const DeviceImage<Rgba8>&) {
    throw Error(ErrorCode::CudaUnavailable, "this build has no CUDA backend");
}
CudaLineHistogrammer::CudaLineHistogrammer(ImageView<const Rgba8>, DeviceStream) {
    throw Error(ErrorCode::CudaUnavailable, "this build has no CUDA backend");
}
void CudaLineHistogrammer::rebuild(const DeviceImage<Rgba8>&) {
    throw Error(ErrorCode::CudaUnavailable, "this build has no CUDA backend");
}
CudaLineHistogrammer::CudaLineHistogrammer(const DeviceImage<std::uint8_t>&, PixelFormat, int,
                                           const Calibration&) {
    throw Error(ErrorCode::CudaUnavailable, "this build has no CUDA backend");
}
void CudaLineHistogrammer::rebuild(const DeviceImage<std::uint8_t>&, PixelFormat, int,
                                   const Calibration&) {
    throw Error(ErrorCode::CudaUnavailable, "this build has no CUDA backend");
}
CudaLineHistogrammer::CudaLineHistogrammer(ImageView<const std::uint8_t>, DeviceStream, PixelFormat,
                                           int, const Calibration&) {
    throw Error(ErrorCode::CudaUnavailable, "this build has no CUDA backend");
}
std::pair<float, float> CudaLineHistogrammer::natural_range() const {
    return {0.0f, 1.0f};
}
CudaLineHistogrammer::~CudaLineHistogrammer() = default;
LineHistogram CudaLineHistogrammer::line(const LineHistogramParams&) {
    return {};
}
void CudaLineHistogrammer::line(const LineHistogramParams&, LineHistogram&) {}
DirectionHistogram CudaLineHistogrammer::direction(const DirectionHistogramParams&) {
    return {};
}
double CudaLineHistogrammer::time_line_kernels(const LineHistogramParams&, int) {
    return 0;
}
double CudaLineHistogrammer::time_direction_kernels(const DirectionHistogramParams&, int) {
    return 0;
}

}  // namespace lacuna::ops
