// lacuna bench inpaint: our fillers (reference, fast CPU, CUDA), OpenCV's Telea and, when
// installed, G'MIC's patch inpainting, on the same inputs in one run: speed and fill quality.
//
// Cases: the seed's size (512×384, a 76×128 hole, full search), a 1920×1080 photo with a 300×200
// hole, holes cut in textured regions where the truth is known (foliage, wall, sky, fabric,
// grass), and real objects removed with hand-drawn masks (no truth; measured against a ring).
#include "bench_util.hpp"
#include "commands.hpp"
#include "options.hpp"
#include "timing.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/core/parallel.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/ops/inpaint.hpp>
#include <lacuna/ops/inpaint_quality.hpp>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/photo.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

namespace lacuna::cli {
namespace {

namespace fs = std::filesystem;

struct Ellipse {
    int cx, cy, rx, ry;
};

struct BenchCase {
    std::string name;
    std::string file;
    int width = 0;  ///< resize to this first (0: keep)
    int height = 0;
    bool has_truth = true;  ///< a hole cut in a photo: the photo is the truth
    std::vector<Ellipse> ellipses;
    std::vector<std::vector<cv::Point>> polygons;
    std::optional<ops::InpaintSearch> search;  ///< forced for our fillers (the seed's full search)
};

std::vector<BenchCase> bench_cases() {
    return {
        {"seed 512x384 76x128 full",
         "home.jpg",
         0,
         0,
         true,
         {{256, 220, 38, 64}},
         {},
         ops::InpaintSearch::Full},
        {"seed 512x384 76x128", "home.jpg", 0, 0, true, {{256, 220, 38, 64}}, {}, {}},
        {"1920x1080 300x200", "building.jpg", 1920, 1080, true, {{980, 470, 150, 100}}, {}, {}},
        {"foliage", "building.jpg", 0, 0, true, {{120, 425, 28, 22}}, {}, {}},
        {"wall", "building.jpg", 0, 0, true, {{330, 250, 30, 22}}, {}, {}},
        {"sky", "home.jpg", 0, 0, true, {{90, 330, 28, 22}}, {}, {}},
        {"sky next to a tree", "building.jpg", 0, 0, true, {{75, 262, 26, 26}}, {}, {}},
        {"fabric", "messi5.jpg", 0, 0, true, {{240, 190, 20, 16}}, {}, {}},
        {"grass", "messi5.jpg", 0, 0, true, {{150, 305, 40, 18}}, {}, {}},
        {"object: fruits pith", "fruits.jpg", 0, 0, false, {{262, 262, 42, 58}}, {}, {}},
        {"object: building sign",
         "building.jpg",
         0,
         0,
         false,
         {{76, 491, 15, 15}},
         {{{71, 491}, {82, 491}, {82, 527}, {71, 527}}},
         {}},
        {"object: messi ball", "messi5.jpg", 0, 0, false, {{362, 312, 28, 27}}, {}, {}},
    };
}

Mask draw_mask(const BenchCase& c, const int w, const int h) {
    cv::Mat m(h, w, CV_8UC1, cv::Scalar(0));
    for (const Ellipse& e : c.ellipses)
        cv::ellipse(m, cv::Point(e.cx, e.cy), cv::Size(e.rx, e.ry), 0, 0, 360, cv::Scalar(255),
                    cv::FILLED);
    if (!c.polygons.empty()) cv::fillPoly(m, c.polygons, cv::Scalar(255));
    Mask mask(w, h);
    for (int y = 0; y < h; ++y) std::copy_n(m.ptr<std::uint8_t>(y), w, mask.row(y));
    return mask;
}

ImageRgba8 telea(const ImageRgba8& image, const Mask& mask) {
    const cv::Mat rgba = as_mat(image);
    cv::Mat bgr, out_bgr, out_rgba;
    cv::cvtColor(rgba, bgr, cv::COLOR_RGBA2BGR);
    const cv::Mat m(mask.height(), mask.width(), CV_8UC1, const_cast<std::uint8_t*>(mask.row(0)),
                    mask.pitch());
    cv::inpaint(bgr, m, out_bgr, 3, cv::INPAINT_TELEA);
    cv::cvtColor(out_bgr, out_rgba, cv::COLOR_BGR2RGBA);
    return from_mat(out_rgba);
}

struct Method {
    std::string name;
    double ms = -1;  ///< negative: not run
    std::string note;
    std::optional<ImageRgba8> image;
};

std::string format_quality(const double v, const char* format) {
    if (std::isnan(v)) return "-";
    if (std::isinf(v)) return "inf";
    char text[32];
    std::snprintf(text, sizeof text, format, v);
    return text;
}

/// The last number in a text file (G'MIC's echoed timer), if any.
std::optional<double> read_number(const std::string& path) {
    std::ifstream in(path);
    std::optional<double> last;
    std::string word;
    while (in >> word) {
        char* end = nullptr;
        const double value = std::strtod(word.c_str(), &end);
        if (end != word.c_str() && *end == '\0') last = value;
    }
    return last;
}

std::string check_same(const ops::Inpainter& a, const ops::Inpainter& b) {
    if (a.history() != b.history()) return "DIFFERS (patches)";
    const ImageRgba8 ia = a.image(), ib = b.image();
    if (!equal_pixels(ia.view(), ib.view())) return "DIFFERS (pixels)";
    return "identical";
}

}  // namespace

int bench_inpaint(Context& ctx) {
    const fs::path data = ctx.args.get("data").value_or(LACUNA_BENCH_DATA_DIR);
    ops::InpaintParams params;
    if (const auto p = ctx.args.get("patch")) params.patch = parse_int("patch", *p);
    if (const auto s = ctx.args.get("search"))
        if (!ops::parse_inpaint_search(*s, params))
            throw UsageError("--search must be 'full', 'window' or 'window:A'");
    const bool with_reference = ctx.args.has("reference");
    const int repeats = std::max(1, parse_int("repeats", ctx.args.get("repeats").value_or("3")));
    const std::optional<std::string> save = ctx.args.get("save");
    const std::optional<std::string> only = ctx.args.get("case");
    if (save) fs::create_directories(*save);
    const BackendInfo backend = lacuna::select_backend(BackendRequest::Auto);
    const bool cuda = backend.backend == Backend::Cuda;
    const bool gmic = command_exists("gmic");
    const fs::path tmp = make_temp_dir();

    ctx.out << "lacuna bench inpaint: patch " << params.patch << ", search "
            << ops::describe_search(params) << " (the seed case: full); " << backend.describe()
            << "; G'MIC " << (gmic ? "installed" : "not installed") << "; " << worker_count()
            << " CPU threads\n"
            << "Times are wall-clock medians of " << repeats
            << " runs (the reference: one), including\n"
            << "host-device copies for CUDA; G'MIC's time is its own tic/toc around the fill\n"
            << "(10 ms resolution; start-up and PNG reading and writing excluded).\n\n";
    char line[320];
    std::snprintf(line, sizeof line, "%-26s %-9s %7s  %-10s %10s %8s %7s %7s %7s  %s\n", "case",
                  "size", "hole", "method", "time (ms)", "PSNR", "SSIM", "texture", "seam",
                  "check");
    ctx.out << line;
    for (const BenchCase& c : bench_cases()) {
        if (only && c.name.find(*only) == std::string::npos) continue;
        io::LoadedImage loaded = io::read_image(data / c.file);
        const ImageRgba8 truth =
            c.width > 0 ? resized(loaded.image, c.width, c.height) : std::move(loaded.image);
        const int w = truth.width(), h = truth.height();
        const Mask mask = draw_mask(c, w, h);
        ops::InpaintParams ours = params;
        if (c.search) ours.search = *c.search;
        const auto run = [&](const ops::InpaintImplementation implementation,
                             std::unique_ptr<ops::Inpainter>& filler) {
            const int runs = implementation == ops::InpaintImplementation::Reference ? 1 : repeats;
            return median_ms(runs, [&] {
                filler = ops::make_inpainter(truth.view(), mask, ours, implementation);
                while (!filler->progress().done()) filler->advance(1 << 20);
                (void)filler->image();
            });
        };
        std::vector<Method> methods;
        std::unique_ptr<ops::Inpainter> reference, fast, device;
        if (with_reference) {
            Method m;
            m.name = "reference";
            m.ms = run(ops::InpaintImplementation::Reference, reference);
            m.image = reference->image();
            m.note = "-";
            methods.push_back(std::move(m));
        }
        {
            Method m;
            m.name = "fast CPU";
            m.ms = run(ops::InpaintImplementation::Fast, fast);
            m.image = fast->image();
            m.note = reference ? check_same(*reference, *fast) : "-";
            methods.push_back(std::move(m));
        }
        if (cuda) {
            Method m;
            m.name = "CUDA";
            m.ms = run(ops::InpaintImplementation::Cuda, device);
            m.image = device->image();
            m.note = check_same(*fast, *device) + " to fast";
            methods.push_back(std::move(m));
        }
        {
            Method m;
            m.name = "Telea";
            m.ms = median_ms(repeats, [&] { m.image = telea(truth, mask); });
            m.note = "OpenCV cv::inpaint r=3";
            methods.push_back(std::move(m));
        }
        if (gmic) {
            const std::string in = (tmp / "in.png").string(), mk = (tmp / "mask.png").string(),
                              out = (tmp / "gmic.png").string();
            io::write_image(in, truth.view());
            io::write_image(mk, mask_as_image(mask).view());
            // G'MIC times its own fill (tic/toc, 10 ms resolution), so its start-up and PNG
            // reading and writing stay out; the whole command is timed too, for reference.
            const std::string seconds_file = (tmp / "gmic-seconds.txt").string();
            const std::string fill = "gmic -v - " + in + " " + mk +
                                     " tic inpaint[0] [1],7,112,0.1,1,8.4,0,0.05,10,1 toc "
                                     "echo_stdout \\${} rm[1] o " +
                                     out;
            Method m;
            m.name = "G'MIC";
            std::vector<double> fills, totals;
            for (int r = 0; r < repeats; ++r) {
                const auto start = Clock::now();
                const std::string command = fill + " >" + seconds_file + " 2>/dev/null";
                if (std::system(command.c_str()) != 0) break;
                totals.push_back(ms_since(start));
                if (const std::optional<double> seconds = read_number(seconds_file))
                    fills.push_back(*seconds * 1000.0);
            }
            if (!fills.empty() && fills.size() == totals.size()) {
                std::sort(fills.begin(), fills.end());
                std::sort(totals.begin(), totals.end());
                const double total = totals[totals.size() / 2];
                m.ms = fills[fills.size() / 2];
                m.image = io::read_image(out).image;
                char text[96];
                std::snprintf(text, sizeof text, "its tic/toc; %.0f ms with start-up and I/O",
                              total);
                m.note = text;
            } else {
                m.note = "gmic failed";
            }
            methods.push_back(std::move(m));
        }
        const std::string size = std::to_string(w) + "x" + std::to_string(h);
        for (const Method& m : methods) {
            ops::FillQuality q{};
            if (m.image)
                q = ops::measure_fill(m.image->view(), mask, c.has_truth ? &truth : nullptr);
            std::snprintf(line, sizeof line, "%-26s %-9s %7lld  %-10s %10.1f %8s %7s %7s %7s  %s\n",
                          c.name.c_str(), size.c_str(),
                          static_cast<long long>(count_selected(mask.view())), m.name.c_str(), m.ms,
                          format_quality(q.psnr_db, "%.2f").c_str(),
                          format_quality(q.ssim, "%.3f").c_str(),
                          format_quality(q.texture_ratio, "%.2f").c_str(),
                          format_quality(q.seam_score, "%.2f").c_str(), m.note.c_str());
            ctx.out << line;
            if (save && m.image) {
                std::string stem = c.name;
                for (char& ch : stem)
                    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '-';
                std::string method = m.name;
                for (char& ch : method)
                    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '-';
                io::write_image(fs::path(*save) / (stem + "_" + method + ".png"), m.image->view());
                io::write_image(fs::path(*save) / (stem + "_mask.png"), mask_as_image(mask).view());
            }
        }
        ctx.out.flush();
    }
    fs::remove_all(tmp);
    return kExitOk;
}

}  // namespace lacuna::cli
