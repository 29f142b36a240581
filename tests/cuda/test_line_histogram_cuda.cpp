// CUDA line and direction histograms against the CPU gold: counts, counters, min, max and median
// exactly; the mean (summed as a tree on the GPU) within one float ulp.
// Odd sizes, 1-pixel-wide images, pitched device planes, both samplings, bins beyond shared memory.
#include "../engine/histogram_test_util.hpp"
#include "../engine/ppm.hpp"

#include <lacuna/core/backend.hpp>
#include <lacuna/core/error.hpp>
#include <lacuna/ops/line_histogram.hpp>

#include <QtTest>

#include <array>

using namespace lacuna;
using namespace lacuna::ops;

class TestLineHistogramCuda : public QObject {
    Q_OBJECT
    std::mt19937 rng_{2024};

  private slots:
    void initTestCase() {
        const BackendInfo info = select_backend(BackendRequest::Auto);
        if (info.backend != Backend::Cuda)
            QSKIP(qPrintable("no usable CUDA device: " + QString::fromStdString(info.reason)));
    }

    void line_equals_reference() {
        int compared = 0;
        for (const auto& [w, h] :
             {std::pair{1, 1}, {1, 63}, {63, 1}, {37, 23}, {641, 479}, {1920, 1081}}) {
            const ImageRgba8 image = test::random_photo(w, h, rng_);
            const HistogramSource source(image.view());
            CudaLineHistogrammer gpu(source);
            std::uniform_real_distribution<double> ux(-3.0, w + 2.0), uy(-3.0, h + 2.0);
            for (int k = 0; k < 8; ++k) {
                LineHistogramParams p;
                p.from = {ux(rng_), uy(rng_)};
                p.to = {ux(rng_), uy(rng_)};
                if (w == 1) p.from.x = p.to.x = 0;
                if (h == 1) p.from.y = p.to.y = 0;
                if (w == 1 && h == 1) p.to = {0.0, 0.0}, p.from = {-1.0, 0.0};
                p.band_width = std::array{1, 2, 5, 64, 129, 2048, 3, 64}[k];
                p.sampling = k % 2 ? Sampling::Nearest : Sampling::Bilinear;
                p.channel = std::array{HistogramChannel::Luminance, HistogramChannel::Rgb,
                                       HistogramChannel::Blue}[k % 3];
                p.bins = std::array{256, 3, 65536, 9000, 256, 1024, 8192, 256}[k];
                if (k == 4) p.range = std::pair{30.0f, 220.0f};
                LineHistogram gold;
                try {
                    gold = line_histogram_reference(source, p);
                } catch (const Error&) {
                    continue;
                }
                const QString diff = test::compare(gold, gpu.line(p), 1);
                QVERIFY2(diff.isEmpty(),
                         qPrintable(QString("%1x%2 case %3: %4").arg(w).arg(h).arg(k).arg(diff)));
                ++compared;
            }
        }
        QVERIFY2(compared >= 35, qPrintable(QString::number(compared)));
    }

    void real_photo_equals_reference() {
        const ImageRgba8 photo = test::read_ppm(LACUNA_SOURCE_DIR "/tests/data/fruits-crop.ppm");
        QCOMPARE(photo.width(), 160);
        const HistogramSource source(photo.view());
        CudaLineHistogrammer gpu(source);
        LineHistogramParams p;
        p.from = {3.5, 110.25};
        p.to = {150.75, 4.5};
        p.band_width = 21;
        p.channel = HistogramChannel::Rgb;
        for (const Sampling s : {Sampling::Nearest, Sampling::Bilinear}) {
            p.sampling = s;
            const QString diff = test::compare(line_histogram_reference(source, p), gpu.line(p), 1);
            QVERIFY2(diff.isEmpty(), qPrintable(diff));
        }
        DirectionHistogramParams d;
        d.angle_degrees = 33;
        QVERIFY(
            test::compare(direction_histogram_reference(source, d), gpu.direction(d)).isEmpty());
    }

    void measurement_line_equals_reference() {
        ImageF32 values(333, 211);
        std::normal_distribution<float> noise(36.6f, 2.0f);
        for (int y = 0; y < values.height(); ++y)
            for (int x = 0; x < values.width(); ++x) values.at(x, y) = noise(rng_);
        values.at(100, 100) = NAN;  // missing data: excluded from histogram and profile
        const HistogramSource source(values.view());
        LineHistogramParams p;
        p.from = {10.25, 20.5};
        p.to = {300.75, 190.125};
        p.band_width = 31;
        p.channel = HistogramChannel::Value;
        for (const Sampling s : {Sampling::Nearest, Sampling::Bilinear}) {
            p.sampling = s;
            const QString diff = test::compare(line_histogram_reference(source, p),
                                               CudaLineHistogrammer(source).line(p), 1);
            QVERIFY2(diff.isEmpty(), qPrintable(diff));
        }
    }

    void direction_equals_reference() {
        for (const auto& [w, h] : {std::pair{1, 1}, {1, 77}, {77, 31}, {640, 481}}) {
            const ImageRgba8 image = test::random_photo(w, h, rng_);
            const HistogramSource source(image.view());
            CudaLineHistogrammer gpu(source);
            for (const double angle : {0.0, 30.0, 45.0, 90.0, 123.4, 180.0, -60.0}) {
                DirectionHistogramParams p;
                p.angle_degrees = angle;
                p.channel = angle < 0 ? HistogramChannel::Rgb : HistogramChannel::Luminance;
                p.sampling = angle == 30.0 ? Sampling::Bilinear : Sampling::Nearest;
                p.bins = angle == 123.4 ? 10000 : 256;
                const QString diff =
                    test::compare(direction_histogram_reference(source, p), gpu.direction(p));
                QVERIFY2(diff.isEmpty(),
                         qPrintable(QString("%1x%2 at %3: %4").arg(w).arg(h).arg(angle).arg(diff)));
            }
        }
    }

    void errors_reach_the_caller() {
        const ImageRgba8 image = test::random_photo(16, 16, rng_);
        const HistogramSource source(image.view());
        CudaLineHistogrammer gpu(source);
        LineHistogramParams p;
        p.from = p.to = {3, 3};
        QVERIFY_THROWS_EXCEPTION(Error, gpu.line(p));
        p.to = {10, 10};
        p.bins = 0;
        QVERIFY_THROWS_EXCEPTION(Error, gpu.line(p));
        p.bins = 256;
        QCOMPARE(gpu.line(p).positions, 11);  // still usable after a refused request
    }
};

QTEST_GUILESS_MAIN(TestLineHistogramCuda)
#include "test_line_histogram_cuda.moc"
