// What the commands share about their outputs: the checks of an output path before any work
// (worded alike everywhere), writing a photo's result, and the fields a --json report opens with.
#pragma once

#include "commands.hpp"
#include "json.hpp"

#include <lacuna/core/image.hpp>
#include <lacuna/io/audio_remux.hpp>
#include <lacuna/io/metadata.hpp>

#include <initializer_list>
#include <string>
#include <vector>

namespace lacuna::cli {

/// Error(InvalidArgument) "refusing to overwrite the input '…'" where `out` is one of `inputs`.
void refuse_overwriting_inputs(const std::string& out, std::initializer_list<std::string> inputs);

/// A UsageError unless `out` names a video or a PNG sequence pattern: "the output of `what` (a
/// video, a video fill …) must be a video …".
void check_video_output(const std::string& out, const std::string& what);

/// Writes a photo's result to `out` with its input's colour profile and metadata (`metadata`;
/// orientation and size tags follow the new pixels); each thing the writer could not keep is one
/// note. The photo counterpart of write_measurement.
void write_photo(const Context& ctx, const std::string& out, ImageView<const Rgba8> image,
                 const io::Metadata& metadata);

/// The fields a resize's --json report opens with: input, output, width, height, target_width,
/// target_height.
JsonObject resize_report(const std::string& in, const std::string& out, int width, int height,
                         int target_width, int target_height);

/// What a video command did with its input's sound, for the summary on stderr and --json.
struct AudioOutcome {
    std::vector<io::AudioStreamReport> streams;  ///< written (stream copies or AAC transcodes)
    std::vector<std::string> left_out;           ///< one sentence per stream not written
    bool png_sequence = false;                   ///< the output holds no sound at all
    bool refused = false;                        ///< --no-audio
};

/// "lacuna: audio: 1 stream copied (aac, 48000 Hz, 2 ch, 0.80 s)\n", or "… audio: none (why)".
std::string audio_summary_line(const AudioOutcome& audio);

/// --json: "audio" (an array of {index, codec, source_codec, copied, sample_rate, channels,
/// packets, seconds}) and "audio_left_out" (the sentences).
JsonObject& add_audio(JsonObject& report, const AudioOutcome& audio);

}  // namespace lacuna::cli
