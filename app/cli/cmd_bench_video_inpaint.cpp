// lacuna bench video-inpaint: video object removal on generated clips whose truth is known (a
// still logo or a moving sticker pasted over a still or panning view of a repository photo, with
// a little sensor noise), the flow-guided fill beside per-frame image filling in one run. In the
// hole: low-pass PSNR (σ 3) against the truth, detail (Sobel magnitude against the truth's) and
// flicker (mean |frame-to-frame change| in the hole, next to the truth's own). Mask tracking: the
// mask of frame 0 alone carried to every frame (flow alone, flow + GrabCut), its IoU with the true
// mask, and the fill with the tracked masks scored like the others.
#include "bench_util.hpp"
#include "commands.hpp"
#include "options.hpp"

#include <lacuna/core/backend.hpp>
#include <lacuna/core/error.hpp>
#include <lacuna/core/parallel.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/ops/params.hpp>
#include <lacuna/io/video_io.hpp>
#include <lacuna/video/inpaint_video.hpp>
#include <lacuna/video/track_masks.hpp>

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>

#include <sys/resource.h>
#include <unistd.h>

namespace lacuna::cli {
namespace {

using Clock = std::chrono::steady_clock;

struct Clip {
    std::string name;
    std::vector<ImageRgba8> truth, input;
    std::vector<Mask> masks;  ///< one (still) or one a frame
    [[nodiscard]] const Mask& mask(const std::size_t f) const {
        return masks[masks.size() == 1 ? 0 : f];
    }
};

struct Motion {
    double pan = 0;  ///< camera: pixels a frame to the right (at 640 wide)
    bool still_logo = true;
    double sticker = 0;  ///< a moving sticker: pixels a frame (at 640 wide)
};

/// The sticker: a coloured rounded card with a dark rim and text, `w` × `h`, and its mask (the
/// card grown by 3 pixels: a mask drawn a little wider than the object, as a user would).
void paste_sticker(cv::Mat& rgba, cv::Mat& mask, const cv::Rect box, const bool round) {
    const cv::Scalar fill(230, 60, 40, 255), rim(30, 20, 20, 255);
    if (round) {
        const cv::Point c(box.x + box.width / 2, box.y + box.height / 2);
        cv::circle(rgba, c, box.width / 2, fill, cv::FILLED, cv::LINE_AA);
        cv::circle(rgba, c, box.width / 2, rim, 3, cv::LINE_AA);
        cv::circle(mask, c, box.width / 2 + 3, cv::Scalar(255), cv::FILLED);
    } else {
        cv::rectangle(rgba, box, fill, cv::FILLED);
        cv::rectangle(rgba, box, rim, 3);
        cv::rectangle(mask, cv::Rect(box.x - 3, box.y - 3, box.width + 6, box.height + 6),
                      cv::Scalar(255), cv::FILLED);
    }
    // The text fits inside the card (a letter outside the mask would be "background").
    int base = 0;
    const cv::Size unit_text = cv::getTextSize("LOGO", cv::FONT_HERSHEY_DUPLEX, 1.0, 2, &base);
    const double scale = 0.6 * std::min(static_cast<double>(box.width) / unit_text.width,
                                        static_cast<double>(box.height) / unit_text.height);
    const cv::Size text = cv::getTextSize("LOGO", cv::FONT_HERSHEY_DUPLEX, scale, 2, &base);
    cv::putText(
        rgba, "LOGO",
        cv::Point(box.x + (box.width - text.width) / 2, box.y + (box.height + text.height) / 2),
        cv::FONT_HERSHEY_DUPLEX, scale, cv::Scalar(255, 255, 240, 255), 2, cv::LINE_AA);
}

/// `object`: the logo's and the sticker's size against the cases' own (1: a logo of a fifth of
/// the frame's width and height, a sticker of a quarter of its height).
Clip make_clip(const std::string& name, const cv::Mat& photo, const int w, const int h,
               const int frames, const Motion& m, const std::uint64_t seed,
               const double object = 1.0) {
    Clip clip;
    clip.name = name;
    const double unit = w / 640.0;
    cv::RNG rng(seed);
    const cv::Rect logo(static_cast<int>(w * 0.58), static_cast<int>(h * 0.14),
                        static_cast<int>(w / 5 * object), static_cast<int>(h / 5 * object));
    cv::Mat still_mask(h, w, CV_8U, cv::Scalar(0));
    for (int f = 0; f < frames; ++f) {
        // The camera: a window on the photo moving right, swaying up and down by sub-pixels.
        const double x0 = 10 * unit + m.pan * unit * f;
        const double y0 = 10 * unit + (m.pan > 0 ? 3 * unit * std::sin(0.15 * f) : 0);
        const cv::Mat affine = (cv::Mat_<double>(2, 3) << 1, 0, x0, 0, 1, y0);
        cv::Mat view;
        cv::warpAffine(photo, view, affine, cv::Size(w, h), cv::INTER_CUBIC | cv::WARP_INVERSE_MAP,
                       cv::BORDER_REFLECT);
        cv::Mat noise(h, w, CV_16SC4);
        rng.fill(noise, cv::RNG::NORMAL, 0, 1.5);
        cv::Mat noisy;
        view.convertTo(noisy, CV_16SC4);
        noisy += noise;
        noisy.convertTo(view, CV_8UC4);
        view.forEach<cv::Vec4b>([](cv::Vec4b& p, const int*) { p[3] = 255; });
        clip.truth.push_back(from_mat(view));
        cv::Mat pasted = view.clone();
        if (m.still_logo) {
            still_mask.setTo(0);
            paste_sticker(pasted, still_mask, logo, false);
        } else {
            const int d = static_cast<int>(h / 4 * object);
            const int x = static_cast<int>(w * 0.12 + m.sticker * unit * f);
            // A larger sticker is kept inside the frame (at the cases' own size it always is).
            const int y =
                std::min(static_cast<int>(h * 0.45 + h * 0.15 * std::sin(0.12 * f)), h - d - 4);
            cv::Mat mask(h, w, CV_8U, cv::Scalar(0));
            paste_sticker(pasted, mask, cv::Rect(x, y, d, d), true);
            Mask hole(w, h);
            for (int yy = 0; yy < h; ++yy) std::copy_n(mask.ptr<std::uint8_t>(yy), w, hole.row(yy));
            clip.masks.push_back(std::move(hole));
        }
        clip.input.push_back(from_mat(pasted));
    }
    if (m.still_logo) {
        Mask hole(w, h);
        for (int yy = 0; yy < h; ++yy)
            std::copy_n(still_mask.ptr<std::uint8_t>(yy), w, hole.row(yy));
        clip.masks.push_back(std::move(hole));
    }
    return clip;
}

struct Scores {
    double lp_psnr = 0, detail = 0, flicker = 0;
};

cv::Mat float_rgb(const ImageRgba8& img) {
    cv::Mat rgb, f;
    cv::cvtColor(as_mat(img), rgb, cv::COLOR_RGBA2RGB);
    rgb.convertTo(f, CV_32FC3);
    return f;
}

cv::Mat sobel_magnitude(const cv::Mat& rgb) {
    cv::Mat grey, gx, gy, mag;
    cv::cvtColor(rgb, grey, cv::COLOR_RGB2GRAY);
    cv::Sobel(grey, gx, CV_32F, 1, 0);
    cv::Sobel(grey, gy, CV_32F, 0, 1);
    cv::magnitude(gx, gy, mag);
    return mag;
}

/// Low-pass PSNR and detail pooled over every frame's hole; flicker: mean |out_t − out_{t−1}|
/// over the pixels in either frame's hole and the three channels.
Scores score(const Clip& clip, const std::vector<ImageRgba8>& out) {
    double se = 0, grad_out = 0, grad_truth = 0, change = 0;
    std::int64_t n = 0, changed_n = 0;
    for (std::size_t f = 0; f < out.size(); ++f) {
        const cv::Mat o = float_rgb(out[f]), t = float_rgb(clip.truth[f]);
        cv::Mat lo, lt;
        cv::GaussianBlur(o, lo, cv::Size(0, 0), 3.0);
        cv::GaussianBlur(t, lt, cv::Size(0, 0), 3.0);
        const cv::Mat go = sobel_magnitude(o), gt = sobel_magnitude(t);
        const Mask& hole = clip.mask(f);
        for (int y = 0; y < hole.height(); ++y)
            for (int x = 0; x < hole.width(); ++x) {
                if (!hole.at(x, y)) continue;
                const cv::Vec3f d = lo.at<cv::Vec3f>(y, x) - lt.at<cv::Vec3f>(y, x);
                se += d.dot(d) / 3.0;
                grad_out += go.at<float>(y, x);
                grad_truth += gt.at<float>(y, x);
                ++n;
            }
        if (f == 0) continue;
        const Mask& before = clip.mask(f - 1);
        for (int y = 0; y < hole.height(); ++y)
            for (int x = 0; x < hole.width(); ++x) {
                if (!hole.at(x, y) && !before.at(x, y)) continue;
                const Rgba8 a = out[f].at(x, y), b = out[f - 1].at(x, y);
                change += (std::abs(a.r - b.r) + std::abs(a.g - b.g) + std::abs(a.b - b.b)) / 3.0;
                ++changed_n;
            }
    }
    Scores s;
    const double mse = n ? se / n : 0;
    s.lp_psnr = mse > 0 ? 10 * std::log10(255.0 * 255.0 / mse) : 99.0;
    s.detail = grad_truth > 0 ? grad_out / grad_truth : 0;
    s.flicker = changed_n ? change / changed_n : 0;
    return s;
}

/// Frames 0, n/3, 2n/3 and n − 1 at half size, one row each: the input with the outline of the
/// mask tracked from frame 0 (green), flow-guided (true masks), flow-guided (tracked masks grown
/// by 2 px), per
/// frame, truth.
void save_sheet(const std::filesystem::path& path, const Clip& clip,
                const std::vector<const std::vector<ImageRgba8>*>& rows,
                const std::vector<std::string>& labels) {
    const int n = static_cast<int>(clip.input.size());
    const int w = clip.input[0].width() / 2, h = clip.input[0].height() / 2;
    const int cols[4] = {0, n / 3, 2 * n / 3, n - 1};
    cv::Mat sheet(h * static_cast<int>(rows.size()), w * 4, CV_8UC4, cv::Scalar(0, 0, 0, 255));
    for (std::size_t r = 0; r < rows.size(); ++r)
        for (int c = 0; c < 4; ++c) {
            cv::Mat tile;
            cv::resize(as_mat((*rows[r])[cols[c]]), tile, cv::Size(w, h), 0, 0, cv::INTER_AREA);
            cv::putText(tile, labels[r] + ", frame " + std::to_string(cols[c]), cv::Point(6, 18),
                        cv::FONT_HERSHEY_SIMPLEX, 0.5, cv::Scalar(255, 255, 0, 255), 1,
                        cv::LINE_AA);
            tile.copyTo(sheet(cv::Rect(c * w, static_cast<int>(r) * h, w, h)));
        }
    io::write_image(path, from_mat(sheet).view());
}

/// G'MIC's per-frame fill (the peer that does not know about time): its multi-scale PatchMatch
/// (inpaint_matchpatch, G'MIC's defaults, as `lacuna bench inpaint`'s "G'MIC mp" row) run on
/// every frame by its own `gmic` process. `fill_seconds`: the sum of its own tic/toc around each
/// fill (start-up and PNG I/O excluded); `wall_seconds`: with them. nullopt when a run failed.
std::optional<std::vector<ImageRgba8>> gmic_per_frame(const Clip& clip,
                                                      const std::filesystem::path& tmp,
                                                      double& fill_seconds, double& wall_seconds) {
    const std::string in = (tmp / "in.png").string(), mk = (tmp / "mask.png").string(),
                      out = (tmp / "out.png").string(), seconds = (tmp / "seconds.txt").string();
    std::vector<ImageRgba8> frames;
    fill_seconds = wall_seconds = 0;
    for (std::size_t f = 0; f < clip.input.size(); ++f) {
        io::write_image(in, clip.input[f].view());
        io::write_image(mk, mask_as_image(clip.mask(f)).view());
        std::filesystem::remove(out);
        const std::string command = "gmic -v - " + in + " " + mk +
                                    " tic inpaint_matchpatch[0] [1],0,9,10,5,0,0 toc "
                                    "echo_stdout \\${} rm[1] o " +
                                    out + " >" + seconds + " 2>/dev/null";
        const auto start = Clock::now();
        if (std::system(command.c_str()) != 0 || !std::filesystem::exists(out)) return std::nullopt;
        wall_seconds += std::chrono::duration<double>(Clock::now() - start).count();
        std::ifstream timer(seconds);
        double value = 0;
        if (!(timer >> value)) return std::nullopt;
        fill_seconds += value;
        frames.push_back(io::read_image(out).image);
    }
    return frames;
}

/// CPU seconds this process has used, all threads (user + system): the work, apart from how
/// busy the machine is.
double cpu_seconds() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

/// The share of the frame (0..1) the true masks cover, over all frames.
double hole_share(const Clip& clip) {
    double selected = 0;
    for (std::size_t f = 0; f < clip.input.size(); ++f)
        selected += static_cast<double>(count_selected(clip.mask(f).view()));
    return selected / (static_cast<double>(clip.input.size()) * clip.input[0].width() *
                       clip.input[0].height());
}

/// End to end, as `lacuna inpaint CLIP MASK OUT` runs it: the clip written to a file first (MP4,
/// or a PNG sequence: lossless), then video::inpaint_video reads it, fills it and writes the
/// output (each frame encoded on its own thread as soon as it is final); the output read back is
/// scored against the truth (an MP4's own coding loss included). Times per stage from the job.
void end_to_end(const Context& ctx, const Clip& clip, const std::string& format,
                const std::filesystem::path& dir, const BackendInfo& backend, const Scores& truth) {
    namespace fs = std::filesystem;
    fs::create_directories(dir);
    const bool mp4 = format == "mp4";
    const int w = clip.input[0].width(), h = clip.input[0].height();
    video::InpaintVideoOptions o;
    o.input = mp4 ? dir / "input.mp4" : dir / "input" / "%05d.png";
    o.output = mp4 ? dir / "output.mp4" : dir / "output" / "%05d.png";
    if (!mp4) {
        fs::create_directories(dir / "input");
        fs::create_directories(dir / "output");
    }
    {
        io::VideoWriter writer(o.input, w, h, 25.0);
        for (const ImageRgba8& f : clip.input) writer.write(f);
        writer.finish();
    }
    if (clip.masks.size() == 1) {
        o.mask = dir / "mask.png";
        io::write_image(o.mask, mask_as_image(clip.masks[0]).view());
    } else {  // a mask sequence (lossless), as a user's tracked masks would be given
        fs::create_directories(dir / "masks");
        o.mask = dir / "masks" / "%05d.png";
        io::VideoWriter writer(o.mask, w, h, 25.0);
        for (const Mask& m : clip.masks) writer.write(mask_as_image(m));
        writer.finish();
    }
    std::string key_fill_backend;
    const double cpu_before = cpu_seconds();
    const video::InpaintVideoResult r =
        ctx.with_cpu_fallback(backend.backend, [&](const Backend b) {
            key_fill_backend = b == Backend::Cuda ? "CUDA" : "CPU";
            o.params.implementation = b == Backend::Cuda ? ops::InpaintImplementation::Cuda
                                                         : ops::InpaintImplementation::Fast;
            o.params.volume_implementation = b == Backend::Cuda
                                                 ? ops::PatchMatch3dImplementation::Cuda
                                                 : ops::PatchMatch3dImplementation::Fast;
            return video::inpaint_video(o);
        });
    const double cpu = cpu_seconds() - cpu_before;
    std::vector<ImageRgba8> out;
    io::VideoReader reader(o.output);
    while (auto f = reader.next()) out.push_back(std::move(*f));
    const Scores s = score(clip, out);
    const video::VideoInpaintStats& st = r.stats;
    std::printf("%-32s %-22s %6.2f dB %7.3f %8.3f %8.3f %7.2f\n", clip.name.c_str(),
                mp4 ? "end to end (MP4)" : "end to end (PNG)", s.lp_psnr, s.detail, s.flicker,
                truth.flicker, r.frames / r.seconds);
    std::printf(
        "%-32s   %d frames in %.2f s (%s): decode %.2f s, flow %.2f s (CPU, %u threads), "
        "propagation %.2f s (CPU), fills %.2f s (%d key, %d 3-D, on the %s), encode %.2f s beside "
        "the "
        "fill + %.2f s after it (%s, CPU); CPU time %.2f s (all threads); hole %.1f %% of the "
        "frame; %.0f %% from other frames, %.0f %% carried, %.0f %% filled\n",
        "", r.frames, r.seconds, r.output_codec.c_str(), r.decode_seconds, st.flow_seconds,
        worker_count(), st.propagate_seconds, st.fill_seconds, st.key_fills, st.volume_fills,
        key_fill_backend.c_str(), r.encode_seconds, r.encode_tail_seconds, r.output_codec.c_str(),
        cpu, 100.0 * hole_share(clip),
        100.0 * st.from_other_frames / std::max<std::int64_t>(1, st.hole_pixels),
        100.0 * st.carried / std::max<std::int64_t>(1, st.hole_pixels),
        100.0 * st.synthesized / std::max<std::int64_t>(1, st.hole_pixels));
}

}  // namespace

int bench_video_inpaint(Context& ctx) {
    const auto [w, h] = ctx.args.has("clip-size")
                            ? parse_size("clip-size", *ctx.args.get("clip-size"))
                            : std::pair<int, int>{640, 360};
    const int frames =
        ctx.args.has("clip-frames") ? parse_int("clip-frames", *ctx.args.get("clip-frames")) : 40;
    if (frames < 4) throw UsageError("--clip-frames must be 4 or more");
    const std::string photo_path =
        ctx.args.get("photo").value_or(std::string(LACUNA_BENCH_DATA_DIR) + "/building.jpg");
    const io::LoadedImage photo_file = io::read_image(photo_path);
    // Large enough for the longest pan (6 px a frame at 640 wide) and the sway.
    const cv::Mat photo_rgba = as_mat(photo_file.image);
    const double need_w = w + 6.0 * (w / 640.0) * frames + 40 * (w / 640.0);
    const double scale =
        std::max({need_w / photo_rgba.cols, (h + 40.0 * h / 360) / photo_rgba.rows, 1.0});
    cv::Mat photo;
    cv::resize(photo_rgba, photo, cv::Size(), scale, scale, cv::INTER_CUBIC);
    std::optional<std::filesystem::path> save;
    if (const auto s = ctx.args.get("save")) {
        save = *s;
        std::filesystem::create_directories(*save);
    }
    // The object's size as a share of the frame (the logo a rectangle, the sticker a disc).
    double hole_area = 0;
    if (const auto a = ctx.args.get("hole-area")) {
        hole_area = parse_number("hole-area", *a);
        if (!(hole_area > 0 && hole_area <= 30))
            throw UsageError("--hole-area takes a percentage of the frame above 0, at most 30");
    }
    // The sizes are copied: clang before 16 cannot capture structured bindings.
    const auto object_scale = [&, fw = w, fh = h](const Motion& motion) {
        if (hole_area <= 0) return 1.0;
        const double own = motion.still_logo ? 1.0 / 25.0  // w/5 × h/5
                                             : 3.14159265 * (fh / 8.0) * (fh / 8.0) / (fw * fh);
        return std::sqrt(hole_area / 100.0 / own);
    };
    // End to end: the clip through files, as `lacuna inpaint` runs it, instead of the in-memory
    // comparison rows.
    const std::string e2e = ctx.args.get("end-to-end").value_or("");
    if (!e2e.empty() && e2e != "mp4" && e2e != "png")
        throw UsageError("--end-to-end takes mp4 or png, not '" + e2e + "'");
    std::optional<BackendInfo> backend;
    if (!e2e.empty()) backend = ctx.select_backend();

    const std::vector<std::pair<std::string, Motion>> cases = {
        {"still logo, panning camera", {4.0, true, 0}},
        {"moving sticker, still camera", {0.0, false, 11.0}},
        {"moving sticker, panning camera", {3.0, false, 8.0}},
        {"still logo, still camera", {0.0, true, 0}},
        // A pan of 1 px a frame uncovers the logo's place a column at a time: what no frame
        // shows shrinks from frame to frame (and the last frames' right part is never seen).
        {"still logo, slow pan", {1.0, true, 0}},
    };
    const bool tracking = !ctx.args.has("no-tracking");
    video::TemporalFillParams volume;  // the 3-D rows' settings (--volume-patch ...)
    parse_params(ctx.args, ops::temporal_fill_param_fields(), volume);
    volume.method = video::TemporalFill::PatchMatch3d;
    std::printf(
        "lacuna bench video-inpaint: %dx%d, %d frames a clip, %s (scaled %.2f), noise "
        "sigma 1.5\n",
        w, h, frames, photo_path.c_str(), scale);
    // G'MIC's per-frame PatchMatch, the peer outside Lacuna (slow: seconds a frame at 640×360).
    const bool gmic = !ctx.args.has("no-peers") && command_exists("gmic");
    std::printf("G'MIC per-frame row: %s\n",
                gmic                       ? "inpaint_matchpatch[0] [1],0,9,10,5,0,0 on every "
                                             "frame (fps from its own tic/toc)"
                : ctx.args.has("no-peers") ? "skipped (--no-peers)"
                                           : "skipped: gmic is not installed");
    const std::filesystem::path gmic_tmp = gmic ? make_temp_dir() : std::filesystem::path();
    if (backend)
        std::printf(
            "end to end, %s: decode and encode FFmpeg through OpenCV (CPU), flow and propagation "
            "on the CPU (%u threads), key fills on the %s\n",
            e2e == "mp4" ? "MP4 in and out" : "PNG sequences in and out", worker_count(),
            backend->describe().c_str());
    std::printf("%-32s %-22s %9s %7s %8s %8s %7s %7s\n", "clip", "method", "lpPSNR", "detail",
                "flicker", "truth", "fps", "goals");
    int seed = 1;
    const std::string only = ctx.args.get("case").value_or("");
    for (const auto& [name, motion] : cases) {
        if (name.find(only) == std::string::npos) continue;
        const Clip clip =
            make_clip(name, photo, w, h, frames, motion, seed++, object_scale(motion));
        std::vector<std::vector<ImageRgba8>> outputs;
        std::vector<Scores> scores;
        const Scores truth = score(clip, clip.truth);
        if (backend) {
            std::string folder = name;
            std::replace_if(
                folder.begin(), folder.end(), [](char c) { return !std::isalnum(c); }, '-');
            const std::filesystem::path dir =
                save ? *save / folder
                     : std::filesystem::temp_directory_path() /
                           ("lacuna-bench-video-inpaint-" + std::to_string(::getpid())) / folder;
            end_to_end(ctx, clip, e2e, dir, *backend, truth);
            if (!save) std::filesystem::remove_all(dir.parent_path());
            std::fflush(stdout);
            continue;
        }
        // Flow-guided with what no frame shows from the 3-D PatchMatch, then from key-frame
        // image fills carried along the flow, then every frame filled on its own, then `auto`
        // (the default: one of the first two a shot, by the camera motion measured).
        for (const int variant : {0, 1, 2, 3}) {
            const bool propagate = variant != 2;
            video::VideoInpaintParams params;
            params.propagate = propagate;
            params.temporal = volume;
            if (variant == 1) params.temporal.method = video::TemporalFill::Image;
            if (variant == 3) params.temporal.method = video::TemporalFill::Auto;
            video::VideoInpaintStats stats;
            const auto start = Clock::now();
            outputs.push_back(video::inpaint_frames(clip.input, clip.masks, params, &stats));
            const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
            scores.push_back(score(clip, outputs.back()));
            const Scores& s = scores.back();
            std::string goals = "-";
            if (propagate) goals.clear();
            std::printf("%-32s %-22s %6.2f dB %7.3f %8.3f %8.3f %7.2f", name.c_str(),
                        variant == 0   ? "flow-guided, 3-D fill"
                        : variant == 1 ? "flow-guided, key fills"
                        : variant == 3 ? "flow-guided, auto"
                                       : "per-frame fill (ours)",
                        s.lp_psnr, s.detail, s.flicker, truth.flicker, frames / seconds);
            if (propagate)
                std::printf(
                    "   (%.0f %% from other frames, %.0f %% carried, %.0f %% synthesised by "
                    "%d key fills / %d 3-D fills; flow %.1f s, fills %.1f s; camera %.2f px a "
                    "frame)",
                    100.0 * stats.from_other_frames / std::max<std::int64_t>(1, stats.hole_pixels),
                    100.0 * stats.carried / std::max<std::int64_t>(1, stats.hole_pixels),
                    100.0 * stats.synthesized / std::max<std::int64_t>(1, stats.hole_pixels),
                    stats.key_fills, stats.volume_fills, stats.flow_seconds, stats.fill_seconds,
                    stats.shot_motion.empty()
                        ? 0.0
                        : *std::max_element(stats.shot_motion.begin(), stats.shot_motion.end()));
            std::printf("\n");
        }
        std::optional<std::vector<ImageRgba8>> gmic_out;
        if (gmic) {
            double fill = 0, wall = 0;
            gmic_out = gmic_per_frame(clip, gmic_tmp, fill, wall);
            if (gmic_out) {
                const Scores s = score(clip, *gmic_out);
                std::printf(
                    "%-32s %-22s %6.2f dB %7.3f %8.3f %8.3f %7.3f   (%.1f s a frame by its "
                    "tic/toc; %.3f fps with start-up and I/O)\n",
                    name.c_str(), "per-frame G'MIC mp", s.lp_psnr, s.detail, s.flicker,
                    truth.flicker, frames / fill, fill / frames, frames / wall);
            } else {
                std::printf("%-32s %-22s ERROR: gmic failed\n", name.c_str(), "per-frame G'MIC mp");
            }
        }
        // The mask painted on frame 0 only, tracked to every frame (flow alone, then with
        // GrabCut), against the true mask; then the flow-guided fill with the tracked masks.
        std::vector<Mask> tracked;
        std::vector<ImageRgba8> outlined = clip.input;  ///< with the tracked mask's outline
        if (tracking) {
            outlined.clear();
            std::vector<Mask> truth_masks;
            for (std::size_t f = 0; f < clip.input.size(); ++f) truth_masks.push_back(clip.mask(f));
            const video::MaskTracker tracker(clip.input);
            for (const bool grabcut : {false, true}) {
                video::MaskTrackParams tp;
                tp.grabcut = grabcut;
                video::MaskTrackStats ts;
                std::vector<Mask> masks = tracker.track({{0, clip.mask(0)}}, tp, &ts);
                double mean = 0, worst = 1;
                int worst_frame = 0;
                for (std::size_t f = 0; f < masks.size(); ++f) {
                    const double q = video::mask_iou(masks[f].view(), truth_masks[f].view());
                    mean += q / static_cast<double>(masks.size());
                    if (q < worst) {
                        worst = q;
                        worst_frame = static_cast<int>(f);
                    }
                }
                const double ms = 1000.0 *
                                  (ts.flow_seconds + ts.carry_seconds + ts.refine_seconds) /
                                  static_cast<double>(masks.size());
                std::printf(
                    "%-32s %-22s IoU mean %.3f, worst %.3f (frame %d); %.0f ms a frame (flow "
                    "%.0f, carry %.0f, GrabCut %.0f); margin %d\n",
                    name.c_str(), grabcut ? "track: flow + GrabCut" : "track: flow alone", mean,
                    worst, worst_frame, ms, 1000.0 * ts.flow_seconds / masks.size(),
                    1000.0 * ts.carry_seconds / masks.size(),
                    1000.0 * ts.refine_seconds / masks.size(),
                    ts.margins.empty() ? 0 : ts.margins[0]);
                if (grabcut) tracked = std::move(masks);
            }
            for (std::size_t f = 0; f < tracked.size(); ++f) {
                const cv::Mat m(h, w, CV_8UC1, tracked[f].row(0), tracked[f].view().pitch);
                cv::Mat inner, edge;
                cv::erode(m, inner, cv::Mat(), cv::Point(-1, -1), 3);
                cv::subtract(m, inner, edge);
                cv::Mat picture = as_mat(clip.input[f]).clone();
                picture.setTo(cv::Scalar(40, 255, 40, 255), edge);
                outlined.push_back(from_mat(picture));
            }
            // As tracked, and grown by 2 px as `lacuna inpaint --grow 2` would (GrabCut cuts at
            // the object's outline; a pixel of its soft edge left out shows in the fill).
            for (const int grow : {0, 2}) {
                std::vector<Mask> holes;
                for (const Mask& m : tracked) holes.push_back(grow ? grow_mask(m.view(), grow) : m);
                video::VideoInpaintParams params;
                params.temporal = volume;
                video::VideoInpaintStats stats;
                const auto start = Clock::now();
                outputs.push_back(video::inpaint_frames(clip.input, holes, params, &stats));
                const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
                const Scores s = score(clip, outputs.back());
                std::printf(
                    "%-32s %-22s %6.2f dB %7.3f %8.3f %8.3f %7.2f   (scored in the true "
                    "hole)\n",
                    name.c_str(), grow ? "flow-guided, tracked+2" : "flow-guided, tracked",
                    s.lp_psnr, s.detail, s.flicker, truth.flicker, frames / seconds);
            }
        }
        // The goals are the default's (auto).
        const Scores& fill = scores[3];
        const bool flicker_ok = fill.flicker <= 1.5 * truth.flicker + 0.5;
        const bool above = fill.lp_psnr > scores[2].lp_psnr;
        std::printf(
            "%-32s goals: flicker %.3f <= 1.5 x %.3f + 0.5: %s; lpPSNR above per-frame "
            "(%+.2f dB): %s",
            "", fill.flicker, truth.flicker, flicker_ok ? "yes" : "NO",
            fill.lp_psnr - scores[2].lp_psnr, above ? "yes" : "NO");
        if (name == "still logo, panning camera")
            std::printf("; >= 30 dB: %s", fill.lp_psnr >= 30 ? "yes" : "NO");
        std::printf("\n");
        if (save) {
            std::string file = name;
            std::replace_if(
                file.begin(), file.end(), [](char c) { return !std::isalnum(c); }, '-');
            std::vector<const std::vector<ImageRgba8>*> rows;
            std::vector<std::string> labels;
            if (tracking) {
                rows = {&outlined, &outputs[0], &outputs[1], &outputs[5], &outputs[2]};
                labels = {"input, tracked mask", "flow-guided, 3-D fill", "flow-guided, key fills",
                          "3-D fill, tracked + 2 px", "per-frame fill"};
            } else {
                rows = {&outlined, &outputs[0], &outputs[1], &outputs[2]};
                labels = {"input", "flow-guided, 3-D fill", "flow-guided, key fills",
                          "per-frame fill"};
            }
            if (gmic_out) {
                rows.push_back(&*gmic_out);
                labels.push_back("per-frame G'MIC");
            }
            rows.push_back(&clip.truth);
            labels.push_back("truth");
            save_sheet(*save / (file + ".png"), clip, rows, labels);
        }
        std::fflush(stdout);
    }
    if (gmic) {
        std::error_code ec;
        std::filesystem::remove_all(gmic_tmp, ec);
    }
    return kExitOk;
}

}  // namespace lacuna::cli
