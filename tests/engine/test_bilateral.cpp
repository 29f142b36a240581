// The bilateral filter: the fast CPU filter against the gold reference on real photos, odd sizes
// and radii beyond the image; what the filter must do (keep edges of the image or of the guide,
// leave flat areas and alpha alone); OpenCV's bilateralFilter and ximgproc's jointBilateralFilter
// within a stated tolerance; and clear errors for bad parameters.
#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/ops/bilateral.hpp>

#include "inpaint_test_util.hpp"

#include <QtTest>

#include <opencv2/imgproc.hpp>
#if LACUNA_TEST_XIMGPROC
#include <opencv2/ximgproc/edge_filter.hpp>
#endif

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>

using namespace lacuna;
using namespace lacuna::ops;
using lacuna::test::crop;

namespace {

ImageRgba8 photo(const char* name) {
    return io::read_image(std::filesystem::path(LACUNA_SOURCE_DIR) / "tests/data/photos" / name)
        .image;
}

ImageRgba8 noise(const int w, const int h, const unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> level(0, 255);
    ImageRgba8 out(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            out.at(x, y) = Rgba8{std::uint8_t(level(rng)), std::uint8_t(level(rng)),
                                 std::uint8_t(level(rng)), std::uint8_t(level(rng))};
    return out;
}

/// Left of column `edge` one colour, from it on another.
ImageRgba8 two_halves(const int w, const int h, const int edge, const Rgba8 left,
                      const Rgba8 right) {
    ImageRgba8 out(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) out.at(x, y) = x < edge ? left : right;
    return out;
}

struct Difference {
    int max = 0;
    double mean = 0;
    double share_differing = 0;  ///< of the R, G, B samples
    QString first;               ///< where the largest difference is
};

Difference compare(const ImageRgba8& a, const ImageRgba8& b) {
    Difference d;
    long long sum = 0, differing = 0;
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x) {
            const Rgba8 p = a.at(x, y), q = b.at(x, y);
            for (const int delta :
                 {std::abs(p.r - q.r), std::abs(p.g - q.g), std::abs(p.b - q.b)}) {
                sum += delta;
                differing += delta != 0;
                if (delta > d.max) {
                    d.max = delta;
                    d.first = QString("pixel %1,%2: (%3,%4,%5) vs (%6,%7,%8)")
                                  .arg(x)
                                  .arg(y)
                                  .arg(p.r)
                                  .arg(p.g)
                                  .arg(p.b)
                                  .arg(q.r)
                                  .arg(q.g)
                                  .arg(q.b);
                }
            }
        }
    const double samples = 3.0 * a.width() * a.height();
    d.mean = static_cast<double>(sum) / samples;
    d.share_differing = static_cast<double>(differing) / samples;
    return d;
}

ImageView<const Rgba8> none() {
    return {};
}

bool same(const ImageRgba8& a, const ImageRgba8& b) {
    return equal_pixels(a.view(), b.view());
}

cv::Mat to_bgr(const ImageRgba8& image) {
    cv::Mat out(image.height(), image.width(), CV_8UC3);
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const Rgba8 p = image.at(x, y);
            out.at<cv::Vec3b>(y, x) = cv::Vec3b(p.b, p.g, p.r);
        }
    return out;
}

ImageRgba8 from_bgr(const cv::Mat& bgr) {
    ImageRgba8 out(bgr.cols, bgr.rows);
    for (int y = 0; y < bgr.rows; ++y)
        for (int x = 0; x < bgr.cols; ++x) {
            const cv::Vec3b p = bgr.at<cv::Vec3b>(y, x);
            out.at(x, y) = Rgba8{p[2], p[1], p[0], 255};
        }
    return out;
}

ImageRgba8 opaque(ImageRgba8 image) {
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) image.at(x, y).a = 255;
    return image;
}

void expect_error(const BilateralParams& params, const int w, const int h, const int gw,
                  const int gh, const char* words) {
    try {
        check_bilateral(params, w, h, gw, gh);
        QFAIL(qPrintable(QString("no error; expected one saying '%1'").arg(words)));
    } catch (const Error& e) {
        QCOMPARE(e.code(), ErrorCode::InvalidArgument);
        QVERIFY2(std::string(e.what()).find(words) != std::string::npos, e.what());
    }
}

}  // namespace

class TestBilateral : public QObject {
    Q_OBJECT

  private slots:
    void fast_equals_reference_within_float_rounding_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("w");
        QTest::addColumn<int>("h");
        QTest::addColumn<double>("sigma_space");
        QTest::addColumn<double>("sigma_range");
        QTest::addColumn<int>("radius");
        QTest::addColumn<bool>("guided");
        QTest::newRow("butterfly 97x83 r7")
            << "butterfly.jpg" << 97 << 83 << 4.0 << 25.0 << 7 << false;
        QTest::newRow("fruits 61x47 auto radius")
            << "fruits.jpg" << 61 << 47 << 2.0 << 60.0 << 0 << false;
        QTest::newRow("building 33x129 r12 guided")
            << "building.jpg" << 33 << 129 << 6.0 << 15.0 << 12 << true;
        QTest::newRow("1x1") << "messi5.jpg" << 1 << 1 << 3.0 << 30.0 << 5 << false;
        QTest::newRow("1x9 guided") << "messi5.jpg" << 1 << 9 << 3.0 << 30.0 << 4 << true;
        QTest::newRow("5x3 radius beyond the image")
            << "home.jpg" << 5 << 3 << 10.0 << 80.0 << 9 << true;
        QTest::newRow("2x2 r32") << "home.jpg" << 2 << 2 << 20.0 << 40.0 << 32 << false;
    }
    void fast_equals_reference_within_float_rounding() {
        QFETCH(QString, name);
        QFETCH(int, w);
        QFETCH(int, h);
        QFETCH(double, sigma_space);
        QFETCH(double, sigma_range);
        QFETCH(int, radius);
        QFETCH(bool, guided);
        const ImageRgba8 image = crop(photo(qPrintable(name)), 37, 29, w, h);
        ImageRgba8 guide = noise(w, h, 5);
        // A guide related to the image (its colours shifted) with its own noise.
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                Rgba8& g = guide.at(x, y);
                g.r = std::uint8_t((image.at(x, y).r + g.r / 8) & 255);
                g.g = std::uint8_t((image.at(x, y).b + g.g / 8) & 255);
            }
        const BilateralParams params{sigma_space, sigma_range, radius};
        const ImageView<const Rgba8> g = guided ? guide.view() : none();
        const ImageRgba8 gold = bilateral_reference(image.view(), g, params);
        const ImageRgba8 fast = bilateral_fast(image.view(), g, params);
        const Difference d = compare(gold, fast);
        // Float sums against double ones: a result within 1e-4 of a half level may round the
        // other way. Nothing else may differ.
        QVERIFY2(d.max <= 1, qPrintable(d.first));
        QVERIFY2(d.share_differing <= 0.002, qPrintable(QString::number(d.share_differing)));
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                QCOMPARE(fast.at(x, y).a, image.at(x, y).a);
                QCOMPARE(gold.at(x, y).a, image.at(x, y).a);
            }
    }

    void flat_areas_and_alpha_are_kept() {
        ImageRgba8 flat(41, 23, Rgba8{90, 140, 200, 77});
        flat.at(3, 4).a = 9;
        const ImageRgba8 out = bilateral_fast(flat.view(), none(), {5.0, 10.0, 0});
        QVERIFY(same(out, flat));
    }

    void keeps_a_strong_edge_and_blurs_a_weak_one() {
        const ImageRgba8 strong = two_halves(40, 12, 20, {40, 40, 40, 255}, {200, 200, 200, 255});
        const BilateralParams params{3.0, 20.0, 6};
        // 480 levels of |ΔR|+|ΔG|+|ΔB| at σr = 20: a weight of e^-288, nothing crosses.
        QVERIFY(same(bilateral_fast(strong.view(), none(), params), strong));
        QVERIFY(same(bilateral_reference(strong.view(), none(), params), strong));
        // 30 levels (10 per channel) at σr = 20 is within the range: it is smoothed like a blur.
        const ImageRgba8 weak = two_halves(40, 12, 20, {100, 100, 100, 255}, {110, 110, 110, 255});
        const ImageRgba8 out = bilateral_fast(weak.view(), none(), params);
        QVERIFY2(out.at(19, 6).r >= 102 && out.at(20, 6).r <= 108,
                 qPrintable(QString("%1 %2").arg(out.at(19, 6).r).arg(out.at(20, 6).r)));
        QCOMPARE(out.at(0, 6).r, 100);
        QCOMPARE(out.at(39, 6).r, 110);
    }

    void the_guide_decides_where_the_edges_are() {
        // A depth map with a step, filtered once with a guide that has the same edge (the
        // colour view) and once with a flat guide: the first keeps the step, the second blurs it.
        const ImageRgba8 depth = two_halves(48, 16, 24, {60, 60, 60, 255}, {90, 90, 90, 255});
        const ImageRgba8 colour = two_halves(48, 16, 24, {250, 10, 10, 255}, {10, 10, 250, 255});
        const ImageRgba8 flat(48, 16, Rgba8{128, 128, 128, 255});
        const BilateralParams params{4.0, 30.0, 8};
        for (const auto impl :
             {BilateralImplementation::Reference, BilateralImplementation::Fast}) {
            QVERIFY(same(bilateral(depth.view(), colour.view(), params, impl), depth));
            const ImageRgba8 blurred = bilateral(depth.view(), flat.view(), params, impl);
            QVERIFY2(
                blurred.at(23, 8).r > 66 && blurred.at(24, 8).r < 84,
                qPrintable(QString("%1 %2").arg(blurred.at(23, 8).r).arg(blurred.at(24, 8).r)));
        }
        // Without a guide the depth map guides itself: 90 levels at σr = 30 is a weight of
        // e^-4.5, so the step softens only a little.
        const ImageRgba8 self = bilateral_fast(depth.view(), none(), params);
        QVERIFY(self.at(23, 8).r <= 63 && self.at(24, 8).r >= 87);
    }

    void equals_opencv_bilateral_filter_on_a_photo() {
        const ImageRgba8 image = opaque(crop(photo("butterfly.jpg"), 100, 60, 320, 240));
        for (const BilateralParams params :
             {BilateralParams{3.0, 30.0, 5}, BilateralParams{5.0, 50.0, 7},
              BilateralParams{2.0, 15.0, 0}}) {
            const int radius = bilateral_radius(params);
            cv::Mat peer;
            cv::bilateralFilter(to_bgr(image), peer, 2 * radius + 1, params.sigma_range,
                                params.sigma_space, cv::BORDER_REFLECT_101);
            const Difference d =
                compare(bilateral_fast(image.view(), none(), params), from_bgr(peer));
            qInfo("bilateralFilter r=%d: max %d, mean %.4f, %.3f %% of samples differ", radius,
                  d.max, d.mean, 100 * d.share_differing);
            // OpenCV sums in another order (SIMD) and multiplies by 1/Σw: a level at most, in
            // about one sample in 100,000 (measured: 0 to 3 of 230,400).
            QVERIFY2(d.max <= 1, qPrintable(d.first));
            QVERIFY2(d.share_differing <= 1e-4, qPrintable(QString::number(d.share_differing)));
        }
    }

    void equals_opencv_joint_bilateral_filter_on_a_photo() {
#if LACUNA_TEST_XIMGPROC
        const ImageRgba8 image = opaque(crop(photo("fruits.jpg"), 60, 40, 256, 192));
        // The guide: another photo's colours over the same area, so guide and image disagree.
        const ImageRgba8 guide = opaque(crop(photo("building.jpg"), 200, 100, 256, 192));
        const BilateralParams params{4.0, 25.0, 6};
        cv::Mat peer;
        cv::ximgproc::jointBilateralFilter(to_bgr(guide), to_bgr(image), peer, 2 * 6 + 1,
                                           params.sigma_range, params.sigma_space,
                                           cv::BORDER_REFLECT_101);
        const Difference d =
            compare(bilateral_fast(image.view(), guide.view(), params), from_bgr(peer));
        qInfo("jointBilateralFilter: max %d, mean %.4f, %.3f %% of samples differ", d.max, d.mean,
              100 * d.share_differing);
        QVERIFY2(d.max <= 1, qPrintable(d.first));
        QVERIFY2(d.share_differing <= 1e-4, qPrintable(QString::number(d.share_differing)));
#else
        QSKIP("this build has no OpenCV ximgproc (libopencv-contrib-dev)");
#endif
    }

    void bad_parameters_are_refused_with_a_sentence() {
        expect_error({0.0, 30.0, 0}, 10, 10, -1, -1, "the spatial sigma must be greater than 0");
        expect_error({-2.0, 30.0, 0}, 10, 10, -1, -1, "the spatial sigma");
        expect_error({3.0, 0.0, 0}, 10, 10, -1, -1, "the range sigma must be greater than 0");
        expect_error({3.0, std::nan(""), 0}, 10, 10, -1, -1, "the range sigma");
        expect_error({3.0, 1e6, 0}, 10, 10, -1, -1, "at most 1000");
        expect_error({3.0, 30.0, 33}, 10, 10, -1, -1, "the radius must be from 0");
        expect_error({3.0, 30.0, -1}, 10, 10, -1, -1, "not -1");
        expect_error({3.0, 30.0, 0}, 10, 10, 10, 11,
                     "the guide image is 10x11 but the image is 10x10");
        const ImageRgba8 image(8, 6), guide(6, 8);
        for (const auto impl : {BilateralImplementation::Reference, BilateralImplementation::Fast})
            QVERIFY_THROWS_EXCEPTION(Error, bilateral(image.view(), guide.view(), {}, impl));
        QVERIFY_THROWS_EXCEPTION(Error, bilateral_fast(ImageView<const Rgba8>{}, none(), {}));
        QCOMPARE(bilateral_radius({3.0, 30.0, 0}), 5);  // round(4.5), as OpenCV
        QCOMPARE(bilateral_radius({0.2, 30.0, 0}), 1);
        QCOMPARE(bilateral_radius({3.0, 30.0, 9}), 9);
    }
};

QTEST_GUILESS_MAIN(TestBilateral)
#include "test_bilateral.moc"
