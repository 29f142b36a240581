// The CUDA brush against the CPU brush: random segments, radii, hardness and erasing on odd-sized
// random masks give identical masks and identical rectangles, and painting moves nothing between
// host and device.
#include <lacuna/core/backend.hpp>
#include <lacuna/core/device_image.hpp>
#include <lacuna/core/transfer_stats.hpp>
#include <lacuna/ops/brush.hpp>

#include <QtTest>

#include <cuda_runtime.h>

#include <array>
#include <random>

using namespace lacuna;
using namespace lacuna::ops;

namespace {

Mask random_mask(const int w, const int h, std::mt19937& rng) {
    Mask mask(w, h);
    std::uniform_int_distribution<int> byte(0, 255);
    std::uniform_int_distribution<int> kind(0, 3);
    // Runs of 0 and 255 as well as noise: max and min both have something to change and keep.
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const int k = kind(rng);
            mask.at(x, y) = std::uint8_t(k == 0 ? 0 : k == 1 ? 255 : byte(rng));
        }
    return mask;
}

/// Empty when equal; else the first differing pixel.
QString compare_masks(const Mask& a, const Mask& b) {
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x)
            if (a.at(x, y) != b.at(x, y))
                return QString("pixel %1,%2: cpu %3, cuda %4")
                    .arg(x)
                    .arg(y)
                    .arg(a.at(x, y))
                    .arg(b.at(x, y));
    return {};
}

QString rect_text(const PixelRect& r) {
    return QString("(%1,%2)-(%3,%4)").arg(r.x0).arg(r.y0).arg(r.x1).arg(r.y1);
}

}  // namespace

class TestBrushCuda : public QObject {
    Q_OBJECT
    std::mt19937 rng_{77};

  private slots:
    void initTestCase() {
        const BackendInfo info = select_backend(BackendRequest::Auto);
        if (info.backend != Backend::Cuda)
            QSKIP(qPrintable("no usable CUDA device: " + QString::fromStdString(info.reason)));
    }

    void segments_equal_cpu() {
        const OwnedStream stream;
        for (const auto& [w, h] : {std::pair{517, 301}, {1, 1}, {33, 7}}) {
            Mask cpu = random_mask(w, h, rng_);
            DeviceImage<std::uint8_t> gpu(cpu.view(), stream.get());
            std::uniform_real_distribution<double> ux(-40.0, w + 40.0), uy(-40.0, h + 40.0);
            std::uniform_real_distribution<double> unit(0.0, 1.0);
            const std::array radii{0.3, 0.5, 1.0, 2.5, 7.0, 20.0, 63.7, 150.0};
            std::uint64_t moved = 0;
            for (int k = 0; k < 120; ++k) {
                BrushSettings b;
                b.radius = radii[static_cast<std::size_t>(k) % radii.size()] * (0.5 + unit(rng_));
                b.hardness = k % 5 == 0 ? 0.0 : k % 5 == 1 ? 1.0 : unit(rng_);
                b.erase = k % 3 == 2;
                double x0 = ux(rng_), y0 = uy(rng_), x1 = ux(rng_), y1 = uy(rng_);
                if (k % 7 == 3) x1 = x0, y1 = y0;         // a single dab
                if (k % 11 == 5) x0 = 0.5, x1 = w - 0.5;  // along the whole width
                const TransferStats before = transfer_stats();
                const PixelRect on_gpu =
                    k % 9 == 4 ? paint_dab(gpu, x1, y1, b) : paint_segment(gpu, x0, y0, x1, y1, b);
                const TransferStats after = transfer_stats();
                moved += (after - before).upload_bytes + (after - before).download_bytes;
                moved += (after - before).uploads + (after - before).downloads;
                const PixelRect on_cpu =
                    k % 9 == 4 ? paint_dab(cpu, x1, y1, b) : paint_segment(cpu, x0, y0, x1, y1, b);
                QVERIFY2(on_gpu == on_cpu, qPrintable(QString("%1x%2 case %3: rect %4 vs %5")
                                                          .arg(w)
                                                          .arg(h)
                                                          .arg(k)
                                                          .arg(rect_text(on_cpu))
                                                          .arg(rect_text(on_gpu))));
                if (k % 10 == 9 || w < 100) {
                    const QString diff = compare_masks(cpu, gpu.download());
                    QVERIFY2(
                        diff.isEmpty(),
                        qPrintable(
                            QString("%1x%2 after case %3: %4").arg(w).arg(h).arg(k).arg(diff)));
                }
            }
            QCOMPARE(moved, std::uint64_t{0});
        }
    }

    void long_stroke_of_a_small_brush() {
        // Thousands of dabs in one launch: each pixel may only look at the dabs near it.
        Mask cpu = random_mask(517, 301, rng_);
        const OwnedStream stream;
        DeviceImage<std::uint8_t> gpu(cpu.view(), stream.get());
        for (const bool erase : {false, true}) {
            BrushSettings b;
            b.radius = 0.7;
            b.hardness = 0.25;
            b.erase = erase;
            const PixelRect a = paint_segment(cpu, -20.25, -10.5, 540.125, 320.75, b);
            const PixelRect g = paint_segment(gpu, -20.25, -10.5, 540.125, 320.75, b);
            QCOMPARE(g, a);
            QCOMPARE(compare_masks(cpu, gpu.download()), QString());
        }
    }

    void paints_on_the_mask_stream() {
        // Strokes queue on the mask's own (non-blocking) stream behind its upload, unsynchronised;
        // the download, on the same stream, sees them all.
        const OwnedStream stream;
        {
            Mask cpu = random_mask(301, 517, rng_);
            DeviceImage<std::uint8_t> gpu(cpu.width(), cpu.height(), stream.get());
            gpu.upload_async(cpu.view());
            std::uniform_real_distribution<double> u(-10.0, 530.0);
            for (int k = 0; k < 40; ++k) {
                BrushSettings b;
                b.radius = 1.0 + k;
                b.hardness = (k % 4) / 3.0;
                b.erase = k % 2 == 1;
                const double x0 = u(rng_), y0 = u(rng_), x1 = u(rng_), y1 = u(rng_);
                QCOMPARE(paint_segment(gpu, x0, y0, x1, y1, b),
                         paint_segment(cpu, x0, y0, x1, y1, b));
            }
            QCOMPARE(compare_masks(cpu, gpu.download()), QString());
        }
    }

    void empty_device_mask_paints_nothing() {
        DeviceImage<std::uint8_t> gpu;
        QVERIFY(paint_segment(gpu, 0, 0, 10, 10, BrushSettings{}).empty());
        QVERIFY(paint_dab(gpu, 3, 3, BrushSettings{}).empty());
    }
};

QTEST_GUILESS_MAIN(TestBrushCuda)
#include "test_brush_cuda.moc"
