// lacuna inpaint on a video: an object (a still mask, a mask video / sequence, or masks on key
// frames tracked to every frame) removed from every frame with the flow-guided fill of
// lacuna_video; progress on stderr, a JSON summary.
#include "commands.hpp"
#include "json.hpp"
#include "options.hpp"
#include "output.hpp"
#include "timing.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/io/video_io.hpp>
#include <lacuna/ops/params.hpp>
#include <lacuna/video/inpaint_video.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iomanip>
#include <sstream>

namespace lacuna::cli {
namespace {

/// "A:B" → frames [A, B); "A:" → from A to the end.
void parse_frame_range(const std::string& text, int& first, int& end) {
    const auto colon = text.find(':');
    if (colon == std::string::npos)
        throw UsageError("--frames takes A:B (frames A to B − 1, from 0) or A:, not '" + text +
                         "'");
    first = parse_int("frames", text.substr(0, colon));
    const std::string b = text.substr(colon + 1);
    end = b.empty() ? -1 : parse_int("frames", b);
    if (first < 0 || (end >= 0 && end <= first))
        throw UsageError("--frames A:B needs 0 ≤ A < B, not '" + text + "'");
}

/// "F:PATH" → a key-frame mask file.
video::KeyMaskFile parse_mask_key(const std::string& text) {
    const auto colon = text.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == text.size())
        throw UsageError("--mask-key takes FRAME:MASK (e.g. 0:mask.png, frames from 0), not '" +
                         text + "'");
    const int frame = parse_int("mask-key", text.substr(0, colon));
    if (frame < 0) throw UsageError("--mask-key: the frame must be 0 or more, not '" + text + "'");
    return {frame, text.substr(colon + 1)};
}

std::string int_array(const std::vector<int>& values) {
    std::string json = "[";
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i > 0) json += ',';
        json += std::to_string(values[i]);
    }
    return json + "]";
}

}  // namespace

int run_inpaint_video(Context& ctx) {
    // CLIP MASK OUT, or CLIP OUT with --mask-key.
    const bool keyed = ctx.args.positionals.size() == 2;
    const std::string& in = ctx.args.positionals[0];
    const std::string mask = keyed ? std::string() : ctx.args.positionals[1];
    const std::string& out = ctx.args.positionals[keyed ? 1 : 2];
    if (keyed && !ctx.args.has("mask-key"))
        throw UsageError("a video needs a MASK (still, video or sequence) or --mask-key F:MASK");
    if (!keyed && ctx.args.has("mask-key")) throw UsageError("give MASK or --mask-key, not both");
    check_video_output(out, "a video fill");
    refuse_overwriting_inputs(out, {in, mask});
    if (ctx.args.has("never-sample") || ctx.args.has("reference"))
        throw UsageError("--never-sample and --reference apply to images");

    video::InpaintVideoOptions o;
    o.input = in;
    o.mask = mask;
    o.output = out;
    for (const std::string& k : ctx.args.get_all("mask-key")) {
        o.mask_keys.push_back(parse_mask_key(k));
        refuse_overwriting_inputs(out, {o.mask_keys.back().path.string()});
    }
    if (parse_params(ctx.args, ops::mask_track_param_fields(), o.track) > 0 && !keyed)
        throw UsageError(
            "--no-grabcut, --track-band, --track-core and --grabcut-iterations "
            "apply to --mask-key");
    if (const auto dir = ctx.args.get("save-masks")) o.save_masks = *dir;
    parse_params(ctx.args, ops::inpaint_param_fields(), o.params.fill);
    parse_params(ctx.args, ops::temporal_fill_param_fields(), o.params.temporal);
    if (const auto search = ctx.args.get("search");
        search && !ops::parse_inpaint_search(*search, o.params.fill))
        throw UsageError("--search must be 'full', 'window' or 'window:A' with A ≥ 0, not '" +
                         *search + "'");
    if (const auto f = ctx.args.get("frames")) parse_frame_range(*f, o.first, o.end);
    o.allow_truncated = ctx.args.has("keep-truncated");
    o.carry_audio = !ctx.args.has("no-audio");
    // The key fills (image fills) and the 3-D fill of what no frame shows run on the backend
    // chosen, as `lacuna inpaint` on an image: their CUDA paths make exactly the fast CPU paths'
    // decisions, so the frames are the same. The flow and the propagation are CPU code. A device
    // failure under --backend auto runs the whole job again on the CPU (nothing is written until
    // every frame is in). The choice is told after the job (an input the job refuses gets its
    // one-line error alone).
    const BackendInfo backend = lacuna::select_backend(ctx.backend);
    std::string key_fill_backend;
    const auto start = Clock::now();
    ProgressPace pace;
    const video::InpaintVideoResult r =
        ctx.with_cpu_fallback(backend.backend, [&](const Backend b) {
            key_fill_backend = b == Backend::Cuda ? backend.describe() : "CPU";
            o.params.implementation = b == Backend::Cuda ? ops::InpaintImplementation::Cuda
                                                         : ops::InpaintImplementation::Fast;
            o.params.volume_implementation = b == Backend::Cuda
                                                 ? ops::PatchMatch3dImplementation::Cuda
                                                 : ops::PatchMatch3dImplementation::Fast;
            return video::inpaint_video(o, [&](const video::VideoInpaintProgress& p) {
                if (pace.due(p.done >= p.total && p.stage == "fill")) {
                    char line[160];
                    std::snprintf(line, sizeof line, "lacuna: %s: frame %d of %d, %.1f s\n",
                                  p.stage.c_str(), p.done, p.total, ms_since(start) / 1000);
                    ctx.err << line << std::flush;
                }
                return true;
            });
        });
    if (ctx.backend == BackendRequest::Auto && backend.backend == Backend::Cpu && cuda_built())
        ctx.note("ran on the CPU: " + backend.reason);
    for (const std::string& n : r.notices) ctx.note(n);
    const video::VideoInpaintStats& st = r.stats;
    char done[256];
    std::snprintf(done, sizeof done,
                  "lacuna: %d frames in %.1f s (%.2f fps); hole pixels: %.1f %% from other "
                  "frames, %.1f %% carried, %.1f %% synthesised (%d key fills, %d 3-D fills); "
                  "%d cuts\n",
                  r.frames, r.seconds, r.seconds > 0 ? r.frames / r.seconds : 0.0,
                  st.hole_pixels ? 100.0 * st.from_other_frames / st.hole_pixels : 0.0,
                  st.hole_pixels ? 100.0 * st.carried / st.hole_pixels : 0.0,
                  st.hole_pixels ? 100.0 * st.synthesized / st.hole_pixels : 0.0, st.key_fills,
                  st.volume_fills, st.cuts);
    ctx.err << done;
    const AudioOutcome audio{r.audio, r.audio_left_out,
                             io::video_container_for_path(out) == io::VideoContainer::PngSequence,
                             !o.carry_audio};
    ctx.err << audio_summary_line(audio);
    char stages[320];
    std::snprintf(stages, sizeof stages,
                  "lacuna: decode %.1f s, flow %.1f s, propagation %.1f s, key fills %.1f s (%s), "
                  "encode %.1f s beside the fill + %.1f s after it\n",
                  r.decode_seconds, st.flow_seconds, st.propagate_seconds, st.fill_seconds,
                  key_fill_backend.c_str(), r.encode_seconds, r.encode_tail_seconds);
    ctx.err << stages;
    const video::MaskTrackStats& ts = r.track_stats;
    std::vector<int> key_frames;
    for (const video::KeyMaskFile& k : o.mask_keys) key_frames.push_back(k.frame);
    std::sort(key_frames.begin(), key_frames.end());
    if (r.tracked) {
        std::string margins;
        for (const int m : ts.margins) {
            if (!margins.empty()) margins += ", ";
            margins += std::to_string(m);
        }
        char line[320];
        std::snprintf(line, sizeof line,
                      "lacuna: masks tracked from %d key frame(s) through %d frames in %.1f s "
                      "(%.0f ms a frame; %s; margins %s px; %d frame(s) with an empty mask)\n",
                      ts.key_frames, r.frames, r.track_seconds,
                      r.frames > 0 ? 1000.0 * r.track_seconds / r.frames : 0.0,
                      o.track.grabcut ? "flow + GrabCut" : "flow alone",
                      margins.empty() ? "-" : margins.c_str(), r.empty_masks);
        ctx.err << line;
    }
    if (ctx.json) {
        JsonObject tracking;
        if (r.tracked) {
            tracking.add_raw("key_frames", int_array(key_frames))
                .add("grabcut", o.track.grabcut)
                .add("band", o.track.band)
                .add("core", o.track.core)
                .add("grabcut_iterations", o.track.grabcut_iterations)
                .add_raw("margins", int_array(ts.margins))
                .add_raw("flow_only_keys", int_array(ts.flow_only_keys))
                .add("refined_frames", ts.refined_frames)
                .add("seconds", r.track_seconds)
                .add("ms_per_frame", r.frames > 0 ? 1000.0 * r.track_seconds / r.frames : 0.0)
                .add("flow_seconds", ts.flow_seconds)
                .add("carry_seconds", ts.carry_seconds)
                .add("refine_seconds", ts.refine_seconds);
        }
        const std::string_view method_name =
            ops::param(ops::temporal_fill_param_specs(), "temporal-fill")
                .choices[static_cast<std::size_t>(o.params.temporal.method)];
        // Per shot: the camera motion measured (pixels a frame) that `auto` decides by.
        std::ostringstream motion;
        motion << std::setprecision(4) << "[";
        for (std::size_t i = 0; i < st.shot_motion.size(); ++i)
            motion << (i ? ", " : "") << st.shot_motion[i];
        motion << "]";
        const int volume_shots =
            static_cast<int>(std::count(st.shot_volume.begin(), st.shot_volume.end(), true));
        JsonObject report;
        report.add("input", in).add("mask", mask);
        if (r.tracked) report.add("tracking", tracking);
        if (!o.save_masks.empty()) report.add("saved_masks", o.save_masks.string());
        report.add("output", out)
            .add("frames", r.frames)
            .add("first_frame", o.first)
            .add("clip_frames", r.clip_frames)
            .add("width", r.width)
            .add("height", r.height)
            .add("fps", r.fps)
            .add("output_codec", r.output_codec)
            .add("mask_pixels_min", r.mask_pixels_min)
            .add("mask_pixels_max", r.mask_pixels_max)
            .add("empty_masks", r.empty_masks)
            .add("hole_pixels", st.hole_pixels)
            .add("from_other_frames", st.from_other_frames)
            .add("carried", st.carried)
            .add("synthesized", st.synthesized)
            .add("key_fills", st.key_fills)
            .add("volume_fills", st.volume_fills)
            .add("temporal_fill", method_name)
            .add_raw("shot_motion", motion.str())
            .add("volume_shots", volume_shots)
            .add("cuts", st.cuts)
            .add("seconds", r.seconds)
            .add("decode_seconds", r.decode_seconds)
            .add("flow_seconds", st.flow_seconds)
            .add("propagate_seconds", st.propagate_seconds)
            .add("fill_seconds", st.fill_seconds)
            .add("encode_seconds", r.encode_seconds)
            .add("encode_tail_seconds", r.encode_tail_seconds)
            .add("key_fill_backend", key_fill_backend);
        ctx.out << add_audio(report, audio).str() << "\n";
    }
    return kExitOk;
}

}  // namespace lacuna::cli
