// Video object removal: the flow-guided fill (lacuna_video) and `lacuna inpaint` on clips.
// The clip is a pan over a repository photo by whole pixels (so the truth is the photo itself),
// with a still sticker whose hidden pixels every other frame shows.
#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/io/video_io.hpp>
#include <lacuna/video/inpaint_video.hpp>

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

using namespace lacuna;
namespace fs = std::filesystem;

namespace {

constexpr int kW = 160, kH = 96, kFrames = 20, kPan = 3;
const std::string kPhoto = LACUNA_SOURCE_DIR "/tests/data/photos/building.jpg";

struct Clip {
    std::vector<ImageRgba8> truth, input;
    Mask mask;
};

/// Frame f is the photo's window at (20 + pan f, 60): the camera pans right by whole pixels. A
/// saturated red card (the sticker) covers a 30 × 24 box in the middle of every frame.
Clip make_clip(const int frames = kFrames, const int pan = kPan) {
    const ImageRgba8 photo = io::read_image(kPhoto).image;
    Clip c;
    c.mask = Mask(kW, kH, std::uint8_t{0});
    for (int y = 36; y < 60; ++y)
        for (int x = 65; x < 95; ++x) c.mask.at(x, y) = 255;
    for (int f = 0; f < frames; ++f) {
        ImageRgba8 t(kW, kH);
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x) t.at(x, y) = photo.at(20 + pan * f + x, 60 + y);
        ImageRgba8 in = t;
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x)
                if (c.mask.at(x, y)) in.at(x, y) = Rgba8{230, 30, 30, 255};
        c.truth.push_back(std::move(t));
        c.input.push_back(std::move(in));
    }
    return c;
}

double hole_mean_error(const ImageRgba8& a, const ImageRgba8& b, const Mask& mask) {
    double sum = 0;
    int n = 0;
    for (int y = 0; y < mask.height(); ++y)
        for (int x = 0; x < mask.width(); ++x) {
            if (!mask.at(x, y)) continue;
            const Rgba8 p = a.at(x, y), q = b.at(x, y);
            sum += (std::abs(p.r - q.r) + std::abs(p.g - q.g) + std::abs(p.b - q.b)) / 3.0;
            ++n;
        }
    return n ? sum / n : 0;
}

/// Number of pixels outside the mask whose bytes differ.
int changed_outside(const ImageRgba8& a, const ImageRgba8& b, const Mask& mask) {
    int n = 0;
    for (int y = 0; y < mask.height(); ++y)
        for (int x = 0; x < mask.width(); ++x) {
            const Rgba8 p = a.at(x, y), q = b.at(x, y);
            if (!mask.at(x, y) && (p.r != q.r || p.g != q.g || p.b != q.b)) ++n;
        }
    return n;
}

ImageRgba8 mask_picture(const Mask& m) {
    ImageRgba8 out(m.width(), m.height());
    for (int y = 0; y < m.height(); ++y)
        for (int x = 0; x < m.width(); ++x) {
            const std::uint8_t v = m.at(x, y) ? 255 : 0;
            out.at(x, y) = Rgba8{v, v, v, 255};
        }
    return out;
}

void write_sequence(const fs::path& pattern, const std::vector<ImageRgba8>& frames) {
    io::VideoWriter w(pattern, frames[0].width(), frames[0].height(), 25.0);
    for (const ImageRgba8& f : frames) w.write(f);
    w.finish();
}

std::vector<ImageRgba8> read_sequence(const fs::path& pattern) {
    io::VideoReader r(pattern);
    std::vector<ImageRgba8> frames;
    while (auto f = r.next()) frames.push_back(std::move(*f));
    return frames;
}

/// A still camera on the photo and a 24 × 24 card of red and orange checks moving 4 px right and
/// 1 px down a frame: `truth` without the card, `masks` the card grown by 2 px (drawn a little
/// wider, as a user would).
struct MovingClip {
    std::vector<ImageRgba8> truth, input;
    std::vector<Mask> masks;
};

MovingClip make_moving_clip(const int frames = 12) {
    const ImageRgba8 photo = io::read_image(kPhoto).image;
    MovingClip c;
    for (int f = 0; f < frames; ++f) {
        ImageRgba8 t(kW, kH);
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x) t.at(x, y) = photo.at(20 + x, 60 + y);
        ImageRgba8 in = t;
        Mask card(kW, kH, std::uint8_t{0});
        const int x0 = 30 + 4 * f, y0 = 30 + f;
        for (int y = y0; y < y0 + 24; ++y)
            for (int x = x0; x < x0 + 24; ++x) {
                const bool check = ((x - x0) / 4 + (y - y0) / 4) % 2 == 0;
                in.at(x, y) = check ? Rgba8{230, 30, 30, 255} : Rgba8{250, 140, 20, 255};
                card.at(x, y) = 255;
            }
        c.truth.push_back(std::move(t));
        c.input.push_back(std::move(in));
        c.masks.push_back(grow_mask(card.view(), 2));
    }
    return c;
}

double iou(const Mask& a, const Mask& b) {
    int both = 0, either = 0;
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x) {
            both += a.at(x, y) && b.at(x, y);
            either += a.at(x, y) || b.at(x, y);
        }
    return either ? static_cast<double>(both) / either : 1.0;
}

struct Result {
    int status = -1;
    QString err;
    QString out;
};

Result run_cli(const QStringList& args) {
    QProcess p;
    p.start(LACUNA_CLI_PATH, QStringList{"inpaint"} + args);
    if (!p.waitForFinished(300000)) return {};
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2,
            QString::fromUtf8(p.readAllStandardError()),
            QString::fromUtf8(p.readAllStandardOutput())};
}

void verify_one_error_line(const Result& r, const QString& must_contain) {
    QVERIFY(r.status != 0);
    const QStringList lines = r.err.split('\n', Qt::SkipEmptyParts);
    QVERIFY2(lines.size() == 1, qPrintable(r.err));
    QVERIFY2(lines[0].startsWith("lacuna: "), qPrintable(lines[0]));
    QVERIFY2(lines[0].contains(must_contain), qPrintable(lines[0]));
}

bool folder_empty(const fs::path& dir) {
    return fs::is_empty(dir);
}

}  // namespace

class TestVideoInpaint : public QObject {
    Q_OBJECT

  private slots:
    // Every hidden pixel is visible in other frames: the fill brings it in along the flow, to
    // within 2 levels on average of the truth in every frame (bilinear sampling at the flow's
    // sub-pixel error), and nothing is invented.
    void pan_with_a_still_mask_is_restored_from_other_frames() {
        const Clip c = make_clip();
        video::VideoInpaintStats stats;
        const std::vector<ImageRgba8> out =
            video::inpaint_frames(c.input, {c.mask}, video::VideoInpaintParams{}, &stats);
        QCOMPARE(static_cast<int>(out.size()), kFrames);
        QCOMPARE(stats.from_other_frames, stats.hole_pixels);
        QCOMPARE(stats.key_fills, 0);
        double worst = 0;
        for (int f = 0; f < kFrames; ++f) {
            QCOMPARE(changed_outside(out[f], c.input[f], c.mask), 0);
            worst = std::max(worst, hole_mean_error(out[f], c.truth[f], c.mask));
        }
        qInfo("worst frame's mean |error| in the hole: %.2f levels", worst);
        QVERIFY2(worst <= 2.0, qPrintable(QString::number(worst)));
        // Per-frame image filling cannot know the hidden pixels: it is far off.
        video::VideoInpaintParams per_frame;
        per_frame.propagate = false;
        const std::vector<ImageRgba8> alone = video::inpaint_frames(c.input, {c.mask}, per_frame);
        QVERIFY(hole_mean_error(alone[kFrames / 2], c.truth[kFrames / 2], c.mask) > 2 * worst);
    }

    // A still background: nothing is ever visible. With key fills (--temporal-fill image),
    // frame 0 is filled once and the fill is carried: the hole does not change from frame to
    // frame.
    void unseen_content_is_filled_once_and_carried() {
        Clip c = make_clip(6);
        for (int f = 1; f < 6; ++f) {
            c.input[f] = c.input[0];
            c.truth[f] = c.truth[0];
        }
        video::VideoInpaintParams params;
        params.temporal.method = video::TemporalFill::Image;
        video::VideoInpaintStats stats;
        const auto out = video::inpaint_frames(c.input, {c.mask}, params, &stats);
        QCOMPARE(stats.key_fills, 1);
        QCOMPARE(stats.volume_fills, 0);
        QCOMPARE(stats.from_other_frames, 0);
        for (int f = 1; f < 6; ++f) QCOMPARE(hole_mean_error(out[f], out[0], c.mask), 0.0);
    }

    // The same with the default: the shot's unseen pixels are synthesised by one 3-D
    // PatchMatch; nothing outside the mask changes, and the hole hardly changes from frame to
    // frame (the engine test test_patchmatch3d compares it with per-frame filling).
    void unseen_content_is_synthesised_once_for_the_shot() {
        Clip c = make_clip(6);
        for (int f = 1; f < 6; ++f) {
            c.input[f] = c.input[0];
            c.truth[f] = c.truth[0];
        }
        video::VideoInpaintStats stats;
        const auto out = video::inpaint_frames(c.input, {c.mask}, {}, &stats);
        QCOMPARE(stats.volume_fills, 1);
        QCOMPARE(stats.key_fills, 0);
        QCOMPARE(stats.synthesized, stats.hole_pixels);
        double ours = 0;
        for (int f = 0; f < 6; ++f) {
            QCOMPARE(changed_outside(out[f], c.input[f], c.mask), 0);
            if (f > 0) ours += hole_mean_error(out[f], out[f - 1], c.mask) / 5;
        }
        qInfo("mean |change| a frame in the hole: %.2f levels (3-D fill)", ours);
        QVERIFY2(ours <= 2.0, qPrintable(QString::number(ours)));
        QVERIFY(hole_mean_error(out[3], c.truth[3], c.mask) < 40);
    }

    // `auto` (the default) measures the camera's motion round the hole in every shot: a still
    // camera takes the 3-D fill, a pan of 6 px a frame key fills (the 3-D search does not follow
    // the camera; 4 frames, so that the middle of the hole is never seen).
    void auto_takes_the_3d_fill_on_a_still_camera_and_key_fills_on_a_fast_pan() {
        Clip still = make_clip(6);
        for (int f = 1; f < 6; ++f) still.input[f] = still.input[0];
        video::VideoInpaintStats stats;
        (void)video::inpaint_frames(still.input, {still.mask}, {}, &stats);
        QCOMPARE(stats.shot_motion.size(), std::size_t{1});
        qInfo("still camera: %.3f px a frame", stats.shot_motion[0]);
        QVERIFY(stats.shot_motion[0] < 0.5);
        QCOMPARE(stats.shot_volume, std::vector<bool>{true});
        QCOMPARE(stats.volume_fills, 1);
        QCOMPARE(stats.key_fills, 0);

        const Clip pan = make_clip(4, 6);
        (void)video::inpaint_frames(pan.input, {pan.mask}, {}, &stats);
        QCOMPARE(stats.shot_motion.size(), std::size_t{1});
        qInfo("pan of 6 px a frame: %.3f px a frame", stats.shot_motion[0]);
        QVERIFY(std::abs(stats.shot_motion[0] - 6.0) < 0.5);
        QCOMPARE(stats.shot_volume, std::vector<bool>{false});
        QVERIFY(stats.synthesized > 0);
        QVERIFY(stats.key_fills >= 1);
        QCOMPARE(stats.volume_fills, 0);
        // Asked for by name, the 3-D fill runs on the pan all the same.
        video::VideoInpaintParams volume;
        volume.temporal.method = video::TemporalFill::PatchMatch3d;
        (void)video::inpaint_frames(pan.input, {pan.mask}, volume, &stats);
        QCOMPARE(stats.volume_fills, 1);
        QCOMPARE(stats.key_fills, 0);
    }

    // A scene cut restarts the propagation: nothing crosses it (a still background on either
    // side: one key fill each).
    void a_scene_cut_restarts_the_propagation() {
        Clip c = make_clip(6);
        for (int f = 0; f < 6; ++f) {
            c.input[f] = c.input[f < 3 ? 0 : 5];
            if (f >= 3)  // another shot: the picture turned upside down and darker
                for (int y = 0; y < kH; ++y)
                    for (int x = 0; x < kW; ++x)
                        if (!c.mask.at(x, y)) {
                            Rgba8 p = c.truth[5].at(x, kH - 1 - y);
                            p.r /= 3, p.g /= 3, p.b /= 3;
                            c.input[f].at(x, y) = p;
                        }
        }
        video::VideoInpaintStats stats;
        (void)video::inpaint_frames(c.input, {c.mask}, {}, &stats);
        QCOMPARE(stats.cuts, 1);
        QCOMPARE(stats.volume_fills, 2);
        video::VideoInpaintParams keys;
        keys.temporal.method = video::TemporalFill::Image;
        (void)video::inpaint_frames(c.input, {c.mask}, keys, &stats);
        QCOMPARE(stats.cuts, 1);
        QCOMPARE(stats.key_fills, 2);
    }

    void bad_frames_and_masks_are_refused() {
        const Clip c = make_clip(3);
        QVERIFY_THROWS_EXCEPTION(Error, video::inpaint_frames({}, {c.mask}, {}));
        video::VideoInpaintParams even;
        even.temporal.patch = 4;
        QVERIFY_THROWS_EXCEPTION(Error, video::inpaint_frames(c.input, {c.mask}, even));
        QVERIFY_THROWS_EXCEPTION(Error, video::inpaint_frames(c.input, {c.mask, c.mask}, {}));
        QVERIFY_THROWS_EXCEPTION(Error, video::inpaint_frames(c.input, {Mask(kW, kH - 1)}, {}));
        QVERIFY_THROWS_EXCEPTION(
            Error, video::inpaint_frames(c.input, {Mask(kW, kH, std::uint8_t{0})}, {}));
    }

    // `lacuna inpaint` on PNG sequences: every frame written, outside the mask the decoded input
    // byte for byte, the hole close to the truth; --frames writes the range alone.
    void cli_fills_a_sequence_and_a_range() {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        const Clip c = make_clip();
        fs::create_directories(root / "in");
        fs::create_directories(root / "out");
        fs::create_directories(root / "part");
        write_sequence(root / "in/%03d.png", c.input);
        io::write_image(root / "mask.png", mask_picture(c.mask).view());
        const Result r = run_cli({QString::fromStdString((root / "in/%03d.png").string()),
                                  QString::fromStdString((root / "mask.png").string()),
                                  QString::fromStdString((root / "out/%03d.png").string())});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("frame 20 of 20"), qPrintable(r.err));  // progress on stderr
        const auto out = read_sequence(root / "out/%03d.png");
        QCOMPARE(static_cast<int>(out.size()), kFrames);
        for (int f = 0; f < kFrames; ++f) {
            QCOMPARE(changed_outside(out[f], c.input[f], c.mask), 0);
            QVERIFY(hole_mean_error(out[f], c.truth[f], c.mask) <= 2.0);
        }

        const Result part = run_cli({QString::fromStdString((root / "in/%03d.png").string()),
                                     QString::fromStdString((root / "mask.png").string()),
                                     QString::fromStdString((root / "part/%03d.png").string()),
                                     "--frames", "5:12"});
        QVERIFY2(part.status == 0, qPrintable(part.err));
        const auto range = read_sequence(root / "part/%03d.png");
        QCOMPARE(static_cast<int>(range.size()), 7);
        for (int f = 0; f < 7; ++f) {
            QCOMPARE(changed_outside(range[f], c.input[5 + f], c.mask), 0);
            QVERIFY(hole_mean_error(range[f], c.input[5 + f], c.mask) > 20);  // the card is gone
        }

        // --grow -3 shrinks the mask like an image's: the card's 3-px rim is then outside it and
        // stays byte for byte (without --grow it is filled: the first run above).
        fs::create_directories(root / "shrunk");
        const Result shrunk = run_cli({QString::fromStdString((root / "in/%03d.png").string()),
                                       QString::fromStdString((root / "mask.png").string()),
                                       QString::fromStdString((root / "shrunk/%03d.png").string()),
                                       "--frames", "0:4", "--grow", "-3"});
        QVERIFY2(shrunk.status == 0, qPrintable(shrunk.err));
        const auto small = read_sequence(root / "shrunk/%03d.png");
        QCOMPARE(static_cast<int>(small.size()), 4);
        for (int f = 0; f < 4; ++f)
            for (int y = 36; y < 60; ++y)
                for (int x = 65; x < 95; ++x) {
                    const bool rim = x < 68 || x >= 92 || y < 39 || y >= 57;
                    if (rim) QCOMPARE(small[f].at(x, y).g, c.input[f].at(x, y).g);
                }
        QVERIFY(out[0].at(65, 36).g != 30);
    }

    // Each bad input: one error line, nothing written.
    void cli_refuses_bad_inputs_and_writes_nothing() {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        const Clip c = make_clip(6);
        fs::create_directories(root / "in");
        fs::create_directories(root / "out");
        fs::create_directories(root / "masks");
        write_sequence(root / "in/%03d.png", c.input);
        io::write_image(root / "small.png",
                        mask_picture(Mask(kW / 2, kH, std::uint8_t{255})).view());
        io::write_image(root / "empty.png", mask_picture(Mask(kW, kH, std::uint8_t{0})).view());
        write_sequence(root / "masks/%03d.png",
                       std::vector<ImageRgba8>(4, mask_picture(c.mask)));  // 4 frames, not 6
        const QString in = QString::fromStdString((root / "in/%03d.png").string());
        const QString out = QString::fromStdString((root / "out/%03d.png").string());
        const auto mask = [&](const char* name) {
            return QString::fromStdString((root / name).string());
        };
        verify_one_error_line(run_cli({in, mask("small.png"), out}), "mask");
        QVERIFY(folder_empty(root / "out"));
        verify_one_error_line(run_cli({in, mask("empty.png"), out}), "selects no pixel");
        QVERIFY(folder_empty(root / "out"));
        verify_one_error_line(run_cli({in, mask("masks/%03d.png"), out}), "4 frames");
        QVERIFY(folder_empty(root / "out"));
        verify_one_error_line(run_cli({in, mask("empty.png"), out, "--frames", "4:2"}), "A:B");
        verify_one_error_line(run_cli({in, mask("empty.png"), out, "--frames", "2:9"}),
                              "past its end");
        QVERIFY(folder_empty(root / "out"));
    }

    // A card moving over a still view, painted on frame 0 only (--mask-key): the masks written
    // by --save-masks follow the card on every frame, the card is gone from every output frame
    // and outside the tracked masks every frame is the input byte for byte; --json reports it.
    void cli_tracks_key_frame_masks() {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        const MovingClip c = make_moving_clip();
        const int n = static_cast<int>(c.input.size());
        fs::create_directories(root / "in");
        fs::create_directories(root / "out");
        write_sequence(root / "in/%03d.png", c.input);
        io::write_image(root / "key.png", mask_picture(c.masks[0]).view());
        const QString in = QString::fromStdString((root / "in/%03d.png").string());
        const Result r =
            run_cli({in, QString::fromStdString((root / "out/%03d.png").string()), "--mask-key",
                     "0:" + QString::fromStdString((root / "key.png").string()), "--save-masks",
                     QString::fromStdString((root / "masks").string()), "--json"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("masks tracked from 1 key frame(s) through 12 frames"),
                 qPrintable(r.err));
        QVERIFY2(r.out.contains("\"tracking\":{\"key_frames\":[0],\"grabcut\":true"),
                 qPrintable(r.out));
        QVERIFY2(r.out.contains("\"empty_masks\":0"), qPrintable(r.out));
        const auto out = read_sequence(root / "out/%03d.png");
        QCOMPARE(static_cast<int>(out.size()), n);
        for (int f = 0; f < n; ++f) {
            char name[16];
            std::snprintf(name, sizeof name, "%05d.png", f);
            const Mask tracked = io::read_mask(root / "masks" / name);
            const double q = iou(tracked, c.masks[f]);
            QVERIFY2(q >= 0.8, qPrintable(QString("frame %1: IoU %2").arg(f).arg(q)));
            QCOMPARE(changed_outside(out[f], c.input[f], tracked), 0);
            const double e = hole_mean_error(out[f], c.truth[f], c.masks[f]);
            QVERIFY2(e <= 12.0, qPrintable(QString("frame %1: error %2").arg(f).arg(e)));
        }
        QVERIFY(iou(io::read_mask(root / "masks/00000.png"), c.masks[0]) == 1.0);  // as painted

        // A correction on frame 6 (the mask moved 5 px down) becomes a second key frame: the
        // saved masks after it follow the correction.
        Mask corrected(kW, kH, std::uint8_t{0});
        for (int y = 5; y < kH; ++y)
            for (int x = 0; x < kW; ++x) corrected.at(x, y) = c.masks[6].at(x, y - 5);
        io::write_image(root / "fix.png", mask_picture(corrected).view());
        fs::create_directories(root / "out2");
        const Result fixed =
            run_cli({in, QString::fromStdString((root / "out2/%03d.png").string()), "--mask-key",
                     "0:" + QString::fromStdString((root / "key.png").string()), "--mask-key",
                     "6:" + QString::fromStdString((root / "fix.png").string()), "--no-grabcut",
                     "--save-masks", QString::fromStdString((root / "masks2").string()), "--json"});
        QVERIFY2(fixed.status == 0, qPrintable(fixed.err));
        QVERIFY2(fixed.out.contains("\"key_frames\":[0,6],\"grabcut\":false"),
                 qPrintable(fixed.out));
        QVERIFY(iou(io::read_mask(root / "masks2/00006.png"), corrected) == 1.0);
        QVERIFY(iou(io::read_mask(root / "masks2/00009.png"), c.masks[9]) < 0.9);
        QVERIFY(iou(io::read_mask(root / "masks2/00001.png"), c.masks[1]) >= 0.8);
    }

    // A mask sequence of the clip's frame count (one mask a frame) removes the moving card.
    void cli_fills_with_a_mask_sequence() {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        const MovingClip c = make_moving_clip(8);
        fs::create_directories(root / "in");
        fs::create_directories(root / "m");
        fs::create_directories(root / "out");
        write_sequence(root / "in/%03d.png", c.input);
        std::vector<ImageRgba8> pictures;
        for (const Mask& m : c.masks) pictures.push_back(mask_picture(m));
        write_sequence(root / "m/%03d.png", pictures);
        const Result r = run_cli({QString::fromStdString((root / "in/%03d.png").string()),
                                  QString::fromStdString((root / "m/%03d.png").string()),
                                  QString::fromStdString((root / "out/%03d.png").string())});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        const auto out = read_sequence(root / "out/%03d.png");
        QCOMPARE(static_cast<int>(out.size()), 8);
        for (int f = 0; f < 8; ++f) {
            QCOMPARE(changed_outside(out[f], c.input[f], c.masks[f]), 0);
            QVERIFY(hole_mean_error(out[f], c.truth[f], c.masks[f]) <= 12.0);
        }
    }

    // Key-frame masks that cannot be used: one error line, no output, no masks written.
    void cli_refuses_bad_key_frames_and_writes_nothing() {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        const MovingClip c = make_moving_clip(4);
        fs::create_directories(root / "in");
        fs::create_directories(root / "out");
        write_sequence(root / "in/%03d.png", c.input);
        io::write_image(root / "key.png", mask_picture(c.masks[0]).view());
        io::write_image(root / "small.png",
                        mask_picture(Mask(kW / 2, kH, std::uint8_t{255})).view());
        io::write_image(root / "empty.png", mask_picture(Mask(kW, kH, std::uint8_t{0})).view());
        const QString in = QString::fromStdString((root / "in/%03d.png").string());
        const QString out = QString::fromStdString((root / "out/%03d.png").string());
        const QString masks = QString::fromStdString((root / "masks").string());
        const auto key = [&](const char* frame_and_name) {
            const QString text = frame_and_name;
            const auto colon = text.indexOf(':');
            return text.left(colon + 1) +
                   QString::fromStdString((root / text.mid(colon + 1).toStdString()).string());
        };
        const auto refused = [&](const QStringList& args, const QString& words) {
            verify_one_error_line(run_cli(args), words);
            QVERIFY(folder_empty(root / "out"));
            QVERIFY(!fs::exists(root / "masks"));
        };
        refused({in, out, "--mask-key", key("4:key.png"), "--save-masks", masks},
                "key frame 4 is outside the frames processed (0..3)");
        refused({in, out, "--mask-key", key("1:key.png"), "--frames", "2:4", "--save-masks", masks},
                "key frame 1 is outside the frames processed (2..3)");
        refused({in, out, "--mask-key", key("0:small.png"), "--save-masks", masks},
                "the mask of key frame 0 is 80×96, the clip 160×96");
        refused({in, out, "--mask-key", key("2:empty.png"), "--save-masks", masks},
                "the mask of key frame 2 selects no pixel");
        refused({in, out, "--mask-key", key("1:key.png"), "--mask-key", key("1:key.png")},
                "key frame 1 is given twice");
        refused({in, out, "--mask-key", "key.png"}, "--mask-key takes FRAME:MASK");
        refused({in, out, "--mask-key", key("0:missing.png")}, "missing.png");
        refused({in, key("0:key.png").mid(2), out, "--mask-key", key("0:key.png")},
                "give MASK or --mask-key, not both");
        refused({in, out}, "--mask-key F:MASK");
        refused({in, key("0:key.png").mid(2), out, "--no-grabcut"}, "apply to --mask-key");
        refused({in, out, "--mask-key", key("0:key.png"), "--track-band", "0"}, "--track-band");
        refused({QString::fromStdString(kPhoto), out, "--mask-key", key("0:key.png")},
                "needs IN MASK OUT for an image");
    }

    // The stages are reported (stderr and --json) with the backend the key fills ran on; a
    // still background and --temporal-fill image, so that a key fill runs and is carried (the
    // default would take the 3-D fill on a still camera).
    void cli_reports_the_stages_and_the_key_fill_backend() {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        Clip c = make_clip(6);
        for (int f = 1; f < 6; ++f) c.input[f] = c.input[0];
        fs::create_directories(root / "in");
        fs::create_directories(root / "out");
        write_sequence(root / "in/%03d.png", c.input);
        io::write_image(root / "mask.png", mask_picture(c.mask).view());
        const Result r = run_cli({QString::fromStdString((root / "in/%03d.png").string()),
                                  QString::fromStdString((root / "mask.png").string()),
                                  QString::fromStdString((root / "out/%03d.png").string()),
                                  "--json", "--backend", "cpu", "--temporal-fill", "image"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("propagation") && r.err.contains("key fills") &&
                     r.err.contains("(CPU)") && r.err.contains("encode"),
                 qPrintable(r.err));
        for (const char* key :
             {"\"decode_seconds\":", "\"flow_seconds\":", "\"propagate_seconds\":",
              "\"fill_seconds\":", "\"encode_seconds\":", "\"encode_tail_seconds\":",
              "\"key_fill_backend\":\"CPU\"", "\"key_fills\":1"})
            QVERIFY2(r.out.contains(key), qPrintable(QString(key) + " in " + r.out));
        const auto out = read_sequence(root / "out/%03d.png");
        video::VideoInpaintParams keys;
        keys.temporal.method = video::TemporalFill::Image;
        const std::vector<ImageRgba8> expected = video::inpaint_frames(c.input, {c.mask}, keys);
        QCOMPARE(static_cast<int>(out.size()), 6);
        for (int f = 0; f < 6; ++f) QCOMPARE(hole_mean_error(out[f], expected[f], c.mask), 0.0);
    }

    // `lacuna bench video-inpaint --end-to-end png` runs a clip through files and prints its
    // stages; a format other than mp4 or png is a usage error.
    void bench_runs_end_to_end() {
        QProcess p;
        p.start(LACUNA_CLI_PATH,
                {"bench", "video-inpaint", "--end-to-end", "png", "--clip-size", "192x108",
                 "--clip-frames", "6", "--case", "logo, still", "--hole-area", "10"});
        QVERIFY(p.waitForFinished(300000));
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        QVERIFY2(p.exitCode() == 0, qPrintable(QString::fromUtf8(p.readAllStandardError())));
        QVERIFY2(out.contains("end to end (PNG)") && out.contains("6 frames in") &&
                     out.contains("key fills") && out.contains("decode") &&
                     out.contains("propagation"),
                 qPrintable(out));
        // The logo scaled to 10 % of the frame (the margin adds a little).
        const auto at = out.indexOf("hole ");
        QVERIFY(at >= 0);
        const double share = out.mid(at + 5, 5).split(' ')[0].toDouble();
        QVERIFY2(share >= 9.5 && share <= 12.5, qPrintable(out));
        p.start(LACUNA_CLI_PATH, {"bench", "video-inpaint", "--end-to-end", "avi"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 2);
    }
};

QTEST_GUILESS_MAIN(TestVideoInpaint)
#include "test_video_inpaint.moc"
