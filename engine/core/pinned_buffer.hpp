// Internal (CUDA builds only): page-locked host memory with one owner and grow-only capacity.
// Small results (a histogram, a profile) come back in one asynchronous copy and one wait, at the
// bus's speed rather than through the driver's pageable staging; small inputs (a kymograph's
// plan) go up the same way without a wait.
#pragma once

#include "cuda_check.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <utility>

namespace lacuna::detail {

template <class T>
class PinnedBuffer {
  public:
    PinnedBuffer() = default;
    ~PinnedBuffer() {
        if (data_ != nullptr) cudaFreeHost(data_);
    }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;

    /// Room for at least `count` elements (contents lost when it grows, by doubling at least, so
    /// a line dragged longer and longer reallocates rarely).
    T* reserve(std::size_t count) {
        if (count > capacity_) {
            count = std::max(count, 2 * capacity_);
            if (data_ != nullptr) cudaFreeHost(std::exchange(data_, nullptr));
            capacity_ = 0;
            void* memory = nullptr;
            cuda_check(
                checked_allocation([&] { return cudaMallocHost(&memory, count * sizeof(T)); }),
                "allocating pinned memory");
            data_ = static_cast<T*>(memory);
            capacity_ = count;
        }
        return data_;
    }

    [[nodiscard]] T* data() { return data_; }
    [[nodiscard]] const T* data() const { return data_; }
    [[nodiscard]] std::size_t capacity() const { return capacity_; }

  private:
    T* data_ = nullptr;
    std::size_t capacity_ = 0;
};

}  // namespace lacuna::detail
