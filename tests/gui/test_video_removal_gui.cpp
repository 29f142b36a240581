// The Video dock's object removal through the real window: the mode, a key mask drawn with the
// Remove Object tool's box (GrabCut) on the shown frame, Track as a background job, the tracked
// mask on every frame while scrubbing, a correction (a new key, with undo of the stroke), a
// re-track without new flow, and Fill & Export to a PNG sequence.
#include "canvas.hpp"
#include "gui_test_util.hpp"
#include "main_window.hpp"
#include "object_removal_panel.hpp"
#include "video_panel.hpp"

#include <remove_object_tool.hpp>
#include <session.hpp>
#include <video_removal.hpp>

#include <lacuna/core/mask.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/io/video_io.hpp>

#include <QCheckBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>

#include <cmath>
#include <cstdint>

using namespace lacuna;
using lacuna::editor::MainWindow;
using namespace lacuna::test;

namespace {

constexpr int kW = 160, kH = 120, kFrames = 10;

/// Where the blue square's top-left corner is on frame f (2 px a frame to the right).
int square_x(const int f) {
    return 30 + 2 * f;
}
constexpr int kSquareY = 40, kSide = 30;

std::uint8_t noise(const int x, const int y) {
    std::uint32_t v =
        static_cast<std::uint32_t>(x) * 73856093u ^ static_cast<std::uint32_t>(y) * 19349663u;
    v ^= v >> 13;
    v *= 0x5bd1e995u;
    v ^= v >> 15;
    return static_cast<std::uint8_t>(v & 0xff);
}

/// A textured grey-green background with a red, textublue square moving over it, as a PNG
/// sequence (what the CLI and the editor both read).
QString write_clip(const QTemporaryDir& dir) {
    QDir().mkpath(dir.filePath("clip"));
    const std::string pattern = dir.filePath("clip/%05d.png").toStdString();
    for (int f = 0; f < kFrames; ++f) {
        ImageRgba8 frame(kW, kH);
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x) {
                const bool in = x >= square_x(f) && x < square_x(f) + kSide && y >= kSquareY &&
                                y < kSquareY + kSide;
                const double wave = 40 * std::sin(x * 0.21) * std::cos(y * 0.17);
                const auto g = static_cast<std::uint8_t>(120 + wave + noise(x, y) / 8);
                const int u = x - square_x(f), n = noise(u + 500, y) / 6;
                frame.at(x, y) =
                    in ? Rgba8{40,
                               static_cast<std::uint8_t>(((u / 4 + y / 4) % 2) ? 40 + n : 110 + n),
                               static_cast<std::uint8_t>(200 + n / 2), 255}
                       : Rgba8{static_cast<std::uint8_t>(g * 3 / 4), g,
                               static_cast<std::uint8_t>(g * 7 / 8), 255};
            }
        (void)io::write_image(io::sequence_frame_path(pattern, f), frame.view());
    }
    return dir.filePath("clip/%05d.png");
}

bool equal(const Mask& a, const Mask& b) {
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x)
            if ((a.at(x, y) != 0) != (b.at(x, y) != 0)) return false;
    return true;
}

}  // namespace

class TestVideoRemovalGui : public QObject {
    Q_OBJECT
  private slots:
    void remove_an_object_from_a_clip() {
        if (const char* why = gl_window_unavailable()) QSKIP(why);
        QTemporaryDir dir;
        const QString clip = write_clip(dir);
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.open_file(clip));
        editor::Canvas* canvas = window.canvas();
        canvas->actual_size();
        editor::VideoPanel* panel = window.video_panel();
        window.findChild<QDockWidget*>("video_dock")->raise();
        session::VideoRemoval* removal = window.session().video_removal();
        QVERIFY(removal != nullptr);
        auto* mode = panel->findChild<QCheckBox*>("video_removal_mode");
        auto* track = panel->findChild<QPushButton*>("video_track");
        auto* slider = panel->findChild<QSlider*>("video_frame");
        auto* keys = panel->findChild<QLabel*>("video_keys");
        QVERIFY(!track->isEnabled());
        mode->click();
        QVERIFY(panel->removal_mode());
        QCOMPARE(canvas->tool(), editor::CanvasTool::Brush);
        QVERIFY(track->isEnabled());

        // Frame 0: a box around the square, GrabCut's object (the Remove Object tool's box).
        panel->findChild<QPushButton*>("video_tool_box")->click();
        QCOMPARE(canvas->tool(), editor::CanvasTool::Box);
        const QPoint from = widget_point(canvas, square_x(0) - 6.5, kSquareY - 6.5);
        const QPoint to = widget_point(canvas, square_x(0) + kSide + 5.5, kSquareY + kSide + 5.5);
        QTest::mousePress(canvas, Qt::LeftButton, {}, from);
        QTest::mouseMove(canvas, widget_point(canvas, square_x(0) + 10, kSquareY + 10));
        QTest::mouseMove(canvas, to);
        QTest::mouseRelease(canvas, Qt::LeftButton, {}, to);
        QCOMPARE(canvas->mask().at(square_x(0) + 15, kSquareY + 15), std::uint8_t{255});
        QCOMPARE(canvas->mask().at(5, 5), std::uint8_t{0});

        // Track: frame 0 becomes the key; a background job with progress and Cancel. Cancelled
        // first: no masks, the painted key stays.
        auto* cancel = panel->findChild<QPushButton*>("video_cancel");
        track->click();
        QVERIFY(cancel->isEnabled());
        cancel->click();
        QTRY_VERIFY_WITH_TIMEOUT(!panel->removal_busy(), 120000);
        QVERIFY2(panel->status().contains("cancelled"), qPrintable(panel->status()));
        QVERIFY(removal->tracked().empty());
        QVERIFY(!cancel->isEnabled());
        QCOMPARE(canvas->mask().at(square_x(0) + 15, kSquareY + 15), std::uint8_t{255});
        track->click();
        QCOMPARE(removal->key_frames(), std::vector<int>{0});
        QVERIFY(panel->removal_busy());
        QVERIFY(cancel->isEnabled());
        QVERIFY(!slider->isEnabled());
        QTRY_VERIFY_WITH_TIMEOUT(!panel->removal_busy(), 120000);
        QVERIFY2(panel->status().startsWith("Tracked 10 frames"), qPrintable(panel->status()));
        QVERIFY(keys->text().contains("Key frames (marked under the slider): 1."));
        QVERIFY(removal->has_flow());

        // Scrubbing shows every frame's tracked mask as the fill mask (the tint).
        for (const int f : {3, 7, 9}) {
            slider->setValue(f);
            QCOMPARE(window.session().video()->current(), f);
            QVERIFY(equal(canvas->mask(), removal->tracked()[static_cast<std::size_t>(f)]));
            QCOMPARE(canvas->mask().at(square_x(f) + 15, kSquareY + 15), std::uint8_t{255});
            QCOMPARE(canvas->mask().at(square_x(0) - 10, kSquareY + 15), std::uint8_t{0});
        }
        QVERIFY(!window.findChild<QDockWidget*>("video_dock")->visibleRegion().isEmpty());
        if (const QString shots = qEnvironmentVariable("LACUNA_SCREENSHOT_DIR"); !shots.isEmpty()) {
            slider->setValue(6);
            canvas->zoom_by(3.0);
            QTest::qWait(300);
            QVERIFY(window.grab().save(shots + "/video-removal.png", "PNG"));
            canvas->actual_size();
        }

        // A correction on frame 7: a brush stroke (undoable on the frame), then another one;
        // leaving the frame makes it a key frame; Track again runs without new flow.
        slider->setValue(7);
        const Mask tracked7 = clone(canvas->mask().view());
        panel->findChild<QPushButton*>("video_tool_brush")->click();
        QCOMPARE(canvas->tool(), editor::CanvasTool::Brush);
        const auto stroke = [&] {
            QTest::mousePress(canvas, Qt::LeftButton, {}, widget_point(canvas, 140, 100));
            QTest::mouseMove(canvas, widget_point(canvas, 150, 105));
            QTest::mouseRelease(canvas, Qt::LeftButton, {}, widget_point(canvas, 150, 105));
        };
        stroke();
        QCOMPARE(canvas->mask().at(145, 102), std::uint8_t{255});
        QVERIFY(window.session().undo());
        QVERIFY(equal(canvas->mask(), tracked7));
        stroke();
        slider->setValue(8);
        QCOMPARE(removal->key_frames(), (std::vector<int>{0, 7}));
        QVERIFY(keys->text().contains("1, 8"));
        QVERIFY(keys->text().contains("Track to carry"));
        QVERIFY(panel->track());
        QCOMPARE(removal->total(), kFrames);  // tracking only: the flows were kept
        QTRY_VERIFY_WITH_TIMEOUT(!panel->removal_busy(), 120000);
        QVERIFY(removal->tracked()[8].at(145, 102) != 0);  // the correction propagated
        QVERIFY(removal->tracked()[2].at(145, 102) == 0);
        // Undo Key: frame 7's key goes; its mask is then the tracked one again (re-track due).
        slider->setValue(7);
        panel->findChild<QPushButton*>("video_undo_key")->click();
        QCOMPARE(removal->key_frames(), std::vector<int>{0});
        QVERIFY(removal->needs_track());
        QVERIFY(panel->track());
        QTRY_VERIFY_WITH_TIMEOUT(!panel->removal_busy(), 120000);
        QVERIFY(equal(canvas->mask(), tracked7));

        // Fill & Export: never over the clip; a PNG sequence of every frame, the square gone,
        // outside the (grown) masks every pixel as decoded.
        QVERIFY(!panel->fill_export_to(clip));
        QVERIFY2(panel->status().contains("overwrite"), qPrintable(panel->status()));
        QDir().mkpath(dir.filePath("out"));
        QVERIFY(panel->fill_export_to(dir.filePath("out/%05d.png")));
        QTRY_VERIFY_WITH_TIMEOUT(!panel->removal_busy(), 120000);
        QVERIFY2(panel->status().startsWith("Filled and wrote 10 frames"),
                 qPrintable(panel->status()));
        for (int f = 0; f < kFrames; ++f) {
            const std::string name =
                io::sequence_frame_path(dir.filePath("out/%05d.png").toStdString(), f).string();
            const ImageRgba8 out = io::read_image(name).image;
            const ImageRgba8 in =
                io::read_image(io::sequence_frame_path(clip.toStdString(), f)).image;
            QVERIFY(out.at(5, 5) == in.at(5, 5));
            QVERIFY(out.at(150, 10) == in.at(150, 10));
            const Rgba8 c = out.at(square_x(f) + 15, kSquareY + 15);
            // The background's blue is under its green; the square's far above.
            QVERIFY2(
                c.b < c.g + 10,
                qPrintable(QString("frame %1: blue %2 left (green %3)").arg(f).arg(c.b).arg(c.g)));
        }
    }
};

QTEST_MAIN(TestVideoRemovalGui)
#include "test_video_removal_gui.moc"
