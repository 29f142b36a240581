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
#include <lacuna/video/importance_smoothing.hpp>
#include <lacuna/video/retarget_video.hpp>

#include <opencv2/imgproc.hpp>
#include <opencv2/video/tracking.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>
#include <sstream>

namespace lacuna::cli {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(const Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

/// A camera panning slowly across a photo (1.5 output pixels a frame, with a slight vertical
/// sway) and zooming in by 0.1 % a frame: frame f shows the window photo = s · out + (x0, y0)
/// resampled to w × h (bicubic), like a handheld camera on a tripod head.
struct PanWindow {
    double s = 1, x0 = 0, y0 = 0;
};
PanWindow pan_window(const int photo_w, const int photo_h, const int w, const int h, const int f) {
    const double aspect = static_cast<double>(w) / h;
    double win_w = std::min<double>(photo_w * 0.7, photo_h * 0.9 * aspect);
    win_w /= 1.0 + 0.001 * f;
    const double win_h = win_w / aspect;
    const double px = 1.5 * win_w / w;  // one output pixel in photo pixels
    PanWindow p;
    p.x0 = std::clamp(photo_w * 0.05 + px * f, 0.0, photo_w - win_w);
    p.y0 = (photo_h - win_h) * (0.5 + 0.2 * std::sin(0.02 * f));
    p.s = win_w / w;
    return p;
}

ImageRgba8 pan_frame(const cv::Mat& photo, const int w, const int h, const int f) {
    const PanWindow p = pan_window(photo.cols, photo.rows, w, h, f);
    // An affine map from output pixels to the window keeps sub-pixel motion smooth.
    cv::Mat affine = (cv::Mat_<double>(2, 3) << p.s, 0, p.x0, 0, p.s, p.y0);
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
    for (int f = 0; f < frames; ++f) writer.write(pan_frame(rgba, w, h, f));
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
/// With `maps` (per frame), those maps go to the carver instead, and `faces` are only measured
/// (a salient object's box); `outputs` receives every carved frame.
CarveRun carve_frames(const std::vector<ImageRgba8>& frames, const ops::VideoRetargetParams& p,
                      const ops::CarveImplementation impl,
                      const std::vector<std::vector<ops::FaceBox>>* faces = nullptr,
                      const bool use_faces = false, const std::vector<Mask>* maps = nullptr,
                      std::vector<ImageRgba8>* outputs = nullptr) {
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
        if (maps)
            map = (*maps)[f];
        else if (use_faces && !here.empty())
            map = ops::importance_map(frame.view(), ops::ImportanceParams{}, here).levels;
        const auto t = Clock::now();
        ImageRgba8 out = carver.process(frame.view(), map ? &*map : nullptr);
        carve += seconds_since(t);
        meter.add(frame.view(), out.view());
        if (carver.vertical_order() && p.height == frame.height())
            for (const ops::FaceBox& box : here) {
                const double k = kept_share(*carver.vertical_order(), frame.width() - p.width, box);
                kept_sum += k;
                kept_worst = std::min(kept_worst, k);
                ++boxes;
            }
        if (outputs) outputs->push_back(std::move(out));
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

/// Where frame f's pixel (x, y) was in frame f − 1: the pan's geometry for a generated clip, a
/// measured flow for a given one. False where unknown.
using MotionFn = std::function<bool(int f, double x, double y, double& px, double& py)>;

/// Mean |L_f(x) − L_{f−1}(where x was)| over pixels whose earlier place lies inside the frame,
/// over every pair of frames: how much an importance map changes beyond what the motion moves.
double map_change(const std::vector<Mask>& maps, const MotionFn& motion) {
    double sum = 0;
    std::int64_t n = 0;
    for (std::size_t f = 1; f < maps.size(); ++f) {
        const Mask& prev = maps[f - 1];
        const Mask& cur = maps[f];
        for (int y = 0; y < cur.height(); ++y)
            for (int x = 0; x < cur.width(); ++x) {
                double px = 0, py = 0;
                if (!motion(static_cast<int>(f), x, y, px, py)) continue;
                if (px < 0 || py < 0 || px > prev.width() - 1 || py > prev.height() - 1) continue;
                const int x0 = std::min(static_cast<int>(px), prev.width() - 2);
                const int y0 = std::min(static_cast<int>(py), prev.height() - 2);
                const double ax = px - x0, ay = py - y0;
                const double v =
                    (1 - ay) * ((1 - ax) * prev.at(x0, y0) + ax * prev.at(x0 + 1, y0)) +
                    ay * ((1 - ax) * prev.at(x0, y0 + 1) + ax * prev.at(x0 + 1, y0 + 1));
                sum += std::abs(cur.at(x, y) - v);
                ++n;
            }
    }
    return n > 0 ? sum / static_cast<double>(n) : 0;
}

/// Farneback's flow from each frame to the one before (the measure's own motion for a given
/// clip: another method than the smoother's DIS, so the smoother is not judged by its own flow).
std::vector<cv::Mat> backward_flows(const std::vector<ImageRgba8>& frames) {
    std::vector<cv::Mat> flows(frames.size());
    cv::Mat prev;
    for (std::size_t f = 0; f < frames.size(); ++f) {
        cv::Mat grey;
        cv::cvtColor(as_mat(frames[f]), grey, cv::COLOR_RGBA2GRAY);
        if (f > 0) cv::calcOpticalFlowFarneback(grey, prev, flows[f], 0.5, 4, 15, 3, 5, 1.1, 0);
        prev = grey;
    }
    return flows;
}

/// The salient object of a frame: the bounding box of the largest region whose saliency is at
/// least half the maximum.
std::optional<cv::Rect> salient_box(const ImageRgba8& frame) {
    const Image<float> sal = ops::saliency_map(frame.view(), 640);
    cv::Mat m(frame.height(), frame.width(), CV_8U);
    float hi = 0;
    for (int y = 0; y < frame.height(); ++y)
        for (int x = 0; x < frame.width(); ++x) hi = std::max(hi, sal.at(x, y));
    for (int y = 0; y < frame.height(); ++y)
        for (int x = 0; x < frame.width(); ++x)
            m.at<std::uint8_t>(y, x) = hi > 0 && sal.at(x, y) >= 0.5f * hi ? 255 : 0;
    cv::Mat labels, stats, centroids;
    const int n = cv::connectedComponentsWithStats(m, labels, stats, centroids);
    int best = 0;
    for (int i = 1; i < n; ++i)
        if (best == 0 || stats.at<int>(i, cv::CC_STAT_AREA) > stats.at<int>(best, cv::CC_STAT_AREA))
            best = i;
    if (best == 0) return std::nullopt;
    return cv::Rect(stats.at<int>(best, cv::CC_STAT_LEFT), stats.at<int>(best, cv::CC_STAT_TOP),
                    stats.at<int>(best, cv::CC_STAT_WIDTH),
                    stats.at<int>(best, cv::CC_STAT_HEIGHT));
}

/// Levels as grey (level × 4) for looking at a map.
ImageRgba8 levels_image(const Mask& m) {
    ImageRgba8 out(m.width(), m.height());
    for (int y = 0; y < m.height(); ++y)
        for (int x = 0; x < m.width(); ++x) {
            const auto v = static_cast<std::uint8_t>(std::min(255, 4 * m.at(x, y)));
            out.at(x, y) = {v, v, v, 255};
        }
    return out;
}

/// Saliency, lines and skin over time: per-frame maps against maps smoothed along the motion
/// (and without the motion), each measured by how much the map changes beyond the motion, the
/// output's flicker with exact and approximate seams, and how much of the salient object the
/// width seams keep (generated clips: frame 0's object moved with the pan).
void bench_importance_over_time(Context& ctx, const std::vector<ImageRgba8>& frames,
                                const ops::VideoRetargetParams& p, const ops::ImportanceParams& imp,
                                const MotionFn& motion, const char* motion_name,
                                const std::vector<std::vector<ops::FaceBox>>* object_boxes) {
    std::string terms;
    for (const auto& [on, name] : {std::pair{imp.saliency, "saliency"},
                                   std::pair{imp.lines, "lines"}, std::pair{imp.skin, "skin"}})
        if (on) terms += std::string(terms.empty() ? "" : "+") + name;
    char line[400];
    std::snprintf(line, sizeof line,
                  "\nimportance over time (%s) over %zu frames: map change beyond the motion "
                  "(%s; levels 0..63), flicker excess as below, %s\n",
                  terms.c_str(), frames.size(), motion_name,
                  object_boxes ? "share of the salient object's box (frame 0's region above half "
                                 "its saliency maximum, moved with the pan) the width seams keep"
                               : "no object measure (a given clip has no known object motion)");
    ctx.out << line;
    struct Row {
        std::string name;
        int window;
        bool follow;
    };
    const int n = std::max(2, p.importance_window);
    const std::vector<Row> rows{{"per frame", 1, true},
                                {"smoothed N=" + std::to_string(n), n, true},
                                {"N=" + std::to_string(n) + " no flow", n, false}};
    const std::optional<std::string> write = ctx.args.get("write-frames");
    for (const Row& row : rows) {
        video::ImportanceSmoothingParams sp;
        sp.window = row.window;
        sp.cut_threshold = p.cut_threshold;
        sp.follow_motion = row.follow;
        video::ImportanceSmoother smoother(imp, sp);
        std::vector<Mask> maps;
        const auto t = Clock::now();
        for (const ImageRgba8& f : frames) maps.push_back(smoother.next(f.view(), {}));
        const double map_ms = 1000 * seconds_since(t) / static_cast<double>(frames.size());
        const double change = map_change(maps, motion);
        std::snprintf(line, sizeof line,
                      "  %-16s map change %.3f; maps %.1f ms a frame (smoothing %.1f ms)\n",
                      row.name.c_str(), change, map_ms,
                      1000 * smoother.flow_seconds() / static_cast<double>(frames.size()));
        ctx.out << line << std::flush;
        for (const int approximate : {1, 4}) {
            ops::VideoRetargetParams q = p;
            q.approximate = approximate;
            q.importance_unit = ops::importance_unit(p.energy);
            std::vector<ImageRgba8> outputs;
            const CarveRun c = carve_frames(frames, q, ops::CarveImplementation::Fast, object_boxes,
                                            false, &maps, &outputs);
            std::snprintf(
                line, sizeof line, "    %-12s flicker excess %.3f, removed pixels changing %.1f %%",
                approximate == 1 ? "exact seams" : "seams ~1/4", c.flicker, 100 * c.seam_change);
            ctx.out << line;
            if (object_boxes) {
                std::snprintf(line, sizeof line, ", object kept mean %.3f, worst %.3f",
                              c.face_kept_mean, c.face_kept_worst);
                ctx.out << line;
            }
            ctx.out << "\n" << std::flush;
            if (write && approximate == 1) {
                // A few frames to look at: the maps and the exact seams' output.
                std::filesystem::create_directories(*write);
                std::string tag = row.name;
                for (char& ch : tag)
                    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                const std::size_t mid = frames.size() / 2;
                for (std::size_t f = mid; f < std::min(frames.size(), mid + 4); ++f) {
                    const std::string k = std::to_string(f);
                    (void)io::write_image(
                        std::filesystem::path(*write) / (tag + "-map-" + k + ".png"),
                        levels_image(maps[f]).view());
                    (void)io::write_image(
                        std::filesystem::path(*write) / (tag + "-out-" + k + ".png"),
                        outputs[f].view());
                    if (&row == &rows.front())
                        (void)io::write_image(std::filesystem::path(*write) / ("in-" + k + ".png"),
                                              frames[f].view());
                }
            }
        }
    }
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
    std::optional<cv::Size> photo_size;  ///< a generated clip's photo (its pan is known)
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
        {
            const io::LoadedImage loaded = io::read_image(photo);
            photo_size = cv::Size(loaded.image.width(), loaded.image.height());
        }
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
    ops::ImportanceParams over_time;
    over_time.faces = false;
    over_time.saliency = ctx.args.has("saliency");
    over_time.lines = ctx.args.has("lines");
    over_time.skin = ctx.args.has("skin");
    if (ops::any_importance(over_time)) {
        std::vector<std::vector<ops::FaceBox>> boxes;
        MotionFn motion;
        std::vector<cv::Mat> flows;
        if (photo_size) {
            // The pan's own geometry: photo = s · out + (x0, y0) in each frame.
            const int pw = photo_size->width, ph = photo_size->height;
            const int w = info.width, h = info.height;
            motion = [=](const int f, const double x, const double y, double& px, double& py) {
                const PanWindow a = pan_window(pw, ph, w, h, f);
                const PanWindow b = pan_window(pw, ph, w, h, f - 1);
                px = (a.s * x + a.x0 - b.x0) / b.s;
                py = (a.s * y + a.y0 - b.y0) / b.s;
                return true;
            };
            if (const std::optional<cv::Rect> r = salient_box(frames[0])) {
                const PanWindow p0 = pan_window(pw, ph, w, h, 0);
                for (std::size_t f = 0; f < frames.size(); ++f) {
                    const PanWindow q = pan_window(pw, ph, w, h, static_cast<int>(f));
                    const auto to_frame = [&](const double v, const double o0, const double o) {
                        return static_cast<int>(std::lround((p0.s * v + o0 - o) / q.s));
                    };
                    ops::FaceBox b;
                    b.x = to_frame(r->x, p0.x0, q.x0);
                    b.y = to_frame(r->y, p0.y0, q.y0);
                    b.width = to_frame(r->x + r->width, p0.x0, q.x0) - b.x;
                    b.height = to_frame(r->y + r->height, p0.y0, q.y0) - b.y;
                    boxes.push_back({b});
                }
            }
        } else {
            flows = backward_flows(frames);
            motion = [&flows](const int f, const double x, const double y, double& px, double& py) {
                const cv::Vec2f d = flows[static_cast<std::size_t>(f)].at<cv::Vec2f>(
                    static_cast<int>(y), static_cast<int>(x));
                px = x + d[0];
                py = y + d[1];
                return true;
            };
        }
        bench_importance_over_time(ctx, frames, p, over_time, motion,
                                   photo_size ? "the pan's geometry" : "Farneback flow",
                                   boxes.empty() ? nullptr : &boxes);
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
