// Harness: the CLI's mask loader (cli::load_mask: read_image, mask_from_image, check_mask_size),
// which retarget --protect/--remove and inpaint's masks go through. Input: the size the mask must
// match (two little-endian 16-bit numbers), then the mask file's bytes, written to a scratch file
// because load_mask takes a path.
#include "fuzz_input.hpp"

#include "commands.hpp"
#include "header_probe.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/core/mask.hpp>

namespace {
constexpr std::int64_t kMaxDecodedPixels = std::int64_t{1} << 22;  // as in fuzz_image_decode
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, const std::size_t size) {
    lacuna::fuzz::Input in(data, size);
    const int width = in.take<std::uint16_t>();
    const int height = in.take<std::uint16_t>();
    const auto file = in.rest();
    const auto probe =
        lacuna::io::detail::probe_header(std::vector<std::uint8_t>(file.begin(), file.end()));
    if (probe.width && probe.height && *probe.width > 0 && *probe.height > 0 &&
        *probe.width > kMaxDecodedPixels / *probe.height) {
        return 0;
    }
    const std::filesystem::path path = lacuna::fuzz::write_scratch("mask", file);
    try {
        const lacuna::Mask mask = lacuna::cli::load_mask(path.string(), "the mask", width, height);
        if (mask.width() != width || mask.height() != height)
            lacuna::fuzz::violated("load_mask returned a mask of another size");
        if (lacuna::count_selected(mask.view()) > std::int64_t{width} * height)
            lacuna::fuzz::violated("more pixels selected than the mask has");
    } catch (const lacuna::Error&) {
    }
    return 0;
}
