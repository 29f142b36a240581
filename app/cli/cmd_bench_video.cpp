// lacuna bench video: video retargeting end to end (decode, carve, encode) and carve only, on the
// CPU and CUDA in the same run, and the flicker of independent against temporally coherent seams.
// Without --input the clip is made here: a slow pan and zoom over a photo (the generator is this
// file; nothing large is committed).
#include "bench_util.hpp"
#include "commands.hpp"
#include "options.hpp"

#include <lacuna/core/backend.hpp>
#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/io/video_io.hpp>
#include <lacuna/ops/face_tracks.hpp>
#include <lacuna/ops/importance.hpp>
#include <lacuna/ops/video_retarget.hpp>
#include <lacuna/video/retarget_video.hpp>

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace lacuna::cli {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(const Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

/// A camera panning slowly across `photo` (1.5 output pixels a frame, with a slight vertical
/// sway) and zooming in by 0.1 % a frame: frame f shows a window of the photo resampled to
/// w × h (bicubic), like a handheld camera on a tripod head.
ImageRgba8 pan_frame(const cv::Mat& photo, const int w, const int h, const int f,
                     const int frames) {
    (void)frames;
    const double aspect = static_cast<double>(w) / h;
    double win_w = std::min<double>(photo.cols * 0.7, photo.rows * 0.9 * aspect);
    win_w /= 1.0 + 0.001 * f;
    const double win_h = win_w / aspect;
    const double px = 1.5 * win_w / w;  // one output pixel in photo pixels
    const double x0 = std::clamp(photo.cols * 0.05 + px * f, 0.0, photo.cols - win_w);
    const double y0 = (photo.rows - win_h) * (0.5 + 0.2 * std::sin(0.02 * f));
    // An affine map from output pixels to the window keeps sub-pixel motion smooth.
    const double s = win_w / w;
    cv::Mat affine = (cv::Mat_<double>(2, 3) << s, 0, x0, 0, s, y0);
    cv::Mat out;
    cv::warpAffine(photo, out, affine, cv::Size(w, h), cv::INTER_CUBIC | cv::WARP_INVERSE_MAP,
                   cv::BORDER_REFLECT);
    return from_mat(out);
}

std::string make_clip(const std::string& photo_path, const int w, const int h, const int frames,
                      const std::filesystem::path& out) {
    const io::LoadedImage photo = io::read_image(photo_path);
    const cv::Mat rgba = as_mat(photo.image).clone();
    io::VideoWriter writer(out, w, h, 30.0);
    for (int f = 0; f < frames; ++f) writer.write(pan_frame(rgba, w, h, f, frames));
    writer.finish();
    return writer.codec();
}

std::vector<ImageRgba8> decode_all(const std::filesystem::path& path, const int limit) {
    io::VideoReader reader(path);
    std::vector<ImageRgba8> frames;
    while (static_cast<int>(frames.size()) < limit) {
        std::optional<ImageRgba8> f = reader.next();
        if (!f) break;
        frames.push_back(std::move(*f));
    }
    return frames;
}

/// "a,b,c" → {"a", "b", "c"} (the bench's list options).
std::vector<std::string> split_list(const std::string& list) {
    std::vector<std::string> items;
    std::stringstream in(list);
    for (std::string item; std::getline(in, item, ',');) items.push_back(item);
    return items;
}

struct CarveRun {
    double flicker = 0;
    double seam_change = 0;  ///< share of removed pixels changing between frames (width seams)
    int cuts = 0;
    /// With tracked faces: the share of each face box's pixels that the width seams keep (its
    /// aspect ratio kept, when only the width changes), mean and worst over frames and faces.
    double face_kept_mean = 0, face_kept_worst = 1;
    int face_boxes = 0;
};

/// The share of `box`'s pixels that the first `count` seams of a vertical order keep.
double kept_share(const ops::SeamOrder& order, const int count, const ops::FaceBox& box) {
    std::int64_t kept = 0, all = 0;
    for (int y = std::max(0, box.y); y < std::min(order.height, box.y + box.height); ++y)
        for (int x = std::max(0, box.x); x < std::min(order.width, box.x + box.width); ++x) {
            kept += order.order.at(x, y) >= count;
            ++all;
        }
    return all > 0 ? double(kept) / all : 1.0;
}

/// Carve-only speed: the frames in the groups the carver takes at once (process_batch), after a
/// warm-up group (device context, allocations).
double carve_fps(const std::vector<ImageRgba8>& frames, const ops::VideoRetargetParams& p,
                 const ops::CarveImplementation impl) {
    const auto run = [&](const std::size_t limit) {
        ops::VideoRetargeter carver(frames[0].width(), frames[0].height(), p, impl);
        const std::size_t group = static_cast<std::size_t>(carver.frames_in_flight());
        const std::size_t n = std::min(limit, frames.size());
        for (std::size_t i = 0; i < n; i += group) {
            std::vector<ImageView<const Rgba8>> views;
            for (std::size_t j = i; j < std::min(n, i + group); ++j)
                views.push_back(frames[j].view());
            (void)carver.process_batch(views);
        }
        return n;
    };
    (void)run(2);
    const auto t = Clock::now();
    const std::size_t n = run(frames.size());
    const double s = seconds_since(t);
    return s > 0 ? n / s : 0;
}

/// Flicker and seam steadiness, frame after frame (process_batch gives the same frames).
/// With `faces` (per frame, tracked): each frame's importance map from them (`importance`'s
/// terms) goes to the carver, and how much of each face box the width seams keep is measured
/// (whether or not `use_faces` gives the maps to the carver).
CarveRun carve_frames(const std::vector<ImageRgba8>& frames, const ops::VideoRetargetParams& p,
                      const ops::CarveImplementation impl,
                      const std::vector<std::vector<ops::FaceBox>>* faces = nullptr,
                      const bool use_faces = false) {
    ops::VideoRetargeter carver(frames[0].width(), frames[0].height(), p, impl);
    (void)ops::VideoRetargeter(frames[0].width(), frames[0].height(), p, impl)
        .process(frames[0].view());  // warm-up: device context, allocations
    ops::FlickerMeter meter;
    double carve = 0, change = 0;
    int pairs = 0;
    std::optional<ops::SeamOrder> previous;
    double kept_sum = 0, kept_worst = 1;
    int boxes = 0;
    for (std::size_t f = 0; f < frames.size(); ++f) {
        const ImageRgba8& frame = frames[f];
        const std::vector<ops::FaceBox> none;
        const std::vector<ops::FaceBox>& here = faces && f < faces->size() ? (*faces)[f] : none;
        std::optional<Mask> map;
        if (use_faces && !here.empty())
            map = ops::importance_map(frame.view(), ops::ImportanceParams{}, here).levels;
        const auto t = Clock::now();
        const ImageRgba8 out = carver.process(frame.view(), map ? &*map : nullptr);
        carve += seconds_since(t);
        meter.add(frame.view(), out.view());
        if (carver.vertical_order() && p.height == frame.height())
            for (const ops::FaceBox& box : here) {
                const double k = kept_share(*carver.vertical_order(), frame.width() - p.width, box);
                kept_sum += k;
                kept_worst = std::min(kept_worst, k);
                ++boxes;
            }
        if (carver.vertical_order()) {
            if (previous) {
                change += ops::removed_pixels_changed(*previous, *carver.vertical_order(),
                                                      std::abs(p.width - frame.width()));
                ++pairs;
            }
            previous = carver.vertical_order();
        }
    }
    CarveRun r;
    r.face_boxes = boxes;
    r.face_kept_mean = boxes > 0 ? kept_sum / boxes : 0;
    r.face_kept_worst = boxes > 0 ? kept_worst : 0;
    r.flicker = meter.excess();
    r.seam_change = pairs > 0 ? change / pairs : 0;
    r.cuts = carver.cuts();
    return r;
}

}  // namespace

int bench_video(Context& ctx) {
    const std::filesystem::path dir = make_temp_dir();
    struct Cleanup {
        std::filesystem::path d;
        ~Cleanup() {
            std::error_code ec;
            std::filesystem::remove_all(d, ec);
        }
    } cleanup{dir};
    std::string input = ctx.args.get("input").value_or("");
    std::string source_note;
    const int frames_wanted =
        ctx.args.has("frames") ? parse_int("frames", *ctx.args.get("frames")) : 60;
    if (frames_wanted < 2) throw UsageError("--frames must be at least 2");
    if (input.empty()) {
        const auto [w, h] = parse_size("size", ctx.args.get("size").value_or("1280x720"));
        const std::string photo =
            ctx.args.get("photo").value_or(std::string(LACUNA_BENCH_DATA_DIR) + "/building.jpg");
        input = (dir / "clip.mp4").string();
        const auto t = Clock::now();
        const std::string codec = make_clip(photo, w, h, frames_wanted, input);
        char text[256];
        std::snprintf(text, sizeof text,
                      "generated: %dx%d, %d frames at 30 fps, a slow pan and 15 %% zoom over %s "
                      "(%s, %.1f s to make)",
                      w, h, frames_wanted, photo.c_str(), codec.c_str(), seconds_since(t));
        source_note = text;
        if (const auto keep = ctx.args.get("keep-clip"))
            std::filesystem::copy_file(input, *keep,
                                       std::filesystem::copy_options::overwrite_existing);
    }
    const io::VideoInfo info = io::VideoReader(input).info();
    const auto [tw, th] =
        parse_size("target", ctx.args.get("target").value_or(std::to_string(info.width * 3 / 4) +
                                                             "x" + std::to_string(info.height)));
    ops::VideoRetargetParams p;
    p.width = tw;
    p.height = th;
    parse_params(ctx.args, ops::video_retarget_param_fields(), p);  // --temporal, --temporal-term

    cuda_prefer_many_queues();  // frames carve side by side on many streams
    const BackendInfo backend = lacuna::select_backend(
        ctx.backend == BackendRequest::Cpu ? BackendRequest::Cpu : BackendRequest::Auto);
    struct Carver {
        std::string name;
        ops::CarveImplementation impl;
        int approximate;
        int chained;     ///< frames carved side by side (0: the default)
        int max_frames;  ///< 0: the whole clip
    };
    // The exact CPU carver takes seconds a frame at 720p: it runs on the first frames only.
    const int cpu_frames =
        ctx.args.has("cpu-frames") ? parse_int("cpu-frames", *ctx.args.get("cpu-frames")) : 20;
    std::vector<Carver> impls;
    // Exact seams with the per-seam term (or none) are carved as a wavefront of frames by default
    // (the GPU: streams; the CPU: a thread per frame); "1by1" is the same carve one frame after
    // another.
    const bool chains = p.term == ops::TemporalTerm::PerSeam || p.temporal == 0;
    if (backend.backend == Backend::Cuda) {
        if (!chains) impls.push_back({"cuda", ops::CarveImplementation::Cuda, 1, 0, 0});
        // --chained 16,32: one wave row per group size (default: the carver's choice).
        std::vector<int> groups{0};
        if (const auto list = ctx.args.get("chained")) {
            groups.clear();
            for (const std::string& item : split_list(*list))
                groups.push_back(parse_int("chained", item));
        }
        for (const int g : groups)
            if (chains)
                impls.push_back({g > 0 ? "cuda wave" + std::to_string(g) : "cuda wave",
                                 ops::CarveImplementation::Cuda, 1, g, 0});
        if (chains) impls.push_back({"cuda 1by1", ops::CarveImplementation::Cuda, 1, 1, 0});
        impls.push_back({"cuda ~1/2", ops::CarveImplementation::Cuda, 2, 0, 0});
        impls.push_back({"cuda ~1/4", ops::CarveImplementation::Cuda, 4, 0, 0});
    }
    impls.push_back(
        {chains ? "cpu wave" : "cpu fast", ops::CarveImplementation::Fast, 1, 0, cpu_frames});
    if (chains) impls.push_back({"cpu 1by1", ops::CarveImplementation::Fast, 1, 1, cpu_frames});
    impls.push_back({"cpu ~1/4", ops::CarveImplementation::Fast, 4, 0, 0});
    const bool faces = ctx.args.has("faces");
    // --carvers "cuda wave,cpu ~1/4": only the rows whose name starts with one of these.
    if (const auto list = ctx.args.get("carvers")) {
        const std::vector<std::string> wanted = split_list(*list);
        std::erase_if(impls, [&](const Carver& c) {
            return std::none_of(wanted.begin(), wanted.end(),
                                [&](const std::string& w) { return c.name.rfind(w, 0) == 0; });
        });
        if (impls.empty()) throw UsageError("--carvers matches none of the carvers");
    }

    ctx.out << "device: " << backend.describe() << "\n";
    ctx.out << "lacuna bench video: " << (source_note.empty() ? input : source_note) << "\n";
    char line[320];
    std::snprintf(line, sizeof line,
                  "input %dx%d, %d frames at %.2f fps (%s) -> %dx%d, temporal weight %.2f (term: "
                  "%s)\n\n",
                  info.width, info.height, info.frame_count, info.fps, info.codec.c_str(), tw, th,
                  p.temporal, ops::to_string(p.term).c_str());
    ctx.out << line;
    const std::vector<ImageRgba8> frames = decode_all(input, frames_wanted);
    if (frames.size() < 2)
        throw Error(ErrorCode::InvalidArgument, "the clip has fewer than 2 frames");
    // The face pass alone (decoding the clip again, the detector, the tracks), as the pipeline
    // runs it before carving.
    ops::FaceTracks tracks;
    if (faces) {
        const video::VideoFaceTracks pass =
            video::video_face_tracks(input, p.face_every, ops::ImportanceParams{}.detect_max_side,
                                     p.cut_threshold, ops::FaceTrackParams{}, frames_wanted, true);
        for (const std::string& n : pass.notes) ctx.out << "note: " << n << "\n";
        std::snprintf(line, sizeof line,
                      "face pass: detector on %d of %d frames (every %d), %.1f ms a frame "
                      "(%.2f s), tracking %.2f ms, whole pass %.2f s with decoding; %d "
                      "detections -> %d track(s), %d cut(s)\n",
                      pass.examined, pass.frames, p.face_every,
                      pass.examined > 0 ? 1000 * pass.detect_seconds / pass.examined : 0.0,
                      pass.detect_seconds, 1000 * pass.track_seconds, pass.seconds, pass.detections,
                      static_cast<int>(pass.tracks.tracks.size()), pass.cuts);
        ctx.out << line << std::flush;
        tracks = pass.tracks;
    }
    std::snprintf(line, sizeof line, "%-10s %12s %12s %10s %10s %10s  %s\n", "carver", "end-to-end",
                  "carve only", "decode", "carve", "encode", "(fps; busy s)");
    ctx.out << line;
    for (const auto& [name, impl, approximate, chained, max_frames] : impls) {
        video::RetargetVideoOptions o;
        o.input = input;
        o.output = dir / ("out-" + std::to_string(static_cast<int>(impl)) + "-" +
                          std::to_string(approximate) + "-" + std::to_string(chained) + ".mp4");
        o.params = p;
        o.params.approximate = approximate;
        o.params.chained_frames = chained;
        o.implementation = impl;
        o.allow_truncated = true;  // the bench times what decodes
        o.max_frames = max_frames;
        o.importance.faces = faces;
        o.params.importance_unit = ops::importance_unit(p.energy);
        const video::RetargetVideoResult r = video::retarget_video(o);
        const double carve =
            carve_fps(max_frames > 0 && max_frames < static_cast<int>(frames.size())
                          ? std::vector<ImageRgba8>(frames.begin(), frames.begin() + max_frames)
                          : frames,
                      o.params, impl);
        std::snprintf(line, sizeof line,
                      "%-10s %12.1f %12.1f %10.2f %10.2f %10.2f  %d frames, %s\n", name.c_str(),
                      r.frames / r.seconds, carve, r.decode_seconds, r.carve_seconds,
                      r.encode_seconds, r.frames, r.output_codec.c_str());
        ctx.out << line << std::flush;
    }
    if (faces) {
        // Faces kept and flicker, exact seams and seams ~1/4, with the tracked faces as
        // importance and without (the same boxes measured in both).
        ctx.out << "\nfaces over " << frames.size()
                << " frames (share of each tracked face box the width seams keep = its aspect "
                   "kept; flicker excess as below):\n";
        const ops::CarveImplementation cpu = ops::CarveImplementation::Fast;
        for (const int approximate : {1, 4}) {
            ops::VideoRetargetParams q = p;
            q.approximate = approximate;
            q.importance_unit = ops::importance_unit(p.energy);
            for (const bool use : {false, true}) {
                const CarveRun c = carve_frames(frames, q, cpu, &tracks.per_frame, use);
                std::snprintf(line, sizeof line,
                              "  %-12s %-13s face kept mean %.3f, worst %.3f (%d boxes); "
                              "flicker excess %.3f\n",
                              approximate == 1 ? "exact seams" : "seams ~1/4",
                              use ? "with faces:" : "without:", c.face_kept_mean, c.face_kept_worst,
                              c.face_boxes, c.flicker);
                ctx.out << line << std::flush;
            }
        }
        if (p.height != info.height)
            ctx.out << "  (the face measure counts width seams: the height changes too, so it "
                       "is left at 0)\n";
    }
    if (ctx.args.has("no-flicker")) return kExitOk;
    // Flicker: the same carver with independent frames and with the temporal term, exact and
    // approximate.
    const ops::CarveImplementation best = impls.front().impl;
    ctx.out << "\nflicker over " << frames.size()
            << " frames (mean |output change| minus that of the input scaled to the output "
               "size, 0..255):\n";
    for (const int approximate : {1, 4}) {
        const char* seams = approximate == 1 ? "exact seams" : "seams ~1/4";
        ops::VideoRetargetParams independent = p;
        independent.approximate = approximate;
        independent.temporal = 0;
        const CarveRun a = carve_frames(frames, independent, best);
        std::snprintf(line, sizeof line,
                      "  %-12s independent frames (temporal 0):      excess %.3f, removed pixels "
                      "changing per frame %.1f %%\n",
                      seams, a.flicker, 100.0 * a.seam_change);
        ctx.out << line << std::flush;
        for (const ops::TemporalTerm term :
             {ops::TemporalTerm::PerSeam, ops::TemporalTerm::RemovedPixels}) {
            ops::VideoRetargetParams coherent = independent;
            coherent.temporal = p.temporal;
            coherent.term = term;
            const CarveRun b = carve_frames(frames, coherent, best);
            std::snprintf(line, sizeof line,
                          "  %-12s temporal weight %.2f, term %-7s: excess %.3f, removed pixels "
                          "changing per frame %.1f %%, %d cut(s)\n",
                          seams, p.temporal, ops::to_string(term).c_str(), b.flicker,
                          100.0 * b.seam_change, b.cuts);
            ctx.out << line << std::flush;
        }
    }
    return kExitOk;
}

}  // namespace lacuna::cli
