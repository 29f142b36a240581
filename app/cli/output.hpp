// What the commands share about their outputs: writing a photo's result, and the fields a --json
// report opens with.
#pragma once

#include "commands.hpp"
#include "json.hpp"

#include <lacuna/core/image.hpp>
#include <lacuna/io/metadata.hpp>

#include <string>

namespace lacuna::cli {

/// Writes a photo's result to `out` with its input's colour profile and metadata (`metadata`;
/// orientation and size tags follow the new pixels); each thing the writer could not keep is one
/// note. The photo counterpart of write_measurement.
void write_photo(const Context& ctx, const std::string& out, ImageView<const Rgba8> image,
                 const io::Metadata& metadata);

/// The fields a resize's --json report opens with: input, output, width, height, target_width,
/// target_height.
JsonObject resize_report(const std::string& in, const std::string& out, int width, int height,
                         int target_width, int target_height);

}  // namespace lacuna::cli
