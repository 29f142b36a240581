#include "calibration_tags.hpp"

#include <lacuna/core/error.hpp>

#include <exiv2/exiv2.hpp>

#include <charconv>
#include <cstdio>
#include <map>
#include <sstream>

namespace lacuna::io::detail {
namespace {

constexpr const char* kDescription = "Exif.Image.ImageDescription";

std::string number(const double v) {
    char text[40];
    std::snprintf(text, sizeof text, "%.17g", v);
    return text;
}

/// key=value lines (ImageJ's property list).
std::map<std::string, std::string> properties(const std::string_view text) {
    std::map<std::string, std::string> out;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view line = text.substr(start, end - start);
        if (const auto eq = line.find('='); eq != std::string_view::npos)
            out.emplace(std::string(line.substr(0, eq)), std::string(line.substr(eq + 1)));
        start = end + 1;
    }
    return out;
}

std::optional<double> parse_double(const std::string& text) {
    double v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return v;
}

}  // namespace

std::string imagej_description(const Calibration& c) {
    // "ImageJ=" first: ImageJ reads the properties of descriptions that start so (tifffile
    // writes the same version string).
    std::string text = "ImageJ=1.11a\n";
    if (!c.identity()) text += "cf=0\nc0=" + number(c.intercept) + "\nc1=" + number(c.slope) + "\n";
    if (!c.unit.empty()) text += "vunit=" + c.unit + "\n";
    return text;
}

std::optional<Calibration> calibration_from_imagej(const std::string_view description) {
    if (description.substr(0, 7) != "ImageJ=") return std::nullopt;
    const std::map<std::string, std::string> p = properties(description);
    Calibration c;
    bool found = false;
    if (const auto cf = p.find("cf"); cf != p.end()) {
        // Only ImageJ's straight line (0) is value = c0 + c1 · sample.
        if (cf->second != "0") return std::nullopt;
        const auto c0 = p.find("c0"), c1 = p.find("c1");
        if (c0 == p.end() || c1 == p.end()) return std::nullopt;
        const std::optional<double> intercept = parse_double(c0->second);
        const std::optional<double> slope = parse_double(c1->second);
        if (!intercept || !slope) return std::nullopt;
        c.intercept = *intercept;
        c.slope = *slope;
        found = true;
    }
    if (const auto unit = p.find("vunit"); unit != p.end() && !unit->second.empty()) {
        c.unit = unit->second;
        found = true;
    }
    if (!found) return std::nullopt;
    return c;
}

std::vector<std::uint8_t> tiff_with_description(const std::vector<std::uint8_t>& tiff,
                                                const std::string& text) {
    try {
        const Exiv2::Image::AutoPtr image =
            Exiv2::ImageFactory::open(tiff.data(), static_cast<long>(tiff.size()));
        image->readMetadata();
        Exiv2::ExifData exif = image->exifData();
        exif[kDescription] = text;
        image->setExifData(exif);
        image->writeMetadata();
        Exiv2::BasicIo& io = image->io();
        io.seek(0, Exiv2::BasicIo::beg);
        const Exiv2::DataBuf buf = io.read(static_cast<long>(io.size()));
        return {buf.pData_, buf.pData_ + buf.size_};
    } catch (const Exiv2::AnyError& e) {
        throw Error(ErrorCode::WriteFailed,
                    std::string("could not write the calibration into the TIFF: ") + e.what());
    }
}

std::optional<std::string> tiff_description(const std::span<const std::uint8_t> tiff) {
    try {
        const Exiv2::Image::AutoPtr image =
            Exiv2::ImageFactory::open(tiff.data(), static_cast<long>(tiff.size()));
        image->readMetadata();
        const Exiv2::ExifData& exif = image->exifData();
        const auto it = exif.findKey(Exiv2::ExifKey(kDescription));
        if (it == exif.end()) return std::nullopt;
        return it->toString();
    } catch (const Exiv2::AnyError&) {
        return std::nullopt;
    }
}

}  // namespace lacuna::io::detail
