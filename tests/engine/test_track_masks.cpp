// Masks that follow the object (lacuna_video's MaskTracker): generated clips whose true mask is
// known on every frame — a textured square moving over a textured background, a disc that grows
// — tracked from key-frame masks along the flow, with and without GrabCut; corrections; refusals.
#include <lacuna/core/error.hpp>
#include <lacuna/core/mask.hpp>
#include <lacuna/ops/params.hpp>
#include <lacuna/video/track_masks.hpp>

#include "moving_object_clip.hpp"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

using namespace lacuna;
using namespace lacuna::video;

namespace {

using namespace lacuna::test_clips;

/// A textured disc in the middle whose radius grows from 10 by 1.5 px a frame (an ink blot
/// spreading: the texture stays, the outline moves outward).
Clip growing_disc(const int frames = 16) {
    return make_clip(
        frames,
        [](const int f, const int x, const int y) {
            const double r = 10 + 1.5 * f;
            return (x - 80) * (x - 80) + (y - 60) * (y - 60) <= r * r;
        },
        [](int) {
            return std::pair<int, int>{80, 60};
        });
}

/// Two shots: the moving square over the background for frames 0..9, then (a scene cut) the
/// square over another, brighter scene for frames 10..19, where it also keeps moving.
Clip clip_with_cut() {
    return square_with_cut(20, 10);
}

struct Scores {
    double mean = 0, worst = 1;
};

Scores score(const std::vector<Mask>& tracked, const std::vector<Mask>& truth) {
    Scores s;
    for (std::size_t f = 0; f < truth.size(); ++f) {
        const double q = mask_iou(tracked[f].view(), truth[f].view());
        s.mean += q / static_cast<double>(truth.size());
        s.worst = std::min(s.worst, q);
    }
    return s;
}

bool same(const Mask& a, const Mask& b) {
    for (int y = 0; y < a.height(); ++y)
        if (!std::equal(a.row(y), a.row(y) + a.width(), b.row(y))) return false;
    return true;
}

void expect_invalid(const std::function<void()>& call, const char* words) {
    try {
        call();
    } catch (const Error& e) {
        QCOMPARE(e.code(), ErrorCode::InvalidArgument);
        const std::string what = e.what();
        QVERIFY2(what.find(words) != std::string::npos, what.c_str());
        QVERIFY2(what.find('\n') == std::string::npos, what.c_str());
        return;
    }
    QFAIL("expected InvalidArgument");
}

}  // namespace

class TestTrackMasks : public QObject {
    Q_OBJECT

  private slots:
    /// A square moving 2 px a frame, painted on frame 0 only: every frame's tracked mask
    /// overlaps the true one by IoU ≥ 0.9, by flow alone and with GrabCut.
    void movingSquareIsFollowed() {
        const Clip clip = moving_square(20);
        const MaskTracker tracker(clip.frames);
        for (const bool grabcut : {false, true}) {
            MaskTrackParams p;
            p.grabcut = grabcut;
            MaskTrackStats stats;
            const std::vector<Mask> masks = tracker.track({{0, clip.truth[0]}}, p, &stats);
            QCOMPARE(masks.size(), clip.truth.size());
            QVERIFY(same(masks[0], clip.truth[0]));  // the key frame exactly as painted
            const Scores s = score(masks, clip.truth);
            qInfo("grabcut %d: mean IoU %.3f, worst %.3f", grabcut, s.mean, s.worst);
            QVERIFY2(s.worst >= 0.9, qPrintable(QString::number(s.worst)));
            QCOMPARE(stats.key_frames, 1);
            QCOMPARE(stats.refined_frames, grabcut ? 19 : 0);
        }
    }

    /// A key frame in the middle: frames before it are tracked backward as well as forward.
    void backwardFromALaterKey() {
        const Clip clip = moving_square(20);
        const std::vector<Mask> masks = track_masks(clip.frames, {{12, clip.truth[12]}}, {});
        const Scores s = score(masks, clip.truth);
        QVERIFY2(s.worst >= 0.9, qPrintable(QString::number(s.worst)));
    }

    /// A painted mask wider than the object (a user's margin of 3 px): the margin is kept on
    /// every tracked frame.
    void paintedMarginIsKept() {
        const Clip clip = moving_square(20);
        std::vector<Mask> wide;
        for (const Mask& m : clip.truth) wide.push_back(grow_mask(m.view(), 3));
        MaskTrackStats stats;
        const std::vector<Mask> masks = track_masks(clip.frames, {{0, wide[0]}}, {}, &stats);
        QCOMPARE(stats.margins.size(), std::size_t{1});  // one chain: forward from frame 0
        QVERIFY2(stats.margins[0] >= 2 && stats.margins[0] <= 4,
                 qPrintable(QString::number(stats.margins[0])));
        const Scores s = score(masks, wide);
        QVERIFY2(s.worst >= 0.9, qPrintable(QString::number(s.worst)));
    }

    /// A disc that grows 1.5 px a frame: GrabCut follows its outline, flow alone lags behind.
    void growingShapeIsFollowedBetterWithGrabCut() {
        const Clip clip = growing_disc();
        const MaskTracker tracker(clip.frames);
        MaskTrackParams flow_only;
        flow_only.grabcut = false;
        const Scores flow = score(tracker.track({{0, clip.truth[0]}}, flow_only), clip.truth);
        const Scores cut = score(tracker.track({{0, clip.truth[0]}}, {}), clip.truth);
        qInfo("growing disc: flow alone mean %.3f worst %.3f; GrabCut mean %.3f worst %.3f",
              flow.mean, flow.worst, cut.mean, cut.worst);
        QVERIFY(cut.mean > flow.mean + 0.1);
        QVERIFY(cut.worst > flow.worst + 0.2);
        QVERIFY2(cut.worst >= 0.85, qPrintable(QString::number(cut.worst)));
    }

    /// A correction on frame k (here: a mask shifted 6 px from the truth, as if the user had
    /// moved it) becomes a key frame: frames after k follow the correction, frames nearer the
    /// first key than k keep what they had.
    void correctionPropagatesFromItsFrame() {
        const Clip clip = moving_square(20);
        const MaskTracker tracker(clip.frames);
        MaskTrackParams p;
        p.grabcut = false;  // flow alone: the shifted correction is carried as it is
        const std::vector<Mask> before = tracker.track({{0, clip.truth[0]}}, p);
        constexpr int k = 10;
        Mask corrected(kW, kH, std::uint8_t{0});
        for (int y = 0; y < kH; ++y)
            for (int x = 6; x < kW; ++x) corrected.at(x, y) = clip.truth[k].at(x - 6, y);
        const std::vector<Mask> after = tracker.track({{0, clip.truth[0]}, {k, corrected}}, p);
        QVERIFY(same(after[k], corrected));
        for (int f = 0; f < 5; ++f)
            QVERIFY2(same(after[f], before[f]), qPrintable(QString::number(f)));
        for (int f = k + 1; f < 20; ++f) {
            QVERIFY2(!same(after[f], before[f]), qPrintable(QString::number(f)));
            // The correction's 6-px shift is carried along: the mask lies right of the truth.
            Mask shifted_truth(kW, kH, std::uint8_t{0});
            for (int y = 0; y < kH; ++y)
                for (int x = 6; x < kW; ++x) shifted_truth.at(x, y) = clip.truth[f].at(x - 6, y);
            QVERIFY2(mask_iou(after[f].view(), shifted_truth.view()) >= 0.9,
                     qPrintable(QString::number(f)));
        }
    }

    /// Between two keys every frame takes the nearer key's chain; the middle one both.
    void betweenTwoKeysTheNearerWins() {
        const Clip clip = moving_square(9);
        MaskTrackParams p;
        p.grabcut = false;
        const MaskTracker tracker(clip.frames);
        const std::vector<Mask> from0 = tracker.track({{0, clip.truth[0]}}, p);
        const std::vector<Mask> from8 = tracker.track({{8, clip.truth[8]}}, p);
        const std::vector<Mask> both = tracker.track({{0, clip.truth[0]}, {8, clip.truth[8]}}, p);
        for (int f = 1; f < 4; ++f) QVERIFY(same(both[f], from0[f]));
        for (int f = 5; f < 8; ++f) QVERIFY(same(both[f], from8[f]));
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x)
                QCOMPARE(both[4].at(x, y) != 0, from0[4].at(x, y) != 0 || from8[4].at(x, y) != 0);
    }

    /// A scene cut before frame 10: a key on frame 0 is carried to frame 9 and no further (the
    /// second shot has no mask until a key is painted in it); a key on frame 15 alone reaches
    /// back to frame 10, not into the first shot; with both, each shot follows its own key.
    void sceneCutStopsTheMask() {
        const Clip clip = clip_with_cut();
        const MaskTracker tracker(clip.frames);
        QCOMPARE(tracker.cuts(MaskTrackParams{}.cut_threshold), std::vector<int>{10});
        MaskTrackParams p;
        p.grabcut = false;
        MaskTrackStats stats;
        int last_done = 0, last_total = 0;
        const std::vector<Mask> from0 =
            tracker.track({{0, clip.truth[0]}}, p, &stats, [&](const MaskTrackProgress& pr) {
                last_done = pr.done;
                last_total = pr.total;
                return true;
            });
        QCOMPARE(stats.cuts, std::vector<int>{10});
        QCOMPARE(stats.empty_frames, 10);
        QCOMPARE(last_done, 20);  // every frame counted once, the empty ones too
        QCOMPARE(last_total, 20);
        for (int f = 0; f < 10; ++f)
            QVERIFY2(mask_iou(from0[f].view(), clip.truth[f].view()) >= 0.9,
                     qPrintable(QString::number(f)));
        for (int f = 10; f < 20; ++f)
            QVERIFY2(count_selected(from0[f].view()) == 0, qPrintable(QString::number(f)));

        const std::vector<Mask> from15 = tracker.track({{15, clip.truth[15]}}, p, &stats);
        QCOMPARE(stats.empty_frames, 10);
        for (int f = 0; f < 10; ++f) QCOMPARE(count_selected(from15[f].view()), std::int64_t{0});
        for (int f = 10; f < 20; ++f)
            QVERIFY2(mask_iou(from15[f].view(), clip.truth[f].view()) >= 0.9,
                     qPrintable(QString::number(f)));

        // Both keys: the midpoint rule applies within a shot only (frames 8 and 9, nearer the
        // middle 7 than frame 0, still take frame 0's chain: frame 15 is in another shot).
        const std::vector<Mask> both =
            tracker.track({{0, clip.truth[0]}, {15, clip.truth[15]}}, p, &stats);
        QCOMPARE(stats.empty_frames, 0);
        for (int f = 0; f < 10; ++f) QVERIFY(same(both[f], from0[f]));
        for (int f = 10; f < 20; ++f) QVERIFY(same(both[f], from15[f]));

        // A threshold above the change: one shot, the mask carried over the "cut".
        p.cut_threshold = 255;
        const std::vector<Mask> no_cut = tracker.track({{0, clip.truth[0]}}, p, &stats);
        QVERIFY(stats.cuts.empty());
        QVERIFY(count_selected(no_cut[12].view()) > 0);
        p.cut_threshold = -1;
        expect_invalid([&] { (void)tracker.track({{0, clip.truth[0]}}, p); }, "cut threshold");
    }

    void refusals() {
        const Clip clip = moving_square(4);
        const MaskTracker tracker(clip.frames);
        expect_invalid([&] { (void)tracker.track({}, {}); }, "no key-frame mask");
        expect_invalid(
            [&] {
                (void)tracker.track({{4, clip.truth[0]}}, {});
            },
            "key frame 4 is outside the clip's frames 0..3");
        expect_invalid([&] { (void)tracker.track({{-1, clip.truth[0]}}, {}); }, "outside");
        expect_invalid(
            [&] {
                (void)tracker.track({{1, Mask(10, 10, std::uint8_t{255})}}, {});
            },
            "the mask of key frame 1 is 10×10, the clip 160×120");
        expect_invalid(
            [&] {
                (void)tracker.track({{2, Mask(kW, kH, std::uint8_t{0})}}, {});
            },
            "the mask of key frame 2 selects no pixel");
        expect_invalid(
            [&] {
                (void)tracker.track({{1, clip.truth[1]}, {1, clip.truth[1]}}, {});
            },
            "key frame 1 is given twice");
        MaskTrackParams bad;
        bad.band = 0;
        expect_invalid(
            [&] {
                (void)tracker.track({{0, clip.truth[0]}}, bad);
            },
            "band must be from 1 to 64 pixels, not 0");
        expect_invalid([] { MaskTracker none({}); }, "no frames");
        expect_invalid(
            [&] {
                std::vector<ImageRgba8> mixed = clip.frames;
                mixed.push_back(ImageRgba8(8, 8));
                MaskTracker t(mixed);
            },
            "frame 4 is 8×8");
    }

    void cancelThrows() {
        const Clip clip = moving_square(4);
        const MaskTracker tracker(clip.frames);
        try {
            (void)tracker.track({{0, clip.truth[0]}}, {}, nullptr,
                                [](const MaskTrackProgress& p) { return p.done < 2; });
            QFAIL("expected Cancelled");
        } catch (const Error& e) {
            QCOMPARE(e.code(), ErrorCode::Cancelled);
        }
    }
};

QTEST_APPLESS_MAIN(TestTrackMasks)
#include "test_track_masks.moc"
