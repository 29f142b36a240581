// The parts of OpenCV that are loaded only when used: imgcodecs (BMP and Netpbm files, PNG
// sequences), videoio (video files) and ximgproc (line detection, a filter peer in the
// benchmarks), and beside them FFmpeg's libavformat for carrying a clip's audio (audio_remux.hpp),
// which videoio loads anyway. Linked directly, these three bring in about 170 more shared libraries
// (GDAL with its databases and formats, GStreamer, FFmpeg's codecs), whose loading and symbol
// binding took most of every process start: 0.14–0.19 s of `lacuna --version` on the GPU machine,
// and more than the CUDA start-up a `lacuna backend` then pays. They live in a small plugin,
// liblacuna_opencv.so, which the first caller loads; a program that never touches them never
// loads them.
//
// The interface is abstract on purpose: the program sees no OpenCV class of those modules, so no
// call can bind to one of their symbols and pull the libraries back in at start-up.
#pragma once

#include <lacuna/io/audio_remux.hpp>

#include <opencv2/core.hpp>

#include <memory>
#include <string>
#include <vector>

namespace lacuna::io {

/// A video or image-sequence reader (cv::VideoCapture inside the plugin).
class CvCapture {
  public:
    virtual ~CvCapture() = default;
    virtual bool open(const std::string& name, int api) = 0;
    [[nodiscard]] virtual bool is_opened() const = 0;
    virtual bool read(cv::Mat& frame) = 0;
    [[nodiscard]] virtual double get(int property) const = 0;
    virtual void release() = 0;
};

/// A video encoder (cv::VideoWriter inside the plugin).
class CvWriter {
  public:
    virtual ~CvWriter() = default;
    virtual bool open(const std::string& name, int api, int fourcc, double fps, cv::Size size) = 0;
    [[nodiscard]] virtual bool is_opened() const = 0;
    virtual void write(const cv::Mat& frame) = 0;
    virtual void release() = 0;
};

/// What the plugin offers. Every member may throw cv::Exception as the OpenCV call it wraps.
class OpenCvPlugin {
  public:
    virtual ~OpenCvPlugin() = default;
    [[nodiscard]] virtual cv::Mat imdecode(const cv::Mat& bytes, int flags) const = 0;
    [[nodiscard]] virtual cv::Mat imread(const std::string& path, int flags) const = 0;
    virtual bool imencode(const std::string& extension, const cv::Mat& image,
                          std::vector<std::uint8_t>& bytes,
                          const std::vector<int>& params) const = 0;
    virtual bool imwrite(const std::string& path, const cv::Mat& image,
                         const std::vector<int>& params) const = 0;

    [[nodiscard]] virtual bool has_video_backend(int api) const = 0;
    [[nodiscard]] virtual std::unique_ptr<CvCapture> new_capture() const = 0;
    [[nodiscard]] virtual std::unique_ptr<CvWriter> new_writer() const = 0;

    /// The audio streams of `source` and what the container of `output` (by its extension) takes
    /// of them: as they are, transcoded to AAC, or not at all. Never throws: failures are in
    /// AudioPlan::error.
    [[nodiscard]] virtual AudioPlan plan_audio(const std::string& source,
                                               const std::string& output) const = 0;
    /// The remux step (audio_remux.hpp). Never throws: failures are in AudioPlan::error.
    [[nodiscard]] virtual AudioPlan remux_audio(const AudioRemuxRequest& request) const = 0;

    /// False when the plugin was built without OpenCV contrib's ximgproc.
    [[nodiscard]] virtual bool has_ximgproc() const = 0;
    /// ximgproc's FastLineDetector on an 8-bit grey image: segments (x0, y0, x1, y1).
    [[nodiscard]] virtual std::vector<cv::Vec4f> fast_line_detector(
        const cv::Mat& grey, int length_threshold, float distance_threshold, double canny_low,
        double canny_high, int canny_aperture, bool merge) const = 0;
    /// ximgproc's jointBilateralFilter.
    virtual void joint_bilateral_filter(const cv::Mat& guide, const cv::Mat& src, cv::Mat& dst,
                                        int diameter, double sigma_colour, double sigma_space,
                                        int border) const = 0;
};

/// The plugin, loaded on the first call (thread-safe). Throws Error(UnsupportedFormat) with a
/// sentence naming where it was looked for when it cannot be found or loaded. LACUNA_PLUGIN_DIR
/// names a folder to look in first.
const OpenCvPlugin& opencv_plugin();

/// True once some caller has loaded the plugin (for the start-up test).
bool opencv_plugin_loaded() noexcept;

}  // namespace lacuna::io
