// The spatio-temporal PatchMatch (ops::patchmatch3d_fill): the reference fills a moving texture's
// hole, which no frame shows, consistently in time (less frame-to-frame change along the motion
// than the per-frame image fill); the fast CPU path makes exactly the reference's decisions (the
// field and the voxels) over odd sizes; pixels outside the hole are untouched; bad input and
// cancelling are refused with one sentence.
#include <lacuna/core/error.hpp>
#include <lacuna/ops/inpaint.hpp>
#include <lacuna/ops/patchmatch3d.hpp>

#include "patchmatch3d_test_util.hpp"

#include <QtTest>

#include <cstdlib>

using namespace lacuna;
using namespace lacuna::ops;
using lacuna::test::moving_scene;

namespace {

/// Mean |change| of the hole's pixels from frame t to t + 1 along the motion (the pixel `speed`
/// px to the right), over the RGB channels.
double flicker_along_motion(const std::vector<ImageRgba8>& frames, const std::vector<Mask>& holes,
                            const int speed) {
    double sum = 0;
    long long n = 0;
    for (std::size_t t = 0; t + 1 < frames.size(); ++t)
        for (int y = 0; y < frames[t].height(); ++y)
            for (int x = 0; x + speed < frames[t].width(); ++x) {
                if (!holes[t].at(x, y)) continue;
                const Rgba8 a = frames[t].at(x, y), b = frames[t + 1].at(x + speed, y);
                sum += std::abs(a.r - b.r) + std::abs(a.g - b.g) + std::abs(a.b - b.b);
                n += 3;
            }
    return n ? sum / n : 0;
}

bool untouched_outside(const std::vector<ImageRgba8>& in, const std::vector<ImageRgba8>& out,
                       const std::vector<Mask>& holes) {
    for (std::size_t t = 0; t < in.size(); ++t)
        for (int y = 0; y < in[t].height(); ++y)
            for (int x = 0; x < in[t].width(); ++x) {
                const Rgba8 a = in[t].at(x, y), b = out[t].at(x, y);
                if (a.a != b.a) return false;
                if (!holes[t].at(x, y) && (a.r != b.r || a.g != b.g || a.b != b.b)) return false;
            }
    return true;
}

QString first_difference(const PatchMatch3dResult& a, const PatchMatch3dResult& b) {
    if (a.nnf.size() != b.nnf.size()) return "field sizes differ";
    if (a.levels != b.levels) return "levels differ";
    for (std::size_t i = 0; i < a.nnf.size(); ++i)
        if (a.nnf[i] != b.nnf[i])
            return QString("field at %1: %2 against %3").arg(i).arg(a.nnf[i]).arg(b.nnf[i]);
    for (std::size_t t = 0; t < a.frames.size(); ++t)
        for (int y = 0; y < a.frames[t].height(); ++y)
            for (int x = 0; x < a.frames[t].width(); ++x) {
                const Rgba8 p = a.frames[t].at(x, y), q = b.frames[t].at(x, y);
                if (p.r != q.r || p.g != q.g || p.b != q.b || p.a != q.a)
                    return QString("frame %1 (%2, %3) differs").arg(t).arg(x).arg(y);
            }
    return {};
}

}  // namespace

class TestPatchMatch3d : public QObject {
    Q_OBJECT

  private slots:
    void fast_equals_reference_data() {
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
        QTest::newRow("67x45x6, 7x7x1 (levels)") << 67 << 45 << 6 << 7 << 1 << 11 << 1;
    }
    void fast_equals_reference() {
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
        p.margin = 8;
        const PatchMatch3dResult ref =
            patchmatch3d_fill(s.frames, s.holes, p, PatchMatch3dImplementation::Reference);
        const PatchMatch3dResult fast =
            patchmatch3d_fill(s.frames, s.holes, p, PatchMatch3dImplementation::Fast);
        QVERIFY2(first_difference(ref, fast).isEmpty(), qPrintable(first_difference(ref, fast)));
        QVERIFY(untouched_outside(s.frames, ref.frames, s.holes));
        // Every target has a source, every hole voxel changed from its input colour somewhere.
        long long defined = 0;
        for (const std::int32_t q : ref.nnf) defined += q >= 0 ? 1 : 0;
        QVERIFY(defined > 0);
        if (w >= 67) QVERIFY2(ref.levels >= 2, qPrintable(QString::number(ref.levels)));
    }

    void consistent_in_time_where_no_frame_shows_the_hole() {
        // A texture moving 1 px a frame; a 14 × 12 hole moving with it: what it hides is never
        // seen. The per-frame image fill invents it anew on every frame.
        const int speed = 1;
        const auto s = moving_scene(96, 64, 10, 40, 26, 14, 12, speed);
        PatchMatch3dParams p;
        const PatchMatch3dResult r =
            patchmatch3d_fill(s.frames, s.holes, p, PatchMatch3dImplementation::Reference);
        QVERIFY(untouched_outside(s.frames, r.frames, s.holes));
        std::vector<ImageRgba8> per_frame;
        for (std::size_t t = 0; t < s.frames.size(); ++t) {
            InpaintParams ip;
            per_frame.push_back(
                inpaint(s.frames[t].view(), s.holes[t], ip, InpaintImplementation::Fast).image);
        }
        const double ours = flicker_along_motion(r.frames, s.holes, speed);
        const double theirs = flicker_along_motion(per_frame, s.holes, speed);
        qInfo("flicker along the motion in the hole: 3-D %.2f, per-frame image fill %.2f", ours,
              theirs);
        QVERIFY2(ours < 0.5 * theirs, qPrintable(QString("%1 vs %2").arg(ours).arg(theirs)));
        // The fill is the texture's: its mean brightness within 25 levels of the truth's.
        long long diff = 0, n = 0;
        for (std::size_t t = 0; t < s.frames.size(); ++t)
            for (int y = 0; y < 64; ++y)
                for (int x = 0; x < 96; ++x)
                    if (s.holes[t].at(x, y)) {
                        diff += r.frames[t].at(x, y).r - s.frames[t].at(x, y).r;
                        ++n;
                    }
        QVERIFY(std::abs(static_cast<double>(diff) / n) < 25);
    }

    void empty_hole_returns_the_frames() {
        auto s = moving_scene(20, 16, 4, 0, 0, 0, 0, 1);
        const PatchMatch3dResult r =
            patchmatch3d_fill(s.frames, s.holes, {}, PatchMatch3dImplementation::Fast);
        QVERIFY(untouched_outside(s.frames, r.frames, s.holes));
        QCOMPARE(r.levels, 0);
    }

    void bad_input_is_refused() {
        const auto s = moving_scene(24, 20, 4, 8, 8, 5, 4, 1);
        const auto refused = [&](const std::vector<ImageRgba8>& f, const std::vector<Mask>& m,
                                 const PatchMatch3dParams& p) {
            try {
                patchmatch3d_fill(f, m, p, PatchMatch3dImplementation::Fast);
            } catch (const Error& e) {
                return e.code() == ErrorCode::InvalidArgument;
            }
            return false;
        };
        PatchMatch3dParams even;
        even.patch = 4;
        QVERIFY(refused(s.frames, s.holes, even));
        PatchMatch3dParams deep;
        deep.patch_frames = 5;  // 4 frames
        QVERIFY(refused(s.frames, s.holes, deep));
        QVERIFY(refused({}, {}, {}));
        QVERIFY(refused(s.frames, {s.holes[0]}, {}));
        // A hole over everything leaves no source.
        std::vector<Mask> all;
        for (int t = 0; t < 4; ++t) all.emplace_back(24, 20, std::uint8_t{255});
        QVERIFY(refused(s.frames, all, {}));
    }

    void cancel_stops() {
        const auto s = moving_scene(40, 30, 5, 15, 10, 8, 8, 1);
        int calls = 0;
        try {
            patchmatch3d_fill(s.frames, s.holes, {}, PatchMatch3dImplementation::Fast,
                              [&] { return ++calls < 2; });
            QFAIL("not cancelled");
        } catch (const Error& e) {
            QCOMPARE(e.code(), ErrorCode::Cancelled);
        }
        QCOMPARE(calls, 2);
    }
};

QTEST_APPLESS_MAIN(TestPatchMatch3d)
#include "test_patchmatch3d.moc"
