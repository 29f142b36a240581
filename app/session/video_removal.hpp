// Removing an object from the open clip (the Video dock's object-removal mode), without Qt:
// masks painted on key frames, masks tracked to every frame of the range (video::MaskTracker,
// its flows computed once per range and kept, so a correction re-tracks without new flow; no
// mask crosses a scene cut), a still mask for all frames (a logo), per-frame undo of key edits,
// a range of frames [first, end) that Track, Preview and Fill & Export process, and three
// background jobs: Track, Preview (the fill of the shot around one frame, kept to be shown) and
// Fill & Export (the flow-guided video fill, video::inpaint_video, with the tracked masks).
//
// The preview is exactly the exported frames: video::inpaint_frames fills every shot (cut to
// cut) of the range on its own, and a frame's fill depends on every frame of its shot (the
// forward pass from the shot's start, the backward pass from its end, key fills carried from
// the first frame that needs one), and on nothing outside it. So the preview fills the whole
// shot of the range that holds the frame, with the same decoded frames, masks, grow and
// parameters as the export, and every frame of that shot can then be shown.
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
    /// Masks of every frame of the range of the last finished Track (empty before one):
    /// tracked()[i] is frame tracked_first() + i.
    [[nodiscard]] const std::vector<Mask>& tracked() const { return tracked_; }
    [[nodiscard]] int tracked_first() const { return tracked_first_; }
    /// The key frames or the range changed since the last finished Track (or none ran): the
    /// masks between them are out of date. Always false in still mode.
    [[nodiscard]] bool needs_track() const;
    /// The flows of the range are computed and kept (a Track runs only the carrying then).
    [[nodiscard]] bool has_flow() const { return tracker_ != nullptr; }
    /// The kept tracker (frames and flows); the same object across Tracks of this clip.
    [[nodiscard]] const video::MaskTracker* flow() const { return tracker_.get(); }
    [[nodiscard]] const video::MaskTrackStats& track_stats() const { return track_stats_; }

    // ---- range ----
    /// The frames [first, end) that Track, Preview and Fill & Export process (the whole clip at
    /// first). Keys outside it are kept and not used. Throws Error(InvalidArgument) for a range
    /// outside the clip or empty, or while a job runs.
    void set_range(int first, int end);
    [[nodiscard]] int range_first() const { return first_; }
    [[nodiscard]] int range_end() const { return end_; }
    /// The key frames inside the range.
    [[nodiscard]] std::vector<int> keys_in_range() const;

    /// Frames that start a new shot (a scene cut before them, the fill's measure and
    /// threshold), in the clip's numbering: known within the range of the last Track or
    /// Preview (empty before one).
    [[nodiscard]] const std::vector<int>& cuts() const { return cuts_; }

    // ---- jobs (one at a time; poll() from the owning thread collects them) ----
    /// Starts tracking the range's key masks to every frame of the range: decodes the range
    /// and computes the flows the first time (kept while the range stays), then
    /// MaskTracker::track (no mask is carried across a scene cut: a shot without a key gets
    /// none). Throws Error(InvalidArgument) with one sentence: no key frame in the range,
    /// still mode, or a job running.
    void start_track(const video::MaskTrackParams& params);
    /// Starts the flow-guided fill of every frame of the range with mask_at(frame) (tracked,
    /// or the still mask), written to `output` (a video or a PNG-sequence pattern, the range's
    /// frames only, numbered from 0) only once every frame is in; of a truncated file, the
    /// frames that decode (with a notice in message()). Throws Error(InvalidArgument) with one
    /// sentence: no masks (nothing tracked, no still key), the keys or range changed since the
    /// last Track, `output` is the clip itself, a job running.
    void start_fill(const std::filesystem::path& output, const video::VideoInpaintParams& params);
    /// Starts the preview of frame `frame`'s fill: the shot of the range that holds it (cut to
    /// cut) is decoded and filled exactly as Fill & Export fills it (same masks, grow and
    /// parameters), and kept; preview_at() then gives any frame of that shot. Throws
    /// Error(InvalidArgument) with one sentence as start_fill does, or for a frame outside the
    /// range.
    void start_preview(int frame, const video::VideoInpaintParams& params);
    /// The filled frame `frame` of the last preview, while it is current: the keys, still mode,
    /// range and tracked masks are as they were when it started and `params` are its
    /// parameters; nullptr otherwise.
    [[nodiscard]] const ImageRgba8* preview_at(int frame,
                                               const video::VideoInpaintParams& params) const;
    /// The same without the parameters' check (the canvas asks; the dock drops a preview whose
    /// parameters changed with drop_stale_preview).
    [[nodiscard]] const ImageRgba8* preview_at(int frame) const;
    /// Forgets the preview if its parameters differ from `params`; true when it did.
    bool drop_stale_preview(const video::VideoInpaintParams& params);
    /// The last preview's shot [first, end) in the clip's numbering ({0, 0}: none).
    [[nodiscard]] std::pair<int, int> preview_shot() const;
    /// Changes whenever the preview's frames do (for the canvas's upload).
    [[nodiscard]] std::uint64_t preview_serial() const { return preview_serial_; }

    [[nodiscard]] bool busy() const {
        return track_job_.started() || fill_job_.started() || preview_job_.started();
    }
    [[nodiscard]] bool tracking() const { return track_job_.started(); }
    [[nodiscard]] bool filling() const { return fill_job_.started(); }
    [[nodiscard]] bool previewing() const { return preview_job_.started(); }
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
        int first = 0;         ///< the range tracked
        int clip_frames = -1;  ///< frames that decode, when the file ended inside the range
    };
    struct PreviewResult {
        int first = 0;                   ///< the shot [first, first + frames.size())
        std::vector<ImageRgba8> frames;  ///< filled
        std::vector<int> cuts;           ///< in the range, clip numbering
        int clip_frames = -1;            ///< as TrackResult's
        bool nothing_to_fill = false;    ///< the shot's masks select nothing
        video::VideoInpaintStats stats;
        double seconds = 0;
    };
    /// What a preview was made from: it is shown only while these are unchanged.
    struct PreviewKey {
        std::uint64_t key_serial = 0, tracked_serial = 0;
        bool still = false;
        int first = 0, end = 0;
        video::VideoInpaintParams params;
    };
    /// The masks Fill & Export and Preview use for the range (one still mask, or one a frame);
    /// throws as start_fill documents.
    [[nodiscard]] std::vector<Mask> fill_masks() const;
    [[nodiscard]] bool preview_current() const;
    struct KeyEdit {
        int frame = 0;
        std::optional<Mask> before;  ///< the key there before (none: there was no key)
    };
    void check_frame(int frame) const;
    void finish(std::optional<JobOutcome<TrackResult>> track,
                std::optional<JobOutcome<video::InpaintVideoResult>> fill,
                std::optional<JobOutcome<PreviewResult>> preview);
    /// A decode that ended before the range's end: the clip has `clip_frames` frames.
    void clip_ends_at(int clip_frames);

    std::filesystem::path clip_;
    int frames_ = 0, width_ = 0, height_ = 0;
    std::map<int, Mask> keys_;
    std::vector<KeyEdit> undo_;
    bool still_ = false;
    int first_ = 0, end_ = 0;  ///< the range
    std::vector<Mask> tracked_;
    int tracked_first_ = 0;          ///< tracked_[i] is frame tracked_first_ + i
    std::vector<int> tracked_keys_;  ///< the key frames tracked_ came from
    std::vector<int> cuts_;
    int tracker_first_ = 0, tracker_end_ = 0;  ///< the range tracker_ holds
    std::uint64_t key_serial_ = 0;             ///< changes with every key edit
    std::uint64_t tracked_serial_ = 0;
    std::uint64_t running_serial_ = 0;
    int job_total_ = 0;  ///< the running job's progress total, known when it starts
    std::shared_ptr<const video::MaskTracker> tracker_;
    video::MaskTrackStats track_stats_;
    BackgroundJob<TrackResult> track_job_;
    BackgroundJob<video::InpaintVideoResult> fill_job_;
    BackgroundJob<PreviewResult> preview_job_;
    PreviewKey running_preview_key_;
    std::optional<PreviewResult> preview_;
    PreviewKey preview_key_;
    std::uint64_t preview_serial_ = 0;
    std::optional<video::InpaintVideoResult> fill_result_;
    std::string message_;
};

}  // namespace lacuna::session
