#include "clip_importance.hpp"

#include "frame_cache.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/io/video_io.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iterator>
#include <thread>

namespace lacuna::session {

bool ClipImportanceSettings::same(const ClipImportanceSettings& o) const {
    const ops::ImportanceParams &a = importance, &b = o.importance;
    return input == o.input && a.faces == b.faces && a.face_weight == b.face_weight &&
           a.saliency == b.saliency && a.saliency_weight == b.saliency_weight &&
           a.lines == b.lines && a.line_weight == b.line_weight && a.skin == b.skin &&
           a.skin_weight == b.skin_weight && a.detect_max_side == b.detect_max_side &&
           smoothing.window == o.smoothing.window &&
           smoothing.cut_threshold == o.smoothing.cut_threshold &&
           smoothing.follow_motion == o.smoothing.follow_motion && face_every == o.face_every &&
           tracks.min_iou == o.tracks.min_iou && tracks.max_gap == o.tracks.max_gap &&
           tracks.min_detections == o.tracks.min_detections &&
           tracks.smooth_radius == o.tracks.smooth_radius;
}

bool ClipImportanceSettings::faces() const {
    return importance.faces && importance.face_weight > 0;
}

ClipImportanceSettings clip_importance_settings(const video::RetargetVideoOptions& options) {
    // As retarget_video sets up its smoother and its face pass.
    ClipImportanceSettings s;
    s.input = options.input;
    s.importance = options.importance;
    s.smoothing.window = options.params.importance_window;
    s.smoothing.cut_threshold = options.params.cut_threshold;
    s.face_every = options.params.face_every;
    s.tracks = options.tracks;
    return s;
}

ClipImportance::ClipImportance(ClipImportanceSettings settings, const std::size_t cache_bytes)
    : settings_(std::move(settings)), cache_bytes_(cache_bytes) {
    ops::check_importance(settings_.importance);
    video::check_importance_smoothing(settings_.smoothing);
}

ClipImportance::~ClipImportance() = default;

bool ClipImportance::stateless() const {
    // The smoother keeps no state when it has nothing to smooth (ImportanceSmoother::next):
    // any frame's map can be computed alone.
    ops::ImportanceParams untracked = settings_.importance;
    untracked.faces = false;
    return settings_.smoothing.window <= 1 || !ops::any_importance(untracked);
}

std::shared_ptr<const ops::ImportanceMap> ClipImportance::cached(const int index) const {
    const std::lock_guard lock(cache_mutex_);
    const auto it = cache_.find(index);
    return it == cache_.end() ? nullptr : it->second;
}

void ClipImportance::store(const int index, std::shared_ptr<const ops::ImportanceMap> map) {
    const std::lock_guard lock(cache_mutex_);
    store_near(cache_, cached_bytes_, cache_bytes_, index, std::move(map),
               [](const std::shared_ptr<const ops::ImportanceMap>& m) {
                   return static_cast<std::size_t>(m->levels.width()) * m->levels.height() + 256;
               });
}

void ClipImportance::wait_for_tracks(const Progress& progress) {
    for (;;) {
        int done = 0, total = 0;
        {
            const std::lock_guard lock(tracks_mutex_);
            if (tracks_) return;
            if (!face_error_.empty()) throw Error(ErrorCode::InvalidArgument, face_error_);
            if (!face_job_.started()) {
                ++face_passes_;
                // The export's first pass over the whole clip (tracks need the frames after a
                // frame); a truncated file gives the frames that decode, as the clip shows them.
                face_job_.start([s = settings_](JobControl& control) {
                    return video::video_face_tracks(
                        s.input, s.face_every, s.importance.detect_max_side,
                        s.smoothing.cut_threshold, s.tracks, 0, true,
                        [&control](const int d, const int t) { return control.report(d, t); });
                });
            } else if (face_job_.finished()) {
                std::optional<JobOutcome<video::VideoFaceTracks>> outcome = face_job_.take();
                if (outcome && outcome->ok()) {
                    notes_ = std::move(outcome->value->notes);
                    tracks_ = std::move(outcome->value->tracks);
                    return;
                }
                face_error_ = outcome && !outcome->error.empty()
                                  ? "faces over the clip: " + outcome->error
                                  : "faces over the clip: the pass stopped";
                throw Error(ErrorCode::InvalidArgument, face_error_);
            }
            done = face_job_.done();
            total = face_job_.total();
        }
        if (progress && !progress(Phase::Faces, done, total))
            throw Error(ErrorCode::Cancelled, "the importance of the clip was cancelled");
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

void ClipImportance::restart_at(const int first) {
    reader_ = std::make_unique<io::VideoReader>(settings_.input);
    next_frame_ = 0;
    fed_from_ = first;
    smoother_ =
        std::make_unique<video::ImportanceSmoother>(settings_.importance, settings_.smoothing);
    ++restarts_;
}

std::shared_ptr<const ops::ImportanceMap> ClipImportance::map(const int index,
                                                              const Progress& progress) {
    if (index < 0) throw Error(ErrorCode::InvalidArgument, "a frame index is 0 or more");
    if (auto hit = cached(index)) return hit;
    if (settings_.faces()) wait_for_tracks(progress);
    const std::lock_guard lock(compute_);
    if (auto hit = cached(index)) return hit;  // computed while this call waited
    const bool alone = stateless();
    if (!reader_ || next_frame_ > index || (!alone && fed_from_ > index)) {
        // Behind the smoother (or first use): a fresh one at the frame's shot start, which the
        // export's smoother also starts afresh (S = M on a shot's first frame). Without state
        // the frame alone will do.
        const auto shot = std::prev(shot_starts_.upper_bound(index));
        restart_at(alone ? index : *shot);
    }
    static const std::vector<ops::FaceBox> kNoFaces;
    while (next_frame_ <= index) {
        std::optional<ImageRgba8> frame = reader_->next();
        if (!frame) {
            reader_.reset();  // the next call starts over
            throw Error(ErrorCode::InvalidArgument,
                        "the clip has no frame " + std::to_string(index + 1));
        }
        const int f = next_frame_++;
        if (f < fed_from_ || (alone && f != index)) continue;
        const std::vector<ops::FaceBox>& faces =
            tracks_ && static_cast<std::size_t>(f) < tracks_->per_frame.size()
                ? tracks_->per_frame[static_cast<std::size_t>(f)]
                : kNoFaces;
        auto map = std::make_shared<ops::ImportanceMap>();
        const int cuts = smoother_->cuts();
        map->levels = smoother_->next(frame->view(), faces, &map->lines);
        if (smoother_->cuts() > cuts) shot_starts_.insert(f);
        if (settings_.faces()) map->faces = faces;
        map->notes = notes_;
        ++frames_computed_;
        store(f, std::move(map));
        if (progress && !progress(Phase::Shot, f - fed_from_ + 1, index - fed_from_ + 1))
            throw Error(ErrorCode::Cancelled, "the importance of the clip was cancelled");
    }
    if (auto hit = cached(index)) return hit;
    // Only a budget below one map evicts the frame just stored.
    throw Error(ErrorCode::InvalidArgument, "the importance cache holds no map");
}

}  // namespace lacuna::session
