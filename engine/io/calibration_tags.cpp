#include "calibration_tags.hpp"

#include <lacuna/core/error.hpp>

#include <exiv2/exiv2.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
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

std::optional<double> rational(const Exiv2::ExifData& exif, const char* key) {
    const auto it = exif.findKey(Exiv2::ExifKey(key));
    if (it == exif.end() || it->count() < 1) return std::nullopt;
    const Exiv2::Rational r = it->toRational(0);
    if (r.first <= 0 || r.second <= 0) return std::nullopt;
    return static_cast<double>(r.first) / r.second;
}

}  // namespace

std::optional<double> centimetres_per(const std::string_view unit) {
    if (unit == "nm") return 1e-7;
    if (unit == "\u00b5m" || unit == "um" || unit == "micron") return 1e-4;
    if (unit == "mm") return 0.1;
    if (unit == "cm") return 1.0;
    if (unit == "m") return 100.0;
    if (unit == "inch" || unit == "in") return 2.54;
    return std::nullopt;
}

std::string imagej_description(const Calibration& c, const PixelSpacing& spacing) {
    // "ImageJ=" first: ImageJ reads the properties of descriptions that start so (tifffile
    // writes the same version string).
    std::string text = "ImageJ=1.11a\n";
    // The pixel size goes in Lacuna's own keys, exactly: exiv2 will not rewrite a TIFF's
    // X/YResolution (image structure to it), and ImageJ's "unit=" without them would read as
    // one unit per pixel. ImageJ ignores keys it does not know.
    if (spacing.known())
        text += "lacuna.pixel_width=" + number(spacing.x) +
                "\nlacuna.pixel_height=" + number(spacing.y) +
                "\nlacuna.pixel_unit=" + spacing.unit + "\n";
    // A length goes into X/YResolution in centimetres (encode_tiff), which ImageJ reads as
    // such; any other unit is stated per pixel with ResolutionUnit none, and ImageJ takes its
    // name from unit= (a unit= beside centimetres would rename ImageJ's cm).
    if (spacing.known() && !centimetres_per(spacing.unit)) text += "unit=" + spacing.unit + "\n";
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

namespace {
/// A number as a person reads it back from the file (up to 9 significant digits).
std::string short_number(const double v) {
    char text[40];
    std::snprintf(text, sizeof text, "%.9g", v);
    return text;
}
}  // namespace

std::optional<double> seconds_per(const std::string_view unit) {
    struct Unit {
        std::string_view name;
        double seconds;
    };
    static constexpr Unit kUnits[] = {
        {"s", 1.0},        {"sec", 1.0},      {"second", 1.0},   {"seconds", 1.0}, {"ms", 1e-3},
        {"msec", 1e-3},    {"us", 1e-6},      {"\u00b5s", 1e-6}, {"usec", 1e-6},   {"min", 60.0},
        {"minute", 60.0},  {"minutes", 60.0}, {"h", 3600.0},     {"hr", 3600.0},   {"hour", 3600.0},
        {"hours", 3600.0}, {"d", 86400.0},    {"day", 86400.0},  {"days", 86400.0}};
    for (const Unit& u : kUnits)
        if (unit == u.name) return u.seconds;
    return std::nullopt;
}

std::optional<FrameInterval> frame_interval_from_imagej(const std::string_view description) {
    if (description.substr(0, 7) != "ImageJ=") return std::nullopt;
    const auto p = properties(description);
    const auto number = [&](const char* key) -> std::optional<double> {
        const auto it = p.find(key);
        if (it == p.end()) return std::nullopt;
        const std::optional<double> v = parse_double(it->second);
        if (!v || !std::isfinite(*v) || *v <= 0) return std::nullopt;
        return v;
    };
    if (const std::optional<double> f = number("finterval")) {
        const auto t = p.find("tunit");
        const std::string unit = t == p.end() || t->second.empty() ? "sec" : t->second;
        const std::optional<double> per = seconds_per(unit);
        if (!per) return std::nullopt;
        return FrameInterval{*f * *per, "ImageJ finterval=" + short_number(*f) + " " + unit};
    }
    if (const std::optional<double> fps = number("fps"))
        return FrameInterval{1.0 / *fps, "ImageJ fps=" + short_number(*fps)};
    return std::nullopt;
}

PixelSpacing tiff_spacing(const std::span<const std::uint8_t> tiff) {
    try {
        const Exiv2::Image::AutoPtr image =
            Exiv2::ImageFactory::open(tiff.data(), static_cast<long>(tiff.size()));
        image->readMetadata();
        const Exiv2::ExifData& exif = image->exifData();
        const auto d = exif.findKey(Exiv2::ExifKey(kDescription));
        const std::string text = d == exif.end() ? std::string() : d->toString();
        const bool imagej = text.rfind("ImageJ=", 0) == 0;
        const auto p = properties(text);
        if (imagej) {
            // Lacuna's own keys first (exact, any unit).
            const auto w = p.find("lacuna.pixel_width"), h = p.find("lacuna.pixel_height"),
                       u = p.find("lacuna.pixel_unit");
            if (w != p.end() && h != p.end() && u != p.end()) {
                const std::optional<double> x = parse_double(w->second),
                                            y = parse_double(h->second);
                if (x && y && *x > 0 && *y > 0 && !u->second.empty()) return {*x, *y, u->second};
            }
        }
        const std::optional<double> xres = rational(exif, "Exif.Image.XResolution");
        const std::optional<double> yres = rational(exif, "Exif.Image.YResolution");
        if (!xres) return {};
        const double xr = *xres, yr = yres.value_or(*xres);
        long unit_code = 2;  // TIFF's default ResolutionUnit is the inch
        if (const auto it = exif.findKey(Exiv2::ExifKey("Exif.Image.ResolutionUnit"));
            it != exif.end())
            unit_code = it->toLong();
        if (unit_code == 2) return {25.4 / xr, 25.4 / yr, "mm"};
        if (unit_code == 3) return {10.0 / xr, 10.0 / yr, "mm"};
        // None: the unit is the one ImageJ's description names.
        if (!imagej) return {};
        const auto u = p.find("unit");
        if (u == p.end() || u->second.empty() || u->second == "pixel") return {};
        std::string unit = u->second;
        if (unit == "micron" || unit == "um" || unit == "\\u00B5m") unit = "\u00b5m";
        return {1.0 / xr, 1.0 / yr, unit};
    } catch (const Exiv2::AnyError&) {
        return {};
    }
}

}  // namespace lacuna::io::detail
