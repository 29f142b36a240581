// JPEG through libjpeg-turbo (codecs.hpp). libjpeg's error_exit must not return: it longjmps
// back here, past only C frames; its messages go to Lacuna's strings, never to stderr.
#include "codecs.hpp"
#include "io_messages.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/core/image.hpp>

#include <cstdio>  // jpeglib.h needs FILE
#include <jpeglib.h>
#include <jerror.h>  // JWRN_JPEG_EOF

#include <algorithm>
#include <csetjmp>
#include <cstdlib>

namespace lacuna::io::detail {
namespace {

// A progressive file may hold any number of scans, each a pass over the whole image: a small
// crafted file with thousands of them takes minutes (djpeg's -maxscans guards the same).
constexpr int kMaxScans = 1000;

struct JpegError {
    jpeg_error_mgr mgr{};
    std::jmp_buf jump{};
    std::string error;
    int code = 0;  // libjpeg's message code of the error
    std::string warning;
    bool ended_early = false;  // "Premature end of JPEG file"
    bool cmyk = false;         // decoding CMYK or YCCK, converted after
};

JpegError& error_of(j_common_ptr cinfo) {
    return *reinterpret_cast<JpegError*>(cinfo->err);
}

std::string message_of(j_common_ptr cinfo) {
    char text[JMSG_LENGTH_MAX] = {};
    (*cinfo->err->format_message)(cinfo, text);
    return text;
}

void on_error(j_common_ptr cinfo) {
    error_of(cinfo).error = message_of(cinfo);
    error_of(cinfo).code = cinfo->err->msg_code;
    std::longjmp(error_of(cinfo).jump, 1);
}

void on_message(j_common_ptr cinfo, const int level) {
    if (level >= 0) return;  // trace messages
    JpegError& e = error_of(cinfo);
    if (cinfo->err->msg_code == JWRN_JPEG_EOF) e.ended_early = true;
    if (e.warning.empty()) e.warning = message_of(cinfo);
}

void on_progress(j_common_ptr cinfo) {
    if (cinfo->is_decompressor == 0) return;
    const auto* d = reinterpret_cast<j_decompress_ptr>(cinfo);
    if (d->input_scan_number > kMaxScans) {
        error_of(cinfo).error = "more than " + std::to_string(kMaxScans) + " progressive scans";
        std::longjmp(error_of(cinfo).jump, 1);
    }
}

JpegError& install(jpeg_error_mgr*& err, JpegError& e) {
    err = jpeg_std_error(&e.mgr);
    e.mgr.error_exit = on_error;
    e.mgr.emit_message = on_message;
    return e;
}

// One byte of the colour, as Pillow's cmyk2rgb computes it (libImaging/Convert.c): the ink
// darkens the paper left by K, rounded as its MULDIV255.
std::uint8_t cmyk_channel(const int ink, const int not_black) {
    const int t = ink * not_black + 128;
    return static_cast<std::uint8_t>(std::clamp(not_black - (((t >> 8) + t) >> 8), 0, 255));
}

// One row of CMYK as libjpeg gives it → B, G, R (3 bytes a pixel) or R, G, B, A (4). libjpeg
// gives CMYK as stored; Adobe's files (Photoshop, Pillow) store it inverted and say so with
// their APP14 marker, as Pillow and OpenCV read them.
void cmyk_row(const std::uint8_t* in, const int width, const bool inverted, const bool rgba,
              std::uint8_t* out) {
    for (int x = 0; x < width; ++x, in += 4) {
        const auto ink = [&](const int k) { return inverted ? 255 - in[k] : in[k]; };
        const int not_black = 255 - ink(3);
        const std::uint8_t r = cmyk_channel(ink(0), not_black);
        const std::uint8_t g = cmyk_channel(ink(1), not_black);
        const std::uint8_t b = cmyk_channel(ink(2), not_black);
        if (rgba) {
            out[0] = r, out[1] = g, out[2] = b, out[3] = 255;
            out += 4;
        } else {
            out[0] = b, out[1] = g, out[2] = r;
            out += 3;
        }
    }
}

// The decoder's output: as stored (grey one channel, colour and CMYK as B, G, R) or R, G, B, A.
enum class Layout { Stored, Rgba };

// Decodes `bytes` row by row into the rows `sink` gives (begin: stored size and the channels of
// a row). Every row goes straight from libjpeg into its destination; CMYK through one row of
// scratch. libjpeg's error_exit longjmps back here, so everything with a destructor is made
// before setjmp.
struct RowSink {
    std::function<void(int width, int height, int channels, bool grey)> begin;
    std::function<std::uint8_t*(int y)> row;
    std::function<void(int y)> done;  // may be empty
};

// The rows of a started decompression into the sink's (see decode_rows).
void read_rows(jpeg_decompress_struct& cinfo, const JpegError& error, const int channels,
               const RowSink& sink, std::vector<std::uint8_t>& cmyk) {
    const int width = static_cast<int>(cinfo.output_width);
    const bool inverted = cinfo.saw_Adobe_marker != 0;
    sink.begin(width, static_cast<int>(cinfo.output_height), channels,
               cinfo.jpeg_color_space == JCS_GRAYSCALE);
    if (error.cmyk) cmyk.resize(static_cast<std::size_t>(width) * 4);
    while (cinfo.output_scanline < cinfo.output_height) {
        std::uint8_t* out = sink.row(static_cast<int>(cinfo.output_scanline));
        JSAMPROW row = error.cmyk ? cmyk.data() : out;
        jpeg_read_scanlines(&cinfo, &row, 1);
        if (error.cmyk) cmyk_row(cmyk.data(), width, inverted, channels == 4, out);
        if (sink.done) sink.done(static_cast<int>(cinfo.output_scanline) - 1);
    }
}

void decode_rows(const std::vector<std::uint8_t>& bytes, const std::string_view name,
                 std::vector<std::string>& notices, const Layout layout, const RowSink& sink) {
    jpeg_decompress_struct cinfo{};
    JpegError error;
    install(cinfo.err, error);
    jpeg_progress_mgr progress{};
    progress.progress_monitor = on_progress;
    std::vector<std::uint8_t> cmyk;  // one row of CMYK, converted into the destination row
    if (setjmp(error.jump) != 0) {
        jpeg_destroy_decompress(&cinfo);
        if (error.ended_early)
            fail_read(ErrorCode::Truncated, name,
                      "the JPEG file is truncated (it ends before its image data does)");
        // Valid files of a kind this libjpeg-turbo (2.1: 8-bit lossy only) does not decode:
        // named as such, not as damage.
        if (error.code == JERR_BAD_PRECISION || error.code == JERR_SOF_UNSUPPORTED)
            fail_read(ErrorCode::UnsupportedFormat, name,
                      "this kind of JPEG is not supported (libjpeg says \"" + error.error +
                          "\"; 12-bit and lossless JPEG are not decoded)");
        fail_read(ErrorCode::Corrupt, name,
                  "the file is corrupt or not decodable (libjpeg says \"" + error.error + "\")");
    }
    jpeg_create_decompress(&cinfo);
    cinfo.progress = &progress;
    jpeg_mem_src(&cinfo, bytes.data(), static_cast<unsigned long>(bytes.size()));
    jpeg_read_header(&cinfo, TRUE);
    if (cinfo.image_width > static_cast<JDIMENSION>(kMaxImageSide) ||
        cinfo.image_height > static_cast<JDIMENSION>(kMaxImageSide)) {
        error.error =
            "the frame is larger than " + std::to_string(kMaxImageSide) + " pixels a side";
        std::longjmp(error.jump, 1);
    }
    const bool rgba = layout == Layout::Rgba;
    int channels = rgba ? 4 : 3;
    switch (cinfo.jpeg_color_space) {
        case JCS_GRAYSCALE:
            // A grey JPEG stays one channel as stored; libjpeg spreads it over R, G, B itself.
            cinfo.out_color_space = rgba ? JCS_EXT_RGBA : JCS_GRAYSCALE;
            channels = rgba ? 4 : 1;
            break;
        case JCS_CMYK:
        case JCS_YCCK:
            cinfo.out_color_space = JCS_CMYK;
            error.cmyk = true;
            break;
        default:
            cinfo.out_color_space = rgba ? JCS_EXT_RGBA : JCS_EXT_BGR;
            break;
    }
    jpeg_start_decompress(&cinfo);
    try {
        read_rows(cinfo, error, rgba ? 4 : channels, sink, cmyk);
    } catch (...) {  // the sink's own failure (memory, a refused row): libjpeg's state freed
        jpeg_destroy_decompress(&cinfo);
        throw;
    }
    // libjpeg fills the rest of a cut file with grey and only warns; a progressive file, whose
    // scans each cover the whole picture, passes the header probe's checks: refused here like
    // every cut file (Pillow refuses it too: "image file is truncated").
    if (error.ended_early) std::longjmp(error.jump, 1);
    jpeg_finish_decompress(&cinfo);
    if (error.ended_early) std::longjmp(error.jump, 1);
    jpeg_destroy_decompress(&cinfo);
    if (!error.warning.empty()) notices.push_back("the decoder warned: " + error.warning);
}

}  // namespace

cv::Mat decode_jpeg(const std::vector<std::uint8_t>& bytes, const std::string_view name,
                    std::vector<std::string>& notices) {
    cv::Mat decoded;
    decode_rows(bytes, name, notices, Layout::Stored,
                {[&](const int width, const int height, const int channels, bool) {
                     decoded.create(height, width, CV_8UC(channels));
                 },
                 [&](const int y) { return decoded.ptr(y); },
                 {}});
    return decoded;
}

void decode_jpeg_rgba(const std::vector<std::uint8_t>& bytes, const std::string_view name,
                      std::vector<std::string>& notices, const JpegRgbaSink& sink) {
    decode_rows(bytes, name, notices, Layout::Rgba,
                {[&](const int width, const int height, int, const bool grey) {
                     sink.begin(width, height, grey);
                 },
                 sink.row, sink.done});
}

std::vector<std::uint8_t> encode_jpeg(const cv::Mat& pixels, const int quality) {
    jpeg_compress_struct cinfo{};
    JpegError error;
    install(cinfo.err, error);
    unsigned char* buffer = nullptr;
    unsigned long size = 0;
    if (setjmp(error.jump) != 0) {
        jpeg_destroy_compress(&cinfo);
        std::free(buffer);
        throw Error(ErrorCode::WriteFailed, "cannot encode JPEG: " + error.error);
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, &buffer, &size);
    cinfo.image_width = static_cast<JDIMENSION>(pixels.cols);
    cinfo.image_height = static_cast<JDIMENSION>(pixels.rows);
    const bool grey = pixels.channels() == 1;
    cinfo.input_components = grey ? 1 : 3;
    cinfo.in_color_space = grey ? JCS_GRAYSCALE : JCS_EXT_BGR;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, std::clamp(quality, 1, 100), TRUE);
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        auto row = const_cast<JSAMPROW>(pixels.ptr(static_cast<int>(cinfo.next_scanline)));
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    std::vector<std::uint8_t> out(buffer, buffer + size);
    std::free(buffer);
    return out;
}

}  // namespace lacuna::io::detail
