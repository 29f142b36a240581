// lacuna-editor [IMAGE]: opens IMAGE, or the bundled sample photo. Without a display it says so
// and shows the command-line tool's help instead of failing inside Qt.
#include "main_window.hpp"

#include <QApplication>
#include <QIcon>
#include <QSurfaceFormat>

#include <cstdlib>
#include <iostream>

namespace {
bool has_display() {
    const auto set = [](const char* name) {
        const char* v = std::getenv(name);
        return v != nullptr && *v != '\0';
    };
    // An explicit platform (offscreen, eglfs, vnc …) is the user's choice; respect it.
    return set("DISPLAY") || set("WAYLAND_DISPLAY") || set("QT_QPA_PLATFORM");
}
}  // namespace

int main(int argc, char** argv) {
    if (!has_display()) {
        // The editor does not link the CLI; it points at it instead.
        std::cerr
            << "lacuna-editor: no display found (DISPLAY and WAYLAND_DISPLAY are unset), so the\n"
               "editor cannot open a window here. The same engine runs from the command line:\n"
               "run `lacuna --help` for its commands (retarget, histogram, inpaint, bench).\n";
        return 2;
    }
    QApplication::setAttribute(Qt::AA_ShareOpenGLContexts);
    QApplication app(argc, argv);
    QApplication::setOrganizationName("Lacuna");
    QApplication::setApplicationName("Lacuna");
    QApplication::setApplicationDisplayName("Lacuna");
    // The desktop entry's name lets Wayland compositors find the icon and group the windows; the
    // theme icon (installed by the package) wins over the copy embedded for uninstalled builds.
    QGuiApplication::setDesktopFileName("io.github.lacuna_editor.Lacuna");
    QIcon fallback;
    fallback.addFile(":/lacuna/icons/lacuna-32.png");
    fallback.addFile(":/lacuna/icons/lacuna-256.png");
    QApplication::setWindowIcon(QIcon::fromTheme("io.github.lacuna_editor.Lacuna", fallback));
    lacuna::editor::MainWindow window;
    window.show();
    const QStringList args = QApplication::arguments();
    if (args.size() > 1) {
        window.open_file(args.at(1));
    } else {
        window.open_sample();
    }
    return QApplication::exec();
}
