// DeviceImage on the CUDA runtime: cudaMallocPitch memory, 2-D copies honouring both pitches.
#include <lacuna/core/device_image.hpp>
#include <lacuna/core/transfer_stats.hpp>

#include "cuda_check.hpp"
#include "cuda_probe.hpp"

#include <lacuna/kernels/image_kernels.h>

#include <cuda_runtime.h>

#include <string>
#include <utility>

namespace lacuna {

using detail::checked_allocation;
using detail::cuda_check;
using detail::cuda_check_launch;

template <class T>
DeviceImage<T>::DeviceImage(const int width, const int height, const DeviceStream stream)
    : stream_(stream) {
    resize(width, height);
}

template <class T>
DeviceImage<T>::DeviceImage(const ImageView<const T> src, const DeviceStream stream)
    : DeviceImage(src.width, src.height, stream) {
    upload(src);
}

template <class T>
DeviceImage<T>::~DeviceImage() {
    release();
}

template <class T>
DeviceImage<T>::DeviceImage(DeviceImage&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      width_(std::exchange(other.width_, 0)),
      height_(std::exchange(other.height_, 0)),
      pitch_(std::exchange(other.pitch_, 0)),
      capacity_width_(std::exchange(other.capacity_width_, 0)),
      capacity_height_(std::exchange(other.capacity_height_, 0)),
      stream_(other.stream_) {}

template <class T>
DeviceImage<T>& DeviceImage<T>::operator=(DeviceImage&& other) noexcept {
    if (this != &other) {
        release();
        data_ = std::exchange(other.data_, nullptr);
        width_ = std::exchange(other.width_, 0);
        height_ = std::exchange(other.height_, 0);
        pitch_ = std::exchange(other.pitch_, 0);
        capacity_width_ = std::exchange(other.capacity_width_, 0);
        capacity_height_ = std::exchange(other.capacity_height_, 0);
        stream_ = other.stream_;
    }
    return *this;
}

template <class T>
void DeviceImage<T>::release() noexcept {
    if (data_ != nullptr) {
        cudaFree(data_);  // synchronises with the device; errors here cannot be acted on
        data_ = nullptr;
    }
    width_ = height_ = capacity_width_ = capacity_height_ = 0;
    pitch_ = 0;
}

template <class T>
void DeviceImage<T>::set_stream(const DeviceStream stream) {
    if (stream == nullptr && data_ != nullptr)
        throw Error(ErrorCode::InvalidArgument,
                    "a device image that holds memory needs a stream (not the default stream)");
    stream_ = stream;
}

template <class T>
void DeviceImage<T>::resize(const int width, const int height) {
    check_image_size(width, height);
    if (width <= capacity_width_ && height <= capacity_height_) {
        width_ = width;
        height_ = height;
        return;
    }
    if (const detail::CudaProbe& probe = detail::probe_cuda();
        probe.reason != CudaUnavailableReason::None) {
        throw Error(ErrorCode::CudaUnavailable, "cannot allocate device memory: " +
                                                    describe_reason(probe.reason, probe.detail));
    }
    // Its copies and fills would otherwise run on the legacy default stream.
    if (stream_ == nullptr)
        throw Error(ErrorCode::InvalidArgument,
                    "a device image needs its caller's stream before it allocates");
    release();
    void* memory = nullptr;
    std::size_t pitch = 0;
    cuda_check(
        checked_allocation([&] {
            return cudaMallocPitch(&memory, &pitch, static_cast<std::size_t>(width) * sizeof(T),
                                   static_cast<std::size_t>(height));
        }),
        ("allocating a " + std::to_string(width) + "x" + std::to_string(height) + " device image")
            .c_str());
    data_ = static_cast<T*>(memory);
    pitch_ = pitch;
    width_ = capacity_width_ = width;
    height_ = capacity_height_ = height;
}

template <class T>
void DeviceImage<T>::check_same_size(const int width, const int height, const char* what) const {
    if (width != width_ || height != height_) {
        throw Error(ErrorCode::InvalidArgument,
                    std::string(what) + ": host image is " + std::to_string(width) + "x" +
                        std::to_string(height) + ", device image is " + std::to_string(width_) +
                        "x" + std::to_string(height_));
    }
}

template <class T>
void DeviceImage<T>::upload_async(const ImageView<const T> src) {
    check_same_size(src.width, src.height, "upload");
    if (stream_ == nullptr) return;  // never allocated: empty, nothing to copy
    detail::count_upload(static_cast<std::uint64_t>(src.row_bytes()) * src.height);
    cuda_check(
        cudaMemcpy2DAsync(data_, pitch_, src.data, src.pitch, src.row_bytes(),
                          static_cast<std::size_t>(src.height), cudaMemcpyHostToDevice, stream_),
        "host-to-device copy");
}

template <class T>
void DeviceImage<T>::upload(const ImageView<const T> src) {
    upload_async(src);
    synchronize();
}

template <class T>
void DeviceImage<T>::download_async(const ImageView<T> dst) const {
    check_same_size(dst.width, dst.height, "download");
    if (stream_ == nullptr) return;  // never allocated: empty, nothing to copy
    detail::count_download(static_cast<std::uint64_t>(dst.row_bytes()) * dst.height);
    cuda_check(
        cudaMemcpy2DAsync(dst.data, dst.pitch, data_, pitch_, dst.row_bytes(),
                          static_cast<std::size_t>(dst.height), cudaMemcpyDeviceToHost, stream_),
        "device-to-host copy");
}

template <class T>
void DeviceImage<T>::download(const ImageView<T> dst) const {
    download_async(dst);
    synchronize();
}

template <class T>
Image<T> DeviceImage<T>::download() const {
    Image<T> out(width_, height_);
    download(out.view());
    return out;
}

namespace {
void check_inside(const PixelRect& rect, const int width, const int height, const char* what) {
    if (rect.empty() || rect.x0 < 0 || rect.y0 < 0 || rect.x1 >= width || rect.y1 >= height)
        throw Error(ErrorCode::InvalidArgument,
                    std::string(what) + ": the rectangle is empty or not inside the " +
                        std::to_string(width) + "x" + std::to_string(height) + " image");
}
}  // namespace

template <class T>
Image<T> DeviceImage<T>::download_region(const PixelRect& rect) const {
    check_inside(rect, width_, height_, "download_region");
    Image<T> out(rect.width(), rect.height());
    const ImageView<T> dst = out.view();
    detail::count_download(static_cast<std::uint64_t>(dst.row_bytes()) * dst.height);
    cuda_check(cudaMemcpy2DAsync(dst.data, dst.pitch, sub_view(device_view(), rect).data, pitch_,
                                 dst.row_bytes(), static_cast<std::size_t>(dst.height),
                                 cudaMemcpyDeviceToHost, stream_),
               "device-to-host copy of a region");
    synchronize();
    return out;
}

template <class T>
void DeviceImage<T>::upload_region(const PixelRect& rect, const ImageView<const T> src) {
    check_inside(rect, width_, height_, "upload_region");
    if (src.width != rect.width() || src.height != rect.height())
        throw Error(ErrorCode::InvalidArgument,
                    "upload_region: the pixels do not fit the rectangle");
    detail::count_upload(static_cast<std::uint64_t>(src.row_bytes()) * src.height);
    cuda_check(cudaMemcpy2DAsync(sub_view(device_view(), rect).data, pitch_, src.data, src.pitch,
                                 src.row_bytes(), static_cast<std::size_t>(src.height),
                                 cudaMemcpyHostToDevice, stream_),
               "host-to-device copy of a region");
    synchronize();
}

template <class T>
void DeviceImage<T>::copy_from(const DeviceImage& src) {
    if (&src == this) return;
    resize(src.width(), src.height());
    if (empty()) return;
    copy_region_from(src, {0, 0, src.width() - 1, src.height() - 1}, 0, 0);
}

template <class T>
void DeviceImage<T>::copy_region_from(const DeviceImage& src, const PixelRect& rect, const int x,
                                      const int y) {
    check_inside(rect, src.width(), src.height(), "copy_region_from (source)");
    check_inside({x, y, x + rect.width() - 1, y + rect.height() - 1}, width_, height_,
                 "copy_region_from (destination)");
    // The source's stream has finished writing it only once its work is ordered before ours.
    if (src.stream() != stream_) src.synchronize();
    const ImageView<const T> from = sub_view(src.device_view(), rect);
    cuda_check(cudaMemcpy2DAsync(pitched_row(data_, pitch_, y) + x, pitch_, from.data, from.pitch,
                                 from.row_bytes(), static_cast<std::size_t>(from.height),
                                 cudaMemcpyDeviceToDevice, stream_),
               "device-to-device copy");
}

template <class T>
void DeviceImage<T>::fill_bytes(const unsigned char byte) {
    if (empty()) return;
    cuda_check(cudaMemset2DAsync(data_, pitch_, byte, static_cast<std::size_t>(width_) * sizeof(T),
                                 static_cast<std::size_t>(height_), stream_),
               "filling device memory");
}

template <class T>
void DeviceImage<T>::fill_bytes(const unsigned char byte, const PixelRect& rect) {
    check_inside(rect, width_, height_, "fill_bytes");
    cuda_check(cudaMemset2DAsync(sub_view(device_view(), rect).data, pitch_, byte,
                                 static_cast<std::size_t>(rect.width()) * sizeof(T),
                                 static_cast<std::size_t>(rect.height()), stream_),
               "filling device memory");
}

template <class T>
void DeviceImage<T>::synchronize() const {
    if (stream_ == nullptr) return;  // never allocated: nothing was enqueued for it
    cuda_check(cudaStreamSynchronize(stream_), "stream synchronisation");
}

OwnedStream::OwnedStream() {
    if (const detail::CudaProbe& probe = detail::probe_cuda();
        probe.reason != CudaUnavailableReason::None)
        throw Error(ErrorCode::CudaUnavailable,
                    "cannot create a CUDA stream: " + describe_reason(probe.reason, probe.detail));
    cudaStream_t stream = nullptr;
    cuda_check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "creating a stream");
    stream_ = stream;
}

OwnedStream::~OwnedStream() {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

void OwnedStream::synchronize() const {
    cuda_check(cudaStreamSynchronize(stream_), "stream synchronisation");
}

template class DeviceImage<Rgba8>;
template class DeviceImage<float>;
template class DeviceImage<std::uint8_t>;
template class DeviceImage<std::int32_t>;
template class DeviceImage<Rgba16>;

void luminance(const DeviceImage<Rgba8>& src, DeviceImage<float>& dst) {
    if (dst.stream() == nullptr) dst.set_stream(src.stream());
    dst.resize(src.width(), src.height());
    cuda_check_launch(
        kernels::launch_luminance709(src.device_view(), dst.device_view(), src.stream()),
        "luminance kernel");
    src.synchronize();  // the kernel ran on src's stream, which dst's (if another) does not order
}

}  // namespace lacuna

// ---- DeviceBuffer ----
#include <lacuna/core/device_buffer.hpp>

namespace lacuna {

template <class T>
DeviceBuffer<T>::~DeviceBuffer() {
    if (data_ != nullptr) cudaFree(data_);
}

template <class T>
DeviceBuffer<T>::DeviceBuffer(DeviceBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), capacity_(std::exchange(other.capacity_, 0)) {}

template <class T>
DeviceBuffer<T>& DeviceBuffer<T>::operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
        if (data_ != nullptr) cudaFree(data_);
        data_ = std::exchange(other.data_, nullptr);
        capacity_ = std::exchange(other.capacity_, 0);
    }
    return *this;
}

template <class T>
void DeviceBuffer<T>::reserve(const std::size_t count) {
    if (count <= capacity_) return;
    if (const detail::CudaProbe& probe = detail::probe_cuda();
        probe.reason != CudaUnavailableReason::None) {
        throw Error(ErrorCode::CudaUnavailable, "cannot allocate device memory: " +
                                                    describe_reason(probe.reason, probe.detail));
    }
    if (data_ != nullptr) cudaFree(std::exchange(data_, nullptr));
    capacity_ = 0;
    void* memory = nullptr;
    cuda_check(
        checked_allocation([&] { return cudaMalloc(&memory, count * sizeof(T)); }),
        ("allocating " + std::to_string(count * sizeof(T)) + " bytes of device memory").c_str());
    data_ = static_cast<T*>(memory);
    capacity_ = count;
}

template <class T>
void DeviceBuffer<T>::zero_async(const std::size_t count, const DeviceStream stream) {
    cuda_check(cudaMemsetAsync(data_, 0, count * sizeof(T), stream), "clearing device memory");
}

template <class T>
void DeviceBuffer<T>::download(T* host, const std::size_t count, const DeviceStream stream) const {
    detail::count_download(count * sizeof(T));
    cuda_check(cudaMemcpyAsync(host, data_, count * sizeof(T), cudaMemcpyDeviceToHost, stream),
               "device-to-host copy");
    cuda_check(cudaStreamSynchronize(stream), "stream synchronisation");
}

template <class T>
void DeviceBuffer<T>::upload(const T* host, const std::size_t count, const DeviceStream stream) {
    reserve(count);
    detail::count_upload(count * sizeof(T));
    cuda_check(cudaMemcpyAsync(data_, host, count * sizeof(T), cudaMemcpyHostToDevice, stream),
               "host-to-device copy");
    cuda_check(cudaStreamSynchronize(stream), "stream synchronisation");
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
