// CPU-only build: CUDA carving (from host or device images) and the GPU slider cannot be created,
// and say why.
#include "carve_state.hpp"

namespace lacuna::ops {

SeamOrder seam_order_cuda(const CarveInput&, SeamDirection, int, const CarveProgress&) {
    throw Error(ErrorCode::CudaUnavailable, "this build has no CUDA backend");
}
SeamOrder seam_order_cuda_profiled(const CarveInput&, SeamDirection, int, CarveProfile&) {
    throw Error(ErrorCode::CudaUnavailable, "this build has no CUDA backend");
}

DeviceSeamOrder seam_order_cuda(const DeviceCarveInput&, SeamDirection, int, const CarveProgress&) {
    throw Error(ErrorCode::CudaUnavailable, "this build has no CUDA backend");
}
DeviceSeamOrder upload_order(const SeamOrder&, DeviceStream) {
    throw Error(ErrorCode::CudaUnavailable, "this build has no CUDA backend");
}

namespace detail {
DeviceShrink shrink_cuda(const CarveInput&, int, int, bool, const CarveProgress&) {
    throw Error(ErrorCode::CudaUnavailable, "this build has no CUDA backend");
}
}  // namespace detail

struct CudaSeamSlider::Impl {};
CudaSeamSlider::CudaSeamSlider(ImageView<const Rgba8>, const SeamOrder&) {
    throw Error(ErrorCode::CudaUnavailable, "this build has no CUDA backend");
}
CudaSeamSlider::~CudaSeamSlider() = default;
ImageRgba8 CudaSeamSlider::frame(int) {
    return {};
}
double CudaSeamSlider::time_frame_ms(int, int) {
    return 0;
}

}  // namespace lacuna::ops
