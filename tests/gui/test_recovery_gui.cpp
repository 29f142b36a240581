// Crash recovery end to end, with real processes under Xvfb:
//  1. an editor (this binary in its --child-edit role: the real MainWindow, edited through mouse
//     strokes on the canvas, a fill and a histogram line) autosaves, and is killed with SIGKILL;
//  2. the real lacuna-editor starts on the same file with LACUNA_RECOVERY_ANSWER=restore, and
//     its own next autosave — written by that process from its restored session — must equal
//     the killed editor's document, masks and tool state exactly;
//  3. SIGTERM ends it with the unsaved edits kept; a start that discards removes them, and a
//     clean exit leaves no recovery file and no lock behind.
#include "canvas.hpp"
#include "gui_test_util.hpp"
#include "main_window.hpp"

#include <recovery.hpp>

#include <lacuna/io/image_io.hpp>

#include <QApplication>
#include <QOpenGLContext>
#include <QProcess>
#include <QtTest>

#include <signal.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>

using namespace lacuna;
using lacuna::test::widget_point;
namespace fs = std::filesystem;

namespace {

void stroke(editor::Canvas* canvas, std::initializer_list<std::pair<double, double>> points) {
    auto it = points.begin();
    QTest::mousePress(canvas, Qt::LeftButton, {}, widget_point(canvas, it->first, it->second));
    for (++it; it != points.end(); ++it)
        QTest::mouseMove(canvas, widget_point(canvas, it->first, it->second));
    const auto last = *(points.end() - 1);
    QTest::mouseRelease(canvas, Qt::LeftButton, {}, widget_point(canvas, last.first, last.second));
}

/// A textured photo, so a fill has something to copy.
ImageRgba8 make_photo() {
    ImageRgba8 image(240, 160);
    for (int y = 0; y < 160; ++y)
        for (int x = 0; x < 240; ++x)
            image.at(x, y) = Rgba8{std::uint8_t((x * 13 + y * 7) % 251),
                                   std::uint8_t((x / 8 + y / 8) % 2 ? 200 : 40),
                                   std::uint8_t(std::lround(127 + 120 * std::sin(x * 0.2))), 255};
    return image;
}

/// Where two snapshots differ ("" when they hold the same document, masks and tools).
QString difference(const session::RecoverySnapshot& a, const session::RecoverySnapshot& b) {
    if (!equal_pixels(a.pixels.view(), b.pixels.view())) return "pixels";
    for (int i = 0; i < session::kMaskLayers; ++i)
        if (!equal_pixels(a.masks[std::size_t(i)].view(), b.masks[std::size_t(i)].view()))
            return QString("mask %1").arg(i);
    const session::ToolState &t = a.tools, &u = b.tools;
    if (t.active != u.active) return "active tool";
    if (t.has_line != u.has_line || t.line_from.x != u.line_from.x ||
        t.line_from.y != u.line_from.y || t.line_to.x != u.line_to.x ||
        t.line_to.y != u.line_to.y || t.line_band != u.line_band)
        return "line";
    if (t.brush.radius != u.brush.radius || t.brush.hardness != u.brush.hardness) return "brush";
    if (a.document_path != b.document_path) return "document path";
    return {};
}

std::vector<fs::path> files_with(const fs::path& dir, const std::string& extension) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.path().extension() == extension) out.push_back(e.path());
    return out;
}

// ---- the child: an editor that edits, autosaves and waits to be killed ----------------------

int run_child(int argc, char** argv) {
    QApplication app(argc, argv);
    const QString image = QString::fromLocal8Bit(argv[2]);
    const fs::path expected_file = argv[3];
    editor::MainWindow window;
    window.resize(1100, 700);
    window.show();
    if (!QTest::qWaitForWindowExposed(&window)) return 3;
    if (window.offer_recovery()) return 4;  // nothing to recover yet
    if (!window.open_file(image)) return 5;
    editor::Canvas* canvas = window.canvas();
    canvas->actual_size();
    // A stroke and a fill: pixels change.
    window.select_tool(editor::CanvasTool::Brush);
    stroke(canvas, {{60, 60}, {80, 62}, {82, 80}, {62, 82}, {70, 70}});
    if (!window.start_fill()) return 6;
    QElapsedTimer timer;
    timer.start();
    while (window.fill_running() && timer.elapsed() < 120000) QTest::qWait(20);
    if (window.fill_running()) return 7;
    // A second stroke stays a mask; a line for the histogram.
    stroke(canvas, {{150, 100}, {170, 110}, {175, 125}});
    window.session().line().set_band(3);
    window.select_tool(editor::CanvasTool::Line);
    window.session().line().set_line({10.5, 20}, {200, 140.25});
    const session::RecoverySnapshot expected =
        session::take_snapshot(window.session(), window.document_path().toStdString());
    // Wait for the autosave that holds all of it.
    const fs::path file = window.recovery_file().toStdString();
    QString last = "no recovery file";
    while (timer.elapsed() < 120000) {
        QTest::qWait(50);
        if (!fs::exists(file)) continue;
        try {
            last = difference(expected, session::read_recovery(file));
        } catch (const Error& e) {
            last = e.what();  // cannot happen: the file appears whole or not at all
            std::cerr << "child: unreadable recovery file: " << e.what() << "\n";
            return 8;
        }
        if (last.isEmpty()) break;
    }
    if (!last.isEmpty()) {
        std::cerr << "child: autosave never held the edits: " << qPrintable(last) << "\n";
        return 9;
    }
    session::write_recovery(expected_file, expected);
    std::cout << "READY" << std::endl;
    return QApplication::exec();  // until killed
}

}  // namespace

class TestRecoveryGui : public QObject {
    Q_OBJECT
    QTemporaryDir temp_;

    QProcessEnvironment environment(const fs::path& state) const {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("XDG_STATE_HOME", QString::fromStdString(state.string()));
        // Settings (window geometry, brush) stay out of the user's configuration too.
        env.insert("XDG_CONFIG_HOME", temp_.filePath("config"));
        env.insert("LACUNA_AUTOSAVE_MS", "150");
        return env;
    }

  private slots:
    void initTestCase() {
        if (const char* why = lacuna::test::gl_window_unavailable()) QSKIP(why);
        QVERIFY(temp_.isValid());
    }

    void killed_editor_is_restored_exactly() {
        const fs::path root = temp_.path().toStdString();
        const fs::path state = root / "state";
        const fs::path dir = state / "lacuna" / "recovery";
        const QString image = temp_.filePath("photo.png");
        io::write_image(image.toStdString(), make_photo().view());
        const fs::path expected_file = root / "expected.recovery";

        // 1. Edit, autosave, SIGKILL.
        QProcess child;
        child.setProcessEnvironment(environment(state));
        child.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        child.start(QCoreApplication::applicationFilePath(),
                    {"--child-edit", image, QString::fromStdString(expected_file.string())});
        QVERIFY(child.waitForStarted());
        QByteArray out;
        QElapsedTimer timer;
        timer.start();
        while (!out.contains("READY") && child.state() == QProcess::Running &&
               timer.elapsed() < 180000) {
            child.waitForReadyRead(200);
            out += child.readAllStandardOutput();
        }
        QVERIFY2(out.contains("READY"),
                 qPrintable(QString("the editing child ended with %1").arg(child.exitCode())));
        QCOMPARE(::kill(pid_t(child.processId()), SIGKILL), 0);
        QVERIFY(child.waitForFinished(10000));
        QCOMPARE(child.exitStatus(), QProcess::CrashExit);
        QCOMPARE(files_with(dir, ".recovery").size(), std::size_t(1));
        QCOMPARE(files_with(dir, ".lock").size(), std::size_t(1));  // left by the crash
        const session::RecoverySnapshot expected = session::read_recovery(expected_file);
        // The edits are real: the fill changed pixels and a mask is painted.
        const io::LoadedImage original = io::read_image(image.toStdString());
        QVERIFY(!equal_pixels(original.image.view(), expected.pixels.view()));
        QVERIFY(count_selected(expected.masks[0].view()) > 0);
        QCOMPARE(expected.tools.active, session::ToolKind::LineHistogram);

        // 2. The real editor restores; its own autosave of the restored session must match.
        QProcess editor;
        QProcessEnvironment env = environment(state);
        env.insert("LACUNA_RECOVERY_ANSWER", "restore");
        editor.setProcessEnvironment(env);
        editor.setProcessChannelMode(QProcess::ForwardedChannels);
        editor.start(LACUNA_EDITOR_PATH, {image});
        QVERIFY(editor.waitForStarted());
        const std::int64_t pid = editor.processId();
        std::optional<session::RecoverySnapshot> restored;
        timer.restart();
        while (!restored && timer.elapsed() < 120000 && editor.state() == QProcess::Running) {
            QTest::qWait(100);
            for (const fs::path& f : files_with(dir, ".recovery")) {
                try {
                    session::RecoverySnapshot s = session::read_recovery(f);
                    if (s.writer_pid == pid) restored = std::move(s);
                } catch (const Error&) {
                    QFAIL("an autosave was unreadable");
                }
            }
        }
        QVERIFY2(restored.has_value(), "the restarted editor never autosaved a restored document");
        QCOMPARE(difference(expected, *restored), QString());
        // The orphan was taken over, not copied.
        QCOMPARE(files_with(dir, ".recovery").size(), std::size_t(1));

        // 3a. SIGTERM: a last autosave, exit 0, the unsaved edits kept for the next start.
        editor.terminate();
        QVERIFY(editor.waitForFinished(30000));
        QCOMPARE(editor.exitStatus(), QProcess::NormalExit);
        QCOMPARE(editor.exitCode(), 0);
        QCOMPARE(files_with(dir, ".recovery").size(), std::size_t(1));
        QVERIFY(files_with(dir, ".lock").empty());
        QCOMPARE(difference(expected, session::read_recovery(files_with(dir, ".recovery")[0])),
                 QString());

        // 3b. Discarding removes them; the untouched document then exits with nothing left.
        QProcess third;
        env = environment(state);
        env.insert("LACUNA_RECOVERY_ANSWER", "discard");
        third.setProcessEnvironment(env);
        third.setProcessChannelMode(QProcess::ForwardedChannels);
        third.start(LACUNA_EDITOR_PATH, {image});
        QVERIFY(third.waitForStarted());
        timer.restart();
        while (timer.elapsed() < 60000 &&
               !(files_with(dir, ".recovery").empty() && files_with(dir, ".lock").size() == 1))
            QTest::qWait(100);
        QVERIFY(files_with(dir, ".recovery").empty());
        QTest::qWait(1000);  // open, and a few autosave ticks with nothing unsaved
        third.terminate();
        QVERIFY(third.waitForFinished(30000));
        QCOMPARE(third.exitCode(), 0);
        QVERIFY(files_with(dir, ".recovery").empty());
        QVERIFY(files_with(dir, ".lock").empty());
    }
};

int main(int argc, char** argv) {
    if (argc == 4 && std::string(argv[1]) == "--child-edit") return run_child(argc, argv);
    QApplication app(argc, argv);
    TestRecoveryGui test;
    return QTest::qExec(&test, argc, argv);
}

#include "test_recovery_gui.moc"
