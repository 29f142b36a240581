// The exported frame t of a clip, for the Retarget panel's preview: with a temporal weight above
// 0 Export Video carves frame t with a term from frame t − 1's seams, chained from the shot's
// first frame (a cut restarts it), so frame t's picture depends on every frame before it in its
// shot and on the target. A preview of the frame alone picks other seams wherever seams are
// equally cheap; this runs the export's own carver (ops::VideoRetargeter with the export's
// options and each frame's map from ClipImportance, the export's maps) over the shot's frames up
// to t and gives frame t as the export writes it.
//
// Computed on the caller's thread (the retarget tool's background job), one call at a time. The
// chain's state is kept: the carver after the last frame it carved and where the clip's reader
// stands, so the next frame at the same target costs one frame; the carved frames of that
// target are cached (a byte budget, the frames farthest from the one asked for go first), so
// stepping back to one is free. The cuts the reader has seen are kept too: a frame behind the
// carver starts from its shot's first frame when the cut is known (else from the last known
// one: the carver finds the cuts after it itself, as the export's does).
#pragma once

#include "clip_importance.hpp"

#include <lacuna/core/image.hpp>
#include <lacuna/ops/video_retarget.hpp>
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

namespace lacuna::io {
class VideoReader;
}

namespace lacuna::session {

class ExportChain {
  public:
    /// `cache_bytes`: how much the carved frames of the current target may hold.
    explicit ExportChain(std::filesystem::path input,
                         std::size_t cache_bytes = std::size_t{64} << 20);
    ~ExportChain();
    ExportChain(const ExportChain&) = delete;
    ExportChain& operator=(const ExportChain&) = delete;

    [[nodiscard]] const std::filesystem::path& input() const { return input_; }

    /// Hears the frames carved so far of those this call carves; false cancels (Error(Cancelled);
    /// the frames carved are kept, the chain goes on from them next time).
    using Progress = std::function<bool(int done, int total)>;

    /// Whether the export's frame `index` can differ from the preview of the frame alone (the
    /// exact seams of its own map): a temporal weight above 0 on a frame that is not known to
    /// start a shot, or approximate seams. Never waits (cuts not seen yet count as none).
    [[nodiscard]] bool differs_from_single_frame(const video::RetargetVideoOptions& options,
                                                 int index) const;

    /// Frame `index` as retarget_video(`options`) writes it (options.params.protect is read
    /// during the call), or nullopt when the frame starts a shot and the seams are exact: the
    /// export carves it from its own map alone, as the single-frame preview does. `maps`: the
    /// clip's maps with the export's settings (clip_importance_settings(options)), null when no
    /// term is on. Always carved on the host (the fast CPU carver): exact seams are the same on
    /// every carver. Throws Error(Cancelled), InvalidArgument for a frame the clip does not
    /// have, and what reading or carving throws.
    std::optional<ImageRgba8> frame(const video::RetargetVideoOptions& options,
                                    ClipImportance* maps, int index, const Progress& progress = {});

    /// Counters for tests: frames carved, carvers started (at a shot's first frame or the
    /// clip's), frames decoded.
    [[nodiscard]] int frames_carved() const { return frames_carved_; }
    [[nodiscard]] int chains_started() const { return chains_started_; }
    [[nodiscard]] int frames_read() const { return frames_read_; }

  private:
    /// What the carved frames depend on besides the frame: the export's carver options, the
    /// protect mask's pixels and the maps' source.
    struct Key {
        ops::VideoRetargetParams params;
        Mask protect;
        const ClipImportance* maps = nullptr;
        [[nodiscard]] bool same(const video::RetargetVideoOptions& options,
                                const ClipImportance* other_maps) const;
    };
    /// The next frame of the clip, noting whether it starts a shot.
    const ImageRgba8& read();
    void reopen();
    [[nodiscard]] int known_shot_start(int index) const;
    void store(int index, ImageRgba8 frame);

    std::filesystem::path input_;
    std::size_t cache_bytes_;
    std::mutex mutex_;  ///< one frame() at a time
    std::optional<Key> key_;
    std::unique_ptr<io::VideoReader> reader_;
    int next_ = 0;           ///< the frame reader_ gives next
    ImageRgba8 previous_;    ///< frame next_ − 1 (for the cut test)
    double threshold_ = -1;  ///< the cut threshold `cuts_` was found with
    mutable std::mutex cuts_mutex_;
    std::set<int> cuts_{0};  ///< frames known to start a shot
    int scanned_ = 1;        ///< frames 0 .. scanned_ − 1 are known to start a shot or not
    std::unique_ptr<ops::VideoRetargeter> carver_;
    int carved_ = -1;  ///< the last frame carver_ carved
    std::map<int, ImageRgba8> frames_;
    std::size_t cached_bytes_ = 0;
    std::atomic<int> frames_carved_{0}, chains_started_{0}, frames_read_{0};
};

}  // namespace lacuna::session
