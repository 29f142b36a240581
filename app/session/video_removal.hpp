// Removing an object from the open clip (the Video dock's object-removal mode), without Qt:
// masks painted on key frames, masks tracked to every frame (video::MaskTracker, its flows
// computed once per clip and kept, so a correction re-tracks without new flow), a still mask
// for all frames (a logo), per-frame undo of key edits, and the two background jobs, Track and
// Fill & Export (the flow-guided video fill, video::inpaint_video, with the tracked masks).
//
// The masks are 0/255 (255 = the object). The editor paints a key frame's mask with the Remove
// Object tool on the shown frame and hands it here; the mask shown on any frame is mask_at().
#pragma once

#include "background_job.hpp"

#include <lacuna/core/mask.hpp>
#include <lacuna/video/inpaint_video.hpp>
#include <lacuna/video/track_masks.hpp>

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lacuna::session {

class VideoRemoval {
  public:
    /// The clip (a video or a PNG-sequence pattern) with `frames` frames of `width` × `height`.
    VideoRemoval(std::filesystem::path clip, int frames, int width, int height);
    ~VideoRemoval();
    VideoRemoval(const VideoRemoval&) = delete;
    VideoRemoval& operator=(const VideoRemoval&) = delete;

    [[nodiscard]] const std::filesystem::path& clip() const { return clip_; }
    [[nodiscard]] int frames() const { return frames_; }
    [[nodiscard]] int width() const { return width_; }
    [[nodiscard]] int height() const { return height_; }

    // ---- masks ----
    /// Makes `mask` (non-zero = object, any value counts) frame `frame`'s key mask, replacing
    /// one there; a mask that selects nothing removes the key. One undoable edit. Throws
    /// Error(InvalidArgument) for a frame outside the clip or a mask of another size.
    void set_key(int frame, const Mask& mask);
    /// Removes frame `frame`'s key (one undoable edit); false when it has none.
    bool remove_key(int frame);
    /// The key frames, in order.
    [[nodiscard]] std::vector<int> key_frames() const;
    [[nodiscard]] bool is_key(int frame) const { return keys_.count(frame) != 0; }
    /// Undoes the last key edit (set or removed, on whichever frame); false when none. The
    /// tracked masks stay until the next Track.
    bool undo();
    [[nodiscard]] bool can_undo() const { return !undo_.empty(); }
    /// The frame the last undoable edit was on (-1: none).
    [[nodiscard]] int undo_frame() const { return undo_.empty() ? -1 : undo_.back().frame; }

    /// Still mask: the first key frame's mask (by frame number) is the mask of every frame, with
    /// no tracking (a logo, a watermark).
    void set_still(bool on) { still_ = on; }
    [[nodiscard]] bool still() const { return still_; }

    /// The mask shown and filled on `frame`: still mode: the still mask; else its key mask, or
    /// the tracked one; nullptr when there is none (not tracked yet, no key).
    [[nodiscard]] const Mask* mask_at(int frame) const;
    /// Masks of every frame from the last finished Track (empty before one).
    [[nodiscard]] const std::vector<Mask>& tracked() const { return tracked_; }
    /// The key frames changed since the last finished Track (or none ran): the masks between
    /// them are out of date. Always false in still mode.
    [[nodiscard]] bool needs_track() const;
    /// The flows of the clip are computed and kept (a Track runs only the carrying then).
    [[nodiscard]] bool has_flow() const { return tracker_ != nullptr; }
    /// The kept tracker (frames and flows); the same object across Tracks of this clip.
    [[nodiscard]] const video::MaskTracker* flow() const { return tracker_.get(); }
    [[nodiscard]] const video::MaskTrackStats& track_stats() const { return track_stats_; }

    // ---- jobs (one at a time; poll() from the owning thread collects them) ----
    /// Starts tracking the key masks to every frame: decodes the clip and computes the flows
    /// the first time (kept), then MaskTracker::track. Throws Error(InvalidArgument) with one
    /// sentence: no key frame, still mode, or a job running.
    void start_track(const video::MaskTrackParams& params);
    /// Starts the flow-guided fill of every frame with mask_at(frame) (tracked, or the still
    /// mask), written to `output` (a video or a PNG-sequence pattern) only once every frame is
    /// in; of a truncated file, the frames that decode (with a notice in message()). Throws
    /// Error(InvalidArgument) with one sentence: no masks (nothing tracked, no still
    /// key), the keys changed since the last Track, `output` is the clip itself, a job running.
    void start_fill(const std::filesystem::path& output, const video::VideoInpaintParams& params);
    [[nodiscard]] bool busy() const { return track_job_.started() || fill_job_.started(); }
    [[nodiscard]] bool tracking() const { return track_job_.started(); }
    [[nodiscard]] bool filling() const { return fill_job_.started(); }
    void cancel();
    /// Progress of the running job (frames over all its stages; the total is known from the
    /// start: decoding n + flow n − 1 + tracking n for a first Track, n for a later one, 2n for
    /// a fill's flow and fill).
    [[nodiscard]] int done() const;
    [[nodiscard]] int total() const;
    /// Collects a finished job: true when one finished now (message() tells how). A cancelled
    /// or failed Track leaves the masks as they were; a cancelled or failed fill wrote nothing.
    bool poll();
    /// Waits for the running job and collects it (tests, closing).
    void wait();
    /// The last job's outcome in one sentence.
    [[nodiscard]] const std::string& message() const { return message_; }
    /// The last fill's result (when it succeeded).
    [[nodiscard]] const std::optional<video::InpaintVideoResult>& fill_result() const {
        return fill_result_;
    }

  private:
    struct TrackResult {
        std::shared_ptr<const video::MaskTracker> tracker;
        std::vector<Mask> masks;
        video::MaskTrackStats stats;
        std::vector<int> keys;
    };
    struct KeyEdit {
        int frame = 0;
        std::optional<Mask> before;  ///< the key there before (none: there was no key)
    };
    void check_frame(int frame) const;
    void finish(std::optional<JobOutcome<TrackResult>> track,
                std::optional<JobOutcome<video::InpaintVideoResult>> fill);

    std::filesystem::path clip_;
    int frames_ = 0, width_ = 0, height_ = 0;
    std::map<int, Mask> keys_;
    std::vector<KeyEdit> undo_;
    bool still_ = false;
    std::vector<Mask> tracked_;
    std::vector<int> tracked_keys_;  ///< the key frames tracked_ came from
    std::uint64_t key_serial_ = 0;   ///< changes with every key edit
    std::uint64_t tracked_serial_ = 0;
    std::uint64_t running_serial_ = 0;
    int job_total_ = 0;  ///< the running job's progress total, known when it starts
    std::shared_ptr<const video::MaskTracker> tracker_;
    video::MaskTrackStats track_stats_;
    BackgroundJob<TrackResult> track_job_;
    BackgroundJob<video::InpaintVideoResult> fill_job_;
    std::optional<video::InpaintVideoResult> fill_result_;
    std::string message_;
};

}  // namespace lacuna::session
