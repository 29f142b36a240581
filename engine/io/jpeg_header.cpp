// A JPEG's frame size as libjpeg reads it — the same library and the same marker parser that
// OpenCV's decoder uses — without decoding a pixel. The header probe's own marker walk is kept
// for truncation, but its frame size comes from here: libjpeg skips stray bytes, fill bytes,
// stuffed zeros and odd segments in its own ways, and every difference let a tiny file declare
// billions of pixels that OpenCV then allocated before Lacuna's size check (fuzz_mask_load).
#include "jpeg_header.hpp"

#include <csetjmp>
#include <cstdio>

#include <jpeglib.h>

namespace lacuna::io::detail {
namespace {

struct ErrorManager {
    jpeg_error_mgr pub;
    std::jmp_buf jump;
};

[[noreturn]] void on_error(j_common_ptr cinfo) {
    std::longjmp(reinterpret_cast<ErrorManager*>(cinfo->err)->jump, 1);
}

void quiet(j_common_ptr) {}  // libjpeg's warnings would go to stderr

/// The decompressor, destroyed on every path (RAII over libjpeg's C API).
struct Decompressor {
    jpeg_decompress_struct info{};
    ~Decompressor() { jpeg_destroy_decompress(&info); }
};

}  // namespace

std::optional<std::pair<std::int64_t, std::int64_t>> jpeg_frame_size(
    const std::vector<std::uint8_t>& bytes) {
    if (bytes.size() < 4) return std::nullopt;
    Decompressor d;
    ErrorManager errors{};
    d.info.err = jpeg_std_error(&errors.pub);
    errors.pub.error_exit = on_error;
    errors.pub.output_message = quiet;
    // No C++ object with a destructor is created between setjmp and a longjmp back to it.
    if (setjmp(errors.jump) != 0) return std::nullopt;
    jpeg_create_decompress(&d.info);
    jpeg_mem_src(&d.info, bytes.data(), static_cast<unsigned long>(bytes.size()));
    if (jpeg_read_header(&d.info, TRUE) != JPEG_HEADER_OK) return std::nullopt;
    return std::pair<std::int64_t, std::int64_t>{d.info.image_width, d.info.image_height};
}

}  // namespace lacuna::io::detail
