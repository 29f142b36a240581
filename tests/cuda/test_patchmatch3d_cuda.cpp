// The CUDA spatio-temporal PatchMatch against the fast CPU path (itself equal to the reference in
// test_patchmatch3d): the same field and the same filled voxels, exactly, over odd sizes, patch
// shapes, seeds and a volume deep enough for several pyramid levels.
#include <lacuna/core/backend.hpp>
#include <lacuna/core/error.hpp>
#include <lacuna/ops/patchmatch3d.hpp>

#include "../engine/patchmatch3d_test_util.hpp"

#include <QtTest>

using namespace lacuna;
using namespace lacuna::ops;
using lacuna::test::moving_scene;

class TestPatchMatch3dCuda : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() {
        if (select_backend(BackendRequest::Auto).backend != Backend::Cuda)
            QSKIP("no usable CUDA device");
    }

    void cuda_equals_cpu_data() {
        QTest::addColumn<int>("w");
        QTest::addColumn<int>("h");
        QTest::addColumn<int>("frames");
        QTest::addColumn<int>("patch");
        QTest::addColumn<int>("patch_frames");
        QTest::addColumn<int>("seed");
        QTest::addColumn<int>("speed");
        QTest::newRow("17x13x5, 5x5x3") << 17 << 13 << 5 << 5 << 3 << 1 << 1;
        QTest::newRow("23x19x7, 3x3x3, seed 7") << 23 << 19 << 7 << 3 << 3 << 7 << 2;
        QTest::newRow("41x29x9, 5x5x5, still") << 41 << 29 << 9 << 5 << 5 << 3 << 0;
        QTest::newRow("67x45x6, 7x7x1") << 67 << 45 << 6 << 7 << 1 << 11 << 1;
        QTest::newRow("203x117x12, 5x5x3 (levels)") << 203 << 117 << 12 << 5 << 3 << 5 << 2;
    }
    void cuda_equals_cpu() {
        QFETCH(int, w);
        QFETCH(int, h);
        QFETCH(int, frames);
        QFETCH(int, patch);
        QFETCH(int, patch_frames);
        QFETCH(int, seed);
        QFETCH(int, speed);
        const auto s = moving_scene(w, h, frames, w / 3, h / 3, w / 3, h / 3, speed);
        PatchMatch3dParams p;
        p.patch = patch;
        p.patch_frames = patch_frames;
        p.seed = static_cast<std::uint32_t>(seed);
        p.iterations = 3;
        p.margin = w > 100 ? -1 : 8;
        const PatchMatch3dResult cpu =
            patchmatch3d_fill(s.frames, s.holes, p, PatchMatch3dImplementation::Fast);
        const PatchMatch3dResult gpu =
            patchmatch3d_fill(s.frames, s.holes, p, PatchMatch3dImplementation::Cuda);
        QCOMPARE(gpu.levels, cpu.levels);
        QCOMPARE(gpu.nnf.size(), cpu.nnf.size());
        for (std::size_t i = 0; i < cpu.nnf.size(); ++i)
            if (gpu.nnf[i] != cpu.nnf[i])
                QFAIL(qPrintable(QString("field at %1: cuda %2, cpu %3")
                                     .arg(i)
                                     .arg(gpu.nnf[i])
                                     .arg(cpu.nnf[i])));
        for (std::size_t t = 0; t < cpu.frames.size(); ++t)
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    const Rgba8 a = cpu.frames[t].at(x, y), b = gpu.frames[t].at(x, y);
                    if (a.r != b.r || a.g != b.g || a.b != b.b || a.a != b.a)
                        QFAIL(
                            qPrintable(QString("frame %1 (%2, %3) differs").arg(t).arg(x).arg(y)));
                }
        if (w > 100) QVERIFY(cpu.levels >= 2);
    }
};

QTEST_APPLESS_MAIN(TestPatchMatch3dCuda)
#include "test_patchmatch3d_cuda.moc"
