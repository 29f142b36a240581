#include "video_removal.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/io/video_io.hpp>

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

ImageRgba8 mask_image(const Mask& mask) {
    ImageRgba8 image(mask.width(), mask.height());
    for (int y = 0; y < mask.height(); ++y) {
        const std::uint8_t* in = mask.row(y);
        Rgba8* out = image.row(y);
        for (int x = 0; x < mask.width(); ++x) out[x] = {in[x], in[x], in[x], 255};
    }
    return image;
}

/// A folder of its own under the system's temporary directory, removed with everything in it
/// when the fill is done (the masks are handed to inpaint_video as a PNG sequence).
class TempFolder {
  public:
    TempFolder() {
        std::random_device device;
        const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
        for (int attempt = 0; attempt < 16; ++attempt) {
            path_ =
                std::filesystem::temp_directory_path() /
                ("lacuna-video-masks-" + std::to_string(stamp) + "-" + std::to_string(device()));
            std::error_code ec;
            if (std::filesystem::create_directory(path_, ec)) return;
        }
        throw Error(ErrorCode::WriteFailed, "cannot create a temporary folder for the masks");
    }
    ~TempFolder() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    TempFolder(const TempFolder&) = delete;
    TempFolder& operator=(const TempFolder&) = delete;
    [[nodiscard]] const std::filesystem::path& path() const { return path_; }

  private:
    std::filesystem::path path_;
};

bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) {
    std::error_code ea, eb;
    const auto ca = std::filesystem::weakly_canonical(a, ea);
    const auto cb = std::filesystem::weakly_canonical(b, eb);
    return !ea && !eb ? ca == cb : a == b;
}

}  // namespace

VideoRemoval::VideoRemoval(std::filesystem::path clip, const int frames, const int width,
                           const int height)
    : clip_(std::move(clip)), frames_(frames), width_(width), height_(height) {
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

const Mask* VideoRemoval::mask_at(const int frame) const {
    if (frame < 0 || frame >= frames_) return nullptr;
    if (still_) return keys_.empty() ? nullptr : &keys_.begin()->second;
    if (const auto it = keys_.find(frame); it != keys_.end()) return &it->second;
    if (static_cast<int>(tracked_.size()) > frame)
        return &tracked_[static_cast<std::size_t>(frame)];
    return nullptr;
}

bool VideoRemoval::needs_track() const {
    return !still_ && !keys_.empty() && (tracked_.empty() || tracked_serial_ != key_serial_);
}

void VideoRemoval::start_track(const video::MaskTrackParams& params) {
    if (busy()) throw Error(ErrorCode::InvalidArgument, "a tracking or fill job is running");
    if (still_)
        throw Error(ErrorCode::InvalidArgument,
                    "a still mask is the same on every frame: there is nothing to track");
    if (keys_.empty())
        throw Error(ErrorCode::InvalidArgument,
                    "paint the object on a frame first (it becomes a key frame)");
    std::vector<video::KeyMask> keys;
    for (const auto& [frame, mask] : keys_) keys.push_back({frame, clone(mask.view())});
    running_serial_ = key_serial_;
    const int n = frames_;
    job_total_ = tracker_ ? n : 3 * n - 1;
    track_job_.start(
        [keys = std::move(keys), params, tracker = tracker_, clip = clip_, n](JobControl& control) {
            TrackResult result;
            for (const video::KeyMask& k : keys) result.keys.push_back(k.frame);
            // Stages on one bar: decoding (n), flow (n − 1 pairs), tracking (n), the first two
            // only the first time.
            const int before = tracker ? 0 : 2 * n - 1;
            control.report(0, before + n);
            result.tracker = tracker;
            if (!result.tracker) {
                std::vector<ImageRgba8> frames;
                io::VideoReader reader(clip);
                while (std::optional<ImageRgba8> frame = reader.next()) {
                    frames.push_back(std::move(*frame));
                    if (!control.report(static_cast<int>(frames.size())))
                        throw Error(ErrorCode::Cancelled, "cancelled");
                }
                if (frames.empty()) throw Error(ErrorCode::EmptyImage, "the video has no frames");
                const int decoded = static_cast<int>(frames.size());
                result.tracker = std::make_shared<const video::MaskTracker>(
                    frames, [&control, decoded](const video::MaskTrackProgress& p) {
                        return control.report(decoded + p.done);
                    });
            }
            result.masks = result.tracker->track(
                keys, params, &result.stats, [&control, before](const video::MaskTrackProgress& p) {
                    return control.report(before + p.done);
                });
            return result;
        });
    message_.clear();
}

void VideoRemoval::start_fill(const std::filesystem::path& output,
                              const video::VideoInpaintParams& params) {
    if (busy()) throw Error(ErrorCode::InvalidArgument, "a tracking or fill job is running");
    if (keys_.empty()) throw Error(ErrorCode::InvalidArgument, "paint the object on a frame first");
    if (!still_ && tracked_.empty())
        throw Error(ErrorCode::InvalidArgument, "track the mask first (Track)");
    if (needs_track())
        throw Error(ErrorCode::InvalidArgument,
                    "the key frames changed since the last tracking: track again first");
    if (same_file(output, clip_))
        throw Error(ErrorCode::InvalidArgument,
                    "the output would overwrite the clip: choose another file");
    std::vector<Mask> masks;
    if (still_)
        masks.push_back(clone(keys_.begin()->second.view()));
    else
        for (int f = 0; f < frames_; ++f) masks.push_back(clone(mask_at(f)->view()));
    const int n = frames_;
    job_total_ = 2 * n;
    fill_job_.start(
        [masks = std::move(masks), output, params, clip = clip_, n](JobControl& control) {
            control.report(0, 2 * n);
            const TempFolder folder;
            video::InpaintVideoOptions o;
            o.input = clip;
            o.output = output;
            o.params = params;
            // A file that ends before the frames it announces (tree.avi: 68 of 444) is what the
            // editor shows and tracked: its frames that decode are filled, with a notice.
            o.allow_truncated = true;
            if (masks.size() == 1) {
                o.mask = folder.path() / "still.png";
                (void)io::write_image(o.mask, mask_image(masks[0]).view());
            } else {
                for (std::size_t f = 0; f < masks.size(); ++f)
                    (void)io::write_image(
                        io::sequence_frame_path(folder.path() / "%05d.png", static_cast<int>(f)),
                        mask_image(masks[f]).view());
                o.mask = folder.path() / "%05d.png";
            }
            return video::inpaint_video(o, [&control, n](const video::VideoInpaintProgress& p) {
                return control.report((p.stage == "fill" ? n : 0) + p.done);
            });
        });
    message_.clear();
    fill_result_.reset();
}

void VideoRemoval::cancel() {
    track_job_.cancel();
    fill_job_.cancel();
}

int VideoRemoval::done() const {
    return track_job_.started() ? track_job_.done() : fill_job_.done();
}

int VideoRemoval::total() const {
    return busy() ? job_total_ : 0;
}

bool VideoRemoval::poll() {
    if (!track_job_.finished() && !fill_job_.finished()) return false;
    finish(track_job_.take(), fill_job_.take());
    return true;
}

void VideoRemoval::wait() {
    finish(track_job_.wait(), fill_job_.wait());
}

void VideoRemoval::finish(std::optional<JobOutcome<TrackResult>> track,
                          std::optional<JobOutcome<video::InpaintVideoResult>> fill) {
    if (track) {
        if (track->ok()) {
            TrackResult& r = *track->value;
            // The flows stay with the clip: a correction re-tracks without them.
            tracker_ = std::move(r.tracker);
            tracked_ = std::move(r.masks);
            frames_ = static_cast<int>(tracked_.size());
            tracked_keys_ = std::move(r.keys);
            tracked_serial_ = running_serial_;
            track_stats_ = r.stats;
            message_ = "Tracked " + std::to_string(tracked_.size()) + " frames from " +
                       std::to_string(tracked_keys_.size()) + " key frame(s).";
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
}

}  // namespace lacuna::session
