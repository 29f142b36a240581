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
#include <QSpinBox>
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

/// Frames from kCut on show another, brighter scene (a scene cut before frame kCut) in the
/// clip of write_clip(dir, true).
constexpr int kCut = 6;

/// A textured grey-green background with a red, textublue square moving over it, as a PNG
/// sequence (what the CLI and the editor both read).
QString write_clip(const QTemporaryDir& dir, const bool cut = false) {
    QDir().mkpath(dir.filePath("clip"));
    const std::string pattern = dir.filePath("clip/%05d.png").toStdString();
    for (int f = 0; f < kFrames; ++f) {
        ImageRgba8 frame(kW, kH);
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x) {
                const bool in = x >= square_x(f) && x < square_x(f) + kSide && y >= kSquareY &&
                                y < kSquareY + kSide;
                const bool second = cut && f >= kCut;
                const double wave = second ? 30 * std::cos(x * 0.13) * std::sin(y * 0.19)
                                           : 40 * std::sin(x * 0.21) * std::cos(y * 0.17);
                const auto g = static_cast<std::uint8_t>((second ? 190 : 120) + wave +
                                                         noise(x + (second ? 7 : 0), y) / 8);
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

    /// A clip with a scene cut before frame 7 (index 6): the tracked mask stops at the cut
    /// (said in the dock, marked under the slider); a range (In/Out) of frames 1–7; Preview
    /// Fill of the shown frame as a background job, shown on the canvas in place of the frame
    /// (backslash held: the original), equal to what Fill & Export then writes for the range.
    void preview_range_and_cut() {
        if (const char* why = gl_window_unavailable()) QSKIP(why);
        QTemporaryDir dir;
        const QString clip = write_clip(dir, true);
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.open_file(clip));
        editor::Canvas* canvas = window.canvas();
        canvas->actual_size();
        editor::VideoPanel* panel = window.video_panel();
        window.findChild<QDockWidget*>("video_dock")->raise();
        session::Session& session = window.session();
        session::VideoRemoval* removal = session.video_removal();
        auto* slider = panel->findChild<QSlider*>("video_frame");
        auto* keys = panel->findChild<QLabel*>("video_keys");
        auto* preview = panel->findChild<QPushButton*>("video_preview");
        auto* show_fill = panel->findChild<QCheckBox*>("video_show_fill");
        auto* range_in = panel->findChild<QSpinBox*>("video_range_in");
        auto* range_out = panel->findChild<QSpinBox*>("video_range_out");
        auto* cancel = panel->findChild<QPushButton*>("video_cancel");
        QVERIFY(!preview->isEnabled());
        panel->findChild<QCheckBox*>("video_removal_mode")->click();
        QVERIFY(preview->isEnabled());
        QCOMPARE(range_in->value(), 1);
        QCOMPARE(range_out->value(), kFrames);

        // Frame 0: a box around the square; Track over the whole clip.
        panel->findChild<QPushButton*>("video_tool_box")->click();
        const QPoint from = widget_point(canvas, square_x(0) - 6.5, kSquareY - 6.5);
        const QPoint to = widget_point(canvas, square_x(0) + kSide + 5.5, kSquareY + kSide + 5.5);
        QTest::mousePress(canvas, Qt::LeftButton, {}, from);
        QTest::mouseMove(canvas, to);
        QTest::mouseRelease(canvas, Qt::LeftButton, {}, to);
        panel->findChild<QPushButton*>("video_track")->click();
        QTRY_VERIFY_WITH_TIMEOUT(!panel->removal_busy(), 120000);
        QVERIFY2(panel->status().contains("Scene cut(s) before frame(s) 7: the mask stops there"),
                 qPrintable(panel->status()));
        QVERIFY2(panel->status().contains("No mask on frame(s) 7–10"), qPrintable(panel->status()));
        QVERIFY2(keys->text().contains("Scene cuts before frame(s) 7"), qPrintable(keys->text()));
        QCOMPARE(removal->cuts(), std::vector<int>{kCut});
        slider->setValue(kCut - 1);
        QCOMPARE(canvas->mask().at(square_x(kCut - 1) + 15, kSquareY + 15), std::uint8_t{255});
        slider->setValue(kCut);
        QCOMPARE(count_selected(canvas->mask().view()), std::int64_t{0});

        // The range: frames 1–7 (the Out button on the shown frame 7); Track again (new flows).
        panel->findChild<QPushButton*>("video_set_out")->click();
        QCOMPARE(range_out->value(), kCut + 1);
        QCOMPARE(removal->range_end(), kCut + 1);
        QVERIFY(removal->needs_track());
        QVERIFY(panel->track());
        QCOMPARE(removal->total(), 3 * (kCut + 1) - 1);
        QTRY_VERIFY_WITH_TIMEOUT(!panel->removal_busy(), 120000);
        QVERIFY2(panel->status().startsWith("Tracked 7 frames"), qPrintable(panel->status()));

        // Preview Fill on frame 4 (index 3): a background job with Cancel, cancelled once.
        slider->setValue(3);
        preview->click();
        QVERIFY(panel->removal_busy());
        QVERIFY(cancel->isEnabled());
        cancel->click();
        QTRY_VERIFY_WITH_TIMEOUT(!panel->removal_busy(), 120000);
        QVERIFY2(panel->status().contains("Preview cancelled"), qPrintable(panel->status()));
        QVERIFY(!show_fill->isChecked());
        const ImageRgba8 original = session.shown_image();
        preview->click();
        QVERIFY(!slider->isEnabled());
        QTRY_VERIFY_WITH_TIMEOUT(!panel->removal_busy(), 120000);
        QVERIFY2(panel->status().startsWith("Preview of frames 1–6"), qPrintable(panel->status()));
        QVERIFY(show_fill->isChecked());
        QVERIFY(session.showing_preview());
        const ImageRgba8 filled = session.shown_image();
        const Rgba8 c = filled.at(square_x(3) + 15, kSquareY + 15);
        QVERIFY2(c.b < c.g + 10, qPrintable(QString("blue %1, green %2").arg(c.b).arg(c.g)));
        QVERIFY(filled.at(5, 5) == original.at(5, 5));
        // Held backslash: the original frame; released: the fill again.
        QTest::keyPress(&window, Qt::Key_Backslash);
        QVERIFY(session.shown_image().at(square_x(3) + 15, kSquareY + 15) ==
                original.at(square_x(3) + 15, kSquareY + 15));
        QTest::keyRelease(&window, Qt::Key_Backslash);
        QVERIFY(session.shown_image().at(square_x(3) + 15, kSquareY + 15) == c);
        if (const QString shots = qEnvironmentVariable("LACUNA_SCREENSHOT_DIR"); !shots.isEmpty()) {
            canvas->zoom_by(3.0);
            QTest::qWait(300);
            QVERIFY(window.grab().save(shots + "/video-fill-preview.png", "PNG"));
            canvas->actual_size();
        }
        // Scrubbing within the shot shows its filled frames; frame 7 (after the cut) has none.
        std::vector<ImageRgba8> shown;
        for (int f = 0; f < kCut; ++f) {
            slider->setValue(f);
            QVERIFY(session.showing_preview());
            shown.push_back(session.shown_image());
        }
        slider->setValue(kCut);
        QVERIFY(!session.showing_preview());
        // A brush stroke on a previewed frame shows the document and its mask again.
        slider->setValue(2);
        QVERIFY(session.showing_preview());
        panel->findChild<QPushButton*>("video_tool_brush")->click();
        QTest::mousePress(canvas, Qt::LeftButton, {}, widget_point(canvas, 140, 100));
        QTest::mouseRelease(canvas, Qt::LeftButton, {}, widget_point(canvas, 140, 100));
        QVERIFY(!session.showing_preview());
        QVERIFY(session.undo());

        // Fill & Export writes the range's 7 frames; those of the previewed shot equal it.
        slider->setValue(3);
        QDir().mkpath(dir.filePath("out"));
        QVERIFY(panel->fill_export_to(dir.filePath("out/%05d.png")));
        QTRY_VERIFY_WITH_TIMEOUT(!panel->removal_busy(), 120000);
        QVERIFY2(panel->status().startsWith("Filled and wrote 7 frames"),
                 qPrintable(panel->status()));
        QCOMPARE(QDir(dir.filePath("out")).entryList(QDir::Files).size(), kCut + 1);
        for (int f = 0; f < kCut; ++f) {
            const ImageRgba8 out =
                io::read_image(
                    io::sequence_frame_path(dir.filePath("out/%05d.png").toStdString(), f))
                    .image;
            bool same = true;
            for (int y = 0; y < kH && same; ++y)
                for (int x = 0; x < kW && same; ++x)
                    same = out.at(x, y) == shown[static_cast<std::size_t>(f)].at(x, y);
            QVERIFY2(same, qPrintable(QString("frame %1").arg(f)));
        }
    }
};

QTEST_MAIN(TestVideoRemovalGui)
#include "test_video_removal_gui.moc"
