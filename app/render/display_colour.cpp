// make_display_lut with Little CMS: the image profile → display profile transform evaluated on
// a regular grid of the RGB cube, once per document (or display profile) change.
#include <lacuna/core/error.hpp>
#include <lacuna/render/display_colour.hpp>

#include <lcms2.h>

#include <algorithm>
#include <cmath>
#include <memory>

namespace lacuna::render {
namespace {

struct ProfileCloser {
    void operator()(void* p) const { cmsCloseProfile(static_cast<cmsHPROFILE>(p)); }
};
struct TransformDeleter {
    void operator()(void* t) const { cmsDeleteTransform(static_cast<cmsHTRANSFORM>(t)); }
};
using Profile = std::unique_ptr<void, ProfileCloser>;
using Transform = std::unique_ptr<void, TransformDeleter>;

/// The profile from bytes (empty: sRGB); throws naming `which` when Little CMS cannot use it.
Profile open_profile(const std::span<const std::uint8_t> bytes, const char* which) {
    Profile p(bytes.empty() ? cmsCreate_sRGBProfile()
                            : cmsOpenProfileFromMem(bytes.data(),
                                                    static_cast<cmsUInt32Number>(bytes.size())));
    if (!p)
        throw Error(ErrorCode::Corrupt,
                    std::string("the ") + which + " ICC profile cannot be read by Little CMS");
    if (cmsGetColorSpace(p.get()) != cmsSigRgbData)
        throw Error(ErrorCode::UnsupportedFormat,
                    std::string("the ") + which + " ICC profile is not an RGB profile");
    return p;
}

Transform make_transform(const Profile& from, const Profile& to, const cmsUInt32Number in_type,
                         const cmsUInt32Number out_type) {
    Transform t(cmsCreateTransform(from.get(), in_type, to.get(), out_type,
                                   INTENT_RELATIVE_COLORIMETRIC, cmsFLAGS_BLACKPOINTCOMPENSATION));
    if (!t)
        throw Error(ErrorCode::UnsupportedFormat,
                    "Little CMS cannot convert between the image's and the display's profiles");
    return t;
}

/// The MD5 profile IDs, or the bytes, equal: nothing to convert.
bool same_profile(const std::span<const std::uint8_t> a, const std::span<const std::uint8_t> b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

}  // namespace

std::string profile_description(const std::span<const std::uint8_t> profile) {
    const Profile p = open_profile(profile, "");
    char text[256] = {};
    if (cmsGetProfileInfoASCII(p.get(), cmsInfoDescription, "en", "US", text, sizeof text) == 0 ||
        text[0] == '\0')
        return profile.empty() ? "sRGB" : "unnamed profile";
    return text;
}

namespace {

/// The display's three tone curves when it is a matrix/TRC profile (their copies; the caller
/// frees them), else nothing.
std::optional<std::array<cmsToneCurve*, 3>> display_curves(const Profile& display) {
    if (!cmsIsMatrixShaper(display.get())) return std::nullopt;
    std::array<cmsToneCurve*, 3> curves{};
    const cmsTagSignature tags[3] = {cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag};
    for (int c = 0; c < 3; ++c) {
        const auto* curve = static_cast<const cmsToneCurve*>(cmsReadTag(display.get(), tags[c]));
        if (curve == nullptr) {
            for (int k = 0; k < c; ++k) cmsFreeToneCurve(curves[static_cast<std::size_t>(k)]);
            return std::nullopt;
        }
        curves[static_cast<std::size_t>(c)] = cmsDupToneCurve(curve);
    }
    return curves;
}

}  // namespace

std::optional<DisplayLut> make_display_lut(const std::span<const std::uint8_t> image_profile,
                                           const std::span<const std::uint8_t> display_profile,
                                           const int size) {
    if (image_profile.empty() || same_profile(image_profile, display_profile)) return std::nullopt;
    if (size < 2 || size > 129)
        throw Error(ErrorCode::InvalidArgument, "the display table needs 2 to 129 points a side");
    const Profile from = open_profile(image_profile, "image's");
    Profile to = open_profile(display_profile, "display's");
    DisplayLut lut;
    lut.description =
        profile_description(image_profile) + " → " +
        (display_profile.empty() ? std::string("sRGB") : profile_description(display_profile));
    // A matrix/TRC display: convert to its linear twin (same colorants, linear curves) and
    // encode afterwards with its own curves, inverted.
    if (const auto curves = display_curves(to)) {
        cmsToneCurve* linear = cmsBuildGamma(nullptr, 1.0);
        for (const cmsTagSignature tag : {cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag})
            cmsWriteTag(to.get(), tag, linear);
        cmsFreeToneCurve(linear);
        lut.encode.resize(static_cast<std::size_t>(DisplayLut::kEncodeSize) * 3);
        for (std::size_t c = 0; c < 3; ++c) {
            cmsToneCurve* inverse = cmsReverseToneCurve((*curves)[c]);
            for (int i = 0; i < DisplayLut::kEncodeSize; ++i) {
                const float x = static_cast<float>(i) / (DisplayLut::kEncodeSize - 1);
                lut.encode[static_cast<std::size_t>(i) * 3 + c] =
                    std::clamp(cmsEvalToneCurveFloat(inverse, x), 0.0f, 1.0f);
            }
            cmsFreeToneCurve(inverse);
            cmsFreeToneCurve((*curves)[c]);
        }
    }
    // NOOPTIMIZE: evaluated through the profiles' own curves and matrices, unbounded, not
    // through an 8-bit cache.
    const Transform t(cmsCreateTransform(from.get(), TYPE_RGB_FLT, to.get(), TYPE_RGB_FLT,
                                         INTENT_RELATIVE_COLORIMETRIC,
                                         cmsFLAGS_BLACKPOINTCOMPENSATION | cmsFLAGS_NOOPTIMIZE));
    if (!t)
        throw Error(ErrorCode::UnsupportedFormat,
                    "Little CMS cannot convert between the image's and the display's profiles");
    lut.size = size;
    const std::size_t n = static_cast<std::size_t>(size);
    std::vector<float> grid(n * n * n * 3);
    for (std::size_t b = 0; b < n; ++b)
        for (std::size_t g = 0; g < n; ++g)
            for (std::size_t r = 0; r < n; ++r) {
                float* cell = &grid[((b * n + g) * n + r) * 3];
                cell[0] = static_cast<float>(r) / static_cast<float>(n - 1);
                cell[1] = static_cast<float>(g) / static_cast<float>(n - 1);
                cell[2] = static_cast<float>(b) / static_cast<float>(n - 1);
            }
    lut.rgb.resize(grid.size());
    cmsDoTransform(t.get(), grid.data(), lut.rgb.data(), static_cast<cmsUInt32Number>(n * n * n));
    // Unclamped: out-of-gamut colours interpolate smoothly and are clamped after the lookup.
    for (float& v : lut.rgb)
        if (!std::isfinite(v)) v = 0.0f;
    return lut;
}

std::array<std::uint8_t, 3> convert_for_display(const std::span<const std::uint8_t> image_profile,
                                                const std::span<const std::uint8_t> display_profile,
                                                const std::array<std::uint8_t, 3> rgb) {
    if (image_profile.empty() || same_profile(image_profile, display_profile)) return rgb;
    const Profile from = open_profile(image_profile, "image's");
    const Profile to = open_profile(display_profile, "display's");
    const Transform t = make_transform(from, to, TYPE_RGB_8, TYPE_RGB_8);
    std::array<std::uint8_t, 3> out{};
    cmsDoTransform(t.get(), rgb.data(), out.data(), 1);
    return out;
}

}  // namespace lacuna::render
