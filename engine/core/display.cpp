#include <lacuna/core/colormap.hpp>
#include <lacuna/core/display.hpp>

#include <algorithm>
#include <cmath>

namespace lacuna {
namespace {

constexpr std::array<Lut, 4> kLuts = {Lut::Grey, Lut::Inferno, Lut::Viridis, Lut::Diverging};

// Linear interpolation through evenly spaced stops: enough for a display LUT (the stops are
// matplotlib's viridis at 0, ¼, ½, ¾, 1 and a blue–white–red map like its coolwarm).
template <std::size_t N>
Rgba8 through_stops(const std::array<std::array<double, 3>, N>& stops, const double t) {
    const double s = std::clamp(t, 0.0, 1.0) * (N - 1);
    const auto k = std::min<std::size_t>(static_cast<std::size_t>(s), N - 2);
    const double f = s - static_cast<double>(k);
    const auto mix = [&](const int c) {
        return static_cast<std::uint8_t>(std::lround(stops[k][c] * (1 - f) + stops[k + 1][c] * f));
    };
    return {mix(0), mix(1), mix(2), 255};
}

std::array<Rgba8, 256> make_table(const Lut lut) {
    static constexpr std::array<std::array<double, 3>, 5> viridis = {
        {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}}};
    static constexpr std::array<std::array<double, 3>, 3> diverging = {
        {{59, 76, 192}, {221, 221, 221}, {180, 4, 38}}};
    std::array<Rgba8, 256> table{};
    for (int i = 0; i < 256; ++i) {
        const double t = i / 255.0;
        const auto g = static_cast<std::uint8_t>(i);
        switch (lut) {
            case Lut::Grey:
                table[static_cast<std::size_t>(i)] = {g, g, g, 255};
                break;
            case Lut::Inferno:
                table[static_cast<std::size_t>(i)] = inferno(t);
                break;
            case Lut::Viridis:
                table[static_cast<std::size_t>(i)] = through_stops(viridis, t);
                break;
            case Lut::Diverging:
                table[static_cast<std::size_t>(i)] = through_stops(diverging, t);
                break;
        }
    }
    return table;
}

std::uint8_t to_byte(const double t) {
    return static_cast<std::uint8_t>(std::lround(std::clamp(t, 0.0, 1.0) * 255.0));
}

}  // namespace

std::span<const Lut> all_luts() {
    return kLuts;
}

std::string_view to_string(const Lut lut) {
    switch (lut) {
        case Lut::Grey:
            return "grey";
        case Lut::Inferno:
            return "inferno";
        case Lut::Viridis:
            return "viridis";
        case Lut::Diverging:
            return "diverging";
    }
    return "grey";
}

std::optional<Lut> parse_lut(const std::string_view name) {
    for (const Lut lut : kLuts)
        if (to_string(lut) == name) return lut;
    if (name == "gray") return Lut::Grey;
    return std::nullopt;
}

const std::array<Rgba8, 256>& lut_table(const Lut lut) {
    static const std::array<std::array<Rgba8, 256>, 4> tables = {
        make_table(Lut::Grey), make_table(Lut::Inferno), make_table(Lut::Viridis),
        make_table(Lut::Diverging)};
    return tables[static_cast<std::size_t>(lut)];
}

int window_index(const double value, const DisplayWindow& window) {
    const double width = window.hi - window.lo;
    if (!(width > 0)) return value >= window.lo ? 255 : 0;
    return to_byte((value - window.lo) / width);
}

ImageRgba8 render_display(const NativeImage& image, const Calibration& calibration,
                          const DisplayWindow& window, const Lut lut, bool mark_clipped) {
    ImageRgba8 out(image.width(), image.height());
    const auto& table = lut_table(lut);
    const int channels = image.channels();
    // A window of zero width splits at its value; nothing is "outside" it to mark.
    mark_clipped = mark_clipped && window.hi > window.lo;
    const double alpha_scale =
        image.sample_type() == SampleType::F32 ? 1.0 : type_range(image.sample_type()).second;
    for (int y = 0; y < image.height(); ++y) {
        Rgba8* row = out.row(y);
        for (int x = 0; x < image.width(); ++x) {
            if (channels == 1) {
                const double v = calibration.apply(image.sample(x, y, 0));
                if (std::isnan(v))
                    row[x] = kNanColour;
                else if (mark_clipped && v < window.lo)
                    row[x] = kBelowColour;
                else if (mark_clipped && v > window.hi)
                    row[x] = kAboveColour;
                else
                    row[x] = table[static_cast<std::size_t>(window_index(v, window))];
                continue;
            }
            std::uint8_t rgb[3];
            bool nan = false;
            for (int c = 0; c < 3; ++c) {
                const double v = calibration.apply(image.sample(x, y, c));
                nan = nan || std::isnan(v);
                rgb[c] = nan ? 0 : static_cast<std::uint8_t>(window_index(v, window));
            }
            const std::uint8_t a =
                channels == 4 ? to_byte(image.sample(x, y, 3) / alpha_scale) : std::uint8_t{255};
            row[x] = nan ? kNanColour : Rgba8{rgb[0], rgb[1], rgb[2], a};
        }
    }
    return out;
}

}  // namespace lacuna
