#include "measurement.hpp"

#include "options.hpp"

#include <lacuna/core/error.hpp>

#include <algorithm>
#include <limits>

namespace lacuna::cli {

std::string_view sample_type_code(const SampleType type) {
    switch (type) {
        case SampleType::U8:
            return "u8";
        case SampleType::U16:
            return "u16";
        case SampleType::I16:
            return "i16";
        case SampleType::F32:
            break;
    }
    return "f32";
}

bool has_calibration(const Calibration& calibration) {
    return !calibration.identity() || !calibration.unit.empty();
}

bool is_measurement(const io::LoadedNative& file) {
    const NativeImage& first = file.pages.front();
    if (first.channels() != 1) return false;
    // DICOM and FITS hold measurements even at 8 bits; elsewhere 8-bit grey is a picture unless
    // the file says what its samples measure.
    const bool scientific =
        file.info.format == io::ImageFormat::Dicom || file.info.format == io::ImageFormat::Fits;
    return scientific || first.sample_type() != SampleType::U8 || has_calibration(file.calibration);
}

std::string unit_suffix(const Calibration& calibration) {
    return calibration.unit.empty() ? std::string() : " " + calibration.unit;
}

ValueStats stack_value_stats(const io::LoadedNative& file) {
    ValueStats all;
    all.min = std::numeric_limits<double>::infinity();
    all.max = -std::numeric_limits<double>::infinity();
    for (const NativeImage& page : file.pages) {
        const ValueStats s = value_stats(measurement_plane(page, file.calibration).view());
        // value_stats reports 0..0 for a page without finite values: it must not widen the range.
        if (s.finite > 0) {
            all.min = std::min(all.min, s.min);
            all.max = std::max(all.max, s.max);
        }
        all.finite += s.finite;
        all.non_finite += s.non_finite;
    }
    if (all.finite == 0) all.min = all.max = 0;
    return all;
}

std::size_t selected_page(const Context& ctx, const io::LoadedNative& file, const std::string& path,
                          const std::string_view purpose) {
    const std::size_t pages = file.pages.size();
    const auto text = ctx.args.get("page");
    if (!text) {
        if (pages > 1)
            ctx.note("'" + path + "' is a stack of " + std::to_string(pages) + " pages: page 1 " +
                     std::string(purpose) + " (choose another with --page N)");
        return 0;
    }
    const int page = parse_int("page", *text);
    if (page < 1) throw UsageError("--page must be 1 or more, not " + *text);
    if (static_cast<std::size_t>(page) > pages)
        throw Error(ErrorCode::InvalidArgument, "--page " + *text + " is beyond the " +
                                                    std::to_string(pages) + " page(s) of '" + path +
                                                    "'");
    return static_cast<std::size_t>(page - 1);
}

}  // namespace lacuna::cli
