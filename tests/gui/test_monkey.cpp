// Monkey test: the real editor window under Xvfb takes a few hundred (CI) or
// thousands (LACUNA_MONKEY_STEPS) of seeded random interactions — brush and eraser strokes,
// fills left running, waited for or cancelled, tool switches, retarget slider moves, applies
// and their masks, line drags, undo, redo, zoom and pan, saves and opens of generated images —
// and checks what must hold whatever the user does:
//   - nothing crashes and Qt prints no warning, critical or fatal message;
//   - the history stays consistent (index ≤ count, undo succeeds exactly index times, redo
//     exactly count − index times) and the document's size stays sane;
//   - undoing everything (after cancelling a running fill) gives back the opened pixels — or a
//     measurement's stored samples — exactly, with every mask empty; redoing as many edits
//     gives back the state before the undo, exactly;
//   - a saved file reads back as the document it was saved from (lossless formats);
//   - no fill or engine step fails (status bar) and the canvas reports no GL error.
// LACUNA_MONKEY_SEED picks the sequence (printed, so a failure can be replayed); the seam maps
// and fill steps run on timers and threads, so a seed replays the same interactions, not
// necessarily the same interleaving with background work.
#include "canvas.hpp"
#include "gui_test_util.hpp"
#include "histogram_panel.hpp"
#include "main_window.hpp"
#include "object_removal_panel.hpp"
#include "retarget_panel.hpp"

#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>
#include <lacuna/core/native_image.hpp>
#include <lacuna/io/image_io.hpp>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QMessageBox>
#include <QOpenGLContext>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QToolButton>
#include <QWheelEvent>
#include <QtTest>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>

using namespace lacuna;
using lacuna::editor::MainWindow;

namespace {

// Session's undo limit (History's default). The monkey checks back before it is reached: an
// edit dropped by the limit would make "undo to the start" unanswerable.
constexpr int kHistoryLimit = 64;
constexpr int kCheckBeforeCount = kHistoryLimit - 8;
// Generated images stay small so that thousands of steps take minutes, not hours.
constexpr int kMinSide = 64;
constexpr int kMaxSide = 300;
// Retarget may enlarge by 50 % per Apply; beyond this the monkey only shrinks.
constexpr int kGrowLimit = 700;
// What no interaction may produce.
constexpr int kMaxSaneSide = 4096;

// ---- Qt messages: every warning, critical and fatal message is a failure ----

struct MessageLog {
    QStringList recorded;
    int step = -1;  // the step that was running, for the report
};
MessageLog g_messages;
QtMessageHandler g_previous_handler = nullptr;

void record_message(const QtMsgType type, const QMessageLogContext& context, const QString& text) {
    if (type == QtWarningMsg || type == QtCriticalMsg || type == QtFatalMsg)
        g_messages.recorded << QString("step %1: %2").arg(g_messages.step).arg(text);
    // Qt Test's own handler still prints it (and aborts on fatal).
    if (g_previous_handler) g_previous_handler(type, context, text);
}

std::uint32_t env_number(const char* name, const std::uint32_t fallback) {
    bool ok = false;
    const qulonglong value = qEnvironmentVariable(name).toULongLong(&ok);
    return ok ? static_cast<std::uint32_t>(value) : fallback;
}

/// Widget coordinates of an image point on the canvas, kept inside the widget (a drag that
/// leaves the window would go to another window).
QPoint widget_point(const editor::Canvas* canvas, const double x, const double y) {
    const render::PointF s = canvas->view().to_screen({x, y});
    const double dpr = canvas->devicePixelRatioF();
    return {std::clamp(int(std::lround(s.x / dpr)), 1, std::max(1, canvas->width() - 2)),
            std::clamp(int(std::lround(s.y / dpr)), 1, std::max(1, canvas->height() - 2))};
}

/// The state the history must bring back: what a document looked like.
struct Snapshot {
    ImageRgba8 pixels;
    NativeImage samples;  // measurement documents only
    std::array<Mask, session::kMaskLayers> masks;
};

Snapshot snapshot(const session::Document& document) {
    Snapshot s;
    s.pixels = clone(document.pixels().view());
    if (document.measurement()) s.samples = document.samples();
    for (int layer = 0; layer < session::kMaskLayers; ++layer)
        s.masks[std::size_t(layer)] =
            clone(document.mask(static_cast<session::MaskLayer>(layer)).view());
    return s;
}

/// Empty when the document holds `expected`; otherwise what differs.
QString compare(const session::Document& document, const Snapshot& expected) {
    const ImageRgba8& pixels = document.pixels();
    if (pixels.width() != expected.pixels.width() || pixels.height() != expected.pixels.height())
        return QString("size %1 × %2, expected %3 × %4")
            .arg(pixels.width())
            .arg(pixels.height())
            .arg(expected.pixels.width())
            .arg(expected.pixels.height());
    if (!equal_pixels<Rgba8>(pixels.view(), expected.pixels.view())) {
        int diffs = 0, fx = -1, fy = -1;
        for (int y = 0; y < pixels.height(); ++y)
            for (int x = 0; x < pixels.width(); ++x)
                if (pixels.at(x, y) != expected.pixels.at(x, y)) {
                    if (diffs++ == 0) fx = x, fy = y;
                }
        return QString("%1 pixels differ, the first at (%2, %3)%4")
            .arg(diffs)
            .arg(fx)
            .arg(fy)
            .arg(document.measurement()
                     ? QString(" (a measurement document; its stored samples %1)")
                           .arg(document.samples() == expected.samples ? "agree" : "differ")
                     : QString());
    }
    if (!expected.samples.empty() && !(document.samples() == expected.samples))
        return "the stored samples differ";
    for (int layer = 0; layer < session::kMaskLayers; ++layer) {
        const Mask& mask = document.mask(static_cast<session::MaskLayer>(layer));
        if (!equal_pixels<std::uint8_t>(mask.view(), expected.masks[std::size_t(layer)].view()))
            return QString("mask layer %1 differs (%2 selected, expected %3)")
                .arg(layer)
                .arg(count_selected(mask.view()))
                .arg(count_selected(expected.masks[std::size_t(layer)].view()));
    }
    return {};
}

}  // namespace

/// Drives one MainWindow with random interactions and checks the invariants. Checks use
/// QVERIFY, so every caller looks at QTest::currentTestFailed() afterwards.
class Monkey {
  public:
    Monkey(MainWindow& window, const QString& dir, const std::uint32_t seed)
        : window_(window), dir_(dir), rng_(seed) {
        QObject::connect(
            window.statusBar(), &QStatusBar::messageChanged, [this](const QString& text) {
                if (text.startsWith("Filled ")) ++fills_finished_;
                // The fill and the seam maps report engine failures here.
                if (text.contains("failed", Qt::CaseInsensitive))
                    failures_ << QString("step %1: status \"%2\"").arg(g_messages.step).arg(text);
            });
    }

    void step(const int index) {
        g_messages.step = index;
        using Action = void (Monkey::*)();
        struct Choice {
            int weight;
            const char* name;
            Action action;
        };
        static const Choice choices[] = {
            {14, "stroke", &Monkey::stroke},
            {6, "fill", &Monkey::fill},
            {1, "fill again", &Monkey::fill_again},
            {2, "cancel fill", &Monkey::cancel_fill},
            {1, "clear mask", &Monkey::clear_mask},
            {1, "fill settings", &Monkey::fill_settings},
            {8, "tool", &Monkey::switch_tool},
            {8, "slider", &Monkey::slider},
            {4, "apply", &Monkey::apply},
            {1, "reset", &Monkey::reset},
            {1, "energy or seams", &Monkey::energy_or_seams},
            {5, "retarget mask", &Monkey::retarget_mask},
            {5, "line", &Monkey::line},
            {8, "undo", &Monkey::undo},
            {5, "redo", &Monkey::redo},
            {5, "view", &Monkey::view},
            {4, "wait", &Monkey::wait},
            {2, "save", &Monkey::save},
            {1, "open", &Monkey::open_generated},
            {1, "reopen saved", &Monkey::reopen_saved},
        };
        int total = 0;
        for (const Choice& c : choices) total += c.weight;
        int pick = uniform(0, total - 1);
        for (const Choice& c : choices) {
            if ((pick -= c.weight) >= 0) continue;
            note(c.name);
            ++tally_[c.name];
            (this->*c.action)();
            break;
        }
        if (QTest::currentTestFailed()) return;
        QCoreApplication::processEvents();
        close_error_dialogs();
        check_consistent();
        if (QTest::currentTestFailed()) return;
        if (window_.session().history().count() >= kCheckBeforeCount) checkpoint();
    }

    /// Opens the first document.
    void begin() { open_generated(); }

    /// Undo everything: the opened document exactly, masks empty. Then redo back to where the
    /// monkey was (that state, exactly) or, randomly or when the history is long, go on from
    /// the start.
    void checkpoint() {
        note("checkpoint");
        ++checkpoints_;
        window_.cancel_fill();  // the fill owns the pixels while it runs: undo waits for it
        QVERIFY(!window_.fill_running());
        const session::History& history = window_.session().history();
        const int count = history.count();
        const int index = history.index();
        const Snapshot before = snapshot(window_.session().document());
        int undone = 0;
        QStringList labels;  // newest first, for the report
        for (std::string label = history.undo_label(); window_.undo();
             label = history.undo_label()) {
            labels << QString::fromStdString(label);
            ++undone;
            QVERIFY2(undone <= index, "undo went past the start");
        }
        QCOMPARE(undone, index);
        QCOMPARE(history.count(), count);
        QCOMPARE(history.index(), 0);
        const QString at_start = compare(window_.session().document(), start_);
        QVERIFY2(at_start.isEmpty(),
                 qPrintable(QString("after undoing %1 edits (%2): %3\n%4")
                                .arg(undone)
                                .arg(labels.join(", "), at_start, recent_actions())));
        QVERIFY(window_.canvas()->gl_error().isEmpty());
        if (count < kCheckBeforeCount / 2 && uniform(0, 2) > 0) {
            // Redo back to where the monkey was (edits undone before stay redoable).
            for (int i = 0; i < index; ++i) QVERIFY2(window_.redo(), "redo refused");
            QCOMPARE(history.index(), index);
            QCOMPARE(history.can_redo(), index < count);
            const QString again = compare(window_.session().document(), before);
            QVERIFY2(again.isEmpty(),
                     qPrintable(QString("after redoing %1 edits (%2, newest first): %3\n%4")
                                    .arg(index)
                                    .arg(labels.join(", "), again, recent_actions())));
        }
    }

    /// Everything recorded that must not happen (Qt messages come separately).
    [[nodiscard]] const QStringList& failures() const { return failures_; }

    [[nodiscard]] QString summary() const {
        QStringList parts;
        for (const auto& [name, n] : tally_) parts << QString("%1 %2").arg(name).arg(n);
        QString text = parts.join(", ");
        text += QString(
                    "; %1 opens, %2 checkpoints, %3 fills finished, %4 fills cancelled, "
                    "%5 retargets applied, %6 saves read back, %7 kinds of error dialog")
                    .arg(opens_)
                    .arg(checkpoints_)
                    .arg(fills_finished_)
                    .arg(fills_cancelled_)
                    .arg(applies_)
                    .arg(saves_checked_)
                    .arg(dialogs_.size());
        for (const auto& [text_of, n] : dialogs_)
            text += QString("\n  dialog ×%1: %2").arg(n).arg(text_of);
        return text;
    }

    [[nodiscard]] QString recent_actions() const {
        return "recent actions:\n  " + QStringList(recent_.begin(), recent_.end()).join("\n  ");
    }

  private:
    int uniform(const int lo, const int hi) { return std::uniform_int_distribution(lo, hi)(rng_); }
    double real(const double lo, const double hi) {
        return std::uniform_real_distribution(lo, hi)(rng_);
    }
    bool chance(const double p) { return real(0.0, 1.0) < p; }

    void note(const QString& text) {
        recent_.push_back(QString("%1: %2").arg(g_messages.step).arg(text));
        if (recent_.size() > 40) recent_.pop_front();
    }

    [[nodiscard]] const session::Document& document() const { return window_.session().document(); }
    [[nodiscard]] editor::Canvas* canvas() const { return window_.canvas(); }

    /// A point on or a little beyond the image (strokes that leave the image are clipped).
    std::pair<double, double> image_point() {
        const double w = document().width(), h = document().height();
        return {real(-0.15 * w, 1.15 * w), real(-0.15 * h, 1.15 * h)};
    }

    /// A left-button drag through a few random points on the canvas.
    void drag(const Qt::MouseButton button = Qt::LeftButton) {
        auto [x, y] = image_point();
        QTest::mousePress(canvas(), button, {}, widget_point(canvas(), x, y));
        const int moves = uniform(1, 8);
        const double reach = 0.25 * std::max(document().width(), document().height());
        for (int i = 0; i < moves; ++i) {
            x += real(-reach, reach);
            y += real(-reach, reach);
            QTest::mouseMove(canvas(), widget_point(canvas(), x, y));
        }
        QTest::mouseRelease(canvas(), button, {}, widget_point(canvas(), x, y));
        note(QString("  drag %1 moves, ends at (%2, %3)")
                 .arg(moves)
                 .arg(x, 0, 'f', 1)
                 .arg(y, 0, 'f', 1));
    }

    template <class W>
    W* find(QWidget* parent, const char* name) {
        W* widget = parent->findChild<W*>(name);
        if (widget == nullptr) qFatal("monkey: no widget named %s", name);
        return widget;
    }
    QPushButton* button_with_text(QWidget* parent, const QString& text) {
        for (QPushButton* b : parent->findChildren<QPushButton*>())
            if (b->text() == text) return b;
        qFatal("monkey: no button %s", qPrintable(text));
    }

    // ---- actions ----

    void stroke() {
        // The remove-object brush or eraser, on the fill mask or the never-sample mask.
        editor::ObjectRemovalPanel* panel = window_.removal_panel();
        const bool erase = chance(0.25);
        find<QToolButton>(panel, erase ? "tool_eraser" : "tool_brush")->click();
        if (chance(0.15)) find<QComboBox>(panel, "mask_target")->setCurrentIndex(uniform(0, 1));
        if (chance(0.3)) find<QSlider>(panel, "brush_size")->setValue(uniform(4, 60));
        note(QString("  %1 on layer %2").arg(erase ? "eraser" : "brush").arg(int(panel->layer())));
        drag();
    }

    void fill() {
        // Half of the fills get a fresh mark on the image first, so that most find a hole.
        if (chance(0.5)) {
            editor::ObjectRemovalPanel* panel = window_.removal_panel();
            find<QToolButton>(panel, "tool_brush")->click();
            find<QComboBox>(panel, "mask_target")->setCurrentIndex(0);
            const double x = real(0.1, 0.9) * document().width();
            const double y = real(0.1, 0.9) * document().height();
            QTest::mousePress(canvas(), Qt::LeftButton, {}, widget_point(canvas(), x, y));
            QTest::mouseMove(canvas(),
                             widget_point(canvas(), x + real(-20, 20), y + real(-20, 20)));
            QTest::mouseRelease(canvas(), Qt::LeftButton, {},
                                widget_point(canvas(), x + real(-20, 20), y + real(-20, 20)));
            note(QString("  painted near (%1, %2)").arg(x, 0, 'f', 1).arg(y, 0, 'f', 1));
        }
        // Sometimes a retarget preview is ready to apply while the fill runs.
        const bool preview_ready = chance(0.25);
        if (preview_ready) prepare_apply();
        window_.removal_panel()->fill_button()->click();
        if (!window_.fill_running()) return;  // nothing painted, or a fill already running
        // Let it run a little, to the end, or leave it running under the next actions.
        switch (uniform(0, 3)) {
            case 0:
                note("  cancelled at once");
                window_.removal_panel()->cancel_button()->click();
                ++fills_cancelled_;
                break;
            case 1:
                QTest::qWait(uniform(0, 120));
                note("  cancelled after some steps");
                window_.removal_panel()->cancel_button()->click();
                ++fills_cancelled_;
                break;
            case 2:
                QTRY_VERIFY_WITH_TIMEOUT(!window_.fill_running(), 60000);
                note("  waited for the end");
                break;
            default:
                note("  left running");
                if (chance(0.5)) act_during_fill();
                break;
        }
    }

    /// Something else at once, before the next event-loop turn can finish the fill: edits
    /// of the picture or its masks while the fill owns the pixels.
    void act_during_fill() {
        switch (uniform(0, 5)) {
            case 0:
                window_.retarget_panel()->apply_button()->click();
                note(QString("  then Apply at once: %1 × %2")
                         .arg(document().width())
                         .arg(document().height()));
                break;
            case 1:
                stroke();
                break;
            case 2:
                note("  then Clear Mask");
                clear_mask();
                break;
            case 3:
                undo();
                break;
            case 4:
                save();
                break;
            default:
                slider();
                break;
        }
    }

    void fill_again() {
        if (!window_.removal_panel()->findChild<QPushButton*>("fill_again_button")->isEnabled())
            return;
        window_.removal_panel()->findChild<QPushButton*>("fill_again_button")->click();
        if (window_.fill_running()) QTRY_VERIFY_WITH_TIMEOUT(!window_.fill_running(), 60000);
    }

    void cancel_fill() {
        if (!window_.fill_running()) return;
        window_.removal_panel()->cancel_button()->click();
        ++fills_cancelled_;
    }

    void clear_mask() { button_with_text(window_.removal_panel(), "Clear Mask")->click(); }

    void fill_settings() {
        editor::ObjectRemovalPanel* panel = window_.removal_panel();
        if (chance(0.5)) {
            auto* method = find<QComboBox>(panel, "fill_method");
            method->setCurrentIndex(uniform(0, method->count() - 1));
        } else if (auto* patch = panel->findChild<QSpinBox*>()) {
            patch->setValue(uniform(patch->minimum(), std::min(patch->maximum(), 15)));
        }
    }

    void switch_tool() {
        static const char* toolbar[] = {"action_tool_pan", "action_tool_line", "action_tool_brush",
                                        "action_tool_eraser"};
        static const char* retarget[] = {"retarget_tool_pan", "retarget_tool_protect",
                                         "retarget_tool_remove", "retarget_tool_eraser"};
        if (chance(0.6)) {
            const char* name = toolbar[uniform(0, 3)];
            note(QString("  %1").arg(name));
            window_.findChild<QAction*>(name)->trigger();
        } else {
            const char* name = retarget[uniform(0, 3)];
            note(QString("  %1").arg(name));
            find<QToolButton>(window_.retarget_panel(), name)->click();
        }
    }

    int slider_value(const int side) {
        // Permille of the source; shrink only once the image has grown large.
        return uniform(100, side > kGrowLimit ? 1000 : 1500);
    }

    void slider() {
        editor::RetargetPanel* panel = window_.retarget_panel();
        const bool width = chance(0.5);
        QSlider* s = width ? panel->width_slider() : panel->height_slider();
        // A drag: several values in a row, with the event loop turning between some of them.
        const int moves = uniform(1, 5);
        for (int i = 0; i < moves; ++i) {
            const int value = slider_value(width ? document().width() : document().height());
            s->setValue(value);
            note(QString("  %1 → %2").arg(width ? "width" : "height").arg(value));
            if (chance(0.5)) QCoreApplication::processEvents();
        }
    }

    /// The retarget panel's pan tool, a target other than the size, no seams overlay (Apply
    /// refuses while the seams are drawn), and a short wait for the seam maps.
    void prepare_apply() {
        editor::RetargetPanel* panel = window_.retarget_panel();
        // A carving-mask brush shows the original, not the preview.
        find<QToolButton>(panel, "retarget_tool_pan")->click();
        if (panel->target_width() == document().width() &&
            panel->target_height() == document().height())
            panel->width_slider()->setValue(slider_value(document().width()));
        if (QCheckBox* seams = panel->findChild<QCheckBox*>(); seams->isChecked())
            seams->setChecked(false);
        const session::RetargetTool& tool = *window_.retarget_session();
        QElapsedTimer waited;
        waited.start();
        while (waited.elapsed() < 2000 &&
               !(tool.previewing() && tool.frame_width() == tool.target_width() &&
                 tool.frame_height() == tool.target_height()))
            QTest::qWait(5);
    }

    void apply() {
        // Mostly make Apply possible first.
        if (chance(0.7)) prepare_apply();
        const int before = window_.session().history().count();
        window_.retarget_panel()->apply_button()->click();
        if (window_.session().history().count() != before) ++applies_;
        const session::RetargetTool& tool = *window_.retarget_session();
        note(QString("  now %1 × %2 (target %3 × %4, frame %5 × %6, previewing %7, fill %8)")
                 .arg(document().width())
                 .arg(document().height())
                 .arg(tool.target_width())
                 .arg(tool.target_height())
                 .arg(tool.frame_width())
                 .arg(tool.frame_height())
                 .arg(tool.previewing())
                 .arg(window_.fill_running()));
        if (qEnvironmentVariableIsSet("LACUNA_MONKEY_TRACE"))
            qInfo("%s", qPrintable(recent_.back()));
    }

    void reset() { button_with_text(window_.retarget_panel(), "Reset")->click(); }

    void energy_or_seams() {
        editor::RetargetPanel* panel = window_.retarget_panel();
        if (chance(0.5)) {
            auto* energy = panel->findChild<QComboBox*>();
            energy->setCurrentIndex(uniform(0, energy->count() - 1));
        } else {
            QCheckBox* seams = panel->findChild<QCheckBox*>();
            seams->setChecked(!seams->isChecked());
        }
    }

    void retarget_mask() {
        static const char* brushes[] = {"retarget_tool_protect", "retarget_tool_remove",
                                        "retarget_tool_eraser"};
        const char* name = brushes[uniform(0, 2)];
        note(QString("  %1").arg(name));
        find<QToolButton>(window_.retarget_panel(), name)->click();
        drag();
    }

    void line() {
        window_.findChild<QAction*>("action_tool_line")->trigger();
        if (chance(0.2))
            find<QSpinBox>(window_.histogram_panel(), "histogram_band")->setValue(uniform(1, 15));
        drag();
    }

    void undo() {
        // The slot the menu, the toolbar and Ctrl+Z call; refused while a fill runs.
        note(QString("  %1").arg(window_.undo() ? "done" : "nothing"));
    }

    void redo() { note(QString("  %1").arg(window_.redo() ? "done" : "nothing")); }

    void view() {
        editor::Canvas* c = canvas();
        switch (uniform(0, 4)) {
            case 0: {
                const QPointF at(uniform(0, c->width() - 1), uniform(0, c->height() - 1));
                QWheelEvent wheel(at, c->mapToGlobal(at), {}, {0, uniform(-3, 3) * 120},
                                  Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
                QApplication::sendEvent(c, &wheel);
                break;
            }
            case 1:
                c->zoom_by(real(0.3, 3.0));
                break;
            case 2:
                c->fit_to_window();
                break;
            case 3:
                c->actual_size();
                break;
            default:
                drag(Qt::MiddleButton);  // pans whatever the tool
                break;
        }
    }

    void wait() { QTest::qWait(uniform(1, 60)); }

    void save() {
        if (document().empty()) return;
        const bool measurement = document().measurement();
        // Lossless formats are read back and compared; JPEG only has to be written.
        static const char* photo_ext[] = {"png", "tiff", "jpg"};
        const char* ext = measurement
                              ? (document().format().sample == SampleType::F32 ? "tiff" : "png")
                              : photo_ext[uniform(0, 2)];
        const QString path = QString("%1/saved-%2.%3").arg(dir_).arg(++saves_).arg(ext);
        note(QString("  %1").arg(path));
        // A pending retarget preview is applied first: apply_preview_ answers save_to's question.
        const int answered = apply_preview_.answered();
        if (!window_.save_to(path, /*allow_replace_source=*/true)) {
            // Only a preview that cannot be applied yet (a fill running, seams still being
            // computed) stops a save, and then the user is told and no file is written.
            QVERIFY2(apply_preview_.answered() == answered + 1, "a save failed unasked");
            QVERIFY2(!QFileInfo::exists(path), "a refused save wrote a file");
            close_error_dialogs();
            note("  not saved: the preview could not be applied");
            return;
        }
        last_saved_ = path;
        if (QString(ext) == "jpg") return;
        if (measurement) {
            const io::LoadedNative back = io::read_native(path.toStdString());
            QVERIFY2(back.pages.front() == document().samples(), "saved samples differ");
        } else {
            const io::LoadedImage back = io::read_image(path.toStdString());
            QVERIFY2(equal_pixels<Rgba8>(back.image.view(), document().pixels().view()),
                     "saved pixels differ");
        }
        ++saves_checked_;
    }

    /// A small picture with structure (gradient, boxes, discs, noise) of a random odd size;
    /// one in five is a 16-bit or float measurement.
    void open_generated() {
        checkpoint_before_open();
        if (QTest::currentTestFailed()) return;
        const int w = uniform(kMinSide, kMaxSide), h = uniform(kMinSide, kMaxSide);
        const int kind = uniform(0, 9);
        const QString path = QString("%1/gen-%2.%3")
                                 .arg(dir_)
                                 .arg(++generated_)
                                 .arg(kind == 0   ? "png"
                                      : kind == 1 ? "tiff"
                                      : kind == 2 ? "jpg"
                                      : kind <= 5 ? "png"
                                                  : "tiff");
        note(QString("  %1 × %2 %3").arg(w).arg(h).arg(path));
        std::optional<ImageRgba8> lossless;
        if (kind <= 1) {
            NativeImage samples(w, h, {kind == 0 ? SampleType::U16 : SampleType::F32, 1});
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x)
                    samples.set_sample(
                        x, y, 0,
                        kind == 0 ? double(uniform(0, 65535))
                                  : 250.0 + 0.3 * x + 40.0 * std::sin(y * 0.1) + real(-1.0, 1.0));
            io::write_native(path.toStdString(), samples);
        } else {
            ImageRgba8 picture = generate(w, h);
            io::write_image(path.toStdString(), picture.view());
            if (kind != 2) lossless = std::move(picture);
        }
        open(path);
        if (QTest::currentTestFailed()) return;
        QCOMPARE(document().width(), w);
        QCOMPARE(document().height(), h);
        QCOMPARE(document().measurement(), kind <= 1);
        if (lossless)
            QVERIFY2(equal_pixels<Rgba8>(document().pixels().view(), lossless->view()),
                     "the opened pixels are not the written ones");
    }

    void reopen_saved() {
        if (last_saved_.isEmpty()) return;
        checkpoint_before_open();
        if (QTest::currentTestFailed()) return;
        note(QString("  %1").arg(last_saved_));
        open(last_saved_);
    }

    void open(const QString& path) {
        QVERIFY2(window_.open_file(path), qPrintable(path));
        ++opens_;
        QCOMPARE(window_.session().history().count(), 0);
        start_ = snapshot(document());
        for (const Mask& m : start_.masks) QCOMPARE(count_selected(m.view()), std::int64_t{0});
    }

    /// Opening starts a new history: check the old one first.
    void checkpoint_before_open() {
        if (!document().empty() && opens_ > 0) checkpoint();
    }

    ImageRgba8 generate(const int w, const int h) {
        ImageRgba8 image(w, h);
        const auto colour = [this] {
            return Rgba8{std::uint8_t(uniform(0, 255)), std::uint8_t(uniform(0, 255)),
                         std::uint8_t(uniform(0, 255)), 255};
        };
        const Rgba8 a = colour(), b = colour();
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const double t = double(x + y) / (w + h);
                image.at(x, y) =
                    Rgba8{std::uint8_t(a.r + t * (b.r - a.r)), std::uint8_t(a.g + t * (b.g - a.g)),
                          std::uint8_t(a.b + t * (b.b - a.b)), 255};
            }
        const int shapes = uniform(2, 8);
        for (int s = 0; s < shapes; ++s) {
            const Rgba8 c = colour();
            const int cx = uniform(0, w - 1), cy = uniform(0, h - 1);
            const int r = uniform(4, std::max(5, std::min(w, h) / 4));
            const bool disc = chance(0.5);
            for (int y = std::max(0, cy - r); y < std::min(h, cy + r); ++y)
                for (int x = std::max(0, cx - r); x < std::min(w, cx + r); ++x)
                    if (!disc || (x - cx) * (x - cx) + (y - cy) * (y - cy) < r * r)
                        image.at(x, y) = c;
        }
        // A little noise, so that patches and seams have something to choose between.
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                Rgba8& p = image.at(x, y);
                const int n = uniform(-6, 6);
                p.r = std::uint8_t(std::clamp(p.r + n, 0, 255));
                p.g = std::uint8_t(std::clamp(p.g + n, 0, 255));
                p.b = std::uint8_t(std::clamp(p.b + n, 0, 255));
            }
        return image;
    }

    /// Error dialogs are answers, not crashes: record what they said and close them.
    void close_error_dialogs() {
        for (QMessageBox* box : window_.findChildren<QMessageBox*>("lacuna_error_dialog")) {
            if (!box->isVisible()) continue;
            ++dialogs_[box->text().left(120)];
            note(QString("  dialog: %1").arg(box->text().left(120)));
            box->accept();
        }
    }

    void check_consistent() {
        const session::History& history = window_.session().history();
        QVERIFY(history.index() >= 0 && history.index() <= history.count());
        QVERIFY(history.count() < kHistoryLimit);
        QCOMPARE(history.can_undo(), history.index() > 0);
        QCOMPARE(history.can_redo(), history.index() < history.count());
        const session::Document& d = document();
        QVERIFY(!d.empty());
        QVERIFY2(d.width() >= 1 && d.width() <= kMaxSaneSide && d.height() >= 1 &&
                     d.height() <= kMaxSaneSide,
                 qPrintable(QString("document %1 × %2").arg(d.width()).arg(d.height())));
        QCOMPARE(d.pixels().width(), d.width());
        QCOMPARE(d.pixels().height(), d.height());
        for (int layer = 0; layer < session::kMaskLayers; ++layer) {
            const Mask& m = d.mask(static_cast<session::MaskLayer>(layer));
            QCOMPARE(m.width(), d.width());
            QCOMPARE(m.height(), d.height());
        }
        QVERIFY2(window_.canvas()->gl_error().isEmpty(), qPrintable(window_.canvas()->gl_error()));
    }

    MainWindow& window_;
    /// The monkey opens the next file after checking the edits: it discards them when asked,
    /// and a save with a retarget preview on screen applies it (what is shown is saved).
    lacuna::test::DialogAnswer discard_{"lacuna_unsaved_dialog", "unsaved_discard"};
    lacuna::test::DialogAnswer apply_preview_{"lacuna_preview_dialog", "preview_apply"};
    QString dir_;
    std::mt19937 rng_;
    Snapshot start_;
    QString last_saved_;
    int generated_ = 0, saves_ = 0, saves_checked_ = 0, opens_ = 0, checkpoints_ = 0;
    int fills_finished_ = 0, fills_cancelled_ = 0, applies_ = 0;
    std::map<QString, int> tally_;
    std::map<QString, int> dialogs_;
    std::deque<QString> recent_;
    QStringList failures_;
};

class TestMonkey : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() {
        if (const char* why = lacuna::test::gl_window_unavailable()) QSKIP(why);
        QStandardPaths::setTestModeEnabled(true);
    }

    void random_interactions() {
        // A fixed default seed keeps CI reproducible; long local runs choose their own.
        const std::uint32_t seed = env_number("LACUNA_MONKEY_SEED", 1);
        const int steps = int(env_number("LACUNA_MONKEY_STEPS", 400));
        const int every = std::max(1, int(env_number("LACUNA_MONKEY_CHECK_EVERY", 200)));
        qInfo("monkey: LACUNA_MONKEY_SEED=%u LACUNA_MONKEY_STEPS=%d (checkpoint every %d steps)",
              seed, steps, every);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        g_messages = {};
        g_previous_handler = qInstallMessageHandler(record_message);
        QElapsedTimer timer;
        timer.start();
        {
            MainWindow window;
            window.resize(1100, 700);
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            Monkey monkey(window, dir.path(), seed);
            monkey.begin();
            for (int i = 0; i < steps && !QTest::currentTestFailed(); ++i) {
                monkey.step(i);
                if (!QTest::currentTestFailed() && (i + 1) % every == 0) monkey.checkpoint();
            }
            if (!QTest::currentTestFailed()) monkey.checkpoint();
            if (QTest::currentTestFailed())
                qInfo("monkey: failed with LACUNA_MONKEY_SEED=%u\n%s", seed,
                      qPrintable(monkey.recent_actions()));
            qInfo("monkey: %s", qPrintable(monkey.summary()));
            qInfo("monkey: %d steps in %.1f s", steps, timer.elapsed() / 1000.0);
            window.session().history().set_clean();  // no "discard changes?" on close
            QVERIFY2(monkey.failures().isEmpty(), qPrintable(monkey.failures().join("\n")));
        }
        qInstallMessageHandler(g_previous_handler);
        QVERIFY2(g_messages.recorded.isEmpty(),
                 qPrintable(QString("Qt warned (seed %1):\n").arg(seed) +
                            g_messages.recorded.join("\n")));
    }
};

int main(int argc, char** argv) {
    QApplication::setAttribute(Qt::AA_ShareOpenGLContexts);
    QApplication app(argc, argv);
    TestMonkey test;
    return QTest::qExec(&test, argc, argv);
}
#include "test_monkey.moc"
