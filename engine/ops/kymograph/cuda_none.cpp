// Without CUDA the device kymograph cannot be made; it says so in a sentence.
#include <lacuna/core/error.hpp>
#include <lacuna/ops/kymograph.hpp>
#include <lacuna/ops/regions.hpp>

namespace lacuna::ops {

namespace {
[[noreturn]] void kymograph_cuda_unavailable() {
    throw Error(ErrorCode::CudaUnavailable,
                "the CUDA kymograph needs a build with CUDA (this one is CPU-only)");
}
}  // namespace

struct CudaKymograph::Impl {};

CudaKymograph::CudaKymograph(KymographPlan, DeviceStream) {
    kymograph_cuda_unavailable();
}
CudaKymograph::~CudaKymograph() = default;
const KymographPlan& CudaKymograph::plan() const {
    kymograph_cuda_unavailable();
}
void CudaKymograph::replan(KymographPlan) {
    kymograph_cuda_unavailable();
}
void CudaKymograph::rows(ImageView<const float>, int, ImageView<float>) {
    kymograph_cuda_unavailable();
}
void CudaKymograph::row(ImageView<const float>, float*) {
    kymograph_cuda_unavailable();
}
ImageF32 CudaKymograph::stack(const std::vector<ImageF32>&) {
    kymograph_cuda_unavailable();
}

struct CudaRegionProfiler::Impl {};

CudaRegionProfiler::CudaRegionProfiler(DeviceStream) {
    kymograph_cuda_unavailable();
}
CudaRegionProfiler::~CudaRegionProfiler() = default;
void CudaRegionProfiler::build_luminance(const DeviceImage<Rgba8>&) {
    kymograph_cuda_unavailable();
}
void CudaRegionProfiler::build_values(const DeviceImage<std::uint8_t>&, PixelFormat, int,
                                      const Calibration&) {
    kymograph_cuda_unavailable();
}
void CudaRegionProfiler::upload(ImageView<const float>) {
    kymograph_cuda_unavailable();
}
int CudaRegionProfiler::width() const {
    kymograph_cuda_unavailable();
}
int CudaRegionProfiler::height() const {
    kymograph_cuda_unavailable();
}
void CudaRegionProfiler::profile(const ProfileRegion&, RegionProfile&) {
    kymograph_cuda_unavailable();
}
double CudaRegionProfiler::time_profile(const ProfileRegion&, int) {
    kymograph_cuda_unavailable();
}

ImageF32 kymograph_cuda(const std::vector<ImageF32>&, const KymographParams&, DeviceStream) {
    kymograph_cuda_unavailable();
}

}  // namespace lacuna::ops
