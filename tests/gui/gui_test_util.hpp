// What the editor's GUI tests share: whether this platform can show the GL canvas at all, the
// widget point of an image point, and DialogAnswer, which answers the editor's modal questions as
// a user would.
#pragma once

#include "canvas.hpp"

#include <QGuiApplication>
#include <QOpenGLContext>
#include <QPoint>

#include <cmath>

#include <QAbstractButton>
#include <QApplication>
#include <QMessageBox>
#include <QObject>
#include <QString>
#include <QTimer>

namespace lacuna::test {

/// Why the editor's window cannot be tested here, or null when it can. Qt 6.4's offscreen
/// platform crashes inside QOpenGLWidget, so no window may be made there at all.
inline const char* gl_window_unavailable() {
    const QString platform = QGuiApplication::platformName();
    if (platform == "offscreen" || platform == "minimal")
        return "needs a window system with OpenGL (run under xvfb-run)";
    QOpenGLContext probe;
    if (!probe.create()) return "no OpenGL context available";
    return nullptr;
}

/// Widget coordinates of image point (x, y) on the canvas.
inline QPoint widget_point(const editor::Canvas* canvas, const double x, const double y) {
    const render::PointF s = canvas->view().to_screen({x, y});
    const double dpr = canvas->devicePixelRatioF();
    return {int(std::lround(s.x / dpr)), int(std::lround(s.y / dpr))};
}

/// Waits for a visible QMessageBox with a given object name and clicks the button with a given
/// object name. The count of answered questions lets a test assert that it was asked at all.
class DialogAnswer : public QObject {
  public:
    /// Clicks `button` in every visible QMessageBox named `dialog` while this object lives.
    DialogAnswer(QString dialog, QString button)
        : dialog_(std::move(dialog)), button_(std::move(button)) {
        timer_.setInterval(5);
        connect(&timer_, &QTimer::timeout, this, &DialogAnswer::poll);
        timer_.start();
    }
    /// Questions answered so far.
    [[nodiscard]] int answered() const { return answered_; }
    /// The last answered question's text and informative text.
    [[nodiscard]] const QString& text() const { return text_; }

  private:
    void poll() {
        for (QWidget* widget : QApplication::topLevelWidgets()) {
            auto* box = qobject_cast<QMessageBox*>(widget);
            if (box == nullptr || !box->isVisible() || box->objectName() != dialog_) continue;
            auto* button = box->findChild<QAbstractButton*>(button_);
            if (button == nullptr) continue;
            text_ = box->text() + "\n" + box->informativeText();
            ++answered_;
            button->click();
        }
    }
    QString dialog_, button_;
    QTimer timer_;
    int answered_ = 0;
    QString text_;
};

}  // namespace lacuna::test
