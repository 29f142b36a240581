// PNG through libpng (codecs.hpp). libpng reports errors by calling back and expecting the
// callback not to return: it longjmps back to decode_png/encode_png, whose C++ objects are all
// constructed before the setjmp, so none is skipped.
#include "codecs.hpp"
#include "io_messages.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/core/image.hpp>

#include <png.h>

#include <csetjmp>
#include <cstring>

namespace lacuna::io::detail {
namespace {

struct PngState {
    const std::uint8_t* data = nullptr;
    std::size_t size = 0;
    std::size_t at = 0;
    bool ran_out = false;     // the file ended inside the image data
    bool image_read = false;  // every row is decoded: later complaints are only notices
    bool palette = false;     // indices, expanded here
    std::string error;        // libpng's message
    std::string warning;      // its first warning
    std::vector<std::uint8_t>* out = nullptr;  // encoding
};

PngState& state_of(png_structp png) {
    return *static_cast<PngState*>(png_get_error_ptr(png));
}

void on_error(png_structp png, png_const_charp message) {
    state_of(png).error = message != nullptr ? message : "unknown error";
    png_longjmp(png, 1);
}

void on_warning(png_structp png, png_const_charp message) {
    PngState& s = state_of(png);
    if (s.warning.empty() && message != nullptr) s.warning = message;
}

void read_bytes(png_structp png, png_bytep out, const png_size_t n) {
    auto& s = *static_cast<PngState*>(png_get_io_ptr(png));
    if (n > s.size - s.at) {
        s.ran_out = true;
        png_error(png, "the file ends before its image data does");
    }
    std::memcpy(out, s.data + s.at, n);
    s.at += n;
}

void write_bytes(png_structp png, png_bytep in, const png_size_t n) {
    auto& s = *static_cast<PngState*>(png_get_io_ptr(png));
    s.out->insert(s.out->end(), in, in + n);
}

void flush_nothing(png_structp) {}

// The palette's colours (and tRNS alphas) for each index; an index beyond the palette is an
// error by the PNG specification, and libpng (black) and Pillow (a grey ramp) show different
// colours for it: refused, naming the index.
cv::Mat expand_palette(const cv::Mat& indices, png_structp png, png_infop info,
                       const std::string_view name) {
    png_colorp palette = nullptr;
    int count = 0;
    if (png_get_PLTE(png, info, &palette, &count) == 0 || count <= 0)
        fail_read(ErrorCode::Corrupt, name, "the PNG has a palette colour type but no palette");
    png_bytep alphas = nullptr;
    int alpha_count = 0;
    png_color_16p unused = nullptr;
    if (png_get_valid(png, info, PNG_INFO_tRNS) != 0)
        png_get_tRNS(png, info, &alphas, &alpha_count, &unused);
    const int channels = alpha_count > 0 ? 4 : 3;
    cv::Mat out(indices.rows, indices.cols, CV_8UC(channels));
    for (int y = 0; y < indices.rows; ++y) {
        const std::uint8_t* in = indices.ptr<std::uint8_t>(y);
        std::uint8_t* o = out.ptr<std::uint8_t>(y);
        for (int x = 0; x < indices.cols; ++x, o += channels) {
            const int i = in[x];
            if (i >= count)
                fail_read(ErrorCode::Corrupt, name,
                          "pixel (" + std::to_string(x) + ", " + std::to_string(y) +
                              ") has palette index " + std::to_string(i) + " beyond the " +
                              std::to_string(count) +
                              " colours of its palette (an error by the PNG specification; "
                              "readers disagree on the colour to show)");
            o[0] = palette[i].blue;
            o[1] = palette[i].green;
            o[2] = palette[i].red;
            if (channels == 4) o[3] = i < alpha_count ? alphas[i] : 255;
        }
    }
    return out;
}

}  // namespace

cv::Mat decode_png(const std::vector<std::uint8_t>& bytes, const std::string_view name,
                   std::vector<std::string>& notices) {
    PngState state;
    state.data = bytes.data();
    state.size = bytes.size();
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &state, on_error, on_warning);
    if (png == nullptr) throw Error(ErrorCode::OutOfMemory, "libpng cannot start");
    png_infop info = png_create_info_struct(png);
    struct Guard {
        png_structp* png;
        png_infop* info;
        ~Guard() { png_destroy_read_struct(png, info, nullptr); }
    } guard{&png, &info};
    cv::Mat decoded;
    std::vector<png_bytep> rows;
    if (setjmp(png_jmpbuf(png)) != 0) {
        if (!state.image_read) {
            if (state.ran_out)
                fail_read(ErrorCode::Truncated, name,
                          "the PNG file is truncated (it ends before its image data does)");
            fail_read(ErrorCode::Corrupt, name,
                      "the file is corrupt or not decodable (libpng says \"" + state.error + "\")");
        }
        // After the last row (png_read_end): the picture is whole.
        notices.push_back("the decoder warned: " + state.error);
    } else {
        png_set_read_fn(png, &state, read_bytes);
        png_set_user_limits(png, kMaxImageSide, kMaxImageSide);
        png_read_info(png, info);
        const png_uint_32 width = png_get_image_width(png, info);
        const png_uint_32 height = png_get_image_height(png, info);
        check_image_size(static_cast<int>(width), static_cast<int>(height));
        const int colour = png_get_color_type(png, info);
        const int depth = png_get_bit_depth(png, info);
        state.palette = colour == PNG_COLOR_TYPE_PALETTE;
        if (state.palette) {
            png_set_packing(png);  // one index per byte
        } else {
            if (colour == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
            // tRNS on grey or colour: one grey level or colour transparent (it was dropped).
            if (png_get_valid(png, info, PNG_INFO_tRNS) != 0) png_set_tRNS_to_alpha(png);
            if (depth == 16) png_set_swap(png);
            if ((colour & PNG_COLOR_MASK_COLOR) != 0) png_set_bgr(png);
        }
        png_set_interlace_handling(png);
        png_read_update_info(png, info);
        const int channels = png_get_channels(png, info);
        const int out_depth = png_get_bit_depth(png, info) == 16 ? CV_16U : CV_8U;
        decoded.create(static_cast<int>(height), static_cast<int>(width),
                       CV_MAKETYPE(out_depth, channels));
        rows.resize(height);
        for (png_uint_32 y = 0; y < height; ++y) rows[y] = decoded.ptr(static_cast<int>(y));
        png_read_image(png, rows.data());
        state.image_read = true;
        png_read_end(png, nullptr);
    }
    if (!state.warning.empty()) notices.push_back("the decoder warned: " + state.warning);
    return state.palette ? expand_palette(decoded, png, info, name) : decoded;
}

std::vector<std::uint8_t> encode_png(const cv::Mat& pixels) {
    std::vector<std::uint8_t> out;
    PngState state;
    state.out = &out;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &state, on_error, on_warning);
    if (png == nullptr)
        throw Error(ErrorCode::WriteFailed, "cannot encode PNG: libpng cannot start");
    png_infop info = png_create_info_struct(png);
    struct Guard {
        png_structp* png;
        png_infop* info;
        ~Guard() { png_destroy_write_struct(png, info); }
    } guard{&png, &info};
    const int channels = pixels.channels();
    std::vector<png_bytep> rows(static_cast<std::size_t>(pixels.rows));
    if (setjmp(png_jmpbuf(png)) != 0)
        throw Error(ErrorCode::WriteFailed, "cannot encode PNG: " + state.error);
    const int colour = channels == 1   ? PNG_COLOR_TYPE_GRAY
                       : channels == 2 ? PNG_COLOR_TYPE_GRAY_ALPHA
                       : channels == 3 ? PNG_COLOR_TYPE_RGB
                                       : PNG_COLOR_TYPE_RGB_ALPHA;
    png_set_write_fn(png, &state, write_bytes, flush_nothing);
    // zlib level 3: within a few per cent of level 9's size at a fraction of its time.
    png_set_compression_level(png, 3);
    png_set_IHDR(png, info, static_cast<png_uint_32>(pixels.cols),
                 static_cast<png_uint_32>(pixels.rows), pixels.depth() == CV_16U ? 16 : 8, colour,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    if (pixels.depth() == CV_16U) png_set_swap(png);
    if (channels >= 3) png_set_bgr(png);
    for (int y = 0; y < pixels.rows; ++y)
        rows[static_cast<std::size_t>(y)] = const_cast<png_bytep>(pixels.ptr(y));
    png_write_image(png, rows.data());
    png_write_end(png, nullptr);
    return out;
}

}  // namespace lacuna::io::detail
