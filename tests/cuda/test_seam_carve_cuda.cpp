// CUDA seam carving against the CPU: identical seam orders, costs and mask counts (the fast CPU
// carver is itself tested equal to the reference), and the GPU slider's compaction against the
// CPU's, over odd sizes, one-pixel-high images, every energy, with and without masks.
#include <lacuna/core/backend.hpp>
#include <lacuna/core/error.hpp>
#include <lacuna/ops/seam_carve.hpp>

#include "../engine/ppm.hpp"
#include "../engine/seam_test_util.hpp"

#include <QtTest>

#include <random>

using namespace lacuna;
using namespace lacuna::ops;
using lacuna::test::compare;
using lacuna::test::rect_mask;

namespace {

ImageRgba8 test_image(const int w, const int h, const int levels, std::mt19937& rng) {
    ImageRgba8 image(w, h);
    std::uniform_int_distribution<int> v(0, levels - 1);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            // A smooth scene plus noise: long low-energy paths and ties both occur.
            const auto q = [&](const int base) {
                return std::uint8_t(std::clamp(base + v(rng) * (64 / levels), 0, 255));
            };
            image.at(x, y) = Rgba8{q((x * 3) % 200), q((y * 5) % 180), q(((x + y) * 2) % 220), 255};
        }
    return image;
}

}  // namespace

class TestSeamCarveCuda : public QObject {
    Q_OBJECT
    std::mt19937 rng_{99};

  private slots:
    void initTestCase() {
        const BackendInfo info = select_backend(BackendRequest::Auto);
        if (info.backend != Backend::Cuda)
            QSKIP(qPrintable("no usable CUDA device: " + QString::fromStdString(info.reason)));
    }

    void cuda_equals_cpu() {
        struct Case {
            int w, h, levels, seams;
        };
        // 4500 wide: the DP without prefetching (costs in shared memory); 30000 wide: two cost
        // rows no longer fit shared memory, so the map lives in global memory.
        const Case cases[] = {{2, 5, 4, 1},         {13, 1, 256, 6},   {1, 31, 256, 0},
                              {37, 23, 3, 20},      {64, 33, 256, 40}, {641, 479, 8, 200},
                              {1500, 1100, 16, 30}, {4500, 40, 16, 3}, {30000, 3, 16, 2}};
        int compared = 0;
        for (const Case& c : cases) {
            const ImageRgba8 img = test_image(c.w, c.h, c.levels, rng_);
            for (const SeamEnergy kind :
                 {SeamEnergy::L1, SeamEnergy::Prewitt, SeamEnergy::Sobel, SeamEnergy::Forward}) {
                for (const SeamDirection dir :
                     {SeamDirection::Vertical, SeamDirection::Horizontal}) {
                    const int extent = dir == SeamDirection::Vertical ? c.w : c.h;
                    const int seams = std::min(c.seams, extent - 1);
                    if (seams < 0) continue;
                    const Mask protect = rect_mask(c.w, c.h, c.w / 4, c.h / 4, c.w / 2, c.h / 2);
                    const Mask remove =
                        rect_mask(c.w, c.h, c.w * 3 / 4, 0, std::min(c.w, c.w * 3 / 4 + 2), c.h);
                    for (const bool masks : {false, true}) {
                        const CarveInput in{img.view(), masks ? &protect : nullptr,
                                            masks ? &remove : nullptr, kind};
                        const SeamOrder gold = c.w * c.h <= 5000
                                                   ? seam_order_reference(in, dir, seams)
                                                   : seam_order_fast(in, dir, seams);
                        const QString diff = compare(gold, seam_order_cuda(in, dir, seams));
                        QVERIFY2(diff.isEmpty(),
                                 qPrintable(QString("%1x%2 %3 %4 masks %5: %6")
                                                .arg(c.w)
                                                .arg(c.h)
                                                .arg(QString::fromStdString(to_string(kind)))
                                                .arg(dir == SeamDirection::Vertical ? "vertical"
                                                                                    : "horizontal")
                                                .arg(masks)
                                                .arg(diff)));
                        ++compared;
                    }
                }
            }
        }
        QVERIFY(compared >= 100);
    }

    void real_photo_equals_cpu() {
        const ImageRgba8 photo = test::read_ppm(LACUNA_SOURCE_DIR "/tests/data/fruits-crop.ppm");
        QCOMPARE(photo.width(), 160);
        const Mask protect = rect_mask(160, 120, 60, 30, 100, 90);
        for (const SeamEnergy kind :
             {SeamEnergy::L1, SeamEnergy::Prewitt, SeamEnergy::Sobel, SeamEnergy::Forward}) {
            for (const SeamDirection dir : {SeamDirection::Vertical, SeamDirection::Horizontal}) {
                for (const bool masks : {false, true}) {
                    const CarveInput in{photo.view(), masks ? &protect : nullptr, nullptr, kind};
                    const int seams = dir == SeamDirection::Vertical ? 80 : 60;
                    const QString diff = compare(seam_order_reference(in, dir, seams),
                                                 seam_order_cuda(in, dir, seams));
                    QVERIFY2(diff.isEmpty(), qPrintable(diff));
                }
            }
        }
    }

    void slider_frames_equal_cpu_compaction() {
        for (const auto& [w, h] : {std::pair{9, 4}, {333, 101}, {1921, 1081}}) {
            const ImageRgba8 img = test_image(w, h, 32, rng_);
            const SeamOrder order =
                seam_order_fast({img.view(), nullptr, nullptr, SeamEnergy::Forward},
                                SeamDirection::Vertical, w / 2);
            CudaSeamSlider slider(img.view(), order);
            for (const int k : {0, 1, w / 4, w / 2}) {
                QVERIFY2(equal_pixels<Rgba8>(remove_seams<Rgba8>(img.view(), order, k).view(),
                                             slider.frame(k).view()),
                         qPrintable(QString("%1x%2 minus %3").arg(w).arg(h).arg(k)));
            }
            QVERIFY_THROWS_EXCEPTION(Error, slider.frame(w / 2 + 1));
        }
    }
};

QTEST_GUILESS_MAIN(TestSeamCarveCuda)
#include "test_seam_carve_cuda.moc"
