// ICC profiles for the colour-management tests, made by Little CMS as bytes (what a file embeds).
#pragma once

#include <lcms2.h>

#include <cstdint>
#include <vector>

namespace lacuna::test {

/// An Adobe RGB (1998)-like profile (its primaries, D65, gamma 2.2), made by Little CMS and
/// saved as bytes, as a file would embed it.
inline std::vector<std::uint8_t> wide_gamut_profile() {
    const cmsCIExyY d65{0.3127, 0.3290, 1.0};
    const cmsCIExyYTRIPLE primaries{{0.64, 0.33, 1.0}, {0.21, 0.71, 1.0}, {0.15, 0.06, 1.0}};
    cmsToneCurve* gamma = cmsBuildGamma(nullptr, 2.2);
    cmsToneCurve* curves[3] = {gamma, gamma, gamma};
    cmsHPROFILE p = cmsCreateRGBProfile(&d65, &primaries, curves);
    cmsMLU* desc = cmsMLUalloc(nullptr, 1);
    cmsMLUsetASCII(desc, "en", "US", "Test wide RGB");
    cmsWriteTag(p, cmsSigProfileDescriptionTag, desc);
    cmsUInt32Number bytes = 0;
    cmsSaveProfileToMem(p, nullptr, &bytes);
    std::vector<std::uint8_t> out(bytes);
    cmsSaveProfileToMem(p, out.data(), &bytes);
    cmsMLUfree(desc);
    cmsCloseProfile(p);
    cmsFreeToneCurve(gamma);
    return out;
}

inline std::vector<std::uint8_t> srgb_profile_bytes() {
    cmsHPROFILE p = cmsCreate_sRGBProfile();
    cmsUInt32Number bytes = 0;
    cmsSaveProfileToMem(p, nullptr, &bytes);
    std::vector<std::uint8_t> out(bytes);
    cmsSaveProfileToMem(p, out.data(), &bytes);
    cmsCloseProfile(p);
    return out;
}

}  // namespace lacuna::test
