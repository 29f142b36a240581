// Masks carried from key frames along the optical flow and refined by GrabCut (see
// track_masks.hpp for the method).
#include <lacuna/video/track_masks.hpp>

#include <lacuna/core/error.hpp>
#include <lacuna/ops/params.hpp>
#include <lacuna/ops/video_retarget.hpp>

#include "flow_fill.hpp"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/video/tracking.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

namespace lacuna::video {

struct MaskTracker::Data {
    int width = 0, height = 0;
    std::vector<cv::Mat> bgr;      ///< CV_8UC3 a frame, for GrabCut
    std::vector<cv::Mat> to_prev;  ///< CV_32FC2: flow t → t − 1 (empty at 0)
    std::vector<cv::Mat> to_next;  ///< CV_32FC2: flow t → t + 1 (empty at the last frame)
    /// ops::mean_luma_difference between frame t − 1 and t (0 at 0): a cut where it is high.
    std::vector<double> luma_change;
    double flow_seconds = 0;
};

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(const Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

[[noreturn]] void invalid(const std::string& message) {
    throw Error(ErrorCode::InvalidArgument, message);
}

cv::Mat bgr_of(const ImageRgba8& frame) {
    const cv::Mat rgba(frame.height(), frame.width(), CV_8UC4, const_cast<Rgba8*>(frame.row(0)),
                       frame.view().pitch);
    cv::Mat bgr;
    cv::cvtColor(rgba, bgr, cv::COLOR_RGBA2BGR);
    return bgr;
}

/// 0/255 bytes of the mask (any non-zero selects).
cv::Mat mat_of(const Mask& mask) {
    const cv::Mat view(mask.height(), mask.width(), CV_8UC1, const_cast<std::uint8_t*>(mask.row(0)),
                       mask.view().pitch);
    cv::Mat binary;
    cv::compare(view, 0, binary, cv::CMP_NE);
    return binary;
}

Mask mask_of(const cv::Mat& binary) {
    Mask m(binary.cols, binary.rows, std::uint8_t{0});
    for (int y = 0; y < binary.rows; ++y)
        std::copy_n(binary.ptr<std::uint8_t>(y), binary.cols, m.row(y));
    return m;
}

cv::Mat disc(const int radius) {
    return cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(2 * radius + 1, 2 * radius + 1));
}

cv::Mat grown(const cv::Mat& binary, const int radius) {
    if (radius <= 0) return binary.clone();
    cv::Mat out;
    cv::dilate(binary, out, disc(radius));
    return out;
}

cv::Mat shrunk(const cv::Mat& binary, const int radius) {
    if (radius <= 0) return binary.clone();
    cv::Mat out;
    // Beyond the frame counts as object, so an object touching the edge keeps its core there.
    cv::erode(binary, out, disc(radius), cv::Point(-1, -1), 1, cv::BORDER_CONSTANT,
              cv::Scalar(255));
    return out;
}

double iou(const cv::Mat& a, const cv::Mat& b) {
    cv::Mat both, either;
    cv::bitwise_and(a, b, both);
    cv::bitwise_or(a, b, either);
    const int u = cv::countNonZero(either);
    return u == 0 ? 1.0 : static_cast<double>(cv::countNonZero(both)) / u;
}

cv::Vec2f median_flow(const cv::Mat& flow, const cv::Mat& where) {
    std::vector<float> xs, ys;
    for (int y = 0; y < flow.rows; ++y) {
        const auto* f = flow.ptr<cv::Vec2f>(y);
        const auto* w = where.ptr<std::uint8_t>(y);
        for (int x = 0; x < flow.cols; ++x)
            if (w[x] != 0) {
                xs.push_back(f[x][0]);
                ys.push_back(f[x][1]);
            }
    }
    if (xs.empty()) return {0, 0};
    const auto mid = [](std::vector<float>& v) {
        std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
        return v[v.size() / 2];
    };
    return {mid(xs), mid(ys)};
}

/// The mask of a neighbouring frame carried to this one along the neighbour's flow to this frame
/// (`flow`). The mask moves with the object's interior: the flow is kept inside the mask shrunk
/// by kInterior pixels (where DIS's 8-pixel patches see only the object) and completed from there
/// out to the outline and beyond (pull-push). DIS's own flow at the outline mixes the object's
/// motion with the background's, and a mask carried by it falls behind a moving object (a
/// 30-pixel square moving 2 px a frame: IoU 0.42 after 19 frames). Every mask pixel is splatted
/// bilinearly at its new place; pixels that receive at least ½ are kept.
constexpr int kInterior = 6;

cv::Mat carry(const cv::Mat& mask, const cv::Mat& flow) {
    cv::Mat interior = shrunk(mask, kInterior);
    if (cv::countNonZero(interior) == 0) interior = shrunk(mask, kInterior / 2);
    if (cv::countNonZero(interior) == 0) interior = mask;  // a thin object: its own flow
    cv::Mat known;
    interior.convertTo(known, CV_32F, 1.0 / 255.0);
    const cv::Mat moved = complete_flow(flow, known);
    cv::Mat weight(mask.size(), CV_32F, cv::Scalar(0));
    const auto add = [&](const int x, const int y, const float w) {
        if (x >= 0 && y >= 0 && x < weight.cols && y < weight.rows) weight.at<float>(y, x) += w;
    };
    for (int y = 0; y < mask.rows; ++y) {
        const auto* m = mask.ptr<std::uint8_t>(y);
        const auto* f = moved.ptr<cv::Vec2f>(y);
        for (int x = 0; x < mask.cols; ++x) {
            if (m[x] == 0) continue;
            const float qx = static_cast<float>(x) + f[x][0], qy = static_cast<float>(y) + f[x][1];
            const float fx0 = std::floor(qx), fy0 = std::floor(qy);
            const int x0 = static_cast<int>(fx0), y0 = static_cast<int>(fy0);
            const float ax = qx - fx0, ay = qy - fy0;
            add(x0, y0, (1 - ax) * (1 - ay));
            add(x0 + 1, y0, ax * (1 - ay));
            add(x0, y0 + 1, (1 - ax) * ay);
            add(x0 + 1, y0 + 1, ax * ay);
        }
    }
    cv::Mat binary;
    cv::compare(weight, 0.5, binary, cv::CMP_GE);
    return binary;
}

/// GrabCut seeds its colour models' k-means from OpenCV's per-thread generator: a fixed seed
/// for every call (the same mask for the same input, whatever ran before) and the thread's
/// generator put back after (as the Remove Object panel's box selection does).
class FixedRng {
  public:
    FixedRng() : saved_(cv::theRNG()) { cv::theRNG() = cv::RNG(0x6c616375); }
    ~FixedRng() { cv::theRNG() = saved_; }
    FixedRng(const FixedRng&) = delete;
    FixedRng& operator=(const FixedRng&) = delete;

  private:
    cv::RNG saved_;
};

/// A frame's flow to the frame its mask was carried from, and that frame's flow back.
struct Motion {
    const cv::Mat* flow = nullptr;
    const cv::Mat* back = nullptr;
};

/// Below this difference (pixels a frame) between the object's motion and the background's,
/// motion says nothing about which pixel is which.
constexpr float kMotionContrast = 1.5f;

/// Pixels with texture in both directions (the mean squared Sobel derivative in x and in y over
/// 5 × 5 pixels above 20²): only there does DIS's flow say where a pixel went. In a flat region
/// (a logo's plain card) the flow is smoothed in from around it and passes the forward-backward
/// check all the same: taken as evidence, it made a still logo over a pan "move with the
/// background" and cut it out of its own mask.
cv::Mat textured_pixels(const cv::Mat& bgr) {
    cv::Mat grey, gx, gy;
    cv::cvtColor(bgr, grey, cv::COLOR_BGR2GRAY);
    cv::Sobel(grey, gx, CV_32F, 1, 0);
    cv::Sobel(grey, gy, CV_32F, 0, 1);
    cv::Mat xx = gx.mul(gx), yy = gy.mul(gy);
    cv::blur(xx, xx, cv::Size(5, 5));
    cv::blur(yy, yy, cv::Size(5, 5));
    constexpr float kMin = 20.0f * 20.0f;
    return (xx > kMin) & (yy > kMin);
}

/// The pixels of the work area that move with the background rather than with the object: GrabCut
/// decides by colour alone, and where the object shares colours with what it uncovers (a sticker's
/// white text over a white wall) the mask would keep the uncovered background and drag it along
/// as a trail. The object's motion is the median flow of its core, the background's that of the
/// work area beyond the band; where they differ by at least kMotionContrast, a pixel whose flow
/// is textured, passes the forward-backward check (1 px) and is nearer the background's motion is
/// background.
/// Pixels within 3 px inside the carried outline are left to GrabCut (DIS's patches there mix
/// both motions). Empty where motion tells nothing.
cv::Mat moves_with_background(const Motion& motion, const cv::Mat& bgr, const cv::Mat& carried,
                              const cv::Mat& band, const cv::Mat& core, const cv::Rect& work) {
    cv::Mat marked(work.size(), CV_8UC1, cv::Scalar(0));
    if (motion.flow == nullptr) return marked;
    const cv::Mat textured = textured_pixels(bgr(work));
    const cv::Mat flow = (*motion.flow)(work);
    const cv::Mat object_part = cv::countNonZero(core(work)) > 0 ? core(work) : carried(work);
    cv::Mat outside;
    cv::compare(band(work), 0, outside, cv::CMP_EQ);
    if (cv::countNonZero(object_part) == 0 || cv::countNonZero(outside) == 0) return marked;
    const cv::Vec2f om = median_flow(flow, object_part), bm = median_flow(flow, outside);
    if (cv::norm(om - bm) < kMotionContrast) return marked;
    cv::Mat inner = shrunk(carried, 3)(work), ring;
    cv::bitwise_and(carried(work), ~inner, ring);
    const cv::Mat& back = *motion.back;
    for (int y = 0; y < work.height; ++y) {
        const auto* f = flow.ptr<cv::Vec2f>(y);
        const auto* r = ring.ptr<std::uint8_t>(y);
        auto* out = marked.ptr<std::uint8_t>(y);
        for (int x = 0; x < work.width; ++x) {
            if (r[x] != 0 || textured.at<std::uint8_t>(y, x) == 0) continue;
            const int qx = static_cast<int>(std::lround(work.x + x + f[x][0]));
            const int qy = static_cast<int>(std::lround(work.y + y + f[x][1]));
            if (qx < 0 || qy < 0 || qx >= back.cols || qy >= back.rows) continue;
            if (cv::norm(f[x] + back.at<cv::Vec2f>(qy, qx)) > 1.0) continue;
            if (cv::norm(f[x] - bm) < cv::norm(f[x] - om)) out[x] = 255;
        }
    }
    return marked;
}

/// GrabCut from a carried mask: surely object in its core, probably object in the rest of it,
/// probably background in the band around it, surely background beyond and wherever the pixel
/// moves with the background (moves_with_background; not on key frames). Works on the band's
/// box and a margin around it (for the background model). Keeps the parts connected to the
/// core (or to the carried mask where the core is empty). Returns the carried mask where
/// GrabCut has nothing to decide (no object, or no background left in the frame).
cv::Mat refine(const cv::Mat& bgr, const cv::Mat& carried, const MaskTrackParams& p,
               const Motion& motion = {}) {
    if (cv::countNonZero(carried) == 0) return carried;
    const cv::Mat band = grown(carried, p.band);
    const cv::Rect box = cv::boundingRect(band);
    const int margin = std::max({16, box.width / 2, box.height / 2});
    const cv::Rect work =
        cv::Rect(box.x - margin, box.y - margin, box.width + 2 * margin, box.height + 2 * margin) &
        cv::Rect(0, 0, bgr.cols, bgr.rows);
    const cv::Mat core = shrunk(carried, p.core);
    cv::Mat labels(work.size(), CV_8UC1, cv::Scalar(cv::GC_BGD));
    labels.setTo(cv::GC_PR_BGD, band(work));
    labels.setTo(cv::GC_PR_FGD, carried(work));
    labels.setTo(cv::GC_FGD, core(work));
    labels.setTo(cv::GC_BGD, moves_with_background(motion, bgr, carried, band, core, work));
    if (cv::countNonZero(band(work)) == work.area()) return carried;  // no surely background
    cv::Mat background_model, foreground_model;
    try {
        const FixedRng fixed;
        cv::grabCut(bgr(work), labels, cv::Rect(), background_model, foreground_model,
                    p.grabcut_iterations, cv::GC_INIT_WITH_MASK);
    } catch (const cv::Exception&) {
        return carried;  // a colour model could not be fitted (too few distinct pixels)
    }
    cv::Mat object = (labels == cv::GC_FGD) | (labels == cv::GC_PR_FGD);
    // Only what is connected to the object's sure part: a patch of the object's colours in the
    // band is something else.
    const cv::Mat anchor = cv::countNonZero(core) > 0 ? core(work) : carried(work);
    cv::Mat components;
    const int count = cv::connectedComponents(object, components, 8, CV_32S);
    std::vector<std::uint8_t> keep(static_cast<std::size_t>(count), 0);
    for (int y = 0; y < work.height; ++y) {
        const auto* a = anchor.ptr<std::uint8_t>(y);
        const auto* id = components.ptr<std::int32_t>(y);
        for (int x = 0; x < work.width; ++x)
            if (a[x] != 0) keep[static_cast<std::size_t>(id[x])] = 1;
    }
    keep[0] = 0;  // the background component
    cv::Mat out(bgr.size(), CV_8UC1, cv::Scalar(0));
    for (int y = 0; y < work.height; ++y) {
        const auto* id = components.ptr<std::int32_t>(y);
        auto* o = out.ptr<std::uint8_t>(work.y + y) + work.x;
        for (int x = 0; x < work.width; ++x)
            o[x] = keep[static_cast<std::size_t>(id[x])] != 0 ? 255 : 0;
    }
    if (cv::countNonZero(out) == 0) return carried;
    return out;
}

void check_params(const MaskTrackParams& p) {
    for (const auto& f : ops::mask_track_param_fields()) ops::check_value(f.spec, f.get(p));
    if (!(p.cut_threshold >= 0)) invalid("the cut threshold must be 0 or more");
}

}  // namespace

MaskTracker::MaskTracker(const std::vector<ImageRgba8>& frames,
                         const MaskTrackProgressFn& progress) {
    if (frames.empty()) invalid("no frames to track the mask through");
    const int w = frames[0].width(), h = frames[0].height();
    for (std::size_t i = 0; i < frames.size(); ++i)
        if (frames[i].width() != w || frames[i].height() != h)
            invalid("frame " + std::to_string(i) + " is " + std::to_string(frames[i].width()) +
                    "×" + std::to_string(frames[i].height()) + ", the first frame " +
                    std::to_string(w) + "×" + std::to_string(h));
    const auto start = Clock::now();
    auto d = std::make_shared<Data>();
    d->width = w;
    d->height = h;
    const int n = static_cast<int>(frames.size());
    std::vector<cv::Mat> grey(frames.size());
    for (int t = 0; t < n; ++t) {
        d->bgr.push_back(bgr_of(frames[t]));
        cv::cvtColor(d->bgr.back(), grey[t], cv::COLOR_BGR2GRAY);
    }
    d->luma_change.assign(frames.size(), 0.0);
    for (int t = 1; t < n; ++t)
        d->luma_change[t] = ops::mean_luma_difference(frames[t - 1].view(), frames[t].view());
    d->to_prev.assign(frames.size(), cv::Mat());
    d->to_next.assign(frames.size(), cv::Mat());
    const cv::Ptr<cv::DISOpticalFlow> dis =
        cv::DISOpticalFlow::create(cv::DISOpticalFlow::PRESET_MEDIUM);
    for (int t = 0; t + 1 < n; ++t) {
        dis->calc(grey[t], grey[t + 1], d->to_next[t]);
        dis->calc(grey[t + 1], grey[t], d->to_prev[t + 1]);
        if (progress && !progress({"flow", t + 1, n - 1}))
            throw Error(ErrorCode::Cancelled, "cancelled");
    }
    d->flow_seconds = seconds_since(start);
    data_ = std::move(d);
}

std::vector<int> MaskTracker::cuts(const double threshold) const {
    std::vector<int> out;
    for (std::size_t t = 1; t < data_->luma_change.size(); ++t)
        if (data_->luma_change[t] > threshold) out.push_back(static_cast<int>(t));
    return out;
}

int MaskTracker::frames() const {
    return static_cast<int>(data_->bgr.size());
}
int MaskTracker::width() const {
    return data_->width;
}
int MaskTracker::height() const {
    return data_->height;
}
double MaskTracker::flow_seconds() const {
    return data_->flow_seconds;
}

std::vector<Mask> MaskTracker::track(const std::vector<KeyMask>& keys,
                                     const MaskTrackParams& params, MaskTrackStats* stats,
                                     const MaskTrackProgressFn& progress) const {
    const Data& d = *data_;
    const int n = frames();
    check_params(params);
    if (keys.empty()) invalid("no key-frame mask: paint the object on at least one frame");
    std::map<int, const Mask*> by_frame;
    for (const KeyMask& k : keys) {
        const std::string which = "the mask of key frame " + std::to_string(k.frame);
        if (k.frame < 0 || k.frame >= n)
            invalid("key frame " + std::to_string(k.frame) + " is outside the clip's frames 0.." +
                    std::to_string(n - 1));
        if (k.mask.width() != d.width || k.mask.height() != d.height)
            invalid(which + " is " + std::to_string(k.mask.width()) + "×" +
                    std::to_string(k.mask.height()) + ", the clip " + std::to_string(d.width) +
                    "×" + std::to_string(d.height));
        if (count_selected(k.mask.view()) == 0) invalid(which + " selects no pixel");
        if (!by_frame.emplace(k.frame, &k.mask).second)
            invalid("key frame " + std::to_string(k.frame) + " is given twice");
    }

    MaskTrackStats local;
    MaskTrackStats& st = stats ? *stats : local;
    st = {};
    st.key_frames = static_cast<int>(by_frame.size());
    st.flow_seconds = d.flow_seconds;
    st.cuts = cuts(params.cut_threshold);
    // shot[t]: which shot frame t is in; a chain never leaves its key's shot.
    std::vector<int> shot(static_cast<std::size_t>(n), 0), shot_start, shot_end;
    shot_start.push_back(0);
    for (int t = 1; t < n; ++t) {
        const bool cut = std::binary_search(st.cuts.begin(), st.cuts.end(), t);
        if (cut) {
            shot_end.push_back(t);
            shot_start.push_back(t);
        }
        shot[t] = static_cast<int>(shot_start.size()) - 1;
    }
    shot_end.push_back(n);
    std::vector<cv::Mat> out(static_cast<std::size_t>(n));
    int done = 0;
    const auto tick = [&] {
        ++done;
        if (progress && !progress({"track", done, n}))
            throw Error(ErrorCode::Cancelled, "cancelled");
    };
    // A key's chain runs from its frame towards `stop` (exclusive) in steps of `dir`. On its first
    // frame the painted mask is carried and refined, and the margin by which the painted mask
    // (carried) reaches beyond GrabCut's object is measured there, where the carried painted mask
    // is still accurate and GrabCut works as on the chain's later frames (with motion); from then
    // on GrabCut's object is carried, and every frame's mask is it grown by the margin.
    const auto chain = [&](const int key, const int stop, const int dir, const cv::Mat& painted) {
        if (key + dir == stop) return;
        cv::Mat object = painted;
        int margin = 0;
        bool refine_it = params.grabcut;
        for (int t = key + dir; t != stop; t += dir) {
            auto start = Clock::now();
            // The source frame's flow to frame t.
            const cv::Mat& flow = dir > 0 ? d.to_next[t - 1] : d.to_prev[t + 1];
            const cv::Mat carried = carry(object, flow);
            st.carry_seconds += seconds_since(start);
            object = carried;
            if (refine_it) {
                start = Clock::now();
                const Motion motion = dir > 0 ? Motion{&d.to_prev[t], &d.to_next[t - 1]}
                                              : Motion{&d.to_next[t], &d.to_prev[t + 1]};
                const cv::Mat found = refine(d.bgr[t], carried, params, motion);
                st.refine_seconds += seconds_since(start);
                ++st.refined_frames;
                if (t == key + dir) {
                    double best = -1;
                    for (int m = 0; m <= params.band; ++m) {
                        const double q = iou(grown(found, m), carried);
                        if (q > best) {
                            best = q;
                            margin = m;
                        }
                    }
                    st.margins.push_back(margin);
                    if (best < 0.5) {  // GrabCut misses the painted object: flow alone
                        refine_it = false;
                        margin = 0;
                        st.flow_only_keys.push_back(key);
                    }
                }
                if (refine_it) object = found;
            }
            cv::Mat mask = grown(object, margin);
            if (out[t].empty()) {
                out[t] = mask;
            } else {
                cv::bitwise_or(out[t], mask, out[t]);  // the middle frame: both keys' masks
                --done;                                // counted once
            }
            tick();
        }
    };

    std::vector<int> frames_of_keys;
    for (const auto& [f, m] : by_frame) frames_of_keys.push_back(f);
    for (std::size_t i = 0; i < frames_of_keys.size(); ++i) {
        const int k = frames_of_keys[i];
        const cv::Mat painted = mat_of(*by_frame[k]);
        out[k] = painted;
        tick();
        // Backward to the middle between the previous key and this one (the shot's first frame
        // if none in the shot), forward to the middle before the next key (the shot's end if
        // none in it). The middle frame of an even gap is reached by both chains.
        const int s = shot[k];
        const int previous = i > 0 && shot[frames_of_keys[i - 1]] == s ? frames_of_keys[i - 1] : -1;
        const int next = i + 1 < frames_of_keys.size() && shot[frames_of_keys[i + 1]] == s
                             ? frames_of_keys[i + 1]
                             : -1;
        const int back_stop = previous < 0 ? shot_start[s] - 1 : (previous + k + 1) / 2 - 1;
        const int fwd_stop = next < 0 ? shot_end[s] : (k + next) / 2 + 1;
        chain(k, back_stop, -1, painted);
        chain(k, fwd_stop, +1, painted);
    }
    // Shots without a key: no mask (carried across a cut, a mask would land on another scene).
    for (cv::Mat& m : out)
        if (m.empty()) {
            m = cv::Mat(d.height, d.width, CV_8UC1, cv::Scalar(0));
            ++st.empty_frames;
            tick();
        }
    std::vector<Mask> masks;
    masks.reserve(out.size());
    for (const cv::Mat& m : out) masks.push_back(mask_of(m));
    return masks;
}

std::vector<Mask> track_masks(const std::vector<ImageRgba8>& frames,
                              const std::vector<KeyMask>& keys, const MaskTrackParams& params,
                              MaskTrackStats* stats, const MaskTrackProgressFn& progress) {
    return MaskTracker(frames, progress).track(keys, params, stats, progress);
}

double mask_iou(const MaskView a, const MaskView b) {
    if (a.width != b.width || a.height != b.height)
        invalid("the masks compared are of different sizes");
    std::int64_t both = 0, either = 0;
    for (int y = 0; y < a.height; ++y) {
        const std::uint8_t* ra = a.row(y);
        const std::uint8_t* rb = b.row(y);
        for (int x = 0; x < a.width; ++x) {
            both += (ra[x] != 0 && rb[x] != 0) ? 1 : 0;
            either += (ra[x] != 0 || rb[x] != 0) ? 1 : 0;
        }
    }
    return either == 0 ? 1.0 : static_cast<double>(both) / static_cast<double>(either);
}

}  // namespace lacuna::video
