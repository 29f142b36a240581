// Pasted-object cases for `lacuna bench inpaint`: an object — a shape cut from another
// photo, or a drawn pole or cable — is pasted onto a photo, so the background under it is known.
// The hole is the object grown by a few pixels, as a brush would paint it. Photos: the
// repository's (tests/data/photos) and OpenCV's sample data as Debian's opencv-doc ships it
// (/usr/share/doc/opencv-doc/examples/data). Everything is drawn from fixed numbers: the same
// cases on every machine.
#pragma once

#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace lacuna::cli {

/// Where OpenCV's sample photos are on Debian (package opencv-doc).
inline constexpr const char* kOpenCvSampleDir = "/usr/share/doc/opencv-doc/examples/data";

enum class ObjectShape {
    Blob,    ///< an irregular rounded outline (radius rx × ry, wobbling with the angle)
    Figure,  ///< a standing figure: a head over a body (rx × ry is the body's half size)
    Pole,    ///< a straight bar from (x0, y0) to (x1, y1), `thickness` px wide
    Cable,   ///< a thin line from (x0, y0) to (x1, y1) sagging by `sag` px in the middle
};

struct ObjectCase {
    std::string name;
    std::string photo;        ///< file name
    bool repository = false;  ///< tests/data/photos; otherwise OpenCV's samples
    int width = 640;  ///< the photo is resized to this width first (aspect kept); 0: as it is
    ObjectShape shape = ObjectShape::Blob;
    int x0 = 0, y0 = 0;  ///< Blob, Figure: centre; Pole, Cable: first end
    int rx = 0, ry = 0;  ///< Blob, Figure: half sizes
    int x1 = 0, y1 = 0;  ///< Pole, Cable: second end
    int thickness = 3;
    int sag = 0;
    /// What the object is made of: pixels of this photo (OpenCV's samples), resized to the
    /// case's size and taken where the object lies; empty: a dark painted metal.
    std::string object_photo;
    int grow = 4;  ///< the hole is the object grown by this (disc), like a brush's margin
};

/// The object cases, about 26.
std::vector<ObjectCase> object_cases();

struct MadeObjectCase {
    ImageRgba8 truth;  ///< the photo
    ImageRgba8 input;  ///< the photo with the object pasted on
    Mask object;       ///< the object's own pixels
    Mask hole;         ///< the object grown by `grow`
};

/// Reads the photos and draws the case. Throws lacuna::Error when a photo cannot be read.
MadeObjectCase make_object_case(const ObjectCase& c, const std::filesystem::path& repository_dir,
                                const std::filesystem::path& opencv_dir);

}  // namespace lacuna::cli
