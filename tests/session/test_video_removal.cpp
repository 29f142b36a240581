// The Video dock's object removal without widgets (app/session/video_removal.*): key masks on a
// generated clip whose true mask is known on every frame, tracked to every frame as a background
// job (flows kept, so a correction re-tracks without them), corrections, cancel, undo, a still
// mask, and Fill & Export equal to `lacuna inpaint CLIP OUT --mask-key F:MASK` byte for byte.
#include <video_removal.hpp>

#include "../engine/moving_object_clip.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/core/mask.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/io/video_io.hpp>
#include <lacuna/video/track_masks.hpp>

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

using namespace lacuna;
using namespace lacuna::session;

namespace {

using namespace lacuna::test_clips;

ImageRgba8 mask_image(const Mask& m) {
    ImageRgba8 image(m.width(), m.height());
    for (int y = 0; y < m.height(); ++y)
        for (int x = 0; x < m.width(); ++x) {
            const std::uint8_t v = m.at(x, y);
            image.at(x, y) = {v, v, v, 255};
        }
    return image;
}

bool equal(const Mask& a, const Mask& b) {
    if (a.width() != b.width() || a.height() != b.height()) return false;
    for (int y = 0; y < a.height(); ++y)
        if (!std::equal(a.row(y), a.row(y) + a.width(), b.row(y))) return false;
    return true;
}

/// The clip as a PNG sequence `dir/clip/%05d.png` (what the CLI and the editor both read).
std::filesystem::path write_clip(const QTemporaryDir& dir, const Clip& clip) {
    const std::filesystem::path folder = dir.filePath("clip").toStdString();
    std::filesystem::create_directories(folder);
    const std::filesystem::path pattern = folder / "%05d.png";
    for (std::size_t f = 0; f < clip.frames.size(); ++f)
        (void)io::write_image(io::sequence_frame_path(pattern, static_cast<int>(f)),
                              clip.frames[f].view());
    return pattern;
}

bool same_pixels(const ImageRgba8& a, const ImageRgba8& b) {
    if (a.width() != b.width() || a.height() != b.height()) return false;
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x)
            if (!(a.at(x, y) == b.at(x, y))) return false;
    return true;
}

/// The square of frame 6, shifted 4 px left: a "correction" that differs from what was tracked.
Mask corrected_key(const Clip& clip) {
    Mask m(kW, kH, std::uint8_t{0});
    for (int y = 0; y < kH; ++y)
        for (int x = 4; x < kW; ++x) m.at(x - 4, y) = clip.truth[6].at(x, y);
    return m;
}

void track(VideoRemoval& removal) {
    removal.start_track(video::MaskTrackParams{});
    removal.wait();
}

}  // namespace

class TestVideoRemoval : public QObject {
    Q_OBJECT
  private slots:
    /// One key frame, Track: a mask on every frame, each close to the truth (IoU ≥ 0.9), the
    /// key frame's exactly as painted, and the flows kept.
    void track_gives_every_frame() {
        const Clip clip = moving_square(10);
        QTemporaryDir dir;
        VideoRemoval removal(write_clip(dir, clip), 10, kW, kH);
        QVERIFY(removal.mask_at(3) == nullptr);
        removal.set_key(0, clip.truth[0]);
        QVERIFY(removal.needs_track());
        QVERIFY(removal.mask_at(3) == nullptr);
        track(removal);
        QVERIFY2(removal.message().rfind("Tracked 10 frames", 0) == 0, removal.message().c_str());
        QVERIFY(removal.has_flow());
        QVERIFY(!removal.needs_track());
        QCOMPARE(static_cast<int>(removal.tracked().size()), 10);
        QVERIFY(equal(*removal.mask_at(0), clip.truth[0]));
        for (int f = 0; f < 10; ++f) {
            const double iou = video::mask_iou(removal.mask_at(f)->view(), clip.truth[f].view());
            QVERIFY2(iou >= 0.9, qPrintable(QString("frame %1: IoU %2").arg(f).arg(iou)));
        }
    }

    /// A correction on frame 6 (a new key) re-tracks without new flow (the job's bar counts
    /// only the tracking) and changes the frames nearer to it, not frames 0–2. By flow alone:
    /// GrabCut would snap the shifted correction back onto the square.
    void correction_changes_later_frames() {
        const Clip clip = moving_square(10);
        QTemporaryDir dir;
        VideoRemoval removal(write_clip(dir, clip), 10, kW, kH);
        removal.set_key(0, clip.truth[0]);
        video::MaskTrackParams flow_only;
        flow_only.grabcut = false;
        removal.start_track(flow_only);
        removal.wait();
        std::vector<Mask> before;
        for (const Mask& m : removal.tracked()) before.push_back(clone(m.view()));
        const Mask key = corrected_key(clip);
        removal.set_key(6, key);
        QVERIFY(removal.needs_track());
        QCOMPARE(removal.key_frames(), (std::vector<int>{0, 6}));
        QVERIFY_THROWS_EXCEPTION(Error, removal.start_fill(dir.filePath("o/%05d.png").toStdString(),
                                                           video::VideoInpaintParams{}));
        const video::MaskTracker* flow = removal.flow();
        QVERIFY(flow != nullptr);
        removal.start_track(flow_only);
        QCOMPARE(removal.total(), 10);  // no decoding, no flow: they were kept
        removal.wait();
        QCOMPARE(removal.flow(), flow);
        QVERIFY(!removal.needs_track());
        QVERIFY(equal(*removal.mask_at(6), key));
        for (int f = 0; f <= 2; ++f) QVERIFY(equal(removal.tracked()[f], before[f]));
        for (int f = 4; f < 10; ++f)
            QVERIFY2(!equal(removal.tracked()[f], before[f]), qPrintable(QString::number(f)));
    }

    /// Cancelling a Track leaves the masks of the last one; a cancelled first Track leaves none.
    void cancel_leaves_previous_masks() {
        const Clip clip = moving_square(10);
        QTemporaryDir dir;
        VideoRemoval removal(write_clip(dir, clip), 10, kW, kH);
        removal.set_key(0, clip.truth[0]);
        removal.start_track(video::MaskTrackParams{});
        removal.cancel();
        removal.wait();
        QVERIFY2(removal.message().find("cancelled") != std::string::npos,
                 removal.message().c_str());
        QVERIFY(removal.tracked().empty());
        QVERIFY(removal.mask_at(4) == nullptr);
        track(removal);
        std::vector<Mask> before;
        for (const Mask& m : removal.tracked()) before.push_back(clone(m.view()));
        removal.set_key(6, corrected_key(clip));
        removal.start_track(video::MaskTrackParams{});
        removal.cancel();
        removal.wait();
        QVERIFY(removal.message().find("cancelled") != std::string::npos);
        QCOMPARE(removal.tracked().size(), before.size());
        for (std::size_t f = 0; f < before.size(); ++f)
            QVERIFY(equal(removal.tracked()[f], before[f]));
        QVERIFY(removal.needs_track());
    }

    /// Key edits undo one at a time, on whichever frame; an empty mask removes the key.
    void undo_key_edits() {
        const Clip clip = moving_square(4);
        QTemporaryDir dir;
        VideoRemoval removal(write_clip(dir, clip), 4, kW, kH);
        removal.set_key(1, clip.truth[1]);
        removal.set_key(1, clip.truth[2]);
        removal.set_key(3, clip.truth[3]);
        removal.set_key(3, Mask(kW, kH, std::uint8_t{0}));
        QCOMPARE(removal.key_frames(), (std::vector<int>{1}));
        QVERIFY(equal(*removal.mask_at(1), clip.truth[2]));
        QCOMPARE(removal.undo_frame(), 3);
        QVERIFY(removal.undo());
        QVERIFY(equal(*removal.mask_at(3), clip.truth[3]));
        QVERIFY(removal.undo());
        QCOMPARE(removal.key_frames(), (std::vector<int>{1}));
        QVERIFY(removal.undo());
        QVERIFY(equal(*removal.mask_at(1), clip.truth[1]));
        QVERIFY(removal.undo());
        QVERIFY(removal.key_frames().empty());
        QVERIFY(!removal.undo());
        QVERIFY_THROWS_EXCEPTION(Error, removal.set_key(4, clip.truth[0]));
        QVERIFY_THROWS_EXCEPTION(Error, removal.set_key(0, Mask(8, 8, std::uint8_t{255})));
        QVERIFY_THROWS_EXCEPTION(Error, removal.start_track(video::MaskTrackParams{}));
    }

    /// Fill & Export with the tracked masks writes exactly what `lacuna inpaint CLIP OUT
    /// --mask-key 0:K0 --mask-key 6:K6 --grow 2` writes (PNG sequences, byte for byte); the
    /// clip itself is refused as the output.
    void fill_equals_cli() {
        const Clip clip = moving_square(10);
        QTemporaryDir dir;
        const std::filesystem::path pattern = write_clip(dir, clip);
        VideoRemoval removal(pattern, 10, kW, kH);
        removal.set_key(0, clip.truth[0]);
        removal.set_key(6, corrected_key(clip));
        track(removal);
        video::VideoInpaintParams params;
        params.implementation = ops::InpaintImplementation::Fast;
        params.fill.mask_grow = 2;
        QVERIFY_THROWS_EXCEPTION(Error, removal.start_fill(pattern, params));
        QVERIFY(QDir().mkpath(dir.filePath("editor")));
        removal.start_fill(dir.filePath("editor/%05d.png").toStdString(), params);
        QVERIFY(removal.filling());
        removal.wait();
        QVERIFY2(removal.fill_result().has_value(), removal.message().c_str());
        QCOMPARE(removal.fill_result()->frames, 10);

        (void)io::write_image(dir.filePath("k0.png").toStdString(),
                              mask_image(clip.truth[0]).view());
        (void)io::write_image(dir.filePath("k6.png").toStdString(),
                              mask_image(corrected_key(clip)).view());
        QVERIFY(QDir().mkpath(dir.filePath("cli")));
        QProcess cli;
        cli.start(LACUNA_CLI_PATH,
                  {"inpaint", QString::fromStdString(pattern.string()),
                   dir.filePath("cli/%05d.png"), "--mask-key", "0:" + dir.filePath("k0.png"),
                   "--mask-key", "6:" + dir.filePath("k6.png"), "--grow", "2"});
        QVERIFY(cli.waitForFinished(120000));
        QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
        for (int f = 0; f < 10; ++f) {
            const QString name = QString("%1.png").arg(f, 5, 10, QChar('0'));
            QFile a(dir.filePath("editor/" + name)), b(dir.filePath("cli/" + name));
            QVERIFY(a.open(QIODevice::ReadOnly));
            QVERIFY(b.open(QIODevice::ReadOnly));
            QVERIFY2(a.readAll() == b.readAll(), qPrintable(name));
        }
        // The fill changed the frames where the object was.
        const ImageRgba8 out = io::read_image(dir.filePath("editor/00005.png").toStdString()).image;
        QVERIFY(out.at(45, 60) != clip.frames[5].at(45, 60) ||
                out.at(50, 55) != clip.frames[5].at(50, 55));
    }

    /// Cancelling Fill & Export writes nothing (and leaves no mask files behind).
    void cancelled_fill_writes_nothing() {
        const Clip clip = moving_square(10);
        QTemporaryDir dir;
        VideoRemoval removal(write_clip(dir, clip), 10, kW, kH);
        removal.set_still(true);
        removal.set_key(0, clip.truth[0]);
        QVERIFY(QDir().mkpath(dir.filePath("out")));
        const QStringList temporary_before =
            QDir(QDir::tempPath()).entryList({"lacuna-video-masks-*"}, QDir::Dirs);
        removal.start_fill(dir.filePath("out/%05d.png").toStdString(), video::VideoInpaintParams{});
        removal.cancel();
        removal.wait();
        QVERIFY2(removal.message() == "Fill cancelled: nothing was written.",
                 removal.message().c_str());
        QVERIFY(!removal.fill_result().has_value());
        QVERIFY(QDir(dir.filePath("out")).isEmpty());
        QCOMPARE(QDir(QDir::tempPath()).entryList({"lacuna-video-masks-*"}, QDir::Dirs),
                 temporary_before);
    }

    /// The repository's real clip, tree.avi (a truncated file: 68 of the 444 frames it
    /// announces): a box on frame 0 tracked by flow alone to every frame that decodes, and
    /// filled; outside the grown masks the frames are as decoded.
    void real_truncated_clip() {
        const std::filesystem::path clip = LACUNA_SOURCE_DIR "/tests/data/video/tree.avi";
        VideoRemoval removal(clip, 444, 320, 240);
        Mask key(320, 240, std::uint8_t{0});
        for (int y = 20; y < 60; ++y)
            for (int x = 240; x < 300; ++x) key.at(x, y) = 255;
        removal.set_key(0, key);
        video::MaskTrackParams flow_only;
        flow_only.grabcut = false;
        removal.start_track(flow_only);
        removal.wait();
        QVERIFY2(removal.message() == "Tracked 68 frames from 1 key frame(s).",
                 removal.message().c_str());
        QCOMPARE(removal.frames(), 68);
        QTemporaryDir dir;
        QVERIFY(QDir().mkpath(dir.filePath("out")));
        video::VideoInpaintParams params;
        params.implementation = ops::InpaintImplementation::Fast;
        removal.start_fill(dir.filePath("out/%05d.png").toStdString(), params);
        removal.wait();
        QVERIFY2(removal.fill_result().has_value(), removal.message().c_str());
        QCOMPARE(removal.fill_result()->frames, 68);
        QVERIFY2(removal.message().find("444") != std::string::npos, removal.message().c_str());
        io::VideoReader reader(clip);
        for (int f = 0; f < 68; ++f) {
            const ImageRgba8 in = *reader.next();
            const ImageRgba8 out =
                io::read_image(
                    io::sequence_frame_path(dir.filePath("out/%05d.png").toStdString(), f))
                    .image;
            const Mask& m = removal.tracked()[static_cast<std::size_t>(f)];
            for (int y = 0; y < 240; y += 3)
                for (int x = 0; x < 320; x += 3)
                    if (m.at(x, y) == 0) QVERIFY(out.at(x, y) == in.at(x, y));
        }
    }

    /// The preview of a frame is its whole shot (cut to cut) filled exactly as Fill & Export
    /// fills it: with a cut before frame 6 and keys on 0 and 8, the preview of frame 3 holds
    /// frames 0–5 and that of frame 9 frames 6–11, each byte for byte the exported frame. The
    /// tracked masks stop at the cut (the key on 8 reaches back to 6, not further).
    void preview_equals_export() {
        const Clip clip = square_with_cut(12, 6);
        QTemporaryDir dir;
        VideoRemoval removal(write_clip(dir, clip), 12, kW, kH);
        removal.set_key(0, clip.truth[0]);
        removal.set_key(8, clip.truth[8]);
        video::MaskTrackParams flow_only;
        flow_only.grabcut = false;
        removal.start_track(flow_only);
        removal.wait();
        QCOMPARE(removal.cuts(), std::vector<int>{6});
        QVERIFY2(removal.message().find("Scene cut(s) before frame(s) 7") != std::string::npos,
                 removal.message().c_str());
        for (int f = 0; f < 12; ++f)
            QVERIFY2(video::mask_iou(removal.mask_at(f)->view(), clip.truth[f].view()) >= 0.9,
                     qPrintable(QString::number(f)));
        video::VideoInpaintParams params;
        params.implementation = ops::InpaintImplementation::Fast;
        params.fill.mask_grow = 2;
        QVERIFY_THROWS_EXCEPTION(Error, removal.start_preview(12, params));
        removal.start_preview(3, params);
        QVERIFY(removal.previewing());
        removal.wait();
        QVERIFY2(removal.message().find("Preview of frames 1–6") == 0, removal.message().c_str());
        QCOMPARE(removal.preview_shot(), (std::pair<int, int>{0, 6}));
        std::vector<ImageRgba8> preview;
        for (int f = 0; f < 6; ++f) {
            QVERIFY(removal.preview_at(f, params) != nullptr);
            preview.push_back(clone(removal.preview_at(f, params)->view()));
        }
        QVERIFY(removal.preview_at(6, params) == nullptr);
        video::VideoInpaintParams other = params;
        other.fill.mask_grow = 3;
        QVERIFY(removal.preview_at(3, other) == nullptr);  // other settings: not this preview
        removal.start_preview(9, params);
        removal.wait();
        QCOMPARE(removal.preview_shot(), (std::pair<int, int>{6, 12}));
        for (int f = 6; f < 12; ++f)
            preview.push_back(clone(removal.preview_at(f, params)->view()));

        QVERIFY(QDir().mkpath(dir.filePath("out")));
        removal.start_fill(dir.filePath("out/%05d.png").toStdString(), params);
        removal.wait();
        QVERIFY2(removal.fill_result().has_value(), removal.message().c_str());
        QCOMPARE(removal.fill_result()->stats.cuts, 1);
        for (int f = 0; f < 12; ++f) {
            const ImageRgba8 out =
                io::read_image(
                    io::sequence_frame_path(dir.filePath("out/%05d.png").toStdString(), f))
                    .image;
            QVERIFY2(same_pixels(preview[static_cast<std::size_t>(f)], out),
                     qPrintable(QString("frame %1").arg(f)));
        }
        // The square is gone in the preview (its red is not left).
        const Rgba8 c = preview[3].at(20 + 2 * 3 + 15, 40 + 1 + 15);
        QVERIFY2(c.r < 170, qPrintable(QString::number(c.r)));
        // A key edit makes the preview stale: it is no longer offered.
        removal.set_key(2, clip.truth[2]);
        QVERIFY(removal.preview_at(3, params) == nullptr);
    }

    /// A range: Track, Preview and Fill & Export process frames 3–8 only; a key outside it is
    /// not used; the export holds the range's six frames, each the preview's.
    void range_limits_every_job() {
        const Clip clip = moving_square(12);
        QTemporaryDir dir;
        VideoRemoval removal(write_clip(dir, clip), 12, kW, kH);
        QVERIFY_THROWS_EXCEPTION(Error, removal.set_range(5, 5));
        QVERIFY_THROWS_EXCEPTION(Error, removal.set_range(-1, 4));
        QVERIFY_THROWS_EXCEPTION(Error, removal.set_range(0, 13));
        removal.set_key(0, clip.truth[0]);
        removal.set_range(3, 9);
        QCOMPARE(removal.range_first(), 3);
        QCOMPARE(removal.range_end(), 9);
        QVERIFY_THROWS_EXCEPTION(Error, removal.start_track(video::MaskTrackParams{}));
        removal.set_key(4, clip.truth[4]);
        QCOMPARE(removal.keys_in_range(), std::vector<int>{4});
        video::MaskTrackParams flow_only;
        flow_only.grabcut = false;
        removal.start_track(flow_only);
        QCOMPARE(removal.total(), 3 * 6 - 1);  // decoding, flow and tracking of 6 frames
        removal.wait();
        QVERIFY2(removal.message().rfind("Tracked 6 frames from 1 key frame(s).", 0) == 0,
                 removal.message().c_str());
        QCOMPARE(removal.tracked_first(), 3);
        QVERIFY(removal.mask_at(2) == nullptr);
        QVERIFY(removal.mask_at(9) == nullptr);
        for (int f = 3; f < 9; ++f)
            QVERIFY2(video::mask_iou(removal.mask_at(f)->view(), clip.truth[f].view()) >= 0.9,
                     qPrintable(QString::number(f)));
        video::VideoInpaintParams params;
        params.implementation = ops::InpaintImplementation::Fast;
        QVERIFY_THROWS_EXCEPTION(Error, removal.start_preview(2, params));
        removal.start_preview(5, params);
        removal.wait();
        QCOMPARE(removal.preview_shot(), (std::pair<int, int>{3, 9}));
        QVERIFY(QDir().mkpath(dir.filePath("out")));
        removal.start_fill(dir.filePath("out/%05d.png").toStdString(), params);
        removal.wait();
        QVERIFY2(removal.fill_result().has_value(), removal.message().c_str());
        QCOMPARE(removal.fill_result()->frames, 6);
        QCOMPARE(QDir(dir.filePath("out")).entryList(QDir::Files).size(), 6);
        for (int f = 3; f < 9; ++f) {
            const ImageRgba8 out =
                io::read_image(
                    io::sequence_frame_path(dir.filePath("out/%05d.png").toStdString(), f - 3))
                    .image;
            QVERIFY2(same_pixels(*removal.preview_at(f, params), out),
                     qPrintable(QString("frame %1").arg(f)));
        }
        // Another range: the masks are out of date (track again), the preview is not offered.
        removal.set_range(0, 12);
        QVERIFY(removal.needs_track());
        QVERIFY(removal.preview_at(5, params) == nullptr);
        QVERIFY_THROWS_EXCEPTION(
            Error, removal.start_fill(dir.filePath("o2/%05d.png").toStdString(), params));
    }

    /// A still mask: the first key's mask on every frame, no tracking, filled as one still
    /// image (the CLI's MASK argument).
    void still_mask_on_every_frame() {
        const Clip clip = moving_square(4);
        QTemporaryDir dir;
        VideoRemoval removal(write_clip(dir, clip), 4, kW, kH);
        removal.set_still(true);
        QVERIFY_THROWS_EXCEPTION(Error, removal.start_fill(dir.filePath("o/%05d.png").toStdString(),
                                                           video::VideoInpaintParams{}));
        removal.set_key(2, clip.truth[2]);
        QVERIFY(!removal.needs_track());
        QVERIFY_THROWS_EXCEPTION(Error, removal.start_track(video::MaskTrackParams{}));
        for (int f = 0; f < 4; ++f) QVERIFY(equal(*removal.mask_at(f), clip.truth[2]));
        QVERIFY(QDir().mkpath(dir.filePath("o")));
        removal.start_fill(dir.filePath("o/%05d.png").toStdString(), video::VideoInpaintParams{});
        removal.wait();
        QVERIFY2(removal.fill_result().has_value(), removal.message().c_str());
        QCOMPARE(removal.fill_result()->frames, 4);
        QCOMPARE(removal.fill_result()->mask_pixels_min, std::int64_t{900});
    }
};

QTEST_GUILESS_MAIN(TestVideoRemoval)
#include "test_video_removal.moc"
