// The editor's window under Xvfb (CPU backend, Mesa GL): opening, showing pixels exactly at 1:1,
// zooming, saving, and an error dialog instead of a crash for a bad file.
#include "canvas.hpp"
#include "gui_test_util.hpp"
#include "main_window.hpp"
#include "filter_panel.hpp"
#include <filter_tool.hpp>
#include <lacuna/ops/bilateral.hpp>
#include <lacuna/ops/scale.hpp>
#include <lacuna/video/smooth_video.hpp>
#include "display_panel.hpp"
#include "histogram_panel.hpp"
#include "object_removal_panel.hpp"
#include "regions_panel.hpp"
#include <regions_tool.hpp>
#include "retarget_panel.hpp"
#include "video_panel.hpp"
#include <retarget_tool.hpp>
#include <grabcut.hpp>
#include <remove_object_tool.hpp>

#include <lacuna/core/backend.hpp>
#include <lacuna/core/display.hpp>
#include <lacuna/ops/line_histogram.hpp>
#include <lacuna/ops/importance.hpp>
#include <lacuna/ops/seam_carve.hpp>

#include <lacuna/io/image_io.hpp>
#include <lacuna/io/video_io.hpp>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QPushButton>
#include <QSpinBox>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QLabel>
#include <QPainter>
#include <QListWidget>
#include <QSignalSpy>

#include <cmath>
#include <QMessageBox>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QStandardPaths>
#include <QProgressBar>
#include <QDoubleSpinBox>
#include <QSpinBox>
#include <QStatusBar>
#include <QSlider>
#include <QToolButton>
#include <QtTest>

using namespace lacuna;
using lacuna::editor::MainWindow;
using lacuna::test::widget_point;

namespace {
const QString kSample = QStringLiteral(LACUNA_SOURCE_DIR "/resources/sample/fruits.jpg");
const QString kMessi = QStringLiteral(LACUNA_SOURCE_DIR "/tests/data/photos/messi5.jpg");

/// The framebuffer pixel (of a grabFramebuffer image) that shows image point (x, y).
QPoint frame_point(const editor::Canvas* canvas, const QImage& frame, const double x,
                   const double y) {
    const render::PointF s = canvas->view().to_screen({x, y});
    const double scale = frame.devicePixelRatio() / canvas->devicePixelRatioF();
    return {int(s.x * scale), int(s.y * scale)};
}

/// The first `frames` frames of OpenCV's tree.avi sample (320 × 240) as an MP4 clip at 15 fps.
void write_tree_clip(const QString& path, const int frames) {
    io::VideoReader tree(LACUNA_SOURCE_DIR "/tests/data/video/tree.avi");
    io::VideoWriter writer(path.toStdString(), 320, 240, 15.0);
    for (int f = 0; f < frames; ++f) writer.write(*tree.next());
    writer.finish();
}

/// The window's menu action whose text starts with `text` (with its & marker), or null.
QAction* action_starting_with(const MainWindow& window, const QString& text) {
    for (QAction* a : window.findChildren<QAction*>())
        if (a->text().startsWith(text)) return a;
    return nullptr;
}

/// Shows the window, opens `path` and sets the canvas to 1:1.
bool show_at_one_to_one(MainWindow& window, const QString& path, const QSize size = {1100, 700}) {
    window.resize(size);
    window.show();
    if (!QTest::qWaitForWindowExposed(&window) || !window.open_file(path)) return false;
    window.canvas()->actual_size();
    return true;
}

/// Brushes a closed loop of strokes over the football in messi5.jpg (centre 362, 312).
void brush_over_ball(editor::Canvas* canvas) {
    const QPoint start = widget_point(canvas, 350, 300);
    QTest::mousePress(canvas, Qt::LeftButton, {}, start);
    for (const auto& [x, y] :
         {std::pair{375.0, 300.0}, {375.0, 325.0}, {350.0, 325.0}, {362.0, 312.0}})
        QTest::mouseMove(canvas, widget_point(canvas, x, y));
    QTest::mouseRelease(canvas, Qt::LeftButton, {}, widget_point(canvas, 362, 312));
}

QMessageBox* visible_error_dialog(const QWidget* window) {
    for (QMessageBox* box : window->findChildren<QMessageBox*>("lacuna_error_dialog")) {
        if (box->isVisible()) return box;
    }
    return nullptr;
}

Rgba8 to_rgba(const QColor& c) {
    return Rgba8{std::uint8_t(c.red()), std::uint8_t(c.green()), std::uint8_t(c.blue()),
                 std::uint8_t(c.alpha())};
}
}  // namespace

class TestEditor : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

  private slots:
    void initTestCase() {
        if (const char* why = lacuna::test::gl_window_unavailable()) QSKIP(why);
        QStandardPaths::setTestModeEnabled(true);
    }

    void opens_sample_and_shows_exact_pixels() {
        MainWindow window;
        // Large enough for the whole 512 × 480 sample at 1:1 beside the panels.
        window.resize(1500, 960);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.open_sample());
        editor::Canvas* canvas = window.canvas();
        QCOMPARE(canvas->image().width(), 512);
        QCOMPARE(canvas->image().height(), 480);
        QVERIFY2(canvas->gl_error().isEmpty(), qPrintable(canvas->gl_error()));
        canvas->actual_size();
        const QImage frame = canvas->grabFramebuffer();
        QVERIFY(!frame.isNull());
        const render::ViewTransform& view = canvas->view();
        const double dpr = canvas->devicePixelRatioF();
        int checked = 0;
        for (const auto& [ix, iy] : {std::pair{256, 240}, {10, 10}, {500, 470}, {123, 321}}) {
            const render::PointF s = view.to_screen({ix + 0.5, iy + 0.5});
            const QPoint p(int(s.x / dpr * frame.devicePixelRatio()),
                           int(s.y / dpr * frame.devicePixelRatio()));
            QVERIFY2(frame.rect().contains(p),
                     qPrintable(QString("image point (%1, %2) is off the canvas").arg(ix).arg(iy)));
            QCOMPARE(to_rgba(frame.pixelColor(p)), canvas->image().at(ix, iy));
            ++checked;
        }
        QCOMPARE(checked, 4);
    }

    void zoom_and_fit() {
        MainWindow window;
        QVERIFY(show_at_one_to_one(window, kSample, {800, 600}));
        editor::Canvas* canvas = window.canvas();
        QCOMPARE(canvas->zoom(), 1.0);
        canvas->zoom_by(2.0);
        QCOMPARE(canvas->zoom(), 2.0);
        canvas->fit_to_window();
        QVERIFY(canvas->zoom() <= 1.0);
        QVERIFY(window.windowTitle().contains("fruits.jpg"));
    }

    void brush_fill_undo_redo() {
        MainWindow window;
        QVERIFY(show_at_one_to_one(window, kMessi));
        editor::Canvas* canvas = window.canvas();
        const ImageRgba8 original = clone(canvas->image().view());

        // Choose the brush in the panel, 30 px wide, and paint over the ball.
        window.removal_panel()->findChild<QToolButton*>("tool_brush")->click();
        QCOMPARE(canvas->tool(), editor::CanvasTool::Brush);
        window.removal_panel()->findChild<QSlider*>("brush_size")->setValue(30);
        brush_over_ball(canvas);
        const Mask painted = clone(canvas->mask().view());
        QVERIFY2(count_selected(painted.view()) > 1200, "the stroke did not reach the mask");
        QCOMPARE(painted.at(362, 312), std::uint8_t{255});
        QCOMPARE(painted.at(100, 100), std::uint8_t{0});
        QCOMPARE(window.session().history().count(), 1);

        // Fill: the fill grows in steps until done, then becomes one undoable edit.
        QVERIFY(window.start_fill());
        QVERIFY(window.fill_running());
        QTRY_VERIFY_WITH_TIMEOUT(!window.fill_running(), 120000);
        QCOMPARE(window.session().history().count(), 2);
        QCOMPARE(window.removal_panel()->progress_bar()->value(), 1000);
        const ImageRgba8 filled = clone(canvas->image().view());
        std::int64_t hole = 0, changed_inside = 0, changed_outside = 0;
        for (int y = 0; y < original.height(); ++y)
            for (int x = 0; x < original.width(); ++x) {
                const bool in_hole = painted.at(x, y) >= 128;
                const bool changed = filled.at(x, y) != original.at(x, y);
                hole += in_hole;
                changed_inside += in_hole && changed;
                changed_outside += !in_hole && changed;
            }
        QCOMPARE(changed_outside, std::int64_t{0});
        QVERIFY2(changed_inside > hole * 9 / 10,
                 qPrintable(QString("%1 of %2").arg(changed_inside).arg(hole)));
        QCOMPARE(count_selected(canvas->mask().view()), std::int64_t{0});  // the mask is used up
        // The ball was white and black: the fill is grass (green dominates) where it stood.
        const Rgba8 centre = filled.at(362, 312);
        QVERIFY2(centre.g > centre.r && centre.g > centre.b, "the ball is still there");
        // What is on screen is the filled image.
        const QImage frame = canvas->grabFramebuffer();
        const QPoint p = frame_point(canvas, frame, 362.5, 312.5);
        const Rgba8 shown = to_rgba(frame.pixelColor(p));
        QVERIFY2(shown == centre, qPrintable(QString("shown %1,%2,%3 image %4,%5,%6 at %7,%8")
                                                 .arg(shown.r)
                                                 .arg(shown.g)
                                                 .arg(shown.b)
                                                 .arg(centre.r)
                                                 .arg(centre.g)
                                                 .arg(centre.b)
                                                 .arg(p.x())
                                                 .arg(p.y())));

        // Undo restores bit-exactly: first the fill (pixels and mask), then the stroke.
        window.undo();
        QVERIFY(equal_pixels<Rgba8>(canvas->image().view(), original.view()));
        QVERIFY(equal_pixels<std::uint8_t>(canvas->mask().view(), painted.view()));
        window.undo();
        QCOMPARE(count_selected(canvas->mask().view()), std::int64_t{0});
        window.redo();
        window.redo();
        QVERIFY(equal_pixels<Rgba8>(canvas->image().view(), filled.view()));
        window.session().history().set_clean();
    }

    void scribble_select_proposes_the_object_under_the_strokes() {
        MainWindow window;
        QVERIFY(show_at_one_to_one(window, kMessi));
        editor::Canvas* canvas = window.canvas();
        editor::ObjectRemovalPanel* panel = window.removal_panel();

        // Scribble: strokes across the ball; GrabCut's object under them becomes the mask.
        panel->findChild<QToolButton*>("tool_scribble")->click();
        QCOMPARE(canvas->tool(), editor::CanvasTool::Scribble);
        QVERIFY(window.session().remove_object().scribble_mode());
        panel->findChild<QSlider*>("brush_size")->setValue(6);
        QTest::mousePress(canvas, Qt::LeftButton, {}, widget_point(canvas, 350.5, 312.5));
        QTest::mouseMove(canvas, widget_point(canvas, 362.5, 306.5));
        QTest::mouseMove(canvas, widget_point(canvas, 376.5, 314.5));
        {
            // While drawn, the strokes show over the picture (a green band).
            QVERIFY(!window.session().active_tool()->overlay().scribble.empty());
            const QImage frame = canvas->grabFramebuffer();
            const QColor c = frame.pixelColor(frame_point(canvas, frame, 362.5, 306.5));
            QVERIFY2(c.green() > c.red() + 40,
                     qPrintable(QString("%1 %2 %3").arg(c.red()).arg(c.green()).arg(c.blue())));
        }
        QTest::mouseRelease(canvas, Qt::LeftButton, {}, widget_point(canvas, 376.5, 314.5));
        QVERIFY(window.session().active_tool()->overlay().scribble.empty());
        QCOMPARE(window.session().history().count(), 1);
        QCOMPARE(window.session().history().undo_label(), std::string("Scribble Select"));
        QCOMPARE(canvas->mask().at(362, 312), std::uint8_t{255});  // the ball
        QCOMPARE(canvas->mask().at(300, 312), std::uint8_t{0});    // grass beside it
        const std::int64_t ball = count_selected(canvas->mask().view());
        QVERIFY2(ball > 1000 && ball < 74 * 74, qPrintable(QString::number(ball)));
        window.undo();
        QCOMPARE(count_selected(canvas->mask().view()), std::int64_t{0});
        window.session().history().set_clean();
    }

    void box_select_grow_shrink_and_mask_files() {
        MainWindow window;
        QVERIFY(show_at_one_to_one(window, kMessi));
        editor::Canvas* canvas = window.canvas();
        const ImageRgba8 original = clone(canvas->image().view());
        editor::ObjectRemovalPanel* panel = window.removal_panel();

        // Box: drag a rectangle around the ball; GrabCut's proposal becomes the mask.
        panel->findChild<QToolButton*>("tool_box")->click();
        QCOMPARE(canvas->tool(), editor::CanvasTool::Box);
        const QPoint from = widget_point(canvas, 326.5, 276.5);
        const QPoint to = widget_point(canvas, 399.5, 349.5);
        QTest::mousePress(canvas, Qt::LeftButton, {}, from);
        QTest::mouseMove(canvas, widget_point(canvas, 360, 310));
        QTest::mouseMove(canvas, to);
        // The rectangle the canvas handed the tool: the image pixels under both corners.
        const double dpr = canvas->devicePixelRatioF();
        const render::PointF a = canvas->view().to_image({from.x() * dpr, from.y() * dpr});
        const render::PointF b = canvas->view().to_image({to.x() * dpr, to.y() * dpr});
        const PixelRect box{int(std::floor(a.x)), int(std::floor(a.y)), int(std::floor(b.x)),
                            int(std::floor(b.y))};
        {
            // While dragged, the rectangle is drawn over the picture (black dashes, white gaps).
            QVERIFY(window.session().active_tool()->overlay().box.has_value());
            const QImage frame = canvas->grabFramebuffer();
            int drawn = 0;
            for (int x = box.x0 + 4; x < box.x0 + 70; ++x) {
                const QColor c =
                    frame.pixelColor(frame_point(canvas, frame, x + 0.5, box.y0 + 0.5));
                drawn += (c == Qt::white || c == Qt::black);
            }
            QVERIFY2(drawn > 60, qPrintable(QString("%1 of 66 edge pixels drawn").arg(drawn)));
        }
        QTest::mouseRelease(canvas, Qt::LeftButton, {}, to);
        // GrabCut's object and its rim (kBoxMargin).
        const Mask proposed = grow_mask(session::grabcut_mask(original.view(), box).view(),
                                        session::RemoveObjectTool::kBoxMargin);
        QVERIFY(equal_pixels<std::uint8_t>(canvas->mask().view(), proposed.view()));
        QCOMPARE(window.session().history().count(), 1);
        QCOMPARE(window.session().history().undo_label(), std::string("Box Select"));
        QCOMPARE(canvas->mask().at(362, 312), std::uint8_t{255});  // the ball
        QCOMPARE(canvas->mask().at(300, 312), std::uint8_t{0});    // grass beside the box
        const std::int64_t ball = count_selected(proposed.view());
        QVERIFY2(ball > 1000 && ball < 74 * 74 * 3 / 4, qPrintable(QString::number(ball)));

        // Grow by the panel's N, then Shrink: one edit each, exactly grow_mask.
        panel->findChild<QSpinBox*>("grow_pixels")->setValue(6);
        panel->findChild<QPushButton*>("grow_button")->click();
        const Mask grown = grow_mask(proposed.view(), 6);
        QVERIFY(equal_pixels<std::uint8_t>(canvas->mask().view(), grown.view()));
        QCOMPARE(window.session().history().count(), 2);
        panel->findChild<QSpinBox*>("grow_pixels")->setValue(2);
        panel->findChild<QPushButton*>("shrink_button")->click();
        const Mask shrunk = grow_mask(grown.view(), -2);
        QVERIFY(equal_pixels<std::uint8_t>(canvas->mask().view(), shrunk.view()));
        QCOMPARE(window.session().history().count(), 3);
        window.undo();
        QVERIFY(equal_pixels<std::uint8_t>(canvas->mask().view(), grown.view()));
        window.redo();

        // The brush refines the proposal.
        panel->findChild<QToolButton*>("tool_brush")->click();
        panel->findChild<QSlider*>("brush_size")->setValue(10);
        QTest::mousePress(canvas, Qt::LeftButton, {}, widget_point(canvas, 100, 100));
        QTest::mouseRelease(canvas, Qt::LeftButton, {}, widget_point(canvas, 100, 100));
        QCOMPARE(canvas->mask().at(100, 100), std::uint8_t{255});
        QCOMPARE(window.session().history().count(), 4);

        // Save writes white = fill; Load puts it back as one edit; a wrong size is refused.
        const QString file = dir_.filePath("ball-mask.png");
        QVERIFY(window.save_mask(file));
        // The file holds what the fill takes: coverage of at least one half (the brush is soft).
        Mask saved = clone(canvas->mask().view());
        for (int y = 0; y < saved.height(); ++y)
            for (int x = 0; x < saved.width(); ++x)
                saved.at(x, y) = saved.at(x, y) >= 128 ? 255 : 0;
        panel->findChild<QPushButton*>("clear_mask_button")->click();
        QCOMPARE(count_selected(canvas->mask().view()), std::int64_t{0});
        QVERIFY(window.load_mask(file));
        QVERIFY(equal_pixels<std::uint8_t>(canvas->mask().view(), saved.view()));
        QCOMPARE(window.session().history().undo_label(), std::string("Load Mask"));
        QVERIFY(window.load_mask(kSample) == false);
        QCOMPARE(panel->findChild<QLabel*>("removal_status")->text(),
                 QString("Mask fruits.jpg is 512 × 480 pixels; the picture is %1 × %2.")
                     .arg(original.width())
                     .arg(original.height()));
        QVERIFY(equal_pixels<std::uint8_t>(canvas->mask().view(), saved.view()));
        window.session().history().set_clean();
    }

    void backslash_held_shows_the_picture_before_the_fill() {
        MainWindow window;
        QVERIFY(show_at_one_to_one(window, kMessi));
        editor::Canvas* canvas = window.canvas();
        const ImageRgba8 original = clone(canvas->image().view());
        // Nothing to compare before a fill.
        QVERIFY(!window.compare_before(true));
        window.removal_panel()->findChild<QToolButton*>("tool_brush")->click();
        window.removal_panel()->findChild<QSlider*>("brush_size")->setValue(30);
        brush_over_ball(canvas);
        QVERIFY(window.start_fill());
        QTRY_VERIFY_WITH_TIMEOUT(!window.fill_running(), 120000);
        QVERIFY(window.removal_panel()
                    ->findChild<QLabel*>("removal_status")
                    ->text()
                    .contains("Hold \\ to see the picture before."));
        const ImageRgba8 filled = clone(canvas->image().view());
        const int edits = window.session().history().count();
        const auto shown_at = [&](const double x, const double y) {
            const QImage frame = canvas->grabFramebuffer();
            return to_rgba(frame.pixelColor(frame_point(canvas, frame, x, y)));
        };
        QCOMPARE(shown_at(362.5, 312.5), filled.at(362, 312));
        QVERIFY(filled.at(362, 312) != original.at(362, 312));

        // Held (the key goes to the canvas and up to the window): the ball is back on screen,
        // the whole picture as before; the document and its history are untouched.
        QTest::keyPress(canvas, Qt::Key_Backslash);
        QVERIFY(window.session().remove_object().comparing());
        QCOMPARE(shown_at(362.5, 312.5), original.at(362, 312));
        QVERIFY(equal_pixels<Rgba8>(window.session().shown_image().view(), original.view()));
        QVERIFY(equal_pixels<Rgba8>(canvas->image().view(), filled.view()));
        QCOMPARE(window.session().history().count(), edits);
        // Released: the result again.
        QTest::keyRelease(canvas, Qt::Key_Backslash);
        QVERIFY(!window.session().remove_object().comparing());
        QCOMPARE(shown_at(362.5, 312.5), filled.at(362, 312));
        QVERIFY(equal_pixels<Rgba8>(window.session().shown_image().view(), filled.view()));
        // After an undo there is no fill to compare with.
        window.undo();
        QVERIFY(!window.compare_before(true));
        QVERIFY(!window.session().remove_object().comparing());
        QVERIFY(equal_pixels<Rgba8>(window.session().shown_image().view(), original.view()));
        window.session().history().set_clean();
    }

    void fill_needs_a_mask_and_cancel_restores() {
        MainWindow window;
        QVERIFY(show_at_one_to_one(window, kMessi));
        editor::Canvas* canvas = window.canvas();
        QVERIFY(!window.start_fill());  // nothing painted: a hint, no dialog, no edit
        QVERIFY(visible_error_dialog(&window) == nullptr);
        QCOMPARE(window.session().history().count(), 0);
        const ImageRgba8 original = clone(canvas->image().view());
        window.removal_panel()->set_tool(editor::CanvasTool::Brush);
        brush_over_ball(canvas);
        const Mask painted = clone(canvas->mask().view());
        // Cancel before the first step (a small fill can finish within one step, so waiting
        // would race): the picture and the mask are as they were, and nothing is recorded.
        QVERIFY(window.start_fill());
        window.cancel_fill();
        QVERIFY(!window.fill_running());
        int diffs = 0, fx = -1, fy = -1;
        for (int y = 0; y < original.height(); ++y)
            for (int x = 0; x < original.width(); ++x)
                if (canvas->image().at(x, y) != original.at(x, y)) {
                    ++diffs;
                    if (fx < 0) fx = x, fy = y;
                }
        QVERIFY2(diffs == 0, qPrintable(QString("%1 differ, first %2,%3 mask %4")
                                            .arg(diffs)
                                            .arg(fx)
                                            .arg(fy)
                                            .arg(painted.at(std::max(fx, 0), std::max(fy, 0)))));
        QVERIFY(equal_pixels<std::uint8_t>(canvas->mask().view(), painted.view()));
        QCOMPARE(window.session().history().count(), 1);  // only the stroke
        // The eraser takes the mask away again, as one more undoable edit.
        window.removal_panel()->set_tool(editor::CanvasTool::Eraser);
        window.removal_panel()->findChild<QSlider*>("brush_size")->setValue(120);
        brush_over_ball(canvas);
        QCOMPARE(count_selected(canvas->mask().view()), std::int64_t{0});
        QCOMPARE(window.session().history().count(), 2);
        window.session().history().set_clean();
    }

    void retarget_slider_previews_and_applies() {
        MainWindow window;
        QVERIFY(show_at_one_to_one(window, kMessi));
        editor::Canvas* canvas = window.canvas();
        const ImageRgba8 original = clone(canvas->image().view());
        QTRY_VERIFY_WITH_TIMEOUT(window.retarget_session()->vertical_ready(), 120000);

        // Drag the width slider to 75 %: the canvas shows the seam-carved frame at once.
        window.retarget_panel()->width_slider()->setValue(750);
        QCOMPARE(window.retarget_panel()->target_width(), 411);
        QVERIFY(canvas->previewing());
        const Mask none(original.width(), original.height(), 0);
        const ops::CarveInput input{original.view(), &none, &none, SeamEnergy::Forward};
        const ops::SeamOrder order =
            ops::seam_order_fast(input, ops::SeamDirection::Vertical, 548 - 411);
        const ImageRgba8 expected = ops::remove_seams<Rgba8>(original.view(), order, 548 - 411);
        QVERIFY(equal_pixels<Rgba8>(canvas->preview().view(), expected.view()));
        const QImage frame = canvas->grabFramebuffer();
        int checked = 0;
        for (const auto& [ix, iy] : {std::pair{10, 10}, {200, 150}, {400, 330}}) {
            const QPoint p = frame_point(canvas, frame, ix + 0.5, iy + 0.5);
            if (!frame.rect().contains(p)) continue;
            QCOMPARE(to_rgba(frame.pixelColor(p)), expected.at(ix, iy));
            ++checked;
        }
        QVERIFY(checked >= 2);

        // Apply makes it the document, as one undoable edit; undo restores bit-exactly.
        QVERIFY(window.apply_retarget());
        QCOMPARE(canvas->image().width(), 411);
        QVERIFY(!canvas->previewing());
        window.undo();
        QVERIFY(equal_pixels<Rgba8>(canvas->image().view(), original.view()));
        window.redo();
        QVERIFY(equal_pixels<Rgba8>(canvas->image().view(), expected.view()));
        window.session().history().set_clean();
    }

    void undo_follows_the_tool_whichever_way_it_is_chosen() {
        // Undo acts on the Regions list while the Regions tool is active (its own history,
        // empty here) and on the document's history otherwise. Choosing a mask tool after
        // Regions left Undo disabled (a retarget applied, Undo greyed out: the edit looked
        // unrecoverable) until a tool chosen another way refreshed it.
        MainWindow window;
        QVERIFY(show_at_one_to_one(window, kMessi));
        QTRY_VERIFY_WITH_TIMEOUT(window.retarget_session()->vertical_ready(), 120000);
        window.retarget_panel()->width_slider()->setValue(900);
        QVERIFY(window.apply_retarget());
        QAction* undo = action_starting_with(window, "&Undo");
        QVERIFY(undo != nullptr);
        QVERIFY(undo->isEnabled());
        for (const QString& tool : {"&Scribble Select", "Bo&x Select", "&Brush (mask)",
                                    "&Eraser (mask)", "&Line Histogram", "&Pan"}) {
            action_starting_with(window, "&Regions (")->trigger();
            QVERIFY2(!undo->isEnabled(), qPrintable(tool));  // the empty Regions list
            action_starting_with(window, tool)->trigger();
            QVERIFY2(undo->isEnabled(), qPrintable(tool));
        }
        action_starting_with(window, "&Regions (")->trigger();
        window.session().select(session::ToolKind::Retarget);  // as the Retarget panel does
        QVERIFY(undo->isEnabled());
        window.session().history().set_clean();
    }

    void the_retarget_tab_takes_over_from_a_removal_mask_tool() {
        // The brush left active behind the Retarget tab painted a removal mask while the
        // Retarget panel's own mask buttons said Pan. Raising the tab now selects its tool.
        MainWindow window;
        QVERIFY(show_at_one_to_one(window, kMessi));
        for (const QString& tool :
             {"&Brush (mask)", "&Eraser (mask)", "Bo&x Select", "&Scribble Select"}) {
            action_starting_with(window, tool)->trigger();
            QCOMPARE(window.session().active_kind(), session::ToolKind::RemoveObject);
            window.findChild<QDockWidget*>("retarget_dock")->raise();
            QTRY_COMPARE(window.session().active_kind(), session::ToolKind::Retarget);
            QVERIFY2(window.canvas()->tool() == editor::CanvasTool::Pan, qPrintable(tool));
            brush_over_ball(window.canvas());
            QCOMPARE(
                count_selected(window.session().document().mask(session::MaskLayer::Fill).view()),
                std::int64_t{0});
            QCOMPARE(window.session().history().index(), 0);
        }
        // The Line tool is left alone: drawing a line changes nothing in the document.
        action_starting_with(window, "&Line Histogram")->trigger();
        const session::ToolKind line = window.session().active_kind();
        window.findChild<QDockWidget*>("remove_object_dock")->raise();
        window.findChild<QDockWidget*>("retarget_dock")->raise();
        QTest::qWait(50);
        QCOMPARE(window.session().active_kind(), line);
    }

    void retarget_mix_and_detections_from_the_panel() {
        // Importance in the panel: the Content controls are the mix table's fields; the Amount
        // slider gives the CLI's mixed result live; Automatic takes the Amount over; the detections
        // are drawn and become the protect mask.
        MainWindow window;
        QVERIFY(show_at_one_to_one(window, kMessi));
        editor::Canvas* canvas = window.canvas();
        const ImageRgba8 original = clone(canvas->image().view());
        session::RetargetTool* tool = window.retarget_session();
        QTRY_VERIFY_WITH_TIMEOUT(tool->vertical_ready(), 120000);
        editor::RetargetPanel* panel = window.retarget_panel();
        for (const ops::ParamField<ops::RetargetMix>& f : ops::retarget_mix_param_fields()) {
            QWidget* control = panel->mix_control(f.spec.name);
            QVERIFY(control != nullptr);
            QCOMPARE(control->objectName(),
                     QString("retarget_mix_%1")
                         .arg(QString::fromUtf8(f.spec.name.data(), f.spec.name.size())));
        }
        // A weight is enabled with its switch.
        QVERIFY(panel->mix_control("face-weight")->isEnabled());
        QVERIFY(!panel->mix_control("line-weight")->isEnabled());
        qobject_cast<QCheckBox*>(panel->mix_control("lines"))->setChecked(true);
        QVERIFY(panel->mix_control("line-weight")->isEnabled());
        QVERIFY(tool->mix().importance.lines);
        qobject_cast<QCheckBox*>(panel->mix_control("lines"))->setChecked(false);
        QTRY_VERIFY_WITH_TIMEOUT(tool->vertical_exact(), 120000);

        // Amount 50 % at 60 % width: the CLI's `--amount 50` image, at once.
        auto* amount = qobject_cast<QSlider*>(panel->mix_control("amount"));
        amount->setValue(10);  // steps of 5 %
        QCOMPARE(tool->mix().amount, 50.0);
        panel->width_slider()->setValue(600);
        const int width = panel->target_width();
        QVERIFY(canvas->previewing());
        const ops::ImportanceMap map = ops::importance_map(original.view(), {});
        ops::RetargetParams p;
        p.width = width;
        p.height = original.height();
        p.amount = 50;
        p.importance = &map.levels;
        p.importance_unit = ops::importance_unit(SeamEnergy::Forward);
        const ImageRgba8 expected =
            ops::retarget(original.view(), p, ops::CarveImplementation::Fast).image;
        QVERIFY(equal_pixels<Rgba8>(canvas->preview().view(), expected.view()));
        const auto* status = panel->findChild<QLabel*>("retarget_status");
        QVERIFY2(status->text().contains("width 50 % seams"), qPrintable(status->text()));
        // Automatic chooses the amount: the slider gives way.
        qobject_cast<QCheckBox*>(panel->mix_control("auto"))->setChecked(true);
        QVERIFY(!amount->isEnabled());
        QVERIFY(tool->mix().automatic);
        QCOMPARE(canvas->preview().width(), width);
        QVERIFY2(status->text().startsWith("Automatic"), qPrintable(status->text()));

        // The detections over the original, and as the protect mask.
        panel->width_slider()->setValue(1000);
        panel->findChild<QCheckBox*>("retarget_show_detections")->setChecked(true);
        QCOMPARE(window.session().active_kind(), session::ToolKind::Retarget);
        QCOMPARE(tool->overlay().ellipses.size(), map.faces.size());
        const int before = window.session().history().count();
        panel->findChild<QPushButton*>("retarget_protect_detections")->click();
        QCOMPARE(window.session().history().count(), before + 1);
        const ops::FaceBox& face = map.faces.front();
        QCOMPARE(int(window.session()
                         .document()
                         .mask(session::MaskLayer::Protect)
                         .at(face.x + face.width / 2, face.y + face.height / 2)),
                 255);
        window.session().history().set_clean();
    }

    void filters_preview_live_and_apply_as_one_edit() {
        MainWindow window;
        QVERIFY(show_at_one_to_one(window, kMessi));
        editor::Canvas* canvas = window.canvas();
        const ImageRgba8 original = clone(canvas->image().view());
        editor::FilterPanel* panel = window.filter_panel();
        // Filters ▸ Bilateral: the canvas shows the filtered picture at once.
        QAction* bilateral = action_starting_with(window, "&Bilateral");
        QAction* scale = action_starting_with(window, "&Scale…");
        QVERIFY(bilateral != nullptr && scale != nullptr);
        bilateral->trigger();
        QVERIFY(window.session().filter().previewing());
        panel->sigma_range_box()->setValue(40);
        const ops::BilateralParams params = panel->bilateral();
        QCOMPARE(params.sigma_range, 40.0);
        const ImageRgba8 expected = ops::bilateral_fast(original.view(), {}, params);
        QVERIFY(equal_pixels<Rgba8>(canvas->preview().view(), expected.view()));
        QVERIFY(equal_pixels<Rgba8>(canvas->image().view(), original.view()));
        const QImage frame = canvas->grabFramebuffer();
        int checked = 0;
        for (const auto& [ix, iy] : {std::pair{10, 10}, {200, 150}, {400, 330}, {300, 60}}) {
            const QPoint p = frame_point(canvas, frame, ix + 0.5, iy + 0.5);
            QVERIFY(frame.rect().contains(p));
            QCOMPARE(to_rgba(frame.pixelColor(p)), expected.at(ix, iy));
            ++checked;
        }
        QCOMPARE(checked, 4);
        QVERIFY(window.findChild<QLabel*>("filter_timing")->text().contains("ms"));
        if (const QString shots = qEnvironmentVariable("LACUNA_SCREENSHOT_DIR"); !shots.isEmpty())
            QVERIFY(window.grab().save(shots + "/filter-bilateral.png", "PNG"));
        panel->apply_button()->click();
        QVERIFY(!window.session().filter().previewing());
        QVERIFY(equal_pixels<Rgba8>(canvas->image().view(), expected.view()));
        QCOMPARE(QString::fromStdString(window.session().history().undo_label()),
                 QString("Bilateral Filter"));

        // Filters ▸ Scale to 150 % (the aspect kept), then Cancel: nothing changes.
        scale->trigger();
        panel->width_box()->setValue(822);
        QCOMPARE(window.session().shown_width(), 822);
        QCOMPARE(window.session().shown_height(), 513);  // 342 × 822 / 548: the aspect kept
        const ImageRgba8 scaled =
            ops::scale_fast(expected.view(), 822, 513, ops::ScaleMethod::BSpline);
        QVERIFY(equal_pixels<Rgba8>(canvas->preview().view(), scaled.view()));
        if (const QString shots = qEnvironmentVariable("LACUNA_SCREENSHOT_DIR"); !shots.isEmpty())
            QVERIFY(window.grab().save(shots + "/filter-scale.png", "PNG"));
        panel->cancel_button()->click();
        QCOMPARE(window.session().shown_width(), 548);
        QVERIFY(equal_pixels<Rgba8>(canvas->image().view(), expected.view()));
        window.undo();
        QVERIFY(equal_pixels<Rgba8>(canvas->image().view(), original.view()));
        window.session().history().set_clean();
    }

    void temporal_smoothing_of_a_video() {
        QTemporaryDir dir;
        const QString clip = dir.filePath("clip.mp4");
        write_tree_clip(clip, 12);
        MainWindow window;
        QVERIFY(show_at_one_to_one(window, clip));
        QAction* temporal = action_starting_with(window, "&Temporal Smoothing");
        QVERIFY(temporal != nullptr);
        temporal->trigger();
        session::FilterTool& f = window.session().filter();
        QVERIFY2(f.previewing(), f.status().c_str());
        window.filter_panel()->temporal_size_box()->setValue(7);
        QCOMPARE(f.temporal().size, 7);
        const ImageRgba8 preview = window.canvas()->preview();
        video::SmoothVideoOptions o = f.temporal();
        const ImageRgba8 expected = video::smoothed_frame(clip.toStdString(), 0, o);
        QVERIFY(equal_pixels<Rgba8>(preview.view(), expected.view()));
        QVERIFY(!window.filter_panel()->apply_button()->isVisible());
        if (const QString shots = qEnvironmentVariable("LACUNA_SCREENSHOT_DIR"); !shots.isEmpty())
            QVERIFY(window.grab().save(shots + "/filter-temporal.png", "PNG"));
        const QString out = dir.filePath("smooth.mp4");
        QVERIFY(window.export_smoothed_video_to(out));
        QVERIFY(!window.export_smoothed_video_to(out));  // one at a time
        QTRY_VERIFY_WITH_TIMEOUT(!window.smoothing_export_running(), 120000);
        QVERIFY2(window.smoothing_export_message().startsWith("Exported 12 smoothed frames"),
                 qPrintable(window.smoothing_export_message()));
        io::VideoReader smoothed(out.toStdString());
        QCOMPARE(smoothed.info().frame_count, 12);
        QVERIFY(!window.export_smoothed_video_to(clip));  // never over the clip itself
        window.filter_panel()->cancel_button()->click();
        QVERIFY(!f.previewing());
    }

    // A 1300 × 800 photo needs factor 2: the first vertical map is the approximate one (the
    // slider previews at once, the panel says so), then the exact one replaces it; the same for
    // the horizontal map of the narrowed image. Each preview equals the engine's compaction with
    // the map shown, and Apply commits the exact one.
    void retarget_shows_approximate_map_then_exact() {
        const QString big = dir_.filePath("building-1300x800.png");
        QImage photo(LACUNA_SOURCE_DIR "/tests/data/photos/building.jpg");
        QVERIFY(!photo.isNull());
        QVERIFY(photo.scaled(1300, 800, Qt::IgnoreAspectRatio, Qt::SmoothTransformation)
                    .save(big, "PNG"));
        QCOMPARE(ops::approximate_factor(1300, 800), 2);

        MainWindow window;
        auto* dock = window.findChild<QDockWidget*>("retarget_dock");
        dock->show();
        dock->raise();
        session::RetargetTool* retarget = window.retarget_session();
        // The exact maps wait until released: the approximate state stays up however fast this
        // machine carves.
        retarget->hold_exact_maps(true);
        QSignalSpy published(&window, &MainWindow::map_published);
        QVERIFY(show_at_one_to_one(window, big, {1280, 800}));
        editor::Canvas* canvas = window.canvas();
        const auto* status = window.retarget_panel()->findChild<QLabel*>("retarget_status");
        QVERIFY(status != nullptr);
        const ImageRgba8 original = clone(canvas->image().view());
        QCOMPARE(original.width(), 1300);
        const Mask none(1300, 800, 0);
        const ops::CarveInput input{original.view(), &none, &none, SeamEnergy::Forward};

        QTRY_VERIFY_WITH_TIMEOUT(published.count() >= 1, 120000);
        QCOMPARE(published.count(), 1);
        QCOMPARE(published.at(0), (QList<QVariant>{true, false}));
        QVERIFY(retarget->vertical_ready());
        QVERIFY(!retarget->vertical_exact());

        // 75 % of the width from the approximate map: 1170 seams asked (10 % of the width is
        // the floor), carved at half size.
        window.retarget_panel()->width_slider()->setValue(750);
        QCOMPARE(window.retarget_panel()->target_width(), 975);
        QVERIFY(canvas->previewing());
        const ops::SeamOrder approx = ops::seam_order_approximate(
            input, ops::SeamDirection::Vertical, 1170, 2, ops::CarveImplementation::Fast);
        const ImageRgba8 approx_frame = ops::remove_seams<Rgba8>(original.view(), approx, 325);
        QVERIFY(equal_pixels<Rgba8>(canvas->preview().view(), approx_frame.view()));
        QVERIFY2(status->text().contains("Approximate preview (1/2 size)"),
                 qPrintable(status->text()));
        QVERIFY2(status->text().contains("exact map"), qPrintable(status->text()));
        qInfo("while approximate: %s", qPrintable(status->text()));
        if (const QString out = qEnvironmentVariable("LACUNA_SCREENSHOT_DIR"); !out.isEmpty()) {
            window.canvas()->fit_to_window();
            QTest::qWait(300);
            QVERIFY(window.grab().save(out + "/retarget-approximate.png", "PNG"));
            auto* seams = window.retarget_panel()->findChild<QCheckBox*>();
            seams->setChecked(true);
            QTest::qWait(300);
            QVERIFY(window.grab().save(out + "/retarget-approximate-seams.png", "PNG"));
            seams->setChecked(false);
            QVERIFY(equal_pixels<Rgba8>(canvas->preview().view(), approx_frame.view()));
        }

        // Height 75 % while the vertical map is still approximate: the horizontal map of the
        // approximately narrowed image (975 × 800: factor 2 again) comes first, approximate.
        window.retarget_panel()->height_slider()->setValue(750);
        QCOMPARE(window.retarget_panel()->target_height(), 600);
        QTRY_VERIFY_WITH_TIMEOUT(retarget->horizontal_ready_for(975), 120000);
        QVERIFY(!retarget->vertical_exact());  // held
        const Mask none_narrow(975, 800, 0);
        QVERIFY(equal_pixels<Rgba8>(
            canvas->preview().view(),
            ops::remove_seams<Rgba8>(
                approx_frame.view(),
                ops::seam_order_approximate({approx_frame.view(), &none_narrow, &none_narrow},
                                            ops::SeamDirection::Horizontal, 720, 2,
                                            ops::CarveImplementation::Fast),
                200)
                .view()));

        // The exact vertical map replaces the approximate one, and the horizontal maps start over
        // on the exactly narrowed image: approximate, then exact.
        retarget->hold_exact_maps(false);
        QTRY_VERIFY_WITH_TIMEOUT(retarget->vertical_exact(), 120000);
        retarget->hold_exact_maps(true);
        QList<QList<QVariant>> vertical_events;
        int exact_at = -1;
        for (int i = 0; i < published.count(); ++i) {
            if (!published.at(i).at(0).toBool()) continue;
            vertical_events << published.at(i);
            exact_at = i;
        }
        QCOMPARE(vertical_events,
                 (QList<QList<QVariant>>{{true, false}, {true, true}}));  // approximate first
        const ops::SeamOrder exact = ops::seam_order_fast(input, ops::SeamDirection::Vertical, 325);
        const ImageRgba8 exact_frame = ops::remove_seams<Rgba8>(original.view(), exact, 325);
        QVERIFY(!equal_pixels<Rgba8>(approx_frame.view(), exact_frame.view()));
        QTRY_VERIFY_WITH_TIMEOUT(published.count() > exact_at + 1, 120000);
        QCOMPARE(published.at(exact_at + 1), (QList<QVariant>{false, false}));
        QVERIFY(retarget->horizontal_ready_for(975) && !retarget->horizontal_exact());
        const ops::CarveInput narrow{exact_frame.view(), &none_narrow, &none_narrow,
                                     SeamEnergy::Forward};
        const ops::SeamOrder approx_h = ops::seam_order_approximate(
            narrow, ops::SeamDirection::Horizontal, 720, 2, ops::CarveImplementation::Fast);
        QVERIFY(equal_pixels<Rgba8>(
            canvas->preview().view(),
            ops::remove_seams<Rgba8>(exact_frame.view(), approx_h, 200).view()));
        QVERIFY2(status->text().contains("approximate", Qt::CaseInsensitive),
                 qPrintable(status->text()));
        retarget->hold_exact_maps(false);
        QTRY_VERIFY_WITH_TIMEOUT(retarget->horizontal_exact(), 120000);
        QCOMPARE(published.count(), exact_at + 3);
        QCOMPARE(published.at(exact_at + 2), (QList<QVariant>{false, true}));
        // Now the preview is the engine's exact carve, and says so.
        const ImageRgba8 expected = ops::remove_seams<Rgba8>(
            exact_frame.view(), ops::seam_order_fast(narrow, ops::SeamDirection::Horizontal, 200),
            200);
        QVERIFY(equal_pixels<Rgba8>(canvas->preview().view(), expected.view()));
        QVERIFY2(!status->text().contains("approximate", Qt::CaseInsensitive),
                 qPrintable(status->text()));
        if (const QString out = qEnvironmentVariable("LACUNA_SCREENSHOT_DIR"); !out.isEmpty()) {
            QVERIFY(window.grab().save(out + "/retarget-exact.png", "PNG"));
            auto* seams = window.retarget_panel()->findChild<QCheckBox*>();
            seams->setChecked(true);
            QTest::qWait(300);
            QVERIFY(window.grab().save(out + "/retarget-exact-seams.png", "PNG"));
            seams->setChecked(false);
        }

        // Apply commits what the preview shows.
        QVERIFY(window.apply_retarget());
        QVERIFY(equal_pixels<Rgba8>(canvas->image().view(), expected.view()));

        // A new document while the exact map is being carved cancels it: the maps that follow
        // are the new document's.
        window.undo();
        const int before_undo = published.count();
        QTRY_VERIFY_WITH_TIMEOUT(published.count() > before_undo, 120000);
        QVERIFY(retarget->busy());
        QElapsedTimer clock;
        clock.start();
        QVERIFY(window.open_file(kMessi));
        qInfo("opening another document cancelled the running carve in %lld ms",
              static_cast<long long>(clock.elapsed()));
        QTRY_VERIFY_WITH_TIMEOUT(retarget->vertical_exact(), 120000);
        QCOMPARE(published.last(), (QList<QVariant>{true, true}));
        window.retarget_panel()->width_slider()->setValue(750);
        QCOMPARE(canvas->preview().width(), 411);
        QCOMPARE(canvas->preview().height(), 342);
        window.session().history().set_clean();
    }

    // An approximate map holds whole coarse seams only: 1301 px wide asks for 1171 seams, the
    // half-size map reaches 1170. The preview stops there and says so, Apply refuses a frame of
    // another size; the exact map then reaches the target.
    void retarget_approximate_map_clamps_the_target() {
        const QString odd = dir_.filePath("building-1301x800.png");
        QImage photo(LACUNA_SOURCE_DIR "/tests/data/photos/building.jpg");
        QVERIFY(photo.scaled(1301, 800, Qt::IgnoreAspectRatio, Qt::SmoothTransformation)
                    .save(odd, "PNG"));
        MainWindow window;
        window.retarget_session()->hold_exact_maps(true);
        QSignalSpy published(&window, &MainWindow::map_published);
        QVERIFY(show_at_one_to_one(window, odd));
        QTRY_VERIFY_WITH_TIMEOUT(published.count() >= 1, 120000);
        QVERIFY(!window.retarget_session()->vertical_exact());
        window.retarget_panel()->set_target_width(130);
        QCOMPARE(window.canvas()->preview().width(), 131);
        const auto* status = window.retarget_panel()->findChild<QLabel*>("retarget_status");
        QVERIFY2(status->text().contains("reaches only 131 × 800 px"), qPrintable(status->text()));
        QVERIFY(!window.apply_retarget());
        window.retarget_session()->hold_exact_maps(false);
        QTRY_VERIFY_WITH_TIMEOUT(window.retarget_session()->vertical_exact(), 120000);
        QCOMPARE(window.canvas()->preview().width(), 130);
        QVERIFY(window.apply_retarget());
        QCOMPARE(window.canvas()->image().width(), 130);
        window.session().history().set_clean();
    }

    // When the CUDA carver throws (here: a build without CUDA asked to use it), the maps come
    // from the CPU carver and the panel says why, once.
    void retarget_falls_back_to_cpu_when_cuda_fails() {
        if (select_backend(BackendRequest::Auto).backend == Backend::Cuda)
            QSKIP("CUDA works here: nothing to fall back from");
        MainWindow window;
        window.retarget_session()->set_carve_backend(Backend::Cuda);
        QVERIFY(show_at_one_to_one(window, kMessi));
        QTRY_VERIFY_WITH_TIMEOUT(window.retarget_session()->vertical_exact(), 120000);
        const auto* status = window.retarget_panel()->findChild<QLabel*>("retarget_status");
        QVERIFY2(status->text().contains("The GPU could not carve"), qPrintable(status->text()));
        window.retarget_panel()->width_slider()->setValue(750);
        window.retarget_panel()->height_slider()->setValue(750);
        QTRY_VERIFY_WITH_TIMEOUT(window.retarget_session()->horizontal_exact(), 120000);
        QCOMPARE(status->text().count("The GPU could not carve"), 1);
        qInfo("%s", qPrintable(status->text()));
        const ImageRgba8& original = window.canvas()->image();
        // Faces are protected by default: the carves take the importance map, the horizontal
        // one the levels that followed the vertical seams.
        const ops::ImportanceMap map = ops::importance_map(original.view(), {});
        const Mask none(original.width(), original.height(), 0);
        ops::CarveInput input{original.view(), &none, &none, SeamEnergy::Forward};
        input.importance = &map.levels;
        input.importance_unit = ops::importance_unit(SeamEnergy::Forward);
        const ops::SeamOrder columns =
            ops::seam_order_fast(input, ops::SeamDirection::Vertical, 137);
        const ImageRgba8 narrowed = ops::remove_seams<Rgba8>(original.view(), columns, 137);
        const Mask levels = ops::remove_seams<std::uint8_t>(map.levels.view(), columns, 137);
        QCOMPARE(window.canvas()->preview().width(), 411);
        QCOMPARE(window.canvas()->preview().height(), 257);
        const Mask none_narrow(411, 342, 0);
        ops::CarveInput rows{narrowed.view(), &none_narrow, &none_narrow};
        rows.importance = &levels;
        rows.importance_unit = input.importance_unit;
        const ImageRgba8 expected = ops::remove_seams<Rgba8>(
            narrowed.view(), ops::seam_order_fast(rows, ops::SeamDirection::Horizontal, 85), 85);
        QVERIFY(equal_pixels<Rgba8>(window.canvas()->preview().view(), expected.view()));
        window.session().history().set_clean();
    }

    void line_histogram_follows_the_mouse() {
        MainWindow window;
        QVERIFY(show_at_one_to_one(window, kMessi));
        editor::Canvas* canvas = window.canvas();
        window.select_tool(editor::CanvasTool::Line);
        QCOMPARE(canvas->tool(), editor::CanvasTool::Line);

        // Drag a line across the crowd and the shirt; Shift snaps it horizontal.
        QTest::mousePress(canvas, Qt::LeftButton, {}, widget_point(canvas, 40.5, 150.5));
        QTest::mouseMove(canvas, widget_point(canvas, 300.5, 153.5));
        QTest::mouseRelease(canvas, Qt::LeftButton, Qt::ShiftModifier,
                            widget_point(canvas, 300.5, 153.5));
        QVERIFY(canvas->has_line());
        QVERIFY(std::abs(canvas->line_from().x - 40) <= 1 &&
                std::abs(canvas->line_from().y - 150) <= 1);
        // Without Shift the end follows the mouse (3 px lower).
        QVERIFY(std::abs(canvas->line_to().y - 153) <= 1);
        // Drag the end again with Shift held: the line snaps to 0°.
        QTest::mousePress(canvas, Qt::LeftButton, Qt::ShiftModifier,
                          widget_point(canvas, 300.5, 153.5));
        // QTest::mouseMove carries no modifiers: send the Shift-drag move event directly.
        const QPointF to = widget_point(canvas, 320.5, 156.5);
        QMouseEvent shift_move(QEvent::MouseMove, to, canvas->mapToGlobal(to), Qt::NoButton,
                               Qt::LeftButton, Qt::ShiftModifier);
        QApplication::sendEvent(canvas, &shift_move);
        QTest::mouseRelease(canvas, Qt::LeftButton, Qt::ShiftModifier, to.toPoint());
        QCOMPARE(canvas->line_to().y, canvas->line_from().y);

        // The panel's data is the engine's histogram of exactly that line.
        const ops::LineHistogram* shown = window.histogram_panel()->result();
        QVERIFY(shown != nullptr);
        const ops::HistogramSource source(canvas->image().view());
        ops::LineHistogramParams params;
        params.from = {canvas->line_from().x, canvas->line_from().y};
        params.to = {canvas->line_to().x, canvas->line_to().y};
        const ops::LineHistogram expected = ops::line_histogram_fast(source, params);
        QCOMPARE(shown->positions, expected.positions);
        QVERIFY(shown->positions > 270);
        QVERIFY(shown->channels.front().counts == expected.channels.front().counts);
        QVERIFY(shown->channels.front().median == expected.channels.front().median);

        // A wider band: every interior position now has 7 samples.
        window.histogram_panel()->findChild<QSpinBox*>("histogram_band")->setValue(7);
        shown = window.histogram_panel()->result();
        QCOMPARE(shown->channels.front().samples[std::size_t(shown->positions / 2)], 7u);
        // Hovering the line on the image moves the plot's crosshair to that position.
        const double mid_x = (canvas->line_from().x + canvas->line_to().x) / 2 + 0.5;
        QTest::mouseMove(canvas, widget_point(canvas, mid_x, canvas->line_from().y + 0.5));
        QVERIFY(window.histogram_panel()->plot()->marker().has_value());
        QVERIFY(std::abs(*window.histogram_panel()->plot()->marker() - shown->positions / 2) <= 2);
        // Export writes one row per bin.
        const QString csv = dir_.filePath("line.csv");
        QVERIFY(window.histogram_panel()->export_csv(csv));
        QFile file(csv);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = file.readAll().split('\n');
        // Three comment lines (line, bin edges, channel), 256 bins, final newline.
        QCOMPARE(lines.size(), 3 + 256 + 1);
        QVERIFY(lines[1].startsWith("# bin lower edges: 0,0.99609375,"));
    }

    // The Regions tool through the window: a line, a polyline and a rectangle drawn with the
    // mouse, listed in the dock with their profiles, undo/redo through Edit ▸ Undo, the Line
    // tool's line added with T, the list saved beside the image and offered again when the image
    // opens, one CSV with every profile.
    void regions_are_drawn_listed_saved_and_reopened() {
        const QString image = dir_.filePath("messi-regions.jpg");
        QFile::remove(image);
        QVERIFY(QFile::copy(kMessi, image));
        MainWindow window;
        QVERIFY(show_at_one_to_one(window, image, {1300, 800}));
        editor::Canvas* canvas = window.canvas();
        editor::RegionsPanel* panel = window.regions_panel();
        session::RegionsTool& tool = window.session().regions();
        window.select_tool(editor::CanvasTool::Regions);
        QCOMPARE(window.session().active_kind(), session::ToolKind::Regions);

        // A line: press, drag, release.
        QTest::mousePress(canvas, Qt::LeftButton, {}, widget_point(canvas, 40.5, 150.5));
        QTest::mouseMove(canvas, widget_point(canvas, 150.5, 152.5));
        QTest::mouseMove(canvas, widget_point(canvas, 300.5, 153.5));
        QTest::mouseRelease(canvas, Qt::LeftButton, {}, widget_point(canvas, 300.5, 153.5));
        // A polyline: a click per vertex, a double click at the last.
        panel->findChild<QToolButton*>("regions_draw_polyline")->click();
        for (const QPoint p :
             {widget_point(canvas, 60.5, 250.5), widget_point(canvas, 200.5, 300.5),
              widget_point(canvas, 330.5, 240.5)}) {
            QTest::mouseMove(canvas, p);
            QTest::mouseClick(canvas, Qt::LeftButton, {}, p);
        }
        const QPointF last = widget_point(canvas, 330.5, 240.5);
        QMouseEvent double_click(QEvent::MouseButtonDblClick, last, canvas->mapToGlobal(last),
                                 Qt::LeftButton, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(canvas, &double_click);
        QTest::mouseRelease(canvas, Qt::LeftButton, {}, last.toPoint());
        // A rectangle.
        panel->findChild<QToolButton*>("regions_draw_rectangle")->click();
        QTest::mousePress(canvas, Qt::LeftButton, {}, widget_point(canvas, 400.2, 60.2));
        QTest::mouseMove(canvas, widget_point(canvas, 450, 90));
        QTest::mouseMove(canvas, widget_point(canvas, 500, 110));
        QTest::mouseRelease(canvas, Qt::LeftButton, {}, widget_point(canvas, 500, 110));
        QTest::qWait(50);

        QCOMPARE(tool.count(), 3);
        QCOMPARE(tool.regions()[0].shape, ops::RegionShape::Line);
        QCOMPARE(tool.regions()[1].shape, ops::RegionShape::Polyline);
        QCOMPARE(tool.regions()[1].points.size(), std::size_t(3));
        QVERIFY(std::abs(tool.regions()[1].points[1].x - 200) <= 1);  // widget pixels: ±1
        QCOMPARE(tool.regions()[2].shape, ops::RegionShape::Rectangle);
        QCOMPARE(tool.regions()[2].x, 400.0);
        QCOMPARE(tool.regions()[2].width, 100);
        QCOMPARE(tool.regions()[2].height, 50);
        QCOMPARE(panel->list()->count(), 3);
        QVERIFY(panel->list()->item(2)->text().startsWith("rect 3"));
        QVERIFY(panel->list()->item(2)->text().contains("100 positions"));
        // The profiles are the engine's on the photo's luminance.
        const ops::HistogramSource source(canvas->image().view());
        for (int i = 0; i < 3; ++i) {
            const ops::RegionProfile expected =
                ops::profile_region(tool.regions()[std::size_t(i)],
                                    source.plane(ops::HistogramChannel::Luminance).view());
            QVERIFY(tool.profile(i) != nullptr);
            QVERIFY(tool.profile(i)->values == expected.values);
        }
        // The line is drawn over the image in its colour (orange, the palette's first).
        QTest::qWait(50);
        const QImage frame = canvas->grabFramebuffer();
        const QColor on_line = frame.pixelColor(frame_point(canvas, frame, 170.5, 152.0));
        QVERIFY2(on_line.red() > 200 && on_line.blue() < 90, qPrintable(on_line.name()));

        // Edit ▸ Undo acts on the list while the Regions tool is active; the image's history
        // stays empty.
        QVERIFY(window.undo());
        QCOMPARE(tool.count(), 2);
        QCOMPARE(panel->list()->count(), 2);
        QVERIFY(window.redo());
        QCOMPARE(tool.count(), 3);
        QVERIFY(!window.session().history().can_undo());
        // Drag the polyline's middle vertex.
        QTest::mousePress(canvas, Qt::LeftButton, {}, widget_point(canvas, 200.5, 300.5));
        QTest::mouseMove(canvas, widget_point(canvas, 210.5, 320.5));
        QTest::mouseRelease(canvas, Qt::LeftButton, {}, widget_point(canvas, 210.5, 320.5));
        QVERIFY(std::abs(tool.regions()[1].points[1].x - 210) <= 1);
        QVERIFY(std::abs(tool.regions()[1].points[1].y - 320) <= 1);
        QCOMPARE(tool.selected(), 1);
        QCOMPARE(panel->list()->currentRow(), 1);

        // The Line tool's line, added with Regions ▸ Add [t].
        window.select_tool(editor::CanvasTool::Line);
        QTest::mousePress(canvas, Qt::LeftButton, {}, widget_point(canvas, 100.5, 40.5));
        QTest::mouseMove(canvas, widget_point(canvas, 300.5, 60.5));
        QTest::mouseRelease(canvas, Qt::LeftButton, {}, widget_point(canvas, 300.5, 60.5));
        QAction* add = action_starting_with(window, "&Add Line");
        QVERIFY(add != nullptr);
        QCOMPARE(add->shortcut(), QKeySequence(Qt::Key_T));
        add->trigger();
        QCOMPARE(tool.count(), 4);
        QCOMPARE(tool.regions()[3].points[0].x, canvas->line_from().x);

        if (const QString out = qEnvironmentVariable("LACUNA_SCREENSHOT_DIR"); !out.isEmpty()) {
            window.select_tool(editor::CanvasTool::Regions);
            tool.remove(3);
            tool.set_band(0, 9);
            tool.select(1);
            panel->refresh();
            window.findChild<QDockWidget*>("regions_dock")->raise();
            QTest::qWait(300);
            // QWidget::grab shows the canvas's GL frame without what QPainter drew over it:
            // the canvas's own framebuffer goes over its place.
            QPixmap shot = window.grab();
            {
                QPainter painter(&shot);
                painter.drawImage(QRect(canvas->mapTo(&window, QPoint(0, 0)), canvas->size()),
                                  canvas->grabFramebuffer());
            }
            QVERIFY(shot.save(out + "/regions.png", "PNG"));
        }

        // Saved beside the image; one CSV with every profile.
        QVERIFY(window.save_regions_beside_image());
        const QString sidecar = dir_.filePath("messi-regions.regions.json");
        QVERIFY(QFile::exists(sidecar));
        const std::vector<ops::ProfileRegion> saved = tool.regions();
        const QString csv = dir_.filePath("regions.csv");
        QVERIFY(panel->export_csv(csv, image));
        QFile file(csv);
        QVERIFY(file.open(QIODevice::ReadOnly));
        int rows = 0;
        for (const QByteArray& line : file.readAll().split('\n'))
            if (!line.isEmpty() && !line.startsWith('#') && !line.startsWith("region,")) ++rows;
        int positions = 0;
        for (int i = 0; i < tool.count(); ++i) positions += tool.profile(i)->plan.positions();
        QCOMPARE(rows, positions);

        // Opening the image again starts an empty list and offers the saved one.
        test::DialogAnswer load("regions_sidecar_dialog", "regions_sidecar_load");
        QVERIFY(window.open_file(image));
        QTRY_COMPARE(load.answered(), 1);
        QVERIFY(tool.regions() == saved);
        QCOMPARE(panel->list()->count(), int(saved.size()));
    }

    /// README screenshots: runs only when LACUNA_SCREENSHOT_DIR names a folder to write into.
    void screenshots() {
        const QString out = qEnvironmentVariable("LACUNA_SCREENSHOT_DIR");
        if (out.isEmpty()) QSKIP("set LACUNA_SCREENSHOT_DIR to write the README screenshots");
        const auto shoot = [&](MainWindow& window, const QString& name) {
            QTest::qWait(300);
            QVERIFY(window.grab().save(out + "/" + name, "PNG"));
        };
        const auto raise_dock = [](MainWindow& window, const char* name) {
            auto* dock = window.findChild<QDockWidget*>(name);
            dock->show();
            dock->raise();
        };
        {
            MainWindow window;
            window.resize(1280, 800);
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            QVERIFY(window.open_file(LACUNA_SOURCE_DIR "/tests/data/photos/building.jpg"));
            raise_dock(window, "retarget_dock");
            QTRY_VERIFY_WITH_TIMEOUT(window.retarget_session()->vertical_ready(), 120000);
            window.retarget_panel()->width_slider()->setValue(650);
            window.canvas()->fit_to_window();
            shoot(window, "retarget.png");
        }
        {
            MainWindow window;
            QVERIFY(show_at_one_to_one(window, kMessi, {1280, 800}));
            editor::Canvas* canvas = window.canvas();
            window.select_tool(editor::CanvasTool::Line);
            window.histogram_panel()->findChild<QSpinBox*>("histogram_band")->setValue(9);
            canvas->set_line({20, 250}, {520, 120});
            window.histogram_panel()->show_fraction(0.45);
            canvas->set_line_marker(0.45);
            shoot(window, "line-histogram.png");
        }
        {
            MainWindow window;
            QVERIFY(show_at_one_to_one(window, kMessi, {1280, 800}));
            editor::Canvas* canvas = window.canvas();
            raise_dock(window, "remove_object_dock");
            window.removal_panel()->set_tool(editor::CanvasTool::Brush);
            window.removal_panel()->findChild<QSlider*>("brush_size")->setValue(44);
            brush_over_ball(canvas);
            QTest::mouseMove(canvas, widget_point(canvas, 420, 250));
            shoot(window, "remove-object-mask.png");
            QVERIFY(window.start_fill());
            QTRY_VERIFY_WITH_TIMEOUT(!window.fill_running(), 120000);
            shoot(window, "remove-object-filled.png");
            window.session().history().set_clean();
        }
        {
            MainWindow window;
            QVERIFY(show_at_one_to_one(window, kMessi, {1280, 800}));
            editor::Canvas* canvas = window.canvas();
            raise_dock(window, "remove_object_dock");
            window.removal_panel()->set_tool(editor::CanvasTool::Box);
            QTest::mousePress(canvas, Qt::LeftButton, {}, widget_point(canvas, 326, 276));
            QTest::mouseMove(canvas, widget_point(canvas, 400, 350));
            shoot(window, "remove-object-box-drag.png");
            QTest::mouseRelease(canvas, Qt::LeftButton, {}, widget_point(canvas, 400, 350));
            QTest::mouseMove(canvas, widget_point(canvas, 420, 250));
            shoot(window, "remove-object-box.png");
            window.session().history().set_clean();
        }
        {
            // Scribble: strokes across the ball, GrabCut's object under them, the fill.
            MainWindow window;
            QVERIFY(show_at_one_to_one(window, kMessi, {1280, 800}));
            editor::Canvas* canvas = window.canvas();
            raise_dock(window, "remove_object_dock");
            window.removal_panel()->set_tool(editor::CanvasTool::Scribble);
            window.removal_panel()->findChild<QSlider*>("brush_size")->setValue(8);
            QTest::mousePress(canvas, Qt::LeftButton, {}, widget_point(canvas, 345, 318));
            QTest::mouseMove(canvas, widget_point(canvas, 362, 300));
            QTest::mouseMove(canvas, widget_point(canvas, 378, 316));
            QTest::mouseMove(canvas, widget_point(canvas, 360, 330));
            // The canvas's own frame: the strokes are drawn there (QPainter over the GL frame),
            // which a grab of the whole window leaves out under Xvfb.
            QTest::qWait(300);
            QVERIFY(
                canvas->grabFramebuffer().save(out + "/remove-object-scribble-drag.png", "PNG"));
            QTest::mouseRelease(canvas, Qt::LeftButton, {}, widget_point(canvas, 360, 330));
            QTest::mouseMove(canvas, widget_point(canvas, 420, 250));
            QTest::qWait(300);
            QVERIFY(canvas->grabFramebuffer().save(out + "/remove-object-scribble.png", "PNG"));
            QVERIFY(window.start_fill());
            QTRY_VERIFY_WITH_TIMEOUT(!window.fill_running(), 120000);
            QTest::qWait(300);
            QVERIFY(
                canvas->grabFramebuffer().save(out + "/remove-object-scribble-filled.png", "PNG"));
            window.session().history().set_clean();
        }
        {
            MainWindow window;
            window.resize(1280, 800);
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            QVERIFY(window.open_sample_measurement());
            raise_dock(window, "display_dock");
            window.select_tool(editor::CanvasTool::Line);
            window.histogram_panel()->findChild<QSpinBox*>("histogram_band")->setValue(5);
            window.canvas()->zoom_by(2.5);
            window.canvas()->set_line({20, 60}, {236, 124});
            // Hover a quarter of the way along: the plot's crosshair and the status bar's
            // readout show the value there.
            window.statusBar()->clearMessage();
            QTest::mouseMove(window.canvas(), widget_point(window.canvas(), 74.5, 76.5));
            shoot(window, "measurement.png");
        }
    }

    void video_in_the_editor() {
        // tree.avi (OpenCV's sample, a truncated file: 68 frames of the 444 it announces). The
        // editor opens it at frame 0, the slider shows any frame, the retarget preview follows
        // it, and Export Video writes every frame that decodes at the Retarget panel's size.
        QTemporaryDir dir;
        const QString clip = dir.filePath("clip.mp4");
        write_tree_clip(clip, 20);
        MainWindow window;
        QVERIFY(show_at_one_to_one(window, clip));
        auto* dock = window.findChild<QDockWidget*>("video_dock");
        QVERIFY(dock != nullptr);
        QTRY_VERIFY(!dock->visibleRegion().isEmpty());  // raised on open
        auto* slider = window.video_panel()->findChild<QSlider*>("video_frame");
        QCOMPARE(slider->maximum(), 19);
        slider->setValue(9);
        QCOMPARE(window.session().video()->current(), 9);
        io::VideoReader again(clip.toStdString());
        for (int f = 0; f < 9; ++f) (void)again.next();
        const ImageRgba8 expected = *again.next();
        QVERIFY(equal_pixels<Rgba8>(window.session().document().pixels().view(), expected.view()));
        QVERIFY(window.video_panel()
                    ->findChild<QLabel*>("video_time_code")
                    ->text()
                    .contains("frame 10 of 20"));
        // Retarget the current frame (the preview) and export the clip at that size.
        window.findChild<QDockWidget*>("retarget_dock")->raise();
        QTRY_VERIFY_WITH_TIMEOUT(window.retarget_session()->vertical_ready(), 60000);
        window.retarget_session()->set_target(240, 240);
        QTRY_COMPARE_WITH_TIMEOUT(window.session().shown_width(), 240, 60000);
        // The dock's temporal weight (1 by default) is the session's: the preview of frame 10
        // settles on the exported frame (its seams follow those of frames 0 .. 8), and says so.
        auto* temporal = window.video_panel()->findChild<QDoubleSpinBox*>("video_temporal");
        QVERIFY(temporal != nullptr);
        QCOMPARE(window.session().video_export_settings().temporal, temporal->value());
        QTRY_VERIFY_WITH_TIMEOUT(window.retarget_session()->matches_export(), 120000);
        const auto* retarget_status =
            window.retarget_panel()->findChild<QLabel*>("retarget_status");
        QTRY_VERIFY2(retarget_status->text().contains("The exported frame"),
                     qPrintable(retarget_status->text()));
        // Another weight in the dock: matched again, the panel's bar counting the frames.
        temporal->setValue(2.0);
        QCOMPARE(window.session().video_export_settings().temporal, 2.0);
        const auto* retarget_progress =
            window.retarget_panel()->findChild<QProgressBar*>("retarget_progress");
        const bool counted = QTest::qWaitFor(
            [&] { return retarget_progress->format().startsWith("Matching the export: "); }, 20000);
        const QString shots = qEnvironmentVariable("LACUNA_SCREENSHOT_DIR");
        if (counted && !shots.isEmpty())
            QVERIFY(window.grab().save(shots + "/video-retarget-matching.png", "PNG"));
        QTRY_VERIFY_WITH_TIMEOUT(window.retarget_session()->matches_export(), 120000);
        QTRY_VERIFY2(retarget_status->text().contains("The exported frame"),
                     qPrintable(retarget_status->text()));
        if (!shots.isEmpty())
            QVERIFY(window.grab().save(shots + "/video-retarget-matched.png", "PNG"));
        temporal->setValue(1.0);
        const QString out = dir.filePath("narrow.mp4");
        QVERIFY(window.video_panel()->export_to(out));
        QVERIFY(!window.video_panel()->export_to(out));  // one export at a time
        QTRY_VERIFY_WITH_TIMEOUT(!window.video_panel()->exporting(), 120000);
        QVERIFY2(window.video_panel()->status().startsWith("Exported 20 frames (240 × 240"),
                 qPrintable(window.video_panel()->status()));
        io::VideoReader narrow(out.toStdString());
        QCOMPARE(narrow.info().width, 240);
        QCOMPARE(narrow.info().frame_count, 20);
        // The other temporal term, chosen in the dock, reaches the export.
        auto* term = window.video_panel()->findChild<QComboBox*>("video_term");
        QVERIFY(term != nullptr);
        QCOMPARE(term->count(), 2);
        QCOMPARE(term->currentData().toInt(), static_cast<int>(ops::TemporalTerm::PerSeam));
        term->setCurrentIndex(1);
        const QString by_removed = dir.filePath("removed.mp4");
        QVERIFY(window.video_panel()->export_to(by_removed));
        QTRY_VERIFY_WITH_TIMEOUT(!window.video_panel()->exporting(), 120000);
        QVERIFY2(window.video_panel()->status().startsWith("Exported 20 frames (240 × 240"),
                 qPrintable(window.video_panel()->status()));
        term->setCurrentIndex(0);
        // Faces, switched on in the dock (off by default), are tracked for the export.
        auto* faces = window.video_panel()->findChild<QCheckBox*>("video_faces");
        QVERIFY(faces != nullptr);
        QVERIFY(!faces->isChecked());
        faces->setChecked(true);
        const QString with_faces = dir.filePath("faces.mp4");
        QVERIFY(window.video_panel()->export_to(with_faces));
        QTRY_VERIFY_WITH_TIMEOUT(!window.video_panel()->exporting(), 240000);
        QVERIFY2(window.video_panel()->status().contains("Importance: faces; "),
                 qPrintable(window.video_panel()->status()));
        QCOMPARE(io::VideoReader(with_faces.toStdString()).info().frame_count, 20);
        faces->setChecked(false);
        // Cancel: no file under the chosen name.
        const QString cancelled = dir.filePath("cancelled.mp4");
        QVERIFY(window.video_panel()->export_to(cancelled));
        window.video_panel()->cancel_export();
        QTRY_VERIFY_WITH_TIMEOUT(!window.video_panel()->exporting(), 120000);
        QVERIFY2(window.video_panel()->status().contains("cancelled"),
                 qPrintable(window.video_panel()->status()));
        QVERIFY(!QFile::exists(cancelled));
        if (const QString shots = qEnvironmentVariable("LACUNA_SCREENSHOT_DIR"); !shots.isEmpty()) {
            dock->raise();
            slider->setValue(14);
            QTest::qWait(300);
            QVERIFY(window.grab().save(shots + "/video.png", "PNG"));
        }
        // A damaged video gives an error dialog and keeps the document.
        QFile noise(dir.filePath("noise.mp4"));
        QVERIFY(noise.open(QIODevice::WriteOnly));
        noise.write(QByteArray(5000, 'x'));
        noise.close();
        QVERIFY(!window.open_file(noise.fileName()));
        QMessageBox* box = visible_error_dialog(&window);
        QVERIFY(box != nullptr);
        QVERIFY2(box->text().contains("noise.mp4"), qPrintable(box->text()));
        box->accept();
        QCOMPARE(window.session().video()->frame_count(), 20);
    }

    // Filters ▸ Bilateral on the bundled temperature field (float, kelvin, a NaN): the range
    // sigma is in K (suggested from the data), the panel says what it filters, the preview
    // shows, and Apply filters the stored samples (NaN kept) as one undoable edit.
    void bilateral_filter_on_a_measurement() {
        MainWindow window;
        window.resize(1600, 1000);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.open_sample_measurement());
        const NativeImage original = window.session().document().samples();
        const Calibration calibration = window.session().document().calibration();
        editor::FilterPanel* panel = window.filter_panel();
        QAction* bilateral = action_starting_with(window, "&Bilateral");
        QVERIFY(bilateral != nullptr);
        bilateral->trigger();
        QVERIFY2(window.session().filter().previewing(),
                 window.session().filter().status().c_str());
        QCOMPARE(panel->sigma_range_box()->suffix(), QString(" K"));
        QCOMPARE(panel->sigma_range_box()->value(),
                 window.session().filter().suggested_sigma_range());
        auto* applies = window.findChild<QLabel*>("filter_applies_to");
        QVERIFY(applies != nullptr);
        QVERIFY2(applies->text().contains("stored 32-bit float samples"),
                 qPrintable(applies->text()));
        panel->sigma_range_box()->setValue(4);
        const ops::BilateralParams params = panel->bilateral();
        QCOMPARE(params.sigma_range, 4.0);
        QVERIFY(window.session().showing_preview());
        QVERIFY(window.session().document().samples() == original);
        if (const QString shots = qEnvironmentVariable("LACUNA_SCREENSHOT_DIR"); !shots.isEmpty())
            QVERIFY(window.grab().save(shots + "/filter-bilateral-measurement.png", "PNG"));
        panel->apply_button()->click();
        QVERIFY(!window.session().filter().previewing());
        const NativeImage expected = ops::bilateral_native(original, calibration, {}, params,
                                                           ops::BilateralImplementation::Fast);
        QVERIFY(window.session().document().samples() == expected);
        QVERIFY(std::isnan(window.session().document().samples().sample(200, 10, 0)));
        QCOMPARE(QString::fromStdString(window.session().history().undo_label()),
                 QString("Bilateral Filter"));
        window.undo();
        QVERIFY(window.session().document().samples() == original);
        window.session().history().set_clean();
    }

    void measurement_sample_in_the_editor() {
        // The bundled temperature field: a float document in kelvin, shown through the inferno
        // LUT; the line histogram's axis and the readout carry the unit.
        MainWindow window;
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.open_sample_measurement());
        const session::Document& document = window.session().document();
        QVERIFY(document.measurement());
        QVERIFY(document.format() == (PixelFormat{SampleType::F32, 1}));
        QCOMPARE(document.calibration().unit, std::string("K"));
        QCOMPARE(window.session().display().lut, Lut::Inferno);
        // FITS stores rows bottom-up: the dead pixel written at (200, 10) is there.
        QVERIFY(std::isnan(document.samples().sample(200, 10, 0)));
        window.select_tool(editor::CanvasTool::Line);
        window.canvas()->set_line({20, 60}, {240, 120});
        const ops::LineHistogram* h = window.histogram_panel()->result();
        QVERIFY(h != nullptr);
        QVERIFY(h->range_lo > 278.0f && h->range_hi < 370.0f);
        // The display dock drives the view; the status bar shows the value under the pointer.
        auto* lo = window.display_panel()->findChild<QDoubleSpinBox*>("display_window_lo");
        QVERIFY(lo != nullptr && lo->suffix() == " K");
        lo->setValue(300.0);
        QCOMPARE(window.session().display().window.lo, 300.0);
        // Sent to the canvas directly: QTest::mouseMove moves the X pointer, whose move (or
        // none, when the pointer is there already) reaches the canvas late on a loaded machine.
        const QPointF at = widget_point(window.canvas(), 70.5, 60.5);
        QMouseEvent hover(QEvent::MouseMove, at, window.canvas()->mapToGlobal(at), Qt::NoButton,
                          Qt::NoButton, Qt::NoModifier);
        QApplication::sendEvent(window.canvas(), &hover);
        auto* value = window.findChild<QLabel*>("value_label");
        QTRY_VERIFY(value->text().contains(" K"));
        // Save keeps the stored samples where the format holds them, NaN included; a PNG
        // cannot hold float and says so.
        const QString tiff = dir_.filePath("temperature-copy.tiff");
        QVERIFY(window.save_to(tiff, true));
        const io::LoadedNative back = io::read_native(tiff.toStdString());
        QVERIFY(back.pages[0] == document.samples());
        QVERIFY(window.save_to(dir_.filePath("temperature.png"), true));
        QVERIFY(window.statusBar()->currentMessage().contains("cannot hold 32-bit float"));
        // Retarget and object removal are offered on measurements; Convert makes an 8-bit photo.
        QVERIFY(window.removal_panel()->isEnabled());
        QVERIFY(window.retarget_panel()->isEnabled());
        window.convert_to_photo();
        QVERIFY(!window.session().document().measurement());
        QCOMPARE(window.session().document().width(), 256);
        window.session().history().set_clean();
    }

    void line_in_physical_units() {
        // Physical units: a TIFF stating 0.5 mm across and 2 mm down. The line's length, the plot's
        // axis and readout, the CSV and the clipboard give distances in mm, measured in
        // physical space; Save keeps the spacing.
        NativeImage img(40, 50, {SampleType::U16, 1});
        for (int y = 0; y < 50; ++y)
            for (int x = 0; x < 40; ++x) img.set_sample(x, y, 0, 100 * x + 7 * y);
        const PixelSpacing spacing{0.5, 2.0, "mm"};
        io::WriteOptions options;
        options.spacing = &spacing;
        const QString path = dir_.filePath("aniso.tiff");
        io::write_native(path.toStdString(), img, options);
        MainWindow window;
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.open_file(path));
        QCOMPARE(window.session().document().spacing(), spacing);
        window.select_tool(editor::CanvasTool::Line);
        window.canvas()->set_line({0, 0}, {30, 40});
        QVERIFY(window.histogram_panel()->result() != nullptr);
        // 50 px, but √((30 · 0.5)² + (40 · 2)²) = 81.3941 mm.
        const QString info = window.histogram_panel()->findChild<QLabel*>("histogram_info")->text();
        QVERIFY2(info.contains("Length 50.0 px (81.3941 mm)"), qPrintable(info));
        window.histogram_panel()->show_fraction(1.0);
        const QString readout = window.histogram_panel()->plot()->readout();
        QVERIFY2(readout.contains("(81.3941 mm)"), qPrintable(readout));
        const QString csv = dir_.filePath("aniso.csv");
        QVERIFY(window.histogram_panel()->export_csv(csv));
        QFile file(csv);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(file.readAll());
        QVERIFY2(text.contains("# position distances (mm): 0,1.62788"), qPrintable(text));
        const QString copy = dir_.filePath("aniso-copy.tiff");
        QVERIFY(window.save_to(copy, true));
        QCOMPARE(io::read_native(copy.toStdString()).spacing, spacing);
        // Set Scale, as ImageJ's: the 50-pixel line is 25 µm long, so a pixel is 0.5 µm
        // across and down; the document takes it and Save writes it.
        QVERIFY(!window.histogram_panel()->set_scale(0.0, "µm"));
        QVERIFY(window.histogram_panel()->set_scale(25.0, "µm"));
        QCOMPARE(window.session().document().spacing(), (PixelSpacing{0.5, 0.5, "µm"}));
        const QString scaled =
            window.histogram_panel()->findChild<QLabel*>("histogram_info")->text();
        QVERIFY2(scaled.contains("Length 50.0 px (25 µm)"), qPrintable(scaled));
        QVERIFY(window.save_to(copy, true));
        QCOMPARE(io::read_native(copy.toStdString()).spacing, (PixelSpacing{0.5, 0.5, "µm"}));
        // Set Scale is an edit: undo puts the file's pixel size back, on the panel too; redo
        // sets it again.
        QCOMPARE(window.session().history().undo_label(), std::string("Set Scale"));
        QVERIFY(window.session().undo());
        QCOMPARE(window.session().document().spacing(), spacing);
        const QString undone =
            window.histogram_panel()->findChild<QLabel*>("histogram_info")->text();
        QVERIFY2(undone.contains("Length 50.0 px (81.3941 mm)"), qPrintable(undone));
        QVERIFY(window.session().redo());
        QCOMPARE(window.session().document().spacing(), (PixelSpacing{0.5, 0.5, "µm"}));
        // With a pixel aspect ratio of 2 (pixels twice as tall as wide, as ImageJ's field):
        // the 30, 40 line of 100 µm is √(30² + 80²) widths long; the length reads 100 µm.
        QVERIFY(!window.histogram_panel()->set_scale(100.0, "µm", 0.0));
        QVERIFY(window.histogram_panel()->set_scale(100.0, "µm", 2.0));
        const PixelSpacing tall = window.session().document().spacing();
        QCOMPARE(tall.y, 2 * tall.x);
        QCOMPARE(tall.x, 100 / std::hypot(30.0, 80.0));
        const QString tall_info =
            window.histogram_panel()->findChild<QLabel*>("histogram_info")->text();
        QVERIFY2(tall_info.contains("Length 50.0 px (100 µm)"), qPrintable(tall_info));
        QVERIFY(window.save_to(copy, true));
        QCOMPARE(io::read_native(copy.toStdString()).spacing, tall);
        QVERIFY(window.session().undo());
        QCOMPARE(window.session().document().spacing(), (PixelSpacing{0.5, 0.5, "µm"}));
        window.session().history().set_clean();
    }

    void bad_file_shows_error_dialog_and_keeps_document() {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.open_file(kSample));
        QFile bad(dir_.filePath("broken.png"));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("\x89PNG\r\n\x1a\nthis is not really a png");
        bad.close();
        QVERIFY(!window.open_file(bad.fileName()));
        QMessageBox* box = visible_error_dialog(&window);
        QVERIFY(box != nullptr);
        QVERIFY2(box->text().contains("broken.png"), qPrintable(box->text()));
        box->accept();
        QCOMPARE(window.document_path(), kSample);
        QCOMPARE(window.canvas()->image().width(), 512);
        QVERIFY(!window.open_file(dir_.filePath("missing.jpg")));
        QVERIFY(visible_error_dialog(&window)->text().contains("no such file"));
    }

    void save_writes_the_document() {
        MainWindow window;
        window.show();
        QVERIFY(window.open_file(kSample));
        const QString out = dir_.filePath("saved.png");
        QVERIFY(window.save_to(out));
        const io::LoadedImage saved = io::read_image(out.toStdString());
        QVERIFY(equal_pixels<Rgba8>(saved.image.view(), window.canvas()->image().view()));
        QCOMPARE(window.document_path(), out);
        QVERIFY(!window.save_to(dir_.filePath("no/dir/x.png")));
        QVERIFY(visible_error_dialog(&window) != nullptr);
    }
};

int main(int argc, char** argv) {
    QApplication::setAttribute(Qt::AA_ShareOpenGLContexts);
    QApplication app(argc, argv);
    TestEditor test;
    return QTest::qExec(&test, argc, argv);
}
#include "test_editor.moc"
