// Helpers shared by the benchmarks: OpenCV views of our images, resizing, temporary folders and
// timing external tools.
#pragma once

#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>

#include <opencv2/core.hpp>

#include <filesystem>
#include <string>

namespace lacuna::cli {

/// A CV_8UC4 header over the image's pixels (no copy).
cv::Mat as_mat(const ImageRgba8& image);
/// Copies a CV_8UC4 matrix.
ImageRgba8 from_mat(const cv::Mat& rgba);
/// Area-averaged down, bicubic up.
ImageRgba8 resized(const ImageRgba8& src, int w, int h);
/// The bundled sample: in the source tree, or where the package installed it.
std::string default_sample_path();
/// The mask as a black and white picture, for tools that read masks from files.
ImageRgba8 mask_as_image(const Mask& mask);
/// Runs a shell command; its wall time in ms, or a negative number if it failed.
double time_command(const std::string& command);
bool command_exists(const std::string& name);
/// A new empty folder under the system's temporary directory.
std::filesystem::path make_temp_dir();

}  // namespace lacuna::cli
