#include "grabcut.hpp"

#include <lacuna/core/error.hpp>

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <string>

namespace lacuna::session {

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
    cv::Mat bgr(work.height(), work.width(), CV_8UC3);
    for (int y = 0; y < work.height(); ++y) {
        const Rgba8* in = image.row(work.y0 + y) + work.x0;
        auto* out = bgr.ptr<cv::Vec3b>(y);
        for (int x = 0; x < work.width(); ++x) out[x] = {in[x].b, in[x].g, in[x].r};
    }
    cv::Mat labels(work.height(), work.width(), CV_8UC1, cv::Scalar(cv::GC_BGD));
    cv::Mat background_model, foreground_model;
    const cv::Rect inside(box.x0 - work.x0, box.y0 - work.y0, box.width(), box.height());
    try {
        cv::grabCut(bgr, labels, inside, background_model, foreground_model, iterations,
                    cv::GC_INIT_WITH_RECT);
    } catch (const cv::Exception& e) {
        throw Error(ErrorCode::InvalidArgument, std::string("Box selection failed: ") + e.what());
    }
    Mask mask(image.width, image.height, 0);
    for (int y = 0; y < work.height(); ++y) {
        const std::uint8_t* in = labels.ptr<std::uint8_t>(y);
        std::uint8_t* out = mask.row(work.y0 + y) + work.x0;
        for (int x = 0; x < work.width(); ++x)
            out[x] = in[x] == cv::GC_FGD || in[x] == cv::GC_PR_FGD ? 255 : 0;
    }
    return mask;
}

}  // namespace lacuna::session
