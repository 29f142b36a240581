// Harness: an image file's bytes through the header probe and both decoders that open files
// (decode_image: RGBA8 for photos; decode_native: the stored samples, DICOM and FITS included).
// read_image and read_native are these plus reading the file. A thrown lacuna::Error is the
// documented answer to a bad file; anything else (a crash, a sanitizer report, another
// exception, a hang) is a bug.
#include "fuzz_input.hpp"

#include "header_probe.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>

namespace {

// Headers announcing more pixels than this are still probed and checked, but not decoded: a valid
// 16384 x 16384 image would take most of libFuzzer's memory limit without finding anything.
constexpr std::int64_t kMaxDecodedPixels = std::int64_t{1} << 22;

void check_loaded(const lacuna::io::LoadedImage& loaded) {
    const auto& image = loaded.image;
    if (image.width() <= 0 || image.height() <= 0) lacuna::fuzz::violated("decoded an empty image");
    // Touch every pixel: a short buffer shows up under ASan.
    static volatile unsigned sink = 0;
    unsigned sum = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) sum += image.view().row(y)[x].a;
    sink = sum;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, const std::size_t size) {
    const std::vector<std::uint8_t> bytes(data, data + size);
    const lacuna::io::detail::HeaderProbe probe = lacuna::io::detail::probe_header(bytes);
    if (probe.width && probe.height && *probe.width > 0 && *probe.height > 0 &&
        *probe.width > kMaxDecodedPixels / *probe.height) {
        return 0;
    }
    try {
        check_loaded(lacuna::io::decode_image(bytes, "fuzz input"));
    } catch (const lacuna::Error&) {
    }
    try {
        const lacuna::io::LoadedNative native = lacuna::io::decode_native(bytes, "fuzz input");
        if (native.pages.empty()) lacuna::fuzz::violated("decode_native returned no page");
    } catch (const lacuna::Error&) {
    }
    return 0;
}
