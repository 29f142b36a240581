// The video pipeline: reader thread → bounded queue → carver (calling thread) → bounded queue →
// writer thread. Errors in any stage stop the others and are rethrown here; nothing is left under
// the output's name unless every frame was written.
#include <lacuna/core/error.hpp>
#include <lacuna/core/parallel.hpp>
#include <lacuna/io/video_io.hpp>
#include <lacuna/ops/face_tracks.hpp>
#include <lacuna/ops/importance.hpp>
#include <lacuna/video/importance_smoothing.hpp>
#include <lacuna/video/retarget_video.hpp>

#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

namespace lacuna::video {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(const Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

/// A queue of at most `capacity` items; close() wakes everyone (pop returns nullopt once empty,
/// push returns false). A stage that fails or is cancelled closes both queues.
template <class T>
class BoundedQueue {
  public:
    explicit BoundedQueue(const std::size_t capacity) : capacity_(capacity) {}

    bool push(T item) {
        std::unique_lock lock(mutex_);
        not_full_.wait(lock, [&] { return closed_ || items_.size() < capacity_; });
        if (closed_) return false;
        items_.push_back(std::move(item));
        not_empty_.notify_one();
        return true;
    }
    std::optional<T> pop() {
        std::unique_lock lock(mutex_);
        not_empty_.wait(lock, [&] { return closed_ || !items_.empty() || finished_; });
        if (items_.empty()) return std::nullopt;
        T item = std::move(items_.front());
        items_.pop_front();
        not_full_.notify_one();
        return item;
    }
    /// The producer is done: pop drains what is left, then returns nullopt.
    void finish() {
        std::lock_guard lock(mutex_);
        finished_ = true;
        not_empty_.notify_all();
    }
    /// Abandon: producers and consumers stop at once.
    void close() {
        std::lock_guard lock(mutex_);
        closed_ = true;
        items_.clear();
        not_empty_.notify_all();
        not_full_.notify_all();
    }

  private:
    std::mutex mutex_;
    std::condition_variable not_empty_, not_full_;
    std::deque<T> items_;
    std::size_t capacity_;
    bool closed_ = false, finished_ = false;
};

/// The first exception of any stage.
class FirstError {
  public:
    void set(std::exception_ptr e) {
        std::lock_guard lock(mutex_);
        if (!error_) error_ = std::move(e);
    }
    void rethrow() {
        std::lock_guard lock(mutex_);
        if (error_) std::rethrow_exception(error_);
    }

  private:
    std::mutex mutex_;
    std::exception_ptr error_;
};

/// The first pass of faces over a clip, frame by frame: cuts as the carver finds them, the
/// detector on each shot's first frame and every `every`-th frame, then the tracks.
class FacePass {
  public:
    FacePass(const int every, const int detect_max_side, const double cut_threshold)
        : every_(every), side_(detect_max_side), threshold_(cut_threshold) {
        if (every < 1)
            throw Error(ErrorCode::InvalidArgument,
                        "faces are detected on every 1st frame or fewer, not every " +
                            std::to_string(every));
        if (detect_max_side < 64)
            throw Error(ErrorCode::InvalidArgument,
                        "the detection size must be at least 64 pixels, not " +
                            std::to_string(detect_max_side));
        if (!(cut_threshold >= 0))
            throw Error(ErrorCode::InvalidArgument, "the cut threshold must be 0 or more");
    }
    void add(const ImageView<const Rgba8> frame) {
        ops::FrameFaces f;
        f.cut = previous_ && ops::mean_luma_difference(previous_->view(), frame) > threshold_;
        if (f.cut) {
            ++out_.cuts;
            since_shot_ = 0;
        }
        f.examined = since_shot_ % every_ == 0;
        previous_ = clone(frame);
        // The detector runs on a batch of examined frames at once, a frame per core (its
        // cascades are per thread): detections are independent, only cuts need the order.
        if (f.examined) pending_.push_back({frames_.size(), clone(frame)});
        frames_.push_back(std::move(f));
        ++since_shot_;
        if (pending_.size() >= batch_) detect_pending();
    }
    VideoFaceTracks finish(const ops::FaceTrackParams& params) {
        detect_pending();
        out_.frames = static_cast<int>(frames_.size());
        const auto t = Clock::now();
        out_.tracks = ops::track_faces(frames_, params);
        out_.track_seconds = seconds_since(t);
        return std::move(out_);
    }

  private:
    struct Pending {
        std::size_t frame;
        ImageRgba8 image;
    };
    void detect_pending() {
        if (pending_.empty()) return;
        const auto t = Clock::now();
        std::vector<std::vector<std::string>> notes(pending_.size());
        parallel_chunks(static_cast<int>(pending_.size()), [&](const int i0, const int i1, int) {
            for (int i = i0; i < i1; ++i) {
                const auto k = static_cast<std::size_t>(i);
                frames_[pending_[k].frame].faces =
                    ops::detect_faces(pending_[k].image.view(), side_, &notes[k]);
            }
        });
        out_.detect_seconds += seconds_since(t);
        for (std::size_t k = 0; k < pending_.size(); ++k) {
            ++out_.examined;
            out_.detections += static_cast<int>(frames_[pending_[k].frame].faces.size());
            if (out_.notes.empty() && !notes[k].empty()) out_.notes = notes[k];
        }
        pending_.clear();
    }

  private:
    int every_, side_;
    double threshold_;
    std::optional<ImageRgba8> previous_;
    std::vector<ops::FrameFaces> frames_;
    std::vector<Pending> pending_;
    std::size_t batch_ = 2 * static_cast<std::size_t>(std::max(1u, worker_count()));
    int since_shot_ = 0;
    VideoFaceTracks out_;
};

}  // namespace

VideoFaceTracks video_face_tracks(const std::filesystem::path& input, const int every,
                                  const int detect_max_side, const double cut_threshold,
                                  const ops::FaceTrackParams& tracks, const int max_frames,
                                  const bool allow_truncated,
                                  const std::function<bool(int, int)>& progress) {
    const auto start = Clock::now();
    FacePass pass(every, detect_max_side, cut_threshold);
    io::VideoReader reader(input);
    const int total = max_frames > 0 && reader.info().frame_count > 0
                          ? std::min(max_frames, reader.info().frame_count)
                          : std::max(max_frames, reader.info().frame_count);
    for (int n = 0; max_frames <= 0 || n < max_frames; ++n) {
        const std::optional<ImageRgba8> frame = reader.next();
        if (!frame) break;
        pass.add(frame->view());
        if (progress && !progress(n + 1, total))
            throw Error(ErrorCode::Cancelled, "the face pass was cancelled");
    }
    if (reader.ended_early() && !allow_truncated)
        throw Error(ErrorCode::Corrupt,
                    "'" + input.string() + "' ends after " + std::to_string(reader.frames_read()) +
                        " frames of the " + std::to_string(reader.info().frame_count) +
                        " it announces: the file is truncated or damaged");
    VideoFaceTracks out = pass.finish(tracks);
    out.seconds = seconds_since(start);
    return out;
}

VideoFaceTracks video_face_tracks(const std::vector<ImageView<const Rgba8>>& frames,
                                  const int every, const int detect_max_side,
                                  const double cut_threshold, const ops::FaceTrackParams& tracks) {
    const auto start = Clock::now();
    FacePass pass(every, detect_max_side, cut_threshold);
    for (const ImageView<const Rgba8>& frame : frames) pass.add(frame);
    VideoFaceTracks out = pass.finish(tracks);
    out.seconds = seconds_since(start);
    return out;
}

RetargetVideoResult retarget_video(const RetargetVideoOptions& options,
                                   const VideoProgressFn& progress) {
    // Every frame allocates images of several MB (frames, seam orders, distance maps). Above
    // glibc's default threshold each would be a fresh mmap: page-faulted in and zeroed by the
    // kernel on every frame (a sixth of an approximate carve's time here). Keeping such blocks
    // in the heap lets the next frame reuse them.
    static std::once_flag heap_tuned;
    std::call_once(heap_tuned, [] {
        mallopt(M_MMAP_THRESHOLD, 256 << 20);
        mallopt(M_TRIM_THRESHOLD, 512 << 20);
    });
    const auto start = Clock::now();
    io::VideoReader reader(options.input);
    const io::VideoInfo info = reader.info();
    RetargetVideoResult result;
    result.width = info.width;
    result.height = info.height;
    result.fps = info.fps;
    result.input_codec = info.codec;
    const ops::ImportanceParams& imp = options.importance;
    ops::check_importance(imp);
    const bool importance = ops::any_importance(imp);
    const ops::CarveImplementation implementation = options.implementation;
    ops::VideoRetargeter carver(info.width, info.height, options.params, implementation);
    result.out_width = options.params.width;
    result.out_height = options.params.height;
    result.backend = implementation == ops::CarveImplementation::Cuda ? "cuda" : "cpu";
    // Faces: a first pass over the clip (detections need the frames after a frame to be
    // smoothed and bridged), small enough to keep (boxes per frame).
    ops::FaceTracks tracks;
    // Saliency, lines and skin: filtered along the motion within each shot, as the frames come.
    std::optional<ImportanceSmoother> smoother;
    if (importance) {
        ImportanceSmoothingParams sp;
        sp.window = options.params.importance_window;
        sp.cut_threshold = options.params.cut_threshold;
        smoother.emplace(imp, sp);
    }
    if (importance) {
        if (imp.faces && imp.face_weight > 0) result.importance_terms.push_back("faces");
        if (imp.saliency && imp.saliency_weight > 0) result.importance_terms.push_back("saliency");
        if (imp.lines && imp.line_weight > 0) result.importance_terms.push_back("lines");
        if (imp.skin && imp.skin_weight > 0) result.importance_terms.push_back("skin");
    }
    if (importance && imp.faces && imp.face_weight > 0) {
        VideoFaceTracks pass =
            video_face_tracks(options.input, options.params.face_every, imp.detect_max_side,
                              options.params.cut_threshold, options.tracks, options.max_frames,
                              options.allow_truncated);
        for (const std::string& n : pass.notes) result.notices.push_back(n);
        result.face_tracks = static_cast<int>(pass.tracks.tracks.size());
        result.faces_examined_frames = pass.examined;
        result.face_detections = pass.detections;
        result.face_pass_seconds = pass.seconds;
        result.face_detect_seconds = pass.detect_seconds;
        tracks = std::move(pass.tracks);
    }
    // A container without a frame rate (some AVI and MKV files) is written at the sequence rate.
    if (!(result.fps > 0)) {
        result.fps = io::VideoReader::kSequenceFps;
        result.notices.push_back("the input has no frame rate: writing " +
                                 std::to_string(static_cast<int>(result.fps)) + " fps");
    }
    io::VideoWriter writer(options.output, result.out_width, result.out_height, result.fps);
    result.output_codec = writer.codec();
    // The whole clip's sound, unless cut short below; or none, as asked.
    const bool audio = options.carry_audio;
    writer.carry_audio(audio ? options.input : std::filesystem::path());

    // Frames carved side by side (device or CPU threads) come and go in groups: each queue holds
    // two groups, so decoding and encoding keep up while a group is carved.
    const int group = carver.frames_in_flight();
    const std::size_t depth =
        static_cast<std::size_t>(std::max({1, options.queue_frames, 2 * group}));
    BoundedQueue<ImageRgba8> decoded(depth), carved(depth);
    FirstError error;
    std::atomic<double> decode_seconds{0}, encode_seconds{0};
    std::atomic<int> written{0};

    std::thread read_thread([&] {
        try {
            for (int n = 0; options.max_frames <= 0 || n < options.max_frames; ++n) {
                const auto t = Clock::now();
                std::optional<ImageRgba8> frame = reader.next();
                decode_seconds = decode_seconds + seconds_since(t);
                if (!frame) break;
                if (!decoded.push(std::move(*frame))) return;
            }
            decoded.finish();
        } catch (...) {
            error.set(std::current_exception());
            decoded.close();
            carved.close();
        }
    });
    std::thread write_thread([&] {
        try {
            while (std::optional<ImageRgba8> frame = carved.pop()) {
                const auto t = Clock::now();
                writer.write(*frame);
                encode_seconds = encode_seconds + seconds_since(t);
                ++written;
            }
        } catch (...) {
            error.set(std::current_exception());
            decoded.close();
            carved.close();
        }
    });
    // Joins both threads on every way out of this function (an exception included).
    struct Joiner {
        std::thread& a;
        std::thread& b;
        BoundedQueue<ImageRgba8>& q1;
        BoundedQueue<ImageRgba8>& q2;
        bool done = false;
        ~Joiner() {
            if (!done) {
                q1.close();
                q2.close();
            }
            if (a.joinable()) a.join();
            if (b.joinable()) b.join();
        }
    } joiner{read_thread, write_thread, decoded, carved};

    ops::FlickerMeter meter;
    double carve_seconds = 0;
    int frames = 0;
    bool stopped = false;
    while (!stopped) {
        std::vector<ImageRgba8> inputs;
        while (static_cast<int>(inputs.size()) < group) {
            std::optional<ImageRgba8> frame = decoded.pop();
            if (!frame) break;
            inputs.push_back(std::move(*frame));
        }
        if (inputs.empty()) break;
        std::vector<ImageView<const Rgba8>> views;
        for (const ImageRgba8& frame : inputs) views.push_back(frame.view());
        const auto t = Clock::now();
        // Each frame's importance: its tracked faces (none beyond the first pass's frames) and
        // the other terms smoothed over the shot (in frame order: the filter is recursive).
        std::vector<Mask> maps;
        std::vector<const Mask*> map_of;
        if (importance) {
            const auto tm = Clock::now();
            static const std::vector<ops::FaceBox> kNoFaces;
            for (std::size_t i = 0; i < views.size(); ++i) {
                const std::size_t f = static_cast<std::size_t>(frames) + i;
                const std::vector<ops::FaceBox>& faces =
                    f < tracks.per_frame.size() ? tracks.per_frame[f] : kNoFaces;
                maps.push_back(smoother->next(views[i], faces));
            }
            for (const Mask& m : maps) map_of.push_back(&m);
            result.importance_map_seconds += seconds_since(tm);
        }
        std::vector<ImageRgba8> outputs;
        try {
            outputs = carver.process_batch(views, map_of);
        } catch (const Error& e) {
            if (e.code() == ErrorCode::Cancelled ||
                implementation != ops::CarveImplementation::Cuda || result.backend != "cuda")
                throw;
            // The device failed: the CPU carver goes on with the same state (a group that failed
            // left it as it was).
            result.notices.push_back(std::string("CUDA failed (") + e.what() +
                                     "): the CPU carved the rest of the video");
            result.backend = "cpu";
            carver.set_implementation(ops::CarveImplementation::Fast);
            outputs = carver.process_batch(views, map_of);
        }
        carve_seconds += seconds_since(t);
        for (std::size_t i = 0; i < outputs.size(); ++i) {
            if (options.measure_flicker) meter.add(views[i], outputs[i].view());
            if (!carved.push(std::move(outputs[i]))) {
                stopped = true;
                break;
            }
            ++frames;
            if (progress) {
                VideoProgress p;
                p.frame = frames;
                p.total = info.frame_count;
                const double elapsed = seconds_since(start);
                p.fps = elapsed > 0 ? frames / elapsed : 0;
                if (info.frame_count > 0 && p.fps > 0)
                    p.seconds_left = std::max(0, info.frame_count - frames) / p.fps;
                if (!progress(p)) {
                    decoded.close();
                    carved.close();
                    throw Error(ErrorCode::Cancelled, "video export cancelled");
                }
            }
        }
    }
    carved.finish();
    joiner.done = true;
    read_thread.join();
    write_thread.join();
    error.rethrow();
    if (frames == 0) throw Error(ErrorCode::EmptyImage, "the video has no frames");
    if (reader.ended_early() && !options.allow_truncated)
        throw Error(ErrorCode::Corrupt,
                    "'" + options.input.string() + "' ends after " +
                        std::to_string(reader.frames_read()) + " of the " +
                        std::to_string(info.frame_count) +
                        " frames it announces: the file is truncated or damaged; nothing was "
                        "written (--keep-truncated retargets the frames that decode)");
    // Fewer frames than the clip's (a truncated file, max_frames): the sound of those alone.
    if (audio && (reader.ended_early() || (options.max_frames > 0 && frames >= options.max_frames)))
        writer.carry_audio(options.input, 0, false);
    writer.finish();
    result.frames = frames;
    result.cuts = carver.cuts();
    result.flicker_excess = meter.excess();
    if (smoother) result.importance_smooth_seconds = smoother->flow_seconds();
    result.decode_seconds = decode_seconds;
    result.encode_seconds = encode_seconds;
    result.carve_seconds = carve_seconds;
    if (!reader.warning().empty()) result.notices.push_back(reader.warning());
    for (const std::string& n : writer.notices()) result.notices.push_back(n);
    result.audio = writer.audio();
    result.audio_left_out = writer.audio_left_out();
    result.seconds = seconds_since(start);
    return result;
}

}  // namespace lacuna::video
