#include <lacuna/core/error.hpp>
#include <lacuna/ops/bilateral.hpp>
#include <lacuna/ops/brush.hpp>
#include <lacuna/ops/conv3d.hpp>
#include <lacuna/ops/importance.hpp>
#include <lacuna/ops/inpaint.hpp>
#include <lacuna/ops/line_histogram.hpp>
#include <lacuna/ops/params.hpp>
#include <lacuna/ops/scale.hpp>
#include <lacuna/ops/seam_carve.hpp>
#include <lacuna/ops/video_retarget.hpp>
#include <lacuna/video/inpaint_video.hpp>
#include <lacuna/video/track_masks.hpp>

#include <charconv>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

namespace lacuna::ops {
namespace {

constexpr double kUnbounded = std::numeric_limits<double>::infinity();

// ---- the tables: defaults come from the params structs, limits from the operations' headers ----

constexpr InpaintParams kInpaintDefaults{};
// In the order of InpaintMethod, so a choice's index is the enum's value.
constexpr std::string_view kInpaintMethodNames[] = {"criminisi", "patchmatch"};
static_assert(static_cast<int>(InpaintMethod::Criminisi) == 0 &&
                  static_cast<int>(InpaintMethod::PatchMatch) == 1,
              "kInpaintMethodNames follows InpaintMethod");
constexpr ParamField<InpaintParams> kInpaintFields[] = {
    field<&InpaintParams::patch>({.name = "patch",
                                  .label = "Patch size",
                                  .kind = ParamKind::Int,
                                  .default_value = kInpaintDefaults.patch,
                                  .min = kMinPatch,
                                  .max = kMaxPatch,
                                  .step = 2,
                                  .unit = "pixels",
                                  .help = "side of the square patches copied into the hole"}),
    field<&InpaintParams::window_factor>(
        {.name = "window",
         .label = "Search window",
         .kind = ParamKind::Real,
         .default_value = kInpaintDefaults.window_factor,
         .min = 0,
         .max = kUnbounded,  // prepare_inpaint and `--search window:A` accept any A >= 0
         .step = 0.1,
         .help =
             "how far beyond the hole source patches are looked for, in multiples of its size"}),
    field<&InpaintParams::coherence>(
        {.name = "coherence",
         .label = "Coherence",
         .kind = ParamKind::Bool,
         .default_value = kInpaintDefaults.coherence ? 1.0 : 0.0,
         .min = 0,
         .max = 1,
         .step = 1,
         .help = "also try the sources of already-filled neighbours, shifted to line up"}),
    field<&InpaintParams::method>(
        {.name = "method",
         .label = "Method",
         .kind = ParamKind::Choice,
         .default_value = static_cast<double>(kInpaintDefaults.method),
         .min = 0,
         .max = std::size(kInpaintMethodNames) - 1,
         .step = 1,
         .help =
             "criminisi fills patch by patch from the border; patchmatch refines the whole hole "
             "coarse to fine",
         .choices = kInpaintMethodNames}),
    field<&InpaintParams::seed>(
        {.name = "seed",
         .label = "Seed",
         .kind = ParamKind::Int,
         .default_value = static_cast<double>(kInpaintDefaults.seed),
         .min = 0,
         .max = 4294967295.0,
         .step = 1,
         .help = "patchmatch: the random search's seed; another seed gives another result"}),
    field<&InpaintParams::mask_grow>(
        {.name = "grow",
         .label = "Grow mask",
         .kind = ParamKind::Int,
         .default_value = kInpaintDefaults.mask_grow,
         .min = -kMaxMaskGrow,
         .max = kMaxMaskGrow,
         .step = 1,
         .unit = "pixels",
         .help = "grow the mask by this many pixels before filling (negative: shrink it), so it "
                 "takes the object's soft edge and shadow too"}),
    field<&InpaintParams::lines>(
        {.name = "lines",
         .label = "Continue lines",
         .kind = ParamKind::Bool,
         .default_value = kInpaintDefaults.lines ? 1.0 : 0.0,
         .min = 0,
         .max = 1,
         .step = 1,
         .help = "patchmatch: join straight edges that reach the hole from both sides and fill a "
                 "band along them first (a measurement's by moving its stored samples)"}),
    field<&InpaintParams::line_angle>(
        {.name = "line-angle",
         .label = "Line angle tolerance",
         .kind = ParamKind::Real,
         .default_value = kInpaintDefaults.line_angle,
         .min = 0.5,
         .max = 15,
         .step = 0.5,
         .unit = "degrees",
         .help = "two edges are one line when their directions differ by at most this"}),
    field<&InpaintParams::line_offset>(
        {.name = "line-offset",
         .label = "Line offset tolerance",
         .kind = ParamKind::Real,
         .default_value = kInpaintDefaults.line_offset,
         .min = 0.5,
         .max = 8,
         .step = 0.5,
         .unit = "pixels",
         .help = "two edges are one line when each one's end lies this close to the other's line"}),
    field<&InpaintParams::source_colours>(
        {.name = "source-colours",
         .label = "Only surrounding colours",
         .kind = ParamKind::Bool,
         .default_value = kInpaintDefaults.source_colours ? 1.0 : 0.0,
         .min = 0,
         .max = 1,
         .step = 1,
         .help = "patchmatch: do not copy patches with colours found nowhere around the hole "
                 "(look-alike objects elsewhere), unless they reach to near the hole"}),
    field<&InpaintParams::choose>(
        {.name = "choose",
         .label = "Choose per region",
         .kind = ParamKind::Bool,
         .default_value = kInpaintDefaults.choose ? 1.0 : 0.0,
         .min = 0,
         .max = 1,
         .step = 1,
         .help = "patchmatch, holes up to 16384 pixels: fill with criminisi too and keep, per "
                 "connected region, criminisi's fill where patchmatch's brings many colours the "
                 "surroundings lack and criminisi's almost none (measurements: decided on the "
                 "8-bit proxy, criminisi's sources' samples kept)"}),
    field<&InpaintParams::refill_foreign>(
        {.name = "refill-foreign",
         .label = "Refill foreign blobs",
         .kind = ParamKind::Bool,
         .default_value = kInpaintDefaults.refill_foreign ? 1.0 : 0.0,
         .min = 0,
         .max = 1,
         .step = 1,
         .help = "patchmatch, holes up to 16384 pixels: fill again, as a smaller hole, each "
                 "clump of colours found nowhere around the hole, and keep that where it brings "
                 "far fewer of them and erases no straight edge entering the hole "
                 "(measurements: decided on the 8-bit proxy, the refill's sources' samples "
                 "kept)"}),
    field<&InpaintParams::keep_colours>(
        {.name = "keep-colours",
         .label = "Keep the surroundings' colours",
         .kind = ParamKind::Bool,
         .default_value = kInpaintDefaults.keep_colours ? 1.0 : 0.0,
         .min = 0,
         .max = 1,
         .step = 1,
         .help = "patchmatch: where the blend's tone correction would give a pixel a colour "
                 "(5 bits a channel) found nowhere within 16 px around the hole, keep only as "
                 "much of the correction as stays in those colours (measurements: decided on "
                 "the 8-bit proxy, the samples moved part way in their own type)"}),
};
constexpr auto kInpaintSpecs = specs_of(kInpaintFields);

constexpr LineHistogramParams kLineDefaults{};
constexpr ParamField<LineHistogramParams> kLineHistogramFields[] = {
    field<&LineHistogramParams::band_width>({.name = "band",
                                             .label = "Band width",
                                             .kind = ParamKind::Int,
                                             .default_value = kLineDefaults.band_width,
                                             .min = 1,
                                             .max = kMaxBandWidth,
                                             .step = 1,
                                             .unit = "samples",
                                             .help = "band width: samples across the line"}),
    field<&LineHistogramParams::bins>({.name = "bins",
                                       .label = "Bins",
                                       .kind = ParamKind::Int,
                                       .default_value = kLineDefaults.bins,
                                       .min = 1,
                                       .max = kMaxHistogramBins,
                                       .step = 1,
                                       .help = "histogram bins"}),
};
constexpr auto kLineHistogramSpecs = specs_of(kLineHistogramFields);
static_assert(kLineDefaults.bins == kDefaultHistogramBins &&
                  DirectionHistogramParams{}.bins == kDefaultHistogramBins,
              "line and direction histograms share the bins default");

// The names of to_string(SeamEnergy) / parse_seam_energy (tests/engine/test_params.cpp checks
// that they round-trip); the default first.
constexpr std::string_view kEnergyNames[] = {"forward", "l1", "prewitt", "sobel", "transversal"};
constexpr int kDefaultEnergy = 0;
static_assert(RetargetParams{}.energy == SeamEnergy::Forward &&
                  CarveInput{}.energy == SeamEnergy::Forward &&
                  kEnergyNames[kDefaultEnergy] == "forward",
              "the energy default is RetargetParams{}.energy");
// The choices are listed default first, not in SeamEnergy's order: the field maps between them.
constexpr SeamEnergy kEnergyByChoice[] = {SeamEnergy::Forward, SeamEnergy::L1, SeamEnergy::Prewitt,
                                          SeamEnergy::Sobel, SeamEnergy::Transversal};
constexpr double energy_choice(const SeamEnergy e) {
    for (std::size_t i = 0; i < std::size(kEnergyByChoice); ++i)
        if (kEnergyByChoice[i] == e) return static_cast<double>(i);
    return -1;
}
constexpr ParamSpec kEnergySpec{.name = "energy",
                                .label = "Energy",
                                .kind = ParamKind::Choice,
                                .default_value = kDefaultEnergy,
                                .min = 0,
                                .max = std::size(kEnergyNames) - 1,
                                .step = 1,
                                .help = "how the cost of carving a pixel is measured",
                                .choices = kEnergyNames};
constexpr ParamField<RetargetParams> kSeamFields[] = {
    {kEnergySpec, [](const RetargetParams& p) { return energy_choice(p.energy); },
     [](RetargetParams& p, const double v) { p.energy = kEnergyByChoice[static_cast<int>(v)]; }},
};
constexpr auto kSeamSpecs = specs_of(kSeamFields);

// Retargeting's mix of operators and importance terms: the CLI's options and the Retarget
// panel's switches, bound to RetargetMix (whose defaults are RetargetParams' and
// ImportanceParams', checked below). The importance members are one level down, so they bind with
// their own get and set functions.
constexpr RetargetParams kRetargetDefaults{};
constexpr RetargetMix kMixDefaults{};
static_assert(kMixDefaults.amount == kRetargetDefaults.amount &&
                  kMixDefaults.automatic == kRetargetDefaults.automatic,
              "RetargetMix's defaults are RetargetParams'");
constexpr ParamSpec bool_spec(const std::string_view name, const std::string_view label,
                              const bool on, const std::string_view help) {
    return {.name = name,
            .label = label,
            .kind = ParamKind::Bool,
            .default_value = on ? 1.0 : 0.0,
            .min = 0,
            .max = 1,
            .step = 1,
            .help = help};
}
constexpr ParamSpec weight_spec(const std::string_view name, const std::string_view label,
                                const int weight, const std::string_view help) {
    return {.name = name,
            .label = label,
            .kind = ParamKind::Int,
            .default_value = static_cast<double>(weight),
            .min = 0,
            .max = kImportanceMaxLevel,
            .step = 1,
            .unit = "levels",
            .help = help};
}
/// A switch of ImportanceParams bound through RetargetMix::importance.
template <bool ImportanceParams::*Member>
constexpr ParamField<RetargetMix> term_switch(const ParamSpec& spec) {
    return {spec, [](const RetargetMix& m) { return m.importance.*Member ? 1.0 : 0.0; },
            [](RetargetMix& m, const double v) { m.importance.*Member = v != 0; }};
}
template <int ImportanceParams::*Member>
constexpr ParamField<RetargetMix> term_weight(const ParamSpec& spec) {
    return {spec, [](const RetargetMix& m) { return static_cast<double>(m.importance.*Member); },
            [](RetargetMix& m, const double v) { m.importance.*Member = static_cast<int>(v); }};
}
constexpr ImportanceParams kImportanceDefaults{};
constexpr ParamField<RetargetMix> kRetargetMixFields[] = {
    field<&RetargetMix::amount>(
        {.name = "amount",
         .label = "Amount",
         .kind = ParamKind::Real,
         .default_value = kRetargetDefaults.amount,
         .min = 0,
         .max = 100,
         .step = 5,
         .unit = "%",
         .help =
             "share of the change made by seams; the rest is uniform scaling (0: plain scaling)"}),
    field<&RetargetMix::automatic>(
        bool_spec("auto", "Automatic", kRetargetDefaults.automatic,
                  "per side, the mix of cropping, seams and scaling most like the original "
                  "(bidirectional similarity)")),
    term_switch<&ImportanceParams::faces>(
        bool_spec("faces", "Protect faces", kImportanceDefaults.faces,
                  "detect faces (frontal and profile Haar cascades) and carve them last")),
    term_weight<&ImportanceParams::face_weight>(weight_spec("face-weight", "Face weight",
                                                            kImportanceDefaults.face_weight,
                                                            "importance of a detected face")),
    term_switch<&ImportanceParams::saliency>(
        bool_spec("saliency", "Salient objects", kImportanceDefaults.saliency,
                  "carve salient objects (spectral residual saliency) last")),
    term_weight<&ImportanceParams::saliency_weight>(
        weight_spec("saliency-weight", "Saliency weight", kImportanceDefaults.saliency_weight,
                    "importance of the most salient pixels")),
    term_switch<&ImportanceParams::lines>(
        bool_spec("lines", "Straight lines", kImportanceDefaults.lines,
                  "raise the cost of carving through detected straight lines")),
    term_weight<&ImportanceParams::line_weight>(
        weight_spec("line-weight", "Line weight", kImportanceDefaults.line_weight,
                    "importance of a pixel on a detected line")),
    term_switch<&ImportanceParams::skin>(bool_spec("skin", "Protect skin tones",
                                                   kImportanceDefaults.skin,
                                                   "carve skin-coloured regions last")),
    term_weight<&ImportanceParams::skin_weight>(weight_spec("skin-weight", "Skin weight",
                                                            kImportanceDefaults.skin_weight,
                                                            "importance of a skin-coloured pixel")),
};
constexpr auto kRetargetMixSpecs = specs_of(kRetargetMixFields);

constexpr BrushSettings kBrushDefaults{};
constexpr ParamField<BrushSettings> kBrushFields[] = {
    field<&BrushSettings::radius>({.name = "radius",
                                   .label = "Radius",
                                   .kind = ParamKind::Real,
                                   .default_value = kBrushDefaults.radius,
                                   .min = 1,
                                   .max = 500,
                                   .step = 1,
                                   .unit = "pixels",
                                   .help = "brush radius in image pixels"}),
    field<&BrushSettings::hardness>(
        {.name = "hardness",
         .label = "Hardness",
         .kind = ParamKind::Real,
         .default_value = kBrushDefaults.hardness,
         .min = 0,
         .max = 1,
         .step = 0.01,
         .help = "1 paints full coverage to the edge, 0 fades out from the centre"}),
};
constexpr auto kBrushSpecs = specs_of(kBrushFields);

constexpr BilateralParams kBilateralDefaults{};
constexpr ParamField<BilateralParams> kBilateralFields[] = {
    field<&BilateralParams::sigma_space>(
        {.name = "sigma-space",
         .label = "Spatial sigma",
         .kind = ParamKind::Real,
         .default_value = kBilateralDefaults.sigma_space,
         .min = 0.1,
         .max = kMaxBilateralSigma,
         .step = 0.5,
         .unit = "pixels",
         .help = "how far neighbours count: the spatial Gaussian's standard deviation"}),
    field<&BilateralParams::sigma_range>(
        {.name = "sigma-range",
         .label = "Range sigma",
         .kind = ParamKind::Real,
         .default_value = kBilateralDefaults.sigma_range,
         .min = 0.1,
         .max = kMaxBilateralSigma,
         .step = 1,
         .unit = "levels",
         .help = "how different a colour (|dR|+|dG|+|dB| of the guide) may be and still count"}),
    field<&BilateralParams::radius>(
        {.name = "radius",
         .label = "Radius",
         .kind = ParamKind::Int,
         .default_value = kBilateralDefaults.radius,
         .min = 0,
         .max = kMaxBilateralRadius,
         .step = 1,
         .unit = "pixels",
         .help = "neighbours within this distance; 0 takes 1.5 times the spatial sigma"}),
};
constexpr auto kBilateralSpecs = specs_of(kBilateralFields);

// The same filter on a measurement's stored samples (ops::bilateral_native): σr is a distance in
// the data's calibrated unit (HU, K, counts), so it has no upper limit; the CLI asks for it
// explicitly there, because no default suits every unit. σs and the radius are the photo's.
constexpr ParamField<BilateralParams> kBilateralMeasurementFields[] = {
    kBilateralFields[0],
    field<&BilateralParams::sigma_range>(
        {.name = "sigma-range",
         .label = "Range sigma",
         .kind = ParamKind::Real,
         .default_value = kBilateralDefaults.sigma_range,
         .min = 0,  // bilateral_native refuses 0 itself: the range is "above 0"
         .max = kUnbounded,
         .step = 1,
         .unit = "in the data's unit",
         .help = "how different a value (|d| summed over colour channels of the guide, in its "
                 "calibrated unit) may be and still count"}),
    kBilateralFields[2],
};
constexpr auto kBilateralMeasurementSpecs = specs_of(kBilateralMeasurementFields);

// Scaling: the resampling kernel. In ScaleMethod's order, so a choice's index is the enum's value.
constexpr std::string_view kScaleMethodNames[] = {"nearest", "bilinear", "bicubic", "bspline"};
static_assert(static_cast<int>(ScaleMethod::Nearest) == 0 &&
                  static_cast<int>(ScaleMethod::BSpline) == 3,
              "kScaleMethodNames follows ScaleMethod");
constexpr ParamField<ScaleParams> kScaleFields[] = {
    field<&ScaleParams::method>({.name = "method",
                                 .label = "Method",
                                 .kind = ParamKind::Choice,
                                 .default_value = static_cast<double>(ScaleParams{}.method),
                                 .min = 0,
                                 .max = std::size(kScaleMethodNames) - 1,
                                 .step = 1,
                                 .help = "the resampling kernel: nearest neighbour, bilinear, "
                                         "bicubic (Keys, a = -0.5) or the cubic B-spline with the "
                                         "exact prefilter (it passes through every sample)",
                                 .choices = kScaleMethodNames}),
};
constexpr auto kScaleSpecs = specs_of(kScaleFields);

// Video retargeting's own terms (the target size and energy are the image carver's).
constexpr std::string_view kTemporalTermNames[] = {"seam", "removed"};
static_assert(static_cast<int>(TemporalTerm::PerSeam) == 0 &&
                  static_cast<int>(TemporalTerm::RemovedPixels) == 1,
              "kTemporalTermNames follows TemporalTerm");
constexpr ParamField<VideoRetargetParams> kVideoRetargetFields[] = {
    field<&VideoRetargetParams::temporal>(
        {.name = "temporal",
         .label = "Temporal weight",
         .kind = ParamKind::Real,
         .default_value = VideoRetargetParams{}.temporal,
         .min = 0,
         .max = kUnbounded,
         .step = 0.25,
         .help = "how strongly seams stay near the previous frame's; 0: each frame on its own"}),
    field<&VideoRetargetParams::term>(
        {.name = "temporal-term",
         .label = "Temporal term",
         .kind = ParamKind::Choice,
         .default_value = static_cast<double>(VideoRetargetParams{}.term),
         .min = 0,
         .max = std::size(kTemporalTermNames) - 1,
         .step = 1,
         .help = "seam: seam k stays near the previous frame's seam k; removed: every seam "
                 "stays near any pixel the previous frame removed",
         .choices = kTemporalTermNames}),
    field<&VideoRetargetParams::cut_threshold>(
        {.name = "cut-threshold",
         .label = "Cut threshold",
         .kind = ParamKind::Real,
         .default_value = VideoRetargetParams{}.cut_threshold,
         .min = 0,
         .max = kUnbounded,
         .step = 1,
         .unit = "levels",
         .help = "mean |dY| between frames above which a frame starts a new shot"}),
    field<&VideoRetargetParams::face_every>(
        {.name = "face-every",
         .label = "Detect faces every",
         .kind = ParamKind::Int,
         .default_value = VideoRetargetParams{}.face_every,
         .min = 1,
         .max = 1000,
         .step = 1,
         .unit = "frames",
         .help = "with faces on, run the face detector on every k-th frame of a shot (tracks "
                 "fill the frames between)"}),
    field<&VideoRetargetParams::importance_window>(
        {.name = "importance-window",
         .label = "Smooth importance over",
         .kind = ParamKind::Int,
         .default_value = VideoRetargetParams{}.importance_window,
         .min = 1,
         .max = 120,
         .step = 1,
         .unit = "frames",
         .help = "saliency, lines and skin follow the motion and are averaged over time like a "
                 "mean of N frames, within each shot (1: each frame's own map)"}),
};
constexpr auto kVideoRetargetSpecs = specs_of(kVideoRetargetFields);

// Temporal smoothing (the editor's panel and `lacuna filter temporal`). The sigma ranges are the
// widgets'; gaussian_kernel itself takes any sigma above 0, and the CLI leaves it to refuse.
constexpr TemporalSmoothParams kTemporalDefaults{};
constexpr ParamField<TemporalSmoothParams> kTemporalFields[] = {
    field<&TemporalSmoothParams::size>({.name = "size",
                                        .label = "Size",
                                        .kind = ParamKind::Int,
                                        .default_value = kTemporalDefaults.size,
                                        .min = 1,
                                        .max = kMaxConv3dSize,
                                        .step = 2,
                                        .unit = "frames and pixels",
                                        .help = "k of the k x k x k Gaussian"}),
    field<&TemporalSmoothParams::sigma_space>({.name = "sigma-space",
                                               .label = "Sigma in x, y",
                                               .kind = ParamKind::Real,
                                               .default_value = kTemporalDefaults.sigma_space,
                                               .min = 0.1,
                                               .max = 100,
                                               .step = 0.25,
                                               .unit = "pixels",
                                               .help = "the Gaussian's sigma over x and y"}),
    field<&TemporalSmoothParams::sigma_time>({.name = "sigma-time",
                                              .label = "Sigma over frames",
                                              .kind = ParamKind::Real,
                                              .default_value = kTemporalDefaults.sigma_time,
                                              .min = 0.1,
                                              .max = 100,
                                              .step = 0.25,
                                              .unit = "frames",
                                              .help = "the Gaussian's sigma over frames"}),
};
constexpr auto kTemporalSpecs = specs_of(kTemporalFields);

// Masks that follow the object (lacuna_video's MaskTracker: `lacuna inpaint --mask-key`, the
// Video dock). The band and core are pixels of the frame; 64 is far beyond any useful band.
constexpr video::MaskTrackParams kMaskTrackDefaults{};
constexpr ParamField<video::MaskTrackParams> kMaskTrackFields[] = {
    field<&video::MaskTrackParams::grabcut>(
        {.name = "grabcut",
         .label = "Refine with GrabCut",
         .kind = ParamKind::Bool,
         .default_value = kMaskTrackDefaults.grabcut ? 1.0 : 0.0,
         .min = 0,
         .max = 1,
         .step = 1,
         .help = "refine the mask carried to every frame with GrabCut, so a changing shape is "
                 "followed"}),
    field<&video::MaskTrackParams::band>(
        {.name = "track-band",
         .label = "Band",
         .kind = ParamKind::Int,
         .default_value = kMaskTrackDefaults.band,
         .min = 1,
         .max = 64,
         .step = 1,
         .unit = "pixels",
         .help = "how far beyond the carried mask GrabCut may extend the object each frame"}),
    field<&video::MaskTrackParams::core>(
        {.name = "track-core",
         .label = "Core",
         .kind = ParamKind::Int,
         .default_value = kMaskTrackDefaults.core,
         .min = 0,
         .max = 64,
         .step = 1,
         .unit = "pixels",
         .help = "the carried mask shrunk by this much is the object for certain"}),
    field<&video::MaskTrackParams::grabcut_iterations>(
        {.name = "grabcut-iterations",
         .label = "GrabCut rounds",
         .kind = ParamKind::Int,
         .default_value = kMaskTrackDefaults.grabcut_iterations,
         .min = 1,
         .max = 10,
         .step = 1,
         .help = "GrabCut's refinement rounds a frame"}),
};
constexpr auto kMaskTrackSpecs = specs_of(kMaskTrackFields);

// What no frame of a video shows (lacuna_video's inpaint_frames: `lacuna inpaint` on a clip, the
// Video dock's export). The 3-D patch's limits are ops::patchmatch3d_fill's.
constexpr std::string_view kTemporalFillNames[] = {"patchmatch3d", "image", "auto"};
constexpr video::TemporalFillParams kTemporalFillDefaults{};
constexpr ParamField<video::TemporalFillParams> kTemporalFillFields[] = {
    field<&video::TemporalFillParams::method>(
        {.name = "temporal-fill",
         .label = "Unseen pixels",
         .kind = ParamKind::Choice,
         .default_value = static_cast<double>(kTemporalFillDefaults.method),
         .min = 0,
         .max = std::size(kTemporalFillNames) - 1,
         .step = 1,
         .help = "what no frame shows: patchmatch3d synthesises it once for the whole shot with "
                 "3-D patches (x, y, time); image fills it on key frames and carries it along the "
                 "flow; auto takes patchmatch3d for a shot whose camera moves under 2 px a frame, "
                 "image for a faster one",
         .choices = kTemporalFillNames}),
    field<&video::TemporalFillParams::patch>(
        {.name = "volume-patch",
         .label = "3-D patch size",
         .kind = ParamKind::Int,
         .default_value = kTemporalFillDefaults.patch,
         .min = 3,
         .max = 15,
         .step = 2,
         .unit = "pixels",
         .help = "patchmatch3d: the side of a patch in x and y"}),
    field<&video::TemporalFillParams::frames>({.name = "volume-frames",
                                               .label = "3-D patch frames",
                                               .kind = ParamKind::Int,
                                               .default_value = kTemporalFillDefaults.frames,
                                               .min = 1,
                                               .max = 9,
                                               .step = 2,
                                               .unit = "frames",
                                               .help = "patchmatch3d: the frames a patch spans"}),
    field<&video::TemporalFillParams::iterations>(
        {.name = "volume-iterations",
         .label = "3-D iterations",
         .kind = ParamKind::Int,
         .default_value = kTemporalFillDefaults.iterations,
         .min = 1,
         .max = 100,
         .step = 1,
         .help = "patchmatch3d: EM iterations a pyramid level (twice as many at the coarsest)"}),
};
constexpr auto kTemporalFillSpecs = specs_of(kTemporalFillFields);

// ---- checking ----

constexpr bool whole(const double v) {
    return v >= -9.0e15 && v <= 9.0e15 && static_cast<double>(static_cast<long long>(v)) == v;
}

/// The rule check_value applies, usable at compile time on the tables.
constexpr bool allowed(const ParamSpec& spec, const double v) {
    if (!(v >= spec.min && v <= spec.max) || v == kUnbounded) return false;  // NaN fails here
    switch (spec.kind) {
        case ParamKind::Int:
            return whole(v) && whole(spec.step) && spec.step >= 1 &&
                   static_cast<long long>(v - spec.min) % static_cast<long long>(spec.step) == 0;
        case ParamKind::Real:
            return true;
        case ParamKind::Bool:
            return v == 0 || v == 1;
        case ParamKind::Choice:
            return whole(v) && v < static_cast<double>(spec.choices.size());
    }
    return false;
}

constexpr bool defaults_allowed(std::span<const ParamSpec> specs) {
    for (const ParamSpec& s : specs) {
        if (!allowed(s, s.default_value)) return false;
        if (s.kind == ParamKind::Choice && s.max + 1 != static_cast<double>(s.choices.size()))
            return false;
    }
    return true;
}
static_assert(defaults_allowed(kInpaintSpecs) && defaults_allowed(kLineHistogramSpecs) &&
                  defaults_allowed(kSeamSpecs) && defaults_allowed(kBrushSpecs) &&
                  defaults_allowed(kBilateralSpecs) &&
                  defaults_allowed(kBilateralMeasurementSpecs) && defaults_allowed(kScaleSpecs) &&
                  defaults_allowed(kRetargetMixSpecs) && defaults_allowed(kVideoRetargetSpecs) &&
                  defaults_allowed(kTemporalSpecs) && defaults_allowed(kMaskTrackSpecs) &&
                  defaults_allowed(kTemporalFillSpecs),
              "every default lies in its parameter's range");
static_assert(defaults_agree<InpaintParams>(kInpaintFields) &&
                  defaults_agree<LineHistogramParams>(kLineHistogramFields) &&
                  defaults_agree<RetargetParams>(kSeamFields) &&
                  defaults_agree<BrushSettings>(kBrushFields) &&
                  defaults_agree<BilateralParams>(kBilateralFields) &&
                  defaults_agree<BilateralParams>(kBilateralMeasurementFields) &&
                  defaults_agree<ScaleParams>(kScaleFields) &&
                  defaults_agree<VideoRetargetParams>(kVideoRetargetFields) &&
                  defaults_agree<TemporalSmoothParams>(kTemporalFields) &&
                  defaults_agree<video::MaskTrackParams>(kMaskTrackFields) &&
                  defaults_agree<video::TemporalFillParams>(kTemporalFillFields) &&
                  defaults_agree<RetargetMix>(kRetargetMixFields),
              "every declared default is the params struct's");
static_assert(kInpaintSpecs[0].name == "patch" && kInpaintSpecs[0].step == 2 && kMinPatch % 2 == 1,
              "patch sizes are odd: step 2 from an odd minimum");

std::string number(const double v) {
    if (whole(v)) return std::to_string(static_cast<long long>(v));
    std::ostringstream out;
    out << std::setprecision(6) << v;
    return out.str();
}

std::string lower_label(const ParamSpec& spec) {
    std::string s(spec.label);
    for (char& c : s) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return s;
}

std::string subject_or_label(const ParamSpec& spec, const std::string_view subject) {
    return subject.empty() ? lower_label(spec) : std::string(subject);
}

/// "forward, l1, prewitt or sobel"
std::string choice_list(const ParamSpec& spec) {
    std::string out;
    for (std::size_t i = 0; i < spec.choices.size(); ++i) {
        if (i > 0) out += i + 1 == spec.choices.size() ? " or " : ", ";
        out += spec.choices[i];
    }
    return out;
}

std::string with_unit(const ParamSpec& spec) {
    std::string out;
    if (!spec.unit.empty()) {
        out.reserve(spec.unit.size() + 1);
        out.push_back(' ');
        out.append(spec.unit);
    }
    return out;
}

/// ", odd", ", even", ", in steps of 4" or nothing.
std::string step_rule(const ParamSpec& spec) {
    if (spec.kind != ParamKind::Int || spec.step == 1) return {};
    if (spec.step == 2) return whole(spec.min / 2) ? ", even" : ", odd";
    return ", in steps of " + number(spec.step) + " from " + number(spec.min);
}

}  // namespace

void throw_no_param(const std::string_view name) {
    throw Error(ErrorCode::InvalidArgument, "no parameter called '" + std::string(name) + "'");
}

const ParamSpec& param(const std::span<const ParamSpec> specs, const std::string_view name) {
    for (const ParamSpec& s : specs) {
        if (s.name == name) return s;
    }
    throw Error(ErrorCode::InvalidArgument, "no parameter called '" + std::string(name) + "'");
}

std::string format_value(const ParamSpec& spec, const double value) {
    if (spec.kind == ParamKind::Bool && (value == 0 || value == 1))
        return value == 1 ? "on" : "off";
    if (spec.kind == ParamKind::Choice && whole(value) && value >= 0 &&
        value < static_cast<double>(spec.choices.size()))
        return std::string(spec.choices[static_cast<std::size_t>(value)]);
    return number(value);
}

std::string describe_range(const ParamSpec& spec) {
    std::string range;
    switch (spec.kind) {
        case ParamKind::Int:
        case ParamKind::Real:
            range = spec.max == kUnbounded ? number(spec.min) + " or more"
                                           : number(spec.min) + ".." + number(spec.max);
            range += with_unit(spec) + step_rule(spec);
            break;
        case ParamKind::Bool:
            range = "on or off";
            break;
        case ParamKind::Choice:
            range = choice_list(spec);
            break;
    }
    return range + " (default " + format_value(spec, spec.default_value) + ")";
}

std::string value_error(const ParamSpec& spec, const double value, const std::string_view subject) {
    std::string rule;
    switch (spec.kind) {
        case ParamKind::Int:
        case ParamKind::Real: {
            const std::string step = step_rule(spec);
            const bool parity = step == ", odd" || step == ", even";  // "odd and from 3 to 31"
            if (parity) rule = step.substr(2) + " and ";
            rule += spec.max == kUnbounded ? number(spec.min) + " or more"
                                           : "from " + number(spec.min) + " to " + number(spec.max);
            rule += with_unit(spec);
            if (!parity) rule += step;
            break;
        }
        case ParamKind::Bool:
            rule = "on or off (1 or 0)";
            break;
        case ParamKind::Choice:
            rule = "a choice from 0 to " + std::to_string(spec.choices.size() - 1) + " (" +
                   choice_list(spec) + ")";
            break;
    }
    return subject_or_label(spec, subject) + " must be " + rule + ", not " + number(value);
}

void check_value(const ParamSpec& spec, const double value) {
    if (!allowed(spec, value)) throw Error(ErrorCode::InvalidArgument, value_error(spec, value));
}

std::string choice_error(const ParamSpec& spec, const std::string_view text,
                         const std::string_view subject) {
    return subject_or_label(spec, subject) + " must be " + choice_list(spec) + ", not '" +
           std::string(text) + "'";
}

int parse_choice(const ParamSpec& spec, const std::string_view text) {
    if (spec.kind != ParamKind::Choice)
        throw Error(ErrorCode::InvalidArgument, lower_label(spec) + " is not a choice");
    for (std::size_t i = 0; i < spec.choices.size(); ++i) {
        if (spec.choices[i] == text) return static_cast<int>(i);
    }
    throw Error(ErrorCode::InvalidArgument, choice_error(spec, text));
}

std::span<const ParamSpec> inpaint_param_specs() {
    return kInpaintSpecs;
}
std::span<const ParamSpec> line_histogram_param_specs() {
    return kLineHistogramSpecs;
}
std::span<const ParamSpec> retarget_mix_param_specs() {
    return kRetargetMixSpecs;
}

std::span<const ParamSpec> seam_param_specs() {
    return kSeamSpecs;
}
std::span<const ParamSpec> brush_param_specs() {
    return kBrushSpecs;
}

std::span<const ParamSpec> bilateral_param_specs() {
    return kBilateralSpecs;
}
std::span<const ParamSpec> bilateral_measurement_param_specs() {
    return kBilateralMeasurementSpecs;
}
std::span<const ParamSpec> scale_param_specs() {
    return kScaleSpecs;
}
std::span<const ParamSpec> video_retarget_param_specs() {
    return kVideoRetargetSpecs;
}

std::span<const ParamSpec> temporal_param_specs() {
    return kTemporalSpecs;
}

std::span<const ParamField<RetargetMix>> retarget_mix_param_fields() {
    return kRetargetMixFields;
}
std::span<const ParamField<InpaintParams>> inpaint_param_fields() {
    return kInpaintFields;
}
std::span<const ParamField<LineHistogramParams>> line_histogram_param_fields() {
    return kLineHistogramFields;
}
std::span<const ParamField<RetargetParams>> seam_param_fields() {
    return kSeamFields;
}
std::span<const ParamField<BrushSettings>> brush_param_fields() {
    return kBrushFields;
}
std::span<const ParamField<BilateralParams>> bilateral_param_fields() {
    return kBilateralFields;
}
std::span<const ParamField<BilateralParams>> bilateral_measurement_param_fields() {
    return kBilateralMeasurementFields;
}
std::span<const ParamField<ScaleParams>> scale_param_fields() {
    return kScaleFields;
}
std::span<const ParamField<VideoRetargetParams>> video_retarget_param_fields() {
    return kVideoRetargetFields;
}
std::span<const ParamField<TemporalSmoothParams>> temporal_param_fields() {
    return kTemporalFields;
}
std::span<const ParamSpec> mask_track_param_specs() {
    return kMaskTrackSpecs;
}
std::span<const ParamField<video::MaskTrackParams>> mask_track_param_fields() {
    return kMaskTrackFields;
}
std::span<const ParamSpec> temporal_fill_param_specs() {
    return kTemporalFillSpecs;
}
std::span<const ParamField<video::TemporalFillParams>> temporal_fill_param_fields() {
    return kTemporalFillFields;
}

double parse_value(const ParamSpec& spec, const std::string_view text) {
    double value = 0;
    if (spec.kind == ParamKind::Choice) {
        value = parse_choice(spec, text);
    } else if (spec.kind == ParamKind::Bool && (text == "on" || text == "off")) {
        value = text == "on" ? 1 : 0;
    } else {
        const char* const end = text.data() + text.size();
        const auto [stop, error] = std::from_chars(text.data(), end, value);
        if (text.empty() || error != std::errc{} || stop != end)
            throw Error(ErrorCode::InvalidArgument,
                        lower_label(spec) + " needs a number, not '" + std::string(text) + "'");
    }
    check_value(spec, value);
    return value;
}

std::string settings_value(const ParamSpec& spec, const double value) {
    if (spec.kind == ParamKind::Bool || spec.kind == ParamKind::Choice)
        return format_value(spec, value);
    char text[32];
    const auto [end, error] = std::to_chars(text, text + sizeof text, value);
    return error == std::errc{} ? std::string(text, end) : number(value);
}

std::vector<SettingsLine> split_settings(const std::string_view text, int& version) {
    std::vector<SettingsLine> lines;
    version = 0;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(start, end - start);
        start = end + 1;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.empty() || line.front() == '#') continue;
        const std::size_t eq = line.find('=');
        if (eq == std::string_view::npos || eq == 0)
            throw Error(ErrorCode::InvalidArgument,
                        "a settings line must be name=value, not '" + std::string(line) + "'");
        SettingsLine entry{std::string(line.substr(0, eq)), std::string(line.substr(eq + 1))};
        if (entry.name == "version") {
            const char* const first = entry.value.data();
            const char* const last = first + entry.value.size();
            const auto [stop, error] = std::from_chars(first, last, version);
            if (error != std::errc{} || stop != last || version < 0)
                throw Error(ErrorCode::InvalidArgument,
                            "a settings version must be a whole number, not '" + entry.value + "'");
            if (version > kSettingsVersion)
                throw Error(ErrorCode::InvalidArgument, "these settings are version " +
                                                            entry.value +
                                                            ", newer than this "
                                                            "build's " +
                                                            std::to_string(kSettingsVersion));
            continue;
        }
        lines.push_back(std::move(entry));
    }
    return lines;
}

}  // namespace lacuna::ops
