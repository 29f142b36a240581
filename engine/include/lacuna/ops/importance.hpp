// Importance beyond gradients for retargeting: detected faces, visual saliency,
// straight lines and skin tones, combined into one map of levels that the seam carvers add to
// their energy (BasicCarveInput::temporal with a unit per level: a soft per-pixel term that every
// carver — reference, fast CPU, CUDA — already evaluates identically, so all three still pick the
// same seams). The detectors are OpenCV's (objdetect's Haar cascades from Debian's opencv-data,
// contrib's saliency and ximgproc); they run on a copy downscaled to at most `detect_max_side`,
// and their maps are scaled back to the image's size.
#pragma once

#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>
#include <lacuna/kernels/seam_energy.h>

#include <string>
#include <vector>

namespace lacuna::ops {

/// The highest level of an importance map (the carvers' per-pixel level term holds 0 .. 63).
inline constexpr int kImportanceMaxLevel = kTemporalLevels - 1;

/// Each term is a switch and a weight: the level (0 .. 63) it gives where it is certain. Where
/// several terms overlap their levels add, capped at 63.
struct ImportanceParams {
    bool faces = true;  ///< a squeezed face is the artefact people notice first
    int face_weight = kImportanceMaxLevel;
    bool saliency = false;  ///< spectral residual (Hou & Zhang 2007), OpenCV contrib saliency
    int saliency_weight = 24;
    bool lines = false;  ///< straight segments (ximgproc FastLineDetector), Kiess et al. 2010
    int line_weight = 32;
    bool skin = false;  ///< skin tones in YCrCb (Chai & Ngan 1999), as Photoshop's switch
    int skin_weight = 24;
    int detect_max_side = 640;  ///< detectors run on a copy at most this long (pixels)
};

/// Retargeting's mix and importance settings together, as the Retarget panel and the CLI hold
/// them (retarget_mix_param_fields binds each switch and weight to a field here): the share of
/// seams (RetargetParams::amount), the automatic choice (RetargetParams::automatic) and the
/// importance terms.
struct RetargetMix {
    double amount = 100;
    bool automatic = false;
    ImportanceParams importance;
};

struct FaceBox {
    int x = 0, y = 0, width = 0, height = 0;  ///< in the image's pixels
    bool profile = false;
};

struct LineSegment {
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;  ///< in the image's pixels
};

struct ImportanceMap {
    Mask levels;  ///< per pixel 0 .. kImportanceMaxLevel, the image's size
    /// The levels without the lines term, only where lines were drawn (else empty: `levels` is
    /// that map). A crop only shortens a straight line, so lines must not forbid one: the
    /// automatic mix's crop keeps what crop_levels() rates at kCropKeepLevel or more.
    Mask levels_without_lines;
    std::vector<FaceBox> faces;
    std::vector<LineSegment> lines;
    double detect_ms = 0;              ///< face cascades and line detection, on the downscaled copy
    double maps_ms = 0;                ///< saliency, skin, rasterising and combining the terms
    std::vector<std::string> notes;    ///< e.g. the cascades are not installed
    [[nodiscard]] bool empty() const;  ///< every level 0: the carvers need no term
    /// What a crop must not cut into (RetargetParams::crop_keep): the levels without lines.
    [[nodiscard]] const Mask& crop_levels() const {
        return levels_without_lines.empty() ? levels : levels_without_lines;
    }
};

/// True when at least one term is switched on with a weight above 0.
bool any_importance(const ImportanceParams& params);

/// Throws Error(InvalidArgument) for a weight outside 0 .. 63 or a detect size below 64.
void check_importance(const ImportanceParams& params);

/// The combined map. Faces that cannot be looked for (no cascade files: Debian's opencv-data is
/// not installed) give a note, not an error; saliency or lines asked for in a build without the
/// OpenCV contrib module throw Error(Unsupported) naming the package.
ImportanceMap importance_map(ImageView<const Rgba8> image, const ImportanceParams& params);
/// The same with the faces given instead of detected (a video's tracked faces, face_tracks.hpp):
/// they are drawn where `params.faces` is on; the other terms are computed on `image`.
ImportanceMap importance_map(ImageView<const Rgba8> image, const ImportanceParams& params,
                             const std::vector<FaceBox>& faces);

/// Faces alone (frontal and both profiles, overlaps merged), for the benchmark and the overlay.
/// `notes` receives why none could be looked for.
std::vector<FaceBox> detect_faces(ImageView<const Rgba8> image, int detect_max_side,
                                  std::vector<std::string>* notes = nullptr);

/// The spectral-residual saliency map, 0 .. 1 per pixel, the image's size (Error(Unsupported)
/// without OpenCV contrib's saliency module).
Image<float> saliency_map(ImageView<const Rgba8> image, int detect_max_side);

/// Montabone & Soto's fine-grained saliency (Image and Vision Computing 2010, "Human detection
/// using a mobile platform and novel features derived from a visual saliency mechanism"; OpenCV
/// contrib's StaticSaliencyFineGrained), 0 .. 1 per pixel, the image's size. For measuring only:
/// no carver, importance term or automatic mix uses it, so a quality score weighted by it (the
/// retarget-quality bench's ARS) is not computed from the map the automatic mode may protect
/// with (saliency_map). Throws an Error naming the package without OpenCV contrib's saliency
/// module.
Image<float> fine_grained_saliency_map(ImageView<const Rgba8> image, int detect_max_side);

/// Where Debian's opencv-data puts the Haar cascades (LACUNA_HAARCASCADES overrides it).
std::string haar_cascade_dir();

/// The cost of one importance level for an energy: the gradient energies are on a larger scale
/// than forward energy (Sobel's weights sum to 4 per side), so a level weighs as much against each.
int importance_unit(SeamEnergy energy);

}  // namespace lacuna::ops
