// The CUDA kymograph against the CPU gold (kymograph_row_reference), value for value: the same
// bits, or NaN where the reference has NaN. Odd frame sizes (1 pixel wide or high among them),
// NaN pixels, paths that leave the image, bands 1, 2 and 7 (and a wide one), both samplings, lines
// and polylines; the whole-stack, per-frame and device-in/device-out entry points; a stream is
// required. Re-planning one kymograph (shorter, longer, another band) equals fresh ones; the
// region profiler (the editor's device region drags) equals profile_region bit for bit and moves
// only the plan up and the profile back.
#include <lacuna/core/backend.hpp>
#include <lacuna/core/device_image.hpp>
#include <lacuna/core/error.hpp>
#include <lacuna/core/transfer_stats.hpp>
#include <lacuna/ops/kymograph.hpp>
#include <lacuna/ops/regions.hpp>

#include <QtTest>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using namespace lacuna;
using namespace lacuna::ops;

namespace {

std::vector<ImageF32> random_stack(std::mt19937& rng, const int w, const int h, const int frames) {
    std::uniform_real_distribution<float> value(-500.0f, 1000.0f);
    std::vector<ImageF32> stack;
    for (int t = 0; t < frames; ++t) {
        ImageF32 f(w, h);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) f.at(x, y) = value(rng);
        f.at((3 * t) % w, (t / 2) % h) = NAN;  // missing measurements move through the stack
        stack.push_back(std::move(f));
    }
    return stack;
}

/// Where `got` differs from `gold` (bits, or NaN against NaN), or an empty string.
QString difference(const ImageF32& gold, const ImageF32& got) {
    if (gold.width() != got.width() || gold.height() != got.height())
        return QString("size %1x%2, expected %3x%4")
            .arg(got.width())
            .arg(got.height())
            .arg(gold.width())
            .arg(gold.height());
    for (int t = 0; t < gold.height(); ++t)
        for (int p = 0; p < gold.width(); ++p) {
            const float a = gold.row(t)[p], b = got.row(t)[p];
            const bool same = std::isnan(a) ? std::isnan(b) : std::memcmp(&a, &b, sizeof a) == 0;
            if (!same)
                return QString("frame %1 position %2: %3, the reference %4")
                    .arg(t)
                    .arg(p)
                    .arg(double(b), 0, 'g', 9)
                    .arg(double(a), 0, 'g', 9);
        }
    return {};
}

ImageF32 reference(const std::vector<ImageF32>& stack, const KymographParams& p) {
    const KymographPlan plan = plan_kymograph(stack[0].width(), stack[0].height(), p);
    ImageF32 out(plan.positions(), static_cast<int>(stack.size()));
    for (std::size_t t = 0; t < stack.size(); ++t)
        kymograph_row_reference(plan, stack[t].view(), out.row(static_cast<int>(t)));
    return out;
}

}  // namespace

class TestKymographCuda : public QObject {
    Q_OBJECT
    std::mt19937 rng_{36};

  private slots:
    void initTestCase() {
        if (select_backend(BackendRequest::Auto).backend != Backend::Cuda)
            QSKIP("no usable CUDA device");
    }

    void equals_the_reference() {
        const OwnedStream stream;
        struct Size {
            int w, h, frames;
        };
        int compared = 0;
        for (const Size s :
             {Size{53, 29, 37}, Size{1, 17, 5}, Size{31, 1, 4}, Size{257, 129, 3}, Size{2, 2, 9}}) {
            const std::vector<ImageF32> stack = random_stack(rng_, s.w, s.h, s.frames);
            const double W = s.w - 1, H = s.h - 1;
            const std::vector<std::vector<Point2>> paths = {
                {{0, H / 2}, {W, H / 2}},                                        // along a row
                {{-4.5, 3.25}, {W + 6.7, H + 2.1}},                              // leaves twice
                {{-4.5, 3.25}, {30.7, 20.1}, {60.2, 2.0}, {12.0, 27.9}},         // polyline
                {{W * 0.3, -7.0}, {W * 0.7, H + 9.0}, {W + 20.0, H * 0.5}},      // mostly outside
                {{0.25, 0.75}, {W + 0.5, 0.75}, {W + 0.5, H + 0.25}, {0.0, H}},  // the border
            };
            for (const Sampling sampling : {Sampling::Bilinear, Sampling::Nearest})
                for (const int band : {1, 2, 7, 33})
                    for (std::size_t k = 0; k < paths.size(); ++k) {
                        KymographParams p;
                        p.path = paths[k];
                        p.band_width = band;
                        p.sampling = sampling;
                        try {
                            (void)plan_kymograph(s.w, s.h, p);
                        } catch (const Error&) {
                            continue;  // a zero-length segment on a 1-pixel frame
                        }
                        const QString where =
                            QString("%1x%2x%3 path %4 band %5 %6: ")
                                .arg(s.w)
                                .arg(s.h)
                                .arg(s.frames)
                                .arg(k)
                                .arg(band)
                                .arg(sampling == Sampling::Nearest ? "nearest" : "bilinear");
                        const QString diff =
                            difference(reference(stack, p), kymograph_cuda(stack, p, stream.get()));
                        QVERIFY2(diff.isEmpty(), qPrintable(where + diff));
                        ++compared;
                    }
        }
        QVERIFY(compared > 150);
    }

    void per_frame_and_device_rows_equal_the_stack() {
        const OwnedStream stream;
        const std::vector<ImageF32> stack = random_stack(rng_, 97, 61, 6);
        KymographParams p;
        p.path = {{-3, 5}, {50.5, 40.25}, {96, 2}};
        p.band_width = 7;
        const ImageF32 gold = reference(stack, p);
        CudaKymograph k(plan_kymograph(97, 61, p), stream.get());

        ImageF32 per_frame(gold.width(), gold.height());
        for (int t = 0; t < gold.height(); ++t)
            k.row(stack[static_cast<std::size_t>(t)].view(), per_frame.row(t));
        QVERIFY2(difference(gold, per_frame).isEmpty(), qPrintable(difference(gold, per_frame)));

        // Frames stacked in one pitched device plane, rows into a device image: no host copy
        // between frames and kernel.
        DeviceImage<float> frames(97, 61 * 6, stream.get());
        ImageF32 tall(97, 61 * 6);
        for (int t = 0; t < 6; ++t)
            for (int y = 0; y < 61; ++y)
                std::memcpy(tall.row(t * 61 + y), stack[static_cast<std::size_t>(t)].row(y),
                            97 * sizeof(float));
        frames.upload(tall.view());
        DeviceImage<float> rows(gold.width(), 6, stream.get());
        k.rows(frames.device_view(), 6, rows.device_view());
        const ImageF32 device_rows = rows.download();
        QVERIFY2(difference(gold, device_rows).isEmpty(),
                 qPrintable(difference(gold, device_rows)));

        bool refused = false;
        try {
            k.rows(frames.device_view(), 5, rows.device_view());  // 5 frames are not 6 × 61 rows
        } catch (const Error& e) {
            refused = e.code() == ErrorCode::InvalidArgument;
        }
        QVERIFY(refused);
    }

    void replanned_paths_equal_fresh_ones() {
        // One kymograph re-planned through paths of growing and shrinking length, bands and
        // samplings (its plan block grows, then is reused): each equals the reference.
        const OwnedStream stream;
        const std::vector<ImageF32> stack = random_stack(rng_, 131, 77, 3);
        DeviceImage<float> frames(131, 77 * 3, stream.get());
        ImageF32 tall(131, 77 * 3);
        for (int t = 0; t < 3; ++t)
            for (int y = 0; y < 77; ++y)
                std::memcpy(tall.row(t * 77 + y), stack[static_cast<std::size_t>(t)].row(y),
                            131 * sizeof(float));
        frames.upload(tall.view());
        KymographParams first;
        first.path = {{2, 2}, {9, 4}};
        CudaKymograph k(plan_kymograph(131, 77, first), stream.get());
        const std::vector<std::vector<Point2>> paths = {
            {{-10, 5}, {140, 70}},
            {{3, 3}, {6, 7}},
            {{0, 76}, {60.5, 0.25}, {130, 76}, {20, 40.75}},
            {{50.25, 30.5}, {51.25, 30.5}},
            {{-20, -20}, {150, 100}, {-20, 100}}};
        int compared = 0;
        for (const auto& path : paths)
            for (const int band : {1, 4, 33})
                for (const Sampling sampling : {Sampling::Bilinear, Sampling::Nearest}) {
                    KymographParams p;
                    p.path = path;
                    p.band_width = band;
                    p.sampling = sampling;
                    const ImageF32 gold = reference(stack, p);
                    k.replan(plan_kymograph(131, 77, p));
                    QCOMPARE(k.plan().positions(), gold.width());
                    DeviceImage<float> rows(gold.width(), 3, stream.get());
                    k.rows(frames.device_view(), 3, rows.device_view());
                    const ImageF32 got = rows.download();
                    QVERIFY2(difference(gold, got).isEmpty(),
                             qPrintable(
                                 QString("path %1 band %2: ").arg(&path - paths.data()).arg(band) +
                                 difference(gold, got)));
                    ++compared;
                }
        QCOMPARE(compared, 30);
    }

    void region_profiler_equals_profile_region() {
        // A plane with NaNs, regions of each shape partly off the plane: the device profile is
        // profile_region's, bit for bit, and only the plan goes up and the values come back.
        const OwnedStream stream;
        const ImageF32 plane = std::move(random_stack(rng_, 203, 119, 1).front());
        CudaRegionProfiler profiler(stream.get());
        profiler.upload(plane.view());
        QCOMPARE(profiler.width(), 203);
        QCOMPARE(profiler.height(), 119);
        std::vector<ProfileRegion> regions(4);
        regions[0].points = {{-15.5, 10.25}, {150.75, 130.5}};
        regions[0].width = 9;
        regions[1].shape = RegionShape::Polyline;
        regions[1].points = {{5, 5}, {100.5, 118.75}, {210, 60}, {40, -3.5}};
        regions[1].width = 16;
        regions[2].shape = RegionShape::Rectangle;
        regions[2].x = 150;
        regions[2].y = 90;
        regions[2].width = 80;
        regions[2].height = 45;
        regions[3].points = {{20, 30}, {21, 30}};  // two positions
        RegionProfile got;
        for (int round = 0; round < 2; ++round)  // the second round refills grown buffers
            for (const ProfileRegion& r : regions) {
                const RegionProfile gold = profile_region(r, plane.view());
                const TransferStats before = transfer_stats();
                profiler.profile(r, got);
                const TransferStats moved = transfer_stats() - before;
                QCOMPARE(got.plan.positions(), gold.plan.positions());
                QVERIFY(got.plan.distance == gold.plan.distance);
                ImageF32 a(gold.plan.positions(), 1), b(gold.plan.positions(), 1);
                std::memcpy(a.row(0), gold.values.data(), gold.values.size() * sizeof(float));
                std::memcpy(b.row(0), got.values.data(), got.values.size() * sizeof(float));
                QVERIFY2(difference(a, b).isEmpty(), qPrintable(difference(a, b)));
                QCOMPARE(moved.download_bytes, std::uint64_t(gold.values.size() * sizeof(float)));
                QVERIFY(moved.upload_bytes <= gold.plan.segments.size() * sizeof(LineGeometry) +
                                                  gold.values.size() * 2 * sizeof(int) + 32);
            }
        QVERIFY(profiler.time_profile(regions[1], 3) > 0);
        // A path that cannot be planned is refused as on the host.
        ProfileRegion bad;
        bad.points = {{4, 4}, {4, 4}};
        QVERIFY_THROWS_EXCEPTION(Error, profiler.profile(bad, got));
        bool refused = false;
        try {
            CudaRegionProfiler none(nullptr);  // check-device-streams: allow
        } catch (const Error& e) {
            refused = e.code() == ErrorCode::InvalidArgument;
        }
        QVERIFY(refused);
    }

    void needs_a_stream() {
        KymographParams p;
        p.path = {{0, 0}, {5, 5}};
        bool refused = false;
        try {
            CudaKymograph k(plan_kymograph(8, 8, p), nullptr);  // check-device-streams: allow
        } catch (const Error& e) {
            refused = e.code() == ErrorCode::InvalidArgument;
        }
        QVERIFY(refused);
    }
};

QTEST_GUILESS_MAIN(TestKymographCuda)
#include "test_kymograph_cuda.moc"
