// Faces over a video for retargeting: per-frame detections (detect_faces) become tracks within a
// shot, so that the protected regions move smoothly instead of jumping with the detector.
// Detections of consecutive examined frames are associated by overlap (IoU, greedy, best pair
// first); a track survives a few frames without a detection (bridged by interpolating its box);
// a track with a single detection is dropped (one-frame false positives); a scene cut ends every
// track. Each track's box (centre and size) is then smoothed over time: a running median (which
// removes outliers and keeps a steady pan's positions exactly) followed by a local straight-line
// fit over the same radius (which averages out the Haar detector's jitter and its size steps of
// 15 %, and does not lag behind a moving face at the track's ends as a plain mean would).
// Pure bookkeeping on boxes: no OpenCV here, the detections come from detect_faces.
#pragma once

#include <lacuna/ops/importance.hpp>

#include <vector>

namespace lacuna::ops {

/// What the detector saw in one frame of a video.
struct FrameFaces {
    bool examined = false;  ///< the detector ran on this frame (every k-th frame, shot starts)
    bool cut = false;       ///< the frame starts a new shot (mean_luma_difference above threshold)
    std::vector<FaceBox> faces;
};

struct FaceTrackParams {
    double min_iou = 0.3;    ///< a detection continues a track when its boxes overlap this much
    int max_gap = 4;         ///< examined frames in a row without a detection that a track survives
    int min_detections = 2;  ///< tracks with fewer detections are dropped
    int smooth_radius = 3;   ///< frames either side of the running median and line fit
};

struct FaceTrack {
    /// First frame (its first detection); a track ends at its last detection, or after the
    /// frames the detector skipped right after it.
    int first = 0;
    int detections = 0;          ///< frames whose detection it took
    std::vector<FaceBox> boxes;  ///< smoothed, one per frame first .. first + size − 1
    [[nodiscard]] int last() const { return first + static_cast<int>(boxes.size()) - 1; }
};

struct FaceTracks {
    std::vector<FaceTrack> tracks;
    /// Per frame: the smoothed boxes of the tracks that cover it.
    std::vector<std::vector<FaceBox>> per_frame;
    int dropped = 0;  ///< tracks dropped for too few detections
};

/// Throws Error(InvalidArgument) for params out of range (min_iou outside (0, 1], negative gap or
/// radius, min_detections below 1).
FaceTracks track_faces(const std::vector<FrameFaces>& frames, const FaceTrackParams& params = {});

/// Intersection over union of two boxes (0 when either is empty).
double box_iou(const FaceBox& a, const FaceBox& b);

}  // namespace lacuna::ops
