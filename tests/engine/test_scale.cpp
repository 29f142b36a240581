// The scaler: the fast CPU path against the gold reference (whose spline coefficients come from
// solving the interpolation condition directly) over every method, odd sizes and both directions;
// what interpolation means (the samples come back exactly where the output grid meets them); the
// same size gives the same picture; quality on a round trip of a real photo; bad sizes.
#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/ops/scale.hpp>

#include "inpaint_test_util.hpp"

#include <QtTest>

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>

using namespace lacuna;
using namespace lacuna::ops;
using lacuna::test::crop;

Q_DECLARE_METATYPE(lacuna::ops::ScaleMethod)

namespace {

ImageRgba8 photo(const char* name) {
    return io::read_image(std::filesystem::path(LACUNA_SOURCE_DIR) / "tests/data/photos" / name)
        .image;
}

constexpr ScaleMethod kMethods[] = {ScaleMethod::Nearest, ScaleMethod::Bilinear,
                                    ScaleMethod::Bicubic, ScaleMethod::BSpline};

/// Largest difference over the four channels, and where.
int max_difference(const ImageRgba8& a, const ImageRgba8& b, QString& where) {
    int worst = 0;
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x) {
            const Rgba8 p = a.at(x, y), q = b.at(x, y);
            for (const int d : {std::abs(p.r - q.r), std::abs(p.g - q.g), std::abs(p.b - q.b),
                                std::abs(p.a - q.a)})
                if (d > worst) {
                    worst = d;
                    where = QString("pixel %1,%2").arg(x).arg(y);
                }
        }
    return worst;
}

double psnr(const ImageRgba8& a, const ImageRgba8& b) {
    double sum = 0;
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x) {
            const Rgba8 p = a.at(x, y), q = b.at(x, y);
            for (const int d : {p.r - q.r, p.g - q.g, p.b - q.b}) sum += double(d) * d;
        }
    const double mse = sum / (3.0 * a.width() * a.height());
    return 10 * std::log10(255.0 * 255.0 / mse);
}

ImageRgba8 with_alpha_ramp(ImageRgba8 image) {
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            image.at(x, y).a = std::uint8_t((x * 7 + y * 3) % 256);
    return image;
}

/// Smooth waves plus a checkerboard, spanning the sample type's range (float: ±1e4 around 5e3).
NativeImage native_texture(const int w, const int h, const PixelFormat format) {
    NativeImage image(w, h, format);
    const double lo = format.sample == SampleType::U16   ? 0
                      : format.sample == SampleType::I16 ? -32768
                                                         : -5000;
    const double hi = format.sample == SampleType::U16   ? 65535
                      : format.sample == SampleType::I16 ? 32767
                                                         : 15000;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < format.channels; ++c) {
                const double t = 0.5 + 0.3 * std::sin(0.7 * x + 1.3 * c) * std::cos(0.45 * y) +
                                 0.2 * (((x / 2 + y / 3 + c) % 2) ? 1 : -1);
                double v = lo + (hi - lo) * std::clamp(t, 0.0, 1.0);
                if (format.sample != SampleType::F32) v = std::round(v);
                image.set_sample(x, y, c, v);
            }
    return image;
}

}  // namespace

class TestScale : public QObject {
    Q_OBJECT

  private slots:
    void fast_equals_reference_within_a_level_data() {
        QTest::addColumn<int>("w");
        QTest::addColumn<int>("h");
        QTest::addColumn<int>("out_w");
        QTest::addColumn<int>("out_h");
        QTest::newRow("97x83 up to 291x249 (x3)") << 97 << 83 << 291 << 249;
        QTest::newRow("97x83 down to 40x31") << 97 << 83 << 40 << 31;
        QTest::newRow("61x47 to 131x29 (up and down)") << 61 << 47 << 131 << 29;
        QTest::newRow("1x1 to 5x3") << 1 << 1 << 5 << 3;
        QTest::newRow("7x1 to 20x4") << 7 << 1 << 20 << 4;
        QTest::newRow("2x3 to 9x7") << 2 << 3 << 9 << 7;
        QTest::newRow("16x17 (the prefilter's horizon) to 37x35") << 16 << 17 << 37 << 35;
    }
    void fast_equals_reference_within_a_level() {
        QFETCH(int, w);
        QFETCH(int, h);
        QFETCH(int, out_w);
        QFETCH(int, out_h);
        const ImageRgba8 image = with_alpha_ramp(crop(photo("butterfly.jpg"), 150, 90, w, h));
        for (const ScaleMethod method : kMethods) {
            const ImageRgba8 gold = scale_reference(image.view(), out_w, out_h, method);
            const ImageRgba8 fast = scale_fast(image.view(), out_w, out_h, method);
            QCOMPARE(fast.width(), out_w);
            QCOMPARE(fast.height(), out_h);
            QString where;
            const int worst = max_difference(gold, fast, where);
            // Float against double: a result within ~1e-4 of a half level may round the other
            // way. Nearest picks its pixel in integers on both sides: exact.
            QVERIFY2(worst <= (method == ScaleMethod::Nearest ? 0 : 1),
                     qPrintable(QString("%1: %2 levels at %3")
                                    .arg(QString::fromUtf8(to_string(method).data()))
                                    .arg(worst)
                                    .arg(where)));
        }
    }

    void interpolating_methods_return_the_samples_on_the_grid() {
        // Scaled by 3, output pixel 3k + 1 sits exactly on input pixel k: every interpolating
        // method must give the sample back there. A B-spline without its prefilter would not
        // (it smooths: this photo's sample would move by tens of levels).
        const ImageRgba8 image = with_alpha_ramp(crop(photo("fruits.jpg"), 200, 150, 41, 29));
        for (const ScaleMethod method : kMethods)
            for (const bool fast : {true, false}) {
                const ImageRgba8 out = fast ? scale_fast(image.view(), 123, 87, method)
                                            : scale_reference(image.view(), 123, 87, method);
                for (int y = 0; y < 29; ++y)
                    for (int x = 0; x < 41; ++x)
                        QVERIFY2(out.at(3 * x + 1, 3 * y + 1) == image.at(x, y),
                                 qPrintable(QString("%1 (%2): pixel %3,%4")
                                                .arg(QString::fromUtf8(to_string(method).data()))
                                                .arg(fast ? "fast" : "reference")
                                                .arg(x)
                                                .arg(y)));
            }
    }

    void the_chunked_prefilter_still_interpolates_long_lines() {
        // 300 × 90: lines of several prefilter chunks (64 samples, each started 16 early); the
        // spline must still pass through every sample, at the chunk seams too.
        const ImageRgba8 image = with_alpha_ramp(crop(photo("building.jpg"), 20, 40, 300, 90));
        const ImageRgba8 out = scale_fast(image.view(), 900, 270, ScaleMethod::BSpline);
        for (int y = 0; y < 90; ++y)
            for (int x = 0; x < 300; ++x)
                QVERIFY2(out.at(3 * x + 1, 3 * y + 1) == image.at(x, y),
                         qPrintable(QString("pixel %1,%2").arg(x).arg(y)));
    }

    void the_same_size_is_the_same_picture_and_flat_stays_flat() {
        const ImageRgba8 image = with_alpha_ramp(crop(photo("home.jpg"), 10, 10, 53, 37));
        const ImageRgba8 flat(19, 11, Rgba8{12, 200, 77, 130});
        for (const ScaleMethod method : kMethods) {
            const ImageRgba8 same = scale_fast(image.view(), 53, 37, method);
            QVERIFY(equal_pixels(same.view(), image.view()));
            const ImageRgba8 big = scale_fast(flat.view(), 45, 26, method);
            for (int y = 0; y < 26; ++y)
                for (int x = 0; x < 45; ++x) QCOMPARE(big.at(x, y), (Rgba8{12, 200, 77, 130}));
        }
    }

    void a_round_trip_of_a_photo_is_best_with_the_spline() {
        // The photo reduced to a third (area average, OpenCV INTER_AREA) and enlarged back: the
        // B-spline comes closest to the original, then bicubic, bilinear and nearest.
        const ImageRgba8 original = crop(photo("building.jpg"), 0, 0, 480, 360);
        cv::Mat small;
        cv::Mat rgba(original.height(), original.width(), CV_8UC4,
                     const_cast<Rgba8*>(original.row(0)), original.pitch());
        cv::resize(rgba, small, cv::Size(160, 120), 0, 0, cv::INTER_AREA);
        ImageRgba8 reduced(160, 120);
        for (int y = 0; y < 120; ++y)
            std::memcpy(reduced.row(y), small.ptr(y), 160 * sizeof(Rgba8));
        double previous = 1e9;
        for (const ScaleMethod method : {ScaleMethod::BSpline, ScaleMethod::Bicubic,
                                         ScaleMethod::Bilinear, ScaleMethod::Nearest}) {
            const double p = psnr(original, scale_fast(reduced.view(), 480, 360, method));
            qInfo("%s: PSNR %.2f dB", to_string(method).data(), p);
            QVERIFY2(p < previous, to_string(method).data());
            previous = p;
        }
        cv::Mat peer;
        cv::resize(small, peer, cv::Size(480, 360), 0, 0, cv::INTER_CUBIC);
        ImageRgba8 opencv(480, 360);
        for (int y = 0; y < 360; ++y) std::memcpy(opencv.row(y), peer.ptr(y), 480 * sizeof(Rgba8));
        const double spline =
            psnr(original, scale_fast(reduced.view(), 480, 360, ScaleMethod::BSpline));
        qInfo("OpenCV INTER_CUBIC: PSNR %.2f dB", psnr(original, opencv));
        QVERIFY(spline > psnr(original, opencv));
    }

    void names_and_bad_sizes() {
        for (const ScaleMethod method : kMethods)
            QCOMPARE(parse_scale_method(to_string(method)), std::optional<ScaleMethod>(method));
        QVERIFY(!parse_scale_method("lanczos"));
        const ImageRgba8 image(8, 6);
        for (const auto& [w, h] :
             {std::pair{0, 5}, std::pair{5, -1}, std::pair{40000, 10}, std::pair{30000, 30000}}) {
            try {
                (void)scale_fast(image.view(), w, h, ScaleMethod::BSpline);
                QFAIL("no error");
            } catch (const Error& e) {
                QVERIFY2(QString(e.what()).contains("the target size"), e.what());
            }
            QVERIFY_THROWS_EXCEPTION(Error,
                                     scale_reference(image.view(), w, h, ScaleMethod::Bilinear));
        }
        QVERIFY_THROWS_EXCEPTION(Error,
                                 scale_fast(ImageView<const Rgba8>{}, 4, 4, ScaleMethod::Nearest));
    }

    // Measurements: the stored samples resampled in float against the double reference, every
    // sample type and channel count, content spanning the type (so cubic kernels overshoot and
    // integer results clamp). Integers within one sample (float against double may round a
    // value near a half the other way); float within 4e-6 of the largest magnitude (float sums
    // of at most 16 terms).
    void native_fast_equals_reference() {
        const std::pair<int, int> sizes[][2] = {
            {{37, 29}, {80, 61}}, {{37, 29}, {15, 11}}, {{5, 1}, {12, 3}}, {{17, 16}, {35, 9}}};
        for (const SampleType type : {SampleType::U16, SampleType::I16, SampleType::F32})
            for (const int channels : {1, 3, 4})
                for (const auto& size : sizes) {
                    const NativeImage image =
                        native_texture(size[0].first, size[0].second, {type, channels});
                    for (const ScaleMethod method : kMethods) {
                        const NativeImage gold =
                            scale_native(image, size[1].first, size[1].second, method,
                                         ScaleImplementation::Reference);
                        const NativeImage fast = scale_native(image, size[1].first, size[1].second,
                                                              method, ScaleImplementation::Fast);
                        QCOMPARE(fast.format(), image.format());
                        QCOMPARE(fast.width(), size[1].first);
                        double worst = 0, largest = 0;
                        for (int y = 0; y < gold.height(); ++y)
                            for (int x = 0; x < gold.width(); ++x)
                                for (int c = 0; c < channels; ++c) {
                                    worst = std::max(worst, std::abs(gold.sample(x, y, c) -
                                                                     fast.sample(x, y, c)));
                                    largest = std::max(largest, std::abs(gold.sample(x, y, c)));
                                }
                        const double allowed = method == ScaleMethod::Nearest ? 0
                                               : type == SampleType::F32      ? 4e-6 * largest
                                                                              : 1;
                        QVERIFY2(worst <= allowed,
                                 qPrintable(QString("%1, %2 channels, %3: %4 off (allowed %5)")
                                                .arg(int(type))
                                                .arg(channels)
                                                .arg(QString::fromUtf8(to_string(method).data()))
                                                .arg(worst)
                                                .arg(allowed)));
                    }
                }
    }

    // A 16-bit ramp of 1000 a sample doubled in width (bilinear): output x lies at x/2 - 0.25,
    // so its value is 500 x - 250, clamped to the first and last samples at the edges; exact in
    // both paths. The signed and float ramps below zero likewise.
    void a_ramp_scales_to_its_line() {
        for (const SampleType type : {SampleType::U16, SampleType::I16, SampleType::F32}) {
            const double offset = type == SampleType::U16 ? 0 : -30000;
            NativeImage ramp(8, 2, {type, 1});
            for (int y = 0; y < 2; ++y)
                for (int x = 0; x < 8; ++x) ramp.set_sample(x, y, 0, offset + 1000 * x);
            for (const auto implementation :
                 {ScaleImplementation::Reference, ScaleImplementation::Fast}) {
                const NativeImage out =
                    scale_native(ramp, 16, 2, ScaleMethod::Bilinear, implementation);
                for (int x = 0; x < 16; ++x) {
                    const double expected = offset + std::clamp(500.0 * x - 250, 0.0, 7000.0);
                    QCOMPARE(out.sample(x, 1, 0), expected);
                }
            }
        }
    }

    // An 8-bit image and its ×257 16-bit copy: the photo path rounds v to the nearest level,
    // the measurement path 257 v to the nearest sample, so they differ by at most half a level
    // × 257 (128.5) plus float noise: 129. Nearest moves the same pixels: exactly 257 ×.
    void an_eight_bit_image_and_its_257_copy_scale_alike() {
        const ImageRgba8 image = with_alpha_ramp(crop(photo("butterfly.jpg"), 150, 90, 61, 47));
        NativeImage deep(image.width(), image.height(), {SampleType::U16, 4});
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x) {
                const Rgba8 p = image.at(x, y);
                const int v[4] = {p.r, p.g, p.b, p.a};
                for (int c = 0; c < 4; ++c) deep.set_sample(x, y, c, 257.0 * v[c]);
            }
        for (const ScaleMethod method : kMethods)
            for (const auto& [w, h] : {std::pair{131, 29}, std::pair{40, 31}}) {
                const ImageRgba8 photo_result = scale_fast(image.view(), w, h, method);
                const NativeImage deep_result =
                    scale_native(deep, w, h, method, ScaleImplementation::Fast);
                double worst = 0;
                for (int y = 0; y < h; ++y)
                    for (int x = 0; x < w; ++x) {
                        const Rgba8 p = photo_result.at(x, y);
                        const int v[4] = {p.r, p.g, p.b, p.a};
                        for (int c = 0; c < 4; ++c)
                            worst = std::max(worst,
                                             std::abs(deep_result.sample(x, y, c) - 257.0 * v[c]));
                    }
                QVERIFY2(worst <= (method == ScaleMethod::Nearest ? 0 : 129),
                         qPrintable(QString("%1 to %2x%3: %4 off")
                                        .arg(QString::fromUtf8(to_string(method).data()))
                                        .arg(w)
                                        .arg(h)
                                        .arg(worst)));
            }
    }

    // A NaN reaches only the outputs that weigh it (both paths agree where); the spline
    // refuses a float image with one, and CUDA is refused for measurements.
    void nan_stays_local_and_the_spline_refuses_it() {
        NativeImage field(8, 6, {SampleType::F32, 1});
        for (int y = 0; y < 6; ++y)
            for (int x = 0; x < 8; ++x) field.set_sample(x, y, 0, x + 10.0 * y);
        field.set_sample(3, 2, 0, std::nan(""));
        for (const ScaleMethod method : {ScaleMethod::Bilinear, ScaleMethod::Bicubic}) {
            const NativeImage gold =
                scale_native(field, 16, 12, method, ScaleImplementation::Reference);
            const NativeImage fast = scale_native(field, 16, 12, method, ScaleImplementation::Fast);
            int nans = 0;
            for (int y = 0; y < 12; ++y)
                for (int x = 0; x < 16; ++x) {
                    QCOMPARE(std::isnan(fast.sample(x, y, 0)), std::isnan(gold.sample(x, y, 0)));
                    nans += std::isnan(gold.sample(x, y, 0)) ? 1 : 0;
                }
            // Doubling: each input pixel weighs on 4 × 4 outputs (bilinear) or 8 × 8 (bicubic).
            QCOMPARE(nans, method == ScaleMethod::Bilinear ? 16 : 64);
        }
        try {
            (void)scale_native(field, 16, 12, ScaleMethod::BSpline, ScaleImplementation::Fast);
            QFAIL("no error");
        } catch (const Error& e) {
            QVERIFY2(QString(e.what()).contains("non-finite"), e.what());
        }
        QVERIFY_THROWS_EXCEPTION(
            Error, scale_native(field, 4, 3, ScaleMethod::Bilinear, ScaleImplementation::Cuda));
    }
};

QTEST_GUILESS_MAIN(TestScale)
#include "test_scale.moc"
