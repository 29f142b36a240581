// The remux step of lacuna/io/audio_remux.hpp, with FFmpeg's libavformat. Compiled into the
// plugin (liblacuna_opencv.so) only, so that libavformat is loaded with OpenCV's videoio and never
// at a program's start.
#include <lacuna/io/audio_remux.hpp>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/error.h>
}

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace lacuna::io::detail {
namespace {

struct InputCloser {
    void operator()(AVFormatContext* c) const { avformat_close_input(&c); }
};
using Input = std::unique_ptr<AVFormatContext, InputCloser>;

struct OutputCloser {
    void operator()(AVFormatContext* c) const {
        if (c->pb != nullptr && (c->oformat->flags & AVFMT_NOFILE) == 0) avio_closep(&c->pb);
        avformat_free_context(c);
    }
};
using Output = std::unique_ptr<AVFormatContext, OutputCloser>;

struct PacketFree {
    void operator()(AVPacket* p) const { av_packet_free(&p); }
};
using Packet = std::unique_ptr<AVPacket, PacketFree>;

std::string av_text(const int code) {
    char text[AV_ERROR_MAX_STRING_SIZE] = {};
    av_strerror(code, text, sizeof text);
    return text;
}

// FFmpeg's own log would repeat, in its words and on stderr, what the one error sentence says.
// OpenCV's reader silences it the same way (OPENCV_FFMPEG_LOGLEVEL); a user who set that variable
// to see FFmpeg's messages sees them here too.
void quiet_log() {
    static const bool done = [] {
        if (std::getenv("OPENCV_FFMPEG_LOGLEVEL") == nullptr ||
            std::string(std::getenv("OPENCV_FFMPEG_LOGLEVEL")) == "-8")
            av_log_set_level(AV_LOG_QUIET);
        return true;
    }();
    (void)done;
}

Input open_input(const std::string& path, std::string& error) {
    AVFormatContext* raw = nullptr;
    if (const int rc = avformat_open_input(&raw, path.c_str(), nullptr, nullptr); rc < 0) {
        error = "FFmpeg cannot open it (" + av_text(rc) + ")";
        return nullptr;
    }
    Input in(raw);
    if (const int rc = avformat_find_stream_info(raw, nullptr); rc < 0) {
        error = "FFmpeg cannot read its streams (" + av_text(rc) + ")";
        return nullptr;
    }
    return in;
}

double seconds_of(const std::int64_t ts, const AVRational base) {
    return static_cast<double>(ts) * av_q2d(base);
}

// The time of the source's first video frame, which OpenCV's reader returns as frame 0: the
// origin of the frame numbers a range is given in.
double video_origin(const AVFormatContext& in) {
    const int v = av_find_best_stream(const_cast<AVFormatContext*>(&in), AVMEDIA_TYPE_VIDEO, -1, -1,
                                      nullptr, 0);
    if (v >= 0) {
        const AVStream& s = *in.streams[v];
        if (s.start_time != AV_NOPTS_VALUE) return seconds_of(s.start_time, s.time_base);
    }
    if (in.start_time != AV_NOPTS_VALUE)
        return static_cast<double>(in.start_time) / static_cast<double>(AV_TIME_BASE);
    return 0;
}

std::string container_name(const AVOutputFormat& format) {
    const std::string name = format.name;
    if (name == "mp4") return "MP4";
    if (name == "ipod") return "M4V";
    if (name == "mov") return "QuickTime (.mov)";
    if (name == "matroska") return "Matroska (.mkv)";
    if (name == "avi") return "AVI";
    return name;
}

// Which of the source's audio streams the output container holds as they are. The others are
// left out with a sentence each: re-encoding would change the sound, and the containers Lacuna
// writes hold the common codecs (AAC, MP3, Opus, AC-3, FLAC; PCM in MKV, MOV and AVI).
AudioPlan plan(const AVFormatContext& in, const AVOutputFormat& format) {
    AudioPlan p;
    for (unsigned i = 0; i < in.nb_streams; ++i) {
        const AVStream& s = *in.streams[i];
        const AVCodecParameters& par = *s.codecpar;
        if (par.codec_type != AVMEDIA_TYPE_AUDIO) continue;
        ++p.source_streams;
        AudioStreamReport r;
        r.index = static_cast<int>(i);
        r.codec = par.codec_id == AV_CODEC_ID_NONE ? "unknown" : avcodec_get_name(par.codec_id);
        r.sample_rate = par.sample_rate;
        r.channels = par.ch_layout.nb_channels;
        if (s.duration != AV_NOPTS_VALUE && s.duration > 0)
            r.seconds = seconds_of(s.duration, s.time_base);
        else if (in.duration != AV_NOPTS_VALUE && in.duration > 0)
            r.seconds = static_cast<double>(in.duration) / static_cast<double>(AV_TIME_BASE);
        const bool holds = par.codec_id != AV_CODEC_ID_NONE &&
                           avformat_query_codec(&format, par.codec_id, FF_COMPLIANCE_NORMAL) == 1;
        if (holds) {
            p.streams.push_back(r);
        } else {
            p.dropped.push_back("audio stream " + std::to_string(i) + " (" + r.codec +
                                ") left out: " + container_name(format) +
                                " cannot hold it as it is (write .mkv, which holds it, to keep "
                                "the sound)");
        }
    }
    return p;
}

const AVOutputFormat* output_format(const std::string& output, std::string& error) {
    const AVOutputFormat* format = av_guess_format(nullptr, output.c_str(), nullptr);
    if (format == nullptr) error = "FFmpeg has no muxer for this file name";
    return format;
}

// Reads the next packet of `in` that `keep` accepts into `packet`; false at the end of the file.
template <class Keep>
bool next_packet(AVFormatContext& in, AVPacket& packet, const Keep& keep) {
    for (;;) {
        av_packet_unref(&packet);
        if (av_read_frame(&in, &packet) < 0) return false;
        if (keep(packet)) return true;
    }
}

// The packet's time in seconds, for interleaving (the decoding time where known).
double packet_seconds(const AVPacket& p, const AVRational base) {
    const std::int64_t ts = p.dts != AV_NOPTS_VALUE ? p.dts : p.pts;
    return ts == AV_NOPTS_VALUE ? 0 : seconds_of(ts, base);
}

struct Remux {
    explicit Remux(const AudioRemuxRequest& r) : request(r) {}

    const AudioRemuxRequest& request;
    AudioPlan result;
    Input video, source;
    int video_stream = -1;
    std::vector<int> out_index;  ///< the output stream of each source stream, −1 if not carried
    int video_out = -1;
    double origin = 0;                ///< the source's first video frame, seconds
    std::vector<std::int64_t> shift;  ///< per source stream, in its time base
    struct Span {
        double first = std::numeric_limits<double>::infinity();
        double last = -std::numeric_limits<double>::infinity();
    };
    std::vector<Span> spans;  ///< per output audio stream (result.streams' order)

    // Opens both inputs and decides the streams; false with result.error on failure.
    bool open(const AVOutputFormat& format) {
        video = open_input(request.video, result.error);
        if (!video) {
            result.error = "the encoded video cannot be read back: " + result.error;
            return false;
        }
        video_stream = av_find_best_stream(video.get(), AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
        if (video_stream < 0) {
            result.error = "the encoded video has no video stream";
            return false;
        }
        source = open_input(request.source, result.error);
        if (!source) {
            result.error = "the source's audio cannot be read: " + result.error;
            return false;
        }
        origin = video_origin(*source);
        result = plan(*source, format);
        return true;
    }

    bool keep_audio(const AVPacket& p) const {
        if (p.stream_index < 0 || p.stream_index >= static_cast<int>(out_index.size()) ||
            out_index[static_cast<std::size_t>(p.stream_index)] < 0)
            return false;
        const AVStream& s = *source->streams[p.stream_index];
        const std::int64_t ts = p.pts != AV_NOPTS_VALUE ? p.pts : p.dts;
        if (ts == AV_NOPTS_VALUE) return request.start <= 0 && request.end < 0;
        const double t = seconds_of(ts, s.time_base) - origin;
        constexpr double kEps = 1e-6;  // a packet exactly at a frame's time belongs to that frame
        if (request.start > 0 && t < request.start - kEps) return false;
        if (request.end >= 0 && t >= request.end - kEps) return false;
        return true;
    }

    // Writes the video of `video` and the carried audio of `source` into `out` (opened).
    bool write(AVFormatContext& out, const bool with_audio) {
        out_index.assign(source->nb_streams, -1);
        shift.assign(source->nb_streams, 0);
        AVStream* vs = avformat_new_stream(&out, nullptr);
        if (vs == nullptr) return fail("out of memory");
        if (avcodec_parameters_copy(vs->codecpar, video->streams[video_stream]->codecpar) < 0)
            return fail("out of memory");
        vs->codecpar->codec_tag = 0;
        vs->time_base = video->streams[video_stream]->time_base;
        video_out = vs->index;
        if (with_audio) {
            for (const AudioStreamReport& r : result.streams) {
                const AVStream& in = *source->streams[r.index];
                AVStream* as = avformat_new_stream(&out, nullptr);
                if (as == nullptr || avcodec_parameters_copy(as->codecpar, in.codecpar) < 0)
                    return fail("out of memory");
                as->codecpar->codec_tag = 0;
                as->time_base = in.time_base;
                as->disposition = in.disposition;
                av_dict_copy(&as->metadata, in.metadata, 0);  // language, title
                out_index[static_cast<std::size_t>(r.index)] = as->index;
                const double by = request.start > 0 ? origin + request.start : origin;
                shift[static_cast<std::size_t>(r.index)] = std::llround(by / av_q2d(in.time_base));
            }
        }
        spans.assign(result.streams.size(), Span{});
        if (const int rc = avio_open(&out.pb, request.output.c_str(), AVIO_FLAG_WRITE); rc < 0)
            return fail("cannot create the file (" + av_text(rc) + ")");
        if (const int rc = avformat_write_header(&out, nullptr); rc < 0)
            return fail("the container refused the streams (" + av_text(rc) + ")");
        return copy_packets(out) && finish(out);
    }

    bool copy_packets(AVFormatContext& out) {
        Packet v(av_packet_alloc()), a(av_packet_alloc());
        if (!v || !a) return fail("out of memory");
        const auto is_video = [&](const AVPacket& p) { return p.stream_index == video_stream; };
        const auto is_audio = [&](const AVPacket& p) { return keep_audio(p); };
        bool have_v = next_packet(*video, *v, is_video);
        bool have_a = next_packet(*source, *a, is_audio);
        const AVRational vbase = video->streams[video_stream]->time_base;
        while (have_v || have_a) {
            const bool take_video =
                have_v && (!have_a || packet_seconds(*v, vbase) <= audio_seconds(*a));
            if (take_video) {
                if (!write_video(out, *v)) return false;
                have_v = next_packet(*video, *v, is_video);
            } else {
                if (!write_audio(out, *a)) return false;
                have_a = next_packet(*source, *a, is_audio);
            }
        }
        return true;
    }

    double audio_seconds(const AVPacket& p) const {
        const AVStream& s = *source->streams[p.stream_index];
        return packet_seconds(p, s.time_base) -
               seconds_of(shift[static_cast<std::size_t>(p.stream_index)], s.time_base);
    }

    bool write_video(AVFormatContext& out, AVPacket& p) {
        av_packet_rescale_ts(&p, video->streams[video_stream]->time_base,
                             out.streams[video_out]->time_base);
        p.stream_index = video_out;
        p.pos = -1;
        if (const int rc = av_interleaved_write_frame(&out, &p); rc < 0)
            return fail("a video packet could not be written (" + av_text(rc) + ")");
        return true;
    }

    bool write_audio(AVFormatContext& out, AVPacket& p) {
        const auto in_index = static_cast<std::size_t>(p.stream_index);
        const AVStream& in = *source->streams[p.stream_index];
        const std::int64_t by = shift[in_index];
        if (p.pts != AV_NOPTS_VALUE) p.pts -= by;
        if (p.dts != AV_NOPTS_VALUE) p.dts -= by;
        if (p.duration <= 0) p.duration = av_get_audio_frame_duration2(in.codecpar, p.size);
        // The report's span, in the output's timeline.
        const std::size_t k =
            static_cast<std::size_t>(std::find_if(result.streams.begin(), result.streams.end(),
                                                  [&](const AudioStreamReport& r) {
                                                      return r.index == static_cast<int>(in_index);
                                                  }) -
                                     result.streams.begin());
        const std::int64_t ts = p.pts != AV_NOPTS_VALUE ? p.pts : p.dts;
        if (ts != AV_NOPTS_VALUE && k < spans.size()) {
            spans[k].first = std::min(spans[k].first, seconds_of(ts, in.time_base));
            spans[k].last = std::max(spans[k].last, seconds_of(ts + p.duration, in.time_base));
            ++result.streams[k].packets;
        }
        const int out_stream = out_index[in_index];
        av_packet_rescale_ts(&p, in.time_base, out.streams[out_stream]->time_base);
        p.stream_index = out_stream;
        p.pos = -1;
        if (const int rc = av_interleaved_write_frame(&out, &p); rc < 0)
            return fail("an audio packet could not be written (" + av_text(rc) + ")");
        return true;
    }

    bool finish(AVFormatContext& out) {
        if (const int rc = av_write_trailer(&out); rc < 0)
            return fail("the file could not be finished (" + av_text(rc) + ")");
        for (std::size_t k = 0; k < result.streams.size(); ++k)
            result.streams[k].seconds =
                spans[k].last > spans[k].first ? spans[k].last - spans[k].first : 0;
        return true;
    }

    bool fail(const std::string& why) {
        result.error = why;
        return false;
    }
};

}  // namespace

AudioPlan plan_audio_ffmpeg(const std::string& source, const std::string& output) {
    quiet_log();
    AudioPlan p;
    const AVOutputFormat* format = output_format(output, p.error);
    if (format == nullptr) return p;
    const Input in = open_input(source, p.error);
    if (!in) return p;
    return plan(*in, *format);
}

AudioPlan remux_audio_ffmpeg(const AudioRemuxRequest& request) {
    quiet_log();
    AudioPlan failed;
    const AVOutputFormat* format = output_format(request.output, failed.error);
    if (format == nullptr) return failed;
    Remux remux(request);
    if (!remux.open(*format)) return remux.result;
    // A container can accept a codec in principle and still refuse the stream when the header is
    // written (Vorbis in MP4 is "experimental" to FFmpeg): the video is then written alone, with
    // the reason.
    for (const bool with_audio : {true, false}) {
        if (!with_audio && remux.result.streams.empty()) break;
        AVFormatContext* raw = nullptr;
        if (avformat_alloc_output_context2(&raw, format, nullptr, request.output.c_str()) < 0 ||
            raw == nullptr) {
            remux.result.error = "out of memory";
            return remux.result;
        }
        const Output out(raw);
        const std::string why_not = remux.result.error;
        if (remux.write(*out, with_audio)) {
            if (!with_audio) {
                for (const AudioStreamReport& r : remux.result.streams)
                    remux.result.dropped.push_back(
                        "audio stream " + std::to_string(r.index) + " (" + r.codec +
                        ") left out: " + container_name(*format) + " refused it (" + why_not +
                        "; write .mkv to keep the sound)");
                remux.result.streams.clear();
            }
            remux.result.error.clear();
            return remux.result;
        }
        if (!with_audio || remux.result.streams.empty()) break;
        // Only a refused header is retried without the audio; a failure while writing packets
        // is an error of the output, which the video alone would meet too.
        if (remux.result.error.rfind("the container refused", 0) != 0) break;
    }
    return remux.result;
}

}  // namespace lacuna::io::detail
