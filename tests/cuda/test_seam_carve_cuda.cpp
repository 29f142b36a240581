// CUDA seam carving against the CPU: identical seam orders, costs and mask counts (the fast CPU
// carver is itself tested equal to the reference), and the GPU slider's compaction against the
// CPU's, over odd sizes, one-pixel-high images, every energy, with and without masks.
#include <lacuna/core/backend.hpp>
#include <lacuna/core/error.hpp>
#include <lacuna/ops/seam_carve.hpp>

#include "../engine/ppm.hpp"
#include "../engine/seam_test_util.hpp"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

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

/// The repository's photo crop scaled bilinearly to w × h with a little deterministic noise: real
/// structure, large smooth areas (many equal costs) and no two rows alike.
ImageRgba8 scaled_photo(const int w, const int h) {
    const ImageRgba8 photo = test::read_ppm(LACUNA_SOURCE_DIR "/tests/data/fruits-crop.ppm");
    ImageRgba8 out(w, h);
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> noise(-2, 2);
    for (int y = 0; y < h; ++y) {
        const double fy = (y + 0.5) * photo.height() / h - 0.5;
        const int y0 = std::clamp(static_cast<int>(std::floor(fy)), 0, photo.height() - 1);
        const int y1 = std::min(y0 + 1, photo.height() - 1);
        const double ty = std::clamp(fy - y0, 0.0, 1.0);
        for (int x = 0; x < w; ++x) {
            const double fx = (x + 0.5) * photo.width() / w - 0.5;
            const int x0 = std::clamp(static_cast<int>(std::floor(fx)), 0, photo.width() - 1);
            const int x1 = std::min(x0 + 1, photo.width() - 1);
            const double tx = std::clamp(fx - x0, 0.0, 1.0);
            const auto mix = [&](auto channel) {
                const double top =
                    channel(photo.at(x0, y0)) * (1 - tx) + channel(photo.at(x1, y0)) * tx;
                const double bottom =
                    channel(photo.at(x0, y1)) * (1 - tx) + channel(photo.at(x1, y1)) * tx;
                return static_cast<std::uint8_t>(std::clamp(
                    static_cast<int>(top * (1 - ty) + bottom * ty + 0.5) + noise(rng), 0, 255));
            };
            out.at(x, y) = Rgba8{mix([](Rgba8 p) { return p.r; }), mix([](Rgba8 p) { return p.g; }),
                                 mix([](Rgba8 p) { return p.b; }), 255};
        }
    }
    return out;
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

    // The incremental cost update must not drift over a long run: 500 seams of a 1031 × 707 photo
    // (and long runs for the other energies, with masks, and horizontally).
    void long_run_equals_cpu() {
        const ImageRgba8 photo = scaled_photo(1031, 707);
        const Mask protect = rect_mask(1031, 707, 400, 200, 600, 500);
        const Mask remove = rect_mask(1031, 707, 800, 100, 830, 600);
        struct Run {
            SeamEnergy energy;
            SeamDirection direction;
            bool masks;
            int seams;
        };
        const Run runs[] = {{SeamEnergy::Forward, SeamDirection::Vertical, false, 500},
                            {SeamEnergy::Sobel, SeamDirection::Vertical, false, 300},
                            {SeamEnergy::Forward, SeamDirection::Vertical, true, 300},
                            {SeamEnergy::L1, SeamDirection::Horizontal, true, 250},
                            {SeamEnergy::Forward, SeamDirection::Horizontal, false, 350}};
        for (const Run& r : runs) {
            const CarveInput in{photo.view(), r.masks ? &protect : nullptr,
                                r.masks ? &remove : nullptr, r.energy};
            const QString diff = compare(seam_order_fast(in, r.direction, r.seams),
                                         seam_order_cuda(in, r.direction, r.seams));
            QVERIFY2(diff.isEmpty(),
                     qPrintable(QString("%1 %2 masks %3: %4")
                                    .arg(QString::fromStdString(to_string(r.energy)))
                                    .arg(r.direction == SeamDirection::Vertical ? "vertical"
                                                                                : "horizontal")
                                    .arg(r.masks)
                                    .arg(diff)));
        }
    }

    // Bands wider than shared memory (a remove mask changes whole rows; very wide rows) take the
    // global-memory path for some rows; the profile says how many, and the result stays exact.
    void wide_bands_and_profile() {
        const ImageRgba8 photo = scaled_photo(2600, 300);
        const Mask remove = rect_mask(2600, 300, 100, 0, 2500, 300);
        const CarveInput in{photo.view(), nullptr, &remove, SeamEnergy::Forward};
        CarveProfile profile;
        const SeamOrder gpu = seam_order_cuda_profiled(in, SeamDirection::Vertical, 60, profile);
        QVERIFY2(compare(seam_order_fast(in, SeamDirection::Vertical, 60), gpu).isEmpty(),
                 "profiled carve differs");
        QCOMPARE(profile.seams, 60);
        QVERIFY(profile.update_ms_per_seam > 0);
        QVERIFY(profile.cells_per_seam > 0);
        QVERIFY(profile.direct_rows_share > 0);
        qInfo("2600x300 remove mask: %.0f cells/seam, %.1f %% rows from global memory",
              profile.cells_per_seam, 100 * profile.direct_rows_share);
    }

    // Shrinking with CUDA keeps the image, masks and orders on the device between the passes:
    // the result must equal the fast CPU carver's, in both orders and with masks.
    void retarget_on_device_equals_cpu() {
        const ImageRgba8 photo = scaled_photo(421, 317);
        const Mask protect = rect_mask(421, 317, 150, 100, 260, 220);
        const Mask remove = rect_mask(421, 317, 330, 40, 345, 300);
        struct Case {
            int width, height;
            SeamEnergy energy;
            bool masks;
        };
        const Case cases[] = {
            {300, 250, SeamEnergy::Forward, false}, {300, 250, SeamEnergy::Forward, true},
            {421, 200, SeamEnergy::Sobel, true},    {211, 317, SeamEnergy::L1, false},
            {1, 317, SeamEnergy::Forward, false},   {400, 1, SeamEnergy::Prewitt, true}};
        for (const Case& c : cases) {
            RetargetParams params;
            params.width = c.width;
            params.height = c.height;
            params.energy = c.energy;
            params.protect = c.masks ? &protect : nullptr;
            params.remove = c.masks ? &remove : nullptr;
            const RetargetResult cpu = retarget(photo.view(), params, CarveImplementation::Fast);
            const RetargetResult gpu = retarget(photo.view(), params, CarveImplementation::Cuda);
            const QString what = QString("%1x%2 %3 masks %4")
                                     .arg(c.width)
                                     .arg(c.height)
                                     .arg(QString::fromStdString(to_string(c.energy)))
                                     .arg(c.masks);
            QVERIFY2(equal_pixels<Rgba8>(cpu.image.view(), gpu.image.view()), qPrintable(what));
            QCOMPARE(gpu.total_cost, cpu.total_cost);
            QCOMPARE(gpu.width_first, cpu.width_first);
            QCOMPARE(gpu.protected_removed, cpu.protected_removed);
            QCOMPARE(gpu.remove_left, cpu.remove_left);
            QCOMPARE(gpu.notes, cpu.notes);
        }
    }

    void progress_and_cancel() {
        const ImageRgba8 photo = scaled_photo(400, 300);
        const CarveInput in{photo.view(), nullptr, nullptr, SeamEnergy::Forward};
        std::vector<int> reports;
        const SeamOrder order =
            seam_order_cuda(in, SeamDirection::Vertical, 200, [&](const int done, const int total) {
                reports.push_back(done);
                return total == 200;
            });
        QVERIFY(reports.size() >= 3);
        QCOMPARE(reports.back(), 200);
        QVERIFY(std::is_sorted(reports.begin(), reports.end()));
        QVERIFY(compare(seam_order_fast(in, SeamDirection::Vertical, 200), order).isEmpty());
        int calls = 0;
        try {
            seam_order_cuda(in, SeamDirection::Vertical, 200,
                            [&](int, int) { return ++calls < 2; });
            QFAIL("cancelling did not stop the carve");
        } catch (const Error& e) {
            QCOMPARE(e.code(), ErrorCode::Cancelled);
        }
        QCOMPARE(calls, 2);
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
