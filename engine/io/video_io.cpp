#include <lacuna/io/video_io.hpp>

#include <lacuna/core/error.hpp>
#include <lacuna/io/opencv_plugin.hpp>

#include "header_probe.hpp"
#include "io_messages.hpp"

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>  // constants only: the codecs are in the plugin

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string_view>
#include <vector>
#include <sys/stat.h>
#include <unistd.h>

namespace lacuna::io {
namespace fs = std::filesystem;

namespace {

using detail::fail_read;
using detail::in_quotes;

[[noreturn]] void fail_write(const ErrorCode code, const std::string_view name,
                             const std::string& what) {
    throw Error(code, "cannot write " + in_quotes(name) + ": " + what);
}

std::string size_text(const int width, const int height) {
    return std::to_string(width) + "x" + std::to_string(height);
}

std::string lower_extension(const fs::path& path) {
    std::string ext = path.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](const unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext;
}

// ---- image-sequence patterns ----------------------------------------------------------------

// A file name split around its one printf field. Only %d and %0Nd are accepted: they are what
// OpenCV's image-sequence reader understands, and formatting them here (rather than handing a
// user's string to snprintf) keeps any other '%' from becoming a format directive.
struct SequencePattern {
    std::string prefix;
    std::string suffix;
    int digits = 0;  ///< zero-padded width; 0 for plain %d
};

std::optional<SequencePattern> parse_pattern(const std::string& file_name) {
    std::optional<SequencePattern> found;
    for (std::size_t i = 0; i < file_name.size(); ++i) {
        if (file_name[i] != '%') continue;
        if (found) return std::nullopt;  // a second field: ambiguous
        std::size_t j = i + 1;
        int digits = 0;
        if (j < file_name.size() && file_name[j] == '0') {
            ++j;
            const std::size_t start = j;
            while (j < file_name.size() && std::isdigit(static_cast<unsigned char>(file_name[j])))
                ++j;
            if (j == start || j - start > 2) return std::nullopt;
            digits = std::stoi(file_name.substr(start, j - start));
        }
        if (j >= file_name.size() || file_name[j] != 'd') return std::nullopt;
        found = SequencePattern{file_name.substr(0, i), file_name.substr(j + 1), digits};
        i = j;
    }
    return found;
}

std::string format_frame_name(const SequencePattern& pattern, const int index) {
    std::string number = std::to_string(index);
    if (static_cast<int>(number.size()) < pattern.digits)
        number.insert(0, static_cast<std::size_t>(pattern.digits) - number.size(), '0');
    return pattern.prefix + number + pattern.suffix;
}

SequencePattern require_pattern(const fs::path& path) {
    const std::optional<SequencePattern> pattern = parse_pattern(path.filename().string());
    if (!pattern) {
        throw Error(ErrorCode::InvalidArgument,
                    in_quotes(path.string()) +
                        " is not an image-sequence pattern (its file name needs one %d or %05d "
                        "field, as in frames/%05d.png)");
    }
    return *pattern;
}

bool file_exists(const fs::path& path) {
    std::error_code ec;
    return fs::exists(path, ec);
}

// ---- frames ---------------------------------------------------------------------------------

// A decoded frame (B, G, R; grey; B, G, R, A from a PNG sequence; possibly 16-bit from one) as
// RGBA8. Video frames have no alpha, so theirs is 255; an image sequence's own alpha is kept.
ImageRgba8 to_rgba(const cv::Mat& frame) {
    cv::Mat m8 = frame;
    if (frame.depth() == CV_16U)
        frame.convertTo(m8, CV_8U, 1.0 / 257.0);
    else if (frame.depth() != CV_8U)
        frame.convertTo(m8, CV_8U);
    cv::Mat rgba;
    const int code = m8.channels() == 1   ? cv::COLOR_GRAY2RGBA
                     : m8.channels() == 4 ? cv::COLOR_BGRA2RGBA
                                          : cv::COLOR_BGR2RGBA;
    cv::cvtColor(m8, rgba, code);
    ImageRgba8 image(rgba.cols, rgba.rows);
    for (int y = 0; y < rgba.rows; ++y)
        std::memcpy(image.row(y), rgba.ptr(y), static_cast<std::size_t>(rgba.cols) * 4);
    return image;
}

bool has_transparency(const ImageView<const Rgba8> image) {
    for (int y = 0; y < image.height; ++y) {
        const Rgba8* r = image.row(y);
        if (std::any_of(r, r + image.width, [](const Rgba8 p) { return p.a != 255; })) return true;
    }
    return false;
}

cv::Mat to_bgr(const ImageView<const Rgba8> frame) {
    const cv::Mat rgba(frame.height, frame.width, CV_8UC4, const_cast<Rgba8*>(frame.data),
                       frame.pitch);
    cv::Mat bgr;
    cv::cvtColor(rgba, bgr, cv::COLOR_RGBA2BGR);
    return bgr;
}

// "avc1" from the FourCC OpenCV reports as a double; "unknown" when it reports none.
std::string fourcc_text(const double value) {
    const auto code = static_cast<std::uint32_t>(value);
    std::string text;
    for (int i = 0; i < 4; ++i) {
        const char c = static_cast<char>((code >> (8 * i)) & 0xFF);
        if (std::isprint(static_cast<unsigned char>(c)) && c != ' ') text.push_back(c);
    }
    return text.empty() ? "unknown" : text;
}

// The FourCC of four characters, first in the lowest byte (cv::VideoWriter::fourcc's packing).
int fourcc_code(const char* four) {
    std::uint32_t code = 0;
    for (int i = 0; i < 4; ++i)
        code |= static_cast<std::uint32_t>(static_cast<unsigned char>(four[i])) << (8 * i);
    return static_cast<int>(code);
}

}  // namespace

bool is_image_sequence_pattern(const fs::path& path) {
    return parse_pattern(path.filename().string()).has_value();
}

bool is_video_path(const fs::path& path) {
    if (is_image_sequence_pattern(path)) return true;
    static constexpr std::array<std::string_view, 8> kExtensions = {
        ".mp4", ".m4v", ".mov", ".avi", ".mkv", ".webm", ".mpg", ".mpeg"};
    const std::string ext = lower_extension(path);
    return std::find(kExtensions.begin(), kExtensions.end(), ext) != kExtensions.end();
}

fs::path sequence_frame_path(const fs::path& pattern, const int index) {
    return pattern.parent_path() / format_frame_name(require_pattern(pattern), index);
}

// ---- reading --------------------------------------------------------------------------------

namespace detail {
struct VideoReaderState {
    std::string name;
    std::unique_ptr<CvCapture> capture = opencv_plugin().new_capture();
    VideoInfo info;
    std::optional<SequencePattern> pattern;
    fs::path directory;   ///< an image sequence's folder, for naming its frames in messages
    int first_index = 0;  ///< an image sequence's first file: 0 or 1
    std::optional<cv::Mat> first_frame;  ///< decoded at open, handed out by the first next()
    int frames_read = 0;
    bool at_end = false;

    // The file a frame came from, when there is one per frame.
    std::string frame_label(const int index) const {
        std::string label = "frame " + std::to_string(index + 1);
        if (pattern)
            label +=
                " (" +
                in_quotes((directory / format_frame_name(*pattern, first_index + index)).string()) +
                ")";
        return label;
    }
};
}  // namespace detail

namespace {

void check_readable_file(const fs::path& path, const std::string& name) {
    detail::check_is_file(path, name);
    if (::access(path.c_str(), R_OK) != 0)
        fail_read(ErrorCode::Unreadable, name, std::strerror(errno));
}

// FFmpeg: the backend Debian's OpenCV decodes files with. The others are tried only when this
// OpenCV has no FFmpeg: GStreamer, above all, prints assertion failures for every file it does
// not know, on top of the one clear error the user gets. FFmpeg's own log ("moov atom not
// found") is silenced for the same reason (unless the user asked for it through
// OPENCV_FFMPEG_LOGLEVEL): the error we throw says what is wrong.
bool open_file(CvCapture& capture, const std::string& name) {
    static const bool quiet = [] { return ::setenv("OPENCV_FFMPEG_LOGLEVEL", "-8", 0) == 0; }();
    (void)quiet;
    std::vector<int> apis{static_cast<int>(cv::CAP_FFMPEG)};
    if (!opencv_plugin().has_video_backend(cv::CAP_FFMPEG))
        apis.push_back(static_cast<int>(cv::CAP_ANY));
    for (const int api : apis) {
        try {
            if (capture.open(name, api) && capture.is_opened()) return true;
        } catch (const cv::Exception&) {
            // A backend that throws is one that cannot read the file: try the next.
        }
    }
    return false;
}

// An image sequence starts at index 0 or 1 (both conventions are common), as OpenCV assumes.
int first_sequence_index(const fs::path& pattern_path, const SequencePattern& pattern,
                         const std::string& name) {
    const fs::path directory = pattern_path.parent_path();
    const fs::path zero = directory / format_frame_name(pattern, 0);
    const fs::path one = directory / format_frame_name(pattern, 1);
    if (file_exists(zero)) return 0;
    if (file_exists(one)) return 1;
    fail_read(ErrorCode::NotFound, name,
              "the image sequence has no frames (neither " + in_quotes(zero.string()) + " nor " +
                  in_quotes(one.string()) + " exists)");
}

std::string first_frame_text(const detail::VideoReaderState& r) {
    return in_quotes((r.directory / format_frame_name(*r.pattern, r.first_index)).string());
}

// The files present from the first on. Counted here rather than asked of OpenCV, which stops
// counting at the first file it cannot decode: a damaged frame in the middle would shorten the
// sequence silently instead of showing as an early end.
int sequence_length(const detail::VideoReaderState& r) {
    int length = 0;
    while (file_exists(r.directory / format_frame_name(*r.pattern, r.first_index + length)))
        ++length;
    return length;
}

/// Whether frame `index` of an image sequence may go to OpenCV's image-sequence reader, which
/// picks its decoder from the bytes (cv::imread): only a file Lacuna's header probe takes for a
/// colour image format, with a readable header and a size within the limits. Anything else — a
/// DICOM file, whose GDCM reader can abort the process on damage (fuzz_video_open), a header
/// the probe cannot read, an absurd size — is no readable frame.
bool sequence_frame_is_safe(const detail::VideoReaderState& r, const int index) {
    std::ifstream in(r.directory / format_frame_name(*r.pattern, r.first_index + index),
                     std::ios::binary);
    if (!in) return false;
    const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                          std::istreambuf_iterator<char>());
    const detail::HeaderProbe probe = detail::probe_header(bytes);
    if (!probe.format || probe.malformed || probe.truncated) return false;
    if (*probe.format == ImageFormat::Dicom || *probe.format == ImageFormat::Fits) return false;
    if (probe.width && probe.height) {
        const std::int64_t w = *probe.width, h = *probe.height;
        if (w <= 0 || h <= 0 || w > kMaxImageSide || h > kMaxImageSide || w * h > kMaxImagePixels)
            return false;
    }
    return true;
}

void open_sequence(detail::VideoReaderState& r, const fs::path& path, const double fps) {
    r.pattern = parse_pattern(path.filename().string());
    r.directory = path.parent_path();
    r.first_index = first_sequence_index(path, *r.pattern, r.name);
    // OpenCV decodes the first file while opening: it must pass the probe first.
    if (!sequence_frame_is_safe(r, 0))
        fail_read(ErrorCode::Corrupt, r.name,
                  "its first frame " + first_frame_text(r) + " is not a readable image");
    try {
        r.capture->open(r.name, cv::CAP_IMAGES);
    } catch (const cv::Exception& e) {
        fail_read(ErrorCode::Corrupt, r.name,
                  "not an image sequence OpenCV can read (" + e.msg + ")");
    }
    // OpenCV refuses a sequence whose first file is not an image it can decode.
    if (!r.capture->is_opened())
        fail_read(ErrorCode::Corrupt, r.name,
                  "its first frame " + first_frame_text(r) + " is not a readable image");
    r.info.fps = fps;
    r.info.frame_count = sequence_length(r);
    const std::string ext = lower_extension(path);
    r.info.codec = (ext.empty() ? std::string("image") : ext.substr(1)) + " sequence";
}

void open_video_file(detail::VideoReaderState& r, const fs::path& path) {
    check_readable_file(path, r.name);
    if (!open_file(*r.capture, r.name)) {
        fail_read(ErrorCode::Corrupt, r.name,
                  "not a video OpenCV can decode: the file is damaged, truncated before its index, "
                  "or in a format FFmpeg does not read");
    }
    r.info.fps = r.capture->get(cv::CAP_PROP_FPS);
    if (!(r.info.fps > 0) || !std::isfinite(r.info.fps)) r.info.fps = 0;
    r.info.codec = fourcc_text(r.capture->get(cv::CAP_PROP_FOURCC));
    // The container's own count: exact for MP4, estimated from the duration for some others.
    const double count = r.capture->get(cv::CAP_PROP_FRAME_COUNT);
    r.info.frame_count =
        count > 0 && std::isfinite(count) ? static_cast<int>(std::lround(count)) : 0;
}

// Decodes the first frame now, so that a file with nothing to give fails at open.
void read_first_frame(detail::VideoReaderState& r) {
    cv::Mat frame;
    bool ok = false;
    try {
        ok = r.capture->read(frame) && !frame.empty();
    } catch (const cv::Exception& e) {
        fail_read(ErrorCode::Corrupt, r.name, "the first frame cannot be decoded (" + e.msg + ")");
    }
    if (!ok && r.pattern)
        fail_read(ErrorCode::Corrupt, r.name,
                  "its first frame " + first_frame_text(r) + " is not a readable image");
    if (!ok) fail_read(ErrorCode::EmptyImage, r.name, "the video has no frames");
    try {
        check_image_size(frame.cols, frame.rows);
    } catch (const Error& e) {
        fail_read(e.code(), r.name, e.what());
    }
    r.info.width = frame.cols;
    r.info.height = frame.rows;
    r.info.bit_depth = frame.depth() == CV_8U || frame.depth() == CV_8S     ? 8
                       : frame.depth() == CV_16U || frame.depth() == CV_16S ? 16
                                                                            : 32;
    r.first_frame = frame;
}

}  // namespace

VideoReader::VideoReader(const fs::path& path, const double sequence_fps)
    : impl_(std::make_unique<detail::VideoReaderState>()) {
    detail::VideoReaderState& r = *impl_;
    r.name = path.string();
    if (!(sequence_fps > 0) || !std::isfinite(sequence_fps))
        fail_read(ErrorCode::InvalidArgument, r.name,
                  "the frame rate for an image sequence must be above 0");
    if (is_image_sequence_pattern(path))
        open_sequence(r, path, sequence_fps);
    else
        open_video_file(r, path);
    read_first_frame(r);
}

VideoReader::VideoReader(VideoReader&&) noexcept = default;
VideoReader& VideoReader::operator=(VideoReader&&) noexcept = default;
VideoReader::~VideoReader() = default;

const VideoInfo& VideoReader::info() const {
    return impl_->info;
}
int VideoReader::frames_read() const {
    return impl_->frames_read;
}

std::optional<ImageRgba8> VideoReader::next() {
    detail::VideoReaderState& r = *impl_;
    cv::Mat frame;
    if (r.first_frame) {
        frame = std::move(*r.first_frame);
        r.first_frame.reset();
    } else if (r.pattern && r.frames_read >= r.info.frame_count) {
        // The last file is read: asking OpenCV for the next would only log a missing file.
    } else if (r.pattern && !r.at_end && !sequence_frame_is_safe(r, r.frames_read)) {
        // A frame file the probe refuses ends the sequence early, as an undecodable one does.
    } else if (!r.at_end) {
        try {
            if (!r.capture->read(frame)) frame.release();
        } catch (const cv::Exception&) {
            // A frame the decoder chokes on ends the stream like a truncation: ended_early()
            // tells the caller, and the frames already read stay usable.
            frame.release();
        }
    }
    if (frame.empty()) {
        r.at_end = true;
        return std::nullopt;
    }
    if (frame.cols != r.info.width || frame.rows != r.info.height) {
        fail_read(ErrorCode::InvalidArgument, r.name,
                  r.frame_label(r.frames_read) + " is " + size_text(frame.cols, frame.rows) +
                      " but the video started at " + size_text(r.info.width, r.info.height) +
                      ": frames of different sizes cannot be retargeted as one video");
    }
    ++r.frames_read;
    return to_rgba(frame);
}

bool VideoReader::ended_early() const {
    const detail::VideoReaderState& r = *impl_;
    return r.at_end && r.info.frame_count > 0 && r.frames_read < r.info.frame_count;
}

std::string VideoReader::warning() const {
    if (!ended_early()) return {};
    const detail::VideoReaderState& r = *impl_;
    return in_quotes(r.name) + " ended after " + std::to_string(r.frames_read) + " of the " +
           std::to_string(r.info.frame_count) +
           " frames it announces: the file is truncated or damaged, and the missing frames are "
           "lost";
}

// ---- writing --------------------------------------------------------------------------------

VideoContainer video_container_for_path(const fs::path& path) {
    const std::string name = path.string();
    const std::string accepted =
        " (write .mp4, .m4v, .mov, .mkv, .avi, or a PNG sequence such as frames/%05d.png)";
    if (is_image_sequence_pattern(path)) {
        if (lower_extension(path) == ".png") return VideoContainer::PngSequence;
        fail_write(
            ErrorCode::UnsupportedFormat, name,
            "image sequences are written as PNG, so the pattern must end in .png" + accepted);
    }
    const std::string ext = lower_extension(path);
    if (ext == ".mp4" || ext == ".m4v" || ext == ".mov" || ext == ".mkv" || ext == ".avi")
        return VideoContainer::Mp4;
    if (is_video_path(path))
        fail_write(ErrorCode::UnsupportedFormat, name,
                   "Lacuna reads " + ext + " video but does not write it" + accepted);
    fail_write(ErrorCode::UnsupportedFormat, name,
               "unsupported video extension '" + ext + "'" + accepted);
}

namespace detail {
struct VideoWriterState {
    fs::path target;
    std::string name;
    VideoContainer container = VideoContainer::Mp4;
    int width = 0;
    int height = 0;
    double fps = 0;
    std::string codec;
    std::vector<std::string> notices;
    int frames = 0;
    bool finished = false;
    bool failed = false;  ///< finish() failed and threw the frames away
    bool transparency_noted = false;
    std::optional<SequencePattern> pattern;
    std::unique_ptr<CvWriter> writer = opencv_plugin().new_writer();
    fs::path temporary;  ///< the partial file (MP4) or folder (PNG); empty once moved or removed
    /// carry_audio(): the source and the span of its frames written; the streams to carry.
    struct AudioSource {
        fs::path path;
        int first_frame = 0;
        bool to_end = true;
        AudioPlan plan;
    };
    std::optional<AudioSource> audio_source;
    bool audio_asked = false;  ///< carry_audio() was called (even for a source without audio)
    std::vector<AudioStreamReport> audio;
    std::vector<std::string> audio_left_out;
    std::vector<std::string> audio_transcoded;  ///< one sentence per stream transcoded to AAC
    fs::path remuxed;  ///< the remux step's output until it is renamed; empty otherwise

    VideoWriterState() = default;
    VideoWriterState(const VideoWriterState&) = delete;
    VideoWriterState& operator=(const VideoWriterState&) = delete;
    // Whatever has not been finished is thrown away: the user's name never holds a partial file.
    ~VideoWriterState() { discard(); }

    void discard() noexcept {
        try {
            writer->release();
        } catch (...) {
            // Closing a stream that is being thrown away: nothing left to report.
        }
        std::error_code ec;
        if (!remuxed.empty()) fs::remove(remuxed, ec);
        remuxed.clear();
        if (temporary.empty()) return;
        fs::remove_all(temporary, ec);
        temporary.clear();
    }
};
}  // namespace detail

namespace {

fs::path output_directory(const fs::path& out, const std::string& name) {
    const fs::path dir = out.parent_path().empty() ? fs::path(".") : out.parent_path();
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        fail_write(ErrorCode::WriteFailed, name,
                   "directory " + in_quotes(dir.string()) + " does not exist");
    return dir;
}

// A unique hidden file next to the target, so that the final rename stays on one file system.
// The real extension stays last: OpenCV picks the container from it.
fs::path make_partial_file(const fs::path& dir, const fs::path& out, const std::string& name) {
    std::string temp_name(1, '.');
    temp_name += out.stem().string();
    temp_name += ".lacuna-partial-XXXXXX";
    const std::string ext = out.extension().string();
    temp_name += ext;
    std::string temp = (dir / temp_name).string();
    const int fd = ::mkstemps(temp.data(), static_cast<int>(ext.size()));
    if (fd < 0) fail_write(ErrorCode::WriteFailed, name, std::strerror(errno));
    // mkstemps makes it private (0600); a finished video is an ordinary file like an image.
    ::fchmod(fd, 0644);
    ::close(fd);
    return temp;
}

fs::path make_partial_folder(const fs::path& dir, const std::string& name) {
    std::string temp = (dir / ".lacuna-partial-frames-XXXXXX").string();
    if (::mkdtemp(temp.data()) == nullptr)
        fail_write(ErrorCode::WriteFailed, name, std::strerror(errno));
    return temp;
}

struct Encoder {
    char fourcc[5];
    const char* codec;
};

// H.264 plays everywhere and compresses best; 'H264' is the same codec under the tag some FFmpeg
// builds expect. MPEG-4 Part 2 is the encoder every FFmpeg build carries.
constexpr std::array<Encoder, 3> kEncoders = {{
    {"avc1", "H.264"},
    {"H264", "H.264"},
    {"mp4v", "MPEG-4 Part 2"},
}};

void open_encoder(detail::VideoWriterState& w) {
    const cv::Size size(w.width, w.height);
    for (const Encoder& encoder : kEncoders) {
        const int fourcc = fourcc_code(encoder.fourcc);
        try {
            if (w.writer->open(w.temporary.string(), cv::CAP_FFMPEG, fourcc, w.fps, size) &&
                w.writer->is_opened()) {
                w.codec = encoder.codec;
                if (&encoder == &kEncoders.back())
                    w.notices.push_back(
                        "no H.264 encoder available: video encoded as MPEG-4 Part 2 (mp4v), which "
                        "needs more bits for the same quality and plays in fewer places");
                else
                    w.notices.push_back(std::string("video encoded as H.264 (") + encoder.fourcc +
                                        ")");
                return;
            }
        } catch (const cv::Exception&) {
            // This encoder is missing from the FFmpeg build: try the next.
        }
    }
    fail_write(ErrorCode::WriteFailed, w.name,
               "no H.264 or MPEG-4 Part 2 encoder could be opened (OpenCV was built without "
               "FFmpeg, or FFmpeg lacks both encoders)");
}

void open_mp4(detail::VideoWriterState& w, const fs::path& dir) {
    // 4:2:0 chroma covers 2x2 pixels, so both encoders need even sides. OpenCV would silently
    // drop the last column and row; a video one pixel smaller than its frames is refused instead.
    if (w.width % 2 != 0 || w.height % 2 != 0) {
        const int down_w = w.width - w.width % 2, down_h = w.height - w.height % 2;
        fail_write(ErrorCode::InvalidArgument, w.name,
                   size_text(w.width, w.height) +
                       " has an odd side, and H.264 and MPEG-4 Part 2 store even widths and "
                       "heights only: crop or pad the frames to " +
                       size_text(down_w, down_h) + " or " +
                       size_text(down_w + 2 * (w.width % 2), down_h + 2 * (w.height % 2)) +
                       ", or write a PNG sequence");
    }
    w.temporary = make_partial_file(dir, w.target, w.name);
    open_encoder(w);
}

void write_png_frame(detail::VideoWriterState& w, const cv::Mat& bgr) {
    const fs::path file = w.temporary / format_frame_name(*w.pattern, w.frames);
    bool ok = false;
    try {
        ok = opencv_plugin().imwrite(file.string(), bgr, {});
    } catch (const cv::Exception& e) {
        fail_write(
            ErrorCode::WriteFailed, w.name,
            "frame " + std::to_string(w.frames + 1) + " could not be encoded (" + e.msg + ")");
    }
    if (!ok)
        fail_write(ErrorCode::WriteFailed, w.name,
                   "frame " + std::to_string(w.frames + 1) + " could not be written to " +
                       in_quotes(w.temporary.string()));
}

// The frames' time span in the source, for the audio kept with them.
AudioRemuxRequest remux_request(const detail::VideoWriterState& w) {
    const detail::VideoWriterState::AudioSource& a = *w.audio_source;
    AudioRemuxRequest r;
    r.video = w.temporary.string();
    r.source = a.path.string();
    r.output = w.remuxed.string();
    r.start = a.first_frame > 0 ? a.first_frame / w.fps : 0.0;
    r.end = a.to_end ? -1.0 : (a.first_frame + w.frames) / w.fps;
    return r;
}

// The remux step: the encoded video and the source's audio into a second temporary, which then
// takes the encoder's place (audio_remux.hpp).
void remux_audio(detail::VideoWriterState& w) {
    w.remuxed = make_partial_file(output_directory(w.target, w.name), w.target, w.name);
    const AudioPlan done = opencv_plugin().remux_audio(remux_request(w));
    if (!done.error.empty())
        fail_write(ErrorCode::WriteFailed, w.name,
                   "the audio of " + in_quotes(w.audio_source->path.string()) +
                       " could not be carried: " + done.error);
    for (const std::string& d : done.dropped)
        if (std::find(w.audio_left_out.begin(), w.audio_left_out.end(), d) ==
            w.audio_left_out.end()) {
            w.audio_left_out.push_back(d);
            w.notices.push_back(d);
        }
    if (done.transcoded != w.audio_transcoded) {  // the remux fell back to the video alone
        for (const std::string& t : w.audio_transcoded)
            w.notices.erase(std::remove(w.notices.begin(), w.notices.end(), t), w.notices.end());
        w.audio_transcoded = done.transcoded;
        w.notices.insert(w.notices.end(), w.audio_transcoded.begin(), w.audio_transcoded.end());
    }
    w.audio = done.streams;
    std::error_code ec;
    fs::remove(w.temporary, ec);
    w.temporary = w.remuxed;
    w.remuxed.clear();
}

void finish_mp4(detail::VideoWriterState& w) {
    w.writer->release();
    std::error_code ec;
    if (fs::file_size(w.temporary, ec) == 0 || ec)
        fail_write(ErrorCode::WriteFailed, w.name, "the encoder wrote nothing");
    if (w.audio_source && !w.audio_source->plan.streams.empty()) remux_audio(w);
    if (!w.audio_asked)
        w.notices.emplace_back("audio track not copied: OpenCV videoio carries video only");
    fs::rename(w.temporary, w.target, ec);
    if (ec) fail_write(ErrorCode::WriteFailed, w.name, ec.message());
    w.temporary.clear();
}

// Each frame file replaces its namesake atomically; the sequence as a whole appears file by file.
void finish_png_sequence(detail::VideoWriterState& w) {
    const fs::path dir = w.target.parent_path();
    for (int i = 0; i < w.frames; ++i) {
        const std::string file = format_frame_name(*w.pattern, i);
        std::error_code ec;
        fs::rename(w.temporary / file, dir / file, ec);
        if (ec)
            fail_write(ErrorCode::WriteFailed, w.name,
                       "frame " + in_quotes((dir / file).string()) + ": " + ec.message());
    }
    std::error_code ec;
    fs::remove_all(w.temporary, ec);
    w.temporary.clear();
    // A longer sequence written earlier under the same pattern would be read back as one video.
    const fs::path stale = dir / format_frame_name(*w.pattern, w.frames);
    if (file_exists(stale))
        w.notices.push_back("frames of an earlier sequence remain from " +
                            in_quotes(stale.string()) +
                            " on: delete them, or a reader will take them as part of this video");
}

}  // namespace

VideoWriter::VideoWriter(const fs::path& out, const int width, const int height, const double fps)
    : impl_(std::make_unique<detail::VideoWriterState>()) {
    detail::VideoWriterState& w = *impl_;
    w.target = out;
    w.name = out.string();
    w.container = video_container_for_path(out);
    try {
        check_image_size(width, height);
    } catch (const Error& e) {
        fail_write(e.code(), w.name, e.what());
    }
    if (!(fps > 0) || !std::isfinite(fps))
        fail_write(ErrorCode::InvalidArgument, w.name,
                   "the frame rate must be above 0 (got " + std::to_string(fps) + ")");
    w.width = width;
    w.height = height;
    w.fps = fps;
    const fs::path dir = output_directory(out, w.name);
    std::error_code ec;
    if (fs::is_directory(out, ec)) fail_write(ErrorCode::WriteFailed, w.name, "it is a directory");
    if (w.container == VideoContainer::Mp4) {
        open_mp4(w, dir);
    } else {
        w.pattern = parse_pattern(out.filename().string());
        w.temporary = make_partial_folder(dir, w.name);
        w.codec = "PNG";
    }
}

VideoWriter::VideoWriter(VideoWriter&&) noexcept = default;
VideoWriter& VideoWriter::operator=(VideoWriter&&) noexcept = default;
VideoWriter::~VideoWriter() = default;

void VideoWriter::write(const ImageView<const Rgba8> frame) {
    detail::VideoWriterState& w = *impl_;
    if (w.finished || w.failed)
        fail_write(ErrorCode::InvalidArgument, w.name,
                   w.failed ? "finishing failed and the frames were discarded"
                            : "the video is finished: no frame can follow");
    if (frame.width != w.width || frame.height != w.height) {
        fail_write(ErrorCode::InvalidArgument, w.name,
                   "frame " + std::to_string(w.frames + 1) + " is " +
                       size_text(frame.width, frame.height) + " but the video is " +
                       size_text(w.width, w.height));
    }
    if (!w.transparency_noted && has_transparency(frame)) {
        w.transparency_noted = true;
        w.notices.emplace_back("transparency dropped: video frames carry no alpha channel");
    }
    const cv::Mat bgr = to_bgr(frame);
    if (w.container == VideoContainer::PngSequence) {
        write_png_frame(w, bgr);
    } else {
        try {
            w.writer->write(bgr);
        } catch (const cv::Exception& e) {
            fail_write(
                ErrorCode::WriteFailed, w.name,
                "frame " + std::to_string(w.frames + 1) + " could not be encoded (" + e.msg + ")");
        }
    }
    ++w.frames;
}

void VideoWriter::finish() {
    detail::VideoWriterState& w = *impl_;
    if (w.finished) return;
    if (w.failed)
        fail_write(ErrorCode::InvalidArgument, w.name,
                   "finishing failed before and the frames were discarded");
    try {
        if (w.frames == 0)
            fail_write(ErrorCode::EmptyImage, w.name,
                       "no frames were written, and a video needs at least one");
        if (w.container == VideoContainer::Mp4)
            finish_mp4(w);
        else
            finish_png_sequence(w);
    } catch (...) {
        w.discard();
        w.failed = true;
        throw;
    }
    w.finished = true;
}

void VideoWriter::carry_audio(const fs::path& source, const int first_frame, const bool to_end) {
    detail::VideoWriterState& w = *impl_;
    if (w.finished || w.failed)
        fail_write(ErrorCode::InvalidArgument, w.name,
                   "the video is finished: its audio cannot be chosen any more");
    if (first_frame < 0)
        fail_write(ErrorCode::InvalidArgument, w.name, "the first frame must be 0 or more");
    w.audio_asked = true;
    w.audio_source.reset();
    // Notices of an earlier call are replaced by this one's.
    for (const std::vector<std::string>* said : {&w.audio_left_out, &w.audio_transcoded})
        for (const std::string& d : *said)
            w.notices.erase(std::remove(w.notices.begin(), w.notices.end(), d), w.notices.end());
    w.audio_left_out.clear();
    w.audio_transcoded.clear();
    if (source.empty()) return;                     // no sound wanted: nothing to say either
    if (is_image_sequence_pattern(source)) return;  // image files carry no sound
    const std::string source_name = in_quotes(source.string());
    if (w.container == VideoContainer::PngSequence) {
        // Asked of FFmpeg with a container that would hold any codec, only to count the streams.
        const AudioPlan p = opencv_plugin().plan_audio(source.string(), "count.mkv");
        if (p.source_streams > 0)
            w.audio_left_out.push_back("a PNG sequence holds no sound: the " +
                                       std::to_string(p.source_streams) + " audio stream(s) of " +
                                       source_name +
                                       " are not written (write a video file to "
                                       "keep them)");
    } else {
        detail::VideoWriterState::AudioSource a{source, first_frame, to_end, {}};
        a.plan = opencv_plugin().plan_audio(source.string(), w.target.string());
        if (!a.plan.error.empty()) {
            w.audio_left_out.push_back("the audio of " + source_name +
                                       " cannot be read, and the video is written without it (" +
                                       a.plan.error + ")");
        } else {
            w.audio_left_out = a.plan.dropped;
            w.audio_transcoded = a.plan.transcoded;
            w.audio_source = std::move(a);
        }
    }
    w.notices.insert(w.notices.end(), w.audio_transcoded.begin(), w.audio_transcoded.end());
    w.notices.insert(w.notices.end(), w.audio_left_out.begin(), w.audio_left_out.end());
}

const std::vector<AudioStreamReport>& VideoWriter::audio() const {
    return impl_->audio;
}
const std::vector<std::string>& VideoWriter::audio_left_out() const {
    return impl_->audio_left_out;
}

VideoContainer VideoWriter::container() const {
    return impl_->container;
}
const std::string& VideoWriter::codec() const {
    return impl_->codec;
}
int VideoWriter::frames_written() const {
    return impl_->frames;
}
const std::vector<std::string>& VideoWriter::notices() const {
    return impl_->notices;
}

}  // namespace lacuna::io
