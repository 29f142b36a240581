// Comparison harness, not one of Lacuna's (issue 34, item 3: "what the fuzzers find" for
// OpenImageIO beside the codec libraries called directly). It decodes the input the way Lacuna
// would have through OpenImageIO 2.4: ImageInput from memory (Filesystem::IOMemReader given as
// the "oiio:ioproxy" open hint) with "oiio:UnassociatedAlpha" = 1, every subimage read. The
// formats are the ones Lacuna reads (fuzz_image_decode's seeds): PNG, JPEG, TIFF, WebP, GIF, BMP
// and PNM/PFM from memory; DICOM (DCMTK) and FITS, whose OpenImageIO readers take no I/O proxy,
// from a scratch file. Built only where libopenimageio-dev is installed, never by CI
// (fuzz/CMakeLists.txt); run with `fuzz/run.sh 600 fuzz_oiio_decode`.
//
// Only this file is instrumented: Debian's OpenImageIO and the codec libraries under it are not,
// so libFuzzer's coverage (cov/ft) counts this harness's edges only, and ASan checks OpenImageIO's
// heap use only where it goes through intercepted calls (malloc/free, memcpy, string functions);
// a wild read or write inside the library is seen only when it faults.
#include "fuzz_input.hpp"

#include <OpenImageIO/filesystem.h>
#include <OpenImageIO/imageio.h>

#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <string_view>

namespace {

// As fuzz_image_decode: headers announcing more pixels than this (over all subimages) are opened
// but not decoded, so a valid huge image does not take libFuzzer's memory limit.
constexpr std::int64_t kMaxDecodedPixels = std::int64_t{1} << 22;

struct Format {
    const char* extension;  // OpenImageIO picks its reader by the name's extension only
    bool from_memory;       // the reader supports "ioproxy"
};

bool starts_with(std::span<const std::uint8_t> bytes, const std::size_t at,
                 const std::string_view magic) {
    return bytes.size() >= at + magic.size() &&
           std::memcmp(bytes.data() + at, magic.data(), magic.size()) == 0;
}

// OpenImageIO 2.4 does not sniff a proxy's bytes: with an unknown or wrong extension the open
// fails, so the format is picked here from the magic, as Lacuna's header probe does.
const Format* sniff(std::span<const std::uint8_t> b) {
    static constexpr Format png{"png", true}, jpeg{"jpg", true}, tiff{"tif", true},
        webp{"webp", true}, gif{"gif", true}, bmp{"bmp", true}, pnm{"pnm", true},
        dicom{"dcm", false}, fits{"fits", false};
    if (starts_with(b, 0, "\x89PNG")) return &png;
    if (starts_with(b, 0, "\xFF\xD8\xFF")) return &jpeg;
    using namespace std::string_view_literals;
    if (starts_with(b, 0, "II*\0"sv) || starts_with(b, 0, "MM\0*"sv) ||
        starts_with(b, 0, "II+\0"sv) || starts_with(b, 0, "MM\0+"sv))
        return &tiff;
    if (starts_with(b, 0, "RIFF") && starts_with(b, 8, "WEBP")) return &webp;
    if (starts_with(b, 0, "GIF8")) return &gif;
    if (starts_with(b, 0, "BM")) return &bmp;
    if (b.size() >= 2 && b[0] == 'P' && b[1] != 0 && std::strchr("123456fF", b[1]) != nullptr)
        return &pnm;
    if (starts_with(b, 128, "DICM")) return &dicom;
    if (starts_with(b, 0, "SIMPLE  =")) return &fits;
    return nullptr;
}

// Every decoded byte is summed into this, so a short buffer would be read past under ASan.
volatile unsigned g_sink = 0;

void read_every_subimage(OIIO::ImageInput& in) {
    std::int64_t pixels_left = kMaxDecodedPixels;
    for (int subimage = 0; in.seek_subimage(subimage, 0); ++subimage) {
        const OIIO::ImageSpec& spec = in.spec();
        if (spec.deep || spec.width <= 0 || spec.height <= 0 || spec.depth <= 0 ||
            spec.nchannels <= 0)
            return;
        const std::int64_t pixels = std::int64_t{spec.width} * spec.height * spec.depth;
        if (pixels > pixels_left) return;
        pixels_left -= pixels;
        const OIIO::TypeDesc format = spec.format;
        std::vector<unsigned char> data(static_cast<std::size_t>(pixels) * spec.nchannels *
                                        format.size());
        if (!in.read_image(subimage, 0, 0, spec.nchannels, format, data.data())) {
            (void)in.geterror();  // clears it; a refusal is a valid answer
            return;
        }
        unsigned sum = 0;
        for (const unsigned char v : data) sum += v;
        g_sink = sum;
    }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    // One input at a time is the unit, as OPENCV_FOR_THREADS_NUM=1 for Lacuna's harnesses.
    OIIO::attribute("threads", 1);
    OIIO::attribute("exr_threads", 1);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, const std::size_t size) {
    const std::span<const std::uint8_t> bytes(data, size);
    const Format* format = sniff(bytes);
    if (format == nullptr) return 0;

    // The proxy outlives the ImageInput reading from it (declared first, destroyed last).
    OIIO::Filesystem::IOMemReader memory(data, size);
    OIIO::Filesystem::IOProxy* proxy = &memory;
    OIIO::ImageSpec config;
    config.attribute("oiio:UnassociatedAlpha", 1);
    std::string name = std::string("input.") + format->extension;
    if (format->from_memory)
        config.attribute("oiio:ioproxy", OIIO::TypeDesc::PTR, &proxy);
    else
        name = lacuna::fuzz::write_scratch(name, bytes).string();
    // OpenImageIO reports a bad file by returning null or false, but its GIF reader lets a
    // std::length_error out of open() on a huge logical screen (the first 10-minute run:
    // tests/realfiles/oiio-fuzz/). Lacuna would have to catch that around every call, so the
    // harness does too, and goes on to look for what else there is; that finding is recorded, not
    // reported again.
    try {
        const std::unique_ptr<OIIO::ImageInput> in = OIIO::ImageInput::open(name, &config);
        if (in) {
            read_every_subimage(*in);
            in->close();
        } else {
            (void)OIIO::geterror();  // clears the thread's message; refusing is valid
        }
    } catch (const std::exception&) {
    }
    return 0;
}
