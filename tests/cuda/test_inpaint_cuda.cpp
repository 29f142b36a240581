// CUDA inpainting against the CPU: the same patches in the same order and identical pixels (the
// fast CPU filler is itself tested equal to the reference), on a real photo at odd sizes with
// several patch sizes, windows, full search and never-sample masks; partial fills after the same
// number of steps; an empty mask; cancel. The device filler (state built by kernels from a device
// document) against the fast CPU filler, its copies into a device image, and what it transfers.
#include <lacuna/core/backend.hpp>
#include <lacuna/core/device_image.hpp>
#include <lacuna/core/error.hpp>
#include <lacuna/core/transfer_stats.hpp>
#include <lacuna/ops/inpaint.hpp>
#include <lacuna/ops/inpaint_choice.hpp>

#include "../engine/inpaint_test_util.hpp"
#include "../engine/ppm.hpp"

#include <QtTest>

#include <cuda_runtime.h>

#include <random>

using namespace lacuna;
using namespace lacuna::ops;
using lacuna::test::compare_histories;
using lacuna::test::compare_images;
using lacuna::test::crop;
using lacuna::test::ellipse_mask;
using lacuna::test::never_sample_spot;
using lacuna::test::odd_hole;

namespace {

/// These tests are about the Criminisi filler; InpaintParams defaults to PatchMatch.
InpaintParams criminisi_params() {
    InpaintParams params;
    params.method = InpaintMethod::Criminisi;
    return params;
}

ImageRgba8 fruits() {
    return test::read_ppm(LACUNA_SOURCE_DIR "/tests/data/fruits-crop.ppm");
}

/// A large textured scene (the photo tiled with noise) so the search spans many blocks.
ImageRgba8 large_scene(const int w, const int h) {
    const ImageRgba8 photo = fruits();
    std::mt19937 rng(5);
    std::uniform_int_distribution<int> noise(-6, 6);
    ImageRgba8 image(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const Rgba8 p = photo.at((x * 7 / 5) % photo.width(), (y * 4 / 3) % photo.height());
            const auto jitter = [&](const int v) {
                return std::uint8_t(std::clamp(v + noise(rng), 0, 255));
            };
            image.at(x, y) = Rgba8{jitter(p.r), jitter(p.g), jitter(p.b), 255};
        }
    return image;
}

void expect_same_fill(const ImageRgba8& image, const Mask& mask, const InpaintParams& params) {
    const auto fast = make_inpainter(image.view(), mask, params, InpaintImplementation::Fast);
    const auto cuda = make_inpainter(image.view(), mask, params, InpaintImplementation::Cuda);
    while (!fast->progress().done()) fast->advance(1 << 20);
    while (!cuda->progress().done()) cuda->advance(50);
    QCOMPARE(cuda->progress().filled, fast->progress().filled);
    QCOMPARE(compare_histories(fast->history(), cuda->history()), QString());
    QCOMPARE(compare_images(fast->image(), cuda->image()), QString());
    // The source map (what the measurement fill's choice moves samples by) is the same, and
    // applied to the input it is the CUDA filler's image.
    const FillSources sources = criminisi_sources(*cuda);
    QVERIFY(sources == criminisi_sources(*fast));
    QCOMPARE(compare_images(fill_from_sources(image.view(), sources), cuda->image()), QString());
}

/// What the editor holds for a fill: a painted coverage (0..255; the hole is coverage >= 128)
/// and its thresholded host mirror, which the problem is prepared from.
struct Painted {
    Mask coverage;
    Mask mask;
};

Painted paint_coverage(const Mask& hole, std::mt19937& rng) {
    std::uniform_int_distribution<int> inside(128, 255), outside(0, 127);
    Painted p{Mask(hole.width(), hole.height()), Mask(hole.width(), hole.height(), 0)};
    for (int y = 0; y < hole.height(); ++y)
        for (int x = 0; x < hole.width(); ++x) {
            const bool in_hole = hole.at(x, y) != 0;
            p.coverage.at(x, y) = std::uint8_t(in_hole ? inside(rng) : outside(rng));
            p.mask.at(x, y) = in_hole ? 255 : 0;
        }
    return p;
}

std::uint64_t bytes_moved(const TransferStats& t) {
    return t.upload_bytes + t.download_bytes;
}

/// Empty when `got` equals `filled` inside `rect` and `before` outside it.
QString compare_copy(const ImageRgba8& got, const ImageRgba8& filled, const ImageRgba8& before,
                     const PixelRect& rect) {
    for (int y = 0; y < got.height(); ++y)
        for (int x = 0; x < got.width(); ++x) {
            const bool in = x >= rect.x0 && x <= rect.x1 && y >= rect.y0 && y <= rect.y1;
            if (got.at(x, y) != (in ? filled : before).at(x, y))
                return QString("pixel %1,%2 (%3 the rect)")
                    .arg(x)
                    .arg(y)
                    .arg(in ? "in" : "outside");
        }
    return {};
}

}  // namespace

class TestInpaintCuda : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() {
        const BackendInfo info = select_backend(BackendRequest::Auto);
        if (info.backend != Backend::Cuda)
            QSKIP(qPrintable("no usable CUDA device: " + QString::fromStdString(info.reason)));
        QVERIFY(!fruits().empty());
    }

    void cuda_equals_cpu_data() {
        QTest::addColumn<int>("x0");
        QTest::addColumn<int>("y0");
        QTest::addColumn<int>("w");
        QTest::addColumn<int>("h");
        QTest::addColumn<int>("patch");
        QTest::addColumn<QString>("search");
        QTest::addColumn<bool>("coherence");
        QTest::addColumn<bool>("never");
        QTest::newRow("157x119 p9 window")
            << 1 << 0 << 157 << 119 << 9 << "window" << true << false;
        QTest::newRow("101x77 p3 full") << 30 << 20 << 101 << 77 << 3 << "full" << true << false;
        QTest::newRow("133x97 p13 window:1 never")
            << 10 << 11 << 133 << 97 << 13 << "window:1" << true << true;
        QTest::newRow("97x83 p5 no coherence")
            << 40 << 30 << 97 << 83 << 5 << "window:0.2" << false << false;
        QTest::newRow("160x120 p31 full") << 0 << 0 << 160 << 120 << 31 << "full" << true << false;
        QTest::newRow("63x117 p7 border hole")
            << 50 << 2 << 63 << 117 << 7 << "window" << true << false;
    }
    void cuda_equals_cpu() {
        QFETCH(int, x0);
        QFETCH(int, y0);
        QFETCH(int, w);
        QFETCH(int, h);
        QFETCH(int, patch);
        QFETCH(QString, search);
        QFETCH(bool, coherence);
        QFETCH(bool, never);
        const ImageRgba8 image = crop(fruits(), x0, y0, w, h);
        const bool border = QString(QTest::currentDataTag()).contains("border");
        const Mask mask = odd_hole(w, h, border);
        const Mask never_mask = never_sample_spot(w, h);
        InpaintParams params = criminisi_params();
        params.patch = patch;
        params.coherence = coherence;
        params.never_sample = never ? &never_mask : nullptr;
        QVERIFY(parse_inpaint_search(search.toStdString(), params));
        expect_same_fill(image, mask, params);
    }

    void reference_equals_cuda_on_a_small_case() {
        const ImageRgba8 image = crop(fruits(), 20, 20, 71, 53);
        const Mask mask = ellipse_mask(71, 53, 35, 26, 9, 7);
        InpaintParams params = criminisi_params();
        params.patch = 7;
        const auto reference =
            make_inpainter(image.view(), mask, params, InpaintImplementation::Reference);
        const auto cuda = make_inpainter(image.view(), mask, params, InpaintImplementation::Cuda);
        while (!reference->progress().done()) reference->advance(1000);
        while (!cuda->progress().done()) cuda->advance(1000);
        QCOMPARE(compare_histories(reference->history(), cuda->history()), QString());
        QCOMPARE(compare_images(reference->image(), cuda->image()), QString());
    }

    void large_image_many_blocks() {
        const ImageRgba8 image = large_scene(1031, 707);
        Mask mask = ellipse_mask(1031, 707, 500, 350, 70, 45);
        const Mask second = ellipse_mask(1031, 707, 820, 120, 20, 30);
        for (int y = 0; y < 707; ++y)
            for (int x = 0; x < 1031; ++x) mask.at(x, y) |= second.at(x, y);
        InpaintParams params = criminisi_params();
        params.patch = 9;
        expect_same_fill(image, mask, params);
    }

    void partial_fills_match_step_by_step() {
        const ImageRgba8 image = crop(fruits(), 0, 0, 151, 113);
        const Mask mask = ellipse_mask(151, 113, 75, 56, 25, 18);
        const auto fast =
            make_inpainter(image.view(), mask, criminisi_params(), InpaintImplementation::Fast);
        const auto cuda =
            make_inpainter(image.view(), mask, criminisi_params(), InpaintImplementation::Cuda);
        for (const int step : {1, 4, 16}) {
            const InpaintProgress a = fast->advance(step);
            const InpaintProgress b = cuda->advance(step);
            QCOMPARE(b.iterations, a.iterations);
            QCOMPARE(b.filled, a.filled);
            QCOMPARE(compare_images(fast->image(), cuda->image()), QString());
        }
        cuda->cancel();
        QVERIFY_THROWS_EXCEPTION(Error, cuda->advance(1));
        QCOMPARE(cuda->progress().iterations, 21);
    }

    void device_inpainter_equals_fast_data() {
        QTest::addColumn<int>("w");
        QTest::addColumn<int>("h");
        QTest::addColumn<int>("patch");
        QTest::addColumn<QString>("hole");
        QTest::addColumn<bool>("never");
        QTest::newRow("157x119 p9 odd hole") << 157 << 119 << 9 << "odd" << false;
        QTest::newRow("131x97 p7 border hole") << 131 << 97 << 7 << "border" << false;
        QTest::newRow("101x77 p3 ellipse") << 101 << 77 << 3 << "ellipse" << false;
        QTest::newRow("143x111 p11 corner") << 143 << 111 << 11 << "corner" << false;
        QTest::newRow("133x97 p13 never-sample") << 133 << 97 << 13 << "odd" << true;
    }
    void device_inpainter_equals_fast() {
        QFETCH(int, w);
        QFETCH(int, h);
        QFETCH(int, patch);
        QFETCH(QString, hole);
        QFETCH(bool, never);
        const ImageRgba8 image = crop(fruits(), 3, 2, w, h);
        Mask shape = hole == "ellipse"  ? ellipse_mask(w, h, w * 0.4, h * 0.6, w / 7.0, h / 6.0)
                     : hole == "corner" ? ellipse_mask(w, h, w - 2, h - 3, w / 5.0, h / 4.0)
                                        : odd_hole(w, h, hole == "border");
        std::mt19937 rng(static_cast<unsigned>(w * h));
        const Painted painted = paint_coverage(shape, rng);
        const Mask never_mask = never_sample_spot(w, h);
        InpaintParams params = criminisi_params();
        params.patch = patch;
        params.never_sample = never ? &never_mask : nullptr;
        const InpaintProblem problem = prepare_inpaint(image.view(), painted.mask, params);
        const auto fast =
            make_inpainter(image.view(), painted.mask, params, InpaintImplementation::Fast);

        const OwnedStream document;  // the inputs' own, as a document's
        const DeviceImage<Rgba8> pixels(image.view(), document.get());
        const DeviceImage<std::uint8_t> coverage(painted.coverage.view(), document.get());
        const std::uint64_t n = std::uint64_t(w) * h;
        TransferStats before = transfer_stats();
        const auto device = make_device_inpainter(pixels, coverage, problem);
        const TransferStats made = transfer_stats() - before;
        // Counters only (a few dozen bytes); with a never-sample area, also its valid sources.
        QVERIFY2(bytes_moved(made) < (never ? n + 200 : 200),
                 qPrintable(QString::number(bytes_moved(made))));
        QCOMPARE(made.upload_bytes >= n, never);
        QCOMPARE(device->progress().total, fast->progress().total);

        std::uint64_t stepped = 0;
        for (const int step : {1, 4}) {
            fast->advance(step);
            before = transfer_stats();
            const InpaintProgress p = device->advance(step);
            stepped += bytes_moved(transfer_stats() - before);
            QCOMPARE(p.iterations, fast->progress().iterations);
            QCOMPARE(p.filled, fast->progress().filled);
            QCOMPARE(compare_histories(fast->history(), device->history()), QString());
            QCOMPARE(compare_images(fast->image(), device->image()), QString());
        }
        QVERIFY2(bytes_moved(made) + stepped < (never ? n + 400 : 400),
                 qPrintable(QString::number(bytes_moved(made) + stepped)));

        while (!fast->progress().done()) fast->advance(1 << 20);
        before = transfer_stats();
        while (!device->progress().done()) device->advance(50);
        const TransferStats filling = transfer_stats() - before;
        QCOMPARE(filling.upload_bytes, std::uint64_t{0});
        QCOMPARE(filling.download_bytes, filling.downloads * sizeof(unsigned long long) * 4);
        QCOMPARE(compare_histories(fast->history(), device->history()), QString());
        const ImageRgba8 filled = device->image();
        QCOMPARE(compare_images(fast->image(), filled), QString());

        // copy_filled into a device image on its own non-blocking stream: the hole's box, then a
        // rectangle on the border.
        const OwnedStream stream;
        {
            const ImageRgba8 backdrop(w, h, Rgba8{1, 2, 3, 4});
            DeviceImage<Rgba8> dst(backdrop.view(), stream.get());
            const SearchRect& box = problem.hole_box;
            const PixelRect hole_rect{box.x0, box.y0, box.x1, box.y1};
            device->copy_filled(dst, hole_rect);
            QCOMPARE(compare_copy(dst.download(), filled, backdrop, hole_rect), QString());
            const PixelRect edge{0, h / 3, w / 2, h - 1};
            device->copy_filled(dst, edge);
            ImageRgba8 expected = clone(backdrop.view());
            for (const PixelRect& r : {hole_rect, edge})
                for (int y = r.y0; y <= r.y1; ++y)
                    for (int x = r.x0; x <= r.x1; ++x) expected.at(x, y) = filled.at(x, y);
            QCOMPARE(compare_copy(dst.download(), expected, expected, edge), QString());
            QVERIFY_THROWS_EXCEPTION(Error, device->copy_filled(dst, PixelRect{0, 0, w, 0}));
        }
    }

    void device_copies_the_fill_as_it_grows() {
        // copy_filled between steps, to a device image on its own stream: each copy shows the
        // fill as far as it went, also while the next steps overwrite the filler's pixels.
        const ImageRgba8 image = crop(fruits(), 0, 0, 151, 113);
        std::mt19937 rng(3);
        const Painted painted = paint_coverage(ellipse_mask(151, 113, 75, 56, 25, 18), rng);
        const InpaintProblem problem =
            prepare_inpaint(image.view(), painted.mask, criminisi_params());
        const OwnedStream document;  // the inputs' own, as a document's
        const DeviceImage<Rgba8> pixels(image.view(), document.get());
        const DeviceImage<std::uint8_t> coverage(painted.coverage.view(), document.get());
        const auto device = make_device_inpainter(pixels, coverage, problem);
        const auto fast = make_inpainter(image.view(), painted.mask, criminisi_params(),
                                         InpaintImplementation::Fast);
        const OwnedStream stream;
        {
            DeviceImage<Rgba8> dst(image.view(), stream.get());
            const PixelRect all{0, 0, 150, 112};
            for (const int step : {1, 3, 8, 30}) {
                device->advance(step);
                fast->advance(step);
                device->copy_filled(dst, all);
                QCOMPARE(compare_images(fast->image(), dst.download()), QString());
            }
        }
    }

    void device_inpainter_checks_its_inputs() {
        const ImageRgba8 image = crop(fruits(), 0, 0, 64, 48);
        std::mt19937 rng(9);
        const Painted painted = paint_coverage(ellipse_mask(64, 48, 30, 20, 8, 6), rng);
        const Painted other = paint_coverage(ellipse_mask(64, 48, 30, 20, 5, 4), rng);
        const InpaintProblem problem =
            prepare_inpaint(image.view(), painted.mask, criminisi_params());
        const OwnedStream stream;
        const DeviceImage<Rgba8> pixels(image.view(), stream.get());
        const DeviceImage<std::uint8_t> wrong(other.coverage.view(), stream.get());
        QVERIFY_THROWS_EXCEPTION(Error, make_device_inpainter(pixels, wrong, problem));
        const DeviceImage<std::uint8_t> small(32, 48, stream.get());
        QVERIFY_THROWS_EXCEPTION(Error, make_device_inpainter(pixels, small, problem));

        // Nothing to fill: done at once, and copy_filled still hands out the pixels.
        const Mask empty(64, 48, 0);
        const DeviceImage<std::uint8_t> blank(empty.view(), stream.get());
        const auto idle =
            make_device_inpainter(pixels, blank, prepare_inpaint(image.view(), empty, {}));
        QVERIFY(idle->progress().done());
        QCOMPARE(idle->advance(5).iterations, 0);
        DeviceImage<Rgba8> dst(ImageRgba8(64, 48, Rgba8{9, 9, 9, 9}).view(), stream.get());
        idle->copy_filled(dst, PixelRect{0, 0, 63, 47});
        QCOMPARE(compare_images(image, dst.download()), QString());
    }

    void empty_mask_is_a_no_op() {
        const ImageRgba8 image = fruits();
        const Mask mask(image.width(), image.height(), 0);
        const InpaintResult result =
            inpaint(image.view(), mask, criminisi_params(), InpaintImplementation::Cuda);
        QCOMPARE(compare_images(result.image, image), QString());
        QCOMPARE(result.notes.size(), std::size_t{1});
    }
};

QTEST_GUILESS_MAIN(TestInpaintCuda)
#include "test_inpaint_cuda.moc"
