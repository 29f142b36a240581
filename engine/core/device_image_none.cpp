// CPU-only build: device images cannot exist; every allocating call says so clearly.
#include <lacuna/core/device_image.hpp>

namespace lacuna {
namespace {
[[noreturn]] void no_cuda() {
    throw Error(ErrorCode::CudaUnavailable, "this build has no CUDA backend");
}
}  // namespace

OwnedStream::OwnedStream() {
    no_cuda();
}
OwnedStream::~OwnedStream() = default;
void OwnedStream::synchronize() const {}

template <class T>
DeviceImage<T>::DeviceImage(int, int, DeviceStream) {
    no_cuda();
}
template <class T>
DeviceImage<T>::DeviceImage(ImageView<const T>, DeviceStream) {
    no_cuda();
}
template <class T>
DeviceImage<T>::~DeviceImage() = default;
template <class T>
DeviceImage<T>::DeviceImage(DeviceImage&&) noexcept = default;
template <class T>
DeviceImage<T>& DeviceImage<T>::operator=(DeviceImage&&) noexcept = default;
template <class T>
void DeviceImage<T>::set_stream(const DeviceStream stream) {
    stream_ = stream;  // no memory is ever held without CUDA
}
template <class T>
void DeviceImage<T>::resize(int, int) {
    no_cuda();
}
template <class T>
void DeviceImage<T>::upload(ImageView<const T>) {
    no_cuda();
}
template <class T>
void DeviceImage<T>::upload_async(ImageView<const T>) {
    no_cuda();
}
template <class T>
void DeviceImage<T>::download(ImageView<T>) const {
    no_cuda();
}
template <class T>
void DeviceImage<T>::download_async(ImageView<T>) const {
    no_cuda();
}
template <class T>
Image<T> DeviceImage<T>::download() const {
    no_cuda();
}
template <class T>
Image<T> DeviceImage<T>::download_region(const PixelRect&) const {
    no_cuda();
}
template <class T>
void DeviceImage<T>::upload_region(const PixelRect&, ImageView<const T>) {
    no_cuda();
}
template <class T>
void DeviceImage<T>::copy_from(const DeviceImage&) {
    no_cuda();
}
template <class T>
void DeviceImage<T>::copy_region_from(const DeviceImage&, const PixelRect&, int, int) {
    no_cuda();
}
template <class T>
void DeviceImage<T>::fill_bytes(unsigned char) {
    no_cuda();
}
template <class T>
void DeviceImage<T>::fill_bytes(unsigned char, const PixelRect&) {
    no_cuda();
}
template <class T>
void DeviceImage<T>::synchronize() const {}

template class DeviceImage<Rgba8>;
template class DeviceImage<float>;
template class DeviceImage<std::uint8_t>;
template class DeviceImage<std::int32_t>;
template class DeviceImage<Rgba16>;

void luminance(const DeviceImage<Rgba8>&, DeviceImage<float>&) {
    no_cuda();
}

}  // namespace lacuna

// ---- DeviceBuffer: no device memory in a CPU-only build ----
#include <lacuna/core/device_buffer.hpp>

namespace lacuna {
template <class T>
DeviceBuffer<T>::~DeviceBuffer() = default;
template <class T>
DeviceBuffer<T>::DeviceBuffer(DeviceBuffer&&) noexcept = default;
template <class T>
DeviceBuffer<T>& DeviceBuffer<T>::operator=(DeviceBuffer&&) noexcept = default;
template <class T>
void DeviceBuffer<T>::reserve(std::size_t) {
    no_cuda();
}
template <class T>
void DeviceBuffer<T>::zero_async(std::size_t, DeviceStream) {
    no_cuda();
}
template <class T>
void DeviceBuffer<T>::download(T*, std::size_t, DeviceStream) const {
    no_cuda();
}
template <class T>
void DeviceBuffer<T>::upload(const T*, std::size_t, DeviceStream) {
    no_cuda();
}
template class DeviceBuffer<float>;
template class DeviceBuffer<std::uint8_t>;
template class DeviceBuffer<std::uint32_t>;
template class DeviceBuffer<std::int32_t>;
template class DeviceBuffer<unsigned long long>;
template class DeviceBuffer<Rgba8>;
template class DeviceBuffer<Rgba16>;
template class DeviceBuffer<std::int16_t>;
template class DeviceBuffer<std::int64_t>;
template class DeviceBuffer<std::int8_t>;
template class DeviceBuffer<double>;
}  // namespace lacuna
