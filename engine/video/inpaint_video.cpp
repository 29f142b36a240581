// Flow-guided video object removal (see inpaint_video.hpp for the method).
#include <lacuna/video/inpaint_video.hpp>

#include "flow_fill.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/core/parallel.hpp>
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
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

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

/// The hole pixels of one mask in row-major order, and where each sits: the reference maps hold
/// one Ref per hole pixel (not per frame pixel), found through `slot` over the hole's bounding
/// box. A still mask's index is built once and shared by every frame.
struct HoleIndex {
    cv::Rect box;                   ///< the hole's bounding box (empty: no hole)
    std::vector<int> slot;          ///< box.area() entries: index into `pixels`, or −1
    std::vector<cv::Point> pixels;  ///< row-major
    [[nodiscard]] int find(const int x, const int y) const {
        return slot[static_cast<std::size_t>(y - box.y) * box.width + (x - box.x)];
    }
};

HoleIndex index_hole(const Mask& mask) {
    HoleIndex index;
    const cv::Mat m = mat_of(mask);
    index.box = cv::boundingRect(m);
    index.slot.assign(static_cast<std::size_t>(index.box.area()), -1);
    for (int y = index.box.y; y < index.box.br().y; ++y)
        for (int x = index.box.x; x < index.box.br().x; ++x)
            if (mask.at(x, y) != 0) {
                index.slot[static_cast<std::size_t>(y - index.box.y) * index.box.width +
                           (x - index.box.x)] = static_cast<int>(index.pixels.size());
                index.pixels.emplace_back(x, y);
            }
    return index;
}

/// The 2 × 2 cell a bilinear sample of a w × h field at (x, y) reads (clamped at the border).
struct Cell {
    int x0, y0, x1, y1;
    float fx, fy;
};

Cell cell_of(const float x, const float y, const int w, const int h) {
    const float cx = std::clamp(x, 0.0f, static_cast<float>(w - 1));
    const float cy = std::clamp(y, 0.0f, static_cast<float>(h - 1));
    const int x0 = std::min(static_cast<int>(cx), w - 2 < 0 ? 0 : w - 2);
    const int y0 = std::min(static_cast<int>(cy), h - 2 < 0 ? 0 : h - 2);
    return {x0, y0, std::min(x0 + 1, w - 1), std::min(y0 + 1, h - 1), cx - x0, cy - y0};
}

/// A completed flow field kept only over `box` (frame coordinates): the part propagation reads
/// (the hole pixels of its frame and the cells the neighbour's steps land in). Values are the
/// whole field's, so results do not depend on the crop.
struct FlowCrop {
    cv::Rect box;
    cv::Mat flow;  ///< CV_32FC2, box.size()
    [[nodiscard]] cv::Vec2f at(const int x, const int y) const {
        return flow.at<cv::Vec2f>(y - box.y, x - box.x);
    }
};

cv::Vec2f sample_flow(const FlowCrop& flow, const float x, const float y, const int w,
                      const int h) {
    const Cell c = cell_of(x, y, w, h);
    return flow.at(c.x0, c.y0) * ((1 - c.fx) * (1 - c.fy)) +
           flow.at(c.x1, c.y0) * (c.fx * (1 - c.fy)) + flow.at(c.x0, c.y1) * ((1 - c.fx) * c.fy) +
           flow.at(c.x1, c.y1) * (c.fx * c.fy);
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
          h_(frames[0].height()) {
        // One index per distinct mask (a still mask is one for all frames).
        index_.resize(frames.size());
        for (std::size_t t = 0; t < frames.size(); ++t) {
            const std::size_t same = static_cast<std::size_t>(
                std::find(holes.begin(), holes.begin() + static_cast<std::ptrdiff_t>(t), holes[t]) -
                holes.begin());
            index_[t] =
                same < t ? index_[same] : std::make_shared<HoleIndex>(index_hole(*holes[t]));
        }
    }

    /// Fills frames [s, e) (one shot); each frame goes to `emit` as soon as it is final.
    void run(const int s, const int e, const std::function<void(int, ImageRgba8&&)>& emit,
             const VideoInpaintProgressFn& progress, int& done, const int total) {
        s_ = s;
        e_ = e;
        keys_.clear();
        compute_flows(progress, done, total);
        const auto passes = Clock::now();
        const int n = e - s;
        std::vector<std::vector<Ref>> fwd(n), bwd(n);
        for (int t = s; t < e; ++t)
            fwd[t - s] = propagate(t, t - 1, t > s ? &fwd[t - 1 - s] : nullptr);
        for (int t = e - 1; t >= s; --t)
            bwd[t - s] = propagate(t, t + 1, t + 1 < e ? &bwd[t + 1 - s] : nullptr);
        stats_.propagate_seconds += seconds_since(passes);
        const TemporalFill method = params_.temporal.method;
        const bool volume = method == TemporalFill::PatchMatch3d ||
                            (method == TemporalFill::Auto && motion_ < kAutoFillMotion);
        stats_.shot_motion.push_back(motion_);
        stats_.shot_volume.push_back(false);
        if (volume && fill_volume(fwd, bwd, emit, progress, done, total)) {
            stats_.shot_volume.back() = true;
            to_prev_.clear();
            to_next_.clear();
            return;
        }
        std::vector<Ref> previous;
        for (int t = s; t < e; ++t) {
            const auto start = Clock::now();
            const double fills = stats_.fill_seconds;
            std::vector<Ref> refs = nearest(fwd[t - s], bwd[t - s]);
            std::vector<Ref>().swap(fwd[t - s]);
            std::vector<Ref>().swap(bwd[t - s]);
            carry_or_fill(t, refs, t > s ? &previous : nullptr);
            ImageRgba8 out = compose(t, refs);
            previous = std::move(refs);
            if (t > s) {  // no later frame reads the flows into or out of frame t − 1
                to_prev_[t - 1 - s] = FlowCrop{};
                to_next_[t - 1 - s] = FlowCrop{};
            }
            release_unreferenced_keys(previous);
            stats_.propagate_seconds += seconds_since(start) - (stats_.fill_seconds - fills);
            emit(t, std::move(out));
            ++done;
            if (progress && !progress({"fill", done, total}))
                throw Error(ErrorCode::Cancelled, "cancelled");
        }
        to_prev_.clear();
        to_next_.clear();
    }

  private:
    /// The shot's hole pixels that no frame shows, synthesised at once by the spatio-temporal
    /// PatchMatch with every other pixel (those brought in or carried along the flow too) known.
    /// False, with nothing changed, where it finds no source patch (a hole over nearly all the
    /// frame): then the key fills run instead.
    bool fill_volume(std::vector<std::vector<Ref>>& fwd, std::vector<std::vector<Ref>>& bwd,
                     const std::function<void(int, ImageRgba8&&)>& emit,
                     const VideoInpaintProgressFn& progress, int& done, const int total) {
        const int n = e_ - s_;
        std::vector<ImageRgba8> composed(n);
        std::vector<Mask> rest(n, Mask(w_, h_, std::uint8_t{0}));
        VideoInpaintStats counts;
        std::vector<Ref> previous;
        for (int i = 0; i < n; ++i) {
            const int t = s_ + i;
            const std::vector<cv::Point>& pixels = index(t).pixels;
            std::vector<Ref> refs = nearest(fwd[i], bwd[i]);
            for (std::size_t k = 0; k < pixels.size(); ++k) {
                ++counts.hole_pixels;
                Ref& r = refs[k];
                if (r.valid()) {
                    ++counts.from_other_frames;
                    continue;
                }
                // Carried from the previous frame's references (which point into frames
                // only: nothing is synthesised yet), as with key fills.
                if (i > 0)
                    if (const auto q = step(t, t - 1, pixels[k].x, pixels[k].y))
                        r = chain(t - 1, *q, &previous, false);
                counts.carried += r.valid() ? 1 : 0;
                counts.synthesized += r.valid() ? 0 : 1;
                rest[i].at(pixels[k].x, pixels[k].y) = r.valid() ? 0 : 255;
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
            emit(s_ + i, std::move(composed[i]));
            ++done;
            if (progress && !progress({"fill", done, total}))
                throw Error(ErrorCode::Cancelled, "cancelled");
        }
        return true;
    }

    /// A key fill is read only through references that carry it on, and later frames chain
    /// only through the last frame's references: a key fill none of those holds is never read
    /// again, so its image is dropped (its id stays taken).
    void release_unreferenced_keys(const std::vector<Ref>& last) {
        if (!params_.compact) return;
        std::vector<bool> used(keys_.size(), false);
        const int first_key = static_cast<int>(frames_.size());
        for (const Ref& r : last)
            if (r.src >= first_key) used[static_cast<std::size_t>(r.src - first_key)] = true;
        for (std::size_t k = 0; k < keys_.size(); ++k)
            if (!used[k]) keys_[k] = ImageRgba8();
    }

    [[nodiscard]] bool hole(const int t, const int x, const int y) const {
        return holes_[t]->at(x, y) != 0;
    }
    [[nodiscard]] const HoleIndex& index(const int t) const { return *index_[t]; }

    /// Grey frame t with its hole (grown 2 px) smoothly filled first (Telea): the object's edges
    /// would pull the background's flow towards the object's motion, and with the hole filled
    /// there is little in it to match.
    [[nodiscard]] cv::Mat flow_grey(const int t) const {
        cv::Mat g = grey_of(frames_[t]), grown, filled;
        cv::dilate(mat_of(*holes_[t]), grown, cv::Mat(), cv::Point(-1, -1), 2);
        cv::inpaint(g, grown, filled, 3, cv::INPAINT_TELEA);
        return filled;
    }

    /// Grows `box` to hold the cells that steps from frame `from`'s hole pixels along `along`
    /// land in (inside the frame; a step landing outside is refused before any sampling).
    void add_landings(cv::Rect& box, const int from, const cv::Mat& along) const {
        for (const cv::Point p : index(from).pixels) {
            const cv::Vec2f f = along.at<cv::Vec2f>(p.y, p.x);
            const float qx = p.x + f[0], qy = p.y + f[1];
            if (qx < 0 || qy < 0 || qx > w_ - 1 || qy > h_ - 1) continue;
            const Cell c = cell_of(qx, qy, w_, h_);
            box |= cv::Rect(c.x0, c.y0, c.x1 - c.x0 + 1, c.y1 - c.y0 + 1);
        }
    }

    /// The camera's motion is measured in 1/16 px bins up to 64 px (the last bin takes longer
    /// ones), so memory does not grow with the ring.
    static constexpr int kRingBinsPerPixel = 16, kRingBins = 64 * kRingBinsPerPixel + 1;

    /// Adds the lengths of `flow` (DIS's, before completion) at the ring's pixels to `hist`: the
    /// known pixels (k) within another margin (disc) of the band where the flow is unknown
    /// (grown): the background the fill copies from, not a far part of the frame that may move
    /// otherwise.
    static void add_ring_lengths(const cv::Mat& flow, const cv::Mat& grown, const cv::Mat& k,
                                 const cv::Mat& disc, std::vector<std::int64_t>& hist) {
        cv::Mat outer;
        cv::dilate(grown, outer, disc);
        for (int y = 0; y < flow.rows; ++y)
            for (int x = 0; x < flow.cols; ++x)
                if (outer.at<std::uint8_t>(y, x) != 0 && k.at<std::uint8_t>(y, x) != 0) {
                    const cv::Vec2f v = flow.at<cv::Vec2f>(y, x);
                    const double bin = std::hypot(v[0], v[1]) * kRingBinsPerPixel;
                    ++hist[static_cast<std::size_t>(std::min<double>(bin, kRingBins - 1))];
                }
    }

    [[nodiscard]] static FlowCrop crop(const cv::Mat& flow, const cv::Rect box) {
        return FlowCrop{box, box.empty() ? cv::Mat() : flow(box).clone()};
    }

    /// The flows both ways between frames a = s + i and a + 1, completed in the hole, each kept
    /// over what propagation reads of it (the whole frame when params_.compact is off).
    void pair_flow(cv::DISOpticalFlow& dis, const cv::Mat& grey_a, const cv::Mat& grey_b,
                   const int i, const cv::Mat& disc) {
        const int a = s_ + i, b = a + 1;
        // The flow is unknown near either frame's hole: where one frame shows the object, the
        // other's pixels have no true match (or the object's).
        cv::Mat either, grown, k, known;
        cv::bitwise_or(mat_of(*holes_[a]), mat_of(*holes_[b]), either);
        cv::dilate(either, grown, disc);
        cv::compare(grown, 0, k, cv::CMP_EQ);
        k.convertTo(known, CV_32F, 1.0 / 255.0);
        // Two buffers: complete_flow returns its input itself where nothing is unknown.
        cv::Mat f_ab, f_ba;
        dis.calc(grey_a, grey_b, f_ab);
        add_ring_lengths(f_ab, grown, k, disc, ring_[static_cast<std::size_t>(i)]);
        const cv::Mat ab = complete_flow(f_ab, known);
        dis.calc(grey_b, grey_a, f_ba);
        const cv::Mat ba = complete_flow(f_ba, known);
        if (!params_.compact) {
            to_next_[i] = FlowCrop{cv::Rect(0, 0, w_, h_), ab};
            to_prev_[i + 1] = FlowCrop{cv::Rect(0, 0, w_, h_), ba};
            return;
        }
        // a → b is read at a's hole pixels (steps forward) and where b's steps back land.
        cv::Rect next_box = index(a).box, prev_box = index(b).box;
        add_landings(next_box, b, ba);
        add_landings(prev_box, a, ab);
        to_next_[i] = crop(ab, next_box);
        to_prev_[i + 1] = crop(ba, prev_box);
    }

    /// DIS (PRESET_MEDIUM) between every pair of neighbours of the shot, both ways. The pairs
    /// are independent, so they run on all cores (each worker its own DIS); the results do not
    /// depend on how they are spread (DIS's own stripes follow OpenCV's thread count, not ours).
    void compute_flows(const VideoInpaintProgressFn& progress, int& done, const int total) {
        const auto start = Clock::now();
        const int n = e_ - s_;
        to_prev_.assign(n, FlowCrop{});
        to_next_.assign(n, FlowCrop{});
        const int m = params_.flow_margin;
        const cv::Mat disc =
            cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(2 * m + 1, 2 * m + 1));
        // The camera's motion (TemporalFill::Auto): each pair's histogram of flow lengths in a
        // ring round the hole (pair_flow), merged below.
        ring_.assign(static_cast<std::size_t>(std::max(0, n - 1)),
                     std::vector<std::int64_t>(kRingBins, 0));
        const int workers = params_.compact ? static_cast<int>(worker_count()) : 1;
        // Batches of pairs, so the grey frames held are a batch's, and progress and Cancel
        // are seen between batches.
        const int batch = std::max(1, 2 * workers);
        std::vector<cv::Mat> grey;  // frames first..last of the batch
        for (int first = 0; first + 1 < n; first += batch) {
            const int last = std::min(n - 1, first + batch);  // pairs first..last − 1
            std::vector<cv::Mat> next(last - first + 1);
            if (!grey.empty()) next[0] = grey.back();
            const auto make_grey = [&](const int lo, const int hi, int) {
                for (int j = lo; j < hi; ++j)
                    if (next[j].empty()) next[j] = flow_grey(s_ + first + j);
            };
            if (workers > 1)
                parallel_chunks(last - first + 1, make_grey);
            else
                make_grey(0, last - first + 1, 0);
            grey = std::move(next);
            const auto pairs = [&](const int lo, const int hi, int) {
                // PRESET_MEDIUM, chosen by measurement (docs/notes/video-inpainting.md): FAST,
                // ULTRAFAST, a patch stride of 4 and no variational refinement each cost
                // 0.1-10 dB of lpPSNR on the bench's clips.
                const cv::Ptr<cv::DISOpticalFlow> dis =
                    cv::DISOpticalFlow::create(cv::DISOpticalFlow::PRESET_MEDIUM);
                for (int j = lo; j < hi; ++j)
                    pair_flow(*dis, grey[j], grey[j + 1], first + j, disc);
            };
            if (workers > 1)
                parallel_chunks(last - first, pairs);
            else
                pairs(0, last - first, 0);
            if (progress && !progress({"flow", done, total}))
                throw Error(ErrorCode::Cancelled, "cancelled");
        }
        // The median over all pairs. No ring (one frame, or a hole over nearly all the frame):
        // 0, the 3-D fill is tried.
        std::vector<std::int64_t> lengths(kRingBins, 0);
        std::int64_t samples = 0;
        for (const std::vector<std::int64_t>& pair : ring_)
            for (int b = 0; b < kRingBins; ++b) {
                lengths[static_cast<std::size_t>(b)] += pair[static_cast<std::size_t>(b)];
                samples += pair[static_cast<std::size_t>(b)];
            }
        motion_ = 0;
        for (std::int64_t below = 0, b = 0; samples > 0 && b < kRingBins; ++b) {
            below += lengths[static_cast<std::size_t>(b)];
            if (2 * below > samples) {  // the median's bin, at its centre
                motion_ = (static_cast<double>(b) + 0.5) / kRingBinsPerPixel;
                break;
            }
        }
        ring_.clear();
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

    /// One step of frame t's hole pixel (x, y) to frame `u` (t ± 1) along the flow, with the
    /// forward-backward check; nullopt when the step leaves the frame or fails the check.
    [[nodiscard]] std::optional<cv::Point2f> step(const int t, const int u, const int x,
                                                  const int y) const {
        const FlowCrop& there = u < t ? to_prev_[t - s_] : to_next_[t - s_];
        const FlowCrop& back = u < t ? to_next_[u - s_] : to_prev_[u - s_];
        const cv::Vec2f f = there.at(x, y);
        const float qx = x + f[0], qy = y + f[1];
        if (qx < 0 || qy < 0 || qx > w_ - 1 || qy > h_ - 1) return std::nullopt;
        const cv::Vec2f b = sample_flow(back, qx, qy, w_, h_);
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
        const Ref& r = (*refs_u)[static_cast<std::size_t>(index(u).find(rx, ry))];
        if (!r.valid()) return {};
        Ref out{r.src, r.x + (q.x - rx), r.y + (q.y - ry), r.hops + (count_hops ? 1 : 0)};
        if (!supported(out.src, out.x, out.y)) return {};
        return out;
    }

    /// References of frame t's hole pixels (one per pixel of index(t)) from frames before it
    /// (u = t − 1, forward) or after it (u = t + 1): the pixel's place in u if visible there,
    /// else u's own reference (chained).
    [[nodiscard]] std::vector<Ref> propagate(const int t, const int u,
                                             const std::vector<Ref>* refs_u) const {
        const std::vector<cv::Point>& pixels = index(t).pixels;
        std::vector<Ref> refs(pixels.size());
        if (u < s_ || u >= e_) return refs;
        for_pixels(pixels.size(), [&](const std::size_t i) {
            if (const auto q = step(t, u, pixels[i].x, pixels[i].y))
                refs[i] = chain(u, *q, refs_u, true);
        });
        return refs;
    }

    /// body(i) for every hole pixel i of a frame: each pixel's result depends only on the
    /// previous frame's (or the neighbour's) finished references, never on another pixel of this
    /// frame, so the pixels are spread over all cores in the compact form.
    template <class Body>
    void for_pixels(const std::size_t n, Body&& body) const {
        if (!params_.compact || n < 4096) {
            for (std::size_t i = 0; i < n; ++i) body(i);
            return;
        }
        parallel_chunks(static_cast<int>(n), [&](const int lo, const int hi, int) {
            for (int i = lo; i < hi; ++i) body(static_cast<std::size_t>(i));
        });
    }

    /// Per pixel the reference with fewer hops (the nearest frame that shows it); forward on ties.
    [[nodiscard]] static std::vector<Ref> nearest(const std::vector<Ref>& fwd,
                                                  const std::vector<Ref>& bwd) {
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
        const std::vector<cv::Point>& pixels = index(t).pixels;
        enum : std::uint8_t { kShown, kCarried, kRest };
        std::vector<std::uint8_t> kind(pixels.size(), kRest);
        for_pixels(pixels.size(), [&](const std::size_t i) {
            Ref& r = refs[i];
            if (r.valid()) {
                kind[i] = kShown;
                return;
            }
            if (previous)
                if (const auto q = step(t, t - 1, pixels[i].x, pixels[i].y)) {
                    r = chain(t - 1, *q, previous, false);
                    if (r.valid()) kind[i] = kCarried;
                }
        });
        std::vector<std::size_t> rest;
        for (std::size_t i = 0; i < pixels.size(); ++i) {
            ++stats_.hole_pixels;
            if (kind[i] == kShown)
                ++stats_.from_other_frames;
            else if (kind[i] == kCarried)
                ++stats_.carried;
            else
                rest.push_back(i);
        }
        if (rest.empty()) return;
        const auto start = Clock::now();
        Mask rest_mask(w_, h_, std::uint8_t{0});
        for (const std::size_t i : rest) rest_mask.at(pixels[i].x, pixels[i].y) = 255;
        const ImageRgba8 composed = compose(t, refs);
        ops::InpaintResult filled =
            ops::inpaint(composed.view(), rest_mask, params_.fill, params_.implementation);
        keys_.push_back(std::move(filled.image));
        const int id = static_cast<int>(frames_.size() + keys_.size() - 1);
        for (const std::size_t i : rest)
            refs[i] = Ref{id, static_cast<float>(pixels[i].x), static_cast<float>(pixels[i].y), 0};
        stats_.synthesized += static_cast<std::int64_t>(rest.size());
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
        const std::vector<cv::Point>& pixels = index(t).pixels;
        for_pixels(pixels.size(), [&](const std::size_t i) {
            const Ref& r = refs[i];
            if (!r.valid()) return;
            const int x = pixels[i].x, y = pixels[i].y;
            Rgba8 p = sample(r);
            p.a = frames_[t].at(x, y).a;
            out.at(x, y) = p;
        });
        return out;
    }

    const std::vector<ImageRgba8>& frames_;
    const std::vector<const Mask*>& holes_;
    const VideoInpaintParams& params_;
    VideoInpaintStats& stats_;
    int w_, h_;
    int s_ = 0, e_ = 0;
    std::vector<std::shared_ptr<const HoleIndex>> index_;  ///< per frame (shared for a still mask)
    std::vector<FlowCrop> to_prev_, to_next_;  ///< per frame of the shot: flow to t − 1 / t + 1
    std::vector<ImageRgba8> keys_;             ///< key fills, source ids frames.size() + k
    /// Per frame pair of the shot: histogram of the flow lengths in the ring round the hole.
    std::vector<std::vector<std::int64_t>> ring_;
    double motion_ = 0;  ///< the shot's camera motion, pixels a frame (see kAutoFillMotion)
};

}  // namespace

void inpaint_frames(const std::vector<ImageRgba8>& frames, const std::vector<Mask>& masks,
                    const VideoInpaintParams& params, const VideoFrameSink& sink,
                    VideoInpaintStats* stats, const VideoInpaintProgressFn& progress) {
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
    const int total = static_cast<int>(frames.size());
    int done = 0;
    if (!params.propagate) {
        for (std::size_t i = 0; i < frames.size(); ++i) {
            const auto start = Clock::now();
            ImageRgba8 filled =
                ops::inpaint(frames[i].view(), *holes[i], params.fill, params.implementation).image;
            st.fill_seconds += seconds_since(start);
            sink(static_cast<int>(i), std::move(filled));
            const std::int64_t n = count_selected(holes[i]->view());
            st.hole_pixels += n;
            st.synthesized += n;
            st.key_fills += n > 0 ? 1 : 0;
            if (progress && !progress({"fill", ++done, total}))
                throw Error(ErrorCode::Cancelled, "cancelled");
        }
        return;
    }
    ShotFiller filler(frames, holes, params, st);
    int s = 0;
    for (int t = 1; t <= total; ++t) {
        const bool cut =
            t < total && ops::mean_luma_difference(frames[t - 1].view(), frames[t].view()) >
                             params.cut_threshold;
        if (t == total || cut) {
            filler.run(s, t, sink, progress, done, total);
            if (cut) ++st.cuts;
            s = t;
        }
    }
}

std::vector<ImageRgba8> inpaint_frames(const std::vector<ImageRgba8>& frames,
                                       const std::vector<Mask>& masks,
                                       const VideoInpaintParams& params, VideoInpaintStats* stats,
                                       const VideoInpaintProgressFn& progress) {
    std::vector<ImageRgba8> out(frames.size());
    inpaint_frames(
        frames, masks, params,
        [&](const int t, ImageRgba8&& frame) {
            out[static_cast<std::size_t>(t)] = std::move(frame);
        },
        stats, progress);
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

/// Encodes on a thread of its own while the fill goes on: frames are queued in order (at most
/// kDepth; the fill waits beyond that, so memory stays bounded) and written one by one. The
/// io::VideoWriter still owns the file: destroyed without finish(), this drops what is queued
/// and the writer removes its temporary.
class BackgroundWriter {
  public:
    explicit BackgroundWriter(io::VideoWriter& writer) : writer_(writer) {}
    BackgroundWriter(const BackgroundWriter&) = delete;
    BackgroundWriter& operator=(const BackgroundWriter&) = delete;
    ~BackgroundWriter() {
        {
            const std::lock_guard lock(mutex_);
            queue_.clear();
        }
        stop();
    }

    /// Queues a frame; rethrows the writer's error if an earlier frame failed.
    void push(ImageRgba8&& frame) {
        std::unique_lock lock(mutex_);
        space_.wait(lock, [&] { return queue_.size() < kDepth || failure_; });
        if (failure_) std::rethrow_exception(failure_);
        queue_.push_back(std::move(frame));
        ready_.notify_one();
    }

    /// Waits until every queued frame is written; rethrows the writer's error.
    void finish() {
        stop();
        if (failure_) std::rethrow_exception(failure_);
    }

    /// Seconds the thread spent writing (beside the fill).
    [[nodiscard]] double busy_seconds() const { return busy_; }

  private:
    static constexpr std::size_t kDepth = 8;

    void stop() {
        {
            const std::lock_guard lock(mutex_);
            closed_ = true;
        }
        ready_.notify_one();
        if (thread_.joinable()) thread_.join();
    }

    void loop() {
        for (;;) {
            ImageRgba8 frame;
            {
                std::unique_lock lock(mutex_);
                ready_.wait(lock, [&] { return !queue_.empty() || closed_; });
                if (queue_.empty()) return;
                frame = std::move(queue_.front());
                queue_.pop_front();
            }
            space_.notify_one();
            try {
                const auto start = Clock::now();
                writer_.write(frame);
                busy_ += seconds_since(start);
            } catch (...) {
                const std::lock_guard lock(mutex_);
                failure_ = std::current_exception();
                queue_.clear();
                space_.notify_all();
                return;
            }
        }
    }

    io::VideoWriter& writer_;
    std::mutex mutex_;
    std::condition_variable ready_, space_;
    std::deque<ImageRgba8> queue_;
    bool closed_ = false;
    std::exception_ptr failure_;
    double busy_ = 0;
    std::thread thread_{[this] { loop(); }};  ///< last: starts once the members above exist
};

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
    // Each frame is encoded as soon as it is final, beside the fill of the next ones.
    {
        BackgroundWriter background(writer);
        inpaint_frames(
            frames, masks, o.params,
            [&](int, ImageRgba8&& frame) {
                background.push(std::move(frame));
                ++r.frames;
            },
            &r.stats, progress);
        const auto tail_start = Clock::now();
        background.finish();
        writer.finish();
        r.encode_tail_seconds = seconds_since(tail_start);
        r.encode_seconds = background.busy_seconds();
    }
    r.output_codec = writer.codec();
    r.audio = writer.audio();
    r.audio_left_out = writer.audio_left_out();
    r.notices.insert(r.notices.end(), writer.notices().begin(), writer.notices().end());
    r.seconds = seconds_since(start);
    return r;
}

}  // namespace lacuna::video
