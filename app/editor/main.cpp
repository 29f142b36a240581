// lacuna-editor [IMAGE]: opens IMAGE, or the bundled sample photo. Without a display it says so
// and shows the command-line tool's help instead of failing inside Qt. At start it offers the
// unsaved edits an editor that crashed left behind; SIGTERM, SIGINT and SIGHUP (a logout, a
// closed terminal) write the last autosave and quit, so those edits are offered next time.
#include "main_window.hpp"

#include <lacuna/core/backend.hpp>

#include <QApplication>
#include <QIcon>
#include <QSocketNotifier>
#include <QSurfaceFormat>

#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
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

// A signal handler may only do async-signal-safe things: it writes a byte that the event loop
// reads (the self-pipe pattern), and the window ends there.
int signal_pipe[2] = {-1, -1};
void on_signal(int) {
    const char byte = 1;
    [[maybe_unused]] const ssize_t n = ::write(signal_pipe[0], &byte, 1);
}

void end_on_signals(lacuna::editor::MainWindow& window) {
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, signal_pipe) != 0) return;
    auto* notifier = new QSocketNotifier(signal_pipe[1], QSocketNotifier::Read, &window);
    QObject::connect(notifier, &QSocketNotifier::activated, &window, [&window, notifier] {
        char byte = 0;
        [[maybe_unused]] const ssize_t n = ::read(signal_pipe[1], &byte, 1);
        notifier->setEnabled(false);
        window.end_on_signal();
    });
    struct sigaction action {};
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    for (const int sig : {SIGTERM, SIGINT, SIGHUP}) ::sigaction(sig, &action, nullptr);
}
}  // namespace

int main(int argc, char** argv) {
    lacuna::cuda_prefer_many_queues();  // before any CUDA call
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
    end_on_signals(window);
    window.show();
    const QStringList args = QApplication::arguments();
    if (window.offer_recovery()) {
        // The restored document is what the user was working on.
    } else if (args.size() > 1) {
        window.open_file(args.at(1));
    } else {
        window.open_sample();
    }
    return QApplication::exec();
}
