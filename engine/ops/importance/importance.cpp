// Importance terms from OpenCV's detectors, combined into the carvers' per-pixel levels.
#include <lacuna/core/error.hpp>
#include <lacuna/io/opencv_plugin.hpp>
#include <lacuna/ops/importance.hpp>

#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>
#if LACUNA_HAVE_SALIENCY
#include <opencv2/saliency.hpp>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <optional>

namespace lacuna::ops {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(const Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

cv::Mat wrap(const ImageView<const Rgba8> image) {
    return {image.height, image.width, CV_8UC4, const_cast<Rgba8*>(image.data), image.pitch};
}

/// The detectors' copy: RGB, at most `max_side` long (area averaging keeps small faces visible).
struct Small {
    cv::Mat rgb;
    double scale = 1;  ///< image pixels per small pixel
};
Small downscaled(const ImageView<const Rgba8> image, const int max_side) {
    Small s;
    cv::Mat rgb;
    cv::cvtColor(wrap(image), rgb, cv::COLOR_RGBA2RGB);
    const int side = std::max(image.width, image.height);
    if (side <= max_side) {
        s.rgb = rgb;
        return s;
    }
    s.scale = static_cast<double>(side) / max_side;
    const int w = std::max(1, static_cast<int>(std::lround(image.width / s.scale)));
    const int h = std::max(1, static_cast<int>(std::lround(image.height / s.scale)));
    cv::resize(rgb, s.rgb, {w, h}, 0, 0, cv::INTER_AREA);
    return s;
}

/// Loaded once per thread: reading a cascade's XML takes longer than running it, and a
/// CascadeClassifier must not run on two threads at once.
struct Cascades {
    cv::CascadeClassifier frontal, profile;
    std::string missing;  ///< why faces cannot be looked for (empty when both loaded)
};
Cascades& cascades() {
    thread_local std::optional<Cascades> c;
    if (c) return *c;
    c.emplace();
    const std::filesystem::path dir = haar_cascade_dir();
    const auto load = [&](cv::CascadeClassifier& cascade, const char* file) {
        const std::filesystem::path path = dir / file;
        std::error_code ec;
        if (!std::filesystem::exists(path, ec) || !cascade.load(path.string()))
            c->missing = "no face cascade at " + path.string() +
                         " (install Debian's opencv-data); faces are not protected";
    };
    load(c->frontal, "haarcascade_frontalface_alt2.xml");
    load(c->profile, "haarcascade_profileface.xml");
    return *c;
}

double overlap(const cv::Rect& a, const cv::Rect& b) {
    const double inter = (a & b).area();
    return inter / std::min(a.area(), b.area());
}

/// Ellipse around a face box, widened for hair, ears and chin, soft over a margin of a third
/// of the face: 1 inside, falling linearly to 0 at the margin's end.
void add_face(cv::Mat& map, const FaceBox& f, const double scale) {
    const double cx = (f.x + f.width * 0.5) / scale, cy = (f.y + f.height * 0.5) / scale;
    const double rx = f.width * 0.62 / scale, ry = f.height * 0.78 / scale;
    const double margin = 0.35;  // of the radius
    const int x0 = std::max(0, static_cast<int>(cx - rx * (1 + margin)) - 1);
    const int x1 = std::min(map.cols - 1, static_cast<int>(cx + rx * (1 + margin)) + 1);
    const int y0 = std::max(0, static_cast<int>(cy - ry * (1 + margin)) - 1);
    const int y1 = std::min(map.rows - 1, static_cast<int>(cy + ry * (1 + margin)) + 1);
    for (int y = y0; y <= y1; ++y) {
        float* row = map.ptr<float>(y);
        for (int x = x0; x <= x1; ++x) {
            const double dx = (x + 0.5 - cx) / rx, dy = (y + 0.5 - cy) / ry;
            const double r = std::sqrt(dx * dx + dy * dy);
            const double v = r <= 1 ? 1.0 : std::max(0.0, 1.0 - (r - 1) / margin);
            row[x] = std::max(row[x], static_cast<float>(v));
        }
    }
}

std::vector<FaceBox> faces_in(const Small& small, std::vector<std::string>* notes) {
    Cascades& c = cascades();
    if (!c.missing.empty()) {
        if (notes) notes->push_back(c.missing);
        return {};
    }
    cv::Mat grey;
    cv::cvtColor(small.rgb, grey, cv::COLOR_RGB2GRAY);
    cv::equalizeHist(grey, grey);
    // Faces under 1/16 of the smaller side (a crowd) are left to the energy: protecting each
    // would leave the carver nowhere to go, and looking for them costs most of the time.
    const int min_side = std::max(24, std::min(grey.cols, grey.rows) / 16);
    std::vector<cv::Rect> frontal, left, right;
    // minNeighbors 5 (frontal) and 8 (profile): Haar cascades fire on textures (fruit, foliage)
    // with the default 3, and the profile cascade found a 120-pixel "face" on home.jpg's facade
    // with 5 (the benchmark's real faces keep their detections with 8).
    c.frontal.detectMultiScale(grey, frontal, 1.15, 5, 0, {min_side, min_side});
    c.profile.detectMultiScale(grey, left, 1.15, 8, 0, {min_side, min_side});
    cv::Mat flipped;
    cv::flip(grey, flipped, 1);
    c.profile.detectMultiScale(flipped, right, 1.15, 8, 0, {min_side, min_side});
    for (cv::Rect& r : right) r.x = grey.cols - r.x - r.width;
    std::vector<std::pair<cv::Rect, bool>> all;
    for (const cv::Rect& r : frontal) all.emplace_back(r, false);
    for (const auto* list : {&left, &right})
        for (const cv::Rect& r : *list) {
            // A profile that overlaps a frontal detection is the same face.
            const bool seen = std::any_of(all.begin(), all.end(),
                                          [&](const auto& a) { return overlap(a.first, r) > 0.4; });
            if (!seen) all.emplace_back(r, true);
        }
    std::vector<FaceBox> out;
    for (const auto& [r, profile] : all) {
        FaceBox f;
        f.x = static_cast<int>(std::lround(r.x * small.scale));
        f.y = static_cast<int>(std::lround(r.y * small.scale));
        f.width = static_cast<int>(std::lround(r.width * small.scale));
        f.height = static_cast<int>(std::lround(r.height * small.scale));
        f.profile = profile;
        out.push_back(f);
    }
    std::sort(out.begin(), out.end(), [](const FaceBox& a, const FaceBox& b) {
        return a.x != b.x ? a.x < b.x : a.y < b.y;
    });
    return out;
}

[[noreturn]] void missing_contrib(const char* module) {
    throw Error(ErrorCode::InvalidArgument,
                std::string("this build has no OpenCV contrib ") + module +
                    " module (install Debian's libopencv-contrib-dev and rebuild)");
}

cv::Mat saliency_small(const Small& small) {
#if LACUNA_HAVE_SALIENCY
    cv::Ptr<cv::saliency::StaticSaliencySpectralResidual> sr =
        cv::saliency::StaticSaliencySpectralResidual::create();
    cv::Mat raw;
    if (!sr->computeSaliency(small.rgb, raw)) missing_contrib("saliency");
    raw.convertTo(raw, CV_32F);
    // Spectral residual marks object edges; a blur of a tenth of the image makes it cover the
    // objects (Hou & Zhang blur their map too), then it is normalised to its own maximum.
    const int k = std::max(3, (std::min(raw.cols, raw.rows) / 10) | 1);
    cv::GaussianBlur(raw, raw, {k, k}, 0);
    double lo = 0, hi = 0;
    cv::minMaxLoc(raw, &lo, &hi);
    if (hi > lo) raw = (raw - lo) / (hi - lo);
    // Below the mean is background: only what stands out counts.
    const double mean = cv::mean(raw)[0];
    cv::Mat out = cv::max(raw - mean, 0.0) / std::max(1e-6, 1.0 - mean);
    return out;
#else
    (void)small;
    missing_contrib("saliency");
#endif
}

std::vector<LineSegment> lines_in(const Small& small) {
    const io::OpenCvPlugin& opencv = io::opencv_plugin();
    if (!opencv.has_ximgproc()) missing_contrib("ximgproc");
    cv::Mat grey;
    cv::cvtColor(small.rgb, grey, cv::COLOR_RGB2GRAY);
    // Segments shorter than 1/12 of the smaller side are texture, not structure.
    const int min_length = std::max(12, std::min(grey.cols, grey.rows) / 12);
    std::vector<LineSegment> out;
    for (const cv::Vec4f& v :
         opencv.fast_line_detector(grey, min_length, 1.414f, 50, 50, 3, true)) {
        out.push_back(
            {static_cast<float>(v[0] * small.scale), static_cast<float>(v[1] * small.scale),
             static_cast<float>(v[2] * small.scale), static_cast<float>(v[3] * small.scale)});
    }
    return out;
}

/// Chai & Ngan's YCrCb box (Cr 133..173, Cb 77..127), opened to drop specks and blurred soft.
cv::Mat skin_small(const Small& small) {
    cv::Mat ycrcb, box;
    cv::cvtColor(small.rgb, ycrcb, cv::COLOR_RGB2YCrCb);
    cv::inRange(ycrcb, cv::Scalar(40, 133, 77), cv::Scalar(255, 173, 127), box);
    const cv::Mat kernel = cv::getStructuringElement(cv::MORPH_ELLIPSE, {5, 5});
    cv::morphologyEx(box, box, cv::MORPH_OPEN, kernel);
    cv::Mat out;
    box.convertTo(out, CV_32F, 1.0 / 255);
    cv::GaussianBlur(out, out, {7, 7}, 0);
    return out;
}

}  // namespace

std::string haar_cascade_dir() {
    if (const char* dir = std::getenv("LACUNA_HAARCASCADES"); dir && *dir) return dir;
    return LACUNA_HAARCASCADE_DIR;
}

int importance_unit(const SeamEnergy energy) {
    switch (energy) {
        case SeamEnergy::Forward:
        case SeamEnergy::L1:
        // Transversal is forward energy's straight-step cost |I(x + 1) − I(x − 1)|.
        case SeamEnergy::Transversal:
            return 48;
        case SeamEnergy::Prewitt:
            return 96;
        case SeamEnergy::Sobel:
            return 128;
    }
    return 48;
}

bool ImportanceMap::empty() const {
    for (int y = 0; y < levels.height(); ++y) {
        const std::uint8_t* row = levels.row(y);
        if (std::any_of(row, row + levels.width(), [](const std::uint8_t v) { return v != 0; }))
            return false;
    }
    return true;
}

bool any_importance(const ImportanceParams& p) {
    return (p.faces && p.face_weight > 0) || (p.saliency && p.saliency_weight > 0) ||
           (p.lines && p.line_weight > 0) || (p.skin && p.skin_weight > 0);
}

void check_importance(const ImportanceParams& p) {
    const auto check = [](const int w, const char* what) {
        if (w < 0 || w > kImportanceMaxLevel)
            throw Error(ErrorCode::InvalidArgument,
                        std::string("the ") + what + " weight must be from 0 to " +
                            std::to_string(kImportanceMaxLevel) + ", not " + std::to_string(w));
    };
    check(p.face_weight, "face");
    check(p.saliency_weight, "saliency");
    check(p.line_weight, "line");
    check(p.skin_weight, "skin");
    if (p.detect_max_side < 64)
        throw Error(ErrorCode::InvalidArgument,
                    "the detection size must be at least 64 pixels, not " +
                        std::to_string(p.detect_max_side));
}

std::vector<FaceBox> detect_faces(const ImageView<const Rgba8> image, const int detect_max_side,
                                  std::vector<std::string>* notes) {
    check_image_size(image.width, image.height);
    return faces_in(downscaled(image, detect_max_side), notes);
}

Image<float> saliency_map(const ImageView<const Rgba8> image, const int detect_max_side) {
    check_image_size(image.width, image.height);
    const cv::Mat small = saliency_small(downscaled(image, detect_max_side));
    cv::Mat full;
    cv::resize(small, full, {image.width, image.height}, 0, 0, cv::INTER_LINEAR);
    Image<float> out(image.width, image.height);
    for (int y = 0; y < image.height; ++y) std::copy_n(full.ptr<float>(y), image.width, out.row(y));
    return out;
}

Image<float> fine_grained_saliency_map(const ImageView<const Rgba8> image,
                                       const int detect_max_side) {
    check_image_size(image.width, image.height);
#if LACUNA_HAVE_SALIENCY
    const Small small = downscaled(image, detect_max_side);
    cv::Ptr<cv::saliency::StaticSaliencyFineGrained> fg =
        cv::saliency::StaticSaliencyFineGrained::create();
    cv::Mat raw;
    if (!fg->computeSaliency(small.rgb, raw)) missing_contrib("saliency");
    // The model's own output (centre-surround contrast of intensity at several scales, 0 .. 255),
    // only normalised to 0 .. 1: no blur and no threshold of ours, so that a measure weighing
    // by it does not inherit the carvers' choices (see the header).
    raw.convertTo(raw, CV_32F);
    double lo = 0, hi = 0;
    cv::minMaxLoc(raw, &lo, &hi);
    if (hi > lo) raw = (raw - lo) / (hi - lo);
    cv::Mat full;
    cv::resize(raw, full, {image.width, image.height}, 0, 0, cv::INTER_LINEAR);
    Image<float> out(image.width, image.height);
    for (int y = 0; y < image.height; ++y) std::copy_n(full.ptr<float>(y), image.width, out.row(y));
    return out;
#else
    (void)detect_max_side;
    missing_contrib("saliency");
#endif
}

namespace {
/// The small copy's summed levels resized to width × height, rounded and capped at the top level.
Mask levels_at(const cv::Mat& sum, const int width, const int height) {
    cv::Mat full;
    cv::resize(sum, full, {width, height}, 0, 0, cv::INTER_LINEAR);
    Mask levels(width, height, 0);
    for (int y = 0; y < height; ++y) {
        const float* src = full.ptr<float>(y);
        std::uint8_t* dst = levels.row(y);
        for (int x = 0; x < width; ++x)
            dst[x] = static_cast<std::uint8_t>(
                std::clamp(static_cast<int>(std::lround(src[x])), 0, kImportanceMaxLevel));
    }
    return levels;
}

ImportanceMap importance_map_with(const ImageView<const Rgba8> image, const ImportanceParams& p,
                                  const std::vector<FaceBox>* given_faces) {
    check_image_size(image.width, image.height);
    check_importance(p);
    ImportanceMap out;
    out.levels = Mask(image.width, image.height, 0);
    if (!any_importance(p)) return out;
    const Small small = downscaled(image, p.detect_max_side);
    auto t = Clock::now();
    if (p.faces && p.face_weight > 0)
        out.faces = given_faces ? *given_faces : faces_in(small, &out.notes);
    if (p.lines && p.line_weight > 0) out.lines = lines_in(small);
    out.detect_ms = ms_since(t);
    t = Clock::now();
    // Levels in floating point on the small copy, then one resize to the image.
    cv::Mat sum(small.rgb.rows, small.rgb.cols, CV_32F, cv::Scalar(0));
    if (!out.faces.empty()) {
        cv::Mat faces(sum.size(), CV_32F, cv::Scalar(0));
        for (const FaceBox& f : out.faces) add_face(faces, f, small.scale);
        sum += faces * p.face_weight;
    }
    if (p.saliency && p.saliency_weight > 0) sum += saliency_small(small) * p.saliency_weight;
    if (p.skin && p.skin_weight > 0) sum += skin_small(small) * p.skin_weight;
    if (!out.lines.empty()) {
        out.levels_without_lines = levels_at(sum, image.width, image.height);
        cv::Mat lines(sum.size(), CV_32F, cv::Scalar(0));
        for (const LineSegment& l : out.lines)
            cv::line(lines,
                     {static_cast<int>(l.x0 / small.scale), static_cast<int>(l.y0 / small.scale)},
                     {static_cast<int>(l.x1 / small.scale), static_cast<int>(l.y1 / small.scale)},
                     cv::Scalar(1.0), 3, cv::LINE_AA);
        sum += cv::min(lines, 1.0) * p.line_weight;
    }
    out.levels = levels_at(sum, image.width, image.height);
    out.maps_ms = ms_since(t);
    return out;
}
}  // namespace

ImportanceMap importance_map(const ImageView<const Rgba8> image, const ImportanceParams& p) {
    return importance_map_with(image, p, nullptr);
}

ImportanceMap importance_map(const ImageView<const Rgba8> image, const ImportanceParams& p,
                             const std::vector<FaceBox>& faces) {
    return importance_map_with(image, p, &faces);
}

}  // namespace lacuna::ops
