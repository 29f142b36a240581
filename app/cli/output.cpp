#include "output.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/io/video_io.hpp>

#include <algorithm>
#include <cstdio>

namespace lacuna::cli {

void refuse_overwriting_inputs(const std::string& out,
                               const std::initializer_list<std::string> inputs) {
    for (const std::string& in : inputs)
        if (io::same_file(in, out))
            throw Error(ErrorCode::InvalidArgument, "refusing to overwrite the input '" + in + "'");
}

void check_video_output(const std::string& out, const std::string& what) {
    if (!io::is_video_path(out))
        throw UsageError("the output of " + what +
                         " must be a video (.mp4, .mkv, .avi, .mov) or a PNG sequence pattern "
                         "such as frames/%05d.png");
}

void write_photo(const Context& ctx, const std::string& out, const ImageView<const Rgba8> image,
                 const io::Metadata& metadata) {
    io::WriteOptions keep;
    keep.metadata = &metadata;
    for (const std::string& n : io::write_image(out, image, keep)) ctx.note(n);
}

JsonObject resize_report(const std::string& in, const std::string& out, const int width,
                         const int height, const int target_width, const int target_height) {
    JsonObject report;
    report.add("input", in)
        .add("output", out)
        .add("width", width)
        .add("height", height)
        .add("target_width", target_width)
        .add("target_height", target_height);
    return report;
}

std::string audio_summary_line(const AudioOutcome& audio) {
    std::string line = "lacuna: audio: ";
    if (!audio.streams.empty()) {
        const bool all_copied =
            std::all_of(audio.streams.begin(), audio.streams.end(),
                        [](const io::AudioStreamReport& a) { return a.copied; });
        line += std::to_string(audio.streams.size()) +
                (audio.streams.size() == 1 ? " stream " : " streams ") +
                (all_copied ? "copied (" : "carried (");
        for (std::size_t i = 0; i < audio.streams.size(); ++i) {
            const io::AudioStreamReport& a = audio.streams[i];
            const std::string codec =
                a.copied ? a.codec : a.source_codec + " transcoded to " + a.codec;
            char text[200];
            std::snprintf(text, sizeof text, "%s%s, %d Hz, %d ch, %.2f s", i > 0 ? "; " : "",
                          codec.c_str(), a.sample_rate, a.channels, a.seconds);
            line += text;
        }
        line += ")";
        if (!audio.left_out.empty())
            line += ", " + std::to_string(audio.left_out.size()) + " left out";
    } else if (audio.png_sequence) {
        line += "none (a PNG sequence holds no sound)";
    } else if (audio.refused) {
        line += "none (--no-audio)";
    } else if (!audio.left_out.empty()) {
        line += "none written (" + audio.left_out.front() + ")";
    } else {
        line += "none (the input has no sound)";
    }
    return line + "\n";
}

JsonObject& add_audio(JsonObject& report, const AudioOutcome& audio) {
    std::vector<JsonObject> streams;
    for (const io::AudioStreamReport& a : audio.streams) {
        JsonObject s;
        s.add("index", a.index)
            .add("codec", a.codec)
            .add("source_codec", a.source_codec)
            .add("copied", a.copied)
            .add("sample_rate", a.sample_rate)
            .add("channels", a.channels)
            .add("packets", a.packets)
            .add("seconds", a.seconds);
        streams.push_back(std::move(s));
    }
    return report.add_raw("audio", json_array(streams)).add("audio_left_out", audio.left_out);
}

}  // namespace lacuna::cli
