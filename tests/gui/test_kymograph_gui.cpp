// The Kymograph dock in the real window: an ImageJ time-lapse stack (particles moving 3 px and
// 1.5 px a frame, one blinking; 0.5 µm pixels, 0.1 s a frame) opened as pages, a line drawn with
// the Line tool, Tools ▸ Kymograph: the dock shows the position × time image of that line (the
// session's result, the engine's values), labelled in µm and s, with a hover readout, and
// Export writes the float TIFF and the CSV. With LACUNA_SCREENSHOT_DIR set it also writes the
// README's screenshot.
#include "canvas.hpp"
#include "gui_test_util.hpp"
#include "histogram_panel.hpp"
#include "kymograph_panel.hpp"
#include "main_window.hpp"
#include "regions_panel.hpp"
#include "regions_tool.hpp"
#include "session.hpp"

#include <lacuna/io/image_io.hpp>
#include <lacuna/ops/kymograph.hpp>
#include <lacuna/ops/regions.hpp>

#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QPainter>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <tiffio.h>

#include <cmath>
#include <vector>

using namespace lacuna;
using lacuna::editor::MainWindow;

namespace {

constexpr int kW = 200, kH = 120, kFrames = 48;

float particle(const double x, const double y, const double cx, const double cy) {
    const double d2 = (x - cx) * (x - cx) + (y - cy) * (y - cy);
    return static_cast<float>(1500.0 * std::exp(-d2 / 8.0));
}

// Frame t: background 200 with a gentle gradient, a particle moving right 3 px a frame, one
// moving left 1.5 px a frame, one blinking in place.
float value(const int x, const int y, const int t) {
    float v = 200.0f + 0.3f * x + 0.2f * y;
    v += particle(x, y, 10 + 3.0 * t, 60);
    v += particle(x, y, 180 - 1.5 * t, 62);
    if ((t / 6) % 2 == 0) v += particle(x, y, 100, 58);
    return v;
}

bool write_stack(const QString& path) {
    TIFF* t = TIFFOpen(path.toStdString().c_str(), "w");
    if (t == nullptr) return false;
    for (int page = 0; page < kFrames; ++page) {
        TIFFSetField(t, TIFFTAG_IMAGEWIDTH, kW);
        TIFFSetField(t, TIFFTAG_IMAGELENGTH, kH);
        TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 1);
        TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 32);
        TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_IEEEFP);
        TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
        TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
        TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, kH);
        TIFFSetField(t, TIFFTAG_XRESOLUTION, 2.0f);
        TIFFSetField(t, TIFFTAG_YRESOLUTION, 2.0f);
        TIFFSetField(t, TIFFTAG_RESOLUTIONUNIT, RESUNIT_NONE);
        if (page == 0)
            TIFFSetField(t, TIFFTAG_IMAGEDESCRIPTION,
                         "ImageJ=1.53t\nimages=48\nframes=48\nunit=micron\nfinterval=0.1\n");
        std::vector<float> row(kW);
        for (int y = 0; y < kH; ++y) {
            for (int x = 0; x < kW; ++x) row[std::size_t(x)] = value(x, y, page);
            TIFFWriteScanline(t, row.data(), std::uint32_t(y), 0);
        }
        TIFFWriteDirectory(t);
    }
    TIFFClose(t);
    return true;
}

/// Opens the stack, draws the line along the particles' track with a band of 5 and asks for the
/// kymograph; returns when the dock shows it.
bool show_kymograph(MainWindow& window, const QString& stack) {
    window.resize(1500, 950);
    window.show();
    if (!QTest::qWaitForWindowExposed(&window) || !window.open_file(stack)) return false;
    window.canvas()->fit_to_window();
    window.select_tool(editor::CanvasTool::Line);
    window.histogram_panel()->findChild<QSpinBox*>("histogram_band")->setValue(5);
    window.canvas()->set_line({2, 60}, {197, 61});
    window.show_kymograph();
    return QTest::qWaitFor(
        [&] { return window.kymograph_panel()->kymographer().result() != nullptr; }, 60000);
}

// A polyline along the right-moving particle's track, up and down through the blinking one and
// up and down again to the left-moving one's track.
const std::vector<ops::Point2> kTrack = {{2, 60},   {70, 60},  {85, 35}, {100, 58},
                                         {115, 35}, {130, 62}, {197, 62}};

/// Opens the stack, adds the polyline region "track" with a band of 5 (selected, Regions tool
/// active) beside a Line tool line, and asks for the kymograph; returns when the dock shows it.
bool show_polyline_kymograph(MainWindow& window, const QString& stack) {
    window.resize(1500, 950);
    window.show();
    if (!QTest::qWaitForWindowExposed(&window) || !window.open_file(stack)) return false;
    window.canvas()->fit_to_window();
    window.canvas()->set_line({2, 20}, {197, 21});
    window.select_tool(editor::CanvasTool::Regions);
    ops::ProfileRegion track;
    track.name = "track";
    track.shape = ops::RegionShape::Polyline;
    track.points = kTrack;
    track.width = 5;
    window.session().regions().add(track);
    window.regions_panel()->refresh();
    window.canvas()->update();
    window.show_kymograph();
    return QTest::qWaitFor(
        [&] { return window.kymograph_panel()->kymographer().result() != nullptr; }, 60000);
}

}  // namespace

class TestKymographGui : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

  private slots:
    void initTestCase() {
        if (const char* why = lacuna::test::gl_window_unavailable()) QSKIP(why);
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(write_stack(dir_.filePath("particles.tif")));
    }

    void kymograph_dock_shows_the_line_through_the_stack() {
        MainWindow window;
        QVERIFY(show_kymograph(window, dir_.filePath("particles.tif")));
        editor::KymographPanel* panel = window.kymograph_panel();
        QVERIFY(window.findChild<QDockWidget*>("kymograph_dock")->isVisible());
        const session::KymographResult* r = panel->kymographer().result();
        // The engine's kymograph of the same pages and line.
        std::vector<ImageF32> frames;
        for (const NativeImage& page :
             io::read_native(dir_.filePath("particles.tif").toStdString()).pages)
            frames.push_back(measurement_plane(page));
        ops::KymographParams p;
        p.path = {{2, 60}, {197, 61}};
        p.band_width = 5;
        const ImageF32 expected = ops::kymograph_reference(frames, p);
        QCOMPARE(r->values.width(), expected.width());
        QCOMPARE(r->values.height(), kFrames);
        for (int t = 0; t < kFrames; ++t)
            for (int x = 0; x < expected.width(); ++x)
                QCOMPARE(r->values.at(x, t), expected.at(x, t));
        QCOMPARE(r->distance_unit, std::string("\u00b5m"));
        QVERIFY2(panel->status().contains("positions"), qPrintable(panel->status()));

        // Hovering the image reads out distance, time and value.
        editor::KymographView* view = panel->view();
        const QRect rect = view->image_rect();
        QTest::mouseMove(view, rect.center());
        QTRY_VERIFY(!panel->readout().isEmpty());
        QVERIFY2(
            panel->readout().contains("\u00b5m, t = ") && panel->readout().contains(" s (frame"),
            qPrintable(panel->readout()));

        // Export: the float TIFF and the CSV beside it.
        QCOMPARE(panel->export_to(dir_.filePath("k.tif")), QString());
        QCOMPARE(io::read_native(dir_.filePath("k.tif").toStdString()).pages.at(0).height(),
                 kFrames);
        QFile csv(dir_.filePath("k.csv"));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QByteArray text = csv.readAll();
        QVERIFY(text.contains("# frame interval 0.1 s, from the file (ImageJ finterval=0.1 sec)"));
        QVERIFY(text.contains("\nframe,time_s,p0,"));
    }

    void kymograph_follows_the_selected_polyline() {
        MainWindow window;
        QVERIFY(show_polyline_kymograph(window, dir_.filePath("particles.tif")));
        editor::KymographPanel* panel = window.kymograph_panel();
        QVERIFY2(panel->path_text().contains("region 'track' (polyline)"),
                 qPrintable(panel->path_text()));
        QVERIFY2(panel->status().contains("along region 'track'"), qPrintable(panel->status()));
        const session::KymographResult* r = panel->kymographer().result();
        std::vector<ImageF32> frames;
        for (const NativeImage& page :
             io::read_native(dir_.filePath("particles.tif").toStdString()).pages)
            frames.push_back(measurement_plane(page));
        ops::KymographParams p;
        p.path = kTrack;
        p.band_width = 5;
        const ImageF32 expected = ops::kymograph_reference(frames, p);
        QCOMPARE(r->values.width(), expected.width());
        for (int t = 0; t < kFrames; ++t)
            for (int x = 0; x < expected.width(); ++x)
                QCOMPARE(r->values.at(x, t), expected.at(x, t));
        // Nothing selected: the dock says it follows the Line tool's line.
        window.session().regions().select(-1);
        panel->update_path();
        QVERIFY2(panel->path_text().contains("the Line tool's line"),
                 qPrintable(panel->path_text()));
        // The Regions plot: the x axis and legend in µm (0.5 µm pixels).
        const QString legend = window.regions_panel()->plot()->legend_text(0);
        QVERIFY2(legend.contains("\u00b5m") && legend.contains(" px)"), qPrintable(legend));
        // Its hover readout: the distance in µm, the region's value and pixels there.
        window.findChild<QDockWidget*>("regions_dock")->raise();
        editor::RegionsPlot* plot = window.regions_panel()->plot();
        QTRY_VERIFY(plot->isVisible());
        // Sent to the plot directly: QTest::mouseMove moves the X pointer, whose move (or none,
        // when the pointer is there already) reaches the plot late on a loaded machine.
        const QPointF centre = plot->rect().center();
        QMouseEvent hover(QEvent::MouseMove, centre, plot->mapToGlobal(centre), Qt::NoButton,
                          Qt::NoButton, Qt::NoModifier);
        QApplication::sendEvent(plot, &hover);
        const QLabel* readout = window.regions_panel()->findChild<QLabel*>("regions_readout");
        QTRY_VERIFY(!readout->text().isEmpty());
        QVERIFY2(readout->text().contains(" \u00b5m: track ") && readout->text().contains(" px)"),
                 qPrintable(readout->text()));
    }

    void refuses_without_a_stack() {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.open_file(LACUNA_SOURCE_DIR "/tests/data/photos/messi5.jpg"));
        window.show_kymograph();
        QVERIFY(window.kymograph_panel()->status().contains("needs a stack"));
        QVERIFY(window.kymograph_panel()->kymographer().result() == nullptr);
    }

    /// The README's screenshot: only when LACUNA_SCREENSHOT_DIR names a folder.
    void screenshot() {
        const QString out = qEnvironmentVariable("LACUNA_SCREENSHOT_DIR");
        if (out.isEmpty()) QSKIP("set LACUNA_SCREENSHOT_DIR to write the README screenshot");
        MainWindow window;
        QVERIFY(show_kymograph(window, dir_.filePath("particles.tif")));
        QTest::qWait(200);
        window.canvas()->fit_to_window();
        editor::KymographView* view = window.kymograph_panel()->view();
        const QRect r = view->image_rect();
        QTest::mouseMove(view, {r.left() + r.width() * 3 / 10, r.top() + r.height() / 4});
        QTRY_VERIFY(!window.kymograph_panel()->readout().isEmpty());
        QTest::qWait(400);
        QVERIFY(window.grab().save(out + "/kymograph-editor.png", "PNG"));
    }
    /// The README's screenshot of a polyline region's kymograph (LACUNA_SCREENSHOT_DIR).
    void screenshot_polyline() {
        const QString out = qEnvironmentVariable("LACUNA_SCREENSHOT_DIR");
        if (out.isEmpty()) QSKIP("set LACUNA_SCREENSHOT_DIR to write the README screenshot");
        MainWindow window;
        QVERIFY(show_polyline_kymograph(window, dir_.filePath("particles.tif")));
        QTest::qWait(200);
        window.canvas()->fit_to_window();
        window.canvas()->zoom_by(3.5);  // the region's vertices and band in view
        editor::KymographView* view = window.kymograph_panel()->view();
        const QRect r = view->image_rect();
        // Moved twice: the pointer may already rest where the other screenshot left it.
        QTest::mouseMove(view, r.center());
        QTest::mouseMove(view, {r.left() + r.width() * 7 / 20, r.top() + r.height() / 3});
        QTRY_VERIFY(!window.kymograph_panel()->readout().isEmpty());
        QTest::qWait(400);
        // QWidget::grab shows the canvas's GL frame without the regions QPainter draws over it:
        // the canvas's own framebuffer goes over its place (as test_editor's regions shot).
        QPixmap shot = window.grab();
        {
            QPainter painter(&shot);
            painter.drawImage(
                QRect(window.canvas()->mapTo(&window, QPoint(0, 0)), window.canvas()->size()),
                window.canvas()->grabFramebuffer());
        }
        QVERIFY(shot.save(out + "/kymograph-polyline.png", "PNG"));
    }
};

QTEST_MAIN(TestKymographGui)
#include "test_kymograph_gui.moc"
