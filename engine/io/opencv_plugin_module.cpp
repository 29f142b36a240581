// liblacuna_opencv.so: OpenCV's imgcodecs, videoio and ximgproc, and the audio remux step
// (FFmpeg's libavformat, audio_remux.cpp), behind lacuna::io::OpenCvPlugin (opencv_plugin.hpp
// says why they are a plugin). Nothing here but forwarding.
#include <lacuna/io/opencv_plugin.hpp>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>
#include <opencv2/videoio/registry.hpp>
#if LACUNA_HAVE_XIMGPROC
#include <opencv2/ximgproc/edge_filter.hpp>
#include <opencv2/ximgproc/fast_line_detector.hpp>
#endif

#include <stdexcept>

namespace lacuna::io {
namespace {

class Capture final : public CvCapture {
  public:
    bool open(const std::string& name, const int api) override { return capture_.open(name, api); }
    [[nodiscard]] bool is_opened() const override { return capture_.isOpened(); }
    bool read(cv::Mat& frame) override { return capture_.read(frame); }
    [[nodiscard]] double get(const int property) const override { return capture_.get(property); }
    void release() override { capture_.release(); }

  private:
    cv::VideoCapture capture_;
};

class Writer final : public CvWriter {
  public:
    bool open(const std::string& name, const int api, const int fourcc, const double fps,
              const cv::Size size) override {
        return writer_.open(name, api, fourcc, fps, size);
    }
    [[nodiscard]] bool is_opened() const override { return writer_.isOpened(); }
    void write(const cv::Mat& frame) override { writer_.write(frame); }
    void release() override { writer_.release(); }

  private:
    cv::VideoWriter writer_;
};

class Plugin final : public OpenCvPlugin {
  public:
    [[nodiscard]] cv::Mat imdecode(const cv::Mat& bytes, const int flags) const override {
        return cv::imdecode(bytes, flags);
    }
    [[nodiscard]] cv::Mat imread(const std::string& path, const int flags) const override {
        return cv::imread(path, flags);
    }
    bool imencode(const std::string& extension, const cv::Mat& image,
                  std::vector<std::uint8_t>& bytes, const std::vector<int>& params) const override {
        return cv::imencode(extension, image, bytes, params);
    }
    bool imwrite(const std::string& path, const cv::Mat& image,
                 const std::vector<int>& params) const override {
        return cv::imwrite(path, image, params);
    }
    [[nodiscard]] bool has_video_backend(const int api) const override {
        return cv::videoio_registry::hasBackend(static_cast<cv::VideoCaptureAPIs>(api));
    }
    [[nodiscard]] std::unique_ptr<CvCapture> new_capture() const override {
        return std::make_unique<Capture>();
    }
    [[nodiscard]] std::unique_ptr<CvWriter> new_writer() const override {
        return std::make_unique<Writer>();
    }
    [[nodiscard]] AudioPlan plan_audio(const std::string& source,
                                       const std::string& output) const override {
        return detail::plan_audio_ffmpeg(source, output);
    }
    [[nodiscard]] AudioPlan remux_audio(const AudioRemuxRequest& request) const override {
        return detail::remux_audio_ffmpeg(request);
    }
    [[nodiscard]] bool has_ximgproc() const override { return LACUNA_HAVE_XIMGPROC != 0; }
    [[nodiscard]] std::vector<cv::Vec4f> fast_line_detector(
        const cv::Mat& grey, const int length_threshold, const float distance_threshold,
        const double canny_low, const double canny_high, const int canny_aperture,
        const bool merge) const override {
        std::vector<cv::Vec4f> found;
#if LACUNA_HAVE_XIMGPROC
        cv::ximgproc::createFastLineDetector(length_threshold, distance_threshold, canny_low,
                                             canny_high, canny_aperture, merge)
            ->detect(grey, found);
#else
        (void)grey, (void)length_threshold, (void)distance_threshold, (void)canny_low,
            (void)canny_high, (void)canny_aperture, (void)merge;
        throw std::logic_error("fast_line_detector: the plugin has no ximgproc");
#endif
        return found;
    }
    void joint_bilateral_filter(const cv::Mat& guide, const cv::Mat& src, cv::Mat& dst,
                                const int diameter, const double sigma_colour,
                                const double sigma_space, const int border) const override {
#if LACUNA_HAVE_XIMGPROC
        cv::ximgproc::jointBilateralFilter(guide, src, dst, diameter, sigma_colour, sigma_space,
                                           border);
#else
        (void)guide, (void)src, (void)dst, (void)diameter, (void)sigma_colour, (void)sigma_space,
            (void)border;
        throw std::logic_error("joint_bilateral_filter: the plugin has no ximgproc");
#endif
    }
};

}  // namespace
}  // namespace lacuna::io

/// The plugin's one entry point, found with dlsym.
extern "C" __attribute__((visibility("default"))) const lacuna::io::OpenCvPlugin*
lacuna_opencv_plugin() {
    static const lacuna::io::Plugin plugin;
    return &plugin;
}
