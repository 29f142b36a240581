// DICOM in a build without GDCM: recognised, but refused with a sentence that says why.
#include "scientific_io.hpp"

namespace lacuna::io::detail {

bool dicom_supported() {
    return false;
}

LoadedNative read_dicom(const std::vector<std::uint8_t>& /*bytes*/, const std::string_view name) {
    fail_reading(ErrorCode::UnsupportedFormat, name,
                 "this build of Lacuna has no DICOM support (build with libgdcm-dev)");
}

}  // namespace lacuna::io::detail
