// A 1-D buffer in CUDA device memory with one owner and grow-only capacity: results and scratch
// space for kernels that are called again and again (a line being dragged) without reallocating.
// It holds no stream: every copy and fill takes the caller's (no default, never stream 0), the
// stream its kernels run on.
#pragma once

#include <lacuna/core/device_image.hpp>

#include <cstddef>
#include <vector>

namespace lacuna {

template <class T>
class DeviceBuffer {
  public:
    DeviceBuffer() = default;
    ~DeviceBuffer();
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& other) noexcept;
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;

    /// Makes room for at least `count` elements; reallocates (contents lost) only to grow.
    void reserve(std::size_t count);
    [[nodiscard]] T* data() { return data_; }
    [[nodiscard]] const T* data() const { return data_; }
    [[nodiscard]] std::size_t capacity() const { return capacity_; }

    /// Sets the first `count` elements to zero bytes, on `stream`.
    void zero_async(std::size_t count, DeviceStream stream);
    /// Copies the first `count` elements to the host (synchronously on `stream`).
    void download(T* host, std::size_t count, DeviceStream stream) const;
    void upload(const T* host, std::size_t count, DeviceStream stream);

  private:
    T* data_ = nullptr;
    std::size_t capacity_ = 0;
};

}  // namespace lacuna
