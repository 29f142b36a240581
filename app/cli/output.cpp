#include "output.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/io/video_io.hpp>

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

}  // namespace lacuna::cli
