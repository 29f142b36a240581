// A 2-D image in CUDA pitched device memory with one owner (RAII), the caller's stream, and copies
// to and from host views of any pitch. The header needs no CUDA headers, so Qt and CPU-only code
// can hold DeviceImages; in a build without CUDA every constructor that allocates throws
// Error(CudaUnavailable).
#pragma once

#include <lacuna/core/image.hpp>

#include <cstddef>

struct CUstream_st;

namespace lacuna {

using DeviceStream = CUstream_st*;  ///< same type as cudaStream_t (nullptr would be stream 0)

/// A CUDA stream with one owner, created non-blocking so its work never waits behind another
/// thread's (a background seam carve) or the legacy default stream. Throws CudaUnavailable in a
/// build without CUDA.
class OwnedStream {
  public:
    OwnedStream();
    ~OwnedStream();
    OwnedStream(const OwnedStream&) = delete;
    OwnedStream& operator=(const OwnedStream&) = delete;
    [[nodiscard]] DeviceStream get() const { return stream_; }
    /// Waits for everything enqueued on it.
    void synchronize() const;

  private:
    DeviceStream stream_ = nullptr;
};

/// Every copy, fill and wait of a DeviceImage runs on its stream, the caller's: never on the legacy
/// default stream (stream 0), which would serialise every other stream of the process. So an
/// image holds memory only once it has a stream: the allocating constructors take one (no
/// default), and a default-made image (empty, no stream: a member or a slot to assign) must get
/// one from set_stream() or a move before resize() allocates, or resize() throws
/// InvalidArgument.
template <class T>
class DeviceImage {
  public:
    /// Empty and without a stream.
    DeviceImage() = default;
    /// Allocates width × height pixels (uninitialised) whose work runs on `stream` (not nullptr).
    /// Throws OutOfMemory if the device cannot.
    DeviceImage(int width, int height, DeviceStream stream);
    /// Allocates and uploads `src` on `stream` (synchronously).
    explicit DeviceImage(ImageView<const T> src, DeviceStream stream);
    ~DeviceImage();

    DeviceImage(const DeviceImage&) = delete;
    DeviceImage& operator=(const DeviceImage&) = delete;
    DeviceImage(DeviceImage&& other) noexcept;
    DeviceImage& operator=(DeviceImage&& other) noexcept;

    [[nodiscard]] int width() const { return width_; }
    [[nodiscard]] int height() const { return height_; }
    [[nodiscard]] std::size_t pitch() const { return pitch_; }
    [[nodiscard]] bool empty() const { return width_ <= 0 || height_ <= 0; }
    [[nodiscard]] DeviceStream stream() const { return stream_; }
    /// The stream later work on this image runs on (the caller's). Work already enqueued on the
    /// old stream is not waited for. Throws InvalidArgument for nullptr once the image holds
    /// memory.
    void set_stream(DeviceStream stream);

    /// A view of device memory: only kernels may dereference it.
    [[nodiscard]] ImageView<T> device_view() { return {data_, width_, height_, pitch_}; }
    [[nodiscard]] ImageView<const T> device_view() const {
        return {data_, width_, height_, pitch_};
    }

    /// Changes the logical size; reallocates only when the capacity is too small (grow-only), so
    /// a shrinking image (seam carving, a slider) never churns the allocator. Contents are lost
    /// when it reallocates. Throws InvalidArgument if it must allocate and the image has no
    /// stream.
    void resize(int width, int height);

    /// Host → device. Sizes must match. `_async` enqueues on stream(); the host view must stay
    /// alive (and ideally be page-locked) until the stream is synchronised.
    void upload(ImageView<const T> src);
    void upload_async(ImageView<const T> src);
    /// Device → host. Sizes must match.
    void download(ImageView<T> dst) const;
    void download_async(ImageView<T> dst) const;
    [[nodiscard]] Image<T> download() const;
    /// Only the rectangle (which must lie inside): undo snapshots and their restores. Synchronous.
    [[nodiscard]] Image<T> download_region(const PixelRect& rect) const;
    void upload_region(const PixelRect& rect, ImageView<const T> src);
    /// Device -> device on stream(): becomes a copy of `src` (resized, grow-only). No host copy.
    void copy_from(const DeviceImage& src);
    /// Device -> device on stream(): the rectangle of `src` lands at (x, y) of this image.
    void copy_region_from(const DeviceImage& src, const PixelRect& rect, int x, int y);
    /// Sets every byte of the logical image to `byte` on stream() (masks cleared to 0).
    void fill_bytes(unsigned char byte);
    /// The same inside `rect` only (a cleared mask rectangle).
    void fill_bytes(unsigned char byte, const PixelRect& rect);
    /// Waits for every copy and kernel enqueued on stream() (nothing to wait for without one: such
    /// an image has never held memory).
    void synchronize() const;

  private:
    void release() noexcept;
    void check_same_size(int width, int height, const char* what) const;

    T* data_ = nullptr;
    int width_ = 0;
    int height_ = 0;
    std::size_t pitch_ = 0;
    int capacity_width_ = 0;
    int capacity_height_ = 0;
    DeviceStream stream_ = nullptr;
};

/// Rec. 709 luminance on the device (kernel in kernels/), equal bit for bit to lacuna::luminance.
/// Runs on src.stream(); `dst` is resized and, if it has no stream yet, takes src's.
void luminance(const DeviceImage<Rgba8>& src, DeviceImage<float>& dst);

}  // namespace lacuna
