// Importance terms filtered along the motion within each shot (importance_smoothing.hpp).
#include <lacuna/core/error.hpp>
#include <lacuna/ops/video_retarget.hpp>
#include <lacuna/video/importance_smoothing.hpp>

#include <opencv2/imgproc.hpp>
#include <opencv2/video/tracking.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>

namespace lacuna::video {
namespace {

using Clock = std::chrono::steady_clock;

/// The optical flow runs on a copy at most this long (see where_it_was()).
constexpr int kFlowMaxSide = 320;

cv::Mat wrap(const ImageView<const Rgba8> image) {
    return {image.height, image.width, CV_8UC4, const_cast<Rgba8*>(image.data), image.pitch};
}
cv::Mat wrap(const Mask& mask) {
    return {mask.height(), mask.width(), CV_8U, const_cast<std::uint8_t*>(mask.view().data),
            mask.pitch()};
}

/// The filter's size: the detectors' copy (importance_map's `downscaled`), at most `max_side`.
cv::Size small_size(const int width, const int height, const int max_side) {
    const int side = std::max(width, height);
    if (side <= max_side) return {width, height};
    const double scale = static_cast<double>(side) / max_side;
    return {std::max(1, static_cast<int>(std::lround(width / scale))),
            std::max(1, static_cast<int>(std::lround(height / scale)))};
}

/// Where each pixel of `grey` was in `previous` (same size), as a map for cv::remap: DIS flow
/// from this frame to the previous one, so pixel x shows what the previous frame showed at
/// x + f(x). The flow runs on a copy at most kFlowMaxSide long: the maps are smooth (saliency
/// is blurred by a tenth of the image, lines drawn 3 pixels wide on the detectors' copy), so
/// the motion of a copy half as long is enough, at a quarter of the cost.
cv::Mat where_it_was(cv::DISOpticalFlow& dis, const cv::Mat& grey, const cv::Mat& previous) {
    const cv::Size fsize = small_size(grey.cols, grey.rows, kFlowMaxSide);
    cv::Mat flow;
    if (fsize == grey.size()) {
        dis.calc(grey, previous, flow);
    } else {
        cv::Mat a, b, coarse;
        cv::resize(grey, a, fsize, 0, 0, cv::INTER_AREA);
        cv::resize(previous, b, fsize, 0, 0, cv::INTER_AREA);
        dis.calc(a, b, coarse);
        cv::resize(coarse, flow, grey.size(), 0, 0, cv::INTER_LINEAR);
    }
    // Vectors of the coarse copy's pixels, scaled to the map's.
    const float sx = static_cast<float>(grey.cols) / static_cast<float>(fsize.width);
    const float sy = static_cast<float>(grey.rows) / static_cast<float>(fsize.height);
    cv::Mat map(flow.size(), CV_32FC2);
    for (int y = 0; y < flow.rows; ++y) {
        const cv::Vec2f* f = flow.ptr<cv::Vec2f>(y);
        cv::Vec2f* m = map.ptr<cv::Vec2f>(y);
        for (int x = 0; x < flow.cols; ++x)
            m[x] = {static_cast<float>(x) + sx * f[x][0], static_cast<float>(y) + sy * f[x][1]};
    }
    return map;
}

/// Levels added and capped at 63, as importance_map combines its terms.
Mask add_levels(const Mask& a, const Mask& b) {
    Mask out(a.width(), a.height(), 0);
    for (int y = 0; y < a.height(); ++y) {
        const std::uint8_t* ra = a.row(y);
        const std::uint8_t* rb = b.row(y);
        std::uint8_t* ro = out.row(y);
        for (int x = 0; x < a.width(); ++x)
            ro[x] = static_cast<std::uint8_t>(std::min(ops::kImportanceMaxLevel, ra[x] + rb[x]));
    }
    return out;
}

}  // namespace

void check_importance_smoothing(const ImportanceSmoothingParams& p) {
    if (p.window < 1 || p.window > 120)
        throw Error(ErrorCode::InvalidArgument,
                    "the importance smoothing window must be from 1 to 120 frames, not " +
                        std::to_string(p.window));
    if (!(p.cut_threshold >= 0))
        throw Error(ErrorCode::InvalidArgument, "the cut threshold must be 0 or more");
}

struct ImportanceSmoother::State {
    std::optional<ImageRgba8> previous;  ///< the last frame (cuts, by the carver's rule)
    cv::Mat previous_grey;               ///< its small grey copy (the flow)
    cv::Mat smoothed;                    ///< S_{t−1}, small, CV_32F levels
    cv::Ptr<cv::DISOpticalFlow> dis;
    int cuts = 0;
    double flow_seconds = 0;
};

ImportanceSmoother::ImportanceSmoother(const ops::ImportanceParams& importance,
                                       const ImportanceSmoothingParams& params)
    : importance_(importance), params_(params), state_(std::make_unique<State>()) {
    ops::check_importance(importance);
    check_importance_smoothing(params);
}

ImportanceSmoother::~ImportanceSmoother() = default;

int ImportanceSmoother::cuts() const {
    return state_->cuts;
}
double ImportanceSmoother::flow_seconds() const {
    return state_->flow_seconds;
}

Mask ImportanceSmoother::smooth(const ImageView<const Rgba8> frame, const Mask& terms) {
    check_image_size(frame.width, frame.height);
    if (terms.width() != frame.width || terms.height() != frame.height)
        throw Error(ErrorCode::InvalidArgument, "the importance map is not the frame's size");
    State& s = *state_;
    const bool cut = s.previous &&
                     (s.previous->width() != frame.width || s.previous->height() != frame.height ||
                      ops::mean_luma_difference(s.previous->view(), frame) > params_.cut_threshold);
    const bool first = !s.previous || cut;
    if (cut) ++s.cuts;
    if (params_.window <= 1) {
        s.previous = clone(frame);
        return terms;
    }
    const auto t = Clock::now();
    const cv::Size size = small_size(frame.width, frame.height, importance_.detect_max_side);
    cv::Mat grey;
    {
        cv::Mat full_grey;
        cv::cvtColor(wrap(frame), full_grey, cv::COLOR_RGBA2GRAY);
        if (size.width == frame.width && size.height == frame.height)
            grey = full_grey;
        else
            cv::resize(full_grey, grey, size, 0, 0, cv::INTER_AREA);
    }
    cv::Mat current;
    {
        cv::Mat levels;
        wrap(terms).convertTo(levels, CV_32F);
        if (size.width == frame.width && size.height == frame.height)
            current = levels;
        else
            cv::resize(levels, current, size, 0, 0, cv::INTER_AREA);
    }
    if (first) {
        s.smoothed = current.clone();
    } else {
        cv::Mat previous_state = s.smoothed;
        if (params_.follow_motion) {
            if (!s.dis) s.dis = cv::DISOpticalFlow::create(cv::DISOpticalFlow::PRESET_MEDIUM);
            const cv::Mat map = where_it_was(*s.dis, grey, s.previous_grey);
            cv::remap(s.smoothed, previous_state, map, cv::noArray(), cv::INTER_LINEAR,
                      cv::BORDER_REPLICATE);
        }
        const double alpha = 2.0 / (params_.window + 1);
        cv::addWeighted(current, alpha, previous_state, 1 - alpha, 0, s.smoothed);
    }
    s.previous_grey = grey;
    s.previous = clone(frame);
    cv::Mat full;
    if (size.width == frame.width && size.height == frame.height)
        full = s.smoothed;
    else
        cv::resize(s.smoothed, full, {frame.width, frame.height}, 0, 0, cv::INTER_LINEAR);
    Mask out(frame.width, frame.height, 0);
    for (int y = 0; y < frame.height; ++y) {
        const float* src = full.ptr<float>(y);
        std::uint8_t* dst = out.row(y);
        for (int x = 0; x < frame.width; ++x)
            dst[x] = static_cast<std::uint8_t>(
                std::clamp(static_cast<int>(std::lround(src[x])), 0, ops::kImportanceMaxLevel));
    }
    s.flow_seconds += std::chrono::duration<double>(Clock::now() - t).count();
    return out;
}

Mask ImportanceSmoother::next(const ImageView<const Rgba8> frame,
                              const std::vector<ops::FaceBox>& faces,
                              std::vector<ops::LineSegment>* lines) {
    ops::ImportanceParams untracked = importance_;
    untracked.faces = false;
    const bool any_untracked = ops::any_importance(untracked);
    // Nothing to smooth (off, or faces alone, which are tracked): the still's map.
    if (params_.window <= 1 || !any_untracked) {
        ops::ImportanceMap map = ops::importance_map(frame, importance_, faces);
        if (lines) *lines = std::move(map.lines);
        return std::move(map.levels);
    }
    ops::ImportanceMap terms = ops::importance_map(frame, untracked);
    if (lines) *lines = std::move(terms.lines);
    const Mask smoothed = smooth(frame, terms.levels);
    if (!(importance_.faces && importance_.face_weight > 0) || faces.empty()) return smoothed;
    ops::ImportanceParams faces_only;
    faces_only.faces = true;
    faces_only.face_weight = importance_.face_weight;
    faces_only.detect_max_side = importance_.detect_max_side;
    return add_levels(smoothed, ops::importance_map(frame, faces_only, faces).levels);
}

}  // namespace lacuna::video
