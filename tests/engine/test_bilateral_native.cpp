// The bilateral filter on a measurement's stored samples (ops::bilateral_native): the fast path
// against the double reference over every sample type, 1/3/4 channels, odd sizes, radii beyond
// the image, calibrations and guides; an 8-bit photo and its exact ×257 16-bit copy; NaN holes;
// edges in calibrated units; refusals.
#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/ops/bilateral.hpp>

#include "inpaint_test_util.hpp"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <random>

using namespace lacuna;
using namespace lacuna::ops;
using lacuna::test::crop;

namespace {

ImageRgba8 photo(const char* name) {
    return io::read_image(std::filesystem::path(LACUNA_SOURCE_DIR) / "tests/data/photos" / name)
        .image;
}

/// Smooth content plus noise over `span` of the type's range, so range weights are neither all
/// 1 nor all 0 (blobs, a step edge, noise), sample type and channels as asked.
NativeImage field(const int w, const int h, const PixelFormat format, const unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> noise(0, 1);
    NativeImage out(w, h, format);
    const auto [lo, hi] = format.sample == SampleType::F32 ? std::pair<double, double>{250.0, 320.0}
                                                           // kelvin
                                                           : type_range(format.sample);
    const double span = hi - lo;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < format.channels; ++c) {
                const double base = x < w / 2 ? 0.3 : 0.7;
                const double wave = 0.1 * std::sin(0.4 * x + 0.3 * y + c);
                out.set_sample(x, y, c, lo + span * (base + wave + 0.03 * noise(rng)));
            }
    return out;
}

/// The largest |a − b| over every sample (NaN must meet NaN), and where.
struct SampleDifference {
    double max = 0;
    QString where;
    bool nan_mismatch = false;
};
SampleDifference compare(const NativeImage& a, const NativeImage& b) {
    SampleDifference d;
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x)
            for (int c = 0; c < a.channels(); ++c) {
                const double p = a.sample(x, y, c), q = b.sample(x, y, c);
                if (std::isnan(p) != std::isnan(q)) {
                    d.nan_mismatch = true;
                    d.where =
                        QString("NaN at %1,%2 c%3: %4 vs %5").arg(x).arg(y).arg(c).arg(p).arg(q);
                    return d;
                }
                if (std::isnan(p)) continue;
                if (std::abs(p - q) > d.max) {
                    d.max = std::abs(p - q);
                    d.where = QString("%1,%2 c%3: %4 vs %5")
                                  .arg(x)
                                  .arg(y)
                                  .arg(c)
                                  .arg(p, 0, 'g', 10)
                                  .arg(q, 0, 'g', 10);
                }
            }
    return d;
}

NativeImage run(const NativeImage& src, const BilateralParams& p,
                const BilateralImplementation impl, const Calibration& cal = {},
                const NativeGuide& guide = {}) {
    return bilateral_native(src, cal, guide, p, impl);
}

}  // namespace

class TestBilateralNative : public QObject {
    Q_OBJECT

  private slots:
    void fast_equals_reference_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("channels");
        QTest::addColumn<int>("w");
        QTest::addColumn<int>("h");
        QTest::addColumn<double>("sigma_space");
        QTest::addColumn<int>("radius");
        const SampleType types[] = {SampleType::U8, SampleType::U16, SampleType::I16,
                                    SampleType::F32};
        const std::pair<int, int> sizes[] = {{1, 1}, {1, 9}, {9, 1}, {7, 5}, {23, 17}, {41, 13}};
        for (const SampleType t : types)
            for (const int c : {1, 3, 4})
                for (const auto& [w, h] : sizes)
                    for (const auto& [ss, r] : {std::pair{1.5, 0}, std::pair{3.0, 11}})
                        QTest::addRow("%s c%d %dx%d r%d", std::string(to_string(t)).c_str(), c, w,
                                      h, r)
                            << int(t) << c << w << h << ss << r;
    }
    /// Integer types: within 1 sample (float weights and sums, then rounding). Float: within
    /// 2e-5 of the content's span (here 70 K: 1.4e-3 K), NaN where the reference has NaN.
    void fast_equals_reference() {
        QFETCH(int, type);
        QFETCH(int, channels);
        QFETCH(int, w);
        QFETCH(int, h);
        QFETCH(double, sigma_space);
        QFETCH(int, radius);
        const PixelFormat format{SampleType(type), channels};
        const NativeImage src = field(w, h, format, unsigned(w * 131 + h));
        // σr: a tenth of the type's span in calibrated units (slope 0.5 for integers, so the
        // slope must enter the distance for the two to agree with what the range does).
        const bool is_float = format.sample == SampleType::F32;
        const Calibration cal{is_float ? 1.0 : 0.5, is_float ? 0.0 : -100.0, "u"};
        const double span =
            is_float ? 70.0
                     : 0.5 * (type_range(format.sample).second - type_range(format.sample).first);
        const BilateralParams p{sigma_space, 0.1 * span, radius};
        const NativeImage ref = run(src, p, BilateralImplementation::Reference, cal);
        const NativeImage fast = run(src, p, BilateralImplementation::Fast, cal);
        QCOMPARE(fast.format(), src.format());
        const SampleDifference d = compare(fast, ref);
        QVERIFY2(!d.nan_mismatch, qPrintable(d.where));
        const double tolerance = is_float ? 2e-5 * 70.0 : 1.0;
        QVERIFY2(d.max <= tolerance, qPrintable(QString("max %1: %2").arg(d.max).arg(d.where)));
        if (channels == 4)  // alpha as stored
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) QCOMPARE(fast.sample(x, y, 3), src.sample(x, y, 3));
    }

    /// A guide of another type (an 8-bit photo as to_native, a 16-bit grey image) against the
    /// reference, and the guide's calibration (not the image's) scales the distance.
    void a_guide_of_any_type_matches_the_reference() {
        const NativeImage src = field(29, 21, {SampleType::F32, 1}, 7);
        const NativeImage photo_guide = to_native(crop(photo("fruits.jpg"), 40, 30, 29, 21).view());
        const NativeImage grey_guide = field(29, 21, {SampleType::U16, 1}, 9);
        const BilateralParams p{2, 40, 0};
        for (const NativeGuide& g :
             {NativeGuide{&photo_guide, {}}, NativeGuide{&grey_guide, {0.01, 0, "mm"}}}) {
            const NativeImage ref = run(src, p, BilateralImplementation::Reference, {}, g);
            const NativeImage fast = run(src, p, BilateralImplementation::Fast, {}, g);
            const SampleDifference d = compare(fast, ref);
            QVERIFY2(d.max <= 2e-5 * 70.0, qPrintable(d.where));
            QVERIFY(!(ref == run(src, p, BilateralImplementation::Reference)));  // it guides
        }
        // Scaling the guide's calibration by 3 is σr × 3.
        const NativeImage a = run(src, {2, 120, 0}, BilateralImplementation::Fast, {},
                                  {&grey_guide, {0.01, 0, "mm"}});
        const NativeImage b = run(src, {2, 40, 0}, BilateralImplementation::Fast, {},
                                  {&grey_guide, {0.01 / 3, 5, "mm"}});
        QVERIFY2(compare(a, b).max <= 2e-5 * 70.0, qPrintable(compare(a, b).where));
    }

    /// An 8-bit photo (the photo filter, bilateral_fast) and its exact ×257 16-bit copy with σr
    /// × 257: 257 × the photo's result within 129 (half an 8-bit level × 257, the photo's
    /// rounding, plus float noise).
    void an_eight_bit_photo_and_its_257_copy_filter_alike() {
        const ImageRgba8 image = crop(photo("butterfly.jpg"), 100, 60, 97, 61);
        NativeImage deep(image.width(), image.height(), {SampleType::U16, 4});
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x) {
                const Rgba8 p = image.at(x, y);
                const int v[4] = {p.r, p.g, p.b, p.a};
                for (int c = 0; c < 4; ++c) deep.set_sample(x, y, c, 257.0 * v[c]);
            }
        for (const BilateralParams p : {BilateralParams{3, 30, 0}, BilateralParams{1.5, 12, 5}}) {
            const ImageRgba8 eight = bilateral_fast(image.view(), {}, p);
            const NativeImage sixteen = run(deep, {p.sigma_space, 257 * p.sigma_range, p.radius},
                                            BilateralImplementation::Fast);
            double worst = 0, sum = 0;
            for (int y = 0; y < image.height(); ++y)
                for (int x = 0; x < image.width(); ++x) {
                    const Rgba8 e = eight.at(x, y);
                    const int v[4] = {e.r, e.g, e.b, e.a};
                    for (int c = 0; c < 4; ++c) {
                        const double diff = std::abs(sixteen.sample(x, y, c) - 257.0 * v[c]);
                        worst = std::max(worst, diff);
                        sum += diff;
                    }
                }
            QVERIFY2(worst <= 129, qPrintable(QString("worst %1").arg(worst)));
            // And not by accident: most samples land well inside a level.
            QVERIFY2(
                sum / (4.0 * image.width() * image.height()) < 70,
                qPrintable(QString("mean %1").arg(sum / (4.0 * image.width() * image.height()))));
        }
    }

    /// A float field of 300 K with NaN holes (missing data) and one NaN guide sample: NaN stays
    /// NaN, the flat field stays 300 K exactly (a NaN neighbour adds nothing), and fast =
    /// reference around the holes.
    void nan_samples_weigh_nothing_and_stay_nan() {
        NativeImage flat(19, 15, {SampleType::F32, 1});
        for (int y = 0; y < 15; ++y)
            for (int x = 0; x < 19; ++x) flat.set_sample(x, y, 0, 300.0);
        const float nan = std::numeric_limits<float>::quiet_NaN();
        for (const auto& [x, y] :
             {std::pair{0, 0}, std::pair{9, 7}, std::pair{10, 7}, std::pair{18, 14}})
            flat.samples<float>(y)[x] = nan;
        for (const auto impl :
             {BilateralImplementation::Reference, BilateralImplementation::Fast}) {
            const NativeImage out = run(flat, {2, 1, 0}, impl, {1, 0, "K"});
            for (int y = 0; y < 15; ++y)
                for (int x = 0; x < 19; ++x) {
                    const double v = out.sample(x, y, 0);
                    if (std::isnan(flat.sample(x, y, 0)))
                        QVERIFY(std::isnan(v));
                    else
                        QVERIFY2(std::abs(v - 300.0) < 1e-4,
                                 qPrintable(QString("%1,%2: %3").arg(x).arg(y).arg(v, 0, 'g', 10)));
                }
        }
        // Noisy content with holes: fast = reference, NaN in the same places.
        NativeImage noisy = field(23, 17, {SampleType::F32, 3}, 3);
        for (int i = 0; i < 30; ++i)
            noisy.samples<float>((i * 7) % 17)[((i * 11) % 23) * 3 + i % 3] = nan;
        NativeImage guide = field(23, 17, {SampleType::F32, 1}, 5);
        guide.samples<float>(8)[11] = nan;  // its centre: only itself counts there
        const NativeImage ref =
            run(noisy, {2, 10, 0}, BilateralImplementation::Reference, {}, {&guide, {}});
        const NativeImage fast =
            run(noisy, {2, 10, 0}, BilateralImplementation::Fast, {}, {&guide, {}});
        const SampleDifference d = compare(fast, ref);
        QVERIFY2(!d.nan_mismatch && d.max <= 2e-5 * 70.0, qPrintable(d.where));
        for (int c = 0; c < 3; ++c) QCOMPARE(ref.sample(11, 8, c), noisy.sample(11, 8, c));
    }

    /// σr in calibrated units: a 200 HU step (400 stored samples at slope 0.5) survives σr = 20
    /// HU and is blurred by σr = 2000 HU; the same σr in stored samples would be off by 2.
    void edges_are_measured_in_the_calibrated_unit() {
        NativeImage ct(24, 8, {SampleType::I16, 1});
        for (int y = 0; y < 8; ++y)
            for (int x = 0; x < 24; ++x) ct.set_sample(x, y, 0, x < 12 ? -200 : 200);
        const Calibration hu{0.5, 0, "HU"};
        const NativeImage kept = run(ct, {3, 20, 0}, BilateralImplementation::Fast, hu);
        QVERIFY(kept == ct);
        const NativeImage blurred = run(ct, {3, 2000, 0}, BilateralImplementation::Fast, hu);
        QVERIFY(blurred.sample(11, 4, 0) > -150 && blurred.sample(12, 4, 0) < 150);
        // 200 samples' step is 100 HU at slope 0.5: at σr = 100 HU (t = 1) the far side weighs
        // exp(-1/2) of the near side; at σr = 100 stored samples (slope ignored) exp(-2).
        const NativeImage ref = run(ct, {3, 200, 0}, BilateralImplementation::Reference, hu);
        const NativeImage fast = run(ct, {3, 200, 0}, BilateralImplementation::Fast, hu);
        QVERIFY(compare(fast, ref).max <= 1);
        QVERIFY(!(ref == run(ct, {3, 200, 0}, BilateralImplementation::Reference, {})));
    }

    void bad_parameters_are_refused() {
        const NativeImage img = field(8, 8, {SampleType::U16, 1}, 1);
        QVERIFY_THROWS_EXCEPTION(Error, run(img, {3, 0, 0}, BilateralImplementation::Fast));
        QVERIFY_THROWS_EXCEPTION(Error, run(img, {3, std::numeric_limits<double>::infinity(), 0},
                                            BilateralImplementation::Fast));
        QVERIFY_THROWS_EXCEPTION(Error, run(img, {0, 10, 0}, BilateralImplementation::Fast));
        QVERIFY_THROWS_EXCEPTION(Error, run(img, {3, 10, 40}, BilateralImplementation::Fast));
        const NativeImage small = field(4, 8, {SampleType::U8, 1}, 1);
        QVERIFY_THROWS_EXCEPTION(
            Error, run(img, {3, 10, 0}, BilateralImplementation::Fast, {}, {&small, {}}));
        QVERIFY_THROWS_EXCEPTION(Error, run(img, {3, 10, 0}, BilateralImplementation::Cuda));
        // A σr far beyond the photo limit of 1000 levels is a value like any other here.
        (void)run(img, {3, 7710, 0}, BilateralImplementation::Fast);
    }
};

QTEST_GUILESS_MAIN(TestBilateralNative)
#include "test_bilateral_native.moc"
