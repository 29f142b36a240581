// CUDA inpainting against the CPU: the same patches in the same order and identical pixels (the
// fast CPU filler is itself tested equal to the reference), on a real photo at odd sizes with
// several patch sizes, windows, full search and never-sample masks; partial fills after the same
// number of steps; an empty mask; cancel.
#include <lacuna/core/backend.hpp>
#include <lacuna/core/error.hpp>
#include <lacuna/ops/inpaint.hpp>

#include "../engine/inpaint_test_util.hpp"
#include "../engine/ppm.hpp"

#include <QtTest>

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
        InpaintParams params;
        params.patch = patch;
        params.coherence = coherence;
        params.never_sample = never ? &never_mask : nullptr;
        QVERIFY(parse_inpaint_search(search.toStdString(), params));
        expect_same_fill(image, mask, params);
    }

    void reference_equals_cuda_on_a_small_case() {
        const ImageRgba8 image = crop(fruits(), 20, 20, 71, 53);
        const Mask mask = ellipse_mask(71, 53, 35, 26, 9, 7);
        InpaintParams params;
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
        InpaintParams params;
        params.patch = 9;
        expect_same_fill(image, mask, params);
    }

    void partial_fills_match_step_by_step() {
        const ImageRgba8 image = crop(fruits(), 0, 0, 151, 113);
        const Mask mask = ellipse_mask(151, 113, 75, 56, 25, 18);
        const auto fast =
            make_inpainter(image.view(), mask, InpaintParams{}, InpaintImplementation::Fast);
        const auto cuda =
            make_inpainter(image.view(), mask, InpaintParams{}, InpaintImplementation::Cuda);
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

    void empty_mask_is_a_no_op() {
        const ImageRgba8 image = fruits();
        const Mask mask(image.width(), image.height(), 0);
        const InpaintResult result =
            inpaint(image.view(), mask, InpaintParams{}, InpaintImplementation::Cuda);
        QCOMPARE(compare_images(result.image, image), QString());
        QCOMPARE(result.notes.size(), std::size_t{1});
    }
};

QTEST_GUILESS_MAIN(TestInpaintCuda)
#include "test_inpaint_cuda.moc"
