// The editor as a document editor, under Xvfb: unsaved edits are never lost (every path that
// replaces or closes a document asks Save / Discard / Cancel), Save writes the document's own file
// and says once what it would lose, and each document starts with clean panels. The questions are
// answered by clicking the real dialogs' buttons (dialog_answer.hpp).
#include "../engine/image_test_util.hpp"
#include "gui_test_util.hpp"
#include "histogram_panel.hpp"
#include "main_window.hpp"
#include "object_removal_panel.hpp"
#include "retarget_panel.hpp"
#include "video_panel.hpp"
#include <recovery.hpp>
#include <retarget_tool.hpp>

#include <lacuna/io/image_io.hpp>

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QMenu>
#include <QOpenGLContext>
#include <QProgressBar>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>

#include <cmath>

using namespace lacuna;
using lacuna::editor::MainWindow;
using lacuna::test::DialogAnswer;
using lacuna::test::widget_point;

namespace {

constexpr const char* kUnsaved = "lacuna_unsaved_dialog";
constexpr const char* kLoss = "lacuna_save_loss_dialog";
constexpr const char* kPreview = "lacuna_preview_dialog";

/// A small photo with structure (gradient, a box, noise) for fills that finish quickly.
ImageRgba8 make_photo(const int w, const int h, const int seed) {
    ImageRgba8 image(w, h);
    std::uint32_t state = 2463534242u + std::uint32_t(seed);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            const int n = int(state % 13) - 6;
            const bool box = x > w / 5 && x < w / 3 && y > h / 4 && y < h / 2;
            const int base = box ? 40 : 90 + 120 * x / w;
            const auto c = [&](int v) { return std::uint8_t(std::clamp(v + n, 0, 255)); };
            image.at(x, y) = {c(base + seed * 10), c(base / 2 + y % 40), c(200 - base / 3), 255};
        }
    return image;
}

QByteArray file_bytes(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

/// A real edit of the pixels: a brush stroke over the dark box (mouse on the canvas), then a
/// fill that runs to its end. Two undoable edits.
void paint_and_fill(MainWindow& window) {
    editor::Canvas* canvas = window.canvas();
    window.removal_panel()->findChild<QToolButton*>("tool_brush")->click();
    window.removal_panel()->findChild<QSlider*>("brush_size")->setValue(14);
    const int w = window.session().document().width(), h = window.session().document().height();
    QTest::mousePress(canvas, Qt::LeftButton, {}, widget_point(canvas, w * 0.22, h * 0.3));
    QTest::mouseMove(canvas, widget_point(canvas, w * 0.3, h * 0.35));
    QTest::mouseRelease(canvas, Qt::LeftButton, {}, widget_point(canvas, w * 0.3, h * 0.4));
    QVERIFY(window.session().history().count() >= 1);
    QVERIFY(window.start_fill());
    QTRY_VERIFY_WITH_TIMEOUT(!window.fill_running(), 120000);
}

bool same_pixels(const ImageRgba8& a, const ImageRgba8& b) {
    return equal_pixels<Rgba8>(a.view(), b.view());
}

ImageRgba8 pixels_of(MainWindow& window) {
    return clone(window.session().document().pixels().view());
}

}  // namespace

/// Sets an environment variable for a scope and puts back what was there (or its absence).
class EnvOverride {
  public:
    EnvOverride(const char* name, const QByteArray& value)
        : name_(name), had_(qEnvironmentVariableIsSet(name)), old_(qgetenv(name)) {
        qputenv(name, value);
    }
    EnvOverride(const EnvOverride&) = delete;
    EnvOverride& operator=(const EnvOverride&) = delete;
    ~EnvOverride() { restore(); }
    void restore() {
        if (done_) return;
        done_ = true;
        if (had_)
            qputenv(name_, old_);
        else
            qunsetenv(name_);
    }

  private:
    const char* name_;
    bool had_;
    QByteArray old_;
    bool done_ = false;
};

class TestDocuments : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString first_, second_;

    bool show_and_open(MainWindow& window, const QString& path) {
        window.resize(1200, 800);
        window.show();
        if (!QTest::qWaitForWindowExposed(&window) || !window.open_file(path)) return false;
        window.canvas()->actual_size();
        return true;
    }

    /// A fresh copy of a generated PNG, so each test edits and saves its own file.
    QString photo(const QString& name, const int seed, const int w = 160, const int h = 120) {
        const QString path = dir_.filePath(name);
        io::write_image(path.toStdString(), make_photo(w, h, seed).view());
        return path;
    }

  private slots:
    void initTestCase() {
        if (const char* why = lacuna::test::gl_window_unavailable()) QSKIP(why);
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        QVERIFY(dir_.isValid());
    }

    void init() {
        first_ = photo("first.png", 1);
        second_ = photo("second.png", 2, 150, 110);
    }

    // ---- never lose work ----

    void open_another_then_cancel_keeps_the_edits() {
        MainWindow window;
        QVERIFY(show_and_open(window, first_));
        paint_and_fill(window);
        const ImageRgba8 edited = pixels_of(window);
        const int edits = window.session().history().count();
        QVERIFY(window.isWindowModified());
        window.autosave();
        QTRY_VERIFY(QFileInfo::exists(window.recovery_file()));

        const DialogAnswer cancel(kUnsaved, "unsaved_cancel");
        QVERIFY(!window.open_file(second_));
        QCOMPARE(cancel.answered(), 1);
        QVERIFY2(cancel.text().contains("first.png"), qPrintable(cancel.text()));
        // Every other way of replacing the document asks too, and Cancel keeps it each time.
        QVERIFY(!window.open_sample());
        QVERIFY(!window.open_sample_measurement());
        QVERIFY(!window.open_video(LACUNA_SOURCE_DIR "/tests/data/video/tree.avi"));
        emit window.canvas()->files_dropped({second_});
        QMenu* recent = nullptr;
        for (QMenu* menu : window.findChildren<QMenu*>())
            if (menu->title().contains("Recent")) recent = menu;
        QVERIFY(recent != nullptr && !recent->actions().isEmpty());
        recent->actions().front()->trigger();
        QCOMPARE(cancel.answered(), 6);

        QCOMPARE(window.document_path(), first_);
        QCOMPARE(window.session().history().count(), edits);
        QVERIFY(same_pixels(pixels_of(window), edited));
        QVERIFY(window.isWindowModified());
        QVERIFY2(QFileInfo::exists(window.recovery_file()), "the autosave must keep covering");
        QVERIFY(window.undo());  // the history is intact
        window.session().history().set_clean();
    }

    void open_another_then_save_writes_and_opens() {
        MainWindow window;
        QVERIFY(show_and_open(window, first_));
        paint_and_fill(window);
        const ImageRgba8 edited = pixels_of(window);
        const DialogAnswer save(kUnsaved, "unsaved_save");
        QVERIFY(window.open_file(second_));
        QCOMPARE(save.answered(), 1);
        QVERIFY(same_pixels(io::read_image(first_.toStdString()).image, edited));
        QCOMPARE(window.document_path(), second_);
        QCOMPARE(window.session().document().width(), 150);
        QCOMPARE(window.session().history().count(), 0);
        QVERIFY(!window.isWindowModified());
    }

    void open_another_then_discard_opens_and_leaves_the_file() {
        MainWindow window;
        QVERIFY(show_and_open(window, first_));
        const QByteArray on_disk = file_bytes(first_);
        paint_and_fill(window);
        window.autosave();
        QTRY_VERIFY(QFileInfo::exists(window.recovery_file()));
        const DialogAnswer discard(kUnsaved, "unsaved_discard");
        QVERIFY(window.open_file(second_));
        QCOMPARE(discard.answered(), 1);
        QCOMPARE(file_bytes(first_), on_disk);
        QCOMPARE(window.document_path(), second_);
        QVERIFY(!window.isWindowModified());
        // The new document has nothing unsaved: no recovery file outlives the discarded edits.
        QTRY_VERIFY(!QFileInfo::exists(window.recovery_file()));
    }

    void a_failed_open_after_discard_keeps_the_document() {
        MainWindow window;
        QVERIFY(show_and_open(window, first_));
        paint_and_fill(window);
        const ImageRgba8 edited = pixels_of(window);
        const DialogAnswer discard(kUnsaved, "unsaved_discard");
        QVERIFY(!window.open_file(dir_.filePath("missing.png")));
        QCOMPARE(discard.answered(), 1);
        QVERIFY(same_pixels(pixels_of(window), edited));
        QVERIFY(window.isWindowModified());
        window.session().history().set_clean();
    }

    void quit_with_edits_asks() {
        MainWindow window;
        QVERIFY(show_and_open(window, first_));
        paint_and_fill(window);
        const ImageRgba8 edited = pixels_of(window);
        {
            const DialogAnswer cancel(kUnsaved, "unsaved_cancel");
            QVERIFY(!window.close());
            QCOMPARE(cancel.answered(), 1);
            QVERIFY(window.isVisible());
            QVERIFY(same_pixels(pixels_of(window), edited));
        }
        const DialogAnswer save(kUnsaved, "unsaved_save");
        QVERIFY(window.close());
        QCOMPARE(save.answered(), 1);
        QVERIFY(same_pixels(io::read_image(first_.toStdString()).image, edited));
    }

    void another_video_frame_asks() {
        MainWindow window;
        QVERIFY(show_and_open(window, LACUNA_SOURCE_DIR "/tests/data/video/tree.avi"));
        QVERIFY(window.session().video() != nullptr);
        paint_and_fill(window);
        const ImageRgba8 edited = pixels_of(window);
        auto* slider = window.video_panel()->findChild<QSlider*>("video_frame");
        QVERIFY(slider != nullptr && slider->maximum() >= 5);
        {
            const DialogAnswer cancel(kUnsaved, "unsaved_cancel");
            slider->setValue(5);
            QCOMPARE(cancel.answered(), 1);
            QVERIFY2(cancel.text().contains("frame 6"), qPrintable(cancel.text()));
            QCOMPARE(window.session().video()->current(), 0);
            QCOMPARE(slider->value(), 0);
            QVERIFY(same_pixels(pixels_of(window), edited));
        }
        const DialogAnswer discard(kUnsaved, "unsaved_discard");
        slider->setValue(5);
        QCOMPARE(discard.answered(), 1);
        QCOMPARE(window.session().video()->current(), 5);
        QCOMPARE(window.session().history().count(), 0);
    }

    // ---- Save like a desktop editor ----

    void ctrl_s_on_a_png_saves_without_asking() {
        MainWindow window;
        QVERIFY(show_and_open(window, first_));
        auto* save_action = window.findChild<QAction*>("action_save");
        QVERIFY(save_action != nullptr);
        QCOMPARE(save_action->shortcut(), QKeySequence(QKeySequence::Save));
        paint_and_fill(window);
        QVERIFY(window.windowTitle().contains("first.png"));
        QVERIFY(window.isWindowModified());
        const DialogAnswer loss(kLoss, "loss_cancel"), unsaved(kUnsaved, "unsaved_cancel");
        save_action->trigger();
        QCOMPARE(loss.answered() + unsaved.answered(), 0);
        QVERIFY(!window.isWindowModified());
        QVERIFY(window.session().history().is_clean());
        QVERIFY(same_pixels(io::read_image(first_.toStdString()).image, pixels_of(window)));
        QVERIFY(window.statusBar()->currentMessage().startsWith("Saved"));
        // Undo past the saved state makes it modified again.
        QVERIFY(window.undo());
        QVERIFY(window.isWindowModified());
        window.session().history().set_clean();
    }

    void ctrl_s_on_a_jpeg_says_once_what_it_loses() {
        const QString jpeg = dir_.filePath("photo.jpg");
        io::write_image(jpeg.toStdString(), make_photo(160, 120, 3).view());
        MainWindow window;
        QVERIFY(show_and_open(window, jpeg));
        paint_and_fill(window);
        const QByteArray on_disk = file_bytes(jpeg);
        {
            const DialogAnswer cancel(kLoss, "loss_cancel");
            QVERIFY(!window.save());
            QCOMPARE(cancel.answered(), 1);
            QVERIFY2(cancel.text().contains("JPEG"), qPrintable(cancel.text()));
            QCOMPARE(file_bytes(jpeg), on_disk);
            QVERIFY(window.isWindowModified());
        }
        const DialogAnswer agree(kLoss, "loss_save");
        QVERIFY(window.save());
        QCOMPARE(agree.answered(), 1);
        const ImageRgba8 back = io::read_image(jpeg.toStdString()).image;
        QCOMPARE(back.width(), 160);
        QVERIFY2(lacuna::test::mean_abs_diff(back, pixels_of(window)) < 2.0,
                 "the JPEG does not hold the edited pixels");
        QVERIFY(!window.isWindowModified());
        // Said once for this document: the next Save writes without asking.
        paint_and_fill(window);
        QVERIFY(window.save());
        QCOMPARE(agree.answered(), 1);
    }

    void ctrl_s_on_a_16_bit_tiff_keeps_the_samples() {
        const QString tiff = dir_.filePath("scan16.tif");
        NativeImage samples(140, 100, {SampleType::U16, 1});
        for (int y = 0; y < 100; ++y)
            for (int x = 0; x < 140; ++x)
                samples.set_sample(x, y, 0,
                                   (x > 30 && x < 50 && y > 30 && y < 50)
                                       ? 900.0
                                       : 20000.0 + 150.0 * x + 37.0 * (y % 7));
        io::write_native(tiff.toStdString(), samples);
        MainWindow window;
        QVERIFY(show_and_open(window, tiff));
        QVERIFY(window.session().document().measurement());
        paint_and_fill(window);
        const NativeImage edited = window.session().document().samples();
        QVERIFY(!(edited == samples));
        const DialogAnswer loss(kLoss, "loss_cancel");
        QVERIFY(window.save());
        QCOMPARE(loss.answered(), 0);
        const io::LoadedNative back = io::read_native(tiff.toStdString());
        QCOMPARE(back.pages.front().sample_type(), SampleType::U16);
        QVERIFY(back.pages.front() == edited);
        QVERIFY(!window.isWindowModified());
    }

    // A FITS cube opens as a stack: the Display dock's page slider spans its planes
    // and moving it shows each plane's samples. (write_native puts a 3-channel image into
    // NAXIS3 planes, which read back as 3 pages.)
    void a_fits_cube_opens_with_the_page_slider() {
        if (!io::format_holds(io::ImageFormat::Fits, SampleType::F32, 1))
            QSKIP("this build has no FITS support");
        NativeImage planes(30, 20, {SampleType::F32, 3});
        for (int y = 0; y < 20; ++y)
            for (int x = 0; x < 30; ++x)
                for (int c = 0; c < 3; ++c) planes.set_sample(x, y, c, 100.0 * c + x + 0.5 * y);
        const QString cube = dir_.filePath("cube.fits");
        io::write_native(cube.toStdString(), planes);
        MainWindow window;
        QVERIFY(show_and_open(window, cube));
        QCOMPARE(window.session().page_count(), 3);
        auto* slider = window.findChild<QSlider*>("display_page");
        QVERIFY(slider != nullptr);
        QCOMPARE(slider->maximum(), 2);
        slider->setValue(2);
        QCOMPARE(window.session().page(), 2);
        QCOMPARE(window.session().document().samples().sample(7, 5, 0), 200.0 + 7 + 2.5);
    }

    // An animated GIF opens like a multi-page TIFF: one page per frame, the slider across them
    // (tests/data/formats/anim.gif: frame k paints from (k, k) on, as Pillow composes it).
    void a_gif_opens_with_the_page_slider() {
        MainWindow window;
        QVERIFY(show_and_open(window, QString(LACUNA_SOURCE_DIR) + "/tests/data/formats/anim.gif"));
        QCOMPARE(window.session().page_count(), 3);
        auto* slider = window.findChild<QSlider*>("display_page");
        QVERIFY(slider != nullptr);
        QCOMPARE(slider->maximum(), 2);
        slider->setValue(2);
        QCOMPARE(window.session().page(), 2);
        QCOMPARE(window.session().document().samples().sample(1, 1, 0), 10.0);  // not painted
        QCOMPARE(window.session().document().samples().sample(2, 2, 0), 2 * 80.0 + 2 * 20);
    }

    void save_never_applies_a_preview_silently() {
        MainWindow window;
        QVERIFY(show_and_open(window, first_));
        window.retarget_panel()->set_target_width(120);
        QTRY_VERIFY_WITH_TIMEOUT(window.session().retarget().previewing(), 60000);
        {
            const DialogAnswer without(kPreview, "preview_without");
            QVERIFY(window.save());
            QCOMPARE(without.answered(), 1);
            QCOMPARE(io::read_image(first_.toStdString()).image.width(), 160);
            QCOMPARE(window.session().document().width(), 160);
        }
        {
            const DialogAnswer cancel(kPreview, "preview_cancel");
            const QByteArray on_disk = file_bytes(first_);
            QVERIFY(!window.save());
            QCOMPARE(cancel.answered(), 1);
            QCOMPARE(file_bytes(first_), on_disk);
        }
        const DialogAnswer apply(kPreview, "preview_apply");
        QVERIFY(window.save());
        QCOMPARE(apply.answered(), 1);
        QCOMPARE(io::read_image(first_.toStdString()).image.width(), 120);
        QCOMPARE(window.session().document().width(), 120);
        QVERIFY(!window.isWindowModified());
    }

    void a_format_lacuna_cannot_write_offers_only_save_as() {
        MainWindow window;
        window.resize(1000, 700);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.open_sample_measurement());
        // The sample has no file of its own; as a stand-in for a DICOM file, ask what a save
        // over a .dcm path would lose.
        const MainWindow::SaveCheck check = window.check_save(dir_.filePath("t.dcm"));
        QVERIFY(!check.writable);
        QVERIFY2(check.losses.join(' ').contains("cannot write DCM"),
                 qPrintable(check.losses.join(' ')));
        // FITS keeps every sample type and the calibration: nothing to lose.
        const MainWindow::SaveCheck fits = window.check_save(dir_.filePath("t.fits"));
        QVERIFY(fits.writable);
        QVERIFY2(fits.losses.isEmpty(), qPrintable(fits.losses.join(' ')));
        const MainWindow::SaveCheck png = window.check_save(dir_.filePath("t.png"));
        QVERIFY(png.writable);
        QVERIFY2(png.losses.join(' ').contains("narrowed to 8 bits"),
                 qPrintable(png.losses.join(' ')));
        QVERIFY2(png.losses.join(' ').contains("calibration"), qPrintable(png.losses.join(' ')));
        // TIFF keeps float samples and, as ImageJ writes it, the calibration.
        const MainWindow::SaveCheck tiff = window.check_save(dir_.filePath("t.tif"));
        QVERIFY2(tiff.losses.isEmpty(), qPrintable(tiff.losses.join(' ')));
    }

    // ---- each document starts clean ----

    void a_new_document_starts_with_clean_panels() {
        MainWindow window;
        QVERIFY(show_and_open(window, first_));
        paint_and_fill(window);
        QCOMPARE(window.removal_panel()->progress_bar()->format(), QString("done"));
        auto* range = window.histogram_panel()->findChild<QComboBox*>("histogram_range_mode");
        range->setCurrentIndex(2);  // a typed range belongs to this document
        window.retarget_panel()->set_target_width(140);
        const DialogAnswer discard(kUnsaved, "unsaved_discard");
        QVERIFY(window.open_file(photo("same-size.png", 4)));
        QCOMPARE(discard.answered(), 1);
        QCOMPARE(window.removal_panel()->progress_bar()->format(), QString("idle"));
        QCOMPARE(window.removal_panel()->progress_bar()->value(), 0);
        for (const QLabel* label : window.removal_panel()->findChildren<QLabel*>())
            QVERIFY2(!label->text().contains("Filled"), qPrintable(label->text()));
        QCOMPARE(range->currentIndex(), 0);
        // The same size as before, and still the targets start at it.
        QCOMPARE(window.retarget_panel()->target_width(), 160);
        QVERIFY(!window.session().retarget().previewing());
        QVERIFY(window.findChild<QLabel*>("value_label")->text().isEmpty());
        // "Nothing to fill" is not "done".
        QVERIFY(!window.start_fill());
        QCOMPARE(window.removal_panel()->progress_bar()->format(), QString("idle"));
    }

    // The retarget mix (amount and importance terms) is autosaved; a restore shows it in the
    // Retarget panel, whose next change keeps the rest of it.
    void a_restored_session_shows_its_retarget_mix() {
        // Both put back when the test ends, also on failure: CTest points XDG_STATE_HOME at the
        // build folder, and the later tests' recovery files must not reach the user's home.
        const EnvOverride state("XDG_STATE_HOME", dir_.filePath("state-mix").toLocal8Bit());
        EnvOverride answer("LACUNA_RECOVERY_ANSWER", "restore");
        const auto checkbox = [](MainWindow& w, const char* name) {
            return qobject_cast<QCheckBox*>(w.retarget_panel()->mix_control(name));
        };
        const auto spin = [](MainWindow& w, const char* name) {
            return qobject_cast<QSpinBox*>(w.retarget_panel()->mix_control(name));
        };
        const auto amount = [](MainWindow& w) {
            return qobject_cast<QSlider*>(w.retarget_panel()->mix_control("amount"));
        };
        {
            MainWindow window;
            QVERIFY(show_and_open(window, first_));
            amount(window)->setValue(12);  // 60 %, in steps of 5
            checkbox(window, "faces")->setChecked(false);
            checkbox(window, "skin")->setChecked(true);
            spin(window, "skin-weight")->setValue(17);
            spin(window, "line-weight")->setValue(9);
            auto* energy = window.retarget_panel()->findChild<QComboBox*>("retarget_energy");
            QVERIFY(energy);
            energy->setCurrentIndex(energy->findData(static_cast<int>(SeamEnergy::Sobel)));
            QCOMPARE(window.session().retarget().energy(), SeamEnergy::Sobel);
            QCOMPARE(window.session().retarget().mix().amount, 60.0);
            QCOMPARE(window.session().retarget().mix().importance.skin_weight, 17);
            paint_and_fill(window);
            window.autosave();
            QTRY_VERIFY(QFileInfo::exists(window.recovery_file()));
            QTRY_VERIFY(!session::read_recovery(window.recovery_file().toStdString())
                             .tools.retarget_mix.importance.faces);
        }  // gone without closing: its recovery file waits for the next start

        MainWindow restored;
        restored.resize(1200, 800);
        restored.show();
        QVERIFY(QTest::qWaitForWindowExposed(&restored));
        QVERIFY(restored.offer_recovery());
        answer.restore();
        const ops::RetargetMix& shown = restored.retarget_panel()->mix();
        QCOMPARE(shown.amount, 60.0);
        QVERIFY(!shown.importance.faces);
        QVERIFY(shown.importance.skin);
        QCOMPARE(shown.importance.skin_weight, 17);
        QCOMPARE(shown.importance.line_weight, 9);
        QCOMPARE(amount(restored)->value(), 12);
        // The energy is shown as restored, not the panel's default.
        QCOMPARE(restored.retarget_panel()->energy(), SeamEnergy::Sobel);
        QCOMPARE(restored.session().retarget().energy(), SeamEnergy::Sobel);
        QVERIFY(!checkbox(restored, "faces")->isChecked());
        QVERIFY(checkbox(restored, "skin")->isChecked());
        QCOMPARE(spin(restored, "skin-weight")->value(), 17);
        QVERIFY(spin(restored, "skin-weight")->isEnabled());
        QVERIFY(!spin(restored, "face-weight")->isEnabled());
        // One more change sends the panel's whole mix: the restored values stay.
        checkbox(restored, "faces")->setChecked(true);
        const ops::RetargetMix& used = restored.session().retarget().mix();
        QCOMPARE(used.amount, 60.0);
        QVERIFY(used.importance.skin);
        QCOMPARE(used.importance.skin_weight, 17);
        QCOMPARE(used.importance.line_weight, 9);
        QVERIFY(used.importance.faces);
        restored.session().history().set_clean();
    }

    void the_active_tool_stays_across_an_open() {
        MainWindow window;
        QVERIFY(show_and_open(window, first_));
        window.select_tool(editor::CanvasTool::Line);
        QVERIFY(window.open_file(second_));  // another size, nothing unsaved
        QCOMPARE(window.session().active_kind(), session::ToolKind::LineHistogram);
        QVERIFY(!window.session().retarget().previewing());
    }

    void the_retarget_preview_shows_with_any_tool() {
        MainWindow window;
        QVERIFY(show_and_open(window, first_));
        window.select_tool(editor::CanvasTool::Line);
        window.retarget_panel()->set_target_width(112);
        QTRY_VERIFY_WITH_TIMEOUT(window.session().retarget().previewing(), 60000);
        QVERIFY(window.session().showing_preview());
        QCOMPARE(window.session().shown_width(), 112);
        QTRY_COMPARE(window.canvas()->preview().width(), 112);
        window.session().history().set_clean();
    }

    void a_typed_size_out_of_range_is_clamped_with_a_message() {
        MainWindow window;
        QVERIFY(show_and_open(window, first_));
        QSpinBox* width = window.retarget_panel()->width_spin();
        width->setValue(3);
        QCOMPARE(width->value(), 16);  // 10 % of 160
        QVERIFY2(window.retarget_panel()->limit_message().contains("16"),
                 qPrintable(window.retarget_panel()->limit_message()));
        QVERIFY(window.statusBar()->currentMessage().contains("10 %"));
        width->setValue(400);
        QCOMPARE(width->value(), 240);  // 150 %
        width->setValue(100);
        QVERIFY(window.retarget_panel()->limit_message().isEmpty());
        window.session().history().set_clean();
    }

    void exports_confirm_and_the_plot_is_readable() {
        MainWindow window;
        QVERIFY(show_and_open(window, first_));
        window.select_tool(editor::CanvasTool::Line);
        window.canvas()->set_line({10, 60}, {150, 60});
        QTRY_VERIFY(window.histogram_panel()->result() != nullptr);
        const QString csv = dir_.filePath("line.csv");
        QVERIFY(window.export_histogram_csv(csv));
        QVERIFY(QFileInfo::exists(csv));
        QVERIFY2(window.statusBar()->currentMessage().contains(csv),
                 qPrintable(window.statusBar()->currentMessage()));
        editor::HistogramPlot* plot = window.histogram_panel()->plot();
        QVERIFY(plot->minimumHeight() >= 200);
        plot->set_marker(20);
        QVERIFY2(plot->readout().contains("mean") && plot->readout().contains("median"),
                 qPrintable(plot->readout()));
        QVERIFY(window.histogram_panel()->findChild<QSplitter*>("histogram_splitter") != nullptr);
    }

    void toolbar_buttons_keep_their_words() {
        MainWindow window;
        QVERIFY(show_and_open(window, first_));
        auto* undo = window.findChild<QAction*>("toolbar_undo");
        QVERIFY(undo != nullptr && !undo->isEnabled());
        paint_and_fill(window);
        QCOMPARE(undo->text(), QString("Undo"));
        QVERIFY(undo->isEnabled());
        QVERIFY2(undo->toolTip().contains("Fill"), qPrintable(undo->toolTip()));
        window.session().history().set_clean();
    }

    void recent_files_tell_same_names_apart() {
        const QStringList labels = MainWindow::recent_labels(
            {"/data/a/scan/p.png", "/data/b/scan/p.png", "/data/c/q.png", "/x/p.tif"});
        QCOMPARE(labels.size(), 4);
        QCOMPARE(labels[0], QString("p.png — a/scan"));
        QCOMPARE(labels[1], QString("p.png — b/scan"));
        QCOMPARE(labels[2], QString("q.png"));
        QCOMPARE(labels[3], QString("p.tif"));
    }
};

int main(int argc, char** argv) {
    QApplication::setAttribute(Qt::AA_ShareOpenGLContexts);
    QApplication app(argc, argv);
    TestDocuments test;
    return QTest::qExec(&test, argc, argv);
}
#include "test_documents.moc"
