// lacuna inpaint on a video: an object (a still mask, or a mask video / sequence) removed from
// every frame with the flow-guided fill of lacuna_video; progress on stderr, a JSON summary.
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

#include <chrono>
#include <cstdio>

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

}  // namespace

int run_inpaint_video(Context& ctx) {
    const std::string& in = ctx.args.positionals[0];
    const std::string& mask = ctx.args.positionals[1];
    const std::string& out = ctx.args.positionals[2];
    check_video_output(out, "a video fill");
    refuse_overwriting_inputs(out, {in, mask});
    if (ctx.args.has("never-sample") || ctx.args.has("reference"))
        throw UsageError("--never-sample and --reference apply to images");

    video::InpaintVideoOptions o;
    o.input = in;
    o.mask = mask;
    o.output = out;
    parse_params(ctx.args, ops::inpaint_param_fields(), o.params.fill);
    if (const auto search = ctx.args.get("search");
        search && !ops::parse_inpaint_search(*search, o.params.fill))
        throw UsageError("--search must be 'full', 'window' or 'window:A' with A ≥ 0, not '" +
                         *search + "'");
    if (const auto f = ctx.args.get("frames")) parse_frame_range(*f, o.first, o.end);
    o.allow_truncated = ctx.args.has("keep-truncated");
    // The key-frame fills run on the CPU: the CUDA filler's start-up would be paid per key frame
    // and the propagation itself is CPU code (see docs/notes/video-inpainting.md).
    o.params.implementation = ops::InpaintImplementation::Fast;

    const auto start = Clock::now();
    ProgressPace pace;
    const video::InpaintVideoResult r =
        video::inpaint_video(o, [&](const video::VideoInpaintProgress& p) {
            if (pace.due(p.done >= p.total && p.stage == "fill")) {
                char line[160];
                std::snprintf(line, sizeof line, "lacuna: %s: frame %d of %d, %.1f s\n",
                              p.stage.c_str(), p.done, p.total, ms_since(start) / 1000);
                ctx.err << line << std::flush;
            }
            return true;
        });
    for (const std::string& n : r.notices) ctx.note(n);
    const video::VideoInpaintStats& st = r.stats;
    char done[256];
    std::snprintf(done, sizeof done,
                  "lacuna: %d frames in %.1f s (%.2f fps); hole pixels: %.1f %% from other "
                  "frames, %.1f %% carried, %.1f %% filled on %d key frames; %d cuts\n",
                  r.frames, r.seconds, r.seconds > 0 ? r.frames / r.seconds : 0.0,
                  st.hole_pixels ? 100.0 * st.from_other_frames / st.hole_pixels : 0.0,
                  st.hole_pixels ? 100.0 * st.carried / st.hole_pixels : 0.0,
                  st.hole_pixels ? 100.0 * st.synthesized / st.hole_pixels : 0.0, st.key_fills,
                  st.cuts);
    ctx.err << done;
    if (ctx.json) {
        ctx.out << JsonObject()
                       .add("input", in)
                       .add("mask", mask)
                       .add("output", out)
                       .add("frames", r.frames)
                       .add("first_frame", o.first)
                       .add("clip_frames", r.clip_frames)
                       .add("width", r.width)
                       .add("height", r.height)
                       .add("fps", r.fps)
                       .add("output_codec", r.output_codec)
                       .add("hole_pixels", st.hole_pixels)
                       .add("from_other_frames", st.from_other_frames)
                       .add("carried", st.carried)
                       .add("synthesized", st.synthesized)
                       .add("key_fills", st.key_fills)
                       .add("cuts", st.cuts)
                       .add("seconds", r.seconds)
                       .add("flow_seconds", st.flow_seconds)
                       .add("fill_seconds", st.fill_seconds)
                       .str()
                << "\n";
    }
    return kExitOk;
}

}  // namespace lacuna::cli
