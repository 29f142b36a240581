#include "grabcut.hpp"

#include <lacuna/core/error.hpp>

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace lacuna::session {
namespace {

/// The pixels of `work` as OpenCV's BGR.
cv::Mat bgr_of(const ImageView<const Rgba8> image, const PixelRect& work) {
    cv::Mat bgr(work.height(), work.width(), CV_8UC3);
    for (int y = 0; y < work.height(); ++y) {
        const Rgba8* in = image.row(work.y0 + y) + work.x0;
        auto* out = bgr.ptr<cv::Vec3b>(y);
        for (int x = 0; x < work.width(); ++x) out[x] = {in[x].b, in[x].g, in[x].r};
    }
    return bgr;
}

/// GrabCut seeds its colour models' k-means from OpenCV's per-thread generator, so the same box
/// could propose another mask after any other OpenCV call had drawn from it (a scribble before a
/// box did). The same seed for every call, and the thread's generator put back after.
class FixedRng {
  public:
    FixedRng() : saved_(cv::theRNG()) { cv::theRNG() = cv::RNG(0x6c616375); }
    ~FixedRng() { cv::theRNG() = saved_; }
    FixedRng(const FixedRng&) = delete;
    FixedRng& operator=(const FixedRng&) = delete;

  private:
    cv::RNG saved_;
};

bool foreground(const std::uint8_t label) {
    return label == cv::GC_FGD || label == cv::GC_PR_FGD;
}

}  // namespace

Mask grabcut_mask(const ImageView<const Rgba8> image, const PixelRect rect, const int iterations) {
    const PixelRect box = clip(rect, image.width, image.height);
    if (box.empty() || box.width() < 3 || box.height() < 3)
        throw Error(ErrorCode::InvalidArgument,
                    "Box selection: draw a box of at least 3 × 3 pixels around the object.");
    if (box.x0 == 0 && box.y0 == 0 && box.x1 == image.width - 1 && box.y1 == image.height - 1)
        throw Error(ErrorCode::InvalidArgument,
                    "Box selection: the box covers the whole image; leave some background "
                    "outside it.");
    // The background model learns from a margin around the box (half its size, at least 16
    // pixels): what surrounds the object, not the far side of the photo, and a bounded cost.
    const int margin = std::max(16, std::max(box.width(), box.height()) / 2);
    const PixelRect work =
        clip({box.x0 - margin, box.y0 - margin, box.x1 + margin, box.y1 + margin}, image.width,
             image.height);
    const cv::Mat bgr = bgr_of(image, work);
    cv::Mat labels(work.height(), work.width(), CV_8UC1, cv::Scalar(cv::GC_BGD));
    cv::Mat background_model, foreground_model;
    const cv::Rect inside(box.x0 - work.x0, box.y0 - work.y0, box.width(), box.height());
    try {
        const FixedRng fixed;
        cv::grabCut(bgr, labels, inside, background_model, foreground_model, iterations,
                    cv::GC_INIT_WITH_RECT);
    } catch (const cv::Exception& e) {
        throw Error(ErrorCode::InvalidArgument, std::string("Box selection failed: ") + e.what());
    }
    Mask mask(image.width, image.height, 0);
    for (int y = 0; y < work.height(); ++y) {
        const std::uint8_t* in = labels.ptr<std::uint8_t>(y);
        std::uint8_t* out = mask.row(work.y0 + y) + work.x0;
        for (int x = 0; x < work.width(); ++x) out[x] = foreground(in[x]) ? 255 : 0;
    }
    return mask;
}

Mask grabcut_scribble_mask(const ImageView<const Rgba8> image, const MaskView seeds,
                           const int iterations) {
    if (seeds.width != image.width || seeds.height != image.height)
        throw Error(ErrorCode::InvalidArgument,
                    "Scribble selection: the strokes' mask is not the picture's size.");
    PixelRect strokes;
    for (int y = 0; y < seeds.height; ++y) {
        const std::uint8_t* row = seeds.row(y);
        for (int x = 0; x < seeds.width; ++x)
            if (row[x] != 0) strokes.unite({x, y, x, y});
    }
    if (strokes.empty())
        throw Error(ErrorCode::InvalidArgument,
                    "Scribble selection: scribble over the object to remove.");
    // A scribble usually crosses the object without reaching its outline: the window reaches
    // the strokes' longer side beyond them, and GrabCut decides how much of it is the object.
    const int margin = std::max(16, std::max(strokes.width(), strokes.height()));
    const PixelRect work =
        clip({strokes.x0 - margin, strokes.y0 - margin, strokes.x1 + margin, strokes.y1 + margin},
             image.width, image.height);
    // The window's frame is certain background where it lies inside the image (what surrounds
    // the object); at the image's border it stays probable (the object may touch the border).
    cv::Mat labels(work.height(), work.width(), CV_8UC1, cv::Scalar(cv::GC_PR_BGD));
    bool any_background = false;
    for (int y = 0; y < work.height(); ++y) {
        std::uint8_t* out = labels.ptr<std::uint8_t>(y);
        const std::uint8_t* seed = seeds.row(work.y0 + y) + work.x0;
        const int iy = work.y0 + y;
        for (int x = 0; x < work.width(); ++x) {
            const int ix = work.x0 + x;
            const bool frame =
                (x == 0 && ix > 0) || (x == work.width() - 1 && ix < image.width - 1) ||
                (y == 0 && iy > 0) || (y == work.height() - 1 && iy < image.height - 1);
            if (seed[x] != 0) {
                out[x] = cv::GC_FGD;
            } else {
                any_background = true;
                if (frame) out[x] = cv::GC_BGD;
            }
        }
    }
    if (!any_background)
        throw Error(ErrorCode::InvalidArgument,
                    "Scribble selection: the strokes cover the whole picture; scribble on the "
                    "object only.");
    cv::Mat background_model, foreground_model;
    try {
        const FixedRng fixed;
        cv::grabCut(bgr_of(image, work), labels, cv::Rect(), background_model, foreground_model,
                    iterations, cv::GC_INIT_WITH_MASK);
    } catch (const cv::Exception& e) {
        throw Error(ErrorCode::InvalidArgument,
                    std::string("Scribble selection failed: ") + e.what());
    }
    // Only what is connected to the strokes: a patch of the same colour elsewhere in the window
    // is another object, not the one scribbled on.
    cv::Mat object(work.height(), work.width(), CV_8UC1);
    for (int y = 0; y < work.height(); ++y) {
        const std::uint8_t* in = labels.ptr<std::uint8_t>(y);
        std::uint8_t* out = object.ptr<std::uint8_t>(y);
        for (int x = 0; x < work.width(); ++x) out[x] = foreground(in[x]) ? 1 : 0;
    }
    cv::Mat components;
    const int count = cv::connectedComponents(object, components, 8, CV_32S);
    std::vector<std::uint8_t> seeded(static_cast<std::size_t>(count), 0);
    for (int y = 0; y < work.height(); ++y) {
        const std::uint8_t* seed = seeds.row(work.y0 + y) + work.x0;
        const std::int32_t* id = components.ptr<std::int32_t>(y);
        for (int x = 0; x < work.width(); ++x)
            if (seed[x] != 0) seeded[static_cast<std::size_t>(id[x])] = 1;
    }
    Mask mask(image.width, image.height, 0);
    for (int y = 0; y < work.height(); ++y) {
        const std::uint8_t* in = object.ptr<std::uint8_t>(y);
        const std::int32_t* id = components.ptr<std::int32_t>(y);
        std::uint8_t* out = mask.row(work.y0 + y) + work.x0;
        for (int x = 0; x < work.width(); ++x)
            out[x] = in[x] != 0 && seeded[static_cast<std::size_t>(id[x])] != 0 ? 255 : 0;
    }
    return mask;
}

}  // namespace lacuna::session
