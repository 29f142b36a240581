// CPU-only build: CUDA carving, the GPU slider and the device previews cannot be created, and say
// why.
#include "carve_state.hpp"

namespace lacuna::ops {

SeamOrder seam_order_cuda(const CarveInput&, SeamDirection, int, const CarveProgress&) {
    throw Error(ErrorCode::CudaUnavailable, "this build has no CUDA backend");
}
SeamOrder seam_order_cuda(const DeepCarveInput&, SeamDirection, int, const CarveProgress&) {
    throw Error(ErrorCode::CudaUnavailable, "this build has no CUDA backend");
}
SeamOrder seam_order_cuda_profiled(const CarveInput&, SeamDirection, int, CarveProfile&) {
    throw Error(ErrorCode::CudaUnavailable, "this build has no CUDA backend");
}
void set_cuda_finder_blocks(int) {}
std::vector<SeamOrder> seam_orders_cuda_chained(const std::vector<CarveInput>&, SeamDirection, int,
                                                const SeamPaths*, const std::vector<bool>&, int) {
    throw Error(ErrorCode::CudaUnavailable, "this build has no CUDA backend");
}

DeviceSeamOrder seam_order_cuda(const DeviceCarveInput&, SeamDirection, int, const CarveProgress&) {
    throw Error(ErrorCode::CudaUnavailable, "this build has no CUDA backend");
}
DeviceSeamOrder seam_order_cuda(const DeepDeviceCarveInput&, SeamDirection, int,
                                const CarveProgress&) {
    throw Error(ErrorCode::CudaUnavailable, "this build has no CUDA backend");
}
DeviceSeamOrder upload_order(const SeamOrder&, DeviceStream) {
    throw Error(ErrorCode::CudaUnavailable, "this build has no CUDA backend");
}
SeamOrder download_order(const DeviceSeamOrder&) {
    throw Error(ErrorCode::CudaUnavailable, "this build has no CUDA backend");
}

template <class T>
void remove_seams(const DeviceImage<T>&, const DeviceSeamOrder&, int, DeviceImage<T>&) {
    throw Error(ErrorCode::CudaUnavailable, "this build has no CUDA backend");
}
void insert_seams(const DeviceImage<Rgba8>&, const DeviceSeamOrder&, int, DeviceImage<Rgba8>&) {
    throw Error(ErrorCode::CudaUnavailable, "this build has no CUDA backend");
}
template <class T>
void insert_seams_nearest(const DeviceImage<T>&, const DeviceSeamOrder&, int, DeviceImage<T>&) {
    throw Error(ErrorCode::CudaUnavailable, "this build has no CUDA backend");
}
void paint_seams(const DeviceImage<Rgba8>&, const DeviceSeamOrder&, int, Rgba8,
                 DeviceImage<Rgba8>&) {
    throw Error(ErrorCode::CudaUnavailable, "this build has no CUDA backend");
}
template void remove_seams<Rgba8>(const DeviceImage<Rgba8>&, const DeviceSeamOrder&, int,
                                  DeviceImage<Rgba8>&);
template void remove_seams<std::uint8_t>(const DeviceImage<std::uint8_t>&, const DeviceSeamOrder&,
                                         int, DeviceImage<std::uint8_t>&);
template void insert_seams_nearest<Rgba8>(const DeviceImage<Rgba8>&, const DeviceSeamOrder&, int,
                                          DeviceImage<Rgba8>&);
template void insert_seams_nearest<std::uint8_t>(const DeviceImage<std::uint8_t>&,
                                                 const DeviceSeamOrder&, int,
                                                 DeviceImage<std::uint8_t>&);

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

DeviceImage<Rgba16> deep_carving_proxy(const DeviceImage<std::uint8_t>&, PixelFormat, int, double,
                                       double) {
    throw Error(ErrorCode::CudaUnavailable, "this build has no CUDA backend");
}

}  // namespace lacuna::ops
