// lacuna bench: side-by-side timings of every implementation on the same input in one run,
// each checked against the CPU reference. File I/O and preparation are timed separately.
#include "bench_util.hpp"
#include "commands.hpp"
#include "json.hpp"
#include "options.hpp"
#include "timing.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/core/parallel.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/ops/importance.hpp>
#include <lacuna/ops/line_histogram.hpp>
#include <lacuna/ops/params.hpp>
#include <lacuna/ops/seam_carve.hpp>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <tuple>
#include <unistd.h>

namespace lacuna::cli {
namespace {

struct Row {
    std::string bench_case;
    std::string implementation;
    double ms = 0;
    double reference_ms = 0;
    std::string check;  // "identical", "differs: …" or "-" (the reference itself)
};

template <class Result>
bool identical(const Result& a, const Result& b);

template <>
bool identical(const ops::LineHistogram& a, const ops::LineHistogram& b) {
    if (a.positions != b.positions || a.samples_outside != b.samples_outside ||
        a.channels.size() != b.channels.size())
        return false;
    for (std::size_t c = 0; c < a.channels.size(); ++c) {
        if (a.channels[c].counts != b.channels[c].counts ||
            a.channels[c].samples != b.channels[c].samples)
            return false;
        const auto same = [](const std::vector<float>& x, const std::vector<float>& y) {
            return std::equal(x.begin(), x.end(), y.begin(), y.end(),
                              [](float p, float q) { return p == q || (p != p && q != q); });
        };
        // The mean is not compared: the CUDA path sums the band as a tree (tests bound it to 1
        // ulp).
        if (!same(a.channels[c].median, b.channels[c].median) ||
            !same(a.channels[c].min, b.channels[c].min))
            return false;
    }
    return true;
}

template <>
bool identical(const ops::DirectionHistogram& a, const ops::DirectionHistogram& b) {
    return a.positions == b.positions && a.counts == b.counts &&
           a.samples_outside == b.samples_outside;
}

int bench_histogram(Context& ctx) {
    const std::string path = ctx.args.get("image").value_or(default_sample_path());
    // std::tie, not a structured binding: the lambdas below use w and h, and clang before 16
    // (the fuzzing build) cannot capture bindings.
    int w = 0, h = 0;
    std::tie(w, h) = parse_size("size", ctx.args.get("size").value_or("3932x4000"));
    const int repeats = parse_int("repeats", ctx.args.get("repeats").value_or("21"));
    const int band = parse_int("width", ctx.args.get("width").value_or("64"));
    const double angle = parse_number("direction", ctx.args.get("direction").value_or("30"));
    const bool with_reference = !ctx.args.has("no-reference");

    io::LoadedImage loaded;
    const double load_ms = time_ms([&] { loaded = io::read_image(path); });
    ImageRgba8 image;
    const double resize_ms = time_ms([&] { image = resized(loaded.image, w, h); });
    std::unique_ptr<ops::HistogramSource> source;
    const double prepare_ms =
        time_ms([&] { source = std::make_unique<ops::HistogramSource>(image.view()); });
    // The CLI's load of one line from a JPEG at the file's own size (docs/notes/large-images.md):
    // the decode alone (rows into one row of memory) against the decode with the line's
    // luminance plane filled along its band, both through read_photo_rows. -1: not a JPEG.
    double decode_ms = -1, line_load_ms = -1;
    std::vector<Rgba8> row;
    const auto stream = [&](const bool planes) {
        std::optional<ops::PhotoPlanesBuilder> builder;
        return io::read_photo_rows(
                   path, {[&](const int fw, const int fh, const int orientation) {
                              row.resize(static_cast<std::size_t>(fw));
                              if (!planes) return;
                              builder.emplace(fw, fh, orientation,
                                              std::vector{ops::HistogramChannel::Luminance});
                              ops::LineHistogramParams line;
                              line.to = {loaded.image.width() - 1.0, loaded.image.height() - 1.0};
                              line.band_width = band;
                              builder->only_line(line);
                          },
                          [&](int) { return row.data(); },
                          [&](const int y) {
                              if (builder) builder->add_row(y, row.data());
                          }})
            .has_value();
    };
    if (stream(false)) {
        decode_ms = median_ms(3, [&] { (void)stream(false); });
        line_load_ms = median_ms(3, [&] { (void)stream(true); });
    }

    const BackendInfo backend = lacuna::select_backend(
        ctx.backend == BackendRequest::Cpu ? BackendRequest::Cpu : BackendRequest::Auto);
    std::unique_ptr<ops::CudaLineHistogrammer> gpu;
    double upload_ms = 0;
    if (backend.backend == Backend::Cuda)
        upload_ms = time_ms([&] { gpu = std::make_unique<ops::CudaLineHistogrammer>(*source); });

    std::vector<Row> rows;
    const auto add_case = [&](const std::string& name, const auto& params, const auto& reference_fn,
                              const auto& fast_fn, const auto& gpu_fn, const auto& gpu_kernel_fn) {
        using Result = decltype(fast_fn(params));
        Result gold;
        double ref_ms = 0;
        if (with_reference) {
            ref_ms = time_ms([&] { gold = reference_fn(params); });
            rows.push_back({name, "cpu reference (1 thread)", ref_ms, ref_ms, "-"});
        }
        Result fast;
        const double fast_ms = median_ms(repeats, [&] { fast = fast_fn(params); });
        if (!with_reference) gold = fast;
        rows.push_back({name, "cpu fast (" + std::to_string(worker_count()) + " threads)", fast_ms,
                        ref_ms,
                        with_reference ? (identical(gold, fast) ? "identical" : "DIFFERS") : "-"});
        if (gpu) {
            Result on_gpu;
            const double e2e = median_ms(repeats, [&] { on_gpu = gpu_fn(params); });
            const double kernel = gpu_kernel_fn(params);
            const std::string check = identical(gold, on_gpu) ? "identical" : "DIFFERS";
            rows.push_back({name, "cuda kernels (device time)", kernel, ref_ms, check});
            rows.push_back({name, "cuda incl. copy to host", e2e, ref_ms, check});
        }
    };

    ops::DirectionHistogramParams dp;
    dp.angle_degrees = angle;
    dp.sampling = Sampling::Nearest;
    add_case(
        "direction " + std::to_string(static_cast<int>(angle)) + " deg, lum, 256 bins", dp,
        [&](const auto& p) { return ops::direction_histogram_reference(*source, p); },
        [&](const auto& p) { return ops::direction_histogram_fast(*source, p); },
        [&](const auto& p) { return gpu->direction(p); },
        [&](const auto& p) { return gpu->time_direction_kernels(p, repeats); });
    ops::LineHistogramParams thin;
    thin.from = {0.0, 0.0};
    thin.to = {w - 1.0, h - 1.0};
    thin.sampling = Sampling::Bilinear;
    add_case(
        "diagonal line, band 1, bilinear, lum", thin,
        [&](const auto& p) { return ops::line_histogram_reference(*source, p); },
        [&](const auto& p) { return ops::line_histogram_fast(*source, p); },
        [&](const auto& p) { return gpu->line(p); },
        [&](const auto& p) { return gpu->time_line_kernels(p, repeats); });
    ops::LineHistogramParams lp;
    lp.from = {0.0, 0.0};
    lp.to = {w - 1.0, h - 1.0};
    lp.band_width = band;
    lp.sampling = Sampling::Bilinear;
    add_case(
        "diagonal line, band " + std::to_string(band) + ", bilinear, lum", lp,
        [&](const auto& p) { return ops::line_histogram_reference(*source, p); },
        [&](const auto& p) { return ops::line_histogram_fast(*source, p); },
        [&](const auto& p) { return gpu->line(p); },
        [&](const auto& p) { return gpu->time_line_kernels(p, repeats); });

    if (ctx.json) {
        std::vector<JsonObject> out;
        for (const Row& r : rows) {
            out.push_back(
                JsonObject()
                    .add("case", r.bench_case)
                    .add("implementation", r.implementation)
                    .add("ms", r.ms)
                    .add("speedup_vs_reference", r.reference_ms > 0 ? r.reference_ms / r.ms : 0.0)
                    .add("check", r.check));
        }
        ctx.out << JsonObject()
                       .add("image", path)
                       .add("width", w)
                       .add("height", h)
                       .add("backend", backend.describe())
                       .add("load_ms", load_ms)
                       .add("resize_ms", resize_ms)
                       .add("prepare_ms", prepare_ms)
                       .add("upload_ms", upload_ms)
                       .add("file_decode_ms", decode_ms)
                       .add("file_line_load_ms", line_load_ms)
                       .add_raw("results", json_array(out))
                       .str()
                << "\n";
        return kExitOk;
    }
    char line[256];
    ctx.out << "lacuna bench histogram: " << path << " resized to " << w << "x" << h << "; "
            << backend.describe() << "; median of " << repeats << " runs\n";
    std::snprintf(line, sizeof line,
                  "setup: read file %.1f ms, resize %.1f ms, prepare planes %.1f ms, upload to "
                  "device %.1f ms\n\n",
                  load_ms, resize_ms, prepare_ms, upload_ms);
    ctx.out << line;
    if (decode_ms >= 0) {
        std::snprintf(line, sizeof line,
                      "the file at its own size (%dx%d), median of 3: decode alone %.1f ms; "
                      "decode with the diagonal's band-%d luminance plane %.1f ms (%.2fx)\n\n",
                      loaded.image.width(), loaded.image.height(), decode_ms, band, line_load_ms,
                      line_load_ms / decode_ms);
        ctx.out << line;
    }
    std::snprintf(line, sizeof line, "%-38s %-28s %12s %10s  %s\n", "case", "implementation",
                  "time (ms)", "vs ref", "result");
    ctx.out << line;
    for (const Row& r : rows) {
        std::snprintf(line, sizeof line, "%-38s %-28s %12.4f %9.1fx  %s\n", r.bench_case.c_str(),
                      r.implementation.c_str(), r.ms,
                      r.reference_ms > 0 ? r.reference_ms / r.ms : 0.0, r.check.c_str());
        ctx.out << line;
    }
    return kExitOk;
}

int bench_retarget(Context& ctx) {
    const std::string path = ctx.args.get("image").value_or(default_sample_path());
    // std::tie, not structured bindings: lambdas below capture these (clang < 16 cannot).
    int w = 0, h = 0, tw = 0, th = 0;
    std::tie(w, h) = parse_size("size", ctx.args.get("size").value_or("1920x1080"));
    std::tie(tw, th) = parse_size(
        "target", ctx.args.get("target").value_or(std::to_string(w / 2) + "x" + std::to_string(h)));
    // The energy's choices and default are the seam carver's declared parameter.
    const ops::ParamSpec& energy_spec = ops::param(ops::seam_param_specs(), "energy");
    const std::string energy_name =
        ctx.args.get("energy").value_or(ops::format_value(energy_spec, energy_spec.default_value));
    const int energy_choice = parse_choice_param("energy", energy_name, energy_spec);
    const auto energy = ops::parse_seam_energy(
        std::string(energy_spec.choices[static_cast<std::size_t>(energy_choice)]));
    const bool with_reference = ctx.args.has("reference");

    io::LoadedImage loaded;
    const double load_ms = time_ms([&] { loaded = io::read_image(path); });
    const ImageRgba8 image = resized(loaded.image, w, h);
    // Both tools read the same file; ImageMagick's time includes its own decoding and encoding,
    // so a plain `convert IN OUT` is timed too and subtracted for the carve-only figure.
    const std::filesystem::path dir = make_temp_dir();
    const std::string input = (dir / "input.png").string();
    io::write_image(input, image.view());
    ops::RetargetParams params;
    params.width = tw;
    params.height = th;
    params.energy = *energy;
    const int seams = std::abs(w - tw) + std::abs(h - th);

    ops::RetargetResult fast;
    const double fast_ms = time_ms(
        [&] { fast = ops::retarget(image.view(), params, ops::CarveImplementation::Fast); });
    double write_ms =
        time_ms([&] { io::write_image((dir / "lacuna.png").string(), fast.image.view()); });
    double cuda_ms = -1;
    std::string cuda_check = "-";
    ops::CarveProfile profile;
    const BackendInfo backend = lacuna::select_backend(
        ctx.backend == BackendRequest::Cpu ? BackendRequest::Cpu : BackendRequest::Auto);
    if (backend.backend == Backend::Cuda) {
        ops::RetargetResult warm = ops::retarget(
            image.view(), params, ops::CarveImplementation::Cuda);  // context, allocations
        ops::RetargetResult on_gpu;
        cuda_ms = time_ms(
            [&] { on_gpu = ops::retarget(image.view(), params, ops::CarveImplementation::Cuda); });
        cuda_check = equal_pixels<Rgba8>(on_gpu.image.view(), fast.image.view())
                         ? "identical to cpu fast"
                         : "DIFFERS";
        if (th == h && tw < w) {
            const ops::CarveInput in{image.view(), nullptr, nullptr, *energy};
            (void)ops::seam_order_cuda_profiled(in, ops::SeamDirection::Vertical, w - tw, profile);
        }
    }
    double ref_ms = -1;
    std::string ref_check = "-";
    if (with_reference) {
        ops::RetargetResult ref;
        ref_ms = time_ms([&] {
            ref = ops::retarget(image.view(), params, ops::CarveImplementation::Reference);
        });
        ref_check =
            equal_pixels<Rgba8>(ref.image.view(), fast.image.view()) ? "identical" : "DIFFERS";
    }
    // One slider frame: the seam-order map once, then any width is one compaction pass.
    double order_ms = 0, masked_order_ms = 0, frame_ms = 0, gpu_frame_ms = 0, approx_ms = 0;
    double deep_order_ms = 0;
    std::string deep_check;
    // The importance field (a level map alone): plain and with it, alternated.
    double plain_again_ms = 0, importance_order_ms = 0, importance_share = 0;
    double default_order_ms = 0, default_share = 0;  // the default terms: faces only
    std::string importance_terms, importance_layout, importance_check;
    ops::CarveProfile importance_profile;  // CUDA: the importance map's layout and band
    // The fast CPU carver's incremental update on each map: cells recomputed and changed.
    ops::CarveProfile cpu_plain_work, cpu_default_work, cpu_importance_work;
    int approx_factor = 1, approx_count = 0;
    ops::OrderDistance approx_distance;
    if (th == h && tw < w) {
        ops::SeamOrder order;
        const ops::CarveInput in{image.view(), nullptr, nullptr, *energy};
        const auto impl = backend.backend == Backend::Cuda ? ops::CarveImplementation::Cuda
                                                           : ops::CarveImplementation::Fast;
        order_ms = time_ms(
            [&] { order = ops::seam_order(in, ops::SeamDirection::Vertical, w - tw, impl); });
        // With a protect mask (a centred box a third of each side) the carvers use 64-bit
        // costs and mask terms: the editor's case once a brush has touched the masks.
        Mask protect(w, h, 0);
        for (int y = h / 3; y < 2 * h / 3; ++y)
            for (int x = w / 3; x < 2 * w / 3; ++x) protect.at(x, y) = 255;
        const ops::CarveInput masked{image.view(), &protect, nullptr, *energy};
        masked_order_ms = time_ms(
            [&] { (void)ops::seam_order(masked, ops::SeamDirection::Vertical, w - tw, impl); });
        // With an importance field (what `lacuna retarget` and the editor carve with: faces,
        // saliency, lines and skin at their default weights, the unit for the energy): a level map
        // alone, which folds into the 32-bit costs (kMaxFoldedLevelTerm). The goal is at most
        // 1.25 x the plain map; all timed three times, alternated, medians.
        ops::ImportanceParams terms;
        terms.saliency = terms.lines = terms.skin = true;
        ops::ImportanceMap importance;
        importance_terms = "faces, saliency, lines, skin";
        try {
            importance = ops::importance_map(image.view(), terms);
        } catch (const Error&) {
            terms.saliency = terms.lines = false;  // a build without OpenCV contrib's modules
            importance_terms = "faces, skin (no OpenCV contrib)";
            importance = ops::importance_map(image.view(), terms);
        }
        importance_share = static_cast<double>(count_selected(importance.levels.view())) /
                           (static_cast<double>(w) * h);
        ops::CarveInput with_importance = in;
        with_importance.importance = &importance.levels;
        with_importance.importance_unit = ops::importance_unit(*energy);
        importance_layout = level_unit_folds(with_importance.importance_unit)
                                ? "level term folded into 32-bit costs"
                                : "64-bit costs";
        // The default terms (faces only), what a user gets without touching a switch.
        const ops::ImportanceMap default_importance =
            ops::importance_map(image.view(), ops::ImportanceParams{});
        default_share = static_cast<double>(count_selected(default_importance.levels.view())) /
                        (static_cast<double>(w) * h);
        ops::CarveInput with_default = with_importance;
        with_default.importance = &default_importance.levels;
        ops::SeamOrder importance_order;
        std::vector<double> plain_times, importance_times, default_times;
        for (int r = 0; r < 3; ++r) {
            default_times.push_back(time_ms([&] {
                (void)ops::seam_order(with_default, ops::SeamDirection::Vertical, w - tw, impl);
            }));
            plain_times.push_back(time_ms(
                [&] { (void)ops::seam_order(in, ops::SeamDirection::Vertical, w - tw, impl); }));
            importance_times.push_back(time_ms([&] {
                importance_order =
                    ops::seam_order(with_importance, ops::SeamDirection::Vertical, w - tw, impl);
            }));
        }
        std::sort(plain_times.begin(), plain_times.end());
        std::sort(importance_times.begin(), importance_times.end());
        std::sort(default_times.begin(), default_times.end());
        default_order_ms = default_times[1];
        plain_again_ms = plain_times[1];
        importance_order_ms = importance_times[1];
        if (impl == ops::CarveImplementation::Cuda) {
            const ops::SeamOrder cpu =
                ops::seam_order_fast(with_importance, ops::SeamDirection::Vertical, w - tw);
            importance_check =
                equal_pixels<std::int32_t>(cpu.order.view(), importance_order.order.view()) &&
                        cpu.costs == importance_order.costs
                    ? "same seams and costs as cpu fast"
                    : "SEAMS DIFFER from cpu fast";
            // The layout the device took, and the cells its incremental update recomputed per
            // seam: an importance landscape funnels many cheapest paths through the same
            // corridors, so a removal changes more of them than on the plain map.
            (void)ops::seam_order_cuda_profiled(with_importance, ops::SeamDirection::Vertical,
                                                w - tw, importance_profile);
        }
        // The work of the fast CPU carver's update on the three maps (counted, so a proxy for
        // the device's work that a loaded machine does not blur): an importance landscape
        // changes more cumulative costs per removal.
        (void)ops::seam_order_fast_profiled(in, ops::SeamDirection::Vertical, w - tw,
                                            cpu_plain_work);
        (void)ops::seam_order_fast_profiled(with_default, ops::SeamDirection::Vertical, w - tw,
                                            cpu_default_work);
        (void)ops::seam_order_fast_profiled(with_importance, ops::SeamDirection::Vertical, w - tw,
                                            cpu_importance_work);
        // A measurement document's map: the 16-bit decision image (here the exact ×257 copy,
        // which must give the same seams) with 32-bit energies and 64-bit costs.
        Image<Rgba16> deep(w, h);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const Rgba8 p = image.at(x, y);
                deep.at(x, y) = Rgba16{static_cast<std::uint16_t>(257 * p.r),
                                       static_cast<std::uint16_t>(257 * p.g),
                                       static_cast<std::uint16_t>(257 * p.b), 65535};
            }
        const ops::DeepCarveInput deep_in{deep.view(), nullptr, nullptr, *energy};
        ops::SeamOrder deep_order;
        deep_order_ms = time_ms([&] {
            deep_order = ops::seam_order(deep_in, ops::SeamDirection::Vertical, w - tw, impl);
        });
        deep_check = equal_pixels<std::int32_t>(deep_order.order.view(), order.order.view())
                         ? "same seams as the 8-bit map"
                         : "SEAMS DIFFER from the 8-bit map";
        frame_ms = median_ms(
            15, [&] { (void)ops::remove_seams<Rgba8>(image.view(), order, (w - tw) / 2); });
        // The editor's approximate-first preview: the map of a downscaled copy, upsampled.
        approx_factor = ops::approximate_factor(w, h);
        if (approx_factor > 1) {
            const int approx_seams = (w - tw) / approx_factor * approx_factor;
            ops::SeamOrder approx;
            (void)ops::seam_order_approximate(in, ops::SeamDirection::Vertical, approx_seams,
                                              approx_factor, impl);  // warm-up
            approx_ms = median_ms(5, [&] {
                approx = ops::seam_order_approximate(in, ops::SeamDirection::Vertical, approx_seams,
                                                     approx_factor, impl);
            });
            const int half = std::min(approx_seams, (w - tw) / approx_factor * approx_factor);
            approx_distance = ops::order_distance(image.view(), order, approx, half);
            approx_count = half;
            if (const auto dump = ctx.args.get("dump")) {
                io::write_image(*dump + "-exact.png",
                                ops::remove_seams<Rgba8>(image.view(), order, half).view());
                io::write_image(*dump + "-approximate.png",
                                ops::remove_seams<Rgba8>(image.view(), approx, half).view());
            }
        }
        if (backend.backend == Backend::Cuda) {
            gpu_frame_ms = ops::CudaSeamSlider(image.view(), order).time_frame_ms((w - tw) / 2, 51);
        }
    }
    const std::string lqr = "convert '" + input + "' -liquid-rescale " + std::to_string(tw) + "x" +
                            std::to_string(th) + "! '" + (dir / "lqr.png").string() + "'";
    const double lqr_ms = time_command(lqr);
    const double io_ms =
        lqr_ms >= 0 ? time_command("convert '" + input + "' '" + (dir / "copy.png").string() + "'")
                    : -1;
    std::filesystem::remove_all(dir);

    char line[512];
    ctx.out << "device: " << backend.describe() << "\n";
    ctx.out << "lacuna bench retarget: " << path << " resized to " << w << "x" << h << " -> " << tw
            << "x" << th << " (" << seams << " seams, " << energy_name << " energy) on "
            << worker_count() << " CPU threads\n";
    std::snprintf(line, sizeof line,
                  "file I/O: lacuna read %.1f ms (original file), write %.1f ms\n\n", load_ms,
                  write_ms);
    ctx.out << line;
    std::snprintf(line, sizeof line, "%-40s %12s %10s %14s  %s\n", "implementation", "total (ms)",
                  "ms/seam", "vs liblqr", "");
    ctx.out << line;
    const double lqr_carve = lqr_ms >= 0 && io_ms >= 0 ? lqr_ms - io_ms : -1;
    const auto row = [&](const std::string& name, const double ms, const std::string& ratio,
                         const std::string& note) {
        if (ms < 0) return;
        std::snprintf(line, sizeof line, "%-40s %12.1f %10.3f %14s  %s\n", name.c_str(), ms,
                      ms / std::max(seams, 1), ratio.c_str(), note.c_str());
        ctx.out << line;
    };
    const auto ratio = [&](const double ms) {
        if (lqr_carve <= 0 || ms <= 0) return std::string("-");
        char text[32];
        std::snprintf(text, sizeof text, "%.2fx faster", lqr_carve / ms);
        return std::string(text);
    };
    row("lacuna cpu reference (1 thread)", ref_ms, ratio(ref_ms), "");
    row("lacuna cpu fast", fast_ms, ratio(fast_ms),
        with_reference ? ref_check + " to the reference" : "");
    row("lacuna cuda (wall, incl. transfers)", cuda_ms, ratio(cuda_ms), cuda_check);
    if (lqr_ms >= 0) {
        row("ImageMagick -liquid-rescale (liblqr)", lqr_ms, "", "includes its PNG read and write");
        row("  minus a plain convert IN OUT", lqr_carve, "(peer)",
            "liblqr carving only: the ratio's base");
    } else {
        ctx.out << "ImageMagick with liblqr not found: no peer timing\n";
    }
    if (profile.seams > 0) {
        ctx.out << "\ncuda per seam, from a profiled run (stages serialised, CUDA events and SM "
                   "clocks):\n";
        std::snprintf(line, sizeof line,
                      "  cost-map update (energy terms inside) %.4f ms, %.0f cells = %.1f %% of "
                      "the image, %.1f %% of rows outside shared memory\n",
                      profile.update_ms_per_seam, profile.cells_per_seam,
                      100.0 * profile.cells_per_seam / (static_cast<double>(w) * h),
                      100.0 * profile.direct_rows_share);
        ctx.out << line;
        std::snprintf(line, sizeof line,
                      "  argmin + walk back %.4f ms; removal %.4f ms; set-up and first full map "
                      "%.1f ms once; profiled total %.1f ms\n",
                      profile.walk_ms_per_seam, profile.removal_ms_per_seam, profile.setup_ms,
                      profile.total_ms);
        ctx.out << line;
        std::snprintf(line, sizeof line,
                      "  inside the update: rows %.4f ms (register strips %.4f ms), batch "
                      "barriers %.4f ms; stager warps %.4f ms; SM clock %.0f MHz; %d finder "
                      "block(s)\n",
                      profile.rows_ms_per_seam, profile.strips_ms_per_seam,
                      profile.batch_wait_ms_per_seam, profile.stager_ms_per_seam, profile.sm_mhz,
                      profile.finder_blocks);
        ctx.out << line;
    }
    if (frame_ms > 0) {
        std::snprintf(
            line, sizeof line,
            "\nslider: seam-order map for %d seams %.1f ms once (%s); one frame (compaction to "
            "%dx%d): cpu %.3f ms",
            w - tw, order_ms, backend.backend == Backend::Cuda ? "cuda" : "cpu fast",
            w - (w - tw) / 2, h, frame_ms);
        ctx.out << line;
        if (gpu_frame_ms > 0) {
            std::snprintf(line, sizeof line, ", cuda %.4f ms (device time)", gpu_frame_ms);
            ctx.out << line;
        }
        ctx.out << "\n";
        std::snprintf(line, sizeof line,
                      "the same map with a protect mask (centre box, 64-bit costs): %.1f ms\n",
                      masked_order_ms);
        ctx.out << line;
        std::snprintf(line, sizeof line,
                      "the same map with an importance field (%s; %.1f %% of pixels above 0; "
                      "%s): %.1f ms vs %.1f ms without (%.2fx; medians of 3, alternated)%s%s\n",
                      importance_terms.c_str(), 100.0 * importance_share, importance_layout.c_str(),
                      importance_order_ms, plain_again_ms,
                      plain_again_ms > 0 ? importance_order_ms / plain_again_ms : 0.0,
                      importance_check.empty() ? "" : ", ", importance_check.c_str());
        ctx.out << line;
        std::snprintf(line, sizeof line,
                      "  with the default terms (faces; %.1f %% of pixels above 0): %.1f ms "
                      "(%.2fx the plain map)\n",
                      100.0 * default_share, default_order_ms,
                      plain_again_ms > 0 ? default_order_ms / plain_again_ms : 0.0);
        ctx.out << line;
        const auto cells_vs_plain = [&](const ops::CarveProfile& p) {
            return cpu_plain_work.cells_per_seam > 0
                       ? p.cells_per_seam / cpu_plain_work.cells_per_seam
                       : 0.0;
        };
        std::snprintf(line, sizeof line,
                      "  cpu fast update, cells recomputed per seam (of them changed): plain "
                      "%.0f (%.0f); default terms %.0f (%.0f), %.2fx; importance field %.0f "
                      "(%.0f), %.2fx; %d-bit costs%s\n",
                      cpu_plain_work.cells_per_seam, cpu_plain_work.changed_cells_per_seam,
                      cpu_default_work.cells_per_seam, cpu_default_work.changed_cells_per_seam,
                      cells_vs_plain(cpu_default_work), cpu_importance_work.cells_per_seam,
                      cpu_importance_work.changed_cells_per_seam,
                      cells_vs_plain(cpu_importance_work), cpu_importance_work.cost_bits,
                      cpu_importance_work.folded_levels ? ", levels folded" : "");
        ctx.out << line;
        if (importance_profile.seams > 0 && profile.seams > 0) {
            std::snprintf(line, sizeof line,
                          "  cuda with the importance field: %d-bit costs%s; cost-map update "
                          "%.4f ms/seam over %.0f cells (plain: %.4f ms over %.0f), %.1f %% of "
                          "rows outside shared memory, %d finder block(s) (plain: %d)\n",
                          importance_profile.cost_bits,
                          importance_profile.folded_levels ? ", levels folded" : "",
                          importance_profile.update_ms_per_seam, importance_profile.cells_per_seam,
                          profile.update_ms_per_seam, profile.cells_per_seam,
                          100.0 * importance_profile.direct_rows_share,
                          importance_profile.finder_blocks, profile.finder_blocks);
            ctx.out << line;
        }
        std::snprintf(line, sizeof line,
                      "the same map on a 16-bit decision image (measurement documents, the "
                      "image x 257; 32-bit energies, 64-bit costs): %.1f ms, %s\n",
                      deep_order_ms, deep_check.c_str());
        ctx.out << line;
        if (approx_factor > 1) {
            std::snprintf(line, sizeof line,
                          "approximate-first preview: map on the 1/%d-size image, upsampled, "
                          "%.1f ms (%s); at %d seams %.1f %% of the removed pixels differ from "
                          "the exact map's, removed energy %lld vs exact %lld (%.2fx)\n",
                          approx_factor, approx_ms,
                          backend.backend == Backend::Cuda ? "cuda" : "cpu fast", approx_count,
                          100.0 * approx_distance.differing_share,
                          static_cast<long long>(approx_distance.approximate_energy),
                          static_cast<long long>(approx_distance.exact_energy),
                          approx_distance.exact_energy > 0
                              ? static_cast<double>(approx_distance.approximate_energy) /
                                    static_cast<double>(approx_distance.exact_energy)
                              : 0.0);
            ctx.out << line;
        }
    }
    return kExitOk;
}

}  // namespace

Command bench_command() {
    return {
        {"bench",
         "time every implementation side by side on the same input",
         "JOB [options]  (JOB: histogram, retarget, inpaint, video, video-inpaint, batch, "
         "bilateral,\n                 scale, conv3d, kymograph, retarget-quality)",
         {"JOB"},
         1,
         1,
         {{"image", "FILE", "input photo (default: the bundled sample)"},
          {"size", "WxH",
           "resize the photo to this size first (histogram: 3932x4000, the seed's XLarge;\n        "
           "                    retarget: 1920x1080)"},
          {"repeats", "N", "runs per timing; the median is reported (default 21; inpaint: 3)"},
          {"width", "W", "histogram: band width of the line case (default 64)"},
          {"direction", "DEG", "histogram: angle of the direction case (default 30)"},
          {"no-reference", "",
           "histogram: skip the single-threaded reference (slow on large inputs)"},
          {"target", "WxH", "retarget: target size (default: half the width)"},
          {"energy", "E", "retarget: " + param_help(ops::param(ops::seam_param_specs(), "energy"))},
          {"reference", "",
           "retarget, inpaint, bilateral: also time the reference (minutes at 1080p)"},
          {"data", "DIR",
           "inpaint, scale, retarget-quality: folder with the photos (default:\n"
           "                            tests/data/photos; retarget-quality adds opencv-doc's)"},
          {"case", "TEXT",
           "inpaint: only the cases whose name contains TEXT; retarget-quality: only\n"
           "                            the photos whose name contains TEXT (no importance speed "
           "rows)"},
          {"variants", "LIST",
           "retarget-quality: only these rows beside the five methods (auto+sal,\n"
           "                            seams+sal, auto+lines, seams+lines, auto+sal+lines,\n"
           "                            seams+sal+lines, seams+l1, seams+transversal, none;\n"
           "                            default all)"},
          {"ars-pick", "",
           "retarget-quality: also the automatic mix's candidates picked by ARS itself\n"
           "                            (not a method: how much the candidates allow)"},
          {"patch", "P", "inpaint: patch size (default 9)"},
          {"no-peers", "",
           "inpaint: only our fillers (no G'MIC, no Telea, no FSR); video-inpaint: no "
           "per-frame\n                            G'MIC row"},
          {"set", "S",
           "inpaint: all (default), holes (holes cut in photos, generated, real objects) or "
           "objects\n                            (objects pasted on photos, truth known)"},
          {"opencv-data", "DIR",
           "inpaint: OpenCV's sample photos (default: opencv-doc's, "
           "/usr/share/doc/opencv-doc/examples/data)"},
          {"seed", "N", "inpaint: PatchMatch's seed (default 1)"},
          {"choose", "",
           "inpaint: PatchMatch with the per-region choice (Criminisi on small holes)"},
          {"no-choose", "", "inpaint: PatchMatch without the per-region choice"},
          {"refill-foreign", "",
           "inpaint: PatchMatch refills blobs of colours the hole's surroundings lack"},
          {"no-refill-foreign", "", "inpaint: PatchMatch without the foreign-blob refill"},
          {"keep-colours", "",
           "inpaint: PatchMatch's blend keeps to colours the hole's surroundings have"},
          {"no-keep-colours", "", "inpaint: PatchMatch's blend may make any colour"},
          {"peer-runs", "N",
           "inpaint: runs of each G'MIC row, which gives their mean (default: --repeats)"},
          {"choice-scores", "",
           "inpaint: the choice's scores per hole region on stderr (SCORE lines)"},
          {"lines", "",
           "inpaint: PatchMatch continues straight lines across the hole first;\n"
           "                            video: the line term over time (as --saliency)"},
          {"no-lines", "", "inpaint: PatchMatch without the line continuation"},
          {"source-colours", "",
           "inpaint: PatchMatch takes no patches with colours absent around the hole"},
          {"no-source-colours", "", "inpaint: PatchMatch without the colour prior"},
          {"line-angle", "DEG", "inpaint: the line continuation's angle tolerance"},
          {"line-offset", "PX", "inpaint: the line continuation's offset tolerance"},
          {"search", "S", "inpaint: window[:A] or full for our fillers (default window:0.5)"},
          {"save", "DIR",
           "inpaint, retarget-quality: write every method's output there (inpaint: also the "
           "masks,\n"
           "                            a side-by-side sheet per case and, per output and the "
           "truth, "
           "*_foreign.png:\n                            its foreign pixels in magenta; "
           "*_PM-CPU_sources.png: "
           "where\n                            PatchMatch took each hole pixel from; "
           "video-inpaint: a sheet per clip,\n                            with --end-to-end the "
           "clips, masks and outputs)"},
          {"input", "VIDEO", "video: the clip (default: a generated pan and zoom over a photo)"},
          {"frames", "N",
           "video: frames to generate and to carve in memory (default 60); kymograph: frames "
           "(32)"},
          {"photo", "FILE", "video: the photo the generated clip pans over"},
          {"keep-clip", "FILE", "video: also save the generated clip there"},
          param_option(ops::param(ops::video_retarget_param_specs(), "temporal"), "W", "video: "),
          param_option(ops::param(ops::video_retarget_param_specs(), "temporal-term"), "T",
                       "video: "),
          {"cpu-frames", "N", "video: frames the exact CPU carver takes (default 20)"},
          {"chained", "LIST", "video: frames the GPU carves side by side, one row each (16,32)"},
          {"carvers", "LIST", "video: only these rows (name prefixes: cuda wave,cpu ~1/4)"},
          {"no-flicker", "", "video: skip the flicker runs"},
          {"faces", "",
           "video: faces tracked over each shot as importance (CPU rows): the face pass's\n"
           "                            cost, and face width kept and flicker with and without"},
          param_option(ops::param(ops::video_retarget_param_specs(), "face-every"), "K", "video: "),
          {"saliency", "",
           "video: the saliency term over time: per-frame maps against maps smoothed\n"
           "                            along the motion (--importance-window): map change,\n"
           "                            flicker and the salient object kept (CPU rows)"},
          {"skin", "", "video: the skin term over time (as --saliency)"},
          param_option(ops::param(ops::video_retarget_param_specs(), "importance-window"), "N",
                       "video: "),
          {"write-frames", "DIR",
           "video: with --saliency/--lines/--skin, write a few maps and "
           "outputs as PNG"},
          {"clip-size", "WxH", "video-inpaint: size of the generated clips (default 640x360)"},
          {"clip-frames", "N", "video-inpaint: frames a generated clip has (default 40)"},
          {"no-tracking", "",
           "video-inpaint: skip the mask tracking rows (the fills with the true masks only)"},
          param_option(ops::param(ops::temporal_fill_param_specs(), "volume-patch"), "P",
                       "video-inpaint: "),
          param_option(ops::param(ops::temporal_fill_param_specs(), "volume-frames"), "F",
                       "video-inpaint: "),
          param_option(ops::param(ops::temporal_fill_param_specs(), "volume-iterations"), "N",
                       "video-inpaint: "),
          {"end-to-end", "FORMAT",
           "video-inpaint: mp4 or png: each clip written to a file and run through\n"
           "                            `lacuna inpaint`'s job (decode, flow, propagation, key "
           "fills,\n                            encode, each timed; --save DIR keeps the files) "
           "instead of the\n                            in-memory rows"},
          {"hole-area", "PERCENT",
           "video-inpaint: the logo or sticker covers about this share of the frame\n"
           "                            (default: the cases' own, the logo 4 %, the sticker 3 %)"},
          {"count", "N", "batch: generated JPEGs for the GPU runs (default 200)"},
          {"cpu-count", "N", "batch: how many of them the CPU run takes (default 16)"},
          {"jobs", "LIST", "batch: items at once per GPU worker, one run each (default 3,8)"},
          {"radius", "N", "bilateral: radius of the --size case (default 7)"},
          {"guide", "", "bilateral: the --size case is guided (a depth-like map and its photo)"},
          {"dump", "PREFIX",
           "retarget: write PREFIX-exact.png and PREFIX-approximate.png (the preview's two maps "
           "at the target)"}},
         "Times are wall-clock medians on this machine; CUDA kernel times come from CUDA events.\n"
         "Every result is compared with the CPU reference and reported as identical or DIFFERS "
         "(line\n"
         "results: counts, sample counts, median and min; the CUDA mean may differ by one float "
         "ulp)."},
        [](Context& ctx) {
            if (ctx.args.positionals[0] == "histogram") return bench_histogram(ctx);
            if (ctx.args.positionals[0] == "retarget") return bench_retarget(ctx);
            if (ctx.args.positionals[0] == "inpaint") return bench_inpaint(ctx);
            if (ctx.args.positionals[0] == "video") return bench_video(ctx);
            if (ctx.args.positionals[0] == "video-inpaint") return bench_video_inpaint(ctx);
            if (ctx.args.positionals[0] == "batch") return bench_batch(ctx);
            if (ctx.args.positionals[0] == "bilateral") return bench_bilateral(ctx);
            if (ctx.args.positionals[0] == "scale") return bench_scale(ctx);
            if (ctx.args.positionals[0] == "conv3d") return bench_conv3d(ctx);
            if (ctx.args.positionals[0] == "kymograph") return bench_kymograph(ctx);
            if (ctx.args.positionals[0] == "startup") return bench_startup(ctx);
            if (ctx.args.positionals[0] == "retarget-quality") return bench_retarget_quality(ctx);
            throw UsageError("unknown benchmark '" + ctx.args.positionals[0] +
                             "' (available: histogram, retarget, inpaint, video, video-inpaint, "
                             "batch, bilateral, scale, conv3d, kymograph, retarget-quality)");
        }};
}

}  // namespace lacuna::cli
