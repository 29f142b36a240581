#include "video_clip.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace lacuna::session {

VideoClip::VideoClip(std::filesystem::path path) : path_(std::move(path)) {
    reopen();
    info_ = reader_->info();
    frame_count_ = std::max(1, info_.frame_count);
}

void VideoClip::reopen() {
    reader_ = std::make_unique<io::VideoReader>(path_);
    std::optional<ImageRgba8> first = reader_->next();
    if (!first) throw Error(ErrorCode::EmptyImage, "the video has no frames");
    frame_ = std::move(*first);
    current_ = 0;
}

const ImageRgba8& VideoClip::seek(const int index) {
    const int target = std::clamp(index, 0, frame_count_ - 1);
    if (target < current_) reopen();
    while (current_ < target) {
        std::optional<ImageRgba8> next = reader_->next();
        if (!next) {  // the file ends early: what decoded is the clip
            frame_count_ = current_ + 1;
            break;
        }
        frame_ = std::move(*next);
        ++current_;
    }
    return frame_;
}

std::string VideoClip::time_code(const int index) const {
    const double fps = info_.fps > 0 ? info_.fps : io::VideoReader::kSequenceFps;
    const int whole = static_cast<int>(std::floor(index / fps));
    const int within = index - static_cast<int>(std::lround(whole * fps));
    char text[96];
    std::snprintf(text, sizeof text, "%02d:%02d.%02d · frame %d of %d", whole / 60, whole % 60,
                  std::max(within, 0), index + 1, frame_count_);
    return text;
}

}  // namespace lacuna::session
