// The editor's window under Xvfb (CPU backend, Mesa GL): opening, showing pixels exactly at 1:1,
// zooming, saving, and an error dialog instead of a crash for a bad file.
#include "canvas.hpp"
#include "main_window.hpp"

#include <lacuna/io/image_io.hpp>

#include <QApplication>
#include <QMessageBox>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QStandardPaths>
#include <QtTest>

using namespace lacuna;
using lacuna::editor::MainWindow;

namespace {
const QString kSample = QStringLiteral(LACUNA_SOURCE_DIR "/resources/sample/fruits.jpg");

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
        if (QGuiApplication::platformName() == "offscreen" ||
            QGuiApplication::platformName() == "minimal") {
            // Qt 6.4's offscreen platform crashes inside QOpenGLWidget: never create one there.
            QSKIP("needs a window system with OpenGL (run under xvfb-run)");
        }
        QOpenGLContext probe;
        if (!probe.create()) QSKIP("no OpenGL context available");
        QStandardPaths::setTestModeEnabled(true);
    }

    void opens_sample_and_shows_exact_pixels() {
        MainWindow window;
        window.resize(900, 700);
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
            if (!frame.rect().contains(p)) continue;
            QCOMPARE(to_rgba(frame.pixelColor(p)), canvas->image().at(ix, iy));
            ++checked;
        }
        QVERIFY(checked >= 1);
    }

    void zoom_and_fit() {
        MainWindow window;
        window.resize(800, 600);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.open_file(kSample));
        editor::Canvas* canvas = window.canvas();
        canvas->actual_size();
        QCOMPARE(canvas->zoom(), 1.0);
        canvas->zoom_by(2.0);
        QCOMPARE(canvas->zoom(), 2.0);
        canvas->fit_to_window();
        QVERIFY(canvas->zoom() <= 1.0);
        QVERIFY(window.windowTitle().contains("fruits.jpg"));
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
