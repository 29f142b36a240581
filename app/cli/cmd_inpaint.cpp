// lacuna inpaint: object removal by exemplar-based inpainting. Pixels outside the mask are copied
// through unchanged; progress goes to stderr.
#include "commands.hpp"
#include "json.hpp"
#include "measurement.hpp"
#include "options.hpp"
#include "output.hpp"
#include "timing.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/core/parallel.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/io/video_io.hpp>
#include <lacuna/ops/inpaint.hpp>
#include <lacuna/ops/params.hpp>
#include <lacuna/ops/patchmatch.hpp>

namespace lacuna::cli {
namespace {

/// The declared parameters (--patch, --method, --seed, --no-coherence, --grow), then --search,
/// which sets the search mode and the window factor together.
ops::InpaintParams inpaint_params(const Context& ctx) {
    ops::InpaintParams params;
    parse_params(ctx.args, ops::inpaint_param_fields(), params);
    if (const auto search = ctx.args.get("search")) {
        if (!ops::parse_inpaint_search(*search, params))
            throw UsageError("--search must be 'full', 'window' or 'window:A' with A ≥ 0, not '" +
                             *search + "'");
    }
    return params;
}

/// CPU time of a fill, per hole pixel and CPU thread, at 9 × 9 patches: PatchMatch with its blend
/// took 247 ms for a 47 421-pixel hole in a 1920 × 1080 photo on 16 threads (H100 machine,
/// `lacuna bench inpaint --case 1080`), 1.8 s on this project's 2-core machine; Criminisi about
/// 1.5 × that.
constexpr double kCpuFillMsPerHolePixelThread = 0.083;

/// About how long the fill would take on this machine's CPU.
double estimated_cpu_ms(const Mask& mask, const ops::InpaintParams& params) {
    const double patch_area = static_cast<double>(params.patch) * params.patch / 81.0;
    const double method = params.method == ops::InpaintMethod::Criminisi ? 1.5 : 1.0;
    return static_cast<double>(count_selected(mask.view())) * kCpuFillMsPerHolePixelThread *
           patch_area * method / worker_count();
}

ops::InpaintImplementation choose_implementation(const Context& ctx, const Mask& mask,
                                                 const ops::InpaintParams& params,
                                                 std::string& name, std::string& reason) {
    if (ctx.args.has("reference")) {
        name = "reference";
        return ops::InpaintImplementation::Reference;
    }
    const BackendInfo backend = ctx.select_backend(estimated_cpu_ms(mask, params));
    name = to_string(backend.backend);
    reason = backend.reason;
    return backend.backend == Backend::Cuda ? ops::InpaintImplementation::Cuda
                                            : ops::InpaintImplementation::Fast;
}

void report_progress(const Context& ctx, const ops::InpaintProgress& p,
                     const ops::InpaintMethod method) {
    const double percent = p.total > 0 ? 100.0 * static_cast<double>(p.filled) / p.total : 100.0;
    ctx.err << "lacuna: progress: " << p.filled << "/" << p.total << " pixels filled ("
            << static_cast<int>(percent) << " %), " << p.iterations
            << (method == ops::InpaintMethod::PatchMatch ? " refinement passes\n" : " patches\n");
}

}  // namespace

int run_inpaint(Context& ctx) {
    const std::string& in = ctx.args.positionals[0];
    if (io::is_video_path(in)) return run_inpaint_video(ctx);
    if (ctx.args.positionals.size() < 3)
        throw UsageError(
            "'lacuna inpaint' needs IN MASK OUT for an image (key-frame masks, "
            "CLIP OUT --mask-key F:MASK, are for videos)");
    for (const char* video_only : {"mask-key", "save-masks", "temporal-fill", "volume-patch",
                                   "volume-frames", "volume-iterations", "no-audio"})
        if (ctx.args.has(video_only))
            throw UsageError("--" + std::string(video_only) + " applies to videos");
    const std::string& mask_path = ctx.args.positionals[1];
    const std::string& out = ctx.args.positionals[2];
    if (io::is_video_path(out)) throw UsageError("'" + in + "' is an image: write an image file");
    io::format_for_path(out);
    refuse_overwriting_inputs(out, {in, mask_path});
    const ops::InpaintParams parsed = inpaint_params(ctx);
    const auto load_start = Clock::now();
    const Input input = read_input(ctx, in);
    const int w = input.width(), h = input.height();
    const Mask loaded_mask = load_mask(mask_path, "the mask", w, h);
    const int grow = parsed.mask_grow;
    const Mask mask = grow != 0 ? grow_mask(loaded_mask.view(), grow) : loaded_mask;
    std::optional<Mask> never;
    if (const auto m = ctx.args.get("never-sample"))
        never = load_mask(*m, "the never-sample mask", w, h);
    const double load_ms = ms_since(load_start);
    ops::InpaintParams params = parsed;
    params.never_sample = never ? &*never : nullptr;

    std::string implementation_name, backend_reason;
    const ops::InpaintImplementation chosen =
        choose_implementation(ctx, mask, params, implementation_name, backend_reason);
    auto last_report = Clock::now();
    const auto fill_start = Clock::now();
    const auto report = [&](const ops::InpaintProgress& p) {
        if (ms_since(last_report) > 500.0 && !p.done()) {
            report_progress(ctx, p, params.method);
            last_report = Clock::now();
        }
        return true;
    };
    // A measurement's samples are filled as the editor fills them: PatchMatch deciding on every
    // bit, the stored samples moved from the fill's sources (ops::inpaint on NativeImage).
    std::optional<NativeImage> filled_samples;
    const auto fill = [&](const ops::InpaintImplementation implementation) {
        if (!input.measurement())
            return ops::inpaint(input.photo.image.view(), mask, params, implementation, report);
        ops::NativeInpaintResult r =
            ops::inpaint(input.samples(), mask, params, implementation, report);
        filled_samples = std::move(r.samples);
        return ops::InpaintResult{ImageRgba8(), r.progress, std::move(r.notes)};
    };
    const ops::InpaintResult result =
        chosen == ops::InpaintImplementation::Reference
            ? fill(chosen)
            : ctx.with_cpu_fallback(
                  chosen == ops::InpaintImplementation::Cuda ? Backend::Cuda : Backend::Cpu,
                  [&](const Backend b) {
                      implementation_name = std::string(to_string(b));
                      return fill(b == Backend::Cuda ? ops::InpaintImplementation::Cuda
                                                     : ops::InpaintImplementation::Fast);
                  });
    const double fill_ms = ms_since(fill_start);
    for (const std::string& n : result.notes) ctx.note(n);
    if (result.progress.total > 0) report_progress(ctx, result.progress, params.method);
    const auto write_start = Clock::now();
    std::optional<PixelFormat> written;
    if (filled_samples) {
        written = write_measurement(ctx, out, *filled_samples, *input.native);
    } else {
        write_photo(ctx, out, result.image.view(), input.photo.metadata);
    }
    const double write_ms = ms_since(write_start);
    if (ctx.json) {
        ctx.out << JsonObject()
                       .add("input", in)
                       .add("mask", mask_path)
                       .add("output", out)
                       .add("width", w)
                       .add("height", h)
                       .add("sample_type",
                            sample_type_code(input.measurement() ? input.samples().sample_type()
                                                                 : SampleType::U8))
                       .add("written_sample_type",
                            sample_type_code(written ? written->sample : SampleType::U8))
                       .add("hole_pixels", result.progress.total)
                       .add("method", ops::to_string(params.method))
                       .add("seed", static_cast<std::int64_t>(params.seed))
                       .add(params.method == ops::InpaintMethod::PatchMatch ? "passes" : "patches",
                            result.progress.iterations)
                       .add("patch", params.patch)
                       .add("search", ops::describe_search(params))
                       .add("coherence", params.coherence)
                       .add("grow", grow)
                       .add("lines", params.lines)
                       .add("source_colours", params.source_colours)
                       .add("choose", params.choose)
                       .add("refill_foreign", params.refill_foreign)
                       .add("keep_colours", params.keep_colours)
                       .add("implementation", implementation_name)
                       .add("backend_reason", backend_reason)
                       .add("load_ms", load_ms)
                       .add("fill_ms", fill_ms)
                       .add("write_ms", write_ms)
                       .str()
                << "\n";
    }
    return kExitOk;
}

Command inpaint_command() {
    const auto specs = ops::inpaint_param_specs();
    const ops::ParamSpec& window = ops::param(specs, "window");
    const auto track = ops::mask_track_param_specs();
    const auto unseen = ops::temporal_fill_param_specs();
    return {
        {
            "inpaint",
            "remove an object: fill the masked pixels from the rest of the image",
            "IN MASK OUT [options]  |  CLIP OUT --mask-key F:MASK [...] [options]",
            {"IN", "MASK", "OUT"},
            2,
            3,
            {param_option(ops::param(specs, "method"), "M"),
             param_option(ops::param(specs, "seed"), "N"),
             param_option(ops::param(specs, "patch"), "P"),
             {"search", "window[:A]|full",
              wrap_help("where source patches come from: a window around the hole, grown by A "
                        "times its size on each side, or the whole image (default window:" +
                        ops::format_value(window, window.default_value) + ")")},
             {"grow", "N", param_help(ops::param(specs, "grow"))},
             {"never-sample", "MASK",
              "image of the same size; never copy from its non-black pixels"},
             {"lines", "", param_help(ops::param(specs, "lines"))},
             {"no-lines", "", "do not continue lines"},
             {"source-colours", "", param_help(ops::param(specs, "source-colours"))},
             {"no-source-colours", "", "copy patches of any colour (the default)"},
             param_option(ops::param(specs, "line-angle"), "DEG"),
             param_option(ops::param(specs, "line-offset"), "PX"),
             {"choose", "", param_help(ops::param(specs, "choose"))},
             {"no-choose", "", "keep patchmatch's fill everywhere (no choice per region)"},
             {"refill-foreign", "", param_help(ops::param(specs, "refill-foreign"))},
             {"no-refill-foreign", "", "leave blobs of foreign colours as the fill made them"},
             {"keep-colours", "", param_help(ops::param(specs, "keep-colours"))},
             {"no-keep-colours", "", "let the blend's tone correction make any colour"},
             {"no-coherence", "",
              wrap_help("do not " + std::string(ops::param(specs, "coherence").help))},
             {"reference", "", "run the single-threaded CPU reference (slow; for checking)"},
             {"page", "N", "measurement stacks: the page to fill (default 1)"},
             {"frames", "A:B", "video: only frames A to B-1 (from 0; A: to the end)"},
             {"keep-truncated", "", "video: fill the frames a truncated file still gives"},
             {"no-audio", "",
              wrap_help("video: write no sound (by default the clip's audio streams are "
                        "copied into a video output, cut to --frames)")},
             {"mask-key", "F:MASK",
              wrap_help("video, instead of MASK: the object's mask on frame F (from 0), tracked "
                        "to every frame along the optical flow; repeat for more key frames (a "
                        "corrected frame is one more)")},
             {"save-masks", "DIR",
              wrap_help("video: write every frame's mask (tracked or read, before --grow) to "
                        "DIR/NNNNN.png before filling")},
             {"no-grabcut", "",
              wrap_help("--mask-key: do not " + std::string(ops::param(track, "grabcut").help) +
                        " (flow alone)")},
             param_option(ops::param(track, "track-band"), "N", "--mask-key: "),
             param_option(ops::param(track, "track-core"), "N", "--mask-key: "),
             param_option(ops::param(track, "grabcut-iterations"), "N", "--mask-key: "),
             param_option(ops::param(unseen, "temporal-fill"), "M", "video: "),
             param_option(ops::param(unseen, "volume-patch"), "P", "video: "),
             param_option(ops::param(unseen, "volume-frames"), "F", "video: "),
             param_option(ops::param(unseen, "volume-iterations"), "N", "video: ")},
            "MASK is an image of the same size as IN; its non-black (or non-transparent) pixels "
            "are\n"
            "removed. Pixels outside the mask are copied unchanged. criminisi: exemplar-based\n"
            "inpainting (Criminisi et al. 2004), growing from the hole's border, most confident\n"
            "and most structured parts first. patchmatch: multi-scale completion (Wexler et al.\n"
            "2007, Newson et al. 2017), the whole hole refined coarse to fine from nearest-\n"
            "neighbour patches; --seed picks another result.\n"
            "Measurements (16-bit, signed, float, DICOM, FITS) are filled as the editor fills\n"
            "them: PatchMatch decides on every bit, moves the stored samples and blends them in\n"
            "their own values, and OUT keeps their type where its format holds it (16-bit PNG,\n"
            "TIFF, PGM; float TIFF, PFM). Criminisi works on 8-bit pixels, so it refuses them.\n"
            "IN may be a video or a PNG-sequence pattern (frames/%05d.png); MASK is then a still\n"
            "mask for every frame or a mask video / sequence of the same frame count, OUT a video\n"
            "or a PNG sequence: hidden pixels are brought in from the frames that show them along\n"
            "the optical flow; what no frame shows is synthesised for the whole shot at once by\n"
            "a spatio-temporal PatchMatch (3-D patches) where the camera moves under 2 px a\n"
            "frame, else filled on key frames and carried along the flow (--temporal-fill auto,\n"
            "measured per shot; patchmatch3d or image forces one).\n"
            "The clip's audio streams are copied into a video OUT as they are (no re-encoding), "
            "cut\n"
            "to the time span of --frames; a stream OUT's container cannot hold is transcoded to\n"
            "AAC, with a note (.mkv holds them all as they are); a PNG sequence has no sound.\n"
            "Instead of MASK, --mask-key F:MASK (repeatable) paints the object on key frames: the\n"
            "mask is carried to every other frame along the optical flow (forward and backward\n"
            "from each key frame; between two, the nearer one's) and refined on every frame by\n"
            "GrabCut, so an object that moves or changes shape is followed. --save-masks DIR\n"
            "writes the masks; correct a frame's and give it back as one more --mask-key.",
        },
        run_inpaint};
}

}  // namespace lacuna::cli
