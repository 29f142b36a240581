// lacuna retarget on a video: every frame carved to the target size with temporally coherent
// seams, through the decode → carve → encode pipeline; progress on stderr, a JSON summary.
#include "commands.hpp"
#include "json.hpp"
#include "options.hpp"
#include "output.hpp"
#include "timing.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/io/video_io.hpp>
#include <lacuna/ops/importance.hpp>
#include <lacuna/ops/params.hpp>
#include <lacuna/video/retarget_video.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>

namespace lacuna::cli {
namespace {

std::string clock_text(const double seconds) {
    if (seconds < 0) return "?";
    const int s = static_cast<int>(std::lround(seconds));
    char text[32];
    std::snprintf(text, sizeof text, "%d:%02d", s / 60, s % 60);
    return text;
}

}  // namespace

int run_retarget_video(Context& ctx) {
    const std::string& in = ctx.args.positionals[0];
    const std::string& out = ctx.args.positionals[1];
    check_video_output(out, "a video retarget");
    refuse_overwriting_inputs(out, {in});
    if (ctx.args.has("remove") || ctx.args.has("seams-overlay"))
        throw UsageError("--remove and --seams-overlay are for images; a video takes --protect");
    cuda_prefer_many_queues();  // frames carve side by side on many streams
    if (!ctx.args.has("width") && !ctx.args.has("height"))
        throw UsageError("give a target size with --width and/or --height (pixels or %)");

    // The frame size first (the reader is opened again by the pipeline: cheap, and it keeps
    // the pipeline the only owner of its reader).
    const io::VideoInfo info = io::VideoReader(in).info();
    video::RetargetVideoOptions o;
    o.input = in;
    o.output = out;
    o.params.width = ctx.args.has("width")
                         ? parse_extent("width", *ctx.args.get("width"), info.width)
                         : info.width;
    o.params.height = ctx.args.has("height")
                          ? parse_extent("height", *ctx.args.get("height"), info.height)
                          : info.height;
    // The declared tables (engine/ops/params.cpp): --energy from the seam carver's, --temporal,
    // --temporal-term and --cut-threshold from video retargeting's, checked and worded alike.
    ops::RetargetParams seam;
    seam.energy = o.params.energy;
    parse_params(ctx.args, ops::seam_param_fields(), seam);
    o.params.energy = seam.energy;
    parse_params(ctx.args, ops::video_retarget_param_fields(), o.params);
    std::optional<Mask> protect;
    if (const auto m = ctx.args.get("protect"))
        protect = load_mask(*m, "the protect mask", info.width, info.height);
    o.params.protect = protect ? &*protect : nullptr;
    o.measure_flicker = ctx.args.has("flicker");
    o.allow_truncated = ctx.args.has("keep-truncated");
    o.carry_audio = !ctx.args.has("no-audio");
    if (const auto a = ctx.args.get("approximate"))
        o.params.approximate = parse_int("approximate", *a);
    // Importance: faces tracked over each shot (--faces), saliency, lines and skin per frame.
    o.importance = importance_options(ctx.args, false);
    o.params.importance_unit = ops::importance_unit(o.params.energy);
    const BackendInfo backend = ctx.select_backend();
    o.implementation = backend.backend == Backend::Cuda ? ops::CarveImplementation::Cuda
                                                        : ops::CarveImplementation::Fast;

    ProgressPace pace;
    const video::RetargetVideoResult r =
        video::retarget_video(o, [&](const video::VideoProgress& p) {
            if (pace.due(p.total > 0 && p.frame >= p.total)) {
                char line[160];
                std::snprintf(line, sizeof line, "lacuna: frame %d of %s, %.1f fps, %s left\n",
                              p.frame, p.total > 0 ? std::to_string(p.total).c_str() : "?", p.fps,
                              clock_text(p.seconds_left).c_str());
                ctx.err << line << std::flush;
            }
            return true;
        });
    for (const std::string& n : r.notices) ctx.note(n);
    char done[160];
    std::snprintf(done, sizeof done, "lacuna: %d frames in %.1f s (%.1f fps, %s carver)\n",
                  r.frames, r.seconds, r.seconds > 0 ? r.frames / r.seconds : 0.0,
                  r.backend.c_str());
    ctx.err << done;
    const AudioOutcome audio{r.audio, r.audio_left_out,
                             io::video_container_for_path(out) == io::VideoContainer::PngSequence,
                             !o.carry_audio};
    ctx.err << audio_summary_line(audio);
    if (!r.importance_terms.empty() && o.importance.faces) {
        std::snprintf(done, sizeof done,
                      "lacuna: %d face track(s); detector on %d frames, %.1f s (%.0f ms a frame), "
                      "first pass %.1f s\n",
                      r.face_tracks, r.faces_examined_frames, r.face_detect_seconds,
                      r.faces_examined_frames > 0
                          ? 1000 * r.face_detect_seconds / r.faces_examined_frames
                          : 0.0,
                      r.face_pass_seconds);
        ctx.err << done;
    }
    if (ctx.json) {
        JsonObject json;
        json.add("input", in)
            .add("output", out)
            .add("frames", r.frames)
            .add("fps", r.fps)
            .add("width", r.width)
            .add("height", r.height)
            .add("target_width", r.out_width)
            .add("target_height", r.out_height)
            .add("energy", ops::to_string(o.params.energy))
            .add("temporal", o.params.temporal)
            .add("temporal_term", ops::to_string(o.params.term))
            .add("approximate", o.params.approximate)
            .add("cuts", r.cuts)
            .add("input_codec", r.input_codec)
            .add("output_codec", r.output_codec)
            .add("backend", r.backend)
            .add("seconds", r.seconds)
            .add("frames_per_second", r.seconds > 0 ? r.frames / r.seconds : 0.0)
            .add("decode_seconds", r.decode_seconds)
            .add("carve_seconds", r.carve_seconds)
            .add("encode_seconds", r.encode_seconds);
        json.add("importance_terms", r.importance_terms)
            .add("importance", !r.importance_terms.empty())
            .add("face_tracks", r.face_tracks)
            .add("face_every", o.params.face_every)
            .add("importance_window", o.params.importance_window)
            .add("importance_smooth_seconds", r.importance_smooth_seconds)
            .add("face_examined_frames", r.faces_examined_frames)
            .add("face_detections", r.face_detections)
            .add("face_detect_seconds", r.face_detect_seconds)
            .add("face_pass_seconds", r.face_pass_seconds)
            .add("importance_map_seconds", r.importance_map_seconds);
        if (o.measure_flicker) json.add("flicker_excess", r.flicker_excess);
        add_audio(json, audio);
        ctx.out << json.str() << "\n";
    }
    return kExitOk;
}

}  // namespace lacuna::cli
