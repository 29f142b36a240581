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

// libjpeg gives CMYK as stored; Adobe's files (Photoshop, Pillow) store it inverted and say so
// with their APP14 marker, as Pillow and OpenCV read them.
cv::Mat cmyk_to_bgr(const cv::Mat& cmyk, const bool inverted) {
    cv::Mat out(cmyk.rows, cmyk.cols, CV_8UC3);
    for (int y = 0; y < cmyk.rows; ++y) {
        const std::uint8_t* in = cmyk.ptr<std::uint8_t>(y);
        std::uint8_t* o = out.ptr<std::uint8_t>(y);
        for (int x = 0; x < cmyk.cols; ++x, in += 4, o += 3) {
            const auto ink = [&](const int k) { return inverted ? 255 - in[k] : in[k]; };
            const int not_black = 255 - ink(3);
            o[0] = cmyk_channel(ink(2), not_black);
            o[1] = cmyk_channel(ink(1), not_black);
            o[2] = cmyk_channel(ink(0), not_black);
        }
    }
    return out;
}

}  // namespace

cv::Mat decode_jpeg(const std::vector<std::uint8_t>& bytes, const std::string_view name,
                    std::vector<std::string>& notices) {
    jpeg_decompress_struct cinfo{};
    JpegError error;
    install(cinfo.err, error);
    jpeg_progress_mgr progress{};
    progress.progress_monitor = on_progress;
    cv::Mat decoded;
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
    int channels = 3;
    switch (cinfo.jpeg_color_space) {
        case JCS_GRAYSCALE:
            cinfo.out_color_space = JCS_GRAYSCALE;  // a grey JPEG stays one channel
            channels = 1;
            break;
        case JCS_CMYK:
        case JCS_YCCK:
            cinfo.out_color_space = JCS_CMYK;
            channels = 4;
            error.cmyk = true;
            break;
        default:
            cinfo.out_color_space = JCS_EXT_BGR;
            break;
    }
    jpeg_start_decompress(&cinfo);
    decoded.create(static_cast<int>(cinfo.output_height), static_cast<int>(cinfo.output_width),
                   CV_8UC(channels));
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = decoded.ptr(static_cast<int>(cinfo.output_scanline));
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    // libjpeg fills the rest of a cut file with grey and only warns; a progressive file, whose
    // scans each cover the whole picture, passes the header probe's checks: refused here like
    // every cut file (Pillow refuses it too: "image file is truncated").
    if (error.ended_early) std::longjmp(error.jump, 1);
    jpeg_finish_decompress(&cinfo);
    if (error.ended_early) std::longjmp(error.jump, 1);
    const bool inverted = cinfo.saw_Adobe_marker != 0;
    jpeg_destroy_decompress(&cinfo);
    if (!error.warning.empty()) notices.push_back("the decoder warned: " + error.warning);
    return error.cmyk ? cmyk_to_bgr(decoded, inverted) : decoded;
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
