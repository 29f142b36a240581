#include "output.hpp"

#include <lacuna/io/image_io.hpp>

namespace lacuna::cli {

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
