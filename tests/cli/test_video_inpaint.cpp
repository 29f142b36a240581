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

/// Frame f is the photo's window at (20 + 3 f, 60): the camera pans right by whole pixels. A
/// saturated red card (the sticker) covers a 30 × 24 box in the middle of every frame.
Clip make_clip(const int frames = kFrames) {
    const ImageRgba8 photo = io::read_image(kPhoto).image;
    Clip c;
    c.mask = Mask(kW, kH, std::uint8_t{0});
    for (int y = 36; y < 60; ++y)
        for (int x = 65; x < 95; ++x) c.mask.at(x, y) = 255;
    for (int f = 0; f < frames; ++f) {
        ImageRgba8 t(kW, kH);
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x) t.at(x, y) = photo.at(20 + kPan * f + x, 60 + y);
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

struct Result {
    int status = -1;
    QString err;
};

Result run_cli(const QStringList& args) {
    QProcess p;
    p.start(LACUNA_CLI_PATH, QStringList{"inpaint"} + args);
    if (!p.waitForFinished(300000)) return {};
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2,
            QString::fromUtf8(p.readAllStandardError())};
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

    // A still background: nothing is ever visible, so frame 0 is filled once and the fill is
    // carried: the hole does not change from frame to frame.
    void unseen_content_is_filled_once_and_carried() {
        Clip c = make_clip(6);
        for (int f = 1; f < 6; ++f) {
            c.input[f] = c.input[0];
            c.truth[f] = c.truth[0];
        }
        video::VideoInpaintStats stats;
        const auto out = video::inpaint_frames(c.input, {c.mask}, {}, &stats);
        QCOMPARE(stats.key_fills, 1);
        QCOMPARE(stats.from_other_frames, 0);
        for (int f = 1; f < 6; ++f) QCOMPARE(hole_mean_error(out[f], out[0], c.mask), 0.0);
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
        QCOMPARE(stats.key_fills, 2);
    }

    void bad_frames_and_masks_are_refused() {
        const Clip c = make_clip(3);
        QVERIFY_THROWS_EXCEPTION(Error, video::inpaint_frames({}, {c.mask}, {}));
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
};

QTEST_GUILESS_MAIN(TestVideoInpaint)
#include "test_video_inpaint.moc"
