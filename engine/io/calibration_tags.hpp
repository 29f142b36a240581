// Internal: a measurement's calibration (and its pixel spacing) in a TIFF file,
// written and read the way ImageJ does: an ImageDescription starting "ImageJ=" with cf=0 (a
// straight line), c0 (intercept), c1 (slope) and vunit (the values' unit). ImageJ and Fiji show
// such a file in the unit; Lacuna reads its own files and ImageJ's back. Kept apart from the
// codecs (they hand over encoded bytes) so that the readers and writers can change freely.
#pragma once

#include <lacuna/core/native_image.hpp>
#include <lacuna/io/image_io.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace lacuna::io::detail {

/// ImageJ's description text of `calibration` ("ImageJ=1.11a\ncf=0\nc0=-1024\nc1=1\nvunit=HU\n";
/// numbers with 17 significant digits, so they read back exactly) and the pixel size in
/// Lacuna's keys (lacuna.pixel_width, lacuna.pixel_height, lacuna.pixel_unit).
std::string imagej_description(const Calibration& calibration, const PixelSpacing& spacing);

/// Centimetres in one `unit` for the length units TIFF's ResolutionUnit can state through
/// centimetres (nm, µm/um/micron, mm, cm, m, inch); nullopt for any other unit (arcsec, typed
/// units), which TIFFs state with ResolutionUnit none and ImageJ's unit= instead.
std::optional<double> centimetres_per(std::string_view unit);

/// The calibration in an ImageJ description (cf=0 straight line, or vunit alone), if any; other
/// calibration functions and other descriptions give nothing.
std::optional<Calibration> calibration_from_imagej(std::string_view description);

/// The time between pages an ImageJ description states: finterval= in tunit= (sec by default;
/// ms, us, min, hour understood), else 1/fps=. Nothing for other descriptions, zero, negative or
/// unknown units.
std::optional<FrameInterval> frame_interval_from_imagej(std::string_view description);

/// Seconds in one `unit` of time (s, sec, second(s), ms, msec, us, µs, min, h, hr, hour(s), d,
/// day(s)); nullopt for anything else.
std::optional<double> seconds_per(std::string_view unit);

/// `tiff` with its first page's ImageDescription set to `text` (exiv2, in memory; exiv2 leaves
/// X/YResolution alone, as image structure). Throws Error(WriteFailed) when the bytes are not a
/// TIFF exiv2 can rewrite.
std::vector<std::uint8_t> tiff_with_description(const std::vector<std::uint8_t>& tiff,
                                                const std::string& text);

/// The pixel size a TIFF states: Lacuna's description keys; else X/YResolution in pixels per
/// ResolutionUnit (inch and cm given in mm), or per the unit of ImageJ's description (unit=,
/// "micron" read as µm) when the ResolutionUnit is none. Unknown otherwise (never throws).
PixelSpacing tiff_spacing(std::span<const std::uint8_t> tiff);

/// The first page's ImageDescription of a TIFF, if it has one (never throws).
std::optional<std::string> tiff_description(std::span<const std::uint8_t> tiff);

}  // namespace lacuna::io::detail
