// The CUDA scaler against the fast CPU scaler (itself checked against the gold reference in
// test_scale): identical pixels for every method over odd sizes, up and down, long lines beyond
// the prefilter's horizon and short ones within it, on sub-views of larger device images, and
// through the host entry point; bad calls are refused.
#include <lacuna/core/backend.hpp>
#include <lacuna/core/device_image.hpp>
#include <lacuna/core/error.hpp>
#include <lacuna/ops/scale.hpp>

#include "../engine/image_test_util.hpp"

#include <QtTest>

#include <random>

using namespace lacuna;
using namespace lacuna::ops;

namespace {

constexpr ScaleMethod kMethods[] = {ScaleMethod::Nearest, ScaleMethod::Bilinear,
                                    ScaleMethod::Bicubic, ScaleMethod::BSpline};

ImageRgba8 test_image(const int w, const int h, const unsigned seed) {
    return test::edged_noise_image(w, h, seed, 120, 20);
}

QString first_difference(const ImageRgba8& cpu, const ImageRgba8& cuda) {
    return QString::fromStdString(test::first_pixel_difference(cpu, cuda));
}

}  // namespace

class TestScaleCuda : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() {
        if (select_backend(BackendRequest::Auto).backend != Backend::Cuda)
            QSKIP("no usable CUDA device");
    }

    void equals_the_cpu_data() {
        QTest::addColumn<int>("w");
        QTest::addColumn<int>("h");
        QTest::addColumn<int>("out_w");
        QTest::addColumn<int>("out_h");
        QTest::newRow("1x1 to 3x5") << 1 << 1 << 3 << 5;
        QTest::newRow("2x9 to 7x4") << 2 << 9 << 7 << 4;
        QTest::newRow("13x15 to 39x45") << 13 << 15 << 39 << 45;
        QTest::newRow("176x144 to 1232x1008 (the seed's x7)") << 176 << 144 << 1232 << 1008;
        QTest::newRow("333x201 to 120x77") << 333 << 201 << 120 << 77;
        QTest::newRow("641x17 to 1283x5") << 641 << 17 << 1283 << 5;
    }
    void equals_the_cpu() {
        QFETCH(int, w);
        QFETCH(int, h);
        QFETCH(int, out_w);
        QFETCH(int, out_h);
        const ImageRgba8 image = test_image(w, h, 3);
        OwnedStream stream;
        CudaScaler scaler(stream.get());
        const DeviceImage<Rgba8> src(image.view(), stream.get());
        DeviceImage<Rgba8> dst;
        dst.set_stream(stream.get());
        for (const ScaleMethod method : kMethods) {
            const ImageRgba8 cpu = scale_fast(image.view(), out_w, out_h, method);
            scaler.run(src, dst, out_w, out_h, method);
            const ImageRgba8 cuda = dst.download();
            QVERIFY2(
                first_difference(cpu, cuda).isEmpty(),
                qPrintable(QString(to_string(method).data()) + ": " + first_difference(cpu, cuda)));
            const ImageRgba8 via_host =
                scale(image.view(), out_w, out_h, method, ScaleImplementation::Cuda);
            QVERIFY2(first_difference(cpu, via_host).isEmpty(),
                     qPrintable(first_difference(cpu, via_host)));
        }
    }

    void scales_sub_views_as_whole_images() {
        const ImageRgba8 big = test_image(60, 40, 9);
        const PixelRect window{7, 5, 37, 27};  // 31 x 23
        const ImageRgba8 part = copy_region(big, window);
        OwnedStream stream;
        CudaScaler scaler(stream.get());
        DeviceImage<Rgba8> src(big.view(), stream.get());
        const ImageRgba8 canvas(100, 80, Rgba8{5, 6, 7, 8});
        DeviceImage<Rgba8> dst(canvas.view(), stream.get());
        const PixelRect out_window{11, 3, 11 + 70 - 1, 3 + 50 - 1};
        for (const ScaleMethod method : kMethods) {
            scaler.run(sub_view(src.device_view(), window), sub_view(dst.device_view(), out_window),
                       method);
            const ImageRgba8 result = dst.download();
            const ImageRgba8 cpu = scale_fast(part.view(), 70, 50, method);
            QVERIFY2(first_difference(cpu, copy_region(result, out_window)).isEmpty(),
                     qPrintable(first_difference(cpu, copy_region(result, out_window))));
            for (int y = 0; y < 80; ++y)
                for (int x = 0; x < 100; ++x)
                    if (x < out_window.x0 || x > out_window.x1 || y < out_window.y0 ||
                        y > out_window.y1)
                        QCOMPARE(result.at(x, y), (Rgba8{5, 6, 7, 8}));
        }
    }

    void bad_calls_are_refused() {
        OwnedStream stream;
        CudaScaler scaler(stream.get());
        const ImageRgba8 image = test_image(20, 10, 4);
        DeviceImage<Rgba8> src(image.view(), stream.get());
        DeviceImage<Rgba8> dst;
        dst.set_stream(stream.get());  // refused for the calls' own faults, not for no stream
        QVERIFY_THROWS_EXCEPTION(Error, scaler.run(src, dst, 0, 10, ScaleMethod::BSpline));
        QVERIFY_THROWS_EXCEPTION(Error, scaler.run(src, dst, 40000, 10, ScaleMethod::BSpline));
        QVERIFY_THROWS_EXCEPTION(Error, scaler.run(src, src, 30, 10, ScaleMethod::BSpline));
    }
};

QTEST_GUILESS_MAIN(TestScaleCuda)
#include "test_scale_cuda.moc"
