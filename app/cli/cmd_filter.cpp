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

#include <filesystem>
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

/// "HU", or "stored samples" for a unitless identity calibration: what --sigma-range is in.
std::string range_unit(const Calibration& calibration) {
    if (!calibration.unit.empty()) return calibration.unit;
    return calibration.identity() ? "stored samples" : "calibrated values";
}

/// A guide as the measurement filter takes it: its samples (a photo as 8-bit RGBA) and
/// calibration.
struct GuideSamples {
    NativeImage image;
    Calibration calibration;
};
GuideSamples guide_samples(const Input& guide) {
    if (guide.measurement()) return {guide.samples(), guide.native->calibration};
    return {to_native(guide.photo.image.view()), {}};
}

/// A measurement (or a photo guided by one) is filtered on its stored samples
/// (ops::bilateral_native): the range distance in the guide's calibrated unit, so --sigma-range
/// is in HU, K, … and must be given (no default suits every unit); the result is written in the
/// stored type with the calibration and pixel spacing (write_measurement).
int bilateral_measurement(Context& ctx, const Input& input, const std::optional<Input>& guide,
                          const Clock::time_point load_start) {
    const std::string& in = ctx.args.positionals[1];
    const std::string& out = ctx.args.positionals[2];
    const NativeImage src =
        input.measurement() ? input.samples() : to_native(input.photo.image.view());
    const Calibration calibration = input.measurement() ? input.native->calibration : Calibration{};
    const std::optional<GuideSamples> g =
        guide ? std::optional<GuideSamples>(guide_samples(*guide)) : std::nullopt;
    const Calibration& range_calibration = g ? g->calibration : calibration;
    const std::string unit = range_unit(range_calibration);
    if (!ctx.args.get("sigma-range")) {
        const std::string whose = g ? "the guide '" + *ctx.args.get("guide") + "'" : "'" + in + "'";
        throw UsageError(whose + " holds measurement values: give --sigma-range in its unit (" +
                         unit + "), how far apart two values may be and still be averaged");
    }
    ops::BilateralParams params;
    parse_params(ctx.args, ops::bilateral_measurement_param_fields(), params);
    const ops::NativeGuide native_guide =
        g ? ops::NativeGuide{&g->image, g->calibration} : ops::NativeGuide{};
    ops::check_bilateral_native(params, src, native_guide);
    const double load_ms = ms_since(load_start);
    const bool reference = ctx.args.has("reference");
    if (!reference && ctx.backend == BackendRequest::Cuda)
        ctx.note(
            "the bilateral filter of a measurement runs on the CPU: there is no CUDA path "
            "for stored samples yet");

    const auto filter_start = Clock::now();
    const NativeImage result = ops::bilateral_native(
        src, calibration, native_guide, params,
        reference ? ops::BilateralImplementation::Reference : ops::BilateralImplementation::Fast);
    const double filter_ms = ms_since(filter_start);

    const auto write_start = Clock::now();
    PixelFormat written = result.format();
    if (input.measurement())
        written = write_measurement(ctx, out, result, *input.native);
    else
        write_photo(ctx, out, to_rgba8(result).view(), input.photo.metadata);
    const double write_ms = ms_since(write_start);
    if (ctx.json) {
        JsonObject report;
        report.add("filter", "bilateral").add("input", in).add("output", out);
        if (g) report.add("guide", *ctx.args.get("guide"));
        ctx.out << report.add("width", src.width())
                       .add("height", src.height())
                       .add("sample_type", sample_type_code(src.sample_type()))
                       .add("written_sample_type", sample_type_code(written.sample))
                       .add("page", static_cast<int>(input.page) + 1)
                       .add("sigma_space", params.sigma_space)
                       .add("sigma_range", params.sigma_range)
                       .add("sigma_range_unit", unit)
                       .add("radius", ops::bilateral_radius(params))
                       .add("arithmetic", reference ? "double" : "float")
                       .add("implementation", reference ? "reference" : "cpu")
                       .add("load_ms", load_ms)
                       .add("filter_ms", filter_ms)
                       .add("write_ms", write_ms)
                       .str()
                << "\n";
    }
    return kExitOk;
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

    const auto load_start = Clock::now();
    Input input = read_input(ctx, in);
    std::optional<Input> guide_input;
    if (guide_path) guide_input = read_input(ctx, *guide_path);
    if (input.measurement() || (guide_input && guide_input->measurement()))
        return bilateral_measurement(ctx, input, guide_input, load_start);
    const ops::BilateralParams params = parse_bilateral(ctx);
    const io::LoadedImage image = std::move(input.photo);
    std::optional<io::LoadedImage> guide;  // a photo: a measurement went the other way
    if (guide_input) guide = std::move(guide_input->photo);
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

/// Temporal smoothing runs on 8-bit frames (video::smooth_video): a measurement — an image
/// sequence of 16-bit or float files, or a TIFF stack — is refused rather than narrowed.
void refuse_measurement_frames(const std::string& in) {
    if (io::is_video_path(in)) {
        if (const int bits = io::VideoReader(in).info().bit_depth; bits > 8)
            throw Error(ErrorCode::InvalidArgument,
                        "'" + in + "' holds " + std::to_string(bits) +
                            "-bit frames: temporal smoothing works on 8-bit frames and would "
                            "narrow them, so it refuses (smooth a copy converted to 8 bits if "
                            "that is what you want)");
        return;
    }
    std::error_code ec;
    if (!std::filesystem::is_regular_file(in, ec)) return;
    io::ImageFormat format = io::ImageFormat::Png;
    try {
        format = io::format_for_path(in);
    } catch (const Error&) {
        return;  // not an image either: the usage error below says what temporal takes
    }
    if (format != io::ImageFormat::Tiff && format != io::ImageFormat::Dicom &&
        format != io::ImageFormat::Fits)
        return;
    const io::LoadedNative file = io::read_native(in);
    if (file.pages.size() > 1)
        throw Error(ErrorCode::InvalidArgument,
                    "'" + in + "' is a stack of " + std::to_string(file.pages.size()) + " " +
                        describe(file.pages.front().format()) +
                        " pages: temporal smoothing reads videos and image sequences of 8-bit "
                        "frames, not stacks, and would not keep their samples");
}

int run_temporal(Context& ctx) {
    const std::string& in = ctx.args.positionals[1];
    const std::string& out = ctx.args.positionals[2];
    refuse_measurement_frames(in);
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
             {"sigma-range", "R",
              wrap_help(std::string(ops::param(specs, "sigma-range").help) + "; " +
                        ops::describe_range(ops::param(specs, "sigma-range")) +
                        "; measurements (16-bit, float, DICOM, FITS, or a measurement guide): "
                        "required, in the data's calibrated unit (HU, K, or stored samples when "
                        "uncalibrated), above 0")},
             param_option(ops::param(specs, "radius"), "N"),
             {"guide", "IMG",
              wrap_help("image of the same size whose edges the filter keeps (a joint bilateral "
                        "filter: e.g. a colour view for a depth map); default: the image itself")},
             {"reference", "", "run the single-threaded CPU reference (slow; for checking)"},
             {"page", "N", "measurement stacks: the page to filter (default 1)"},
             {"size", "K", wrap_help(temporal_help("size"))},
             {"sigma-time", "T", wrap_help(temporal_help("sigma-time"))},
             {"keep-truncated", "", "temporal: write the frames of a damaged video that decode"}},
            "bilateral: each pixel becomes the mean of its neighbours within the radius, weighted\n"
            "by a Gaussian of their distance (sigma-space) times a Gaussian of how far their\n"
            "colours are apart in the guide (sigma-range, in levels of |dR|+|dG|+|dB|, as\n"
            "OpenCV's bilateralFilter). Alpha is kept; the image is mirrored at its borders.\n"
            "Measurements keep their stored type, calibration and pixel spacing: the range is\n"
            "|d| of the (guide's) calibrated values, NaN samples weigh nothing and stay NaN,\n"
            "integers are rounded to the nearest sample (CPU only).\n"
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
