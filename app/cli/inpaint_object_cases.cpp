#include "inpaint_object_cases.hpp"

#include "bench_util.hpp"

#include <lacuna/io/image_io.hpp>

#include <opencv2/imgproc.hpp>

#include <cmath>
#include <numbers>

namespace lacuna::cli {
namespace {

namespace fs = std::filesystem;

ImageRgba8 load_photo(const fs::path& path, const int width) {
    ImageRgba8 image = io::read_image(path).image;
    if (width <= 0 || image.width() == width) return image;
    const int height =
        static_cast<int>(std::lround(static_cast<double>(image.height()) * width / image.width()));
    return resized(image, width, height);
}

cv::Mat draw_object(const ObjectCase& c, const int w, const int h) {
    cv::Mat m(h, w, CV_8UC1, cv::Scalar(0));
    switch (c.shape) {
        case ObjectShape::Blob: {
            // An irregular outline: the radius wobbles with the angle (three and five lobes), so
            // the hole is not an ellipse that a method could be tuned to.
            std::vector<cv::Point> outline;
            for (int i = 0; i < 72; ++i) {
                const double a = 2 * std::numbers::pi * i / 72;
                const double k = 1 + 0.18 * std::sin(3 * a + c.x0 * 0.1) + 0.08 * std::sin(5 * a);
                outline.emplace_back(static_cast<int>(std::lround(c.x0 + k * c.rx * std::cos(a))),
                                     static_cast<int>(std::lround(c.y0 + k * c.ry * std::sin(a))));
            }
            cv::fillPoly(m, std::vector<std::vector<cv::Point>>{outline}, cv::Scalar(255),
                         cv::LINE_8);
            break;
        }
        case ObjectShape::Figure: {
            const int head = std::max(3, c.rx * 2 / 3);
            cv::ellipse(m, cv::Point(c.x0, c.y0), cv::Size(c.rx, c.ry), 0, 0, 360, cv::Scalar(255),
                        cv::FILLED);
            cv::circle(m, cv::Point(c.x0, c.y0 - c.ry - head + 2), head, cv::Scalar(255),
                       cv::FILLED);
            break;
        }
        case ObjectShape::Pole:
            cv::line(m, cv::Point(c.x0, c.y0), cv::Point(c.x1, c.y1), cv::Scalar(255), c.thickness,
                     cv::LINE_8);
            break;
        case ObjectShape::Cable: {
            std::vector<cv::Point> points;
            for (int i = 0; i <= 32; ++i) {
                const double t = i / 32.0;
                points.emplace_back(static_cast<int>(std::lround(c.x0 + (c.x1 - c.x0) * t)),
                                    static_cast<int>(std::lround(c.y0 + (c.y1 - c.y0) * t +
                                                                 4 * c.sag * t * (1 - t))));
            }
            cv::polylines(m, points, false, cv::Scalar(255), c.thickness, cv::LINE_8);
            break;
        }
    }
    return m;
}

Mask to_mask(const cv::Mat& m) {
    Mask mask(m.cols, m.rows);
    for (int y = 0; y < m.rows; ++y)
        for (int x = 0; x < m.cols; ++x) mask.at(x, y) = m.at<std::uint8_t>(y, x) != 0 ? 1 : 0;
    return mask;
}

}  // namespace

std::vector<ObjectCase> object_cases() {
    using S = ObjectShape;
    std::vector<ObjectCase> cases;
    const auto blob = [&](std::string name, std::string photo, const bool repository,
                          const int width, const int x, const int y, const int rx, const int ry,
                          std::string object) {
        ObjectCase c;
        c.name = std::move(name);
        c.photo = std::move(photo);
        c.repository = repository;
        c.width = width;
        c.shape = S::Blob;
        c.x0 = x, c.y0 = y, c.rx = rx, c.ry = ry;
        c.object_photo = std::move(object);
        cases.push_back(c);
    };
    const auto line = [&](std::string name, std::string photo, const bool repository,
                          const int width, const S shape, const int x0, const int y0, const int x1,
                          const int y1, const int thickness, const int sag) {
        ObjectCase c;
        c.name = std::move(name);
        c.photo = std::move(photo);
        c.repository = repository;
        c.width = width;
        c.shape = shape;
        c.x0 = x0, c.y0 = y0, c.x1 = x1, c.y1 = y1;
        c.thickness = thickness;
        c.sag = sag;
        c.grow = 3;
        cases.push_back(c);
    };
    // Smooth sky and gradients.
    blob("obj sky overcast", "leuvenA.jpg", false, 640, 300, 85, 40, 34, "apple.jpg");
    blob("obj sky blue clouds", "home.jpg", true, 0, 175, 95, 34, 28, "HappyFish.jpg");
    blob("obj smooth backdrop", "orange.jpg", false, 640, 75, 80, 40, 36, "smarties.png");
    blob("obj table gradient border", "stuff.jpg", false, 640, 14, 200, 40, 45, "apple.jpg");
    // Plain walls and surfaces.
    blob("obj plain table", "stuff.jpg", false, 640, 510, 390, 48, 38, "baboon.jpg");
    blob("obj orange peel", "orange.jpg", false, 640, 420, 360, 45, 40, "HappyFish.jpg");
    // Regular structure with lines crossing the hole.
    ObjectCase figure;
    figure.name = "obj figure on brick and windows";
    figure.photo = "leuvenA.jpg";
    figure.shape = S::Figure;
    figure.x0 = 540, figure.y0 = 255, figure.rx = 24, figure.ry = 42;
    figure.object_photo = "baboon.jpg";
    cases.push_back(figure);
    blob("obj windows grid", "building.jpg", true, 0, 560, 175, 44, 40, "fruits.jpg");
    blob("obj lattice", "rubberwhale1.png", false, 640, 135, 68, 34, 30, "apple.jpg");
    blob("obj striped cloth", "rubberwhale1.png", false, 640, 190, 225, 40, 28, "orange.jpg");
    blob("obj patterned fabric", "aloeL.jpg", false, 640, 62, 90, 38, 34, "HappyFish.jpg");
    blob("obj circuit board", "board.jpg", false, 640, 450, 350, 38, 34, "apple.jpg");
    blob("obj brick wall at border", "leuvenA.jpg", false, 640, 8, 250, 36, 40, "fruits.jpg");
    // Fine texture.
    blob("obj cobblestones", "leuvenA.jpg", false, 640, 205, 425, 46, 30, "orange.jpg");
    blob("obj fur", "baboon.jpg", false, 640, 110, 380, 40, 44, "smarties.png");
    blob("obj foliage bokeh", "squirrel_cls.jpg", false, 640, 90, 215, 44, 40, "apple.jpg");
    blob("obj bark", "squirrel_cls.jpg", false, 640, 530, 290, 26, 20, "orange.jpg");
    blob("obj knit", "rubberwhale1.png", false, 640, 520, 150, 40, 48, "baboon.jpg");
    blob("obj grass", "messi5.jpg", true, 0, 80, 300, 30, 18, "orange.jpg");
    blob("obj aerial town", "aero1.jpg", false, 640, 330, 200, 44, 40, "fruits.jpg");
    blob("obj shore and water", "aero1.jpg", false, 640, 545, 95, 36, 30, "apple.jpg");
    blob("obj painting swirls", "starry_night.jpg", false, 640, 350, 150, 44, 40, "apple.jpg");
    // Long thin objects: poles and cables, one touching the border.
    line("obj pole on cobbles (border)", "leuvenA.jpg", false, 640, S::Pole, 300, 479, 296, 300, 8,
         0);
    line("obj cable across sky and roof", "leuvenA.jpg", false, 640, S::Cable, 180, 112, 470, 62, 3,
         14);
    line("obj lamp post on lawn (border)", "building.jpg", true, 0, S::Pole, 60, 599, 64, 370, 7,
         0);
    line("obj wire over knit and box", "rubberwhale1.png", false, 640, S::Cable, 420, 200, 639, 330,
         3, 10);
    return cases;
}

MadeObjectCase make_object_case(const ObjectCase& c, const fs::path& repository_dir,
                                const fs::path& opencv_dir) {
    MadeObjectCase out;
    out.truth = load_photo((c.repository ? repository_dir : opencv_dir) / c.photo, c.width);
    const int w = out.truth.width(), h = out.truth.height();
    const cv::Mat object = draw_object(c, w, h);
    cv::Mat hole;
    const int g = std::max(0, c.grow);
    cv::dilate(object, hole,
               cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(2 * g + 1, 2 * g + 1)));
    out.object = to_mask(object);
    out.hole = to_mask(hole);
    out.input = out.truth;
    ImageRgba8 stuff;
    if (!c.object_photo.empty()) stuff = resized(load_photo(opencv_dir / c.object_photo, 0), w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            if (out.object.at(x, y) == 0) continue;
            if (!c.object_photo.empty()) {
                out.input.at(x, y) = stuff.at(x, y);
            } else {
                // Painted metal: dark, lit a little from the left.
                const int v = 40 + (x * 7 + y * 3) % 9;
                out.input.at(x, y) =
                    Rgba8{static_cast<std::uint8_t>(v), static_cast<std::uint8_t>(v + 2),
                          static_cast<std::uint8_t>(v + 6), 255};
            }
        }
    return out;
}

}  // namespace lacuna::cli
