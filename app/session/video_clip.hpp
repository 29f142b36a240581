// A video opened in the editor: its frames on demand (the current one decoded, earlier ones by
// reopening and reading forward: decoders seek to key frames only), its time code, and the
// export of the whole clip through the retarget pipeline. Qt-free, so the session tests drive it.
#pragma once

#include <lacuna/core/image.hpp>
#include <lacuna/io/video_io.hpp>
#include <lacuna/video/retarget_video.hpp>

#include <filesystem>
#include <memory>
#include <string>

namespace lacuna::session {

class VideoClip {
  public:
    /// Opens the clip and decodes frame 0. Throws lacuna::Error as io::VideoReader does.
    explicit VideoClip(std::filesystem::path path);

    [[nodiscard]] const std::filesystem::path& path() const { return path_; }
    [[nodiscard]] const io::VideoInfo& info() const { return info_; }
    /// Frames the clip has: the container's count, or what has been decoded when that is all
    /// there is (a truncated file).
    [[nodiscard]] int frame_count() const { return frame_count_; }
    [[nodiscard]] int current() const { return current_; }
    [[nodiscard]] const ImageRgba8& current_frame() const { return frame_; }

    /// Frame `index` (clamped to the clip): forward from the current one, or from the start.
    /// A clip that ends before its announced count shrinks frame_count() to what decodes.
    const ImageRgba8& seek(int index);

    /// "00:01.12 · frame 28 of 90": minutes, seconds and the frame within the second.
    [[nodiscard]] std::string time_code(int index) const;

  private:
    void reopen();

    std::filesystem::path path_;
    std::unique_ptr<io::VideoReader> reader_;
    io::VideoInfo info_;
    int frame_count_ = 0;
    int current_ = 0;
    ImageRgba8 frame_;
};

}  // namespace lacuna::session
