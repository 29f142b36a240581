// Host images: a non-owning pitched view and an owning image with a chosen row pitch.
// Pixel types: Rgba8 (working image), float (energies, measurement data), std::uint8_t (masks).
#pragma once

#include <lacuna/core/error.hpp>
#include <lacuna/core/pixel.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <algorithm>
#include <type_traits>
#include <vector>

namespace lacuna {

/// Documented size limits for any image Lacuna creates or reads: each side at most 32768
/// pixels and at most 2^28 pixels in all (1 GiB as RGBA8). Larger requests fail with TooLarge.
inline constexpr int kMaxImageSide = 32768;
inline constexpr std::int64_t kMaxImagePixels = std::int64_t{1} << 28;

/// Throws Error(EmptyImage / TooLarge / InvalidArgument) if width × height is not allowed.
void check_image_size(int width, int height);

/// A row pitch in bytes, spelled out so it is never confused with a fill value.
struct RowPitch {
    std::size_t bytes;
};

/// An owning host image. Rows are `pitch` bytes apart; by default rows are padded to 64 bytes so
/// that SIMD loops and GPU uploads start every row aligned.
template <class T>
class Image {
  public:
    static_assert(std::is_trivially_copyable_v<T>);

    Image() = default;
    Image(int width, int height);
    /// Explicit pitch in bytes (>= width * sizeof(T), a multiple of alignof(T)): for tests and for
    /// wrapping layouts that other libraries require.
    Image(int width, int height, RowPitch pitch);
    Image(int width, int height, const T& fill);

    Image(const Image& other);
    Image& operator=(const Image& other);
    Image(Image&&) noexcept = default;
    Image& operator=(Image&&) noexcept = default;
    ~Image() = default;

    [[nodiscard]] int width() const { return width_; }
    [[nodiscard]] int height() const { return height_; }
    [[nodiscard]] std::size_t pitch() const { return pitch_; }
    [[nodiscard]] bool empty() const { return width_ <= 0 || height_ <= 0; }

    [[nodiscard]] ImageView<T> view() { return {data(), width_, height_, pitch_}; }
    [[nodiscard]] ImageView<const T> view() const { return {data(), width_, height_, pitch_}; }
    [[nodiscard]] T* row(const int y) { return view().row(y); }
    [[nodiscard]] const T* row(const int y) const { return view().row(y); }
    [[nodiscard]] T& at(const int x, const int y) { return row(y)[x]; }
    [[nodiscard]] const T& at(const int x, const int y) const { return row(y)[x]; }

    void fill(const T& value);

  private:
    [[nodiscard]] T* data() { return reinterpret_cast<T*>(storage_.get()); }
    [[nodiscard]] const T* data() const { return reinterpret_cast<const T*>(storage_.get()); }

    int width_ = 0;
    int height_ = 0;
    std::size_t pitch_ = 0;
    std::unique_ptr<std::byte[]> storage_;
};

/// Padded row pitch in bytes used by Image(width, height).
std::size_t default_pitch(int width, std::size_t pixel_size);

/// Copies pixels between views of equal size (pitches may differ). Throws InvalidArgument
/// otherwise.
template <class T>
void copy_pixels(ImageView<const T> src, ImageView<T> dst);

/// True if both views have the same size and identical pixels (padding ignored).
template <class T>
bool equal_pixels(ImageView<const T> a, ImageView<const T> b);

/// A deep copy into a tightly padded image.
template <class T>
Image<T> clone(ImageView<const T> src);
/// The same for a view of mutable pixels.
template <class T, class = std::enable_if_t<!std::is_const_v<T>>>
Image<T> clone(const ImageView<T> src) {
    return clone(ImageView<const T>(src.data, src.width, src.height, src.pitch));
}

/// The pixels row after row with no padding: what linear device buffers and per-pixel state
/// arrays hold.
template <class T>
std::vector<std::remove_const_t<T>> to_dense(const ImageView<T> src) {
    std::vector<std::remove_const_t<T>> out(static_cast<std::size_t>(src.width) * src.height);
    for (int y = 0; y < src.height; ++y)
        std::copy_n(src.row(y), src.width,
                    out.begin() + static_cast<std::ptrdiff_t>(y) * src.width);
    return out;
}

/// The inverse of to_dense: `pixels` holds width × height values row after row.
template <class T>
Image<T> from_dense(const std::vector<T>& pixels, const int width, const int height) {
    Image<T> out(width, height);
    for (int y = 0; y < height; ++y)
        std::copy_n(pixels.begin() + static_cast<std::ptrdiff_t>(y) * width, width, out.row(y));
    return out;
}

/// An inclusive pixel rectangle; empty when x1 < x0. What an edit changed (brush strokes, fills,
/// undo snapshots) is described by one.
struct PixelRect {
    int x0 = 0, y0 = 0, x1 = -1, y1 = -1;
    [[nodiscard]] bool empty() const { return x1 < x0 || y1 < y0; }
    [[nodiscard]] int width() const { return x1 - x0 + 1; }
    [[nodiscard]] int height() const { return y1 - y0 + 1; }
    void unite(const PixelRect& other) {
        if (other.empty()) return;
        if (empty()) {
            *this = other;
            return;
        }
        x0 = std::min(x0, other.x0);
        y0 = std::min(y0, other.y0);
        x1 = std::max(x1, other.x1);
        y1 = std::max(y1, other.y1);
    }
    friend bool operator==(const PixelRect&, const PixelRect&) = default;
};

/// The part of `rect` inside a width × height image.
inline PixelRect clip(const PixelRect& rect, const int width, const int height) {
    return {std::max(rect.x0, 0), std::max(rect.y0, 0), std::min(rect.x1, width - 1),
            std::min(rect.y1, height - 1)};
}

/// A view of the rectangle inside `view` (no copy; the rectangle must lie inside).
template <class T>
ImageView<T> sub_view(const ImageView<T> view, const PixelRect& rect) {
    return {view.row(rect.y0) + rect.x0, rect.width(), rect.height(), view.pitch};
}

/// A copy of the rectangle's pixels.
template <class T>
Image<T> copy_region(const Image<T>& image, const PixelRect& rect) {
    return clone(sub_view(image.view(), rect));
}

/// Writes `region` back at the rectangle's place.
template <class T>
void paste_region(Image<T>& image, const PixelRect& rect, const Image<T>& region) {
    copy_pixels(region.view(), sub_view(image.view(), rect));
}

using ImageRgba8 = Image<Rgba8>;
using ImageF32 = Image<float>;

/// Rec. 709 luminance (0..255) of every pixel: the CPU reference for the CUDA kernel.
ImageF32 luminance(ImageView<const Rgba8> src);

}  // namespace lacuna
