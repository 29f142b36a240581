// lacuna bench conv3d: Lin et al.'s Table 1 setting (720×560, k = 3…15, k + 3 frames → 4 output
// frames) for the three CUDA algorithms (device time, CUDA events), the fast CPU path and OpenCV's
// filter2D applied per frame and summed over time, side by side, each checked; then 1080p with
// k = 7 per output frame. Frames: a slow pan over a photo's luma (real texture, real motion).
#include "bench_util.hpp"
#include "commands.hpp"
#include "options.hpp"
#include "timing.hpp"

#include <lacuna/core/backend.hpp>
#include <lacuna/core/device_image.hpp>
#include <lacuna/core/parallel.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/ops/conv3d.hpp>

#include <opencv2/imgproc.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

namespace lacuna::cli {
namespace {

/// `frames` frames of w × h: the photo's luma, panned one pixel right per frame.
ops::Volume panned_luma(const ImageRgba8& photo, const int w, const int h, const int frames) {
    const ImageRgba8 big = resized(photo, w + frames, h);
    ops::Volume v(w, h, frames);
    for (int t = 0; t < frames; ++t)
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const Rgba8 p = big.at(x + t, y);
                v.at(x, y, t) = 0.2126f * p.r + 0.7152f * p.g + 0.0722f * p.b;
            }
    return v;
}

ops::Volume opencv_sum(const ops::Volume& in, const ops::Kernel3D& kernel) {
    const int w = in.width, h = in.height, k = kernel.size;
    ops::Volume out(w, h, in.frames - k + 1);
    for (int t = 0; t < out.frames; ++t) {
        cv::Mat sum = cv::Mat::zeros(h, w, CV_32F);
        for (int dt = 0; dt < k; ++dt) {
            const cv::Mat frame(h, w, CV_32F,
                                const_cast<float*>(in.data.data() + std::size_t(t + dt) * w * h));
            const cv::Mat slice(
                k, k, CV_32F, const_cast<float*>(kernel.weights.data() + std::size_t(dt) * k * k));
            cv::Mat filtered;
            cv::filter2D(frame, filtered, CV_32F, slice, cv::Point(-1, -1), 0,
                         cv::BORDER_REFLECT_101);
            sum += filtered;
        }
        std::copy(sum.begin<float>(), sum.end<float>(),
                  out.data.begin() + std::ptrdiff_t(t) * w * h);
    }
    return out;
}

std::string compare(const ops::Volume& gold, const ops::Volume& other) {
    if (gold.data == other.data) return "identical";
    double worst = 0;
    for (std::size_t i = 0; i < gold.data.size(); ++i)
        worst = std::max(worst, double(std::abs(gold.data[i] - other.data[i])));
    char text[64];
    std::snprintf(text, sizeof text, "max diff %.2g", worst);
    return text;
}

// Table 1 of Lin et al., "The parallelization of video processing": Tesla S1070 (one GT200),
// ms for four output frames of 720×560: baseline / shared memory / streaming / hybrid Fourier.
const std::map<int, std::string> kSeedTable1 = {
    {5, "16 / 11 / 4 / 15"},    {7, "44 / 15 / 8 / 17"},   {9, "96 / 48 / 16 / 20"},
    {11, "180 / 77 / 27 / 23"}, {13, "295 / - / 45 / 24"}, {15, "454 / - / 75 / 26"}};

}  // namespace

int bench_conv3d(Context& ctx) {
    const std::string path = ctx.args.get("image").value_or(
        (std::filesystem::path(LACUNA_BENCH_DATA_DIR) / "building.jpg").string());
    const int repeats = parse_int("repeats", ctx.args.get("repeats").value_or("3"));
    const int gpu_repeats = std::max(repeats, 21);
    const ImageRgba8 photo = io::read_image(path).image;
    const BackendInfo backend = lacuna::select_backend(
        ctx.backend == BackendRequest::Cpu ? BackendRequest::Cpu : BackendRequest::Auto);
    const bool cuda = backend.backend == Backend::Cuda;
    ctx.out << "lacuna bench conv3d: " << path << " panned; " << backend.describe()
            << "; CPU median of " << repeats << ", CUDA device time median of " << gpu_repeats
            << "; checks against the fast CPU path\n\n"
            << "720x560, k+3 frames -> 4 output frames (ms for the 4 frames):\n";
    char line[400];
    std::snprintf(line, sizeof line, "%-4s %10s %10s %10s %12s %12s %18s  %-10s %s\n", "k",
                  "baseline", "shared", "streaming", "hybrid fft", "cpu fast", "opencv filter2D",
                  "cuda", "seed S1070 b/s/s/hybrid");
    ctx.out << line;
    for (int k = 3; k <= 15; k += 2) {
        const ops::Volume in = panned_luma(photo, 720, 560, k + 3);
        const ops::Kernel3D kernel = ops::gaussian_kernel(k, k / 4.0, k / 4.0);
        ops::Volume fast;
        const double cpu_ms = median_ms(repeats, [&] { fast = ops::conv3d_fast(in, kernel); });
        ops::Volume peer;
        const double cv_ms = median_ms(repeats, [&] { peer = opencv_sum(in, kernel); });
        double times[4] = {-1, -1, -1, -1};
        double fft_error = -1;
        std::string check = "-";
        if (cuda) {
            OwnedStream stream;
            ops::CudaConv3d conv(stream.get());
            conv.upload(in, kernel);
            check = "identical";
            int a = 0;
            for (const auto algorithm :
                 {ops::Conv3dAlgorithm::Baseline, ops::Conv3dAlgorithm::Shared,
                  ops::Conv3dAlgorithm::Streaming}) {
                times[a++] = conv.time_ms(algorithm, gpu_repeats);
                if (conv.download().data != fast.data) check = "DIFFERS";
            }
            times[3] = conv.time_ms(ops::Conv3dAlgorithm::HybridFft, gpu_repeats);
            const ops::Volume spectral = conv.download();
            fft_error = 0;
            for (std::size_t i = 0; i < fast.data.size(); ++i)
                fft_error = std::max(fft_error, double(std::abs(fast.data[i] - spectral.data[i])));
        }
        const auto it = kSeedTable1.find(k);
        std::snprintf(line, sizeof line,
                      "%-4d %10.3f %10.3f %10.3f %12.3f %12.1f %18.1f  %-10s %s\n", k, times[0],
                      times[1], times[2], times[3], cpu_ms, cv_ms, check.c_str(),
                      it != kSeedTable1.end() ? it->second.c_str() : "-");
        ctx.out << line;
        if (fft_error >= 0) ctx.out << "     (hybrid fft: max difference " << fft_error << ")\n";
        ctx.out << std::flush;
        (void)compare;
    }
    ctx.out << "(opencv vs ours, k = 15: "
            << compare(ops::conv3d_fast(panned_luma(photo, 720, 560, 18),
                                        ops::gaussian_kernel(15, 3.75, 3.75)),
                       opencv_sum(panned_luma(photo, 720, 560, 18),
                                  ops::gaussian_kernel(15, 3.75, 3.75)))
            << ")\n";
    if (cuda) {
        const int outputs = 16, k = 7;
        const ops::Volume in = panned_luma(photo, 1920, 1080, outputs + k - 1);
        const ops::Kernel3D kernel = ops::gaussian_kernel(k, 1.5, 1.5);
        OwnedStream stream;
        ops::CudaConv3d conv(stream.get());
        conv.upload(in, kernel);
        ctx.out << "\n1080p, k = 7, " << outputs << " output frames (ms per output frame):\n";
        for (const auto algorithm :
             {ops::Conv3dAlgorithm::Baseline, ops::Conv3dAlgorithm::Shared,
              ops::Conv3dAlgorithm::Streaming, ops::Conv3dAlgorithm::HybridFft}) {
            const double ms = conv.time_ms(algorithm, gpu_repeats) / outputs;
            std::snprintf(line, sizeof line, "  %-10s %8.3f ms\n", to_string(algorithm).data(), ms);
            ctx.out << line;
        }
        ops::Volume fast;
        const double cpu_ms = median_ms(1, [&] { fast = ops::conv3d_fast(in, kernel); }) / outputs;
        std::snprintf(line, sizeof line, "  %-10s %8.1f ms (%u threads)\n", "cpu fast", cpu_ms,
                      worker_count());
        ctx.out << line;
    }
    ctx.out
        << "\nhybrid fft: Lacuna's own radix-2 FFT in place of the seed's cuFFT (libcufft, 274 MB, "
           "cannot travel\nto the GPU machine); its max difference from the direct sums is "
           "printed under each row.\n";
    return kExitOk;
}

}  // namespace lacuna::cli
