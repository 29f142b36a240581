// Without CUDA the device kymograph cannot be made; it says so in a sentence.
#include <lacuna/core/error.hpp>
#include <lacuna/ops/kymograph.hpp>
#include <lacuna/ops/regions.hpp>

namespace lacuna::ops {

namespace {
[[noreturn]] void unavailable() {
    throw Error(ErrorCode::CudaUnavailable,
                "the CUDA kymograph needs a build with CUDA (this one is CPU-only)");
}
}  // namespace

struct CudaKymograph::Impl {};

CudaKymograph::CudaKymograph(KymographPlan, DeviceStream) {
    unavailable();
}
CudaKymograph::~CudaKymograph() = default;
const KymographPlan& CudaKymograph::plan() const {
    unavailable();
}
void CudaKymograph::replan(KymographPlan) {
    unavailable();
}
void CudaKymograph::rows(ImageView<const float>, int, ImageView<float>) {
    unavailable();
}
void CudaKymograph::row(ImageView<const float>, float*) {
    unavailable();
}
ImageF32 CudaKymograph::stack(const std::vector<ImageF32>&) {
    unavailable();
}

struct CudaRegionProfiler::Impl {};

CudaRegionProfiler::CudaRegionProfiler(DeviceStream) {
    unavailable();
}
CudaRegionProfiler::~CudaRegionProfiler() = default;
void CudaRegionProfiler::build_luminance(const DeviceImage<Rgba8>&) {
    unavailable();
}
void CudaRegionProfiler::build_values(const DeviceImage<std::uint8_t>&, PixelFormat, int,
                                      const Calibration&) {
    unavailable();
}
void CudaRegionProfiler::upload(ImageView<const float>) {
    unavailable();
}
int CudaRegionProfiler::width() const {
    unavailable();
}
int CudaRegionProfiler::height() const {
    unavailable();
}
void CudaRegionProfiler::profile(const ProfileRegion&, RegionProfile&) {
    unavailable();
}
double CudaRegionProfiler::time_profile(const ProfileRegion&, int) {
    unavailable();
}

ImageF32 kymograph_cuda(const std::vector<ImageF32>&, const KymographParams&, DeviceStream) {
    unavailable();
}

}  // namespace lacuna::ops
