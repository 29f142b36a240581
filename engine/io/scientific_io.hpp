// Internal: scientific formats read through optional libraries. DICOM comes through
// GDCM (dicom_gdcm.cpp) and FITS through CFITSIO (fits_cfitsio.cpp); a build without one of
// them links dicom_none.cpp or fits_none.cpp instead, whose readers throw UnsupportedFormat.
// Both readers keep the stored samples and put the file's rescale into LoadedNative::calibration.
#pragma once

#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lacuna::io::detail {

/// A DICOM Part 10 file: a 128-byte preamble, then "DICM". Files without the preamble (old
/// ACR-NEMA dumps) are not recognised: nothing else in them is a reliable signature.
inline bool looks_like_dicom(const std::vector<std::uint8_t>& bytes) {
    return bytes.size() >= 132 && std::memcmp(bytes.data() + 128, "DICM", 4) == 0;
}

/// DICOM without the preamble and DICM marker (a data set written raw, old ACR-NEMA-style dumps):
/// the file starts with an element of group 0002 or 0008 (little-endian, or 0008 big-endian)
/// with a small element number, followed by an explicit VR or an implicit 32-bit length that
/// fits in the file. Probed after every format with a real signature.
inline bool looks_like_headless_dicom(const std::vector<std::uint8_t>& b) {
    if (b.size() < 12) return false;
    const unsigned le_group = b[0] | (b[1] << 8);
    const unsigned be_group = (b[0] << 8) | b[1];
    const bool little = le_group == 0x0002 || le_group == 0x0008;
    if (!little && be_group != 0x0008) return false;
    const unsigned element = little ? (b[2] | (b[3] << 8)) : ((b[2] << 8) | b[3]);
    if (element > 0x00FF) return false;
    const auto upper = [](const std::uint8_t c) { return c >= 'A' && c <= 'Z'; };
    if (upper(b[4]) && upper(b[5])) return true;
    const std::uint32_t length = b[4] | (b[5] << 8) | (b[6] << 16) | (std::uint32_t{b[7]} << 24);
    return little && length <= b.size() - 8;
}

/// A FITS file: its primary header's first card is "SIMPLE  =" (keyword padded to 8 columns).
inline bool looks_like_fits(const std::vector<std::uint8_t>& bytes) {
    constexpr std::string_view kFirstCard = "SIMPLE  =";
    return bytes.size() >= kFirstCard.size() &&
           std::memcmp(bytes.data(), kFirstCard.data(), kFirstCard.size()) == 0;
}

/// DICOM, each frame a page: grey or RGB, 8/16-bit (unsigned or signed), 32-bit integers as
/// float. Calibration from the
/// rescale slope/intercept (unit: Rescale Type, or HU for CT), window from Window Center/Width.
/// Throws Error (Truncated, Corrupt, UnsupportedFormat, TooLarge, EmptyImage) naming `name`.
LoadedNative read_dicom(const std::vector<std::uint8_t>& bytes, std::string_view name);

/// The first image of a FITS file with pixels (a line as one row, a plane, a cube as pages),
/// row 0 at the top. Calibration from BSCALE/BZERO/BUNIT; BLANK pixels NaN.
/// Throws like read_dicom.
LoadedNative read_fits(const std::vector<std::uint8_t>& bytes, std::string_view name);

/// `image` as a FITS file: BITPIX from the sample type (8, 16, 16 with BZERO 32768 for unsigned
/// 16-bit, -32 for float; unsigned 16-bit with a calibration as 32-bit integers), the rows bottom
/// first as FITS stores them, colour as NAXIS3 planes, the calibration as BSCALE/BZERO/BUNIT.
/// The pixel size, when known and its unit is a FITS one, as CDELT1/2 with CUNIT1/2.
/// Throws WriteFailed naming `name`, or UnsupportedFormat in a build without CFITSIO.
std::vector<std::uint8_t> encode_fits(const NativeImage& image, const Calibration& calibration,
                                      const PixelSpacing& spacing, std::string_view name);

/// The FITS name of a spacing unit (µm as "um", as the FITS standard writes it); nullopt for
/// units a FITS header cannot hold (empty, or not printable ASCII).
inline std::optional<std::string> fits_unit(const std::string_view unit) {
    if (unit == "\u00b5m") return std::string("um");
    if (unit.empty() || unit.size() > 60) return std::nullopt;
    for (const char c : unit)
        if (c < 0x20 || c > 0x7e || c == '\'') return std::nullopt;
    return std::string(unit);
}

/// True when this build has the library (the CMake configuration found it).
bool dicom_supported();
bool fits_supported();

/// "cannot read 'name': what", the sentence every reader error uses.
[[noreturn]] inline void fail_reading(const ErrorCode code, const std::string_view name,
                                      const std::string& what) {
    std::string text = "cannot read '";
    text.append(name);
    text.append("': ");
    text.append(what);
    throw Error(code, text);
}

}  // namespace lacuna::io::detail
