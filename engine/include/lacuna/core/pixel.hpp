// Core pixel types and views, shared between host C++ (C++20) and CUDA (compiled as C++17:
// CMake 3.25 cannot ask nvcc for C++20), so this header sticks to C++17. Per-pixel math lives here
// once, so the CPU reference and the CUDA kernels compute the same values. Kernels are compiled
// with --fmad=false so that floating expressions written here round identically on both sides.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#if defined(__CUDACC__)
#define LACUNA_HD __host__ __device__ __forceinline__
#else
#define LACUNA_HD inline
#endif

namespace lacuna {

/// One RGBA pixel, 8 bits per channel, in memory order R, G, B, A (straight alpha).
struct Rgba8 {
    std::uint8_t r = 0;
    std::uint8_t g = 0;
    std::uint8_t b = 0;
    std::uint8_t a = 255;

    friend constexpr bool operator==(const Rgba8& a, const Rgba8& b) {
        return a.r == b.r && a.g == b.g && a.b == b.b && a.a == b.a;
    }
    friend constexpr bool operator!=(const Rgba8& a, const Rgba8& b) { return !(a == b); }
};
static_assert(sizeof(Rgba8) == 4, "Rgba8 must be tightly packed: images and GL textures share it");

/// One RGBA pixel, 16 bits per channel: the decision image seams of measurement documents are
/// found on (their samples normalised to 0..65535, so every stored bit of a 16-bit image counts).
struct Rgba16 {
    std::uint16_t r = 0;
    std::uint16_t g = 0;
    std::uint16_t b = 0;
    std::uint16_t a = 65535;

    friend constexpr bool operator==(const Rgba16& a, const Rgba16& b) {
        return a.r == b.r && a.g == b.g && a.b == b.b && a.a == b.a;
    }
    friend constexpr bool operator!=(const Rgba16& a, const Rgba16& b) { return !(a == b); }
};
static_assert(sizeof(Rgba16) == 8, "Rgba16 must be tightly packed");

/// Rec. 709 luma of an sRGB-encoded pixel, on the 0..255 scale (alpha ignored).
/// Written as separate products and sums so host and device round the same way.
LACUNA_HD float luminance709(const Rgba8 p) {
    const float r = 0.2126f * static_cast<float>(p.r);
    const float g = 0.7152f * static_cast<float>(p.g);
    const float b = 0.0722f * static_cast<float>(p.b);
    return (r + g) + b;
}

/// Address of row y in a pitched buffer (pitch in bytes), for host and device pointers alike.
template <class T>
LACUNA_HD T* pitched_row(T* base, const std::size_t pitch_bytes, const int y) {
    using Byte = std::conditional_t<std::is_const_v<T>, const unsigned char, unsigned char>;
    return reinterpret_cast<T*>(reinterpret_cast<Byte*>(base) +
                                static_cast<std::size_t>(y) * pitch_bytes);
}

/// A non-owning view of a pitched 2-D buffer (host or device memory). `pitch` is in bytes and
/// may exceed width * sizeof(T). T may be const.
template <class T>
struct ImageView {
    T* data = nullptr;
    int width = 0;
    int height = 0;
    std::size_t pitch = 0;

    ImageView() = default;
    LACUNA_HD ImageView(T* d, const int w, const int h, const std::size_t p)
        : data(d), width(w), height(h), pitch(p) {}
    // A mutable view converts to a read-only one.
    template <class U,
              std::enable_if_t<std::is_same_v<const U, T> && !std::is_same_v<U, T>, int> = 0>
    LACUNA_HD ImageView(const ImageView<U>& other)  // NOLINT(google-explicit-constructor)
        : data(other.data), width(other.width), height(other.height), pitch(other.pitch) {}

    LACUNA_HD bool empty() const { return width <= 0 || height <= 0; }
    LACUNA_HD T* row(const int y) const { return pitched_row(data, pitch, y); }
    LACUNA_HD T& at(const int x, const int y) const { return row(y)[x]; }
    LACUNA_HD std::size_t row_bytes() const { return static_cast<std::size_t>(width) * sizeof(T); }
};

}  // namespace lacuna
