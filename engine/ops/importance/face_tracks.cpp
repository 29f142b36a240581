// Face tracks over a video (face_tracks.hpp): association by overlap, gap bridging, dropping
// single detections, and smoothing of each track's centre and size.
#include <lacuna/core/error.hpp>
#include <lacuna/ops/face_tracks.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <tuple>

namespace lacuna::ops {
namespace {

void invalid(const std::string& what) {
    throw Error(ErrorCode::InvalidArgument, what);
}

struct Detection {
    int frame = 0;
    FaceBox box;
};

/// A track while its shot is scanned: its detections and how many examined frames in a row
/// missed it.
struct OpenTrack {
    std::vector<Detection> detections;
    int misses = 0;
    bool open = true;
};

/// Centre x, centre y, width, height: the components that are interpolated and smoothed.
using Shape = std::array<double, 4>;
Shape shape_of(const FaceBox& b) {
    return {b.x + b.width * 0.5, b.y + b.height * 0.5, double(b.width), double(b.height)};
}

/// Associates the detections of one shot's frames [begin, end) into tracks.
std::vector<OpenTrack> scan_shot(const std::vector<FrameFaces>& frames, const int begin,
                                 const int end, const FaceTrackParams& p) {
    std::vector<OpenTrack> tracks;
    for (int f = begin; f < end; ++f) {
        const FrameFaces& frame = frames[static_cast<std::size_t>(f)];
        if (!frame.examined) continue;
        // Every overlapping (track, detection) pair, best overlap first; ties by index so the
        // result does not depend on sort stability.
        std::vector<std::tuple<double, std::size_t, std::size_t>> pairs;
        for (std::size_t t = 0; t < tracks.size(); ++t) {
            if (!tracks[t].open) continue;
            for (std::size_t d = 0; d < frame.faces.size(); ++d) {
                const double iou = box_iou(tracks[t].detections.back().box, frame.faces[d]);
                if (iou >= p.min_iou) pairs.emplace_back(iou, t, d);
            }
        }
        std::sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) {
            if (std::get<0>(a) != std::get<0>(b)) return std::get<0>(a) > std::get<0>(b);
            return std::tie(std::get<1>(a), std::get<2>(a)) <
                   std::tie(std::get<1>(b), std::get<2>(b));
        });
        std::vector<bool> track_taken(tracks.size(), false), face_taken(frame.faces.size(), false);
        for (const auto& [iou, t, d] : pairs) {
            if (track_taken[t] || face_taken[d]) continue;
            track_taken[t] = face_taken[d] = true;
            tracks[t].detections.push_back({f, frame.faces[d]});
            tracks[t].misses = 0;
        }
        for (std::size_t t = 0; t < tracks.size(); ++t) {
            if (!tracks[t].open || track_taken[t]) continue;
            if (++tracks[t].misses > p.max_gap) tracks[t].open = false;
        }
        for (std::size_t d = 0; d < frame.faces.size(); ++d)
            if (!face_taken[d]) tracks.push_back(OpenTrack{{{f, frame.faces[d]}}, 0, true});
    }
    return tracks;
}

/// One shape per frame from the first detection to the last: detections where there are some,
/// linear interpolation between them (bridged gaps and frames the detector skipped).
std::vector<Shape> interpolated(const std::vector<Detection>& dets) {
    std::vector<Shape> out;
    for (std::size_t i = 0; i < dets.size(); ++i) {
        const Shape a = shape_of(dets[i].box);
        out.push_back(a);
        if (i + 1 == dets.size()) break;
        const Shape b = shape_of(dets[i + 1].box);
        const int span = dets[i + 1].frame - dets[i].frame;
        for (int k = 1; k < span; ++k) {
            Shape s;
            for (int c = 0; c < 4; ++c) s[c] = a[c] + (b[c] - a[c]) * k / span;
            out.push_back(s);
        }
    }
    return out;
}

/// Each component over ±radius frames: a running median (outliers out; the window shrinks
/// symmetrically at the track's ends, so a moving face is not pulled back there), then a local
/// straight-line fit to the medians evaluated at the frame (the mean of the window inside the
/// track; at its ends a line keeps a steady motion unbiased, where a mean would lag).
std::vector<Shape> smoothed(const std::vector<Shape>& raw, const int radius) {
    const int n = static_cast<int>(raw.size());
    std::vector<Shape> med(raw.size()), out(raw.size());
    for (int i = 0; i < n; ++i) {
        const int r = std::min({radius, i, n - 1 - i});
        for (std::size_t c = 0; c < 4; ++c) {
            std::vector<double> v;
            for (int j = i - r; j <= i + r; ++j) v.push_back(raw[static_cast<std::size_t>(j)][c]);
            std::nth_element(v.begin(), v.begin() + r, v.end());
            med[static_cast<std::size_t>(i)][c] = v[static_cast<std::size_t>(r)];
        }
    }
    for (int i = 0; i < n; ++i) {
        const int lo = std::max(0, i - radius), hi = std::min(n - 1, i + radius);
        const double count = hi - lo + 1;
        double mean_d = 0;
        for (int j = lo; j <= hi; ++j) mean_d += j - i;
        mean_d /= count;
        for (std::size_t c = 0; c < 4; ++c) {
            double mean_v = 0;
            for (int j = lo; j <= hi; ++j) mean_v += med[static_cast<std::size_t>(j)][c];
            mean_v /= count;
            double num = 0, den = 0;
            for (int j = lo; j <= hi; ++j) {
                const double d = j - i - mean_d;
                num += d * (med[static_cast<std::size_t>(j)][c] - mean_v);
                den += d * d;
            }
            const double slope = den > 0 ? num / den : 0;
            out[static_cast<std::size_t>(i)][c] = mean_v - slope * mean_d;
        }
    }
    return out;
}

FaceBox box_of(const Shape& s, const bool profile) {
    FaceBox b;
    b.width = std::max(1, static_cast<int>(std::lround(s[2])));
    b.height = std::max(1, static_cast<int>(std::lround(s[3])));
    b.x = static_cast<int>(std::lround(s[0] - b.width * 0.5));
    b.y = static_cast<int>(std::lround(s[1] - b.height * 0.5));
    b.profile = profile;
    return b;
}

}  // namespace

double box_iou(const FaceBox& a, const FaceBox& b) {
    if (a.width <= 0 || a.height <= 0 || b.width <= 0 || b.height <= 0) return 0;
    const int x0 = std::max(a.x, b.x), x1 = std::min(a.x + a.width, b.x + b.width);
    const int y0 = std::max(a.y, b.y), y1 = std::min(a.y + a.height, b.y + b.height);
    if (x1 <= x0 || y1 <= y0) return 0;
    const double inter = double(x1 - x0) * (y1 - y0);
    const double uni = double(a.width) * a.height + double(b.width) * b.height - inter;
    return inter / uni;
}

FaceTracks track_faces(const std::vector<FrameFaces>& frames, const FaceTrackParams& p) {
    if (!(p.min_iou > 0 && p.min_iou <= 1))
        invalid("the track overlap must be above 0 and at most 1");
    if (p.max_gap < 0) invalid("the track gap must be 0 or more frames");
    if (p.smooth_radius < 0) invalid("the track smoothing radius must be 0 or more frames");
    if (p.min_detections < 1) invalid("a track needs at least one detection");
    FaceTracks out;
    out.per_frame.resize(frames.size());
    const int n = static_cast<int>(frames.size());
    for (int begin = 0; begin < n;) {
        int end = begin + 1;
        while (end < n && !frames[static_cast<std::size_t>(end)].cut) ++end;
        for (OpenTrack& raw : scan_shot(frames, begin, end, p)) {
            if (static_cast<int>(raw.detections.size()) < p.min_detections) {
                ++out.dropped;
                continue;
            }
            FaceTrack track;
            track.first = raw.detections.front().frame;
            track.detections = static_cast<int>(raw.detections.size());
            std::vector<Shape> shapes = smoothed(interpolated(raw.detections), p.smooth_radius);
            // Frames after the last detection that the detector skipped (every k-th frame)
            // still show the face as far as anyone knows: the last box holds until the next
            // examined frame or the shot's end.
            for (int f = raw.detections.back().frame + 1;
                 f < end && !frames[static_cast<std::size_t>(f)].examined; ++f)
                shapes.push_back(shapes.back());
            std::size_t latest = 0;  // the detection at or before each frame gives `profile`
            for (std::size_t i = 0; i < shapes.size(); ++i) {
                const int f = track.first + static_cast<int>(i);
                while (latest + 1 < raw.detections.size() && raw.detections[latest + 1].frame <= f)
                    ++latest;
                track.boxes.push_back(box_of(shapes[i], raw.detections[latest].box.profile));
                out.per_frame[static_cast<std::size_t>(f)].push_back(track.boxes.back());
            }
            out.tracks.push_back(std::move(track));
        }
        begin = end;
    }
    return out;
}

}  // namespace lacuna::ops
