#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>

#include <algorithm>
#include <vector>
#include <cstring>
#include <new>
#include <string>

namespace lacuna {

void check_image_size(const int width, const int height) {
    if (width < 0 || height < 0) {
        throw Error(ErrorCode::InvalidArgument,
                    "negative image size " + std::to_string(width) + "x" + std::to_string(height));
    }
    if (width == 0 || height == 0) {
        throw Error(ErrorCode::EmptyImage, "image has zero size (" + std::to_string(width) + "x" +
                                               std::to_string(height) + ")");
    }
    if (width > kMaxImageSide || height > kMaxImageSide ||
        std::int64_t{width} * height > kMaxImagePixels) {
        throw Error(ErrorCode::TooLarge,
                    "image of " + std::to_string(width) + "x" + std::to_string(height) +
                        " exceeds Lacuna's limit (at most " + std::to_string(kMaxImageSide) +
                        " pixels per side and " + std::to_string(kMaxImagePixels) + " pixels)");
    }
}

std::size_t default_pitch(const int width, const std::size_t pixel_size) {
    constexpr std::size_t kRowAlignment = 64;
    const std::size_t bytes = static_cast<std::size_t>(width) * pixel_size;
    return (bytes + kRowAlignment - 1) / kRowAlignment * kRowAlignment;
}

template <class T>
Image<T>::Image(const int width, const int height)
    : Image(width, height, RowPitch{default_pitch(std::max(width, 0), sizeof(T))}) {}

template <class T>
Image<T>::Image(const int width, const int height, const RowPitch row_pitch) {
    const std::size_t pitch = row_pitch.bytes;
    check_image_size(width, height);
    if (pitch < static_cast<std::size_t>(width) * sizeof(T) || pitch % alignof(T) != 0) {
        throw Error(ErrorCode::InvalidArgument, "row pitch " + std::to_string(pitch) +
                                                    " bytes is too small or misaligned for " +
                                                    std::to_string(width) + " pixels of " +
                                                    std::to_string(sizeof(T)) + " bytes");
    }
    const std::size_t bytes = pitch * static_cast<std::size_t>(height);
    try {
        // Value-initialised so that padding bytes are defined (sanitizers, reproducible dumps).
        storage_ = std::make_unique<std::byte[]>(bytes);
    } catch (const std::bad_alloc&) {
        throw Error(ErrorCode::OutOfMemory,
                    "out of host memory allocating a " + std::to_string(width) + "x" +
                        std::to_string(height) + " image (" + std::to_string(bytes) + " bytes)");
    }
    width_ = width;
    height_ = height;
    pitch_ = pitch;
}

template <class T>
Image<T>::Image(const int width, const int height, const T& fill_value) : Image(width, height) {
    fill(fill_value);
}

template <class T>
Image<T>::Image(const Image& other) {
    if (!other.empty()) {
        *this = Image(other.width_, other.height_, RowPitch{other.pitch_});
        copy_pixels<T>(other.view(), view());
    }
}

template <class T>
Image<T>& Image<T>::operator=(const Image& other) {
    if (this != &other) {
        Image copy(other);
        *this = std::move(copy);
    }
    return *this;
}

template <class T>
void Image<T>::fill(const T& value) {
    for (int y = 0; y < height_; ++y) {
        std::fill_n(row(y), width_, value);
    }
}

template <class T>
void copy_pixels(const ImageView<const T> src, const ImageView<T> dst) {
    if (src.width != dst.width || src.height != dst.height) {
        throw Error(ErrorCode::InvalidArgument, "cannot copy a " + std::to_string(src.width) + "x" +
                                                    std::to_string(src.height) + " image into a " +
                                                    std::to_string(dst.width) + "x" +
                                                    std::to_string(dst.height) + " one");
    }
    for (int y = 0; y < src.height; ++y) {
        std::memcpy(dst.row(y), src.row(y), src.row_bytes());
    }
}

template <class T>
bool equal_pixels(const ImageView<const T> a, const ImageView<const T> b) {
    if (a.width != b.width || a.height != b.height) {
        return false;
    }
    for (int y = 0; y < a.height; ++y) {
        if (std::memcmp(a.row(y), b.row(y), a.row_bytes()) != 0) {
            return false;
        }
    }
    return true;
}

template <class T>
Image<T> clone(const ImageView<const T> src) {
    Image<T> out(src.width, src.height);
    copy_pixels(src, out.view());
    return out;
}

ImageF32 luminance(const ImageView<const Rgba8> src) {
    ImageF32 out(src.width, src.height);
    for (int y = 0; y < src.height; ++y) {
        const Rgba8* in = src.row(y);
        float* o = out.row(y);
        for (int x = 0; x < src.width; ++x) {
            o[x] = luminance709(in[x]);
        }
    }
    return out;
}

std::int64_t count_selected(const MaskView mask) {
    std::int64_t count = 0;
    for (int y = 0; y < mask.height; ++y) {
        const std::uint8_t* r = mask.row(y);
        count += std::count_if(r, r + mask.width, [](const std::uint8_t v) { return v != 0; });
    }
    return count;
}

Mask mask_from_image(const ImageView<const Rgba8> image, const std::uint8_t threshold) {
    Mask mask(image.width, image.height);
    for (int y = 0; y < image.height; ++y) {
        const Rgba8* in = image.row(y);
        std::uint8_t* out = mask.row(y);
        for (int x = 0; x < image.width; ++x) {
            const std::uint8_t brightest = std::max({in[x].r, in[x].g, in[x].b});
            out[x] = (in[x].a >= threshold && brightest >= threshold) ? 255 : 0;
        }
    }
    return mask;
}

namespace {

/// Pixels within Euclidean distance r of a pixel where `selected(x, y)`: per row the distance
/// to the nearest selected pixel (both ways), then per pixel the least dx² + dy² over the rows
/// within r. O(pixels · r).
template <class Selected>
Mask dilate_disc(const int w, const int h, const int r, Selected&& selected) {
    constexpr int kFar = 1 << 20;
    std::vector<int> dx(static_cast<std::size_t>(w) * h, kFar);
    for (int y = 0; y < h; ++y) {
        int* row = dx.data() + static_cast<std::size_t>(y) * w;
        int last = -kFar;
        for (int x = 0; x < w; ++x) {
            if (selected(x, y)) last = x;
            row[x] = x - last;
        }
        last = 2 * kFar;
        for (int x = w - 1; x >= 0; --x) {
            if (selected(x, y)) last = x;
            row[x] = std::min(row[x], last - x);
        }
    }
    Mask out(w, h);
    const long long r2 = static_cast<long long>(r) * r;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            bool in = false;
            for (int yy = std::max(0, y - r); yy <= std::min(h - 1, y + r) && !in; ++yy) {
                const long long d = dx[static_cast<std::size_t>(yy) * w + x];
                in = d * d + static_cast<long long>(yy - y) * (yy - y) <= r2;
            }
            out.at(x, y) = in ? 255 : 0;
        }
    return out;
}

}  // namespace

Mask grow_mask(const MaskView mask, const int pixels) {
    const int w = mask.width, h = mask.height;
    if (pixels >= 0)
        return dilate_disc(w, h, pixels,
                           [&](const int x, const int y) { return mask.row(y)[x] != 0; });
    // Shrinking is growing the unselected pixels (only those in the image: beyond its edge
    // counts as selected) and keeping what they do not reach.
    Mask out =
        dilate_disc(w, h, -pixels, [&](const int x, const int y) { return mask.row(y)[x] == 0; });
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) out.at(x, y) = out.at(x, y) != 0 ? 0 : 255;
    return out;
}

void check_mask_size(const MaskView mask, const int width, const int height, const char* what) {
    if (mask.width != width || mask.height != height) {
        throw Error(ErrorCode::InvalidArgument,
                    std::string(what) + " is " + std::to_string(mask.width) + "x" +
                        std::to_string(mask.height) + " but the image is " + std::to_string(width) +
                        "x" + std::to_string(height));
    }
}

#define LACUNA_INSTANTIATE_IMAGE(T)                                        \
    template class Image<T>;                                               \
    template void copy_pixels<T>(ImageView<const T>, ImageView<T>);        \
    template bool equal_pixels<T>(ImageView<const T>, ImageView<const T>); \
    template Image<T> clone<T>(ImageView<const T>);

LACUNA_INSTANTIATE_IMAGE(Rgba8)
LACUNA_INSTANTIATE_IMAGE(Rgba16)
LACUNA_INSTANTIATE_IMAGE(float)
LACUNA_INSTANTIATE_IMAGE(std::uint8_t)
LACUNA_INSTANTIATE_IMAGE(std::uint16_t)
LACUNA_INSTANTIATE_IMAGE(std::int32_t)

}  // namespace lacuna
