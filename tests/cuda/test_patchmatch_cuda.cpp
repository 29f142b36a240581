// PatchMatch completion with CUDA against the CPU filler: the same field and the same bytes after
// partial and full fills on odd sizes with holes touching a border, the device filler (started
// from a device document) through copy_filled, and timings end to end (setup included) for the
// two benchmark cases.
#include <lacuna/core/backend.hpp>
#include <lacuna/core/device_image.hpp>
#include <lacuna/core/error.hpp>
#include <lacuna/ops/inpaint.hpp>
#include <lacuna/ops/patchmatch.hpp>

#include "../engine/inpaint_test_util.hpp"

#include <QtTest>

#include <algorithm>
#include <chrono>
#include <random>

using namespace lacuna;
using namespace lacuna::ops;
using lacuna::test::compare_images;
using lacuna::test::odd_hole;

namespace {

/// Smooth gradients, stripes and noise: textured enough that the field matters.
ImageRgba8 scene(const int w, const int h, const unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> noise(-15, 15);
    ImageRgba8 image(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const int stripe = ((x + y / 3) % 12) < 6 ? 60 : 0;
            const auto c = [&](const int v) {
                return std::uint8_t(std::clamp(v + noise(rng), 0, 255));
            };
            image.at(x, y) =
                Rgba8{c(40 + (x * 150) / w + stripe), c(200 - (y * 120) / h), c(80 + stripe), 255};
        }
    return image;
}

Mask rect_mask(const int w, const int h, const int x0, const int y0, const int rw, const int rh) {
    Mask m(w, h, 0);
    for (int y = y0; y < y0 + rh; ++y)
        for (int x = x0; x < x0 + rw; ++x) m.at(x, y) = 255;
    return m;
}

QString compare_fields(const Inpainter& a, const Inpainter& b) {
    const auto fa = patchmatch_field(a);
    const auto fb = patchmatch_field(b);
    if (!fa || !fb) return "no field";
    if (fa->level != fb->level) return QString("levels %1 and %2").arg(fa->level).arg(fb->level);
    for (std::size_t i = 0; i < fa->nnf.size(); ++i)
        if (fa->nnf[i] != fb->nnf[i] || fa->dist[i] != fb->dist[i])
            return QString("entry %1: %2 (%3) vs %4 (%5)")
                .arg(i)
                .arg(fa->nnf[i])
                .arg(fa->dist[i])
                .arg(fb->nnf[i])
                .arg(fb->dist[i]);
    return {};
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

class TestPatchMatchCuda : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() {
        const BackendInfo info = select_backend(BackendRequest::Auto);
        if (info.backend != Backend::Cuda)
            QSKIP(qPrintable("no usable CUDA device: " + QString::fromStdString(info.reason)));
    }

    void cuda_equals_cpu_data() {
        QTest::addColumn<int>("w");
        QTest::addColumn<int>("h");
        QTest::addColumn<int>("patch");
        QTest::addColumn<bool>("border");
        QTest::addColumn<bool>("never");
        QTest::newRow("97x71 p7 border") << 97 << 71 << 7 << true << false;
        QTest::newRow("203x157 p9 border never") << 203 << 157 << 9 << true << true;
        QTest::newRow("331x199 p5 centre") << 331 << 199 << 5 << false << false;
        QTest::newRow("45x37 p7 single level") << 45 << 37 << 7 << true << false;
    }
    void cuda_equals_cpu() {
        QFETCH(int, w);
        QFETCH(int, h);
        QFETCH(int, patch);
        QFETCH(bool, border);
        QFETCH(bool, never);
        const ImageRgba8 image = scene(w, h, unsigned(w * h));
        const Mask mask = odd_hole(w, h, border);
        const Mask never_mask = lacuna::test::never_sample_spot(w, h);
        InpaintParams params;
        params.patch = patch;
        params.method = InpaintMethod::PatchMatch;
        params.seed = 7;
        params.never_sample = never ? &never_mask : nullptr;
        const auto cpu = make_inpainter(image.view(), mask, params, InpaintImplementation::Fast);
        const auto gpu = make_inpainter(image.view(), mask, params, InpaintImplementation::Cuda);
        for (const int step : {1, 5, 1 << 20}) {
            const InpaintProgress pc = cpu->advance(step);
            const InpaintProgress pg = gpu->advance(step);
            QCOMPARE(pg.iterations, pc.iterations);
            QCOMPARE(pg.filled, pc.filled);
            QCOMPARE(compare_fields(*cpu, *gpu), QString());
            QCOMPARE(compare_images(cpu->image(), gpu->image()), QString());
        }
        QVERIFY(gpu->progress().done());
    }

    void device_inpainter_equals_cpu() {
        const int w = 211, h = 143;
        const ImageRgba8 image = scene(w, h, 3);
        const Mask mask = odd_hole(w, h, true);
        InpaintParams params;
        params.patch = 7;
        params.method = InpaintMethod::PatchMatch;
        // Coverage: painted 0..255, the hole is >= 128.
        std::mt19937 rng(1);
        std::uniform_int_distribution<int> in(128, 255), out(0, 127);
        Mask coverage(w, h);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                coverage.at(x, y) = std::uint8_t(mask.at(x, y) ? in(rng) : out(rng));
        const InpaintProblem problem = prepare_inpaint(image.view(), mask, params);
        const auto cpu = make_inpainter(image.view(), mask, params, InpaintImplementation::Fast);
        const DeviceImage<Rgba8> pixels(image.view());
        const DeviceImage<std::uint8_t> device_coverage(coverage.view());
        const auto device = make_device_inpainter(pixels, device_coverage, problem);
        QCOMPARE(device->progress().total, cpu->progress().total);
        const PixelRect all{0, 0, w - 1, h - 1};
        for (const int step : {1, 5, 1 << 20}) {
            cpu->advance(step);
            device->advance(step);
            DeviceImage<Rgba8> dst(image.view());
            device->copy_filled(dst, all);
            QCOMPARE(compare_images(dst.download(), cpu->image()), QString());
        }
        QVERIFY(device->progress().done());
        // A coverage that does not match the problem is refused.
        Mask other = coverage;
        other.at(0, 0) = 255;
        const DeviceImage<std::uint8_t> wrong(other.view());
        QVERIFY_THROWS_EXCEPTION(Error, make_device_inpainter(pixels, wrong, problem));
        // An empty hole hands the pixels back.
        const Mask empty(w, h, 0);
        const DeviceImage<std::uint8_t> none(empty.view());
        const auto idle =
            make_device_inpainter(pixels, none, prepare_inpaint(image.view(), empty, params));
        QVERIFY(idle->progress().done());
        DeviceImage<Rgba8> dst(scene(w, h, 99).view());
        idle->copy_filled(dst, all);
        QCOMPARE(compare_images(dst.download(), image), QString());
    }

    void timings() {
        struct Case {
            int w, h, hole_w, hole_h;
        };
        for (const Case c : {Case{1920, 1080, 300, 200}, Case{512, 384, 76, 128}}) {
            const ImageRgba8 image = scene(c.w, c.h, 5);
            const Mask mask =
                rect_mask(c.w, c.h, (c.w - c.hole_w) / 2, (c.h - c.hole_h) / 2, c.hole_w, c.hole_h);
            InpaintParams params;
            params.patch = 9;
            params.method = InpaintMethod::PatchMatch;
            std::vector<double> gpu_ms, cpu_ms;
            for (int run = 0; run < 6; ++run) {
                const auto t0 = std::chrono::steady_clock::now();
                const InpaintResult r =
                    inpaint(image.view(), mask, params, InpaintImplementation::Cuda);
                const auto t1 = std::chrono::steady_clock::now();
                if (run > 0)  // the first run pays for the CUDA context and the pool
                    gpu_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
                QVERIFY(r.progress.done());
            }
            for (int run = 0; run < 1; ++run) {
                const auto t0 = std::chrono::steady_clock::now();
                inpaint(image.view(), mask, params, InpaintImplementation::Fast);
                const auto t1 = std::chrono::steady_clock::now();
                cpu_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
            }
            qInfo(
                "PatchMatch %dx%d, hole %dx%d: CUDA %.2f ms (median of 5, end to end), CPU "
                "%.1f ms (%u threads)",
                c.w, c.h, c.hole_w, c.hole_h, median(gpu_ms), median(cpu_ms),
                std::max(1u, std::thread::hardware_concurrency()));
        }
    }
};

QTEST_GUILESS_MAIN(TestPatchMatchCuda)
#include "test_patchmatch_cuda.moc"
