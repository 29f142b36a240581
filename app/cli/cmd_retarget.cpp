// lacuna retarget: seam carving to a new width and height, with protect and remove masks and an
// overlay of the seams on the original.
#include "commands.hpp"
#include "json.hpp"
#include "measurement.hpp"
#include "options.hpp"
#include "output.hpp"
#include "timing.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/io/video_io.hpp>
#include <lacuna/ops/importance.hpp>
#include <lacuna/ops/params.hpp>
#include <lacuna/ops/seam_carve.hpp>

#include <chrono>
#include <cmath>

namespace lacuna::cli {

Mask load_mask(const std::string& path, const char* what, const int width, const int height) {
    Mask mask = io::read_mask(path);
    check_mask_size(mask.view(), width, height, what);
    return mask;
}

namespace {

const ops::ParamSpec& mix_spec(const std::string_view name) {
    return ops::param(ops::retarget_mix_param_specs(), name);
}

const ops::ParamSpec& video_spec(const std::string_view name) {
    return ops::param(ops::video_retarget_param_specs(), name);
}

}  // namespace

/// The importance switches and weights of a retarget (the parameter table's names). Faces are on
/// by default for images; videos take them with --faces.
ops::ImportanceParams importance_options(const ParsedArgs& args, const bool faces_by_default) {
    if (args.has("faces") && args.has("no-faces"))
        throw UsageError("--faces and --no-faces contradict each other");
    ops::ImportanceParams p;
    p.faces = args.has("faces") || (faces_by_default && !args.has("no-faces"));
    p.saliency = args.has("saliency");
    p.lines = args.has("lines");
    p.skin = args.has("skin");
    const auto weight = [&](const char* name, int& value) {
        if (const auto v = args.get(name)) value = parse_int_param(name, *v, mix_spec(name));
    };
    weight("face-weight", p.face_weight);
    weight("saliency-weight", p.saliency_weight);
    weight("line-weight", p.line_weight);
    weight("skin-weight", p.skin_weight);
    return p;
}

namespace {

JsonObject side_json(const ops::SideMix& m) {
    return JsonObject()
        .add("from", m.original)
        .add("to", m.target)
        .add("crop", m.crop)
        .add("crop_offset", m.crop_offset)
        .add("seams", m.seams)
        .add("seams_energy", ops::to_string(m.energy))
        .add("scaled_from", m.scaled_from)
        .add("scaled_to", m.scaled_to)
        .add("candidates", m.candidates)
        .add("distance", m.distance);
}

/// A seams-only side in the mixed form, so --json reads the same in every mode.
ops::SideMix seams_only(const int original, const int target, const int seams,
                        const SeamEnergy energy) {
    ops::SideMix m;
    m.original = original;
    m.target = target;
    m.seams = seams;
    m.energy = energy;
    m.scaled_from = m.scaled_to = target;
    return m;
}

/// The importance levels as a grey image (level × 4), for looking at what was protected.
ImageRgba8 levels_image(const Mask& levels) {
    ImageRgba8 out(levels.width(), levels.height());
    for (int y = 0; y < levels.height(); ++y)
        for (int x = 0; x < levels.width(); ++x) {
            const auto v = static_cast<std::uint8_t>(std::min(255, levels.at(x, y) * 4));
            out.at(x, y) = Rgba8{v, v, v, 255};
        }
    return out;
}

/// Retargets `source` (a photo's view or a measurement's samples) on the chosen backend, again
/// on the CPU where the device fails (`used` says which ran). The CUDA carver runs the whole job
/// on the device; progress, at most once a second on stderr, is reported by the CPU carver.
ops::CarveProgress progress_reporter(const Context& ctx) {
    return [&ctx, last_report = Clock::now()](const int done, const int total) mutable {
        if (ms_since(last_report) > 1000.0 && done < total) {
            ctx.err << "lacuna: progress: " << done << "/" << total << " seams\n";
            last_report = Clock::now();
        }
        return true;
    };
}

template <class Source>
auto carve(const Context& ctx, Backend& used, const Source& source, const ops::RetargetParams& p) {
    const ops::CarveProgress progress = progress_reporter(ctx);
    return ctx.with_cpu_fallback(used, [&](const Backend b) {
        used = b;
        return ops::retarget(
            source, p,
            b == Backend::Cuda ? ops::CarveImplementation::Cuda : ops::CarveImplementation::Fast,
            progress);
    });
}

/// A photo's carve: on the CPU the decoded pixels are handed over and carved in place of a copy
/// (at 8K one RGBA image, 133 MB, less at the peak); a device run keeps them for the CPU
/// fallback.
ops::RetargetResult carve_photo(const Context& ctx, Backend& used, ImageRgba8& image,
                                const ops::RetargetParams& p) {
    if (used != Backend::Cpu) return carve(ctx, used, image.view(), p);
    return ops::retarget(std::move(image), p, ops::CarveImplementation::Fast,
                         progress_reporter(ctx));
}

/// The seams, totals, backend and times of a retarget's --json report.
JsonObject& add_carve_report(JsonObject& report, const ops::RetargetResult& r, const Backend used,
                             const double load_ms, const double carve_ms, const double write_ms) {
    const int seams = r.seams_removed_vertical + r.seams_removed_horizontal +
                      r.seams_inserted_vertical + r.seams_inserted_horizontal;
    return report.add("seams_removed_vertical", r.seams_removed_vertical)
        .add("seams_removed_horizontal", r.seams_removed_horizontal)
        .add("seams_inserted_vertical", r.seams_inserted_vertical)
        .add("seams_inserted_horizontal", r.seams_inserted_horizontal)
        .add("width_first", r.width_first)
        .add("protected_removed", r.protected_removed)
        .add("remove_left", r.remove_left)
        .add("backend", to_string(used))
        .add("load_ms", load_ms)
        .add("carve_ms", carve_ms)
        .add("write_ms", write_ms)
        .add("ms_per_seam", seams > 0 ? carve_ms / seams : 0.0);
}

/// The target size and masks every retarget reads the same way.
void size_and_masks(const Context& ctx, const int w, const int h, ops::RetargetParams& p,
                    std::optional<Mask>& protect, std::optional<Mask>& remove) {
    if (const auto m = ctx.args.get("protect")) protect = load_mask(*m, "the protect mask", w, h);
    if (const auto m = ctx.args.get("remove")) remove = load_mask(*m, "the remove mask", w, h);
    p.width = ctx.args.has("width") ? parse_extent("width", *ctx.args.get("width"), w) : w;
    p.height = ctx.args.has("height") ? parse_extent("height", *ctx.args.get("height"), h) : h;
    if (remove) {
        if (count_selected(remove->view()) == 0) ctx.note("the remove mask is empty");
        if (!ctx.args.has("width") && !ctx.args.has("height")) {
            p.width = w - ops::seams_to_clear(*remove, ops::SeamDirection::Vertical);
            ctx.note("removing the marked pixels takes " + std::to_string(w - p.width) +
                     " vertical seams");
        }
    }
    p.protect = protect ? &*protect : nullptr;
    p.remove = remove ? &*remove : nullptr;
}

/// A measurement (16-bit, signed, float, DICOM, FITS): carved as the editor carves it, seams
/// decided on every bit of the 16-bit decision image and the stored samples moved, written in
/// their own type where the output format holds it. Importance (faces, saliency, lines, skin)
/// and mixing with scaling are for photos.
int retarget_measurement(Context& ctx, const Input& input, ops::RetargetParams p,
                         const Clock::time_point load_start) {
    for (const char* photo_only : {"saliency", "lines", "skin", "importance-map", "face-weight",
                                   "saliency-weight", "line-weight", "skin-weight"})
        if (ctx.args.has(photo_only))
            throw UsageError(std::string("--") + photo_only +
                             " weighs photo content; a measurement is carved on its values only");
    const std::string& in = ctx.args.positionals[0];
    const std::string& out = ctx.args.positionals[1];
    const NativeImage& samples = input.samples();
    const int w = samples.width(), h = samples.height();
    std::optional<Mask> protect, remove;
    size_and_masks(ctx, w, h, p, protect, remove);
    p.want_overlay = ctx.args.has("seams-overlay");
    const double load_ms = ms_since(load_start);
    ops::check_measurement_retarget(p);  // a refused request gets its one line, no device note
    Backend used = ctx.select_backend().backend;
    const auto carve_start = Clock::now();
    const ops::NativeRetargetResult result = carve(ctx, used, samples, p);
    const double carve_ms = ms_since(carve_start);
    const ops::RetargetResult& r = result.summary;
    for (const std::string& n : r.notes) ctx.note(n);
    const auto write_start = Clock::now();
    const PixelFormat written = write_measurement(ctx, out, result.samples, *input.native);
    if (const auto overlay = ctx.args.get("seams-overlay"))
        io::write_image(*overlay, r.overlay.view());
    const double write_ms = ms_since(write_start);
    if (ctx.json) {
        JsonObject report =
            resize_report(in, out, w, h, result.samples.width(), result.samples.height());
        report.add("sample_type", sample_type_code(samples.sample_type()))
            .add("written_sample_type", sample_type_code(written.sample))
            .add("energy", ops::to_string(p.energy))
            .add("mode", "seams");
        ctx.out << add_carve_report(report, r, used, load_ms, carve_ms, write_ms).str() << "\n";
    }
    return kExitOk;
}

}  // namespace

int run_retarget(Context& ctx) {
    const std::string& in = ctx.args.positionals[0];
    const std::string& out = ctx.args.positionals[1];
    if (io::is_video_path(in)) {
        for (const char* still_only : {"amount", "auto", "importance-map"})
            if (ctx.args.has(still_only))
                throw UsageError(std::string("--") + still_only +
                                 " applies to images; videos are carved by seams only");
        return run_retarget_video(ctx);
    }
    if (io::is_video_path(out))
        throw UsageError("'" + in + "' is an image: write it to an image file, not a video");
    if (ctx.args.has("no-audio")) throw UsageError("--no-audio applies to videos");
    io::format_for_path(out);
    for (const std::string& path : {out, ctx.args.get("seams-overlay").value_or(""),
                                    ctx.args.get("importance-map").value_or("")}) {
        if (!path.empty() && io::same_file(in, path)) {
            throw Error(ErrorCode::InvalidArgument, "refusing to overwrite the input '" + in + "'");
        }
    }
    if (const auto overlay = ctx.args.get("seams-overlay")) io::format_for_path(*overlay);
    if (const auto map = ctx.args.get("importance-map")) io::format_for_path(*map);
    const ops::ImportanceParams importance_params = importance_options(ctx.args, true);
    if (!ctx.args.has("width") && !ctx.args.has("height") && !ctx.args.has("remove")) {
        throw UsageError(
            "give a target size with --width and/or --height (pixels or %), or a --remove mask");
    }
    ops::RetargetParams p;
    parse_params(ctx.args, ops::seam_param_fields(), p);  // --energy
    if (const auto a = ctx.args.get("amount"))
        p.amount = parse_real_param("amount", *a, mix_spec("amount"));
    p.automatic = ctx.args.has("auto");
    if (p.automatic && ctx.args.has("amount"))
        throw UsageError("give --amount or --auto, not both (auto chooses the amount itself)");
    const auto load_start = Clock::now();
    Input input = read_input(ctx, in);
    if (input.measurement()) return retarget_measurement(ctx, input, p, load_start);
    io::LoadedImage image = std::move(input.photo);
    const int w = image.image.width(), h = image.image.height();
    std::optional<Mask> protect, remove;
    size_and_masks(ctx, w, h, p, protect, remove);
    const double load_ms = ms_since(load_start);
    // Detection on the upright image (read_image applies the EXIF orientation).
    ops::ImportanceMap importance = ops::importance_map(image.image.view(), importance_params);
    for (const std::string& n : importance.notes) ctx.note(n);
    // All-zero levels weigh nothing: unless they are written as the map, they need not stay
    // alive through the carve (33 MB at 8K).
    if (importance.empty() && !ctx.args.has("importance-map")) importance.levels = Mask();
    if (!importance.empty()) {
        p.importance = &importance.levels;
        p.importance_unit = ops::importance_unit(p.energy);
        p.crop_keep = &importance.crop_levels();  // lines do not forbid --auto's crop
    }
    p.want_overlay = ctx.args.has("seams-overlay");

    Backend used = ctx.select_backend().backend;
    const auto carve_start = Clock::now();
    const ops::RetargetResult r = carve_photo(ctx, used, image.image, p);
    const double carve_ms = ms_since(carve_start);
    for (const std::string& n : r.notes) ctx.note(n);
    const auto write_start = Clock::now();
    // The input's colour profile and metadata go along (orientation and pixel size updated).
    write_photo(ctx, out, r.image.view(), image.metadata);
    if (const auto overlay = ctx.args.get("seams-overlay"))
        io::write_image(*overlay, r.overlay.view());
    if (const auto map = ctx.args.get("importance-map"))
        io::write_image(*map, levels_image(importance.levels).view());
    const double write_ms = ms_since(write_start);
    if (ctx.json) {
        std::vector<JsonObject> faces;
        for (const ops::FaceBox& f : importance.faces)
            faces.push_back(JsonObject()
                                .add("x", f.x)
                                .add("y", f.y)
                                .add("width", f.width)
                                .add("height", f.height)
                                .add("profile", f.profile));
        const char* mode = p.automatic ? "auto" : (p.amount < 100 ? "amount" : "seams");
        JsonObject report = resize_report(in, out, w, h, r.image.width(), r.image.height());
        report.add("energy", ops::to_string(p.energy))
            .add("mode", mode)
            .add("amount", p.amount)
            .add_raw("faces", json_array(faces))
            .add("lines", static_cast<int>(importance.lines.size()))
            .add("importance", p.importance != nullptr)
            .add("importance_detect_ms", importance.detect_ms)
            .add("importance_maps_ms", importance.maps_ms);
        add_carve_report(report, r, used, load_ms, carve_ms, write_ms)
            .add("width_mix", side_json(r.mixed ? r.width_mix
                                                : seams_only(w, r.image.width(),
                                                             r.seams_removed_vertical +
                                                                 r.seams_inserted_vertical,
                                                             p.energy)))
            .add("height_mix", side_json(r.mixed ? r.height_mix
                                                 : seams_only(h, r.image.height(),
                                                              r.seams_removed_horizontal +
                                                                  r.seams_inserted_horizontal,
                                                              p.energy)));
        ctx.out << report.str() << "\n";
    }
    return kExitOk;
}

Command retarget_command() {
    return {
        {"retarget",
         "resize by seam carving, keeping what matters (shrink or enlarge)",
         "IN OUT [options]  (images, or videos: IN.mp4 OUT.mp4, frames/%05d.png)",
         {"IN", "OUT"},
         2,
         2,
         {{"width", "W", "target width in pixels, or a percentage like 50%"},
          {"height", "H", "target height in pixels or %"},
          {"energy", "E", param_help(ops::param(ops::seam_param_specs(), "energy"))},
          {"amount", "P", param_help(mix_spec("amount"))},
          {"auto", "", wrap_help(std::string(mix_spec("auto").help))},
          {"faces", "",
           "protect faces (images: on by default; videos: tracked over\n"
           "                            each shot)"},
          {"no-faces", "", "do not protect detected faces (images)"},
          {"face-weight", "N", param_help(mix_spec("face-weight"))},
          {"saliency", "", wrap_help(std::string(mix_spec("saliency").help))},
          {"saliency-weight", "N", param_help(mix_spec("saliency-weight"))},
          {"lines", "", wrap_help(std::string(mix_spec("lines").help))},
          {"line-weight", "N", param_help(mix_spec("line-weight"))},
          {"skin", "", wrap_help(std::string(mix_spec("skin").help))},
          {"skin-weight", "N", param_help(mix_spec("skin-weight"))},
          {"importance-map", "FILE",
           "write the importance levels used (grey: level × 4; faces white)"},
          {"protect", "MASK",
           "image of the same size; non-black pixels are carved only if unavoidable"},
          {"remove", "MASK", "image of the same size; non-black pixels are carved first"},
          param_option(video_spec("temporal"), "W", "videos: "),
          param_option(video_spec("temporal-term"), "T", "videos: "),
          param_option(video_spec("cut-threshold"), "T", "videos: "),
          param_option(video_spec("face-every"), "K", "videos: "),
          param_option(video_spec("importance-window"), "N", "videos: "),
          {"flicker", "", "videos: measure the flicker the carving adds (in --json)"},
          {"approximate", "F",
           "videos: seams of a 1/F-size copy (F = 2, 4 or 8; default 1 = exact):\n"
           "                            about F² times faster, for real-time video"},
          {"keep-truncated", "",
           "videos: retarget the frames a truncated file still has (default: refuse)"},
          {"no-audio", "", "videos: write no sound (default: the audio streams are copied)"},
          {"page", "N", "measurement stacks: the page to retarget (default 1)"},
          {"seams-overlay", "FILE",
           "write the original with removed seams (red: vertical, blue:\n"
           "                            horizontal) and duplicated seams (green)"}},
         "Targets run from 1 pixel to twice the original. Shrinking both sides tries width-first "
         "and\n"
         "height-first and keeps the cheaper. Enlarging duplicates the cheapest seams, at most 50 "
         "% per\n"
         "step. With --remove and no size, the width shrinks until every marked pixel is gone.\n"
         "The input's ICC profile, EXIF, XMP and IPTC are written to OUT where its format holds "
         "them\n"
         "(EXIF orientation 1, as the pixels are turned upright on reading; pixel size updated).\n"
         "Measurements (16-bit, signed, float, DICOM, FITS) are carved as the editor carves them:\n"
         "seams decided on every bit, stored samples moved; OUT keeps their type where its format\n"
         "holds it (16-bit PNG, TIFF, PGM; float TIFF, PFM). Importance and scaling are for "
         "photos.\n"
         "Videos (MP4, AVI, MKV, MOV or a PNG sequence) keep their frame rate and frame count; "
         "their\n"
         "audio streams are copied as they are (no re-encoding) into a video OUT; a stream OUT's\n"
         "container cannot hold is transcoded to AAC with a note (.mkv holds them all); a PNG\n"
         "sequence has no sound. Progress goes to stderr; the output appears only when every frame "
         "is "
         "written."},
        run_retarget};
}

}  // namespace lacuna::cli
