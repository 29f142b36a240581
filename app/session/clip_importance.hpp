// The importance of a video's frames as its export computes them, for the Retarget panel's
// preview of a frame: faces tracked over the clip (video::video_face_tracks, the export's first
// pass) and saliency, lines and skin filtered along the motion within each shot
// (video::ImportanceSmoother, fed frame after frame from the shot's start). The preview of frame t
// then carves with the very levels the export gives its carver for frame t, instead of detecting
// on that frame alone (which jumped from frame to frame and differed from what was exported).
//
// Computed on demand, on the caller's thread (the retarget tool's background carve job): the
// face pass once per clip and terms (the whole clip: tracks need the frames after a frame), then
// the smoother forward from where it stands; maps are cached (a byte budget, the frames farthest
// from the one asked for go first). A frame behind the smoother that is no longer cached starts a
// fresh smoother at its shot's first frame: the smoother restarts at every cut, so a fresh one
// there gives the same maps. Stepping forward costs one frame's maps and one flow; dragging the
// Retarget sliders costs nothing here (the map of a frame does not depend on the target).
#pragma once

#include "background_job.hpp"

#include <lacuna/ops/face_tracks.hpp>
#include <lacuna/ops/importance.hpp>
#include <lacuna/video/importance_smoothing.hpp>
#include <lacuna/video/retarget_video.hpp>

#include <atomic>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace lacuna::io {
class VideoReader;
}

namespace lacuna::session {

/// What decides a clip's importance maps: the export's options (the terms with faces as the
/// export's switch sets them, the smoothing window, the cut threshold, the face pass).
struct ClipImportanceSettings {
    std::filesystem::path input;
    ops::ImportanceParams importance;
    video::ImportanceSmoothingParams smoothing;
    int face_every = 2;
    ops::FaceTrackParams tracks;
    [[nodiscard]] bool same(const ClipImportanceSettings& other) const;
    /// Faces are tracked (the face pass runs before the first map).
    [[nodiscard]] bool faces() const;
};

/// The settings an export with `options` uses (one source: the preview cannot drift from it).
ClipImportanceSettings clip_importance_settings(const video::RetargetVideoOptions& options);

class ClipImportance {
  public:
    /// `cache_bytes`: how much the cached maps may hold (at least one map is kept).
    explicit ClipImportance(ClipImportanceSettings settings,
                            std::size_t cache_bytes = std::size_t{256} << 20);
    ~ClipImportance();
    ClipImportance(const ClipImportance&) = delete;
    ClipImportance& operator=(const ClipImportance&) = delete;

    [[nodiscard]] const ClipImportanceSettings& settings() const { return settings_; }

    /// What map() is doing, for a progress bar: the face pass over the clip, or the smoother
    /// walking the shot up to the frame asked for.
    enum class Phase { Faces, Shot };
    /// Returns false to cancel (map() then throws Error(Cancelled); what was computed is kept).
    using Progress = std::function<bool(Phase phase, int done, int total)>;

    /// Frame `index`'s map: `levels` exactly as the export's carver gets them for that frame,
    /// `faces` the tracked boxes drawn there, `lines` the straight lines found on the frame, and
    /// the face pass's notes (e.g. no cascades installed). Safe from any thread; one computes at
    /// a time. Throws Error(InvalidArgument) for a frame the clip does not have, Cancelled, and
    /// what reading the clip or the detectors throw.
    std::shared_ptr<const ops::ImportanceMap> map(int index, const Progress& progress = {});
    /// The map of `index` if it is computed already (never waits for a running map()).
    [[nodiscard]] std::shared_ptr<const ops::ImportanceMap> cached(int index) const;

    /// Counters for tests: frames whose maps were computed, smoothers started.
    [[nodiscard]] int frames_computed() const { return frames_computed_; }
    [[nodiscard]] int restarts() const { return restarts_; }
    [[nodiscard]] int face_passes() const { return face_passes_; }

  private:
    /// Waits for the face tracks, starting the face pass on its own thread on first need: a
    /// cancelled caller (the user stepped on) leaves it running, so no detection is wasted.
    void wait_for_tracks(const Progress& progress);
    void restart_at(int first);
    void store(int index, std::shared_ptr<const ops::ImportanceMap> map);
    [[nodiscard]] bool stateless() const;

    ClipImportanceSettings settings_;
    std::size_t cache_bytes_;
    std::mutex compute_;  ///< one map() computes at a time
    mutable std::mutex cache_mutex_;
    std::map<int, std::shared_ptr<const ops::ImportanceMap>> cache_;
    std::size_t cached_bytes_ = 0;
    std::optional<ops::FaceTracks> tracks_;
    std::vector<std::string> notes_;
    std::unique_ptr<io::VideoReader> reader_;
    int next_frame_ = 0;  ///< the frame reader_ gives next
    int fed_from_ = 0;    ///< the first frame the smoother was given
    std::unique_ptr<video::ImportanceSmoother> smoother_;
    std::set<int> shot_starts_{0};  ///< frames known to start a shot (cuts seen so far)
    std::atomic<int> frames_computed_{0}, restarts_{0}, face_passes_{0};
    std::mutex tracks_mutex_;  ///< guards tracks_, notes_, face_error_ and face_job_
    std::string face_error_;   ///< the face pass failed: every map() says why
    /// Last, so it is cancelled and joined before the members it writes go.
    BackgroundJob<video::VideoFaceTracks> face_job_;
};

}  // namespace lacuna::session
