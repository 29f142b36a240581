// Carrying a clip's sound into a processed video. OpenCV's videoio writes video only; after it has
// written the frames to the writer's temporary file, a remux step (FFmpeg's libavformat) copies
// that file's video stream and the source's audio streams, packet for packet (no re-encoding),
// into the output container. A range of frames takes the audio of the same time span. A stream
// the output container cannot hold as it is (PCM in MP4) is transcoded to AAC, as a video editor
// does, with a sentence saying so; one that cannot be decoded either is left out.
//
// libavformat lives in the plugin (liblacuna_opencv.so, which loads FFmpeg for OpenCV's videoio
// anyway), so a program that writes no video never loads it (opencv_plugin.hpp says why that
// matters for start-up). These are plain data: no FFmpeg type appears here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lacuna::io {

/// One audio stream of a source, as carried (or as it would be).
struct AudioStreamReport {
    int index = 0;             ///< the stream's index in the source file
    std::string codec;         ///< written: FFmpeg's codec name ("aac", "pcm_s16le", "opus")
    std::string source_codec;  ///< the source's (= codec for a stream copy)
    bool copied = true;        ///< stream copy (the source's packets); false: transcoded to AAC
    int sample_rate = 0;
    int channels = 0;
    std::int64_t packets = 0;  ///< packets written (0 in a plan)
    double seconds = 0;  ///< written: first packet's start to last packet's end; plan: the source's
};

/// What the source's audio would become in a given output (AudioRemuxer::plan), or what it became
/// (AudioRemuxer::remux).
struct AudioPlan {
    std::vector<AudioStreamReport> streams;  ///< carried (to be carried) by stream copy
    int source_streams = 0;                  ///< audio streams in the source
    /// One sentence per stream transcoded (a codec the output container cannot hold as it is).
    std::vector<std::string> transcoded;
    /// One sentence per stream left out (not held by the container and not decodable).
    std::vector<std::string> dropped;
    /// Non-empty when the step failed (the source cannot be opened, the output cannot be written):
    /// a sentence without the file names, which the caller adds.
    std::string error;
};

/// The remux step: `video` (a finished video-only file) and the audio of `source` into `output`
/// (same container as `video`, chosen by its extension).
struct AudioRemuxRequest {
    std::string video;
    std::string source;
    std::string output;
    /// The span of the source's audio kept, in seconds from the source's first video frame: audio
    /// packets that start in [start, end) (a transcoded stream: the samples in it). start ≤ 0 keeps
    /// everything before the end (a whole clip's audio may start a little before its first frame);
    /// end < 0 keeps everything after the start. Kept packets are shifted by `start` (or by nothing
    /// when start ≤ 0), so the output's sound stays in sync with its first frame.
    double start = 0;
    double end = -1;
};

namespace detail {
// Implemented in audio_remux.cpp, compiled into the plugin only (OpenCvPlugin forwards to them).
AudioPlan plan_audio_ffmpeg(const std::string& source, const std::string& output);
AudioPlan remux_audio_ffmpeg(const AudioRemuxRequest& request);
}  // namespace detail

}  // namespace lacuna::io
