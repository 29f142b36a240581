// lacuna bench scale: speed of every method and implementation side by side (Lin et al.'s QCIF ×7
// case and 1080p → 4K) beside OpenCV's resize, each CUDA result checked against the fast CPU
// path; then quality: photos reduced by 2 and 3 (area average) and enlarged back, PSNR and SSIM
// against the originals for our methods and OpenCV's INTER_CUBIC and INTER_LANCZOS4.
#include "bench_util.hpp"
#include "commands.hpp"
#include "json.hpp"
#include "options.hpp"
#include "timing.hpp"

#include <lacuna/core/backend.hpp>
#include <lacuna/core/device_image.hpp>
#include <lacuna/core/parallel.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/ops/scale.hpp>

#include <opencv2/imgproc.hpp>

#include <cstdio>
#include <filesystem>
#include <map>

namespace lacuna::cli {
namespace {

constexpr ops::ScaleMethod kMethods[] = {ops::ScaleMethod::Nearest, ops::ScaleMethod::Bilinear,
                                         ops::ScaleMethod::Bicubic, ops::ScaleMethod::BSpline};

int opencv_flag(const ops::ScaleMethod m) {
    switch (m) {
        case ops::ScaleMethod::Nearest:
            return cv::INTER_NEAREST_EXACT;
        case ops::ScaleMethod::Bilinear:
            return cv::INTER_LINEAR;
        default:
            return cv::INTER_CUBIC;
    }
}

cv::Mat luma(const ImageRgba8& image) {
    cv::Mat grey, f;
    cv::cvtColor(as_mat(image), grey, cv::COLOR_RGBA2GRAY);
    grey.convertTo(f, CV_64F);
    return f;
}

/// SSIM of the luma (Wang et al. 2004: 11 × 11 Gaussian window, σ 1.5, K1 0.01, K2 0.03).
double ssim(const ImageRgba8& a, const ImageRgba8& b) {
    const cv::Mat x = luma(a), y = luma(b);
    const auto blur = [](const cv::Mat& m) {
        cv::Mat out;
        cv::GaussianBlur(m, out, cv::Size(11, 11), 1.5);
        return out;
    };
    const cv::Mat mx = blur(x), my = blur(y);
    const cv::Mat sxx = blur(x.mul(x)) - mx.mul(mx), syy = blur(y.mul(y)) - my.mul(my),
                  sxy = blur(x.mul(y)) - mx.mul(my);
    const double c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255);
    cv::Mat num = (2 * mx.mul(my) + c1).mul(2 * sxy + c2);
    cv::Mat den = (mx.mul(mx) + my.mul(my) + c1).mul(sxx + syy + c2);
    cv::Mat map;
    cv::divide(num, den, map);
    return cv::mean(map)[0];
}

double psnr(const ImageRgba8& a, const ImageRgba8& b) {
    cv::Mat ca, cb;
    cv::cvtColor(as_mat(a), ca, cv::COLOR_RGBA2RGB);
    cv::cvtColor(as_mat(b), cb, cv::COLOR_RGBA2RGB);
    return cv::PSNR(ca, cb);
}

std::string check(const ImageRgba8& gold, const ImageRgba8& other) {
    return equal_pixels(gold.view(), other.view()) ? "identical" : "DIFFERS";
}

ImageRgba8 opencv_resize(const ImageRgba8& src, const int w, const int h, const int flag) {
    cv::Mat out;
    cv::resize(as_mat(src), out, cv::Size(w, h), 0, 0, flag);
    return from_mat(out);
}

}  // namespace

int bench_scale(Context& ctx) {
    const std::string data = ctx.args.get("data").value_or(LACUNA_BENCH_DATA_DIR);
    const int repeats = parse_int("repeats", ctx.args.get("repeats").value_or("5"));
    const int gpu_repeats = std::max(repeats, 51);
    const BackendInfo backend = lacuna::select_backend(
        ctx.backend == BackendRequest::Cpu ? BackendRequest::Cpu : BackendRequest::Auto);
    const io::LoadedImage photo = io::read_image(std::filesystem::path(data) / "building.jpg");

    struct Case {
        std::string name;
        int sw, sh, w, h;
    };
    const Case cases[] = {{"seed 176x144 -> 1232x1008", 176, 144, 1232, 1008},
                          {"1080p -> 4K", 1920, 1080, 3840, 2160}};
    char line[320];
    ctx.out << "lacuna bench scale: " << backend.describe() << "; median of " << repeats
            << " runs (CUDA device-resident: " << gpu_repeats
            << "); CUDA checked against the fast CPU path\n\n";
    std::snprintf(line, sizeof line, "%-26s %-9s %-32s %11s  %s\n", "case", "method",
                  "implementation", "time (ms)", "result");
    ctx.out << line;
    const auto row = [&](const Case& c, const ops::ScaleMethod m, const std::string& impl,
                         const double ms, const std::string& result) {
        std::snprintf(line, sizeof line, "%-26s %-9s %-32s %11.3f  %s\n", c.name.c_str(),
                      std::string(ops::to_string(m)).c_str(), impl.c_str(), ms, result.c_str());
        ctx.out << line << std::flush;
    };
    for (const Case& c : cases) {
        const ImageRgba8 src = resized(photo.image, c.sw, c.sh);
        for (const ops::ScaleMethod m : kMethods) {
            ImageRgba8 fast;
            const double fast_ms =
                median_ms(repeats, [&] { fast = ops::scale_fast(src.view(), c.w, c.h, m); });
            row(c, m, "cpu fast (" + std::to_string(worker_count()) + " threads)", fast_ms, "-");
            if (m != ops::ScaleMethod::BSpline) {
                const double cv_ms =
                    median_ms(repeats, [&] { (void)opencv_resize(src, c.w, c.h, opencv_flag(m)); });
                row(c, m,
                    m == ops::ScaleMethod::Bicubic ? "opencv resize INTER_CUBIC (a=-0.75)"
                                                   : "opencv resize",
                    cv_ms, "(peer)");
            }
            if (backend.backend != Backend::Cuda) continue;
            OwnedStream stream;
            ops::CudaScaler scaler(stream.get());
            const DeviceImage<Rgba8> dsrc(src.view(), stream.get());
            DeviceImage<Rgba8> ddst(c.w, c.h, stream.get());
            scaler.run(dsrc, ddst, c.w, c.h, m);  // warm-up
            stream.synchronize();
            const double device_ms = median_ms(gpu_repeats, [&] {
                scaler.run(dsrc, ddst, c.w, c.h, m);
                stream.synchronize();
            });
            row(c, m, "cuda, device-resident", device_ms, check(fast, ddst.download()));
            ImageRgba8 host;
            const double host_ms = median_ms(repeats, [&] {
                host = ops::scale(src.view(), c.w, c.h, m, ops::ScaleImplementation::Cuda);
            });
            row(c, m, "cuda, host in/out (alloc+copies)", host_ms, check(fast, host));
        }
    }

    // Quality: reduce (area average) and enlarge back; mean over the photos.
    ctx.out << "\nround trip (INTER_AREA down, enlarged back), mean over the photos in " << data
            << ":\n";
    std::snprintf(line, sizeof line, "%-8s %-34s %10s %8s\n", "factor", "method", "PSNR (dB)",
                  "SSIM");
    ctx.out << line;
    std::vector<ImageRgba8> photos;
    for (const auto& entry : std::filesystem::directory_iterator(data))
        if (entry.path().extension() == ".jpg")
            photos.push_back(io::read_image(entry.path()).image);
    for (const int factor : {2, 3}) {
        std::map<std::string, std::pair<double, double>> sums;
        std::vector<std::string> order;
        const auto add = [&](const std::string& name, const ImageRgba8& original,
                             const ImageRgba8& back) {
            if (!sums.count(name)) order.push_back(name);
            sums[name].first += psnr(original, back);
            sums[name].second += ssim(original, back);
        };
        for (const ImageRgba8& full : photos) {
            // Whole multiples of the factor, so the round trip returns to the same grid.
            const int w = full.width() / factor * factor, h = full.height() / factor * factor;
            const ImageRgba8 original = copy_region(full, PixelRect{0, 0, w - 1, h - 1});
            const ImageRgba8 small =
                opencv_resize(original, w / factor, h / factor, cv::INTER_AREA);
            for (const ops::ScaleMethod m : kMethods)
                add(std::string(ops::to_string(m)), original,
                    ops::scale_fast(small.view(), w, h, m));
            add("opencv INTER_CUBIC", original, opencv_resize(small, w, h, cv::INTER_CUBIC));
            add("opencv INTER_LANCZOS4", original, opencv_resize(small, w, h, cv::INTER_LANCZOS4));
        }
        for (const std::string& name : order) {
            std::snprintf(line, sizeof line, "1/%-6d %-34s %10.2f %8.4f\n", factor, name.c_str(),
                          sums[name].first / photos.size(), sums[name].second / photos.size());
            ctx.out << line;
        }
    }
    ctx.out << "\nseed 003 (Table 4): cubic B-spline QCIF x7 to 1232x1008, 5 ms on its GPU\n";
    return kExitOk;
}

}  // namespace lacuna::cli
