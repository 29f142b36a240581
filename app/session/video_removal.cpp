#include "video_removal.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/io/video_io.hpp>
#include <lacuna/ops/video_retarget.hpp>

#include <algorithm>
#include <chrono>
#include <random>
#include <system_error>

namespace lacuna::session {

namespace {

std::int64_t selected(const Mask& mask) {
    return count_selected(mask.view());
}

/// 0/255 from any non-zero selection (what the tracker and the fill read back).
Mask binary(const Mask& mask) {
    Mask out(mask.width(), mask.height(), 0);
    for (int y = 0; y < mask.height(); ++y) {
        const std::uint8_t* in = mask.row(y);
        std::uint8_t* o = out.row(y);
        for (int x = 0; x < mask.width(); ++x) o[x] = in[x] != 0 ? 255 : 0;
    }
    return out;
}

bool same_params(const video::VideoInpaintParams& a, const video::VideoInpaintParams& b) {
    const ops::InpaintParams &f = a.fill, &g = b.fill;
    return f.patch == g.patch && f.search == g.search && f.window_factor == g.window_factor &&
           f.coherence == g.coherence && f.never_sample == g.never_sample && f.method == g.method &&
           f.seed == g.seed && f.mask_grow == g.mask_grow && f.lines == g.lines &&
           f.source_colours == g.source_colours && f.choose == g.choose &&
           f.refill_foreign == g.refill_foreign && f.keep_colours == g.keep_colours &&
           f.line_angle == g.line_angle && f.line_offset == g.line_offset &&
           a.implementation == b.implementation && a.propagate == b.propagate &&
           a.cut_threshold == b.cut_threshold && a.consistency == b.consistency &&
           a.flow_margin == b.flow_margin;
}

/// Frames [first, end) of the clip (fewer when it ends before), reporting each decoded one;
/// `clip_frames` is set when the file ended inside the range.
std::vector<ImageRgba8> decode_range(const std::filesystem::path& clip, const int first,
                                     const int end, JobControl& control, int& clip_frames) {
    std::vector<ImageRgba8> frames;
    io::VideoReader reader(clip);
    int index = 0;
    while (index < end) {
        std::optional<ImageRgba8> frame = reader.next();
        if (!frame) {
            clip_frames = index;
            break;
        }
        if (index >= first) frames.push_back(std::move(*frame));
        ++index;
        if (!control.report(index - first > 0 ? index - first : 0))
            throw Error(ErrorCode::Cancelled, "cancelled");
    }
    if (frames.empty()) throw Error(ErrorCode::EmptyImage, "the range has no frames that decode");
    return frames;
}

/// "frames 4–9" / "frame 4" (1-based, as the dock shows them) of the runs of frames whose mask
/// is empty.
std::string empty_runs(const std::vector<Mask>& masks, const int first) {
    std::string text;
    int run = -1;
    for (int i = 0; i <= static_cast<int>(masks.size()); ++i) {
        const bool empty =
            i < static_cast<int>(masks.size()) && count_selected(masks[i].view()) == 0;
        if (empty && run < 0) run = i;
        if (!empty && run >= 0) {
            text += (text.empty() ? "" : ", ") + std::to_string(first + run + 1);
            if (i - 1 > run) text += "–" + std::to_string(first + i);
            run = -1;
        }
    }
    return text;
}

bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) {
    std::error_code ea, eb;
    const auto ca = std::filesystem::weakly_canonical(a, ea);
    const auto cb = std::filesystem::weakly_canonical(b, eb);
    return !ea && !eb ? ca == cb : a == b;
}

}  // namespace

VideoRemoval::VideoRemoval(std::filesystem::path clip, const int frames, const int width,
                           const int height)
    : clip_(std::move(clip)), frames_(frames), width_(width), height_(height), end_(frames) {
    if (frames < 1 || width < 1 || height < 1)
        throw Error(ErrorCode::InvalidArgument, "the clip has no frames");
}

// A running job is cancelled and waited for by its BackgroundJob (nothing is left written).
VideoRemoval::~VideoRemoval() = default;

void VideoRemoval::check_frame(const int frame) const {
    if (frame < 0 || frame >= frames_)
        throw Error(ErrorCode::InvalidArgument, "frame " + std::to_string(frame) +
                                                    " is outside the clip (0 to " +
                                                    std::to_string(frames_ - 1) + ")");
}

void VideoRemoval::set_key(const int frame, const Mask& mask) {
    check_frame(frame);
    check_mask_size(mask.view(), width_, height_, "key mask");
    if (selected(mask) == 0) {
        remove_key(frame);
        return;
    }
    const auto it = keys_.find(frame);
    KeyEdit edit{frame, std::nullopt};
    if (it != keys_.end()) edit.before = clone(it->second.view());
    undo_.push_back(std::move(edit));
    keys_[frame] = binary(mask);
    ++key_serial_;
}

bool VideoRemoval::remove_key(const int frame) {
    const auto it = keys_.find(frame);
    if (it == keys_.end()) return false;
    undo_.push_back({frame, std::move(it->second)});
    keys_.erase(it);
    ++key_serial_;
    return true;
}

std::vector<int> VideoRemoval::key_frames() const {
    std::vector<int> frames;
    for (const auto& [frame, mask] : keys_) frames.push_back(frame);
    return frames;
}

std::vector<int> VideoRemoval::keys_in_range() const {
    std::vector<int> frames;
    for (const auto& [frame, mask] : keys_)
        if (frame >= first_ && frame < end_) frames.push_back(frame);
    return frames;
}

bool VideoRemoval::undo() {
    if (undo_.empty()) return false;
    KeyEdit edit = std::move(undo_.back());
    undo_.pop_back();
    if (edit.before)
        keys_[edit.frame] = std::move(*edit.before);
    else
        keys_.erase(edit.frame);
    ++key_serial_;
    return true;
}

void VideoRemoval::set_range(const int first, const int end) {
    if (busy()) throw Error(ErrorCode::InvalidArgument, "a tracking or fill job is running");
    if (first < 0 || end > frames_ || end <= first)
        throw Error(ErrorCode::InvalidArgument, "the range must lie within frames 1 to " +
                                                    std::to_string(frames_) +
                                                    " and hold at least one frame");
    first_ = first;
    end_ = end;
}

const Mask* VideoRemoval::mask_at(const int frame) const {
    if (frame < 0 || frame >= frames_) return nullptr;
    if (still_) return keys_.empty() ? nullptr : &keys_.begin()->second;
    if (const auto it = keys_.find(frame); it != keys_.end()) return &it->second;
    const int i = frame - tracked_first_;
    if (i >= 0 && i < static_cast<int>(tracked_.size()))
        return &tracked_[static_cast<std::size_t>(i)];
    return nullptr;
}

bool VideoRemoval::needs_track() const {
    if (still_ || keys_in_range().empty()) return false;
    return tracked_.empty() || tracked_serial_ != key_serial_ || tracked_first_ != first_ ||
           tracked_first_ + static_cast<int>(tracked_.size()) != end_;
}

void VideoRemoval::start_track(const video::MaskTrackParams& params) {
    if (busy()) throw Error(ErrorCode::InvalidArgument, "a tracking or fill job is running");
    if (still_)
        throw Error(ErrorCode::InvalidArgument,
                    "a still mask is the same on every frame: there is nothing to track");
    if (keys_.empty())
        throw Error(ErrorCode::InvalidArgument,
                    "paint the object on a frame first (it becomes a key frame)");
    if (keys_in_range().empty())
        throw Error(ErrorCode::InvalidArgument,
                    "no key frame in the range " + std::to_string(first_ + 1) + "–" +
                        std::to_string(end_) + ": paint the object on a frame inside it");
    // Key frames in the tracker's numbering (from the range's first frame).
    std::vector<video::KeyMask> keys;
    for (const int f : keys_in_range()) keys.push_back({f - first_, clone(keys_.at(f).view())});
    running_serial_ = key_serial_;
    const int first = first_, end = end_;
    const int n = end - first;
    const bool reuse = tracker_ && tracker_first_ == first && tracker_end_ == end;
    job_total_ = reuse ? n : 3 * n - 1;
    track_job_.start([keys = std::move(keys), params, tracker = reuse ? tracker_ : nullptr,
                      clip = clip_, first, end, n](JobControl& control) {
        TrackResult result;
        result.first = first;
        for (const video::KeyMask& k : keys) result.keys.push_back(first + k.frame);
        // Stages on one bar: decoding (n), flow (n − 1 pairs), tracking (n), the first two
        // only the first time.
        int before = tracker ? 0 : 2 * n - 1;
        control.report(0, before + n);
        result.tracker = tracker;
        if (!result.tracker) {
            const std::vector<ImageRgba8> frames =
                decode_range(clip, first, end, control, result.clip_frames);
            const int decoded = static_cast<int>(frames.size());
            for (const video::KeyMask& k : keys)
                if (k.frame >= decoded)
                    throw Error(ErrorCode::InvalidArgument,
                                "key frame " + std::to_string(first + k.frame + 1) +
                                    " is past the clip's end (" + std::to_string(first + decoded) +
                                    " frames decode)");
            if (decoded < n) {
                before = 2 * decoded - 1;
                control.report(decoded, before + decoded);
            }
            result.tracker = std::make_shared<const video::MaskTracker>(
                frames, [&control, decoded](const video::MaskTrackProgress& p) {
                    return control.report(decoded + p.done);
                });
        }
        result.masks = result.tracker->track(keys, params, &result.stats,
                                             [&control, before](const video::MaskTrackProgress& p) {
                                                 return control.report(before + p.done);
                                             });
        return result;
    });
    message_.clear();
}

std::vector<Mask> VideoRemoval::fill_masks() const {
    if (keys_.empty()) throw Error(ErrorCode::InvalidArgument, "paint the object on a frame first");
    std::vector<Mask> masks;
    if (still_) {
        masks.push_back(clone(keys_.begin()->second.view()));
        return masks;
    }
    if (tracked_.empty()) throw Error(ErrorCode::InvalidArgument, "track the mask first (Track)");
    if (needs_track())
        throw Error(ErrorCode::InvalidArgument,
                    "the key frames or the range changed since the last tracking: track again "
                    "first");
    for (int f = first_; f < tracked_first_ + static_cast<int>(tracked_.size()); ++f)
        masks.push_back(clone(mask_at(f)->view()));
    return masks;
}

void VideoRemoval::start_fill(const std::filesystem::path& output,
                              const video::VideoInpaintParams& params) {
    if (busy()) throw Error(ErrorCode::InvalidArgument, "a tracking or fill job is running");
    std::vector<Mask> masks = fill_masks();
    if (same_file(output, clip_))
        throw Error(ErrorCode::InvalidArgument,
                    "the output would overwrite the clip: choose another file");
    const int n = end_ - first_;
    job_total_ = 2 * n;
    // The whole clip: to its last frame that decodes (a truncated file's count is not known
    // before); a range: its frames.
    const int first = first_, end = end_ == frames_ ? -1 : end_;
    fill_job_.start([masks = std::move(masks), output, params, clip = clip_, first, end,
                     n](JobControl& control) {
        control.report(0, 2 * n);
        video::InpaintVideoOptions o;
        o.input = clip;
        o.output = output;
        o.params = params;
        o.first = first;
        o.end = end;
        // A file that ends before the frames it announces (tree.avi: 68 of 444) is what the
        // editor shows and tracked: its frames that decode are filled, with a notice.
        o.allow_truncated = true;
        o.masks = masks;
        return video::inpaint_video(o, [&control, n](const video::VideoInpaintProgress& p) {
            return control.report((p.stage == "fill" ? n : 0) + p.done);
        });
    });
    message_.clear();
    fill_result_.reset();
}

void VideoRemoval::start_preview(const int frame, const video::VideoInpaintParams& params) {
    if (busy()) throw Error(ErrorCode::InvalidArgument, "a tracking or fill job is running");
    if (frame < first_ || frame >= end_)
        throw Error(ErrorCode::InvalidArgument,
                    "frame " + std::to_string(frame + 1) + " is outside the range " +
                        std::to_string(first_ + 1) + "–" + std::to_string(end_));
    std::vector<Mask> masks = fill_masks();
    running_preview_key_ = {key_serial_, tracked_serial_, still_, first_, end_, params};
    const int first = first_, end = end_;
    const int n = end - first;
    job_total_ = 3 * n;  // decoding, then the shot's flow and fill (the total shrinks to it)
    preview_job_.start([masks = std::move(masks), params, clip = clip_, first, end, frame,
                        n](JobControl& control) {
        const auto start = std::chrono::steady_clock::now();
        control.report(0, 3 * n);
        PreviewResult result;
        std::vector<ImageRgba8> frames =
            decode_range(clip, first, end, control, result.clip_frames);
        const int decoded = static_cast<int>(frames.size());
        if (frame - first >= decoded)
            throw Error(ErrorCode::InvalidArgument,
                        "frame " + std::to_string(frame + 1) + " is past the clip's end");
        if (masks.size() != 1 && static_cast<int>(masks.size()) != decoded)
            throw Error(ErrorCode::InvalidArgument,
                        "the masks do not cover the range: track again");
        // The shots exactly as inpaint_frames finds them (its measure, its threshold).
        int s = 0, e = decoded;
        for (int t = 1; t < decoded; ++t)
            if (ops::mean_luma_difference(frames[t - 1].view(), frames[t].view()) >
                params.cut_threshold) {
                result.cuts.push_back(first + t);
                if (t <= frame - first) s = t;
                if (t > frame - first && e == decoded) e = t;
            }
        // Grown as inpaint_video grows them, over the shot only.
        std::vector<Mask> shot_masks;
        std::int64_t selected_pixels = 0;
        for (int t = s; t < e; ++t) {
            if (masks.size() == 1 && t > s) break;
            const Mask& m = masks[masks.size() == 1 ? 0 : static_cast<std::size_t>(t)];
            shot_masks.push_back(params.fill.mask_grow != 0
                                     ? grow_mask(m.view(), params.fill.mask_grow)
                                     : clone(m.view()));
            selected_pixels += count_selected(shot_masks.back().view());
        }
        std::vector<ImageRgba8> shot(std::make_move_iterator(frames.begin() + s),
                                     std::make_move_iterator(frames.begin() + e));
        frames.clear();
        result.first = first + s;
        const int base = decoded;
        control.report(base, base + 2 * (e - s));
        if (selected_pixels == 0) {
            result.nothing_to_fill = true;  // the frames as they are: nothing to remove there
            result.frames = std::move(shot);
        } else {
            result.frames = video::inpaint_frames(
                shot, shot_masks, params, &result.stats,
                [&control, base, len = e - s](const video::VideoInpaintProgress& p) {
                    return control.report(base + (p.stage == "fill" ? len : 0) + p.done);
                });
        }
        result.seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return result;
    });
    message_.clear();
}

bool VideoRemoval::preview_current() const {
    return preview_.has_value() && preview_key_.key_serial == key_serial_ &&
           preview_key_.tracked_serial == tracked_serial_ && preview_key_.still == still_ &&
           preview_key_.first == first_ && preview_key_.end == end_;
}

const ImageRgba8* VideoRemoval::preview_at(const int frame) const {
    if (!preview_current()) return nullptr;
    const int i = frame - preview_->first;
    if (i < 0 || i >= static_cast<int>(preview_->frames.size())) return nullptr;
    return &preview_->frames[static_cast<std::size_t>(i)];
}

const ImageRgba8* VideoRemoval::preview_at(const int frame,
                                           const video::VideoInpaintParams& params) const {
    return preview_current() && same_params(preview_key_.params, params) ? preview_at(frame)
                                                                         : nullptr;
}

bool VideoRemoval::drop_stale_preview(const video::VideoInpaintParams& params) {
    if (!preview_ || (preview_current() && same_params(preview_key_.params, params))) return false;
    preview_.reset();
    ++preview_serial_;
    return true;
}

std::pair<int, int> VideoRemoval::preview_shot() const {
    if (!preview_) return {0, 0};
    return {preview_->first, preview_->first + static_cast<int>(preview_->frames.size())};
}

void VideoRemoval::cancel() {
    track_job_.cancel();
    fill_job_.cancel();
    preview_job_.cancel();
}

int VideoRemoval::done() const {
    return track_job_.started()  ? track_job_.done()
           : fill_job_.started() ? fill_job_.done()
                                 : preview_job_.done();
}

int VideoRemoval::total() const {
    // A Track's total shrinks when the file ends inside the range, the preview's to its shot
    // once the shot is known.
    if (track_job_.started() && track_job_.total() > 0) return track_job_.total();
    if (preview_job_.started() && preview_job_.total() > 0) return preview_job_.total();
    return busy() ? job_total_ : 0;
}

bool VideoRemoval::poll() {
    if (!track_job_.finished() && !fill_job_.finished() && !preview_job_.finished()) return false;
    finish(track_job_.take(), fill_job_.take(), preview_job_.take());
    return true;
}

void VideoRemoval::wait() {
    finish(track_job_.wait(), fill_job_.wait(), preview_job_.wait());
}

void VideoRemoval::clip_ends_at(const int clip_frames) {
    if (clip_frames < 1 || clip_frames >= frames_) return;
    frames_ = clip_frames;
    end_ = std::min(end_, frames_);
    first_ = std::min(first_, end_ - 1);
}

void VideoRemoval::finish(std::optional<JobOutcome<TrackResult>> track,
                          std::optional<JobOutcome<video::InpaintVideoResult>> fill,
                          std::optional<JobOutcome<PreviewResult>> preview) {
    if (track) {
        if (track->ok()) {
            TrackResult& r = *track->value;
            // The flows stay with the range: a correction re-tracks without them.
            const bool new_tracker = r.tracker != tracker_;
            tracker_ = std::move(r.tracker);
            tracked_ = std::move(r.masks);
            tracked_first_ = r.first;
            clip_ends_at(r.clip_frames);
            if (new_tracker) {
                tracker_first_ = r.first;
                tracker_end_ = r.first + static_cast<int>(tracked_.size());
            }
            // A file that ended inside the range: the range is what decodes.
            end_ = std::min(end_, tracked_first_ + static_cast<int>(tracked_.size()));
            tracked_keys_ = std::move(r.keys);
            tracked_serial_ = running_serial_;
            track_stats_ = r.stats;
            cuts_.clear();
            for (const int c : r.stats.cuts) cuts_.push_back(tracked_first_ + c);
            message_ = "Tracked " + std::to_string(tracked_.size()) + " frames from " +
                       std::to_string(tracked_keys_.size()) + " key frame(s).";
            if (!cuts_.empty()) {
                std::string at;
                for (const int c : cuts_) at += (at.empty() ? "" : ", ") + std::to_string(c + 1);
                message_ += " Scene cut(s) before frame(s) " + at + ": the mask stops there.";
            }
            if (r.stats.empty_frames > 0)
                message_ += " No mask on frame(s) " + empty_runs(tracked_, tracked_first_) +
                            " (no key frame in their shot: paint one there).";
        } else if (track->cancelled) {
            message_ = "Tracking cancelled: the masks are as they were.";
        } else {
            message_ = "Tracking failed: " + track->error;
        }
    }
    if (fill) {
        if (fill->ok()) {
            fill_result_ = std::move(*fill->value);
            const video::InpaintVideoResult& r = *fill_result_;
            char line[200];
            std::snprintf(line, sizeof line, "Filled and wrote %d frames in %.1f s (%.2f fps).",
                          r.frames, r.seconds, r.seconds > 0 ? r.frames / r.seconds : 0.0);
            message_ = line;
            for (const std::string& notice : r.notices) message_ += " " + notice;
        } else if (fill->cancelled) {
            message_ = "Fill cancelled: nothing was written.";
        } else {
            message_ = "Fill failed: " + fill->error;
        }
    }
    if (preview) {
        if (preview->ok()) {
            preview_ = std::move(*preview->value);
            preview_key_ = std::move(running_preview_key_);
            ++preview_serial_;
            clip_ends_at(preview_->clip_frames);
            cuts_ = preview_->cuts;
            const int a = preview_->first, b = a + static_cast<int>(preview_->frames.size());
            char line[240];
            if (preview_->nothing_to_fill)
                std::snprintf(line, sizeof line,
                              "Preview: frames %d–%d (the shot) have no mask: nothing to fill.",
                              a + 1, b);
            else
                std::snprintf(line, sizeof line,
                              "Preview of frames %d–%d (the shot, as Fill & Export fills it) "
                              "in %.1f s.",
                              a + 1, b, preview_->seconds);
            message_ = line;
        } else if (preview->cancelled) {
            message_ = "Preview cancelled.";
        } else {
            message_ = "Preview failed: " + preview->error;
        }
    }
}

}  // namespace lacuna::session
