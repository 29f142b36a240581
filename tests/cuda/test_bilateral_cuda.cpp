// The CUDA bilateral filter against the fast CPU filter (itself checked against the gold
// reference in test_bilateral): identical pixels over odd sizes, radii up to the largest (whose
// tiles need more than 48 KB of shared memory), with and without a guide, on sub-views of larger
// device images (mirrored at their own borders) and through the host entry point; repeated calls
// reuse the weight tables; bad calls are refused.
#include <lacuna/core/backend.hpp>
#include <lacuna/core/device_image.hpp>
#include <lacuna/core/error.hpp>
#include <lacuna/core/transfer_stats.hpp>
#include <lacuna/ops/bilateral.hpp>

#include "../engine/image_test_util.hpp"

#include <QtTest>

#include <random>

using namespace lacuna;
using namespace lacuna::ops;

namespace {

ImageRgba8 test_image(const int w, const int h, const unsigned seed) {
    return test::edged_noise_image(w, h, seed, 60, 12);
}

QString first_difference(const ImageRgba8& cpu, const ImageRgba8& cuda) {
    return QString::fromStdString(test::first_pixel_difference(cpu, cuda));
}

}  // namespace

class TestBilateralCuda : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() {
        if (select_backend(BackendRequest::Auto).backend != Backend::Cuda)
            QSKIP("no usable CUDA device");
    }

    void equals_the_cpu_data() {
        QTest::addColumn<int>("w");
        QTest::addColumn<int>("h");
        QTest::addColumn<double>("sigma_space");
        QTest::addColumn<double>("sigma_range");
        QTest::addColumn<int>("radius");
        QTest::addColumn<bool>("guided");
        QTest::newRow("1x1 r3") << 1 << 1 << 2.0 << 20.0 << 3 << false;
        QTest::newRow("3x5 r9 guided") << 3 << 5 << 5.0 << 40.0 << 9 << true;
        QTest::newRow("31x17 auto") << 31 << 17 << 3.0 << 30.0 << 0 << false;
        QTest::newRow("33x9 r7 guided") << 33 << 9 << 4.0 << 25.0 << 7 << true;
        QTest::newRow("257x131 r7") << 257 << 131 << 4.0 << 25.0 << 7 << false;
        QTest::newRow("203x97 r24 guided") << 203 << 97 << 12.0 << 60.0 << 24 << true;
        QTest::newRow("129x77 r32 guided") << 129 << 77 << 16.0 << 80.0 << 32 << true;
        QTest::newRow("641x479 r5") << 641 << 479 << 3.0 << 15.0 << 5 << false;
    }
    void equals_the_cpu() {
        QFETCH(int, w);
        QFETCH(int, h);
        QFETCH(double, sigma_space);
        QFETCH(double, sigma_range);
        QFETCH(int, radius);
        QFETCH(bool, guided);
        const ImageRgba8 image = test_image(w, h, 11);
        const ImageRgba8 guide = test_image(w, h, 12);
        const BilateralParams params{sigma_space, sigma_range, radius};
        const ImageView<const Rgba8> g = guided ? guide.view() : ImageView<const Rgba8>{};
        const ImageRgba8 cpu = bilateral_fast(image.view(), g, params);

        OwnedStream stream;
        CudaBilateral filter(stream.get());
        const DeviceImage<Rgba8> src(image.view(), stream.get());
        const DeviceImage<Rgba8> dguide(guide.view(), stream.get());
        DeviceImage<Rgba8> dst;
        dst.set_stream(stream.get());
        filter.run(src, guided ? &dguide : nullptr, dst, params);
        const ImageRgba8 cuda = dst.download();
        QCOMPARE(cuda.width(), w);
        QCOMPARE(cuda.height(), h);
        QVERIFY2(first_difference(cpu, cuda).isEmpty(), qPrintable(first_difference(cpu, cuda)));

        // The host entry point gives the same.
        const ImageRgba8 via_host =
            bilateral(image.view(), g, params, BilateralImplementation::Cuda);
        QVERIFY2(first_difference(cpu, via_host).isEmpty(),
                 qPrintable(first_difference(cpu, via_host)));
    }

    void filters_sub_views_at_their_own_borders() {
        // A 23x19 window at (5, 4) of a 40x30 device image: the filter must mirror at the
        // window's edges, read nothing outside it and write nothing outside its output window.
        const ImageRgba8 big = test_image(40, 30, 21);
        const ImageRgba8 big_guide = test_image(40, 30, 22);
        const PixelRect window{5, 4, 27, 22};
        const ImageRgba8 part = copy_region(big, window);
        const ImageRgba8 part_guide = copy_region(big_guide, window);
        const BilateralParams params{3.0, 35.0, 6};
        const ImageRgba8 cpu = bilateral_fast(part.view(), part_guide.view(), params);

        OwnedStream stream;
        CudaBilateral filter(stream.get());
        DeviceImage<Rgba8> src(big.view(), stream.get());
        DeviceImage<Rgba8> guide(big_guide.view(), stream.get());
        const ImageRgba8 canvas(40, 30, Rgba8{1, 2, 3, 4});
        DeviceImage<Rgba8> dst(canvas.view(), stream.get());
        const PixelRect out_window{9, 2, 31, 20};
        filter.run(sub_view(src.device_view(), window), sub_view(guide.device_view(), window),
                   sub_view(dst.device_view(), out_window), params);
        const ImageRgba8 result = dst.download();
        QVERIFY2(first_difference(cpu, copy_region(result, out_window)).isEmpty(),
                 qPrintable(first_difference(cpu, copy_region(result, out_window))));
        for (int y = 0; y < 30; ++y)
            for (int x = 0; x < 40; ++x)
                if (x < out_window.x0 || x > out_window.x1 || y < out_window.y0 ||
                    y > out_window.y1)
                    QCOMPARE(result.at(x, y), (Rgba8{1, 2, 3, 4}));
    }

    void a_preview_reuses_its_tables_and_moves_nothing() {
        const ImageRgba8 image = test_image(300, 200, 31);
        OwnedStream stream;
        CudaBilateral filter(stream.get());
        const DeviceImage<Rgba8> src(image.view(), stream.get());
        DeviceImage<Rgba8> dst(300, 200, stream.get());
        const BilateralParams params{3.0, 30.0, 5};
        filter.run(src, nullptr, dst, params);  // uploads the tables once
        stream.synchronize();
        const TransferStats before = transfer_stats();
        for (int i = 0; i < 5; ++i) filter.run(src, nullptr, dst, params);
        stream.synchronize();
        const TransferStats after = transfer_stats();
        QCOMPARE(after.upload_bytes, before.upload_bytes);
        QCOMPARE(after.download_bytes, before.download_bytes);
        // New parameters: new tables, still the CPU's pixels.
        const BilateralParams other{5.0, 12.0, 8};
        filter.run(src, nullptr, dst, other);
        QVERIFY(transfer_stats().upload_bytes > after.upload_bytes);
        const ImageRgba8 cpu = bilateral_fast(image.view(), {}, other);
        QVERIFY2(first_difference(cpu, dst.download()).isEmpty(),
                 qPrintable(first_difference(cpu, dst.download())));
    }

    void bad_calls_are_refused() {
        OwnedStream stream;
        CudaBilateral filter(stream.get());
        const ImageRgba8 image = test_image(20, 10, 41);
        DeviceImage<Rgba8> src(image.view(), stream.get());
        const DeviceImage<Rgba8> small_guide(10, 10, stream.get());
        DeviceImage<Rgba8> dst;
        dst.set_stream(stream.get());  // refused for the calls' own faults, not for no stream
        QVERIFY_THROWS_EXCEPTION(Error, filter.run(src, &small_guide, dst, {}));
        QVERIFY_THROWS_EXCEPTION(Error, filter.run(src, nullptr, src, {}));
        QVERIFY_THROWS_EXCEPTION(Error, filter.run(src, nullptr, dst, {0.0, 30.0, 0}));
        QVERIFY_THROWS_EXCEPTION(Error, filter.run(src, nullptr, dst, {3.0, 30.0, 40}));
    }
};

QTEST_GUILESS_MAIN(TestBilateralCuda)
#include "test_bilateral_cuda.moc"
