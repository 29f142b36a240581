// Test clips with sound, and what a file's audio streams hold, through FFmpeg's libraries
// directly (not Lacuna's remux step, which the tests check against this).
#pragma once

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/channel_layout.h>
}

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace test_av {

namespace fs = std::filesystem;

struct Packet {
    std::vector<std::uint8_t> data;
    std::int64_t pts = 0, dts = 0, duration = 0;
    int stream = 0;
    AVRational base{1, 1};
    int flags = 0;
    [[nodiscard]] double seconds() const { return static_cast<double>(dts) * av_q2d(base); }
};

inline void check(const int rc, const char* what) {
    if (rc < 0) {
        char text[AV_ERROR_MAX_STRING_SIZE] = {};
        av_strerror(rc, text, sizeof text);
        throw std::runtime_error(std::string(what) + ": " + text);
    }
}

/// Encodes `seconds` of a tone whose pitch and loudness change every packet (so no two packets
/// are alike) with FFmpeg's encoder `encoder` ("aac", "pcm_s16le"), 1024 samples a packet.
inline std::vector<Packet> encode_tone(const char* encoder, const double seconds, const int rate,
                                       const int channels, AVCodecParameters* par) {
    const AVCodec* codec = avcodec_find_encoder_by_name(encoder);
    if (codec == nullptr) throw std::runtime_error(std::string("no encoder ") + encoder);
    AVCodecContext* ctx = avcodec_alloc_context3(codec);
    ctx->sample_rate = rate;
    av_channel_layout_default(&ctx->ch_layout, channels);
    ctx->sample_fmt = codec->sample_fmts[0];
    ctx->time_base = AVRational{1, rate};
    ctx->bit_rate = 64000 * channels;
    check(avcodec_open2(ctx, codec, nullptr), "open the audio encoder");
    check(avcodec_parameters_from_context(par, ctx), "audio parameters");
    const int per_frame = ctx->frame_size > 0 ? ctx->frame_size : 1024;
    AVFrame* frame = av_frame_alloc();
    AVPacket* packet = av_packet_alloc();
    std::vector<Packet> out;
    const auto drain = [&] {
        while (avcodec_receive_packet(ctx, packet) == 0) {
            out.push_back({std::vector<std::uint8_t>(packet->data, packet->data + packet->size),
                           packet->pts, packet->dts, packet->duration, 1, ctx->time_base,
                           packet->flags});
            av_packet_unref(packet);
        }
    };
    const auto total = static_cast<std::int64_t>(std::llround(seconds * rate));
    for (std::int64_t start = 0; start < total; start += per_frame) {
        frame->nb_samples = static_cast<int>(std::min<std::int64_t>(per_frame, total - start));
        if (ctx->frame_size > 0 && frame->nb_samples < ctx->frame_size &&
            (codec->capabilities & AV_CODEC_CAP_VARIABLE_FRAME_SIZE) == 0)
            break;  // the encoder takes whole frames only: the clip ends a little early
        frame->format = ctx->sample_fmt;
        av_channel_layout_copy(&frame->ch_layout, &ctx->ch_layout);
        frame->sample_rate = rate;
        check(av_frame_get_buffer(frame, 0), "audio frame");
        const double pitch = 220.0 + 20.0 * static_cast<double>(start / per_frame % 13);
        for (int i = 0; i < frame->nb_samples; ++i) {
            const double t = static_cast<double>(start + i) / rate;
            const double v = 0.3 * std::sin(2 * M_PI * pitch * t);
            for (int c = 0; c < channels; ++c) {
                if (ctx->sample_fmt == AV_SAMPLE_FMT_FLTP)
                    reinterpret_cast<float*>(frame->data[c])[i] = static_cast<float>(v);
                else  // interleaved 16-bit
                    reinterpret_cast<std::int16_t*>(frame->data[0])[i * channels + c] =
                        static_cast<std::int16_t>(v * 32767 * (c + 1) / channels);
            }
        }
        frame->pts = start;
        check(avcodec_send_frame(ctx, frame), "encode audio");
        av_frame_unref(frame);
        drain();
    }
    avcodec_send_frame(ctx, nullptr);
    drain();
    av_packet_free(&packet);
    av_frame_free(&frame);
    avcodec_free_context(&ctx);
    return out;
}

/// `video_only` (a video file without sound) with `seconds` of tone added by `encoder`, into `out`
/// (the container from its extension).
inline void add_tone(const fs::path& video_only, const fs::path& out, const char* encoder,
                     const double seconds, const int rate = 44100, const int channels = 2) {
    AVFormatContext* in = nullptr;
    check(avformat_open_input(&in, video_only.c_str(), nullptr, nullptr), "open the video");
    check(avformat_find_stream_info(in, nullptr), "video streams");
    AVFormatContext* mux = nullptr;
    check(avformat_alloc_output_context2(&mux, nullptr, nullptr, out.c_str()), "muxer");
    AVStream* vs = avformat_new_stream(mux, nullptr);
    check(avcodec_parameters_copy(vs->codecpar, in->streams[0]->codecpar), "video parameters");
    vs->codecpar->codec_tag = 0;
    vs->time_base = in->streams[0]->time_base;
    AVStream* as = avformat_new_stream(mux, nullptr);
    std::vector<Packet> audio = encode_tone(encoder, seconds, rate, channels, as->codecpar);
    as->time_base = AVRational{1, rate};
    check(avio_open(&mux->pb, out.c_str(), AVIO_FLAG_WRITE), "create the clip");
    check(avformat_write_header(mux, nullptr), "clip header");
    std::vector<Packet> video;
    AVPacket* p = av_packet_alloc();
    while (av_read_frame(in, p) >= 0) {
        if (p->stream_index == 0)
            video.push_back({std::vector<std::uint8_t>(p->data, p->data + p->size), p->pts, p->dts,
                             p->duration, 0, in->streams[0]->time_base, p->flags});
        av_packet_unref(p);
    }
    std::size_t v = 0, a = 0;
    while (v < video.size() || a < audio.size()) {
        const bool take_video =
            v < video.size() && (a >= audio.size() || video[v].seconds() <= audio[a].seconds());
        const Packet& src = take_video ? video[v++] : audio[a++];
        check(av_new_packet(p, static_cast<int>(src.data.size())), "packet");
        std::copy(src.data.begin(), src.data.end(), p->data);
        p->pts = src.pts;
        p->dts = src.dts;
        p->duration = src.duration;
        p->stream_index = take_video ? 0 : 1;
        p->flags = src.flags;
        av_packet_rescale_ts(p, src.base, mux->streams[p->stream_index]->time_base);
        check(av_interleaved_write_frame(mux, p), "write a clip packet");
    }
    check(av_write_trailer(mux), "clip trailer");
    av_packet_free(&p);
    avio_closep(&mux->pb);
    avformat_free_context(mux);
    avformat_close_input(&in);
}

struct AudioStream {
    std::string codec;
    int sample_rate = 0, channels = 0;
    std::vector<Packet> packets;
    /// First packet's start to last packet's end.
    [[nodiscard]] double seconds() const {
        if (packets.empty()) return 0;
        const Packet& a = packets.front();
        const Packet& b = packets.back();
        return static_cast<double>(b.pts + b.duration - a.pts) * av_q2d(a.base);
    }
    /// The last packet's end.
    [[nodiscard]] double end() const {
        if (packets.empty()) return 0;
        const Packet& b = packets.back();
        return static_cast<double>(b.pts + b.duration) * av_q2d(b.base);
    }
    [[nodiscard]] double start() const {
        return packets.empty()
                   ? 0
                   : static_cast<double>(packets.front().pts) * av_q2d(packets.front().base);
    }
};

/// Every audio stream of `path` with its packets; `video_streams` counts the others.
inline std::vector<AudioStream> audio_streams(const fs::path& path, int* video_streams = nullptr) {
    AVFormatContext* in = nullptr;
    check(avformat_open_input(&in, path.c_str(), nullptr, nullptr), "open");
    check(avformat_find_stream_info(in, nullptr), "streams");
    std::vector<AudioStream> streams;
    std::vector<int> which(in->nb_streams, -1);
    int videos = 0;
    for (unsigned i = 0; i < in->nb_streams; ++i) {
        const AVCodecParameters* par = in->streams[i]->codecpar;
        if (par->codec_type == AVMEDIA_TYPE_VIDEO) ++videos;
        if (par->codec_type != AVMEDIA_TYPE_AUDIO) continue;
        which[i] = static_cast<int>(streams.size());
        streams.push_back(
            {avcodec_get_name(par->codec_id), par->sample_rate, par->ch_layout.nb_channels, {}});
    }
    AVPacket* p = av_packet_alloc();
    while (av_read_frame(in, p) >= 0) {
        if (const int k = which[static_cast<std::size_t>(p->stream_index)]; k >= 0) {
            const AVStream* s = in->streams[p->stream_index];
            std::int64_t duration = p->duration;
            if (duration <= 0) duration = av_get_audio_frame_duration2(s->codecpar, p->size);
            streams[static_cast<std::size_t>(k)].packets.push_back(
                {std::vector<std::uint8_t>(p->data, p->data + p->size),
                 p->pts != AV_NOPTS_VALUE ? p->pts : p->dts, p->dts, duration, p->stream_index,
                 s->time_base, p->flags});
        }
        av_packet_unref(p);
    }
    av_packet_free(&p);
    avformat_close_input(&in);
    if (video_streams != nullptr) *video_streams = videos;
    return streams;
}

}  // namespace test_av
