// lacuna filter: `bilateral` is the joint (cross) bilateral filter, an edge-preserving smoother
// whose edges come from the image itself or from a guide image; `temporal` smooths a video with a
// 3-D Gaussian over x, y and frames. Both take their options, defaults and help from the
// parameter tables.
#include "commands.hpp"
#include "json.hpp"
#include "measurement.hpp"
#include "options.hpp"
#include "output.hpp"
#include "timing.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/io/video_io.hpp>
#include <lacuna/ops/bilateral.hpp>
#include <lacuna/ops/conv3d.hpp>
#include <lacuna/ops/params.hpp>
#include <lacuna/video/smooth_video.hpp>

#include <optional>

namespace lacuna::cli {
namespace {

ops::BilateralParams parse_bilateral(const Context& ctx) {
    ops::BilateralParams params;
    parse_params(ctx.args, ops::bilateral_param_fields(), params);
    return params;
}

/// Temporal smoothing's options over the declared defaults. The numbers are only parsed here:
/// ops::gaussian_kernel refuses an even or out-of-range size and a sigma of 0 or less, in its
/// own words (the panel's ranges in the declaration are narrower than what the operation takes).
void parse_temporal(const Context& ctx, ops::TemporalSmoothParams& params) {
    for (const ops::ParamField<ops::TemporalSmoothParams>& f : ops::temporal_param_fields()) {
        const std::string name(f.spec.name);
        if (const auto text = ctx.args.get(name))
            f.set(params, f.spec.kind == ops::ParamKind::Int ? parse_int(name, *text)
                                                             : parse_number(name, *text));
    }
}

/// "temporal: <help> (default <value>)": what the temporal filter takes for an option.
std::string temporal_help(const std::string_view name) {
    const ops::ParamSpec& spec = ops::param(ops::temporal_param_specs(), name);
    std::string text = "temporal: " + std::string(spec.help);
    if (spec.kind == ops::ParamKind::Int)
        text += " (odd, 1.." + ops::format_value(spec, spec.max) + ")";
    else
        text += " (above 0)";
    return text + ", default " + ops::format_value(spec, spec.default_value);
}

int run_bilateral(Context& ctx) {
    const std::string& in = ctx.args.positionals[1];
    const std::string& out = ctx.args.positionals[2];
    const std::optional<std::string> guide_path = ctx.args.get("guide");
    io::format_for_path(out);
    for (const auto& protected_path : {std::optional<std::string>(in), guide_path}) {
        if (protected_path && io::same_file(*protected_path, out))
            throw Error(ErrorCode::InvalidArgument,
                        "refusing to overwrite the input '" + *protected_path + "'");
    }
    const ops::BilateralParams params = parse_bilateral(ctx);

    const auto load_start = Clock::now();
    Input input = read_input(ctx, in);
    // As in the editor: the filter works on 8-bit colour, so a measurement would lose its
    // stored values.
    if (input.measurement())
        throw Error(ErrorCode::InvalidArgument,
                    "'" + in + "' holds " + describe(input.samples().format()) +
                        " samples: the bilateral filter works on photos (8-bit colour) and would "
                        "re-quantise them; make an 8-bit copy first if that is what you want "
                        "(the editor's Image > Convert to 8-bit Photo)");
    const io::LoadedImage image = std::move(input.photo);
    std::optional<io::LoadedImage> guide;
    if (guide_path) {
        guide = io::read_image(*guide_path);
        for (const std::string& n : guide->notices) ctx.note("the guide: " + n);
    }
    const double load_ms = ms_since(load_start);
    const int w = image.image.width(), h = image.image.height();
    const ImageView<const Rgba8> guide_view =
        guide ? guide->image.view() : ImageView<const Rgba8>{};
    // Bad sizes and values are refused before any device work starts.
    ops::check_bilateral(params, w, h, guide ? guide->image.width() : -1,
                         guide ? guide->image.height() : -1);

    std::string implementation_name = "reference";
    const auto filter_start = Clock::now();
    const ImageRgba8 result =
        ctx.args.has("reference")
            ? ops::bilateral_reference(image.image.view(), guide_view, params)
            : ctx.with_cpu_fallback(ctx.select_backend().backend, [&](const Backend b) {
                  implementation_name = std::string(to_string(b));
                  return ops::bilateral(image.image.view(), guide_view, params,
                                        b == Backend::Cuda ? ops::BilateralImplementation::Cuda
                                                           : ops::BilateralImplementation::Fast);
              });
    const double filter_ms = ms_since(filter_start);

    const auto write_start = Clock::now();
    write_photo(ctx, out, result.view(), image.metadata);
    const double write_ms = ms_since(write_start);
    if (ctx.json) {
        JsonObject report;
        report.add("filter", "bilateral").add("input", in).add("output", out);
        if (guide_path) report.add("guide", *guide_path);
        ctx.out << report.add("width", w)
                       .add("height", h)
                       .add("sigma_space", params.sigma_space)
                       .add("sigma_range", params.sigma_range)
                       .add("radius", ops::bilateral_radius(params))
                       .add("implementation", implementation_name)
                       .add("load_ms", load_ms)
                       .add("filter_ms", filter_ms)
                       .add("write_ms", write_ms)
                       .str()
                << "\n";
    }
    return kExitOk;
}

int run_temporal(Context& ctx) {
    const std::string& in = ctx.args.positionals[1];
    const std::string& out = ctx.args.positionals[2];
    if (!io::is_video_path(in) || !io::is_video_path(out))
        throw UsageError(
            "temporal smoothing works on videos: IN and OUT must be videos (.mp4, "
            ".mkv, .avi, .mov) or PNG sequence patterns such as frames/%05d.png");
    refuse_overwriting_inputs(out, {in});
    video::SmoothVideoOptions o;
    o.input = in;
    o.output = out;
    parse_temporal(ctx, o);
    o.allow_truncated = ctx.args.has("keep-truncated");
    (void)ops::gaussian_kernel(o.size, o.sigma_space, o.sigma_time);  // refused before any work
    auto last_report = Clock::now();
    const auto progress = [&](const video::VideoProgress& p) {
        if (ms_since(last_report) > 1000) {
            ctx.err << "lacuna: frame " << p.frame << " of " << p.total << ", " << p.fps << " fps\n"
                    << std::flush;
            last_report = Clock::now();
        }
        return true;
    };
    // A device failure part-way starts over on the CPU; the failed attempt's writer took its
    // temporary file with it, so the output is written whole or not at all.
    const video::SmoothVideoResult r =
        ctx.with_cpu_fallback(ctx.select_backend().backend, [&](const Backend b) {
            o.use_cuda = b == Backend::Cuda;
            return video::smooth_video(o, progress);
        });
    for (const std::string& n : r.notices) ctx.note(n);
    ctx.err << "lacuna: " << r.frames << " frames in " << r.seconds << " s (" << r.backend << ")\n";
    if (ctx.json) {
        JsonObject report;
        report.add("filter", "temporal")
            .add("input", in)
            .add("output", out)
            .add("frames", r.frames);
        add_params(report, static_cast<const ops::TemporalSmoothParams&>(o),
                   ops::temporal_param_fields());
        ctx.out << report.add("implementation", r.backend)
                       .add("output_codec", r.output_codec)
                       .add("seconds", r.seconds)
                       .str()
                << "\n";
    }
    return kExitOk;
}

}  // namespace

Command filter_command() {
    const auto specs = ops::bilateral_param_specs();
    const ops::ParamSpec& sigma_space = ops::param(specs, "sigma-space");
    return {
        {
            "filter",
            "filter: bilateral (edge-preserving smoothing, optionally guided), temporal (videos)",
            "FILTER IN OUT [options]  (FILTER: bilateral, temporal)",
            {"FILTER", "IN", "OUT"},
            3,
            3,
            {{"sigma-space", "S",
              wrap_help("bilateral: " + std::string(sigma_space.help) + "; " +
                        ops::describe_range(sigma_space) + "; " + temporal_help("sigma-space"))},
             param_option(ops::param(specs, "sigma-range"), "R"),
             param_option(ops::param(specs, "radius"), "N"),
             {"guide", "IMG",
              wrap_help("image of the same size whose edges the filter keeps (a joint bilateral "
                        "filter: e.g. a colour view for a depth map); default: the image itself")},
             {"reference", "", "run the single-threaded CPU reference (slow; for checking)"},
             {"size", "K", wrap_help(temporal_help("size"))},
             {"sigma-time", "T", wrap_help(temporal_help("sigma-time"))},
             {"keep-truncated", "", "temporal: write the frames of a damaged video that decode"}},
            "bilateral: each pixel becomes the mean of its neighbours within the radius, weighted\n"
            "by a Gaussian of their distance (sigma-space) times a Gaussian of how far their\n"
            "colours are apart in the guide (sigma-range, in levels of |dR|+|dG|+|dB|, as\n"
            "OpenCV's bilateralFilter). Alpha is kept; the image is mirrored at its borders.\n"
            "temporal: each frame of a video convolved with a k x k x k Gaussian over (x, y, t)\n"
            "(--sigma-space over x and y; --sigma-time over frames), the clip mirrored at its\n"
            "first and last frame so it keeps its frame count: noise and flicker average out.",
        },
        [](Context& ctx) {
            const std::string& filter = ctx.args.positionals[0];
            if (filter == "bilateral") return run_bilateral(ctx);
            if (filter == "temporal") return run_temporal(ctx);
            throw UsageError("unknown filter '" + filter + "' (available: bilateral, temporal)");
        }};
}

}  // namespace lacuna::cli
