#include "bench_util.hpp"

#include "timing.hpp"

#include <lacuna/core/error.hpp>

#include <opencv2/imgproc.hpp>

#include <cstdlib>
#include <unistd.h>

namespace lacuna::cli {

cv::Mat as_mat(const ImageRgba8& image) {
    return cv::Mat(image.height(), image.width(), CV_8UC4, const_cast<Rgba8*>(image.view().data),
                   image.pitch());
}

ImageRgba8 from_mat(const cv::Mat& rgba) {
    ImageRgba8 image(rgba.cols, rgba.rows);
    for (int y = 0; y < rgba.rows; ++y) std::copy_n(rgba.ptr<Rgba8>(y), rgba.cols, image.row(y));
    return image;
}

ImageRgba8 resized(const ImageRgba8& src, const int w, const int h) {
    cv::Mat out;
    cv::resize(as_mat(src), out, cv::Size(w, h), 0, 0,
               w >= src.width() ? cv::INTER_CUBIC : cv::INTER_AREA);
    return from_mat(out);
}

std::string default_sample_path() {
    const std::string source = LACUNA_SAMPLE_IMAGE_PATH;
    return std::filesystem::exists(source) ? source : std::string(LACUNA_INSTALLED_SAMPLE_PATH);
}

ImageRgba8 mask_as_image(const Mask& mask) {
    ImageRgba8 image(mask.width(), mask.height());
    for (int y = 0; y < mask.height(); ++y)
        for (int x = 0; x < mask.width(); ++x) {
            const std::uint8_t v = mask.at(x, y) != 0 ? 255 : 0;
            image.at(x, y) = Rgba8{v, v, v, 255};
        }
    return image;
}

double time_command(const std::string& command) {
    const auto start = Clock::now();
    const int status = std::system((command + " >/dev/null 2>&1").c_str());
    const double ms = ms_since(start);
    return status == 0 ? ms : -1.0;
}

bool command_exists(const std::string& name) {
    return std::system(("command -v " + name + " >/dev/null 2>&1").c_str()) == 0;
}

std::filesystem::path make_temp_dir() {
    std::string dir_template =
        (std::filesystem::temp_directory_path() / "lacuna-bench-XXXXXX").string();
    if (::mkdtemp(dir_template.data()) == nullptr)
        throw Error(ErrorCode::WriteFailed, "cannot create a temporary folder");
    return dir_template;
}

}  // namespace lacuna::cli
