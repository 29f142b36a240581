// lacuna bench bilateral: the bilateral filter's implementations side by side on the same input —
// the reference (with --reference), the fast CPU filter, OpenCV's bilateralFilter (plain cases)
// or ximgproc's jointBilateralFilter (guided cases), and CUDA (device-resident, and host in/out)
// — each compared with the fast CPU filter (CUDA must be identical; OpenCV within a level).
#include "bench_util.hpp"
#include "commands.hpp"
#include "json.hpp"
#include "options.hpp"
#include "timing.hpp"

#include <lacuna/core/backend.hpp>
#include <lacuna/core/device_image.hpp>
#include <lacuna/core/parallel.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/io/opencv_plugin.hpp>
#include <lacuna/ops/bilateral.hpp>

#include <opencv2/imgproc.hpp>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>

namespace lacuna::cli {
namespace {

struct FilterCase {
    std::string name;
    int width = 0, height = 0;
    ops::BilateralParams params;
    bool guided = false;
};

struct FilterRow {
    std::string bench_case, implementation;
    double ms = 0;
    std::string check;
};

/// "identical", or the largest difference and the share of R, G, B samples that differ.
std::string describe_difference(const ImageRgba8& a, const ImageRgba8& b) {
    long long differing = 0;
    int largest = 0;
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x) {
            const Rgba8 p = a.at(x, y), q = b.at(x, y);
            for (const int d : {std::abs(p.r - q.r), std::abs(p.g - q.g), std::abs(p.b - q.b)}) {
                differing += d != 0;
                largest = std::max(largest, d);
            }
        }
    if (differing == 0) return "identical";
    std::ostringstream out;
    out.precision(3);
    out << "max " << largest << " level" << (largest > 1 ? "s" : "") << ", "
        << 100.0 * static_cast<double>(differing) / (3.0 * a.width() * a.height())
        << " % of samples";
    return out.str();
}

cv::Mat bgr(const ImageRgba8& image) {
    cv::Mat out;
    cv::cvtColor(as_mat(image), out, cv::COLOR_RGBA2BGR);
    return out;
}

ImageRgba8 from_bgr(const cv::Mat& m, const ImageRgba8& alpha_from) {
    cv::Mat rgba;
    cv::cvtColor(m, rgba, cv::COLOR_BGR2RGBA);
    ImageRgba8 out = from_mat(rgba);
    for (int y = 0; y < out.height(); ++y)
        for (int x = 0; x < out.width(); ++x) out.at(x, y).a = alpha_from.at(x, y).a;
    return out;
}

/// A depth-like map for the guided cases (Lin et al.'s depth-colour bilateral filter): the photo's
/// luma, coarsely quantised to planes with blocky edges that do not follow the colour edges.
ImageRgba8 depth_like(const ImageRgba8& colour) {
    ImageRgba8 depth(colour.width(), colour.height());
    for (int y = 0; y < colour.height(); ++y)
        for (int x = 0; x < colour.width(); ++x) {
            const Rgba8 c = colour.at((x / 8) * 8, (y / 8) * 8);
            const auto level = static_cast<std::uint8_t>(((c.r * 2 + c.g * 5 + c.b) / 8 / 32) * 32);
            depth.at(x, y) = Rgba8{level, level, level, 255};
        }
    return depth;
}

/// The measurement filter (ops::bilateral_native) on the 1080p photo as exact ×257 16-bit RGB,
/// σr × 257: its time, and how far it lands from 257 × the photo filter's 8-bit result.
void bench_measurement(const ImageRgba8& photo, const int repeats, const bool with_reference,
                       std::vector<FilterRow>& rows) {
    const ImageRgba8 colour = resized(photo, 1920, 1080);
    NativeImage deep(colour.width(), colour.height(), {SampleType::U16, 3});
    for (int y = 0; y < colour.height(); ++y) {
        std::uint16_t* row = deep.samples<std::uint16_t>(y);
        for (int x = 0; x < colour.width(); ++x) {
            const Rgba8 p = colour.at(x, y);
            row[3 * x] = std::uint16_t(257 * p.r);
            row[3 * x + 1] = std::uint16_t(257 * p.g);
            row[3 * x + 2] = std::uint16_t(257 * p.b);
        }
    }
    const ops::BilateralParams photo_params{5.0, 30.0, 7};
    const ops::BilateralParams params{5.0, 30.0 * 257, 7};
    const ImageRgba8 eight = ops::bilateral_fast(colour.view(), {}, photo_params);
    const std::string name = "1080p r7 16-bit RGB (x257)";
    NativeImage fast;
    const double ms = median_ms(repeats, [&] {
        fast = ops::bilateral_native(deep, {}, {}, params, ops::BilateralImplementation::Fast);
    });
    int largest = 0;
    for (int y = 0; y < colour.height(); ++y)
        for (int x = 0; x < colour.width(); ++x) {
            const Rgba8 p = eight.at(x, y);
            const int levels[3] = {p.r, p.g, p.b};
            for (int c = 0; c < 3; ++c)
                largest = std::max(
                    largest,
                    std::abs(int(fast.samples<std::uint16_t>(y)[3 * x + c]) - 257 * levels[c]));
        }
    if (with_reference) {
        NativeImage gold;
        const double gold_ms = time_ms([&] {
            gold = ops::bilateral_native(deep, {}, {}, params,
                                         ops::BilateralImplementation::Reference);
        });
        int off = 0;
        for (int y = 0; y < colour.height(); ++y)
            for (int x = 0; x < 3 * colour.width(); ++x)
                off = std::max(off, std::abs(int(gold.samples<std::uint16_t>(y)[x]) -
                                             int(fast.samples<std::uint16_t>(y)[x])));
        rows.push_back({name, "cpu reference, stored samples", gold_ms,
                        "fast within " + std::to_string(off) + " of it"});
    }
    rows.push_back({name,
                    "cpu fast, stored samples (" + std::to_string(worker_count()) + " threads)", ms,
                    "max " + std::to_string(largest) + " from 257 x the 8-bit result"});
}

}  // namespace

int bench_bilateral(Context& ctx) {
    const std::string path = ctx.args.get("image").value_or(
        std::filesystem::path(LACUNA_BENCH_DATA_DIR) / "building.jpg");
    const int repeats = parse_int("repeats", ctx.args.get("repeats").value_or("5"));
    const int gpu_repeats = std::max(repeats, 51);
    const bool with_reference = ctx.args.has("reference");
    const io::LoadedImage loaded = io::read_image(path);
    const BackendInfo backend = lacuna::select_backend(
        ctx.backend == BackendRequest::Cpu ? BackendRequest::Cpu : BackendRequest::Auto);

    std::vector<FilterCase> cases = {
        {"seed DCBF 800x600 r5 guided", 800, 600, {3.0, 20.0, 5}, true},
        {"1080p r7", 1920, 1080, {5.0, 30.0, 7}, false},
        {"1080p r7 guided", 1920, 1080, {5.0, 30.0, 7}, true},
        {"1080p r15", 1920, 1080, {10.0, 30.0, 15}, false},
    };
    if (const auto size = ctx.args.get("size")) {  // one case of the given size instead
        const auto [w, h] = parse_size("size", *size);
        const int radius = parse_int("radius", ctx.args.get("radius").value_or("7"));
        cases = {{std::to_string(w) + "x" + std::to_string(h) + " r" + std::to_string(radius),
                  w,
                  h,
                  {radius / 1.5, 30.0, radius},
                  ctx.args.has("guide")}};
    }

    std::vector<FilterRow> rows;
    for (const FilterCase& c : cases) {
        const ImageRgba8 colour = resized(loaded.image, c.width, c.height);
        const ImageRgba8 image = c.guided ? depth_like(colour) : colour;
        const ImageView<const Rgba8> guide = c.guided ? colour.view() : ImageView<const Rgba8>{};
        ImageRgba8 fast;
        const double fast_ms =
            median_ms(repeats, [&] { fast = ops::bilateral_fast(image.view(), guide, c.params); });
        if (with_reference) {
            ImageRgba8 gold;
            const double ms =
                time_ms([&] { gold = ops::bilateral_reference(image.view(), guide, c.params); });
            rows.push_back({c.name, "cpu reference (1 thread)", ms, "-"});
            rows.push_back(
                {c.name, "cpu fast vs reference", fast_ms, describe_difference(gold, fast)});
        }
        rows.push_back({c.name, "cpu fast (" + std::to_string(worker_count()) + " threads)",
                        fast_ms, with_reference ? "see above" : "-"});

        const cv::Mat src_bgr = bgr(image), guide_bgr = bgr(colour);
        const int diameter = 2 * ops::bilateral_radius(c.params) + 1;
        cv::Mat peer;
        if (!c.guided) {
            const double ms = median_ms(repeats, [&] {
                cv::bilateralFilter(src_bgr, peer, diameter, c.params.sigma_range,
                                    c.params.sigma_space, cv::BORDER_REFLECT_101);
            });
            rows.push_back({c.name, "opencv bilateralFilter", ms,
                            describe_difference(fast, from_bgr(peer, image))});
        } else {
            if (const io::OpenCvPlugin& opencv = io::opencv_plugin(); opencv.has_ximgproc()) {
                const double ms = median_ms(repeats, [&] {
                    opencv.joint_bilateral_filter(guide_bgr, src_bgr, peer, diameter,
                                                  c.params.sigma_range, c.params.sigma_space,
                                                  cv::BORDER_REFLECT_101);
                });
                rows.push_back({c.name, "opencv ximgproc jointBilateral", ms,
                                describe_difference(fast, from_bgr(peer, image))});
            } else {
                rows.push_back({c.name, "opencv ximgproc jointBilateral", 0,
                                "not built (libopencv-contrib-dev)"});
            }
        }

        if (backend.backend == Backend::Cuda) {
            OwnedStream stream;
            ops::CudaBilateral filter(stream.get());
            const DeviceImage<Rgba8> src(image.view(), stream.get());
            std::optional<DeviceImage<Rgba8>> device_guide;
            if (c.guided) device_guide.emplace(colour.view(), stream.get());
            DeviceImage<Rgba8> dst(c.width, c.height, stream.get());
            const DeviceImage<Rgba8>* g = device_guide ? &*device_guide : nullptr;
            filter.run(src, g, dst, c.params);  // warm-up: tables, first launch
            stream.synchronize();
            const double device_ms = median_ms(gpu_repeats, [&] {
                filter.run(src, g, dst, c.params);
                stream.synchronize();
            });
            const std::string check = describe_difference(fast, dst.download());
            rows.push_back({c.name, "cuda, device-resident", device_ms, check});
            ImageRgba8 via_host;
            const double host_ms = median_ms(repeats, [&] {
                via_host = ops::bilateral(image.view(), guide, c.params,
                                          ops::BilateralImplementation::Cuda);
            });
            rows.push_back({c.name, "cuda, host in/out (alloc+copies)", host_ms,
                            describe_difference(fast, via_host)});
        }
    }

    if (!ctx.args.get("size")) bench_measurement(loaded.image, repeats, with_reference, rows);

    if (ctx.json) {
        std::vector<JsonObject> out;
        for (const FilterRow& r : rows)
            out.push_back(JsonObject()
                              .add("case", r.bench_case)
                              .add("implementation", r.implementation)
                              .add("ms", r.ms)
                              .add("check", r.check));
        ctx.out << JsonObject()
                       .add("image", path)
                       .add("backend", backend.describe())
                       .add_raw("results", json_array(out))
                       .str()
                << "\n";
        return kExitOk;
    }
    ctx.out << "lacuna bench bilateral: " << path << "; " << backend.describe() << "; median of "
            << repeats << " runs (CUDA device-resident: " << gpu_repeats
            << "); checks are against the fast CPU filter\n\n";
    char line[320];
    std::snprintf(line, sizeof line, "%-30s %-34s %11s  %s\n", "case", "implementation",
                  "time (ms)", "result");
    ctx.out << line;
    for (const FilterRow& r : rows) {
        std::snprintf(line, sizeof line, "%-30s %-34s %11.3f  %s\n", r.bench_case.c_str(),
                      r.implementation.c_str(), r.ms, r.check.c_str());
        ctx.out << line;
    }
    ctx.out << "\nseed 003 (Table 5, 800x600, 11x11 kernel): CPU Core 2 Duo 1041 ms, GeForce 9800 "
               "GT 14 ms\n";
    return kExitOk;
}

}  // namespace lacuna::cli
