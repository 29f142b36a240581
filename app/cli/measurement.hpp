// What info, histogram and convert share about measurement files (CT slices, temperature maps,
// astronomical frames): which files are measurements, which page of a stack a command uses, and
// how a calibration and its unit read in CSV, JSON and text.
#pragma once

#include "commands.hpp"

#include <lacuna/core/native_image.hpp>
#include <lacuna/io/image_io.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace lacuna::cli {

/// "u8", "u16", "i16", "f32": the sample types as --json names them.
std::string_view sample_type_code(SampleType type);

/// True when the file's values are measured quantities rather than picture levels: a
/// single-channel image deeper than 8 bits, one that carries a calibration, or any
/// single-channel DICOM or FITS file. These are histogrammed by value and ranged by `info`.
bool is_measurement(const io::LoadedNative& file);

/// True when the file carries a calibration worth mentioning (not the unitless identity).
bool has_calibration(const Calibration& calibration);

/// " HU", or "" for a unitless calibration: appended to printed values.
std::string unit_suffix(const Calibration& calibration);

/// The finite range and non-finite count of every page's calibrated values.
ValueStats stack_value_stats(const io::LoadedNative& file);

/// The 0-based index of the page --page N (1-based, default 1) names. A non-number or N < 1 is
/// a usage error; N beyond the stack is an Error naming the file. When a stack is read without
/// --page, a note says which page `purpose` ("used", "written") took.
std::size_t selected_page(const Context& ctx, const io::LoadedNative& file, const std::string& path,
                          std::string_view purpose);

}  // namespace lacuna::cli
