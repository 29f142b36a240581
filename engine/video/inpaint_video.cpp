// Flow-guided video object removal (see inpaint_video.hpp for the method).
#include <lacuna/video/inpaint_video.hpp>

#include "flow_fill.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/io/video_io.hpp>
#include <lacuna/ops/video_retarget.hpp>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/photo.hpp>
#include <opencv2/video/tracking.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>

namespace lacuna::video {
namespace {

[[noreturn]] void invalid(const std::string& message) {
    throw Error(ErrorCode::InvalidArgument, message);
}

using Clock = std::chrono::steady_clock;
double seconds_since(const Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

cv::Mat grey_of(const ImageRgba8& frame) {
    const cv::Mat rgba(frame.height(), frame.width(), CV_8UC4, const_cast<Rgba8*>(frame.row(0)),
                       frame.view().pitch);
    cv::Mat grey;
    cv::cvtColor(rgba, grey, cv::COLOR_RGBA2GRAY);
    return grey;
}

cv::Mat mat_of(const Mask& mask) {
    return cv::Mat(mask.height(), mask.width(), CV_8UC1, const_cast<std::uint8_t*>(mask.row(0)),
                   mask.view().pitch);
}

/// Where a pixel's content comes from: source image `src` (a frame index, or frames.size() + k
/// for the k-th key fill) at (x, y); `hops`: flow steps taken to get there.
struct Ref {
    int src = -1;
    float x = 0, y = 0;
    int hops = 0;
    [[nodiscard]] bool valid() const { return src >= 0; }
};

cv::Vec2f sample_flow(const cv::Mat& flow, const float x, const float y) {
    const float cx = std::clamp(x, 0.0f, static_cast<float>(flow.cols - 1));
    const float cy = std::clamp(y, 0.0f, static_cast<float>(flow.rows - 1));
    const int x0 = std::min(static_cast<int>(cx), flow.cols - 2 < 0 ? 0 : flow.cols - 2);
    const int y0 = std::min(static_cast<int>(cy), flow.rows - 2 < 0 ? 0 : flow.rows - 2);
    const int x1 = std::min(x0 + 1, flow.cols - 1), y1 = std::min(y0 + 1, flow.rows - 1);
    const float fx = cx - x0, fy = cy - y0;
    return flow.at<cv::Vec2f>(y0, x0) * ((1 - fx) * (1 - fy)) +
           flow.at<cv::Vec2f>(y0, x1) * (fx * (1 - fy)) +
           flow.at<cv::Vec2f>(y1, x0) * ((1 - fx) * fy) + flow.at<cv::Vec2f>(y1, x1) * (fx * fy);
}

class ShotFiller {
  public:
    ShotFiller(const std::vector<ImageRgba8>& frames, const std::vector<const Mask*>& holes,
               const VideoInpaintParams& params, VideoInpaintStats& stats)
        : frames_(frames),
          holes_(holes),
          params_(params),
          stats_(stats),
          w_(frames[0].width()),
          h_(frames[0].height()) {}

    /// Fills frames [s, e) (one shot) into out[s..e).
    void run(const int s, const int e, std::vector<ImageRgba8>& out,
             const VideoInpaintProgressFn& progress, int& done, const int total) {
        s_ = s;
        e_ = e;
        compute_flows(progress, done, total);
        const int n = e - s;
        std::vector<std::vector<Ref>> fwd(n), bwd(n);
        for (int t = s; t < e; ++t) {
            fwd[t - s] = propagate(t, t - 1, t > s ? &fwd[t - 1 - s] : nullptr, true);
        }
        for (int t = e - 1; t >= s; --t) {
            bwd[t - s] = propagate(t, t + 1, t + 1 < e ? &bwd[t + 1 - s] : nullptr, false);
        }
        const TemporalFill method = params_.temporal.method;
        const bool volume = method == TemporalFill::PatchMatch3d ||
                            (method == TemporalFill::Auto && motion_ < kAutoFillMotion);
        stats_.shot_motion.push_back(motion_);
        stats_.shot_volume.push_back(false);
        if (volume && fill_volume(fwd, bwd, out, progress, done, total)) {
            stats_.shot_volume.back() = true;
            return;
        }
        std::vector<Ref> previous;
        for (int t = s; t < e; ++t) {
            std::vector<Ref> refs = nearest(fwd[t - s], bwd[t - s]);
            fwd[t - s].clear();
            bwd[t - s].clear();
            carry_or_fill(t, refs, t > s ? &previous : nullptr);
            out[t] = compose(t, refs);
            previous = std::move(refs);
            ++done;
            if (progress && !progress({"fill", done, total}))
                throw Error(ErrorCode::Cancelled, "cancelled");
        }
    }

  private:
    /// The shot's hole pixels that no frame shows, synthesised at once by the spatio-temporal
    /// PatchMatch with every other pixel (those brought in or carried along the flow too) known.
    /// False,
    /// with nothing changed, where it finds no source patch (a hole over nearly all the frame):
    /// then the key fills run instead.
    bool fill_volume(std::vector<std::vector<Ref>>& fwd, std::vector<std::vector<Ref>>& bwd,
                     std::vector<ImageRgba8>& out, const VideoInpaintProgressFn& progress,
                     int& done, const int total) {
        const int n = e_ - s_;
        std::vector<ImageRgba8> composed(n);
        std::vector<Mask> rest(n, Mask(w_, h_, std::uint8_t{0}));
        VideoInpaintStats counts;
        std::vector<Ref> previous;
        for (int i = 0; i < n; ++i) {
            const int t = s_ + i;
            std::vector<Ref> refs = nearest(fwd[i], bwd[i]);
            for (int y = 0; y < h_; ++y)
                for (int x = 0; x < w_; ++x) {
                    if (!hole(t, x, y)) continue;
                    ++counts.hole_pixels;
                    Ref& r = refs[static_cast<std::size_t>(y) * w_ + x];
                    if (r.valid()) {
                        ++counts.from_other_frames;
                        continue;
                    }
                    // Carried from the previous frame's references (which point into frames
                    // only: nothing is synthesised yet), as with key fills.
                    if (i > 0)
                        if (const auto q = step(t, t - 1, x, y))
                            r = chain(t - 1, *q, &previous, false);
                    counts.carried += r.valid() ? 1 : 0;
                    counts.synthesized += r.valid() ? 0 : 1;
                    rest[i].at(x, y) = r.valid() ? 0 : 255;
                }
            composed[i] = compose(t, refs);
            previous = std::move(refs);
        }
        if (counts.synthesized > 0) {
            const auto start = Clock::now();
            ops::PatchMatch3dParams p;
            p.patch = params_.temporal.patch;
            p.patch_frames = std::min(params_.temporal.frames, n % 2 ? n : n - 1);
            p.iterations = params_.temporal.iterations;
            p.seed = params_.fill.seed;
            try {
                composed =
                    ops::patchmatch3d_fill(composed, rest, p, params_.volume_implementation, [&] {
                        return !progress || progress({"fill", done, total});
                    }).frames;
            } catch (const Error& e) {
                if (e.code() != ErrorCode::InvalidArgument) throw;
                return false;
            }
            ++stats_.volume_fills;
            stats_.fill_seconds += seconds_since(start);
        }
        stats_.hole_pixels += counts.hole_pixels;
        stats_.from_other_frames += counts.from_other_frames;
        stats_.carried += counts.carried;
        stats_.synthesized += counts.synthesized;
        for (int i = 0; i < n; ++i) {
            out[s_ + i] = std::move(composed[i]);
            ++done;
            if (progress && !progress({"fill", done, total}))
                throw Error(ErrorCode::Cancelled, "cancelled");
        }
        return true;
    }

    [[nodiscard]] bool hole(const int t, const int x, const int y) const {
        return holes_[t]->at(x, y) != 0;
    }

    void compute_flows(const VideoInpaintProgressFn& progress, int& done, const int total) {
        const auto start = Clock::now();
        const int n = e_ - s_;
        to_prev_.assign(n, cv::Mat());
        to_next_.assign(n, cv::Mat());
        const cv::Ptr<cv::DISOpticalFlow> dis =
            cv::DISOpticalFlow::create(cv::DISOpticalFlow::PRESET_MEDIUM);
        std::vector<cv::Mat> grey(n);
        for (int t = s_; t < e_; ++t) {
            // The object's edges would pull the background's flow towards the object's motion;
            // with the hole smoothly filled first (Telea) there is little in it to match.
            cv::Mat g = grey_of(frames_[t]), grown;
            cv::dilate(mat_of(*holes_[t]), grown, cv::Mat(), cv::Point(-1, -1), 2);
            cv::inpaint(g, grown, grey[t - s_], 3, cv::INPAINT_TELEA);
        }
        const int m = params_.flow_margin;
        const cv::Mat disc =
            cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(2 * m + 1, 2 * m + 1));
        // The camera's motion: a histogram of flow lengths in a ring round the hole, 1/16 px
        // bins up to 64 px (the last bin takes longer ones), so memory does not grow with it.
        constexpr int kBinsPerPixel = 16, kBins = 64 * kBinsPerPixel + 1;
        std::vector<std::int64_t> lengths(kBins, 0);
        std::int64_t samples = 0;
        for (int i = 0; i + 1 < n; ++i) {
            // Between frames i and i + 1 the flow is unknown near either frame's hole: where one
            // frame shows the object, the other's pixels have no true match (or the object's).
            cv::Mat either, grown, k, known, outer;
            cv::bitwise_or(mat_of(*holes_[s_ + i]), mat_of(*holes_[s_ + i + 1]), either);
            cv::dilate(either, grown, disc);
            cv::compare(grown, 0, k, cv::CMP_EQ);
            k.convertTo(known, CV_32F, 1.0 / 255.0);
            cv::Mat f;
            dis->calc(grey[i], grey[i + 1], f);
            // The ring: known pixels within another margin of the unknown band (the background
            // the fill copies from, not a far part of the frame that may move otherwise).
            cv::dilate(grown, outer, disc);
            for (int y = 0; y < f.rows; ++y)
                for (int x = 0; x < f.cols; ++x)
                    if (outer.at<std::uint8_t>(y, x) != 0 && k.at<std::uint8_t>(y, x) != 0) {
                        const cv::Vec2f v = f.at<cv::Vec2f>(y, x);
                        const double bin = std::hypot(v[0], v[1]) * kBinsPerPixel;
                        ++lengths[static_cast<std::size_t>(std::min<double>(bin, kBins - 1))];
                        ++samples;
                    }
            to_next_[i] = complete_flow(f, known);
            dis->calc(grey[i + 1], grey[i], f);
            to_prev_[i + 1] = complete_flow(f, known);
            if (progress && !progress({"flow", done, total}))
                throw Error(ErrorCode::Cancelled, "cancelled");
        }
        // No ring (one frame, or a hole over nearly all the frame): 0, the 3-D fill is tried.
        motion_ = 0;
        for (std::int64_t below = 0, b = 0; samples > 0 && b < kBins; ++b) {
            below += lengths[static_cast<std::size_t>(b)];
            if (2 * below > samples) {  // the median's bin, at its centre
                motion_ = (static_cast<double>(b) + 0.5) / kBinsPerPixel;
                break;
            }
        }
        stats_.flow_seconds += seconds_since(start);
    }

    /// Does the bilinear support of (x, y) in source `src` hold at least one usable pixel?
    [[nodiscard]] bool supported(const int src, const float x, const float y) const {
        if (x < 0 || y < 0 || x > w_ - 1 || y > h_ - 1) return false;
        if (src >= static_cast<int>(frames_.size())) return true;  // a key fill: all pixels
        const int x0 = static_cast<int>(x), y0 = static_cast<int>(y);
        for (int dy = 0; dy < 2; ++dy)
            for (int dx = 0; dx < 2; ++dx) {
                const int xx = std::min(x0 + dx, w_ - 1), yy = std::min(y0 + dy, h_ - 1);
                if (!hole(src, xx, yy)) return true;
            }
        return false;
    }

    /// One step of frame t's hole pixels to frame `u` (t ± 1) along the flow, with the
    /// forward-backward check; nullopt when the step leaves the frame or fails the check.
    [[nodiscard]] std::optional<cv::Point2f> step(const int t, const int u, const int x,
                                                  const int y) const {
        const cv::Mat& there = u < t ? to_prev_[t - s_] : to_next_[t - s_];
        const cv::Mat& back = u < t ? to_next_[u - s_] : to_prev_[u - s_];
        const cv::Vec2f f = there.at<cv::Vec2f>(y, x);
        const float qx = x + f[0], qy = y + f[1];
        if (qx < 0 || qy < 0 || qx > w_ - 1 || qy > h_ - 1) return std::nullopt;
        const cv::Vec2f b = sample_flow(back, qx, qy);
        if (std::hypot(f[0] + b[0], f[1] + b[1]) > params_.consistency) return std::nullopt;
        return cv::Point2f(qx, qy);
    }

    /// The reference of pixel (x, y) of frame u as seen from a step landing at q: the pixel itself
    /// outside u's hole, else u's own reference moved by q's offset from that pixel.
    [[nodiscard]] Ref chain(const int u, const cv::Point2f q, const std::vector<Ref>* refs_u,
                            const bool count_hops) const {
        const int rx = static_cast<int>(std::lround(q.x)), ry = static_cast<int>(std::lround(q.y));
        if (!hole(u, rx, ry)) return {u, q.x, q.y, 1};
        if (!refs_u) return {};
        const Ref& r = (*refs_u)[static_cast<std::size_t>(ry) * w_ + rx];
        if (!r.valid()) return {};
        Ref out{r.src, r.x + (q.x - rx), r.y + (q.y - ry), r.hops + (count_hops ? 1 : 0)};
        if (!supported(out.src, out.x, out.y)) return {};
        return out;
    }

    /// References of frame t's hole pixels from frames before it (u = t − 1, forward) or after it
    /// (u = t + 1): the pixel's place in u if visible there, else u's own reference (chained).
    /// Dense (w × h) for lookups by the next frame; invalid outside the hole.
    std::vector<Ref> propagate(const int t, const int u, const std::vector<Ref>* refs_u,
                               const bool) const {
        std::vector<Ref> refs(static_cast<std::size_t>(w_) * h_);
        if (u < s_ || u >= e_) return refs;
        for (int y = 0; y < h_; ++y)
            for (int x = 0; x < w_; ++x) {
                if (!hole(t, x, y)) continue;
                if (const auto q = step(t, u, x, y))
                    refs[static_cast<std::size_t>(y) * w_ + x] = chain(u, *q, refs_u, true);
            }
        return refs;
    }

    /// Per pixel the reference with fewer hops (the nearest frame that shows it); forward on ties.
    std::vector<Ref> nearest(const std::vector<Ref>& fwd, const std::vector<Ref>& bwd) const {
        std::vector<Ref> refs(fwd.size());
        for (std::size_t i = 0; i < refs.size(); ++i) {
            const Ref& a = fwd[i];
            const Ref& b = bwd[i];
            refs[i] = !b.valid() || (a.valid() && a.hops <= b.hops) ? a : b;
        }
        return refs;
    }

    /// Hole pixels no frame shows: carried from the previous frame's result along the flow, the
    /// rest filled by the image fill on this frame (which becomes a key fill source).
    void carry_or_fill(const int t, std::vector<Ref>& refs, const std::vector<Ref>* previous) {
        Mask rest(w_, h_, std::uint8_t{0});
        std::int64_t rest_count = 0;
        for (int y = 0; y < h_; ++y)
            for (int x = 0; x < w_; ++x) {
                if (!hole(t, x, y)) continue;
                ++stats_.hole_pixels;
                Ref& r = refs[static_cast<std::size_t>(y) * w_ + x];
                if (r.valid()) {
                    ++stats_.from_other_frames;
                    continue;
                }
                if (previous) {
                    if (const auto q = step(t, t - 1, x, y)) {
                        r = chain(t - 1, *q, previous, false);
                        if (r.valid()) {
                            ++stats_.carried;
                            continue;
                        }
                    }
                }
                rest.at(x, y) = 255;
                ++rest_count;
            }
        if (rest_count == 0) return;
        const auto start = Clock::now();
        const ImageRgba8 composed = compose(t, refs);
        ops::InpaintResult filled =
            ops::inpaint(composed.view(), rest, params_.fill, params_.implementation);
        keys_.push_back(std::move(filled.image));
        const int id = static_cast<int>(frames_.size() + keys_.size() - 1);
        for (int y = 0; y < h_; ++y)
            for (int x = 0; x < w_; ++x)
                if (rest.at(x, y))
                    refs[static_cast<std::size_t>(y) * w_ + x] =
                        Ref{id, static_cast<float>(x), static_cast<float>(y), 0};
        stats_.synthesized += rest_count;
        ++stats_.key_fills;
        stats_.fill_seconds += seconds_since(start);
    }

    /// Bilinear sample of a source, over its usable pixels only (a frame's own hole is not).
    [[nodiscard]] Rgba8 sample(const Ref& r) const {
        const bool key = r.src >= static_cast<int>(frames_.size());
        const ImageRgba8& img = key ? keys_[r.src - frames_.size()] : frames_[r.src];
        const int x0 = std::min(static_cast<int>(r.x), w_ - 1);
        const int y0 = std::min(static_cast<int>(r.y), h_ - 1);
        const float fx = r.x - x0, fy = r.y - y0;
        float acc[3] = {0, 0, 0}, weight = 0;
        for (int dy = 0; dy < 2; ++dy)
            for (int dx = 0; dx < 2; ++dx) {
                const int xx = std::min(x0 + dx, w_ - 1), yy = std::min(y0 + dy, h_ - 1);
                if (!key && hole(r.src, xx, yy)) continue;
                const float wgt = (dx ? fx : 1 - fx) * (dy ? fy : 1 - fy);
                const Rgba8 p = img.at(xx, yy);
                acc[0] += wgt * p.r;
                acc[1] += wgt * p.g;
                acc[2] += wgt * p.b;
                weight += wgt;
            }
        if (weight <= 1e-6f) {  // only the corner pixels farthest away are usable: take one
            for (int dy = 0; dy < 2; ++dy)
                for (int dx = 0; dx < 2; ++dx) {
                    const int xx = std::min(x0 + dx, w_ - 1), yy = std::min(y0 + dy, h_ - 1);
                    if (key || !hole(r.src, xx, yy)) return img.at(xx, yy);
                }
        }
        const auto level = [&](const float v) {
            return static_cast<std::uint8_t>(std::clamp(std::lround(v / weight), 0L, 255L));
        };
        return Rgba8{level(acc[0]), level(acc[1]), level(acc[2]), 255};
    }

    /// Frame t with its hole pixels taken from their references (unresolved ones left as given).
    [[nodiscard]] ImageRgba8 compose(const int t, const std::vector<Ref>& refs) const {
        ImageRgba8 out = frames_[t];
        for (int y = 0; y < h_; ++y)
            for (int x = 0; x < w_; ++x) {
                const Ref& r = refs[static_cast<std::size_t>(y) * w_ + x];
                if (hole(t, x, y) && r.valid()) {
                    Rgba8 p = sample(r);
                    p.a = frames_[t].at(x, y).a;
                    out.at(x, y) = p;
                }
            }
        return out;
    }

    const std::vector<ImageRgba8>& frames_;
    const std::vector<const Mask*>& holes_;
    const VideoInpaintParams& params_;
    VideoInpaintStats& stats_;
    int w_, h_;
    int s_ = 0, e_ = 0;
    std::vector<cv::Mat> to_prev_, to_next_;  ///< per frame of the shot: flow to t − 1 / t + 1
    double motion_ = 0;  ///< the shot's camera motion, pixels a frame (see kAutoFillMotion)
    std::vector<ImageRgba8> keys_;  ///< key fills, source ids frames.size() + k
};

}  // namespace

std::vector<ImageRgba8> inpaint_frames(const std::vector<ImageRgba8>& frames,
                                       const std::vector<Mask>& masks,
                                       const VideoInpaintParams& params, VideoInpaintStats* stats,
                                       const VideoInpaintProgressFn& progress) {
    if (frames.empty()) invalid("no frames to fill");
    const int w = frames[0].width(), h = frames[0].height();
    for (std::size_t i = 0; i < frames.size(); ++i)
        if (frames[i].width() != w || frames[i].height() != h)
            invalid("frame " + std::to_string(i) + " is " + std::to_string(frames[i].width()) +
                    "×" + std::to_string(frames[i].height()) + ", the first frame " +
                    std::to_string(w) + "×" + std::to_string(h));
    if (masks.size() != 1 && masks.size() != frames.size())
        invalid("the mask video has " + std::to_string(masks.size()) + " frames, the clip " +
                std::to_string(frames.size()) + " (give one still mask or one mask a frame)");
    std::int64_t selected = 0;
    for (const Mask& m : masks) {
        check_mask_size(m.view(), w, h, "the mask");
        selected += count_selected(m.view());
    }
    if (selected == 0) invalid("the mask selects no pixel: nothing to remove");
    // Checked here, so that the 3-D fill's only refusal left is "no source patch" (then key fills).
    if (const TemporalFillParams& tf = params.temporal;
        tf.method != TemporalFill::Image &&
        (tf.patch < 3 || tf.patch > 15 || tf.patch % 2 == 0 || tf.frames < 1 || tf.frames > 9 ||
         tf.frames % 2 == 0 || tf.iterations < 1 || tf.iterations > 100))
        invalid(
            "the 3-D fill's patch must be odd, 3 to 15 px and 1 to 9 frames, with 1 to 100 "
            "iterations");
    std::vector<const Mask*> holes(frames.size());
    for (std::size_t i = 0; i < frames.size(); ++i) holes[i] = &masks[masks.size() == 1 ? 0 : i];

    VideoInpaintStats local;
    VideoInpaintStats& st = stats ? *stats : local;
    st = {};
    std::vector<ImageRgba8> out(frames.size());
    const int total = static_cast<int>(frames.size());
    int done = 0;
    if (!params.propagate) {
        for (std::size_t i = 0; i < frames.size(); ++i) {
            const auto start = Clock::now();
            out[i] =
                ops::inpaint(frames[i].view(), *holes[i], params.fill, params.implementation).image;
            st.fill_seconds += seconds_since(start);
            const std::int64_t n = count_selected(holes[i]->view());
            st.hole_pixels += n;
            st.synthesized += n;
            st.key_fills += n > 0 ? 1 : 0;
            if (progress && !progress({"fill", ++done, total}))
                throw Error(ErrorCode::Cancelled, "cancelled");
        }
        return out;
    }
    ShotFiller filler(frames, holes, params, st);
    int s = 0;
    for (int t = 1; t <= total; ++t) {
        const bool cut =
            t < total && ops::mean_luma_difference(frames[t - 1].view(), frames[t].view()) >
                             params.cut_threshold;
        if (t == total || cut) {
            filler.run(s, t, out, progress, done, total);
            if (cut) ++st.cuts;
            s = t;
        }
    }
    return out;
}

namespace {

std::vector<Mask> read_masks(const std::filesystem::path& path, const int w, const int h,
                             const int clip_frames, const int first, const int end) {
    std::vector<Mask> masks;
    if (!io::is_video_path(path)) {
        Mask m = io::read_mask(path);
        check_mask_size(m.view(), w, h, "the mask");
        masks.push_back(std::move(m));
        return masks;
    }
    io::VideoReader reader(path);
    if (reader.info().width != w || reader.info().height != h)
        invalid("the mask video is " + std::to_string(reader.info().width) + "×" +
                std::to_string(reader.info().height) + ", the clip " + std::to_string(w) + "×" +
                std::to_string(h));
    int index = 0;
    while (auto frame = reader.next()) {
        if (index >= first && index < end) masks.push_back(mask_from_image(frame->view()));
        ++index;
    }
    if (index != clip_frames)
        invalid("the mask video has " + std::to_string(index) + " frames, the clip " +
                std::to_string(clip_frames));
    return masks;
}

/// The masks of frames first.. as `dir`/NNNNN.png (the clip's frame numbers; a still mask is
/// written for every frame), white = hole, so they can be looked at, corrected and given back.
void save_masks(const std::filesystem::path& dir, const std::vector<Mask>& masks, const int first,
                const int frames) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (!std::filesystem::is_directory(dir))
        invalid("cannot write the masks to '" + dir.string() + "': not a folder");
    for (int i = 0; i < frames; ++i) {
        const Mask& m = masks[masks.size() == 1 ? 0 : static_cast<std::size_t>(i)];
        ImageRgba8 img(m.width(), m.height());
        for (int y = 0; y < m.height(); ++y)
            for (int x = 0; x < m.width(); ++x) {
                const std::uint8_t v = m.at(x, y) != 0 ? 255 : 0;
                img.at(x, y) = Rgba8{v, v, v, 255};
            }
        char name[32];
        std::snprintf(name, sizeof name, "%05d.png", first + i);
        io::write_image(dir / name, img.view());
    }
}

}  // namespace

InpaintVideoResult inpaint_video(const InpaintVideoOptions& o,
                                 const VideoInpaintProgressFn& progress) {
    const auto start = Clock::now();
    InpaintVideoResult r;
    if (o.first < 0 || (o.end >= 0 && o.end <= o.first))
        invalid("the frame range must be A:B with 0 ≤ A < B");
    io::VideoReader reader(o.input);
    r.width = reader.info().width;
    r.height = reader.info().height;
    r.fps = reader.info().fps > 0 ? reader.info().fps : io::VideoReader::kSequenceFps;
    std::vector<ImageRgba8> frames;
    int index = 0;
    while (auto frame = reader.next()) {
        if (index >= o.first && (o.end < 0 || index < o.end)) frames.push_back(std::move(*frame));
        ++index;
    }
    if (reader.ended_early()) {
        if (!o.allow_truncated) invalid(reader.warning());
        r.notices.push_back(reader.warning());
    }
    r.clip_frames = index;
    const int end = o.end < 0 ? index : o.end;
    if (end > index)
        invalid("the clip has " + std::to_string(index) + " frames; the range " +
                std::to_string(o.first) + ":" + std::to_string(end) + " goes past its end");
    r.decode_seconds = seconds_since(start);
    const int sources =
        (o.mask.empty() ? 0 : 1) + (o.mask_keys.empty() ? 0 : 1) + (o.masks.empty() ? 0 : 1);
    if (sources != 1)
        invalid(sources == 0 ? "no mask: give a mask (still, video or sequence) or key-frame masks"
                             : "give a mask or key-frame masks, not both");
    // The key frames are checked in the clip's numbering (the tracker counts from the range's
    // first frame).
    std::vector<KeyMask> keys;
    for (const KeyMaskFile& k : o.mask_keys) {
        const std::string which = "the mask of key frame " + std::to_string(k.frame);
        if (k.frame < o.first || k.frame >= end)
            invalid("key frame " + std::to_string(k.frame) + " is outside the frames processed (" +
                    std::to_string(o.first) + ".." + std::to_string(end - 1) + ")");
        for (const KeyMaskFile& other : o.mask_keys)
            if (&other != &k && other.frame == k.frame)
                invalid("key frame " + std::to_string(k.frame) + " is given twice");
        Mask m = io::read_mask(k.path);
        if (m.width() != r.width || m.height() != r.height)
            invalid(which + " is " + std::to_string(m.width()) + "×" + std::to_string(m.height()) +
                    ", the clip " + std::to_string(r.width) + "×" + std::to_string(r.height));
        if (count_selected(m.view()) == 0) invalid(which + " selects no pixel");
        keys.push_back({k.frame - o.first, std::move(m)});
    }
    std::vector<Mask> masks;
    if (!o.masks.empty()) {
        if (o.masks.size() != 1 && o.masks.size() != frames.size())
            invalid("masks for " + std::to_string(o.masks.size()) +
                    " frames were given, the range has " + std::to_string(frames.size()));
        for (const Mask& m : o.masks) {
            check_mask_size(m.view(), r.width, r.height, "the mask");
            masks.push_back(clone(m.view()));
        }
    } else if (keys.empty()) {
        masks = read_masks(o.mask, r.width, r.height, index, o.first, end);
    }
    // The writer is opened before the work, so an unwritable output fails at once.
    io::VideoWriter writer(o.output, r.width, r.height, r.fps);
    // The sound of the frames written (all of it when they are the whole clip), or none, as asked.
    writer.carry_audio(o.carry_audio ? o.input : std::filesystem::path(), o.first,
                       end == index && !reader.ended_early());
    if (!keys.empty()) {
        const auto track_start = Clock::now();
        const auto report = [&](const MaskTrackProgress& p) {
            return !progress ||
                   progress({p.stage == "flow" ? "mask flow" : "track", p.done, p.total});
        };
        // The masks stop at the cuts where the fill starts a new shot: the same threshold.
        MaskTrackParams track = o.track;
        track.cut_threshold = o.params.cut_threshold;
        masks = MaskTracker(frames, report).track(keys, track, &r.track_stats, report);
        r.tracked = true;
        r.track_seconds = seconds_since(track_start);
    }
    r.mask_pixels_min = std::numeric_limits<std::int64_t>::max();
    for (const Mask& m : masks) {
        const std::int64_t n = count_selected(m.view());
        r.mask_pixels_min = std::min(r.mask_pixels_min, n);
        r.mask_pixels_max = std::max(r.mask_pixels_max, n);
        r.empty_masks += n == 0 ? 1 : 0;
    }
    if (masks.size() == 1) r.empty_masks *= static_cast<int>(frames.size());
    if (!o.save_masks.empty())
        save_masks(o.save_masks, masks, o.first, static_cast<int>(frames.size()));
    if (const int grow = o.params.fill.mask_grow; grow != 0)  // the brush margin, as for images
        for (Mask& m : masks) m = grow_mask(m.view(), grow);
    const std::vector<ImageRgba8> filled =
        inpaint_frames(frames, masks, o.params, &r.stats, progress);
    const auto encode_start = Clock::now();
    for (const ImageRgba8& f : filled) writer.write(f);
    writer.finish();
    r.encode_seconds = seconds_since(encode_start);
    r.frames = static_cast<int>(filled.size());
    r.output_codec = writer.codec();
    r.audio = writer.audio();
    r.audio_left_out = writer.audio_left_out();
    r.notices.insert(r.notices.end(), writer.notices().begin(), writer.notices().end());
    r.seconds = seconds_since(start);
    return r;
}

}  // namespace lacuna::video
