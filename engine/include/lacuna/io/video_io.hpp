// Reading and writing video, frame by frame, through OpenCV's videoio (FFmpeg on Debian). Frames
// are RGBA8 like every other image in Lacuna (alpha 255 when read; dropped when written, since
// the codecs here carry none). Two kinds of "video":
//   - a file in an FFmpeg container: .mp4 .m4v .mov .avi .mkv (.webm .mpg .mpeg read only);
//   - an image sequence: a path whose file name holds one printf integer field, for instance
//     frames/%05d.png for frames/00000.png, frames/00001.png, ... (read from index 0 or 1,
//     written from index 0).
// Audio: OpenCV's videoio reads and writes video only. A writer given the source clip
// (VideoWriter::carry_audio) remuxes the source's audio streams into its output when it finishes
// (audio_remux.hpp: stream copy, the same time span as the frames); otherwise its notices say that
// no audio was copied.
#pragma once

#include <lacuna/core/image.hpp>
#include <lacuna/io/audio_remux.hpp>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lacuna::io {

namespace detail {
// The open file behind a reader or writer; defined in video_io.cpp, so that this header does not
// pull in OpenCV (lacuna_io links it privately).
struct VideoReaderState;
struct VideoWriterState;
}  // namespace detail

/// True for the video extensions above (any case) and for image-sequence patterns.
bool is_video_path(const std::filesystem::path& path);

/// True if the file name (not the directories) holds exactly one printf integer field, %d or
/// zero-padded %05d (what OpenCV's image-sequence reader understands; %5d and %s are not).
bool is_image_sequence_pattern(const std::filesystem::path& path);

/// `pattern` with its printf field replaced by `index` ("frames/%05d.png", 7 → "frames/00007.png").
/// Throws InvalidArgument if `pattern` is not an image-sequence pattern.
std::filesystem::path sequence_frame_path(const std::filesystem::path& pattern, int index);

struct VideoInfo {
    int width = 0;
    int height = 0;
    double fps = 0;       ///< as the file says; an image sequence has none: the reader's default
    int frame_count = 0;  ///< as the container announces it (0 when it does not say)
    std::string codec;    ///< the FourCC as text ("avc1", "mp4v"), or "png sequence"
    /// Bits per sample of the decoded frames: 8 for videos; 16 (or 32) for an image sequence of
    /// deeper files, whose frames next() narrows to 8 bits (÷ 257): callers that must not narrow
    /// data check it.
    int bit_depth = 8;
};

/// Reads a video or an image sequence one frame at a time. Move-only: it owns the open file.
/// A moved-from reader may only be destroyed or assigned to.
class VideoReader {
  public:
    /// Image sequences carry no frame rate; this one is reported for them.
    static constexpr double kSequenceFps = 25.0;

    /// Opens `path` and decodes its first frame, so that a file that cannot give any frame fails
    /// here rather than later. Throws lacuna::Error naming the file: NotFound (no such file, or
    /// an image sequence whose first frame is missing), Unreadable (a directory, no permission),
    /// Corrupt (not a video OpenCV can decode), EmptyImage (no frames), TooLarge.
    explicit VideoReader(const std::filesystem::path& path, double sequence_fps = kSequenceFps);
    VideoReader(VideoReader&&) noexcept;
    VideoReader& operator=(VideoReader&&) noexcept;
    VideoReader(const VideoReader&) = delete;
    VideoReader& operator=(const VideoReader&) = delete;
    ~VideoReader();

    [[nodiscard]] const VideoInfo& info() const;

    /// The next frame as RGBA, or nullopt after the last one. Alpha is 255, except in an image
    /// sequence of RGBA files, whose alpha is kept; 16-bit files are read as 8 bits (÷257). Throws
    /// InvalidArgument if a frame's size differs from the first frame's: such a stream cannot be
    /// edited as one video.
    std::optional<ImageRgba8> next();

    /// Frames next() has returned so far.
    [[nodiscard]] int frames_read() const;

    /// True once next() has returned nullopt before the frame count the file announced: the
    /// file is truncated or damaged (decoders stop quietly rather than fail).
    [[nodiscard]] bool ended_early() const;

    /// A sentence for the user when ended_early(), otherwise empty.
    [[nodiscard]] std::string warning() const;

  private:
    std::unique_ptr<detail::VideoReaderState> impl_;
};

enum class VideoContainer {
    Mp4,          ///< an FFmpeg container named by the extension (.mp4 .m4v .mov .mkv .avi)
    PngSequence,  ///< one PNG file per frame, named by a printf pattern
};

/// The container an output path asks for; throws UnsupportedFormat naming the accepted ones.
VideoContainer video_container_for_path(const std::filesystem::path& path);

/// Writes a video frame by frame without ever leaving a half-written file under the user's name:
/// frames go to a hidden temporary next to the target, and finish() renames them into place.
/// Destroyed without finish() (an exception, a cancel), it removes the temporary and the target
/// is untouched. Move-only; a moved-from writer may only be destroyed or assigned to.
///
/// With carry_audio(), finish() copies the source's audio streams in as they are (no re-encoding;
/// AAC where the container cannot hold a codec):
/// OpenCV writes the frames to the temporary, a remux step writes that video and the audio to a
/// second temporary, and only that one is renamed to the target.
///
/// MP4 output is H.264 when the encoder is available, otherwise MPEG-4 Part 2. Both store frames
/// in 4:2:0 chroma, which needs even widths and heights: an odd size is refused (InvalidArgument)
/// rather than silently cropped by a pixel as OpenCV would do; a PNG sequence takes any size.
class VideoWriter {
  public:
    /// Throws UnsupportedFormat (extension), InvalidArgument (odd size for MP4, fps not > 0),
    /// EmptyImage / TooLarge (size), WriteFailed (directory missing, no encoder could open).
    VideoWriter(const std::filesystem::path& out, int width, int height, double fps);
    VideoWriter(VideoWriter&&) noexcept;
    VideoWriter& operator=(VideoWriter&&) noexcept;
    VideoWriter(const VideoWriter&) = delete;
    VideoWriter& operator=(const VideoWriter&) = delete;
    ~VideoWriter();

    /// Appends a frame (RGBA; alpha is dropped). Throws InvalidArgument if its size is not the
    /// writer's, or after finish(); WriteFailed if the frame cannot be stored.
    void write(ImageView<const Rgba8> frame);
    void write(const ImageRgba8& frame) { write(frame.view()); }

    /// Carries the audio of `source` (the clip the frames come from) into the output. The frames
    /// written are the source's from `first_frame` on, at the writer's frame rate; the audio kept
    /// is their time span: all of it when `first_frame` is 0 and `to_end` (the whole clip, tail
    /// included), otherwise the audio packets that start from frame `first_frame`'s time (when
    /// it is above 0) until the end of the last frame written (unless `to_end`), moved so that
    /// the sound stays in sync with the first frame written. A stream the output container cannot
    /// hold as it is (PCM in MP4) is transcoded to AAC, with a notice; one that cannot be decoded
    /// either is left out, with a notice (audio_left_out()); a PNG sequence holds
    /// no sound (a notice when the source has some); an image-sequence source has none. The last
    /// call before finish() counts. An empty `source` writes no sound and says nothing about it
    /// (the caller's choice, e.g. --no-audio). Throws InvalidArgument after finish().
    void carry_audio(const std::filesystem::path& source, int first_frame = 0, bool to_end = true);

    /// Closes the stream and moves it onto the target name (replacing an existing file), with the
    /// audio of carry_audio() remuxed in. Throws EmptyImage when no frame was written (an empty
    /// video is never written), WriteFailed if the remux or the rename fails; either way the
    /// temporaries are removed and the target is untouched. A second call does nothing.
    void finish();

    [[nodiscard]] VideoContainer container() const;
    /// "H.264", "MPEG-4 Part 2" or "PNG".
    [[nodiscard]] const std::string& codec() const;
    [[nodiscard]] int frames_written() const;
    /// Sentences for the user: the codec chosen, audio not copied or left out, transparency
    /// dropped.
    [[nodiscard]] const std::vector<std::string>& notices() const;
    /// The audio streams finish() wrote into the output (stream copies of the source's, or AAC
    /// transcodes); empty before finish() and when there were none.
    [[nodiscard]] const std::vector<AudioStreamReport>& audio() const;
    /// One sentence per audio stream of the carry_audio() source that the output does not hold
    /// (its container cannot, or it is a PNG sequence); also in notices().
    [[nodiscard]] const std::vector<std::string>& audio_left_out() const;

  private:
    std::unique_ptr<detail::VideoWriterState> impl_;
};

}  // namespace lacuna::io
