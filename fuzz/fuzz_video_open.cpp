// Harness: io::VideoReader on a file (OpenCV's FFmpeg reader, or its image-sequence reader), the
// first few frames and the reader's report. Input: one byte choosing the container (the file's
// extension, or frame 0 of a %d.png / %05d.png sequence), then the file's bytes, written to a
// scratch file because the reader takes a path.
#include "fuzz_input.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/io/video_io.hpp>

#include <array>
#include <string_view>

namespace {

constexpr int kMaxFrames = 3;  // enough to pass the first frame's checks; keeps each input fast

struct Kind {
    std::string_view file;     // what the bytes are written as
    std::string_view pattern;  // what the reader opens ("" = the file itself)
};
constexpr std::array<Kind, 9> kKinds = {{{"clip.mp4", ""},
                                         {"clip.avi", ""},
                                         {"clip.mkv", ""},
                                         {"clip.mov", ""},
                                         {"clip.webm", ""},
                                         {"clip.mpg", ""},
                                         {"clip.m4v", ""},
                                         {"0.png", "%d.png"},
                                         {"00001.png", "%05d.png"}}};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, const std::size_t size) {
    lacuna::fuzz::Input in(data, size);
    const Kind& kind = kKinds[in.byte() % kKinds.size()];
    const std::filesystem::path file =
        lacuna::fuzz::write_scratch(std::string(kind.file), in.rest());
    const std::filesystem::path path =
        kind.pattern.empty() ? file : lacuna::fuzz::scratch_dir() / std::string(kind.pattern);
    try {
        lacuna::io::VideoReader reader(path);
        const lacuna::io::VideoInfo& info = reader.info();
        if (info.width <= 0 || info.height <= 0)
            lacuna::fuzz::violated("opened a video of no size");
        for (int i = 0; i < kMaxFrames; ++i) {
            const auto frame = reader.next();
            if (!frame) break;
            if (frame->width() != info.width || frame->height() != info.height)
                lacuna::fuzz::violated("a frame's size differs from the video's");
        }
        if (reader.frames_read() > kMaxFrames) lacuna::fuzz::violated("frames_read miscounts");
        (void)reader.warning();
    } catch (const lacuna::Error&) {
    }
    std::error_code ignored;
    std::filesystem::remove(file, ignored);
    return 0;
}
