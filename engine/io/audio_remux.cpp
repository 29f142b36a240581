// The remux step of lacuna/io/audio_remux.hpp, with FFmpeg's libavformat. Compiled into the
// plugin (liblacuna_opencv.so) only, so that libavformat is loaded with OpenCV's videoio and never
// at a program's start.
#include <lacuna/io/audio_remux.hpp>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libswresample/swresample.h>
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

// Whether a stream the container cannot hold can be decoded and written as AAC instead.
bool can_transcode(const AVCodecParameters& par, const AVOutputFormat& format) {
    return par.codec_id != AV_CODEC_ID_NONE && avcodec_find_decoder(par.codec_id) != nullptr &&
           avcodec_find_encoder(AV_CODEC_ID_AAC) != nullptr &&
           avformat_query_codec(&format, AV_CODEC_ID_AAC, FF_COMPLIANCE_NORMAL) == 1 &&
           par.ch_layout.nb_channels >= 1 && par.ch_layout.nb_channels <= 8 && par.sample_rate > 0;
}

// Which of the source's audio streams the output container holds as they are (copied), which
// it does not (transcoded to AAC, each with a sentence), and which cannot be written at all (left
// out, each with a sentence). The containers Lacuna writes hold the common codecs as they are
// (AAC, MP3, Opus, AC-3, FLAC; PCM in MKV, MOV and AVI; Matroska every one).
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
        r.source_codec = r.codec;
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
        } else if (can_transcode(par, format)) {
            r.copied = false;
            r.codec = "aac";
            p.streams.push_back(r);
            p.transcoded.push_back("audio stream " + std::to_string(i) + " (" + r.source_codec +
                                   ") transcoded to AAC: " + container_name(format) +
                                   " cannot hold it as it is (write .mkv to keep it unchanged)");
        } else {
            p.dropped.push_back("audio stream " + std::to_string(i) + " (" + r.codec +
                                ") left out: " + container_name(format) +
                                " cannot hold it as it is and FFmpeg cannot decode it (write "
                                ".mkv to keep the sound)");
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

struct CodecFree {
    void operator()(AVCodecContext* c) const { avcodec_free_context(&c); }
};
struct FrameFree {
    void operator()(AVFrame* f) const { av_frame_free(&f); }
};
struct SwrFree {
    void operator()(SwrContext* s) const { swr_free(&s); }
};
struct FifoFree {
    void operator()(AVAudioFifo* f) const { av_audio_fifo_free(f); }
};
using Frame = std::unique_ptr<AVFrame, FrameFree>;

// The AAC encoder's sample rate nearest above (or else below) the source's: it takes the standard
// rates only (7350 to 96000 Hz).
int aac_rate(const AVCodec& codec, const int rate) {
    int best = 48000;
    if (codec.supported_samplerates == nullptr) return rate;
    int best_gap = std::numeric_limits<int>::max();
    for (const int* r = codec.supported_samplerates; *r != 0; ++r) {
        if (*r == rate) return rate;
        const int gap = *r > rate ? *r - rate : 2 * (rate - *r);  // prefer going up
        if (gap < best_gap) best_gap = gap, best = *r;
    }
    return best;
}

// One source stream decoded, resampled to float planes and encoded as AAC (libavcodec's own
// encoder, 96 kb/s a channel), the samples outside the kept span dropped.
class Transcoder {
  public:
    /// Opens the decoder of `in` and an AAC encoder whose parameters go to `os`; "" or why not.
    std::string open(const AVStream& in, const AVOutputFormat& format, AVStream& os) {
        in_base_ = in.time_base;
        const AVCodec* decoder = avcodec_find_decoder(in.codecpar->codec_id);
        const AVCodec* encoder = avcodec_find_encoder(AV_CODEC_ID_AAC);
        if (decoder == nullptr || encoder == nullptr) return "no decoder or no AAC encoder";
        dec_.reset(avcodec_alloc_context3(decoder));
        enc_.reset(avcodec_alloc_context3(encoder));
        if (!dec_ || !enc_) return "out of memory";
        avcodec_parameters_to_context(dec_.get(), in.codecpar);
        dec_->pkt_timebase = in.time_base;
        if (avcodec_open2(dec_.get(), decoder, nullptr) < 0) return "its decoder cannot be opened";
        const int channels = dec_->ch_layout.nb_channels;
        if (dec_->ch_layout.order == AV_CHANNEL_ORDER_UNSPEC) {
            av_channel_layout_uninit(&dec_->ch_layout);
            av_channel_layout_default(&dec_->ch_layout, channels);
        }
        enc_->sample_fmt = AV_SAMPLE_FMT_FLTP;
        enc_->sample_rate = aac_rate(*encoder, dec_->sample_rate);
        av_channel_layout_copy(&enc_->ch_layout, &dec_->ch_layout);
        enc_->bit_rate = 96000LL * channels;
        enc_->time_base = AVRational{1, enc_->sample_rate};
        if ((format.flags & AVFMT_GLOBALHEADER) != 0) enc_->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
        if (avcodec_open2(enc_.get(), encoder, nullptr) < 0)
            return "the AAC encoder does not take its " + std::to_string(channels) + " channels";
        if (avcodec_parameters_from_context(os.codecpar, enc_.get()) < 0) return "out of memory";
        os.time_base = enc_->time_base;
        SwrContext* swr = nullptr;
        if (swr_alloc_set_opts2(&swr, &enc_->ch_layout, enc_->sample_fmt, enc_->sample_rate,
                                &dec_->ch_layout, dec_->sample_fmt, dec_->sample_rate, 0,
                                nullptr) < 0 ||
            swr_init(swr) < 0) {
            swr_free(&swr);
            return "its samples cannot be converted";
        }
        swr_.reset(swr);
        fifo_.reset(av_audio_fifo_alloc(enc_->sample_fmt, channels, enc_->frame_size));
        if (!fifo_) return "out of memory";
        return "";
    }

    /// The kept span in the output's timeline (seconds; `to` < 0: no end) and the shift from the
    /// source's timeline to it.
    void span(const double from, const double to, const double shift) {
        from_ = from, to_ = to, shift_ = shift;
    }

    /// Decodes `packet` (nullptr: the end) and hands every AAC packet made to `emit` (in the
    /// encoder's time base); "" or why not.
    template <class Emit>
    std::string push(const AVPacket* packet, const Emit& emit) {
        if (avcodec_send_packet(dec_.get(), packet) < 0 && packet != nullptr)
            return "";  // a damaged packet is skipped, as a player would
        const Frame frame(av_frame_alloc());
        while (avcodec_receive_frame(dec_.get(), frame.get()) == 0) {
            if (const std::string e = take(*frame); !e.empty()) return e;
            av_frame_unref(frame.get());
        }
        if (packet == nullptr) {
            if (const std::string e = convert(nullptr, 0); !e.empty()) return e;
            return encode(true, emit);
        }
        return encode(false, emit);
    }

  private:
    // The frame's samples inside the span, converted into the FIFO.
    std::string take(const AVFrame& f) {
        const std::int64_t ts =
            f.best_effort_timestamp != AV_NOPTS_VALUE ? f.best_effort_timestamp : f.pts;
        const double rate = f.sample_rate > 0 ? f.sample_rate : dec_->sample_rate;
        const double t0 = ts == AV_NOPTS_VALUE ? next_in_ : seconds_of(ts, in_base_) - shift_;
        next_in_ = t0 + f.nb_samples / rate;
        // The span's ends as samples of this frame, clamped while still doubles: an open start
        // (from_ is -inf) has no integer value.
        const auto sample_of = [&](const double t) {
            return static_cast<std::int64_t>(
                std::clamp(std::ceil((t - t0) * rate - 1e-6), 0.0, double(f.nb_samples)));
        };
        const std::int64_t first = sample_of(from_);
        const std::int64_t last =
            to_ < 0 ? std::int64_t{f.nb_samples} : std::max(sample_of(to_), first);
        if (last == first) return "";
        if (next_out_ == AV_NOPTS_VALUE)  // the first sample kept sets the stream's start
            next_out_ = std::max<std::int64_t>(
                0, std::llround((t0 + static_cast<double>(first) / rate) * enc_->sample_rate));
        const auto format = static_cast<AVSampleFormat>(f.format);
        const int bytes = av_get_bytes_per_sample(format);
        const int channels = f.ch_layout.nb_channels;
        std::vector<const std::uint8_t*> planes;
        if (av_sample_fmt_is_planar(format) != 0) {
            for (int c = 0; c < channels; ++c) planes.push_back(f.extended_data[c] + first * bytes);
        } else {
            planes.push_back(f.extended_data[0] + first * bytes * channels);
        }
        return convert(planes.data(), static_cast<int>(last - first));
    }

    std::string convert(const std::uint8_t* const* planes, const int count) {
        const int room = swr_get_out_samples(swr_.get(), count);
        if (room <= 0) return "";
        const Frame out(av_frame_alloc());
        out->format = enc_->sample_fmt;
        out->nb_samples = room;
        av_channel_layout_copy(&out->ch_layout, &enc_->ch_layout);
        if (av_frame_get_buffer(out.get(), 0) < 0) return "out of memory";
        const int made = swr_convert(swr_.get(), out->extended_data, room,
                                     const_cast<const std::uint8_t**>(planes), count);
        if (made < 0) return "its samples cannot be converted";
        if (made > 0 && av_audio_fifo_write(
                            fifo_.get(), reinterpret_cast<void**>(out->extended_data), made) < made)
            return "out of memory";
        return "";
    }

    template <class Emit>
    std::string encode(const bool last, const Emit& emit) {
        const int size = enc_->frame_size;
        while (av_audio_fifo_size(fifo_.get()) >= size ||
               (last && av_audio_fifo_size(fifo_.get()) > 0)) {
            const Frame f(av_frame_alloc());
            f->nb_samples = std::min(size, av_audio_fifo_size(fifo_.get()));
            f->format = enc_->sample_fmt;
            f->sample_rate = enc_->sample_rate;
            av_channel_layout_copy(&f->ch_layout, &enc_->ch_layout);
            if (av_frame_get_buffer(f.get(), 0) < 0) return "out of memory";
            av_audio_fifo_read(fifo_.get(), reinterpret_cast<void**>(f->data), f->nb_samples);
            f->pts = next_out_;
            next_out_ += f->nb_samples;
            if (avcodec_send_frame(enc_.get(), f.get()) < 0) return "the AAC encoder failed";
            if (const std::string e = drain(emit); !e.empty()) return e;
        }
        if (last) {
            avcodec_send_frame(enc_.get(), nullptr);
            return drain(emit);
        }
        return "";
    }

    template <class Emit>
    std::string drain(const Emit& emit) {
        const Packet p(av_packet_alloc());
        while (avcodec_receive_packet(enc_.get(), p.get()) == 0) {
            if (const std::string e = emit(*p, enc_->time_base); !e.empty()) return e;
            av_packet_unref(p.get());
        }
        return "";
    }

    std::unique_ptr<AVCodecContext, CodecFree> dec_, enc_;
    std::unique_ptr<SwrContext, SwrFree> swr_;
    std::unique_ptr<AVAudioFifo, FifoFree> fifo_;
    AVRational in_base_{1, 1};
    double from_ = -std::numeric_limits<double>::infinity(), to_ = -1, shift_ = 0;
    double next_in_ = 0;
    std::int64_t next_out_ = AV_NOPTS_VALUE;
};

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
    /// Per source stream: its transcoder when it is transcoded, otherwise null.
    std::vector<std::unique_ptr<Transcoder>> transcoders;
    bool header_written = false;

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
        // A transcoded stream's decoder sees every packet; the samples are cut after decoding.
        if (transcoders[static_cast<std::size_t>(p.stream_index)]) return true;
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
        transcoders.clear();
        transcoders.resize(source->nb_streams);
        header_written = false;
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
                if (as == nullptr) return fail("out of memory");
                const double by = request.start > 0 ? origin + request.start : origin;
                const auto index = static_cast<std::size_t>(r.index);
                if (r.copied) {
                    if (avcodec_parameters_copy(as->codecpar, in.codecpar) < 0)
                        return fail("out of memory");
                    as->codecpar->codec_tag = 0;
                    as->time_base = in.time_base;
                    shift[index] = std::llround(by / av_q2d(in.time_base));
                } else {
                    auto t = std::make_unique<Transcoder>();
                    if (const std::string why = t->open(in, *out.oformat, *as); !why.empty())
                        return fail("audio stream " + std::to_string(r.index) + " (" +
                                    r.source_codec + ") cannot be transcoded: " + why);
                    t->span(request.start > 0 ? 0.0 : -std::numeric_limits<double>::infinity(),
                            request.end >= 0 ? request.end - std::max(0.0, request.start) : -1.0,
                            by);
                    transcoders[index] = std::move(t);
                }
                as->disposition = in.disposition;
                av_dict_copy(&as->metadata, in.metadata, 0);  // language, title
                out_index[index] = as->index;
            }
        }
        spans.assign(result.streams.size(), Span{});
        if (const int rc = avio_open(&out.pb, request.output.c_str(), AVIO_FLAG_WRITE); rc < 0)
            return fail("cannot create the file (" + av_text(rc) + ")");
        if (const int rc = avformat_write_header(&out, nullptr); rc < 0)
            return fail("the container refused the streams (" + av_text(rc) + ")");
        header_written = true;
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

    // Writes an audio packet of source stream `in_index` (in `base`, the output's timeline) and
    // counts it in the report.
    bool put_audio(AVFormatContext& out, AVPacket& p, const std::size_t in_index,
                   const AVRational base) {
        const auto k =
            static_cast<std::size_t>(std::find_if(result.streams.begin(), result.streams.end(),
                                                  [&](const AudioStreamReport& r) {
                                                      return r.index == static_cast<int>(in_index);
                                                  }) -
                                     result.streams.begin());
        const std::int64_t ts = p.pts != AV_NOPTS_VALUE ? p.pts : p.dts;
        if (ts != AV_NOPTS_VALUE && k < spans.size()) {
            spans[k].first = std::min(spans[k].first, seconds_of(ts, base));
            spans[k].last = std::max(spans[k].last, seconds_of(ts + p.duration, base));
            ++result.streams[k].packets;
        }
        const int out_stream = out_index[in_index];
        av_packet_rescale_ts(&p, base, out.streams[out_stream]->time_base);
        p.stream_index = out_stream;
        p.pos = -1;
        if (const int rc = av_interleaved_write_frame(&out, &p); rc < 0)
            return fail("an audio packet could not be written (" + av_text(rc) + ")");
        return true;
    }

    // What a transcoder makes goes out as it comes.
    auto emitter(AVFormatContext& out, const std::size_t in_index) {
        return [this, &out, in_index](AVPacket& p, const AVRational base) -> std::string {
            return put_audio(out, p, in_index, base) ? "" : result.error;
        };
    }

    bool write_audio(AVFormatContext& out, AVPacket& p) {
        const auto in_index = static_cast<std::size_t>(p.stream_index);
        const AVStream& in = *source->streams[p.stream_index];
        if (Transcoder* t = transcoders[in_index].get()) {
            const std::string why = t->push(&p, emitter(out, in_index));
            return why.empty() || fail(why);
        }
        const std::int64_t by = shift[in_index];
        if (p.pts != AV_NOPTS_VALUE) p.pts -= by;
        if (p.dts != AV_NOPTS_VALUE) p.dts -= by;
        if (p.duration <= 0) p.duration = av_get_audio_frame_duration2(in.codecpar, p.size);
        return put_audio(out, p, in_index, in.time_base);
    }

    bool finish(AVFormatContext& out) {
        for (std::size_t i = 0; i < transcoders.size(); ++i)
            if (transcoders[i])
                if (const std::string why = transcoders[i]->push(nullptr, emitter(out, i));
                    !why.empty())
                    return fail(why);
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
    // written (Vorbis in MP4 is "experimental" to FFmpeg), and an encoder can refuse a channel
    // layout: the video is then written alone, with the reason.
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
                        "audio stream " + std::to_string(r.index) + " (" + r.source_codec +
                        ") left out: " + container_name(*format) + " refused it (" + why_not +
                        "; write .mkv to keep the sound)");
                remux.result.streams.clear();
                remux.result.transcoded.clear();
            }
            remux.result.error.clear();
            return remux.result;
        }
        if (!with_audio || remux.result.streams.empty()) break;
        // Only a failure before any packet is retried without the audio; one while writing
        // packets is an error of the output, which the video alone would meet too.
        if (remux.header_written) break;
    }
    return remux.result;
}

}  // namespace lacuna::io::detail
