// Lacuna's readers (PNG, JPEG, TIFF, GIF through libpng, libjpeg-turbo,
// libtiff and giflib directly) side by side with OpenImageIO (Debian libopenimageio-dev, with
// oiio:UnassociatedAlpha set so that it does not premultiply) and with OpenCV's imgcodecs (the
// path Lacuna used before): for each file, whether each opens, whether its samples equal
// Lacuna's (which tests/engine/test_formats.cpp checks against Pillow for tests/data/formats),
// and the median decode time of 5 runs from the file. Built only when OpenImageIO is installed
// (not a package dependency):
//   cmake --build build --target codec_compare
//   build/tests/realfiles/codec_compare tests/data/formats/* resources/sample/fruits.jpg ...
#include "codecs.hpp"
#include "header_probe.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/core/native_image.hpp>
#include <lacuna/io/image_io.hpp>

#include <OpenImageIO/imageio.h>
#include <opencv2/imgcodecs.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double median_ms(const std::function<void()>& run) {
    std::vector<double> ms;
    for (int i = 0; i < 5; ++i) {
        const auto t0 = Clock::now();
        run();
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    return ms[2];
}

// OpenImageIO's first subimage, samples scaled back from its normalised floats to the stored
// integers (8-bit ×255, 16-bit ×65535, signed 16-bit ×32767).
struct OiioImage {
    int width = 0, height = 0, channels = 0;
    std::vector<double> samples;
    std::string error;
};

OiioImage read_oiio(const std::string& path) {
    OiioImage out;
    OIIO::ImageSpec config;
    config.attribute("oiio:UnassociatedAlpha", 1);
    auto in = OIIO::ImageInput::open(path, &config);
    if (!in) {
        out.error = OIIO::geterror();
        return out;
    }
    const OIIO::ImageSpec& spec = in->spec();
    out.width = spec.width;
    out.height = spec.height;
    out.channels = spec.nchannels;
    std::vector<float> px(std::size_t(spec.width) * spec.height * spec.nchannels);
    if (!in->read_image(0, 0, 0, spec.nchannels, OIIO::TypeDesc::FLOAT, px.data())) {
        out.error = in->geterror();
        return out;
    }
    const double scale = spec.format == OIIO::TypeDesc::UINT8    ? 255.0
                         : spec.format == OIIO::TypeDesc::UINT16 ? 65535.0
                         : spec.format == OIIO::TypeDesc::INT16  ? 32767.0
                                                                 : 1.0;
    for (const float v : px) out.samples.push_back(scale == 1.0 ? v : std::round(v * scale));
    return out;
}

// Largest difference between OpenImageIO's samples and Lacuna's page 1; grey(+alpha) in
// OpenImageIO is spread over Lacuna's R, G, B(, A).
double max_difference(const OiioImage& o, const lacuna::NativeImage& l) {
    if (o.width != l.width() || o.height != l.height()) return INFINITY;
    const bool spread = o.channels < 3 && l.channels() >= 3;
    if (!spread && o.channels != l.channels()) return INFINITY;
    double worst = 0;
    for (int y = 0; y < l.height(); ++y)
        for (int x = 0; x < l.width(); ++x)
            for (int c = 0; c < l.channels(); ++c) {
                const int oc = spread ? (c < 3 ? 0 : 1) : c;
                const double a = o.samples[(std::size_t(y) * o.width + x) * o.channels + oc];
                worst = std::max(worst, std::abs(a - l.sample(x, y, c)));
            }
    return worst;
}

// The same for OpenCV's imread (B, G, R(, A) order, stored depth).
double max_difference(const cv::Mat& m, const lacuna::NativeImage& l) {
    if (m.cols != l.width() || m.rows != l.height()) return INFINITY;
    const int mc = m.channels();
    const bool spread = mc < 3 && l.channels() >= 3;
    if (!spread && mc != l.channels()) return INFINITY;
    cv::Mat d;
    m.convertTo(d, CV_64F);
    double worst = 0;
    for (int y = 0; y < l.height(); ++y)
        for (int x = 0; x < l.width(); ++x)
            for (int c = 0; c < l.channels(); ++c) {
                const int k = spread ? (c < 3 ? 0 : 1) : (c < 3 && mc >= 3 ? 2 - c : c);
                worst = std::max(worst, std::abs(d.ptr<double>(y)[x * mc + k] - l.sample(x, y, c)));
            }
    return worst;
}

std::string verdict(const double d) {
    if (std::isinf(d)) return "other shape";
    return d == 0 ? "same values" : "differs by " + std::to_string(int(std::ceil(d)));
}

// The codec call alone (codecs.hpp), from bytes in memory: what the library costs, without
// reading the file, the metadata, turning upright and converting to Lacuna's sample layout.
double codec_ms(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                          std::istreambuf_iterator<char>());
    namespace d = lacuna::io::detail;
    const auto format = d::probe_header(bytes).format;
    if (!format) return NAN;
    std::vector<std::string> notices;
    std::function<void()> run;
    switch (*format) {
        case lacuna::io::ImageFormat::Png:
            run = [&] { (void)d::decode_png(bytes, path, notices); };
            break;
        case lacuna::io::ImageFormat::Jpeg:
            run = [&] { (void)d::decode_jpeg(bytes, path, notices); };
            break;
        case lacuna::io::ImageFormat::Tiff:
            run = [&] { (void)d::decode_tiff(bytes, path, false, notices); };
            break;
        case lacuna::io::ImageFormat::Webp:
            run = [&] { (void)d::decode_webp(bytes, path); };
            break;
        case lacuna::io::ImageFormat::Gif:
            run = [&] { (void)d::decode_gif(bytes, path, false, notices); };
            break;
        default:
            return NAN;
    }
    try {
        return median_ms(run);
    } catch (const lacuna::Error&) {
        return NAN;
    }
}

}  // namespace

int main(int argc, char** argv) {
    std::printf("%-26s %-22s %9s %9s  %-18s %9s  %-18s %9s\n", "file", "Lacuna", "ms", "codec ms",
                "OpenImageIO", "ms", "OpenCV", "ms");
    for (int i = 1; i < argc; ++i) {
        const std::string path = argv[i];
        std::string lacuna = "opens";
        lacuna::NativeImage page;
        double lacuna_ms = NAN, oiio_ms = NAN, opencv_ms = NAN;
        try {
            page = lacuna::io::read_native(path).pages.at(0);
            lacuna_ms = median_ms([&] { (void)lacuna::io::read_native(path); });
            lacuna = std::to_string(page.width()) + "x" + std::to_string(page.height()) + "x" +
                     std::to_string(page.channels()) + " " +
                     std::string(lacuna::to_string(page.sample_type()));
        } catch (const lacuna::Error& e) {
            lacuna = std::string("refused (") + lacuna::to_string(e.code()).data() + ")";
        }
        std::string oiio;
        const OiioImage o = read_oiio(path);
        if (!o.error.empty()) {
            oiio = "fails";
        } else {
            oiio_ms = median_ms([&] { (void)read_oiio(path); });
            if (page.empty()) {
                oiio = "opens";
            } else {
                oiio = verdict(max_difference(o, page));
            }
        }
        const cv::Mat m = cv::imread(path, cv::IMREAD_UNCHANGED);
        const std::string opencv = m.empty()      ? "fails"
                                   : page.empty() ? "opens"
                                                  : verdict(max_difference(m, page));
        if (!m.empty())
            opencv_ms = median_ms([&] { (void)cv::imread(path, cv::IMREAD_UNCHANGED); });
        const std::string file = path.substr(path.find_last_of('/') + 1);
        std::printf("%-26s %-22s %9.2f %9.2f  %-18s %9.2f  %-18s %9.2f\n", file.c_str(),
                    lacuna.c_str(), lacuna_ms, codec_ms(path), oiio.c_str(), oiio_ms,
                    opencv.c_str(), opencv_ms);
    }
    return 0;
}
