// Internal: lays out many device arrays in one allocation, so a fill (PatchMatch's pyramid, the
// blend's multigrid) allocates once and its pieces start on 256-byte boundaries (the alignment
// cudaMalloc gives, which coalesced kernel loads expect).
#pragma once

#include <cstddef>

namespace lacuna::ops::detail {

/// Hands out 256-byte aligned pieces of one allocation. Run a layout once with no base to
/// measure (size()), allocate that many bytes, then run the same layout again on the memory.
class Carver {
  public:
    explicit Carver(void* base) : base_(static_cast<std::byte*>(base)) {}

    template <class T>
    T* take(const std::size_t count) {
        offset_ = (offset_ + 255) & ~static_cast<std::size_t>(255);
        T* p = base_ == nullptr ? nullptr : reinterpret_cast<T*>(base_ + offset_);
        offset_ += count * sizeof(T);
        return p;
    }

    /// Bytes taken so far (the allocation a measuring run asks for).
    [[nodiscard]] std::size_t size() const { return offset_; }

  private:
    std::byte* base_;
    std::size_t offset_ = 0;
};

}  // namespace lacuna::ops::detail
