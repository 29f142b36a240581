// FITS in a build without CFITSIO: recognised, but refused with a sentence that says why.
#include "scientific_io.hpp"

namespace lacuna::io::detail {

bool fits_supported() {
    return false;
}

LoadedNative read_fits(const std::vector<std::uint8_t>& /*bytes*/, const std::string_view name) {
    fail_reading(ErrorCode::UnsupportedFormat, name,
                 "this build of Lacuna has no FITS support (build with libcfitsio-dev)");
}

std::vector<std::uint8_t> encode_fits(const NativeImage& /*image*/,
                                      const Calibration& /*calibration*/,
                                      const PixelSpacing& /*spacing*/,
                                      const std::string_view name) {
    throw Error(ErrorCode::UnsupportedFormat,
                "cannot write '" + std::string(name) +
                    "': this build of Lacuna has no FITS support (build with libcfitsio-dev)");
}

}  // namespace lacuna::io::detail
